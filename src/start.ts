// The process entry (bin/giftcodes). `giftcodes --version`, and `giftcodes --help` (or `help`) into a pipe, a file or a terminal of 80 columns or more, are
// answered here, before the program and its dependencies load: scripts call them often and they need
// nothing else. Anything else goes to cli.ts.
import { enableCompileCache, writeCompileCacheNow } from './cache-dir.js';
import { VERSION } from './version.js';

export async function main(argv: readonly string[] = process.argv): Promise<never> {
  const args = argv.slice(2);
  const only = args.length === 1 ? args[0] : undefined;
  if (only === '--version' || only === '-V') return exitAfter(`${VERSION}\n`, 'the version');
  // Before any other module loads: from here on, each is compiled from the cache when it can be.
  enableCompileCache();
  if (
    (only === '--help' || only === '-h' || only === 'help') &&
    !colourForced(process.env) &&
    (await fitsRenderedHelp())
  ) {
    const help = await renderedHelp();
    if (help !== undefined) return exitAfter(help, 'the help');
  }
  const cli = await loadProgram();
  return cli.main(argv);
}

/**
 * Node's modules the program's start chunks import, or load as those chunks run: loaded before V8's lazy
 * compilation is turned off (loadProgram), since a module of Node's compiled with the flag changed does not take
 * Node's code cache of it and is compiled whole from source. test/e2e/startup.test.ts checks that none loads inside.
 */
const START_BUILTINS = [
  'node:events',
  'node:fs',
  'node:net',
  'node:os',
  'node:path',
  'node:process',
  'node:tty',
  'node:url',
  'node:util',
] as const;

/**
 * cli.js and the chunks it imports, compiled whole while the compile cache is on. Node's compile cache keeps the
 * code V8 made when a module was compiled, before it ran (BENCHMARKS.md, issue 33): V8 compiles a function only
 * when it is first called, so the ~350 functions every ping calls in these chunks (commander's, the config store's,
 * the API client's) were compiled again at every run. With V8's lazy compilation off while they are compiled, the
 * cache keeps all of them. Without a compile cache nothing would keep that work, so nothing changes; nor when the
 * node command line sets the flag itself, or on a Node without process.getBuiltinModule (before 22.3).
 */
async function loadProgram(): Promise<typeof import('./cli.js')> {
  const builtin = process.getBuiltinModule as typeof process.getBuiltinModule | undefined;
  if (
    typeof builtin !== 'function' ||
    builtin('node:module').getCompileCacheDir() === undefined ||
    process.execArgv.some((flag) => /^--(no-)?lazy$/.test(flag))
  )
    return import('./cli.js');
  for (const name of START_BUILTINS) builtin(name);
  const { setFlagsFromString } = builtin('node:v8');
  setFlagsFromString('--no-lazy');
  try {
    return await import('./cli.js');
  } finally {
    setFlagsFromString('--lazy');
    // ~0.9 MB for these chunks compiled whole (peak RSS of 1,000,000 codes to CSV ~1 MiB lower). Modules loaded
    // later are kept at exit as before.
    writeCompileCacheNow();
  }
}

/**
 * The top-level help that scripts/build.mjs rendered through commander when it built dist/: the same bytes
 * commander writes when stdout is not a terminal (80 columns, no colour). A terminal goes through
 * commander, which wraps to its width. Undefined when the build made none (then commander answers).
 */
async function renderedHelp(): Promise<string | undefined> {
  try {
    const rendered = (await import(new URL('./help.js', import.meta.url).href)) as { default?: unknown };
    return typeof rendered.default === 'string' ? rendered.default : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The rendered help is 80 columns wide, as commander writes it into a pipe. A terminal at least that wide
 * gets it too (commander's own wrap to a wider terminal is not worth a quarter of the start-up time);
 * a narrower one goes through commander, which wraps to fit.
 */
async function fitsRenderedHelp(): Promise<boolean> {
  if (!(await import('node:tty')).isatty(1)) return true;
  return (process.stdout.columns ?? 0) >= 80;
}

/** Commander keeps colour in help when FORCE_COLOR or CLICOLOR_FORCE ask for it, even into a pipe. */
function colourForced(env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR || env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false') return false;
  return Boolean(env.FORCE_COLOR) || env.CLICOLOR_FORCE !== undefined;
}

/**
 * Writes the text, waits for stdout to take it (a pipe may be asynchronous), then exits 0; a stdout that cannot
 * take it (/dev/full) is exit 8 with the program's words for it (docs/exit-codes.md); a reader gone is exit 0.
 */
function exitAfter(text: string, what: string): Promise<never> {
  return new Promise<never>(() => {
    process.stdout.once('error', () => undefined);
    process.stdout.write(text, (error) => {
      // A reader that went away (`--help | head -1`) read what it wanted: exit 0, as cli.ts's help (helpFailed).
      if (!error || (error as NodeJS.ErrnoException).code === 'EPIPE') process.exit(0);
      void notWritten(error, what);
    });
  });
}

/** The error line and hint of output that stdout refused, loaded only then: the answer above needs none of it. */
async function notWritten(error: NodeJS.ErrnoException, what: string): Promise<void> {
  const { Io, stdoutFailed } = await import('./output/io.js');
  const failed = stdoutFailed(error, what);
  const stamp = Io.system().stamp();
  process.stderr.write(`${stamp}error: ${failed.message}\n${stamp}hint: ${failed.hint ?? ''}\n`, () =>
    process.exit(failed.exitCode),
  );
}
