// Writes man/giftcodes.1 from the command tree of a built cli.js (scripts/build.mjs runs it on each build):
// every command with its usage, description, options and examples, the global options, the environment, the
// files it keeps and the exit codes. scripts/command-tree.mjs reads the tree, as it does for docs/manual/.
// Usage: node scripts/gen-man.mjs [path/to/cli.js [path/to/giftcodes.1]]
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import {
  argumentsOf,
  commands,
  CONFIG_DIR,
  examplesOf,
  exitCodesOf,
  FILES,
  loadTree,
  optionsOf,
} from './command-tree.mjs';

const root = new URL('../', import.meta.url);
const { program, HELP_TOPICS, ENVIRONMENT_VARIABLES } = await loadTree(process.argv[2]);
const pkg = JSON.parse(await readFile(new URL('package.json', root), 'utf8'));

/**
 * The date in .TH: the version's release date from CHANGELOG.md, or SOURCE_DATE_EPOCH when a packager sets it
 * (reproducible-builds.org). Never the build time, which would make each build of one version differ; nor the
 * git commit date, which moves with every commit of a version and is missing from a tree without .git.
 */
async function releaseDate() {
  const epoch = process.env.SOURCE_DATE_EPOCH;
  if (epoch !== undefined && epoch !== '') {
    if (!/^\d{1,12}$/.test(epoch))
      throw new Error(`SOURCE_DATE_EPOCH must be whole seconds since 1970, not ${JSON.stringify(epoch)}`);
    return new Date(Number(epoch) * 1000).toISOString().slice(0, 10);
  }
  const changelog = await readFile(new URL('CHANGELOG.md', root), 'utf8');
  const escaped = pkg.version.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const entry = new RegExp(`^## ${escaped} \\((\\d{4}-\\d{2}-\\d{2})\\)$`, 'm').exec(changelog);
  if (!entry)
    throw new Error(
      `CHANGELOG.md has no "## ${pkg.version} (YYYY-MM-DD)" heading: add the release date of ${pkg.version} there (the man page's .TH takes it)`,
    );
  return entry[1];
}

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
for (const [words, command] of commands(program)) {
  out.push(
    `.SS "${esc(['giftcodes', ...words, argumentsOf(command)].filter(Boolean).join(' '))}"`,
    ...fill(command.description()),
  );
  const own = options(command);
  if (own.length > 0) out.push('.RS', ...own, '.RE');
}
out.push('.SH ENVIRONMENT', ...fill('A flag wins over its variable, a variable over the profile.'));
for (const variable of ENVIRONMENT_VARIABLES)
  out.push('.TP', `.B ${esc(variable.names.join(', '))}`, ...fill(variable.meaning));
out.push('.SH FILES', ...fill(CONFIG_DIR));
for (const file of FILES) out.push('.TP', `.I ${esc(file.path)}`, ...fill(file.meaning));
out.push('.SH EXIT STATUS');
for (const { code, meaning } of exitCodesOf(HELP_TOPICS)) out.push('.TP', `.B ${code}`, ...fill(meaning));
out.push('.SH EXAMPLES');
// The program's own examples (what a reseller does, in order), then each command's, as --help shows them.
for (const [words, command] of [[[], program], ...commands(program)]) {
  const lines = examplesOf(command);
  if (lines.length === 0 || (words.length > 0 && command.commands.length > 0)) continue;
  out.push(
    ...(words.length === 0 ? [] : [`.SS "${esc(['giftcodes', ...words].join(' '))}"`]),
    '.nf',
    '.RS 4',
    ...lines.map(esc),
    '.RE',
    '.fi',
  );
}
out.push(
  '.SH SEE ALSO',
  ...fill('giftcodes help environment, giftcodes help exit-codes, giftcodes'),
  '.I command',
  '\\-\\-help',
);

function options(command) {
  return optionsOf(command).flatMap((option) => [
    '.TP',
    `.B ${esc(option.flags)}`,
    ...fill(option.description + (option.default !== undefined ? ` (default: ${option.default})` : '')),
  ]);
}

const target = process.argv[3] ? pathToFileURL(process.argv[3]) : new URL('man/giftcodes.1', root);
await mkdir(new URL('./', target), { recursive: true });
await writeFile(target, `${out.join('\n')}\n`);
