// Bundles src/start.ts and src/cli.ts into dist/ with code splitting, so each verb and each heavy dependency
// loads only when a command needs it and module resolution costs nothing at start-up.
// The bundle is built beside dist/ and swapped in whole, so a CLI running meanwhile never sees half a build.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import http2 from 'node:http2';
import { build } from 'esbuild';
import ts from 'typescript';
import { ESM_REQUIRE_BANNER } from './esm-banner.mjs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

const root = new URL('../', import.meta.url);
const pkg = JSON.parse(await readFile(new URL('package.json', root), 'utf8'));
const staging = new URL(`dist.build-${process.pid}/`, root);
const retired = new URL(`dist.old-${process.pid}/`, root);
const dist = new URL('dist/', root);

// `import process from 'node:process'` (chalk, ora, conf do it) makes Node build the ESM facade of the
// process object, which reads every property: stdin, stdout and stderr are created on the spot, and
// net with them (about 3 ms on every start). The global is the same object, without that cost.
const processGlobal = {
  name: 'process-global',
  setup(build) {
    build.onResolve({ filter: /^(node:)?process$/ }, (args) =>
      args.kind === 'import-statement' ? { path: 'process', namespace: 'process-global' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'process-global' }, () => ({
      contents: 'export default process;',
      loader: 'js',
    }));
  },
};

/**
 * Node modules some dependencies require when they load but need only on paths giftcodes never takes. Each
 * gets a stand-in that answers the few names read at load, and requires the real module the first time
 * anything else is asked for. Measured on `ping` (BENCHMARKS.md, issue 13), each is a few milliseconds of
 * every API command:
 * - undici's HTTP/2 client reads eight `node:http2` constants (copied here from this Node at build time);
 *   node:http2 brings node:tls and node:crypto. giftcodes never enables HTTP/2 (allowH2 stays off).
 * - undici's HTTP/1 client reads `http.maxHeaderSize` at load, for a default: the transport always passes
 *   maxHeaderSize itself, so the default is never used. Its util compares a stream body's constructor with
 *   `http.IncomingMessage` before destroying it; giftcodes sends string bodies only, never a response.
 *   node:http brings ten more modules (its agent, parser, client and server).
 * - commander requires node:child_process for stand-alone executable sub-commands, which giftcodes has none
 *   of; node:child_process brings node:dgram and seven more.
 * - undici's modules require node:assert, and only ever call it as `assert(condition)`: the stand-in is that
 *   function, which loads the real one (and its five modules, ~4 ms) only to throw its AssertionError.
 */
const LAZY_BUILTINS = [
  {
    name: 'node:http2',
    importer: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/,
    known: () => ({ constants: http2.constants }),
  },
  {
    name: 'node:http',
    importer: /[\\/]undici[\\/]lib[\\/](dispatcher[\\/]client|core[\\/]util)\.js$/,
    known: () => ({ maxHeaderSize: 16384 }),
    stubs: ['IncomingMessage'],
  },
  { name: 'node:child_process', importer: /[\\/]commander[\\/]lib[\\/]command\.js$/, known: () => ({}) },
  {
    name: 'node:assert',
    importer: /[\\/]undici[\\/]lib[\\/]/,
    known: () => ({}),
    call: 'function assert(value, message) { if (!value) (real ??= require("node:assert"))(value, message); }',
  },
];
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(build) {
    const names = new RegExp(`^(${LAZY_BUILTINS.map((entry) => entry.name).join('|')})$`);
    build.onResolve({ filter: names }, (args) => {
      const lazy = LAZY_BUILTINS.find((entry) => entry.name === args.path && entry.importer.test(args.importer));
      return lazy ? { path: lazy.name, namespace: 'lazy-builtins' } : undefined;
    });
    build.onLoad({ filter: /.*/, namespace: 'lazy-builtins' }, (args) => {
      const lazy = LAZY_BUILTINS.find((entry) => entry.name === args.path);
      return {
        contents: [
          `const known = Object.assign(${lazy.call ?? '{}'}, ${JSON.stringify(lazy.known())});`,
          // A class that nothing is an instance of: a comparison with it is false, as it is for every body giftcodes sends.
          ...(lazy.stubs ?? []).map((name) => `known[${JSON.stringify(name)}] = class NotLoaded {};`),
          'let real;',
          `module.exports = new Proxy(known, { get: (target, name) => (name in target ? target[name] : (real ??= require(${JSON.stringify(lazy.name)}))[name]) });`,
        ].join('\n'),
        loader: 'js',
      };
    });
  },
};

/**
 * esbuild puts each module in the chunk of its own set of entry points, and every dynamic import is an entry
 * point: the modules cli.js imports at start were spread over fourteen small files, each costing every start
 * about half a millisecond to resolve, read, link and evaluate (BENCHMARKS.md, issue 13). Two rewrites, at
 * build time only, put that start-up graph (cli.js's static imports, found by a first pass) in one file:
 * - a dynamic import of a module already in the graph is made static (cli.js has loaded it by then anyway),
 *   so it is no entry point of its own;
 * - every module outside the graph imports the whole graph, last, so every entry point reaches all of it.
 * Nothing in the graph imports those modules statically, so neither adds a cycle to the graph.
 * The graph also holds what every command that talks to the API loads next, the config store and the API
 * client (src/factory.ts imports them when a command first asks): as chunks of their own they were six more
 * files on ping's path, for 36 KB of the program's own code (BENCHMARKS.md, issue 33).
 */
const API_PATH = ['src/api/client.ts', 'src/config/store.ts'];

async function startGraph(options) {
  const dynamicExternal = {
    name: 'dynamic-external',
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) =>
        args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined,
      );
    },
  };
  const cli = new URL('src/cli.ts', root).pathname;
  const result = await build({
    ...options,
    entryPoints: [cli, ...API_PATH.map((path) => new URL(path, root).pathname)],
    splitting: false,
    write: false,
    outdir: 'graph',
    plugins: [...options.plugins, dynamicExternal],
  });
  // cli.ts itself is not in it: start.ts imports it dynamically, and that import must stay dynamic.
  return new Set(
    Object.keys(result.metafile.inputs)
      .filter((input) => !input.includes(':'))
      .map((input) => new URL(input, root).pathname)
      .filter((path) => path !== cli),
  );
}

function oneStartChunk(graph) {
  const [cli, start] = ['src/cli.ts', 'src/start.ts'].map((path) => new URL(path, root).pathname);
  // import('./x.js') in code; not `typeof import('./x.js')`, which is a type.
  const DYNAMIC = /(?<!typeof )\bimport\('(\.{1,2}\/[^']+)\.js'\)/g;
  return {
    name: 'one-start-chunk',
    setup(build) {
      build.onResolve({ filter: /^giftcodes:start-graph$/ }, () => ({ path: 'start-graph', namespace: 'start-graph' }));
      build.onLoad({ filter: /.*/, namespace: 'start-graph' }, () => ({
        contents: [...graph].map((path) => `import ${JSON.stringify(path)};`).join('\n'),
        loader: 'js',
        resolveDir: new URL('.', root).pathname,
      }));
      build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
        // start.ts's import of cli.ts stays dynamic: --version and --help are answered without it.
        if (args.path === start) return undefined;
        const source = await readFile(args.path, 'utf8');
        const statics = [];
        const rewritten = source.replace(DYNAMIC, (whole, relative) => {
          if (!graph.has(join(dirname(args.path), `${relative}.ts`))) return whole;
          statics.push(`import * as __gcStatic${statics.length} from '${relative}.js';`);
          return `Promise.resolve(__gcStatic${statics.length - 1})`;
        });
        const inGraph = graph.has(args.path) || args.path === cli;
        const byRequire = requireBuiltins(rewritten, args.path);
        if (statics.length === 0 && inGraph && byRequire === source) return undefined;
        return {
          contents: `${statics.join('\n')}\n${byRequire}\n${inGraph ? '' : "import 'giftcodes:start-graph';\n"}`,
          loader: 'ts',
        };
      });
    },
  };
}

/**
 * `import { … } from 'node:fs'` (or 'node:util') in the program's modules becomes `const { … } = require('node:fs')`
 * (the banner gives each output file `require`). An ES module import of a builtin makes Node build its ES facade,
 * which reads every export of the module, getters included. For node:fs that loads node:fs/promises and the file
 * streams, ~2 ms of CPU on every start (a `ping` uses neither; BENCHMARKS.md, issue 33). For node:util (wrap.ts's
 * stripVTControlCharacters) it loads util's lazy parts: parseArgs, diff, setTraceSigInt and, through them,
 * node:worker_threads with its message ports and locks, 13 of Node's modules (14 on Node 26) a `ping` never uses.
 * Both are CommonJS inside Node, loaded before any program runs, so `require` only hands them over. A `type` name
 * stays an `import type`. Measured on `ping`, Node 24 (30 alternated pairs): node:fs by require, 11 fewer of Node's
 * modules loaded, 6-10 M fewer instructions, ~5 % less CPU; node:util by require: BENCHMARKS.md, issue 33.
 */
const BY_REQUIRE = /^import \{([^}]*)\} from '(node:fs|node:util)';$/gm;
function requireBuiltins(source, path) {
  if (!source.includes("from 'node:fs';") && !source.includes("from 'node:util';")) return source;
  // `require` here must be the bundle's (esbuild's, from the banner), not a name of the module's own.
  if (/\b(?:const|let|var|function|class)\s+require\b/.test(source))
    throw new Error(`${path} declares its own require: name it otherwise (scripts/build.mjs, requireBuiltins)`);
  return source.replace(BY_REQUIRE, (whole, list, builtin) => {
    if (/\/[/*]/.test(list))
      throw new Error(`${path}: a comment inside an import of ${builtin} (scripts/build.mjs, requireBuiltins)`);
    const names = list
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    const types = names.filter((name) => name.startsWith('type '));
    const values = names.filter((name) => !name.startsWith('type ')).map((name) => name.replace(/\s+as\s+/, ': '));
    return [
      ...(values.length > 0 ? [`const { ${values.join(', ')} } = require('${builtin}');`] : []),
      ...(types.length > 0
        ? [`import type { ${types.map((name) => name.slice(5)).join(', ')} } from '${builtin}';`]
        : []),
    ].join(' ');
  });
}

/**
 * Each CommonJS dependency in the bundle's start-up files (commander's files) is a function esbuild's __commonJS helper calls the
 * first time the module is required. V8 compiles a function lazily, when it first runs, and Node's compile cache
 * keeps only what was compiled as the module loaded: so every start parsed and compiled commander's module bodies
 * (~40 KB) again. A function in parentheses is one V8 compiles with its script (the "PIFE" hint), and so one the
 * compile cache keeps: the build puts each such module function in parentheses. Measured on `ping`, caches warm,
 * Node 24: 5-10 M fewer instructions on the main thread, ~3 % less CPU (BENCHMARKS.md, issue 33). The helper is found by what it does
 * (`{exports:{}}`); a build where it is not found says so and leaves the files as they are.
 */
async function eagerCommonJs(dir) {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.js'));
  const texts = new Map(await Promise.all(names.map(async (name) => [name, await readFile(join(dir, name), 'utf8')])));
  const parse = (name) => ts.createSourceFile(name, texts.get(name), ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  // The runtime chunk: a top-level `x = (a, b) => () => { … {exports:{}} … }`, exported under some name.
  let helper;
  for (const [name, text] of texts) {
    if (!text.includes('exports:{}')) continue;
    const file = parse(name);
    const locals = new Set();
    const visit = (node) => {
      if (
        ts.isVariableDeclaration(node) &&
        node.initializer &&
        ts.isArrowFunction(node.initializer) &&
        ts.isArrowFunction(node.initializer.body) &&
        node.initializer.getText(file).includes('exports:{}')
      )
        locals.add(node.name.getText(file));
      ts.forEachChild(node, visit);
    };
    visit(file);
    for (const statement of file.statements)
      if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause))
        for (const element of statement.exportClause.elements)
          if (locals.has((element.propertyName ?? element.name).text))
            helper = { file: name, exported: element.name.text, local: (element.propertyName ?? element.name).text };
  }
  if (!helper) return console.warn("warning: esbuild's __commonJS helper not found: CommonJS modules compile lazily");
  // Only the files every command loads (cli.js and what it imports): the CommonJS modules of a verb's own chunks
  // (iconv-lite's encodings, semver's files) are required as needed, and compiling all of them whole would cost
  // the commands that load those chunks more than it saved.
  const startFiles = new Set(['cli.js']);
  for (const statement of parse('cli.js').statements)
    if (ts.isImportDeclaration(statement) && statement.moduleSpecifier.text.startsWith('./'))
      startFiles.add(statement.moduleSpecifier.text.slice(2));
  let wrapped = 0;
  for (const name of names.filter((candidate) => startFiles.has(candidate))) {
    const file = parse(name);
    // The helper's name in this file: its own, or the one it is imported under.
    let local = name === helper.file ? helper.local : undefined;
    for (const statement of file.statements)
      if (
        ts.isImportDeclaration(statement) &&
        statement.moduleSpecifier.text === `./${helper.file}` &&
        statement.importClause?.namedBindings &&
        ts.isNamedImports(statement.importClause.namedBindings)
      )
        for (const element of statement.importClause.namedBindings.elements)
          if ((element.propertyName ?? element.name).text === helper.exported) local = element.name.text;
    if (local === undefined) continue;
    const spans = [];
    const visit = (node) => {
      if (
        ts.isCallExpression(node) &&
        ts.isIdentifier(node.expression) &&
        node.expression.text === local &&
        node.arguments.length === 1 &&
        (ts.isArrowFunction(node.arguments[0]) || ts.isFunctionExpression(node.arguments[0]))
      )
        spans.push([node.arguments[0].getStart(file), node.arguments[0].end]);
      ts.forEachChild(node, visit);
    };
    visit(file);
    if (spans.length === 0) continue;
    let text = texts.get(name);
    for (const [start, end] of spans.sort((a, b) => b[0] - a[0]))
      text = `${text.slice(0, start)}(${text.slice(start, end)})${text.slice(end)}`;
    await writeFile(join(dir, name), text);
    wrapped += spans.length;
  }
  if (wrapped === 0) console.warn('warning: no CommonJS module function found to compile eagerly');
}

/**
 * undici (src/api/undici.ts) is built on its own, as CommonJS, into dist/undici.cjs: transport.ts compiles it
 * with vm.Script and the V8 code cache below (Node's compile cache keeps only the code a module runs as it
 * loads, not the functions a request calls later: BENCHMARKS.md, issue 33). The main
 * bundle imports that file instead of bundling undici a second time (the import is reached only without it).
 */
const undiciApart = {
  name: 'undici-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/undici\.js$/ }, (args) =>
      args.importer.endsWith('/src/api/transport.ts') ? { path: './undici.cjs', external: true } : undefined,
    );
  },
};

async function buildUndici(common) {
  await build({
    ...common,
    entryPoints: [new URL('src/api/undici.ts', root).pathname],
    format: 'cjs',
    outfile: new URL('undici.cjs', staging).pathname,
    minify: true,
    legalComments: 'none',
    metafile: false,
  });
  // Stamped with a hash of its text: the code cache a user's Node keeps of it (src/api/transport.ts) names the
  // build it was made from, since V8 checks only the length of the text.
  const file = new URL('undici.cjs', staging);
  const text = await readFile(file, 'utf8');
  await writeFile(file, `/*${createHash('sha256').update(text).digest('hex').slice(0, 16)}*/${text}`);
}

/**
 * undici's functions that a request runs, compiled once here and kept as a V8 code cache beside the file
 * (dist/undici.cjs.cache): a `ping` run as a user runs it, against a server on loopback, writes what it
 * compiled as it exits (GIFTCODES_BUILD_CODE_CACHE). Measured on `ping` (BENCHMARKS.md, issue 13): 26 ms of
 * CPU less per API command. V8 rejects the cache under another Node version or other V8 flags: the command
 * then compiles undici as it did without one, and keeps a cache for that Node in the user's cache directory
 * for the next runs (src/api/transport.ts); so does a build that could not make it (a warning).
 */
async function makeCodeCache() {
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: 'ok', environment: 'test', reseller_id: 'rs_build' }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const out = new URL('undici.cjs.cache', staging).pathname;
  const configDir = new URL(`.code-cache-${process.pid}/`, staging).pathname;
  try {
    const env = {
      ...process.env,
      GIFTCODES_CONFIG_DIR: configDir,
      GIFTCODES_API_KEY: 'sc_test_codecache',
      GIFTCODES_BASE_URL: `http://127.0.0.1:${server.address().port}`,
      GIFTCODES_BUILD_CODE_CACHE: out,
    };
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'NODE_OPTIONS', 'GIFTCODES_PROFILE'])
      delete env[name];
    const script = `const { main } = await import(${JSON.stringify(new URL('start.js', staging).href)}); await main(['node', 'giftcodes', 'ping']);`;
    const result = await new Promise((resolve) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      child.on('close', (status) => resolve({ status, output }));
    });
    if (result.status !== 0) {
      await rm(out, { force: true });
      console.warn(
        `warning: undici's code cache was not made (the ping exited ${result.status}); API commands compile undici each time:\n${result.output}`,
      );
    }
  } finally {
    server.close();
    await rm(configDir, { recursive: true, force: true });
  }
}

/**
 * `giftcodes --help` into a pipe or a file is the same text every time: commander renders it here, once,
 * into dist/help.js, and start.js prints that without loading the program (a terminal still goes through
 * commander, which wraps to its width). Rendered as a pipe sees it: 80 columns, no colour forced.
 */
async function renderHelp() {
  const env = { ...process.env };
  for (const name of ['FORCE_COLOR', 'CLICOLOR_FORCE', 'NO_COLOR']) delete env[name];
  const script = `const { main } = await import(${JSON.stringify(new URL('cli.js', staging).href)}); await main(['node', 'giftcodes', '--help']);`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (result.status !== 0 || !result.stdout.startsWith('Usage: giftcodes')) {
    throw new Error(`rendering giftcodes --help failed (exit ${result.status}):\n${result.stderr}${result.stdout}`);
  }
  const text = `// Generated by scripts/build.mjs: what commander prints for \`giftcodes --help\` into a pipe.\nexport default ${JSON.stringify(result.stdout)};\n`;
  await writeFile(new URL('help.js', staging), text);
}

try {
  const common = {
    absWorkingDir: new URL('.', root).pathname,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22.1',
    logLevel: 'warning',
    // The start-up graph's bare imports of packages marked free of side effects (chalk) are dropped, as meant.
    logOverride: { 'ignored-bare-import': 'silent' },
    // What each output holds and imports: `npm run bench` checks the start-up graph with it.
    metafile: true,
    define: { __GIFTCODES_VERSION__: JSON.stringify(pkg.version) },
    plugins: [processGlobal, lazyBuiltins],
  };
  const graph = await startGraph(common);
  const result = await build({
    ...common,
    // start.js is what bin/giftcodes runs; it loads cli.js (the program) unless it can answer alone.
    entryPoints: [new URL('src/start.ts', root).pathname, new URL('src/cli.ts', root).pathname],
    outdir: staging.pathname,
    splitting: true,
    sourcemap: false,
    // Minified: V8 compiles each module, and each function again when it first runs, in time that grows with
    // its source text. Measured (BENCHMARKS.md, issue 13): undici's file compiles in 6.2 ms instead of 9.5,
    // cli.js in 3.5 instead of 4.6. No stack trace is ever shown to a user; error names are set explicitly.
    minify: true,
    legalComments: 'none',
    plugins: [...common.plugins, oneStartChunk(graph), undiciApart],
    // Some dependencies are CommonJS and use require() and __filename; give the ESM bundle both.
    banner: { js: ESM_REQUIRE_BANNER },
  });
  await eagerCommonJs(staging.pathname);
  await buildUndici(common);
  await renderHelp();
  await makeCodeCache();
  // man/giftcodes.1, from the same command tree.
  const man = spawnSync(
    process.execPath,
    [new URL('scripts/gen-man.mjs', root).pathname, new URL('cli.js', staging).pathname],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (man.status !== 0) throw new Error(`generating man/giftcodes.1 failed:\n${man.stderr}`);
  await rename(dist, retired).catch((error) => {
    if (error.code !== 'ENOENT') throw error;
  });
  await rename(staging, dist);
  await mkdir(new URL('.bench/', root), { recursive: true });
  await writeFile(new URL('.bench/esbuild-meta.json', root), JSON.stringify(result.metafile));
} finally {
  await rm(staging, { recursive: true, force: true });
  await rm(retired, { recursive: true, force: true });
}
