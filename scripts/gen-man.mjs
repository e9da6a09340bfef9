// Writes man/giftcodes.1 from the command tree of a built cli.js (scripts/build.mjs runs it on each build):
// every command with its usage, description and options, the global options, the environment and exit codes.
// Usage: node scripts/gen-man.mjs [path/to/cli.js [path/to/giftcodes.1]]
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

const root = new URL('../', import.meta.url);
const cliPath = process.argv[2] ? pathToFileURL(process.argv[2]).href : new URL('dist/cli.js', root).href;
const { buildProgram, HELP_TOPICS, ENVIRONMENT_VARIABLES } = await import(cliPath);
const pkg = JSON.parse(await readFile(new URL('package.json', root), 'utf8'));

/**
 * The date in .TH: the version's release date from CHANGELOG.md, or SOURCE_DATE_EPOCH when a packager sets it
 * (reproducible-builds.org). Never the build time, which would make each build of one version differ; nor the
 * git commit date, which moves with every commit of a version and is missing from a tree without .git.
 */
async function releaseDate() {
  const epoch = process.env.SOURCE_DATE_EPOCH;
  if (epoch !== undefined && epoch !== '') {
    if (!/^\d{1,12}$/.test(epoch)) throw new Error(`SOURCE_DATE_EPOCH must be whole seconds since 1970, not ${JSON.stringify(epoch)}`);
    return new Date(Number(epoch) * 1000).toISOString().slice(0, 10);
  }
  const changelog = await readFile(new URL('CHANGELOG.md', root), 'utf8');
  const escaped = pkg.version.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const entry = new RegExp(`^## ${escaped} \\((\\d{4}-\\d{2}-\\d{2})\\)$`, 'm').exec(changelog);
  if (!entry) throw new Error(`CHANGELOG.md has no "## ${pkg.version} (YYYY-MM-DD)" heading: add the release date of ${pkg.version} there (the man page's .TH takes it)`);
  return entry[1];
}

// The tree needs no Io or factory to be built: actions and hooks that use them never run here.
const app = { io: {}, signal: new AbortController().signal, factory: () => { throw new Error('not for running'); }, close: async () => undefined };
const program = buildProgram(app);

/**
 * roff: a backslash as \e, a leading dot or quote escaped, dashes as \- so they copy as ASCII, and any other
 * character as \[uXXXX], which groff reads without a preprocessor (→ and … appear in descriptions).
 */
const esc = (text) =>
  String(text)
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/^([.'])/gm, '\\&$1')
    .replace(/[^\p{ASCII}]/gu, (c) => `\\[u${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}]`);

/** Filled text as input lines of at most 80 bytes (mandoc's style check), broken between words. */
function fill(text) {
  const lines = [];
  let line = '';
  for (const word of esc(text).split(/\s+/).filter(Boolean)) {
    if (line !== '' && `${line} ${word}`.length > 80) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  // A wrapped line may now begin with a dot or a quote, which roff would read as a request.
  return lines.map((l) => l.replace(/^([.'])/, '\\&$1'));
}

const out = [];
out.push(`.TH GIFTCODES 1 ${await releaseDate()} "giftcodes ${pkg.version}" "User Commands"`);
out.push('.SH NAME', ...fill(`giftcodes - ${pkg.description.replace(/\.$/, '')}`));
out.push('.SH SYNOPSIS', '.B giftcodes', '.I command', '.RI [ options ]');
out.push('.SH DESCRIPTION', ...fill(program.description()));
out.push('.SH GLOBAL OPTIONS', ...options(program));
out.push('.SH COMMANDS');
walk(program, []);
out.push('.SH ENVIRONMENT', ...fill('A flag wins over its variable, a variable over the profile.'));
for (const variable of ENVIRONMENT_VARIABLES) out.push('.TP', `.B ${esc(variable.names.join(', '))}`, ...fill(variable.meaning));
out.push('.SH EXIT STATUS');
// `help exit-codes` is `  <code>  <meaning>` lines, a meaning going on in lines indented further.
for (const [, code, meaning] of HELP_TOPICS['exit-codes'].matchAll(/^ {2}(\d+) +(.+(?:\n {4,}.+)*)/gm)) out.push('.TP', `.B ${code}`, ...fill(meaning));
out.push('.SH SEE ALSO', ...fill('giftcodes help environment, giftcodes help exit-codes, giftcodes'), '.I command', '\\-\\-help');

function options(command) {
  const lines = [];
  for (const option of command.options) {
    if (option.hidden) continue;
    lines.push('.TP', `.B ${esc(option.flags)}`, ...fill(option.description + (option.defaultValue !== undefined && typeof option.defaultValue !== 'boolean' ? ` (default: ${option.defaultValue})` : '')));
  }
  return lines;
}

function walk(command, path) {
  for (const sub of command.commands) {
    if (sub.name() === 'help' || sub._hidden) continue;
    const words = [...path, sub.name()];
    const args = sub.registeredArguments.map((a) => (a.required ? `<${a.name()}>` : `[${a.name()}]`)).join(' ');
    out.push(`.SS "${esc(['giftcodes', ...words, args].filter(Boolean).join(' '))}"`, ...fill(sub.description()));
    const own = options(sub);
    if (own.length > 0) out.push('.RS', ...own, '.RE');
    walk(sub, words);
  }
}

const target = process.argv[3] ? pathToFileURL(process.argv[3]) : new URL('man/giftcodes.1', root);
await mkdir(new URL('./', target), { recursive: true });
await writeFile(target, `${out.join('\n')}\n`);
