// The command tree. A noun's index registers its verbs; a new verb is one file and one line.
import type { Command } from 'commander';
import type { App } from './app.js';
import { register as registerCatalog } from './catalog/index.js';
import { register as registerCodes } from './codes/index.js';
import { register as registerCompletion } from './completion.js';
import { register as registerConfig } from './config/index.js';
import { register as registerDoctor } from './doctor.js';
import { register as registerLogin } from './login.js';
import { register as registerLogout } from './logout.js';
import { register as registerOrder } from './order/index.js';
import { register as registerPing } from './ping.js';
import { register as registerServe } from './serve.js';
import { register as registerStatus } from './status.js';
import { register as registerVersion } from './version.js';
import { register as registerWebhook } from './webhook/index.js';

/** The top-level commands, each with its group in the help and the names it registers. */
const COMMANDS: readonly { name: string; group: string; register: (program: Command, app: App) => void }[] = [
  { name: 'login', group: 'Set up:', register: registerLogin },
  { name: 'logout', group: 'Set up:', register: registerLogout },
  { name: 'config', group: 'Set up:', register: registerConfig },
  { name: 'status', group: 'Set up:', register: registerStatus },
  { name: 'ping', group: 'Set up:', register: registerPing },
  { name: 'doctor', group: 'Set up:', register: registerDoctor },
  { name: 'catalog', group: 'Buy codes:', register: registerCatalog },
  { name: 'order', group: 'Buy codes:', register: registerOrder },
  { name: 'codes', group: 'Buy codes:', register: registerCodes },
  { name: 'webhook', group: 'Tools:', register: registerWebhook },
  { name: 'serve', group: 'Tools:', register: registerServe },
  { name: 'completion', group: 'Tools:', register: registerCompletion },
  { name: 'version', group: 'Tools:', register: registerVersion },
];

/**
 * Registers the command tree. Given `only` (the command a run names), just that command's branch: parsing
 * and running it is the same, and the other forty-odd commands are not built on every start (~4 ms of
 * `ping`, BENCHMARKS.md issue 13). Anything else (no command, help, `__complete`, an unknown word) gets the
 * whole tree, for the help, `completion`'s scripts, `__complete` and the "did you mean" suggestions.
 */
export function registerCommands(program: Command, app: App, only?: string): void {
  // `completion` prints a script made from the whole tree.
  const one = only === 'completion' ? undefined : COMMANDS.find((command) => command.name === only);
  let group: string | undefined;
  for (const command of one ? [one] : COMMANDS) {
    if (command.group !== group) program.commandsGroup((group = command.group));
    command.register(program, app);
  }
}

/**
 * The command a run names: the first word that is neither an option of the program nor the value of one
 * (`giftcodes --profile work ping` → ping); undefined after `--` or when there is none.
 */
export function commandWord(program: Command, args: readonly string[]): string | undefined {
  const takesValue = valueFlags(program);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') return undefined;
    if (!arg.startsWith('-') || arg === '-') return arg;
    if (takesValue.has(arg)) i++;
  }
  return undefined;
}

/** The flags of a command's own options that take a value (`--profile`, `--env`, …), long and short. */
export function valueFlags(command: Command): Set<string> {
  return new Set(
    command.options
      .filter((option) => option.required || option.optional)
      .flatMap((option) => [option.long, option.short].filter((flag) => flag !== undefined)),
  );
}
