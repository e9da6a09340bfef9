// runPlan in-process, against the reference server, with a narrow stand-in for the Factory (the connection,
// journal and client it hands out): one order per row, a re-run orders nothing more, the worst row's exit.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import type { Factory } from '../../src/factory.js';
import { Journal } from '../../src/journal/journal.js';
import { runPlan, type PlanResult } from '../../src/orders/plan.js';
import { tempDir } from '../helpers/e2e.js';
import { capturedIo, clientOf, freshJournal, inProcessServers, KEY } from '../helpers/inprocess.js';

const servers = inProcessServers({ server: {} });

interface Harness {
  f: Factory;
  journal: Journal;
  out: () => string;
  err: () => string;
  posts: () => number;
}

function harness(o: { json?: boolean; environment?: 'test' | 'live'; yes?: boolean; journal?: Journal } = {}): Harness {
  const { io, out, err } = capturedIo({ json: o.json ?? true });
  const journal = o.journal ?? freshJournal();
  const real = clientOf(servers.server.url);
  let posts = 0;
  const api = Object.assign(Object.create(real) as ApiClient, { createOrder: (body: string, key: string) => (posts++, real.createOrder(body, key)) });
  const j = journal;
  const f = {
    io,
    globals: { yes: o.yes ?? false },
    signal: new AbortController().signal,
    connection: () => Promise.resolve({ environment: o.environment ?? 'test', profile: 'default', baseUrl: servers.server.url, apiKey: KEY }),
    journal: () => Promise.resolve(j),
    api: () => Promise.resolve(api),
  } as unknown as Factory;
  return { f, journal: j, out, err, posts: () => posts };
}

function plan(text: string): string {
  const path = join(tempDir(), 'plan.csv');
  writeFileSync(path, text);
  return path;
}

describe('runPlan', () => {
  it('one order per row, codes to the row out file; the same plan again orders nothing more', async () => {
    const path = plan('product,quantity,out\namazon-us-25,2,a.csv\nsteam-us-20,1\n');
    const first = harness();
    await runPlan({ plan: path, concurrency: 2 }, first.f);
    const results = JSON.parse(first.out()) as PlanResult[];
    expect(results.map((r) => [r.row, r.productId, r.quantity, r.order?.status, r.count])).toEqual([
      [2, 'amazon-us-25', 2, 'completed', 2],
      [3, 'steam-us-20', 1, expect.any(String), undefined],
    ]);
    expect(results[0]!.out).toBe(join(path, '..', 'a.csv'));
    expect(readFileSync(join(path, '..', 'a.csv'), 'utf8').trim().split('\n')).toHaveLength(3);
    expect(first.posts()).toBe(2);
    expect(first.journal.read().intents).toEqual([]);
    expect(first.journal.history.list().map((r) => r.outcome)).toEqual(['delivered', 'delivered']);
    const again = harness({ journal: first.journal });
    await runPlan({ plan: path, concurrency: 1 }, again.f);
    expect(again.posts()).toBe(0);
    const second = JSON.parse(again.out()) as PlanResult[];
    expect(second.map((r) => [r.already, r.order?.id])).toEqual(results.map((r) => [true, r.order?.id]));
  });

  it('--dry-run sends nothing and says so per row', async () => {
    const h = harness({ json: false });
    await runPlan({ plan: plan('amazon-us-25,2\n'), dryRun: true, concurrency: 1 }, h.f);
    await h.f.io.flushOut();
    expect(h.posts()).toBe(0);
    expect(h.out()).toContain('dry run: not sent');
    expect(h.out()).toMatch(/^ROW +PRODUCT +QTY +ORDER +STATUS +KEY +OUT\n1 +amazon-us-25 +2 +- +dry run: not sent +plan-[0-9a-f]{24}-r1\n$/);
  });

  it('a failing row fails the plan with its exit code, naming the first; the other rows are delivered', async () => {
    const h = harness();
    const error = await runPlan({ plan: plan('no-such-product,1\namazon-us-25,1\n'), concurrency: 1 }, h.f).catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: 4, code: 'plan_rows_failed' });
    expect((error as Error).message).toMatch(/^1 of 2 plan rows failed \(first: line 1: /);
    const results = JSON.parse(h.out()) as PlanResult[];
    expect(results[0]!.error).toMatchObject({ exitCode: 4 });
    expect(results[1]!.order?.id).toBeDefined();
    expect(h.journal.history.list().map((r) => r.outcome).sort()).toEqual(['delivered', 'refused']);
  });

  it('a live plan asks first: without --yes and no terminal it is refused before anything is sent', async () => {
    const h = harness({ environment: 'live' });
    await expect(runPlan({ plan: plan('amazon-us-25,2\n'), concurrency: 1 }, h.f)).rejects.toMatchObject({ exitCode: 2, code: 'confirmation_required', message: 'a live plan (1 orders) needs confirmation, and this run is not interactive' });
    expect(h.posts()).toBe(0);
  });

  it('text: the table names the status, the key and the out file with its count', async () => {
    const h = harness({ json: false });
    const path = plan('amazon-us-25,2,b.csv\n');
    await runPlan({ plan: path, concurrency: 1 }, h.f);
    expect(h.out()).toContain('completed');
    expect(h.out()).toContain(`${join(path, '..', 'b.csv')} (2)`);
    expect(h.out()).toMatch(/plan-[0-9a-f]{24}-r1/);
  });
});
