// Fuzz: the built CLI against a hostile API (test/helpers/hostile-server.ts) that answers with wrong types,
// deep or huge or endless bodies, slow trickles, invalid UTF-8, wrong content types, broken framing and
// garbage headers, or cuts the connection mid-body. Every run ends within its deadline, with a contract exit
// code and one clean error line, and leaves an unrelated journal intent and an existing codes file untouched.
import { cpSync, existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEMO_KEYS, runCli, tempDir, type RunResult } from '../helpers/e2e.js';
import { startHostileServer, type Behaviour, type HostileServer } from '../helpers/hostile-server.js';
import { endingProblems, exitCodeCounts, failureLines, fuzzSettings, runFuzz, sha256File, snapshot } from './check.js';

const REQUEST_TIMEOUT_S = 1;

let hostile: HostileServer;
/** Each case answers under its own path prefix, so cases can run side by side. */
const plans = new Map<string, (path: string) => Behaviour>();
let template: string;

beforeAll(async () => {
  hostile = await startHostileServer((request) => {
    const [, prefix = ''] = request.path.split('/');
    return plans.get(prefix)?.(request.path) ?? { kind: 'reset' };
  });
  // A journal that already holds another order's intent (left by a run whose POST never got an answer).
  template = tempDir('giftcodes-fuzz-responses-');
  plans.set('setup', () => ({ kind: 'reset' }));
  const setup = await runCli(['order', 'place', '--product', 'other-product', '--quantity', '7', '--retries', '0'], {
    configDir: template,
    baseUrl: `${hostile.url}/setup`,
    env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
  });
  expect(setup.code).toBe(5);
  expect(readdirSync(join(template, 'journal')).filter((name) => name.endsWith('.json'))).toHaveLength(1);
}, 300_000);
afterAll(() => hostile?.close());

const HUGE_BODY = Buffer.from(
  `{"data":[${'{"code":"AAAA-BBBB-CCCC-DDDD"},'.repeat(1_200_000)}{"code":"end"}],"has_more":false}`,
);

const json = (value: unknown): string => JSON.stringify(value) ?? 'null';

/** JSON that looks nearly right: the expected fields with wrong types, envelopes with junk, lists of junk. */
const nearlyRight: fc.Arbitrary<string> = fc
  .oneof(
    fc.record({ id: fc.jsonValue(), status: fc.jsonValue() }, { requiredKeys: [] }),
    fc.record(
      { status: fc.jsonValue(), environment: fc.jsonValue(), resellerId: fc.jsonValue() },
      { requiredKeys: [] },
    ),
    fc.record(
      { data: fc.jsonValue(), has_more: fc.jsonValue(), next_cursor: fc.jsonValue(), next: fc.jsonValue() },
      { requiredKeys: ['data'] },
    ),
    fc.record({
      data: fc.array(fc.oneof(fc.record({ id: fc.jsonValue(), code: fc.jsonValue() }), fc.jsonValue()), {
        maxLength: 5,
      }),
      has_more: fc.boolean(),
      next_cursor: fc.oneof(fc.constant(null), fc.string()),
    }),
    fc.record({ error: fc.jsonValue(), message: fc.jsonValue(), code: fc.jsonValue() }, { requiredKeys: [] }),
    fc.jsonValue(),
  )
  .map(json);

const bodies: fc.Arbitrary<string | Buffer> = fc.oneof(
  { weight: 6, arbitrary: nearlyRight },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      'null',
      'not json',
      '<html><title>502 Bad Gateway</title></html>',
      '{"id":"ord_1","status":"completed"',
      '\u0000\u0001\u0002',
    ),
  },
  // Deep nesting: a parser, a schema or an exporter that recurses would blow the stack.
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(5_000, 50_000)
      .map(
        (depth) =>
          `{"id":"ord_1","status":"completed","data":[{"code":"A","x":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}],"has_more":false}`,
      ),
  },
  { weight: 1, arbitrary: fc.constantFrom(5_000, 50_000).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`) },
  // Invalid UTF-8 inside otherwise valid answers.
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      Buffer.concat([
        Buffer.from('{"id":"ord_1","status":"completed","data":[{"code":"'),
        Buffer.from([0xff, 0xfe, 0xc3]),
        Buffer.from('"}],"has_more":false}'),
      ]),
      Buffer.concat([
        Buffer.from('{"status":"ok","environment":"test","resellerId":"rs_'),
        Buffer.from([0xc0, 0xaf]),
        Buffer.from('"}'),
      ]),
    ),
  },
  // Bigger than the client will ever hold (32 MiB); one buffer shared by every case that draws it.
  { weight: 1, arbitrary: fc.constant(HUGE_BODY) },
);

const headers: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'Content-Type': fc.constantFrom(
      'application/json',
      'text/html',
      'text/plain; charset=latin1',
      'application/problem+json',
      '',
      'application/octet-stream',
      'application/json; charset=utf-16',
    ),
    'Retry-After': fc.constantFrom('0', '1', 'soon', '-5', '1e9', 'Wed, 21 Oct 2015 07:28:00 GMT'),
    Link: fc.constantFrom('<>; rel="next"', 'garbage', '<http://127.0.0.2:1/x>; rel="next"', '<?page=2>; rel=next'),
    Location: fc.constantFrom('http://127.0.0.2:1/elsewhere', '', '\u00ff\u00fe'),
    'Idempotent-Replayed': fc.constantFrom('true', 'maybe'),
  },
  { requiredKeys: [] },
);

const raw: fc.Arbitrary<string> = fc.constantFrom(
  'garbage\r\n\r\n',
  'HTTP/1.1 2000 OK\r\nContent-Length: 2\r\n\r\n{}',
  'HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n{}',
  'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 7\r\n\r\n{}',
  'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n{}\r\n',
  'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Bad: a\u0000b\r\nContent-Length: 2\r\n\r\n{}',
  'HTTP/1.1 200 OK\r\nno colon here\r\nContent-Length: 2\r\n\r\n{}',
  `HTTP/1.1 200 OK\r\nX-Huge: ${'h'.repeat(100_000)}\r\nContent-Length: 2\r\n\r\n{}`,
  'HTTP/1.1 103 Early Hints\r\nLink: </x>; rel=preload\r\n\r\n',
  'HTTP/1.1 200 OK\r\n\r\n{"status":"ok"}',
  'HTTP/1.0 200 OK\r\n\r\n{"status":"ok","environment":"test","resellerId":"rs_demo"}',
);

const behaviour: fc.Arbitrary<Behaviour> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('reply' as const),
      status: fc.constantFrom(
        200,
        200,
        201,
        202,
        204,
        301,
        302,
        304,
        400,
        401,
        403,
        404,
        409,
        418,
        422,
        429,
        500,
        502,
        503,
        599,
      ),
      headers,
      body: bodies,
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('raw' as const), bytes: raw }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'endless' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'trickle' as const, everyMs: 100 }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('cut' as const),
      declared: fc.constantFrom(100, 1_000_000),
      sent: fc.constantFrom('{"id":"ord_1","sta', '{"data":[{"code":"A"}', ''),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'silent' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reset' as const }) },
);

const COMMANDS: readonly string[][] = [
  ['ping'],
  ['catalog', 'list'],
  ['order', 'place', '--product', 'amazon-us-10', '--quantity', '1'],
  ['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--out', 'new.csv'],
  ['order', 'show', 'ord_1'],
  ['order', 'watch', 'ord_1', '--timeout', '1', '--interval', '0.2'],
  ['codes', 'get', 'ord_1'],
  ['codes', 'get', 'ord_1', '--out', 'new.csv'],
  ['codes', 'get', 'ord_1', '--out', 'existing.csv'],
];

interface Case {
  command: string[];
  /** One behaviour per request, the last repeating: a case can fail on its first request or its fifth. */
  answers: Behaviour[];
  json: boolean;
  retries: 0 | 1;
}

const caseArbitrary: fc.Arbitrary<Case> = fc.record({
  command: fc.constantFrom(...COMMANDS),
  answers: fc.array(behaviour, { minLength: 1, maxLength: 3 }),
  json: fc.boolean(),
  retries: fc.constantFrom(0 as const, 0 as const, 0 as const, 1 as const),
});

async function runCase(c: Case, index: number): Promise<{ c: Case; result: RunResult; problems: string[] }> {
  const prefix = `case${index}`;
  let served = 0;
  plans.set(prefix, () => c.answers[Math.min(served++, c.answers.length - 1)]!);
  const configDir = tempDir('giftcodes-fuzz-responses-');
  cpSync(template, configDir, { recursive: true });
  const cwd = tempDir('giftcodes-fuzz-cwd-');
  writeFileSync(join(cwd, 'existing.csv'), 'order_id,code\nord_1,KEEP-ME\n', { mode: 0o600 });
  const journalBefore = snapshot(join(configDir, 'journal'));
  const existing = sha256File(join(cwd, 'existing.csv'));
  const args = [
    ...c.command,
    '--retries',
    String(c.retries),
    '--request-timeout',
    String(REQUEST_TIMEOUT_S),
    '--yes',
    ...(c.json ? ['--json'] : []),
  ];
  const result = await runCli(args, {
    configDir,
    cwd,
    baseUrl: `${hostile.url}/${prefix}`,
    env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
    // A generous bound for (retries + 1) attempts of at most REQUEST_TIMEOUT_S each, the backoff and --timeout.
    timeoutMs: 120_000,
  });
  plans.delete(prefix);
  // An existing --out file is compared with the codes read (a re-run), and refused when they differ (exit 2); codes
  // that cannot be read end as they would without the file. It is never changed (below).
  const refused = c.command.includes('existing.csv');
  const problems = endingProblems(result, { json: c.json, allowed: refused ? [2, 3, 4, 5, 6, 7] : [0, 3, 4, 5, 6, 7] });
  const journalAfter = snapshot(join(configDir, 'journal'));
  for (const [file, hash] of Object.entries(journalBefore))
    if (journalAfter[file] !== hash) problems.push(`the other order's intent ${file} changed`);
  if (sha256File(join(cwd, 'existing.csv')) !== existing) problems.push('existing.csv changed');
  if (result.code !== 0 && existsSync(join(cwd, 'new.csv')))
    problems.push(`exit ${result.code} yet new.csv was written`);
  if (readdirSync(cwd).some((name) => name !== 'existing.csv' && name !== 'new.csv'))
    problems.push(`a stray file: ${readdirSync(cwd).join(', ')}`);
  rmSync(configDir, { recursive: true, force: true });
  rmSync(cwd, { recursive: true, force: true });
  return { c, result, problems };
}

function describeCase(c: Case): string {
  const shown = c.answers.map((a) => {
    if (a.kind === 'reply')
      return { ...a, body: (typeof a.body === 'string' ? a.body : `<${a.body.length} bytes>`).slice(0, 120) };
    if (a.kind === 'raw') return { ...a, bytes: (typeof a.bytes === 'string' ? a.bytes : '').slice(0, 120) };
    return a;
  });
  return `giftcodes ${c.command.join(' ')} --retries ${c.retries}${c.json ? ' --json' : ''} against ${JSON.stringify(shown)}`;
}

describe('fuzz: hostile server responses', () => {
  test('every answer ends in time with a contract exit code and one clean error line, touching no other file', async () => {
    const { outcomes } = await runFuzz('responses', caseArbitrary, fuzzSettings(160), runCase);
    expect(
      failureLines(outcomes, (o) => describeCase(o.c))
        .slice(0, 8)
        .join('\n'),
    ).toBe('');
    const codes = exitCodeCounts('responses', outcomes);
    for (const code of ['3', '4', '5']) expect(codes[code], `no case ended with exit ${code}`).toBeGreaterThan(0);
  }, 300_000);
});
