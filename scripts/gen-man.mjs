// Writes man/giftcodes.1 from the command tree of a built cli.js (scripts/build.mjs runs it on each build):
// every command with its usage, description and options, the global options, the environment and exit codes.
// Usage: node scripts/gen-man.mjs [path/to/cli.js]
import { mkdir, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

const root = new URL('../', import.meta.url);
const cliPath = process.argv[2] ? pathToFileURL(process.argv[2]).href : new URL('dist/cli.js', root).href;
const { buildProgram, HELP_TOPICS } = await import(cliPath);
const pkg = JSON.parse(await (await import('node:fs/promises')).readFile(new URL('package.json', root), 'utf8'));

// The tree needs no Io or factory to be built: actions and hooks that use them never run here.
const app = { io: {}, signal: new AbortController().signal, factory: () => { throw new Error('not for running'); }, close: async () => undefined };
const program = buildProgram(app);

/** roff: a backslash doubled, a leading dot or quote escaped, dashes as \- so they copy as ASCII. */
const esc = (text) => String(text).replace(/\\/g, '\\e').replace(/-/g, '\\-').replace(/^([.'])/gm, '\\&$1');

const out = [];
out.push(`.TH GIFTCODES 1 "" "giftcodes ${pkg.version}" "User Commands"`);
out.push('.SH NAME', `giftcodes \\- ${esc(pkg.description)}`);
out.push('.SH SYNOPSIS', '.B giftcodes', '.I command', '[\\fIoptions\\fR]');
out.push('.SH DESCRIPTION', esc(program.description()));
out.push('.SH GLOBAL OPTIONS', ...options(program));
out.push('.SH COMMANDS');
walk(program, []);
out.push('.SH ENVIRONMENT', '.nf', esc(HELP_TOPICS.environment.trimEnd()), '.fi');
out.push('.SH EXIT STATUS', '.nf', esc(HELP_TOPICS['exit-codes'].trimEnd()), '.fi');
out.push('.SH SEE ALSO', 'giftcodes help environment, giftcodes help exit\\-codes, giftcodes \\fIcommand\\fR \\-\\-help');

function options(command) {
  const lines = [];
  for (const option of command.options) {
    if (option.hidden) continue;
    lines.push('.TP', `.B ${esc(option.flags)}`, esc(option.description + (option.defaultValue !== undefined && typeof option.defaultValue !== 'boolean' ? ` (default: ${option.defaultValue})` : '')));
  }
  return lines;
}

function walk(command, path) {
  for (const sub of command.commands) {
    if (sub.name() === 'help' || sub._hidden) continue;
    const words = [...path, sub.name()];
    const args = sub.registeredArguments.map((a) => (a.required ? `<${a.name()}>` : `[${a.name()}]`)).join(' ');
    out.push('.SS', `"${esc(['giftcodes', ...words, args].filter(Boolean).join(' '))}"`, esc(sub.description()));
    const own = options(sub);
    if (own.length > 0) out.push('.RS', ...own, '.RE');
    walk(sub, words);
  }
}

await mkdir(new URL('man/', root), { recursive: true });
await writeFile(new URL('man/giftcodes.1', root), `${out.join('\n')}\n`);
