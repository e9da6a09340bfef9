// dist/start.js answers `--version`, and `--help` into a pipe, without loading the program (issue 6): what it
// prints must be what commander prints, byte for byte.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  BIN,
  DEMO_KEYS,
  loggedIn,
  ROOT,
  runCli,
  servedApi,
  tempDir,
  withServer,
  type TestServer,
} from '../helpers/e2e.js';

const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * One `giftcodes serve` for the file's tests that need a plain one (they ping it, log in to it, read its memory map;
 * none places an order): each started its own, ~0.15 s of CPU a start.
 */
const plain = servedApi();
const withPlain = <T>(fn: (server: TestServer) => Promise<T>): Promise<T> => fn(plain.server);

describe('the answers start.js gives without the program', () => {
  it('the build rendered the top-level help beside the bundle', () => {
    expect(existsSync(join(ROOT, 'dist', 'help.js'))).toBe(true);
  });

  it('--help and -h print exactly what commander prints for `giftcodes help`', async () => {
    const [flag, short, command] = await Promise.all([runCli(['--help']), runCli(['-h']), runCli(['help'])]);
    expect(command.code).toBe(0);
    expect(command.stdout).toMatch(/^Usage: giftcodes /);
    expect(flag.code).toBe(0);
    expect(flag.stdout).toBe(command.stdout);
    expect(flag.stderr).toBe('');
    expect(short.stdout).toBe(command.stdout);
  });

  it('a terminal at least 80 columns wide gets the same help; a narrower one gets it wrapped to fit', () => {
    const onTerminal = (columns: number): string =>
      spawnSync(
        'script',
        ['-qc', `stty cols ${columns}; "${process.execPath}" "${join(ROOT, 'bin', 'giftcodes')}" --help`, '/dev/null'],
        {
          encoding: 'utf8',
          env: {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            XDG_CACHE_HOME: process.env.XDG_CACHE_HOME,
            TERM: 'xterm',
            NO_COLOR: '1',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      ).stdout.replace(/\r/g, '');
    const piped = spawnSync(process.execPath, [join(ROOT, 'bin', 'giftcodes'), '--help'], { encoding: 'utf8' }).stdout;
    expect(onTerminal(120)).toBe(piped);
    const narrow = onTerminal(60);
    expect(narrow).toMatch(/^Usage: giftcodes /);
    // Commander wraps the descriptions to the narrow terminal (the examples are kept whole).
    expect(narrow).not.toBe(piped);
    expect(narrow).toContain('Order gift codes from the reseller API: check a key, browse\n');
  });

  it('--help with other arguments still goes through commander', async () => {
    const [help, order] = await Promise.all([runCli(['--help', '--json']), runCli(['order', '--help'])]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: giftcodes /);
    expect(order.stdout).toMatch(/^Usage: giftcodes order /);
  });

  it('--version and -V print the package version, as commander would', async () => {
    const [long, short, withJson] = await Promise.all([
      runCli(['--version']),
      runCli(['-V']),
      runCli(['--json', '--version']),
    ]);
    expect(long).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    expect(short.stdout).toBe(`${version}\n`);
    expect(withJson.stdout).toBe(`${version}\n`);
  });
});

describe('undici loads only for commands that talk to the API', () => {
  const hook = pathToFileURL(join(ROOT, 'test', 'helpers', 'record-loads.mjs')).href;
  /** The bundle files a run loaded through Node's module loader, and Node's own modules, written at exit. */
  const loadsEnv = (file: string): NodeJS.ProcessEnv => {
    const builtins = `import{writeFileSync}from'node:fs';process.on('exit',()=>writeFileSync(${JSON.stringify(`${file}.builtins`)},process.moduleLoadList.join('\\n')))`;
    return {
      GIFTCODES_LOADS: file,
      NODE_OPTIONS: `--import=data:text/javascript,import{register}from'node:module';register('${hook}') --import=data:text/javascript,${encodeURIComponent(builtins)}`,
    };
  };
  /** Whether a bundle chunk the run imported holds undici's HTTP parser (a name only undici's client has). */
  const chunkWithUndici = (file: string): boolean => {
    const urls = readFileSync(file, 'utf8')
      .split('\n')
      .filter((url) => url.includes('/dist/'));
    expect(urls.length).toBeGreaterThan(0);
    return urls.some((url) => readFileSync(new URL(url), 'utf8').includes('wasm_on_headers_complete'));
  };
  /** transport.ts compiles dist/undici.cjs with node:vm, which nothing else in the program loads. */
  const compiledUndici = (file: string): boolean =>
    readFileSync(`${file}.builtins`, 'utf8').split('\n').includes('NativeModule vm');

  it.each([[['--version']], [['-V']], [['--help']], [['-h']], [['help']]])(
    'giftcodes %s loads nothing of the program into a pipe: the launcher answers it (issue 33)',
    async (args) => {
      const file = join(tempDir(), 'loads.txt');
      const result = await runCli(args, { env: loadsEnv(file) });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(['--version', '-V'].includes(args[0]!) ? `${version}\n` : /^Usage: giftcodes /);
      const urls = readFileSync(file, 'utf8').split('\n');
      expect(urls.some((url) => url.endsWith('/bin/giftcodes'))).toBe(true);
      expect(urls.filter((url) => url.includes('/dist/'))).toEqual([]);
    },
  );

  it.each([[['--version']], [['-V']], [['--help']], [['help']]])(
    'giftcodes %s starts neither the ES module loader nor a stream for stdout: it costs what `node -e 0` does (issue 33)',
    async (args) => {
      const file = join(tempDir(), 'modules.txt');
      const preload = join(tempDir(), 'modules.cjs');
      // A CommonJS preload leaves the loader Node picks for the main file as it is (an --import would start the ES one).
      writeFileSync(
        preload,
        `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(file)}, process.moduleLoadList.join('\\n')));`,
      );
      const result = await runCli(args, { env: { NODE_OPTIONS: `--require=${preload}` } });
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toMatch(['--version', '-V'].includes(args[0]!) ? `${version}\n` : /^Usage: giftcodes /);
      const loaded = readFileSync(file, 'utf8').split('\n');
      expect(loaded).toContain('NativeModule fs');
      expect(loaded.filter((name) => /esm\/(module_job|translators)|internal\/streams\/writable/.test(name))).toEqual(
        [],
      );
    },
  );

  it.each([[['order', 'place', '--help']], [['completion', 'bash']], [['__complete', 'products']]])(
    'giftcodes %s does not',
    async (args) => {
      const file = join(tempDir(), 'loads.txt');
      const result = await runCli(args, { env: loadsEnv(file) });
      expect(result.code).toBe(0);
      expect(chunkWithUndici(file)).toBe(false);
      expect(compiledUndici(file)).toBe(false);
    },
  );

  it('giftcodes serve does not; ping against it does, from dist/undici.cjs and its code cache (never a chunk of the bundle)', async () => {
    const serveLoads = join(tempDir(), 'serve-loads.txt');
    await withServer(
      [],
      async (server) => {
        const pingLoads = join(tempDir(), 'ping-loads.txt');
        // A cache directory of its own: a code cache some other run kept for this Node and this build (in the
        // shared ~/.cache/giftcodes) would be taken first, and the build's is what this test is about.
        const ping = await runCli(['ping', '-v'], {
          baseUrl: server.url,
          env: {
            ...loadsEnv(pingLoads),
            GIFTCODES_API_KEY: DEMO_KEYS.test,
            XDG_CACHE_HOME: tempDir(),
            GIFTCODES_DEBUG: '1',
          },
        });
        expect(ping.code, ping.stderr).toBe(0);
        expect(compiledUndici(pingLoads)).toBe(true);
        expect(chunkWithUndici(pingLoads)).toBe(false);
        // The cache the build made for this Node is used: V8 compiles none of undici's request path again.
        expect(ping.stderr).toContain('undici: from its code cache');
        // A review: -v printed that internal line to a person reading the HTTP attempts; it is for GIFTCODES_DEBUG.
        const plain = await runCli(['ping', '-v'], { baseUrl: server.url, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } });
        expect(plain.stderr).toMatch(/GET \/v1\/ping 200/);
        expect(plain.stderr).not.toContain('undici:');
      },
      loadsEnv(serveLoads),
    );
    expect(chunkWithUndici(serveLoads)).toBe(false);
    expect(compiledUndici(serveLoads)).toBe(false);
  });

  it("ping of a logged-in profile loads no bundle file beyond start.js and cli.js's static imports: the config store and the API client are in them (scripts/build.mjs, API_PATH)", async () => {
    // What cli.js imports statically, and what those import: every command that reaches cli.js loads them.
    const atStart = new Set(['start.js']);
    const visit = (name: string): void => {
      if (atStart.has(name)) return;
      atStart.add(name);
      const source = readFileSync(join(ROOT, 'dist', name), 'utf8');
      // `import"./x.js"` and `from"./x.js"`, not `import("./x.js")`.
      for (const [, imported] of source.matchAll(/(?:\bimport|\bfrom)\s*"\.\/([^"]+\.js)"/g)) visit(imported!);
    };
    visit('cli.js');
    await withPlain(async (server) => {
      const file = join(tempDir(), 'loads.txt');
      const ping = await runCli(['ping'], { configDir: await loggedIn(server), env: loadsEnv(file) });
      expect(ping.code, ping.stderr).toBe(0);
      const loaded = readFileSync(file, 'utf8')
        .split('\n')
        .filter((url) => url.includes('/dist/'))
        .map((url) => url.slice(url.lastIndexOf('/') + 1));
      expect(loaded).toContain('cli.js');
      expect(loaded.filter((name) => !atStart.has(name))).toEqual([]);
    });
  });
});

describe("the compile cache keeps the functions a command calls in cli.js's chunks (src/start.ts, loadProgram)", () => {
  /** The files start.js imports statically: they are compiled before the program, as the launcher needs them. */
  const startImports = (): Set<string> =>
    new Set(
      [
        ...readFileSync(join(ROOT, 'dist', 'start.js'), 'utf8').matchAll(/(?:\bimport|\bfrom)\s*"\.\/([^"]+\.js)"/g),
      ].map(([, name]) => name!),
    );

  it('a warm ping compiles none of them again: V8 compiled them whole when the cache was made', async () => {
    await withPlain(async (server) => {
      const configDir = await loggedIn(server);
      const cache = tempDir();
      const log = join(tempDir(), 'v8.log');
      const ping = (): void => {
        const run = spawnSync(
          process.execPath,
          ['--log-function-events', `--logfile=${log}`, '--no-logfile-per-isolate', BIN, 'ping'],
          {
            env: { ...process.env, GIFTCODES_CONFIG_DIR: configDir, XDG_CACHE_HOME: cache, NO_COLOR: '1' },
            encoding: 'utf8',
          },
        );
        expect(run.status, run.stderr).toBe(0);
      };
      ping();
      ping();
      // V8's log of the second run: `script-details,<id>,<url>,…` and `function,parse-function,<id>,…` for each
      // function compiled as it was first called.
      const lines = readFileSync(log, 'utf8').split('\n');
      const urls = new Map<string, string>(
        lines
          .filter((line) => line.startsWith('script-details,'))
          .map((line) => {
            const [, id = '', url = ''] = line.split(',');
            return [id, url];
          }),
      );
      const compiled = lines
        .filter((line) => line.startsWith('function,parse-function,'))
        .map((line) => urls.get(line.split(',')[2] ?? '') ?? '')
        .filter((url) => url.includes('/dist/'))
        .map((url) => url.slice(url.lastIndexOf('/') + 1));
      const outside = new Set(['start.js', ...startImports()]);
      expect(compiled.filter((name) => outside.has(name)).length).toBeGreaterThan(0);
      expect(compiled.filter((name) => !outside.has(name))).toEqual([]);
    });
  });

  /**
   * Writes, at exit, the flags start.js gave V8 (and its flushes of the compile cache) and the modules of Node's
   * loaded while each was set.
   */
  const flagsEnv = (file: string): NodeJS.ProcessEnv => {
    const preload = join(tempDir(), 'flags.cjs');
    writeFileSync(
      preload,
      `const v8 = require('node:v8');
const set = v8.setFlagsFromString;
const calls = [];
v8.setFlagsFromString = (flags) => { calls.push([flags, process.moduleLoadList.length]); set(flags); };
const nodeModule = require('node:module');
const flush = nodeModule.flushCompileCache;
if (flush) nodeModule.flushCompileCache = () => { calls.push(['flushCompileCache', process.moduleLoadList.length]); flush(); };
process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(file)}, JSON.stringify(calls.map(([flags, at], i) => [flags, process.moduleLoadList.slice(at, (calls[i + 1] ?? [, process.moduleLoadList.length])[1])]))));`,
    );
    return { NODE_OPTIONS: `--require=${preload}` };
  };

  it("V8's lazy compilation is off only while cli.js and its chunks load, and no module of Node's loads meanwhile (it would miss Node's code cache: START_BUILTINS)", async () => {
    await withPlain(async (server) => {
      const file = join(tempDir(), 'flags.json');
      const ping = await runCli(['ping'], {
        configDir: await loggedIn(server),
        env: { ...flagsEnv(file), XDG_CACHE_HOME: tempDir() },
      });
      expect(ping.code, ping.stderr).toBe(0);
      const calls = JSON.parse(readFileSync(file, 'utf8')) as [string, string[]][];
      // The compile cache is written as soon as they are loaded, so that Node gives back what it held of it (a long
      // export carried it to its end).
      // llhttp's WebAssembly kept at its baseline tier: --liftoff-only alone, set at run time, stops Node 22's V8 from
      // tiering it up but not Node 24's or 26's (src/api/transport.ts, loadUndici).
      expect(calls.map(([flags]) => flags)).toEqual([
        '--no-lazy',
        '--lazy',
        'flushCompileCache',
        '--liftoff-only',
        '--no-wasm-tier-up',
        '--no-wasm-dynamic-tiering',
      ]);
      expect(calls[0]![1]).toEqual([]);
    });
  });

  it('without a compile cache (NODE_DISABLE_COMPILE_CACHE) nothing would keep that work: the flag is left alone', async () => {
    await withPlain(async (server) => {
      const file = join(tempDir(), 'flags.json');
      const ping = await runCli(['ping'], {
        configDir: await loggedIn(server),
        env: { ...flagsEnv(file), XDG_CACHE_HOME: tempDir(), NODE_DISABLE_COMPILE_CACHE: '1' },
      });
      expect(ping.code, ping.stderr).toBe(0);
      const calls = JSON.parse(readFileSync(file, 'utf8')) as [string, string[]][];
      expect(calls.map(([flags]) => flags)).toEqual([
        '--liftoff-only',
        '--no-wasm-tier-up',
        '--no-wasm-dynamic-tiering',
      ]);
    });
  });

  it("a large export's one collection at its first page drops the bytecode of what is not running (the start's, compiled whole), and only then; the export's compile cache is written before it", async () => {
    await withPlain(async (server) => {
      const file = join(tempDir(), 'flags.json');
      const out = join(tempDir(), 'codes.csv');
      // 10,000 codes: a smaller export asks for no collection (src/export/write.ts LARGE_EXPORT_CODES; export-gc.test.ts).
      const place = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '10000', '--out', out], {
        configDir: await loggedIn(server),
        env: { ...flagsEnv(file), XDG_CACHE_HOME: tempDir() },
      });
      expect(place.code, place.stderr).toBe(0);
      expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(10_001);
      const flags = (JSON.parse(readFileSync(file, 'utf8')) as [string, string[]][]).map(([flag]) => flag);
      const at = flags.indexOf('--expose-gc');
      expect(flags.slice(at, at + 4)).toEqual([
        '--expose-gc',
        '--stress-flush-code',
        '--no-stress-flush-code',
        '--no-expose-gc',
      ]);
      expect(flags.filter((flag) => flag.includes('stress-flush-code'))).toHaveLength(2);
      // The compile cache written twice before it: once the start chunk is loaded, and once the export's modules are.
      const first = flags.indexOf('--semi-space-growth-factor=1');
      expect(flags.slice(0, first).filter((flag) => flag === 'flushCompileCache')).toHaveLength(2);
      expect(flags[first - 1]).toBe('flushCompileCache');
    });
  });
  describe("a plan's rows and V8's optimising compiler (src/orders/plan.ts, turbofanOff)", () => {
    it("after a plan's first row TurboFan is off for the rest of the run, turned off once", async () => {
      await withPlain(async (server) => {
        const file = join(tempDir(), 'flags.json');
        const plan = join(tempDir(), 'rows.csv');
        writeFileSync(plan, 'product,quantity\namazon-us-10,1\namazon-us-10,2\namazon-us-10,1\n');
        const place = await runCli(['order', 'place', '--plan', plan, '--json'], {
          configDir: await loggedIn(server),
          env: { ...flagsEnv(file), XDG_CACHE_HOME: tempDir() },
        });
        expect(place.code, place.stderr).toBe(0);
        expect((JSON.parse(place.stdout) as { order?: { id?: string } }[]).filter((row) => row.order?.id)).toHaveLength(
          3,
        );
        const flags = (JSON.parse(readFileSync(file, 'utf8')) as [string, string[]][]).map(([flag]) => flag);
        expect(flags.filter((flag) => /turbofan|maglev/.test(flag))).toEqual(['--no-turbofan']);
        // Once a row has been answered: undici, loaded for the first request, set its own flag before.
        expect(flags.indexOf('--no-turbofan')).toBeGreaterThan(flags.indexOf('--liftoff-only'));
        expect(flags.indexOf('--liftoff-only')).toBeGreaterThanOrEqual(0);
      });
    });

    it('a plan whose rows write their codes to files leaves it on: the export loops over every code', async () => {
      await withPlain(async (server) => {
        const file = join(tempDir(), 'flags.json');
        const dir = tempDir();
        const plan = join(dir, 'rows.csv');
        writeFileSync(plan, 'product,quantity,out\namazon-us-10,1,a.csv\namazon-us-10,2,b.csv\n');
        const place = await runCli(['order', 'place', '--plan', plan, '--json'], {
          configDir: await loggedIn(server),
          env: { ...flagsEnv(file), XDG_CACHE_HOME: tempDir() },
        });
        expect(place.code, place.stderr).toBe(0);
        expect(readFileSync(join(dir, 'b.csv'), 'utf8').trim().split('\n')).toHaveLength(3);
        const flags = (JSON.parse(readFileSync(file, 'utf8')) as [string, string[]][]).map(([flag]) => flag);
        expect(flags).toContain('--liftoff-only');
        expect(flags.filter((flag) => /turbofan|maglev/.test(flag))).toEqual([]);
      });
    });

    it('a single order leaves it on', async () => {
      await withPlain(async (server) => {
        const file = join(tempDir(), 'flags.json');
        const place = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--json'], {
          configDir: await loggedIn(server),
          env: { ...flagsEnv(file), XDG_CACHE_HOME: tempDir() },
        });
        expect(place.code, place.stderr).toBe(0);
        const flags = (JSON.parse(readFileSync(file, 'utf8')) as [string, string[]][]).map(([flag]) => flag);
        expect(flags).toContain('--liftoff-only');
        expect(flags.filter((flag) => /turbofan|maglev/.test(flag))).toEqual([]);
      });
    });
  });
});

describe('ping starts no thread of its own', () => {
  it.runIf(process.platform === 'linux')(
    "ping reads undici and its code cache on the main thread: libuv's worker threads never start (issue 33)",
    async () => {
      await withPlain(async (server) => {
        const threads = join(tempDir(), 'threads.txt');
        const preload = join(tempDir(), 'threads.cjs');
        // At exit, the names of the process's threads (libuv names its pool's threads libuv-worker).
        writeFileSync(
          preload,
          `process.on('exit', () => { const fs = require('node:fs'); fs.writeFileSync(${JSON.stringify(threads)}, fs.readdirSync('/proc/self/task').map((t) => fs.readFileSync('/proc/self/task/' + t + '/comm', 'utf8').trim()).join('\\n')); });`,
        );
        const cacheHome = tempDir();
        for (const run of ['the first, which keeps a code cache', 'the next, which uses it']) {
          const ping = await runCli(['ping'], {
            baseUrl: server.url,
            env: { GIFTCODES_API_KEY: DEMO_KEYS.test, XDG_CACHE_HOME: cacheHome, NODE_OPTIONS: `--require=${preload}` },
          });
          expect(ping.code, `${run}: ${ping.stderr}`).toBe(0);
          const names = readFileSync(threads, 'utf8').split('\n');
          expect(names.length, run).toBeGreaterThan(1);
          expect(
            names.filter((name) => name.startsWith('libuv-worker')),
            run,
          ).toEqual([]);
        }
      });
    },
  );
});

describe("undici's code cache is an optimisation, never a condition (issue 13)", () => {
  /** A copy of the installed program (bin, dist, package.json; the same node_modules) whose cache a test may spoil. */
  function programCopy(): string {
    const dir = tempDir();
    for (const part of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    return dir;
  }

  /** ping -v from a program copy, with a cache directory of the test's own. */
  function ping(
    program: string,
    server: { url: string },
    cacheHome: string,
    env: NodeJS.ProcessEnv = {},
  ): ReturnType<typeof spawnSync> & { stderr: string; stdout: string } {
    return spawnSync(process.execPath, [join(program, 'bin', 'giftcodes'), 'ping', '-v'], {
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        XDG_CACHE_HOME: cacheHome,
        GIFTCODES_CONFIG_DIR: tempDir(),
        GIFTCODES_API_KEY: DEMO_KEYS.test,
        GIFTCODES_BASE_URL: server.url,
        NO_COLOR: '1',
        GIFTCODES_DEBUG: '1',
        ...env,
      },
    });
  }

  it.each([
    [
      'damaged',
      (cache: string) => writeFileSync(cache, readFileSync(cache).subarray(0, 200)),
      'undici: code cache not used (V8 rejected it',
    ],
    [
      'random bytes',
      (cache: string) => writeFileSync(cache, Buffer.alloc(4096, 7)),
      'undici: code cache not used (V8 rejected it',
    ],
    ['missing', (cache: string) => rmSync(cache), 'undici: no code cache'],
  ])(
    'a %s cache: ping works, -v says how undici was compiled, and this Node keeps a cache of its own for the next run (issue 33)',
    async (_name, spoil, said) => {
      const program = programCopy();
      spoil(join(program, 'dist', 'undici.cjs.cache'));
      const cacheHome = tempDir();
      await withPlain(async (server) => {
        const first = ping(program, server, cacheHome);
        expect(first.status, first.stderr).toBe(0);
        expect(first.stdout).toContain('status       ok');
        expect(first.stderr).toContain(said);
        const kept = join(
          cacheHome,
          'giftcodes',
          `undici-${process.version}-${process.platform}-${process.arch}.cache`,
        );
        expect(statSync(kept).mode & 0o777).toBe(0o600);
        const second = ping(program, server, cacheHome);
        expect(second.status, second.stderr).toBe(0);
        expect(second.stderr).toContain(`undici: from the code cache this Node made (${kept})`);
      });
    },
  );

  it('a kept cache from another build of undici is not used (the stamp differs), and is replaced', async () => {
    const program = programCopy();
    rmSync(join(program, 'dist', 'undici.cjs.cache'));
    const cacheHome = tempDir();
    await withPlain(async (server) => {
      expect(ping(program, server, cacheHome).status).toBe(0);
      const kept = join(cacheHome, 'giftcodes', `undici-${process.version}-${process.platform}-${process.arch}.cache`);
      const bytes = readFileSync(kept);
      bytes[0] = bytes[0] === 0x30 ? 0x31 : 0x30;
      writeFileSync(kept, bytes);
      const other = ping(program, server, cacheHome);
      expect(other.status, other.stderr).toBe(0);
      expect(other.stderr).toContain('undici: no code cache');
      expect(ping(program, server, cacheHome).stderr).toContain('undici: from the code cache this Node made');
    });
  });

  it('NODE_DISABLE_COMPILE_CACHE: no cache is kept', async () => {
    const program = programCopy();
    rmSync(join(program, 'dist', 'undici.cjs.cache'));
    const cacheHome = tempDir();
    await withPlain(async (server) => {
      for (let run = 0; run < 2; run++) {
        const result = ping(program, server, cacheHome, { NODE_DISABLE_COMPILE_CACHE: '1' });
        expect(result.status, result.stderr).toBe(0);
        expect(result.stderr).toContain('undici: no code cache');
      }
      expect(existsSync(join(cacheHome, 'giftcodes'))).toBe(false);
    });
  });
});

describe("ping leaves Node's heavier modules unloaded (issue 13)", () => {
  /**
   * The builtin modules a run of the CLI loaded, recorded by a CommonJS preload: an ES one importing node:fs would
   * load node:fs/promises itself.
   */
  async function builtinsRequired(args: string[], env: NodeJS.ProcessEnv, configDir?: string): Promise<string[]> {
    const file = join(tempDir(), 'builtins.txt');
    const preload = join(tempDir(), 'builtins.cjs');
    writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(file)}, process.moduleLoadList.join('\\n')));`,
    );
    const result = await runCli(args, {
      env: { ...env, NODE_OPTIONS: `--require=${preload}` },
      ...(configDir ? { configDir } : {}),
    });
    expect(result.code, result.stderr).toBe(0);
    return readFileSync(file, 'utf8').split('\n');
  }

  it('node:http, node:child_process, node:crypto and node:assert stay out of a ping (scripts/build.mjs, src/files/atomic.ts)', async () => {
    await withPlain(async (server) => {
      const loaded = await builtinsRequired(['ping'], {
        GIFTCODES_API_KEY: DEMO_KEYS.test,
        GIFTCODES_BASE_URL: server.url,
      });
      // The list is what it claims to be: undici's own needs are in it.
      expect(loaded).toContain('NativeModule net');
      for (const name of ['http', 'child_process', 'crypto', 'http2', 'tls', 'assert'])
        expect(loaded).not.toContain(`NativeModule ${name}`);
    });
  });

  it('a CSV export to a file loads neither node:crypto nor node:perf_hooks (src/random.ts; BENCHMARKS.md, issue 33)', async () => {
    await withServer(['--fulfil-after', '0'], async (server) => {
      const headers = { 'X-API-Key': DEMO_KEYS.test, 'Content-Type': 'application/json' };
      const placed = await fetch(`${server.url}/v1/orders`, {
        method: 'POST',
        headers: { ...headers, 'Idempotency-Key': `startup-${process.pid}-${Date.now()}` },
        body: JSON.stringify({ product_id: 'amazon-us-25', quantity: 1500 }),
      });
      expect(placed.status).toBe(201);
      const { id } = (await placed.json()) as { id: string };
      for (let tries = 0; tries < 100; tries++) {
        const order = (await (await fetch(`${server.url}/v1/orders/${id}`, { headers })).json()) as { status: string };
        if (order.status === 'completed') break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const out = join(tempDir(), 'codes.csv');
      const loaded = await builtinsRequired(['codes', 'get', id, '--out', out], {
        GIFTCODES_API_KEY: DEMO_KEYS.test,
        GIFTCODES_BASE_URL: server.url,
      });
      expect(readFileSync(out, 'utf8').split('\n').length).toBe(1502);
      for (const name of ['crypto', 'perf_hooks']) expect(loaded).not.toContain(`NativeModule ${name}`);
    });
  });

  const FS_PROMISES = ['fs/promises', 'internal/fs/promises', 'internal/fs/streams', 'internal/readline/interface'];

  it("nor does node:fs/promises, nor node:util's lazy parts (parseArgs, diff, worker_threads): node:fs and node:util are required, not imported, so Node builds no ES facade of them (scripts/build.mjs, requireBuiltins)", async () => {
    await withPlain(async (server) => {
      const loaded = await builtinsRequired(['ping'], {
        GIFTCODES_API_KEY: DEMO_KEYS.test,
        GIFTCODES_BASE_URL: server.url,
      });
      expect(loaded).toContain('NativeModule net');
      for (const name of FS_PROMISES) expect(loaded).not.toContain(`NativeModule ${name}`);
      // What Node's ES facade of node:util loads as it reads every export, getters included (Node 22, 24 and 26).
      for (const name of [
        'internal/util/parse_args/parse_args',
        'internal/util/diff',
        'internal/worker',
        'worker_threads',
      ])
        expect(loaded).not.toContain(`NativeModule ${name}`);
    });
  });

  it("an order and a plan, which write only the journal and the order record, load no node:fs/promises either: loaded after undici's V8 flags it cost 3.4-7 ms, Node's code cache of it refused (src/files/atomic.ts; BENCHMARKS.md, issue 33)", async () => {
    await withPlain(async (server) => {
      const configDir = tempDir();
      const env = { GIFTCODES_API_KEY: DEMO_KEYS.test, GIFTCODES_BASE_URL: server.url };
      const plan = join(tempDir(), 'plan.csv');
      writeFileSync(plan, 'product,quantity\namazon-us-25,1\nsteam-us-20,2\n');
      for (const args of [
        ['order', 'place', '--product', 'amazon-us-25', '--quantity', '1'],
        ['order', 'place', '--plan', plan, '--json'],
      ]) {
        const loaded = await builtinsRequired(args, env, configDir);
        // The journal was written: its modules are in the list, and so is undici's.
        expect(loaded, args.join(' ')).toContain('NativeModule net');
        expect(readdirSync(join(configDir, 'history')).length, args.join(' ')).toBeGreaterThan(0);
        for (const name of FS_PROMISES) expect(loaded, args.join(' ')).not.toContain(`NativeModule ${name}`);
      }
    });
  });
});

describe('a ping with a valid profile loads no zod (issue 23)', () => {
  const hook = pathToFileURL(join(ROOT, 'test', 'helpers', 'record-loads.mjs')).href;
  /** Whether a bundle file the run loaded is zod's (a name only zod's core has). */
  async function loadsZod(
    args: string[],
    configDir: string,
  ): Promise<{ zod: boolean; code: number | null; stderr: string }> {
    const loads = join(tempDir(), 'loads.txt');
    const result = await runCli(args, {
      configDir,
      env: {
        GIFTCODES_LOADS: loads,
        NODE_OPTIONS: `--import=data:text/javascript,import{register}from'node:module';register('${hook}')`,
      },
    });
    const files = readFileSync(loads, 'utf8')
      .split('\n')
      .filter((url) => url.includes('/dist/'));
    expect(files.length).toBeGreaterThan(0);
    return {
      zod: files.some((url) => readFileSync(new URL(url), 'utf8').includes('$ZodType')),
      code: result.code,
      stderr: result.stderr,
    };
  }

  it('ping of a logged-in profile reads its config and the answer without zod', async () => {
    await withPlain(async (server) => {
      const ping = await loadsZod(['ping'], await loggedIn(server));
      expect(ping.code, ping.stderr).toBe(0);
      expect(ping.zod).toBe(false);
    });
  });

  it('(the check sees zod when a damaged config file needs its message)', async () => {
    const configDir = tempDir();
    chmodSync(configDir, 0o700);
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ profiles: { default: { keys: { test: 7 } } } }), {
      mode: 0o600,
    });
    const ping = await loadsZod(['ping'], configDir);
    expect(ping.code).toBe(3);
    expect(ping.stderr).toContain(
      'is invalid at profiles.default.keys.test: Invalid input: expected string, received number',
    );
    expect(ping.zod).toBe(true);
  });
});

describe('the credential store is loaded only when a key is needed (issue 15)', () => {
  const hook = pathToFileURL(join(ROOT, 'test', 'helpers', 'record-loads.mjs')).href;
  /** A string only src/config/keyring.ts holds: the one module that requires @napi-rs/keyring. */
  const KEYRING_MARKER = 'keyring_unavailable';

  async function loadsKeyring(args: string[], input?: string): Promise<boolean> {
    const loads = join(tempDir(), 'loads.txt');
    const result = await runCli(args, {
      input,
      env: {
        GIFTCODES_LOADS: loads,
        NODE_OPTIONS: `--import=data:text/javascript,import{register}from'node:module';register('${hook}')`,
      },
    });
    expect(result.stderr).not.toMatch(/internal error|ERR_/);
    const files = readFileSync(loads, 'utf8')
      .split('\n')
      .filter((url) => url.includes('/dist/'));
    expect(files.length).toBeGreaterThan(0);
    return files.some((url) => readFileSync(new URL(url), 'utf8').includes(KEYRING_MARKER));
  }

  it.each([[['order', 'place', '--help']], [['completion', 'bash']], [['__complete', 'products']]])(
    'giftcodes %s does not load it',
    async (args) => {
      expect(await loadsKeyring(args)).toBe(false);
    },
  );

  it('(the check sees it when login does load it)', async () => {
    await withPlain(async (server) => {
      expect(await loadsKeyring(['login', '--api-key-stdin', '--base-url', server.url], DEMO_KEYS.test)).toBe(true);
    });
  });

  it.skipIf(process.platform !== 'linux')('a running `serve` has not mapped the native keyring module', async () => {
    await withPlain(async (server) => {
      const maps = readFileSync(`/proc/${server.proc.pid}/maps`, 'utf8');
      expect(maps).toContain('node');
      expect(maps).not.toMatch(/keyring/i);
    });
  });
});
