// What the man page (gen-man.mjs) and the manual in docs/manual/ (gen-docs.mjs) read from a built cli.js:
// the command tree with each command's options and examples, the exit codes, the environment, and the
// files giftcodes keeps. One reading for both, so the two cannot tell different stories.
import { pathToFileURL } from 'node:url';

/** Loads the program from a built cli.js (default dist/cli.js); actions and hooks never run here. */
export async function loadTree(cliFile) {
  const cliUrl = cliFile ? pathToFileURL(cliFile).href : new URL('../dist/cli.js', import.meta.url).href;
  const { buildProgram, HELP_TOPICS, ENVIRONMENT_VARIABLES } = await import(cliUrl);
  const app = {
    io: {},
    signal: new AbortController().signal,
    factory: () => {
      throw new Error('not for running');
    },
    close: async () => undefined,
  };
  return { program: buildProgram(app), HELP_TOPICS, ENVIRONMENT_VARIABLES };
}

/** Every command a user can type, depth first, as [words, command]: help and hidden commands left out. */
export function commands(program) {
  const found = [];
  const walk = (command, path) => {
    for (const sub of command.commands) {
      if (sub.name() === 'help' || sub._hidden) continue;
      const words = [...path, sub.name()];
      found.push([words, sub]);
      walk(sub, words);
    }
  };
  walk(program, []);
  return found;
}

/** `<arg>` and `[arg]` as the usage line shows them. */
export const argumentsOf = (command) =>
  command.registeredArguments.map((a) => (a.required ? `<${a.name()}>` : `[${a.name()}]`)).join(' ');

/** The options a command shows in its help, with the default where it is not a mere on/off. */
export function optionsOf(command) {
  return command.options
    .filter((option) => !option.hidden)
    .map((option) => ({
      flags: option.flags,
      description: option.description,
      default:
        option.defaultValue !== undefined && typeof option.defaultValue !== 'boolean'
          ? String(option.defaultValue)
          : undefined,
    }));
}

/** The examples its --help prints (its own, or for a noun its verbs' first ones), without the `$ `. */
export function examplesOf(command) {
  let text = '';
  command.emit('afterHelp', { error: false, command, write: (chunk) => (text += chunk) });
  const start = text.indexOf('Examples:\n');
  if (start < 0) return [];
  return [...text.slice(start).matchAll(/^ {2}\$ (.+)$/gm)].map((m) => m[1]);
}

/** `help exit-codes` is `  <code>  <meaning>` lines, a meaning going on in lines indented further. */
export function exitCodesOf(topics) {
  return [...topics['exit-codes'].matchAll(/^ {2}(\d+) +(.+(?:\n {4,}.+)*)/gm)].map(([, code, meaning]) => ({
    code,
    meaning: meaning.replace(/\s+/g, ' '),
  }));
}

/**
 * The files giftcodes keeps: where each is by default and what moves it. The config directory is
 * $GIFTCODES_CONFIG_DIR, else $XDG_CONFIG_HOME/giftcodes, else ~/.config/giftcodes (%APPDATA%\giftcodes on
 * Windows); src/config/paths.ts decides it, and test/e2e/manual.test.ts checks these names on a real run.
 */
export const FILES = [
  {
    path: '<config dir>/config.json',
    meaning: 'profiles, base URLs and, where no credential store is usable, keys (0600)',
  },
  {
    path: '<config dir>/journal/',
    meaning:
      "the order journal: each running process's log and one intent file per order whose outcome has not reached you yet (0700)",
  },
  {
    path: '<config dir>/history/',
    meaning: 'the local order record that order list and order show read, kept 90 days; never a key or a code',
  },
  {
    path: '<config dir>/catalog-cache-<hash>.json',
    meaning:
      'the product ids and unit prices of the last catalog list, one file per profile and base URL, offered by shell completion without a network call and read by the typo check of order place',
  },
  {
    path: '$TMPDIR',
    meaning: 'CSV written to stdout is put in column order in a temporary file here first (default /tmp)',
  },
  {
    path: '<install dir>/dist/undici.cjs.cache',
    meaning: 'the V8 code cache of the HTTP client, written at build time; ignored by another Node version',
  },
];

/** Where <config dir> is, in one sentence. */
export const CONFIG_DIR =
  '<config dir> is $GIFTCODES_CONFIG_DIR when set, else $XDG_CONFIG_HOME/giftcodes, else ~/.config/giftcodes (on Windows %APPDATA%\\giftcodes).';
