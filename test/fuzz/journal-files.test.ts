// Fuzz: damaged files in the order journal (<GIFTCODES_CONFIG_DIR>/journal/*.json): a real intent truncated
// mid-record or with a field of the wrong type, garbage, invalid UTF-8, JSON of another shape, an empty file,
// a directory. `order pending` reports each one and keeps it; `order place` and `order resume --all` still
// work; and not one damaged file changes by a byte.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, test } from 'vitest';
import { configCopy, ledger, runCli, type RunResult, servedApi, tempDir } from '../helpers/e2e.js';
import { startHostileServer } from '../helpers/hostile-server.js';
import { endingProblems, failureLines, fuzzSettings, runFuzz, snapshot } from './check.js';

const served = servedApi(['--fulfil-after', '0'], { login: true });
/** A real intent, as `order place` leaves it when the POST never got an answer. */
let intentText = '';

beforeAll(async () => {
  const silent = await startHostileServer(() => ({ kind: 'reset' }));
  try {
    const scratch = tempDir('giftcodes-fuzz-journal-');
    cpSync(served.configDir, scratch, { recursive: true });
    const placed = await runCli(
      ['order', 'place', '--product', 'other-product', '--quantity', '7', '--retries', '0', '--base-url', silent.url],
      { configDir: scratch },
    );
    expect(placed.code).toBe(5);
    const [name] = readdirSync(join(scratch, 'journal')).filter((n) => n.endsWith('.json'));
    intentText = readFileSync(join(scratch, 'journal', name!), 'utf8');
    rmSync(scratch, { recursive: true, force: true });
  } finally {
    await silent.close();
  }
}, 300_000);

/** Required fields of an intent, each with values its type can never take (so the file is never a valid intent). */
const notAString = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
);
const WRONG: Record<string, fc.Arbitrary<unknown>> = {
  version: fc.constantFrom(0, 3, '1', '2', null, 1.5),
  key: fc.oneof(notAString, fc.constant('')),
  profile: notAString,
  environment: fc.oneof(notAString, fc.constantFrom('prod', 'LIVE', '')),
  baseUrl: notAString,
  keyId: notAString,
  productId: notAString,
  quantity: fc.oneof(fc.string(), fc.constantFrom(1.5, null, Number.MAX_VALUE), fc.array(fc.nat(), { maxLength: 2 })),
  body: notAString,
  fingerprint: notAString,
  phase: fc.oneof(notAString, fc.constantFrom('sent', '')),
  createdAt: notAString,
  updatedAt: notAString,
  owner: fc.oneof(fc.constantFrom(null, 42, 'me', [], {}), fc.record({ pid: fc.string(), host: fc.string() })),
};

type Damage = { kind: 'bytes'; bytes: Buffer } | { kind: 'directory' };

const damage: fc.Arbitrary<Damage> = fc.oneof(
  // Truncated mid-record: a crash of something that did not write atomically, or a full disk.
  {
    weight: 4,
    arbitrary: fc.nat().map((n) => ({
      kind: 'bytes' as const,
      bytes: Buffer.from(intentText.slice(0, 1 + (n % (intentText.length - 2)))),
    })),
  },
  // One required field missing or of the wrong type.
  {
    weight: 4,
    arbitrary: fc.constantFrom(...Object.keys(WRONG)).chain((field) =>
      fc.option(WRONG[field]!, { freq: 5 }).map((value) => {
        const intent = JSON.parse(intentText) as Record<string, unknown>;
        if (value === null && field !== 'owner' && field !== 'version') delete intent[field];
        else intent[field] = value;
        return { kind: 'bytes' as const, bytes: Buffer.from(JSON.stringify(intent, null, 2)) };
      }),
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .uint8Array({ maxLength: 300 })
      .map((bytes) => ({ kind: 'bytes' as const, bytes: Buffer.from(bytes) })),
  },
  {
    weight: 1,
    arbitrary: fc.jsonValue().map((v) => ({ kind: 'bytes' as const, bytes: Buffer.from(JSON.stringify(v) ?? 'null') })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      { kind: 'bytes' as const, bytes: Buffer.from('') },
      {
        kind: 'bytes' as const,
        bytes: Buffer.concat([Buffer.from(intentText.slice(0, 40)), Buffer.from([0xff, 0xfe, 0xfd])]),
      },
      { kind: 'bytes' as const, bytes: Buffer.from(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) },
      { kind: 'directory' as const },
    ),
  },
);

const COMMANDS = [
  ['order', 'pending'],
  ['order', 'pending', '--json'],
  ['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--json'],
  ['order', 'place', '--product', 'amazon-us-10', '--quantity', '1'],
  ['order', 'resume', '--all'],
] as const;

interface Case {
  damaged: Damage[];
  command: readonly string[];
}

const caseArbitrary: fc.Arbitrary<Case> = fc.record({
  damaged: fc.array(damage, { minLength: 1, maxLength: 3 }),
  command: fc.constantFrom(...COMMANDS),
});

async function runCase(c: Case, index: number): Promise<{ c: Case; result: RunResult; problems: string[] }> {
  const configDir = configCopy(served.configDir, 'giftcodes-fuzz-journal-');
  const journal = join(configDir, 'journal');
  mkdirSync(journal, { recursive: true, mode: 0o700 });
  // Named as the journal names its files (40 hex characters), so nothing tells them apart but their content.
  const names = c.damaged.map((_, i) => `${(index * 7 + i).toString(16).padStart(8, '0')}${'0'.repeat(32)}.json`);
  for (const [i, d] of c.damaged.entries()) {
    if (d.kind === 'directory') mkdirSync(join(journal, names[i]!));
    else writeFileSync(join(journal, names[i]!), d.bytes, { mode: 0o600 });
  }
  const before = snapshot(journal);
  const result = await runCli([...c.command], { configDir, timeoutMs: 120_000 });
  const problems = endingProblems(result, { json: c.command.includes('--json'), allowed: [0] });
  const after = snapshot(journal);
  for (const [file, hash] of Object.entries(before))
    if (after[file] !== hash) problems.push(`${file} changed or was removed`);
  for (const file of Object.keys(after)) if (!(file in before)) problems.push(`${file} was left behind`);
  if (readdirSync(journal).filter((n) => n.endsWith('.json')).length !== names.length)
    problems.push(`the journal holds ${readdirSync(journal).join(', ')}`);
  if (c.command[1] === 'pending' || c.command[1] === 'resume') {
    // Each damaged file is named on stderr, whether it could not be parsed or is not an intent.
    for (const name of names)
      if (!result.stderr.includes(name)) problems.push(`order ${c.command[1]} did not report ${name}`);
    if (result.stdout.includes('every order placed from here reached you'))
      problems.push('order pending says every order reached you');
  }
  if (c.command[1] === 'place' && result.code === 0 && !/ord_/.test(result.stdout))
    problems.push('order place printed no order');
  rmSync(configDir, { recursive: true, force: true });
  return { c, result, problems };
}

function describeCase(c: Case): string {
  const shown = c.damaged.map((d) =>
    d.kind === 'directory' ? 'a directory' : JSON.stringify(d.bytes.toString('utf8').slice(0, 160)),
  );
  return `giftcodes ${c.command.join(' ')} with journal files ${shown.join(' | ')}`;
}

describe('fuzz: journal files', () => {
  test('damaged intents are reported and kept; placing and resuming still work', async () => {
    const { cases, outcomes } = await runFuzz('journal-files', caseArbitrary, fuzzSettings(120), runCase);
    expect(
      failureLines(outcomes, (o) => describeCase(o.c))
        .slice(0, 8)
        .join('\n'),
    ).toBe('');
    const placed = cases.filter((c) => c.command[1] === 'place').length;
    expect((await ledger(served.server)).orders).toHaveLength(placed);
  }, 300_000);
});
