// runRows turns TurboFan off once a plan's first row is done, and never in a plan whose rows write their codes to
// files (src/orders/plan.ts, turbofanOff). Called directly, with node:v8's setFlagsFromString recorded instead of
// set, so that a mutant of those lines is seen: test/e2e/startup.test.ts holds the same of the built program.
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { OutLock } from '../../src/export/out-lock.js';
import { runRows, type PlanRow } from '../../src/orders/plan.js';
import { tempDir } from '../helpers/e2e.js';
import { capturedIo, clientOf, freshJournal, inProcessServers, KEY } from '../helpers/inprocess.js';

const flags = vi.hoisted(() => [] as string[]);
vi.mock('node:v8', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:v8')>();
  return { ...real, default: real, setFlagsFromString: (flag: string) => void flags.push(flag) };
});

const servers = inProcessServers({ server: {} });

afterEach(() => {
  flags.length = 0;
});

const row = (n: number, out?: string): PlanRow => ({
  row: n,
  productId: 'amazon-us-25',
  quantity: 1,
  key: `plan-tiers-${n}-${Math.random().toString(16).slice(2)}`,
  legacyKey: `legacy-plan-tiers-${n}`,
  ...(out ? { out } : {}),
});

async function run(rows: PlanRow[]): Promise<string[]> {
  const c = capturedIo();
  const locks = new Map<string, OutLock>();
  const connection = {
    profile: 'default',
    environment: 'test' as const,
    apiKey: KEY,
    baseUrl: servers.server.url,
    keySource: 'flag' as const,
  };
  try {
    const { results } = await runRows(
      rows,
      new Map(),
      { concurrency: 2, interval: 0.01 },
      {
        io: c.io,
        api: clientOf(servers.server.url),
        journal: freshJournal(),
        signal: new AbortController().signal,
        connection,
      },
      locks,
    );
    expect(results.filter((result) => result.order?.id)).toHaveLength(rows.length);
    return flags.filter((flag) => /turbofan/.test(flag));
  } finally {
    for (const lock of locks.values()) lock.release();
  }
}

describe("a plan's rows and TurboFan (turbofanOff)", () => {
  it('off once the first row is done, and only once however many rows follow', async () => {
    expect(await run([row(2), row(3), row(4), row(5)])).toEqual(['--no-turbofan']);
  });

  it('left on when a row writes its codes to a file: the export loops over every code', async () => {
    const dir = tempDir();
    expect(await run([row(2), row(3, join(dir, 'b.csv')), row(4)])).toEqual([]);
  });
});
