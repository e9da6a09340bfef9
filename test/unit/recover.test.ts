// What `order place` reads of a crashed run before it sends anything (src/orders/recover.ts): the interrupted
// order a live re-run resumes without asking again, and the warning that names the orders earlier runs left.
import { describe, expect, it } from 'vitest';
import { endedRecord } from '../../src/orders/lifecycle.js';
import {
  interruptedBeside,
  ofThisRequest,
  chargeWords,
  leftByEarlierRuns,
  beganSince,
  placedMeanwhile,
  placingNow,
  requestFootprint,
  resumableFor,
  resumeCandidate,
  resumingNow,
} from '../../src/orders/recover.js';
import { recordOf, scopeOf, sentUnanswered, type OrderRecord } from '../../src/journal/history.js';
import { fileIdentity } from '../../src/journal/codes-file.js';
import { currentOwner } from '../../src/journal/owner.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/e2e.js';
import type { Intent } from '../../src/journal/intent.js';
import type { Journal } from '../../src/journal/journal.js';
import type { Footprint } from '../../src/orders/recover.js';
import { dead, journal, outTo, recordAt, spec } from '../helpers/journal.js';

/** An intent of `spec` (or `o`), owned by a dead run unless `alive`. */
async function left(j: Journal, o: Partial<Intent> & { alive?: boolean } = {}): Promise<Intent> {
  const { alive, ...fields } = o;
  const { intent } = await j.begin({ ...spec, ...(fields.key ? { key: fields.key } : {}) });
  return j.save({ ...intent, ...(alive ? {} : { owner: dead() }), ...fields });
}

const HOUR = 60 * 60 * 1000;

describe('resumeCandidate', () => {
  it("the same order's interrupted intent; none when its run is alive, it is stale, or it is another order", async () => {
    const j = journal();
    expect(resumeCandidate(j, spec, undefined)).toBeUndefined();
    const mine = await left(j);
    expect(resumeCandidate(j, spec, undefined)?.key).toBe(mine.key);
    expect(resumeCandidate(j, { ...spec, quantity: spec.quantity + 1 }, undefined)).toBeUndefined();
    expect(resumeCandidate(j, { ...spec, keyId: 'another key' }, undefined)).toBeUndefined();

    const running = journal();
    await left(running, { alive: true });
    expect(resumeCandidate(running, spec, undefined)).toBeUndefined();

    const stale = journal();
    await left(stale, { createdAt: new Date(Date.now() - 25 * HOUR).toISOString() });
    expect(resumeCandidate(stale, spec, undefined)).toBeUndefined();
  });

  it('with a key: that intent when its run is gone, whatever order it is; none for a live run or another key', async () => {
    const j = journal();
    const named = await left(j, { key: 'nightly-1' });
    expect(resumeCandidate(j, { ...spec, productId: 'other' }, 'nightly-1')?.key).toBe(named.key);
    expect(resumeCandidate(j, spec, 'nightly-2')).toBeUndefined();
    const running = journal();
    await left(running, { key: 'nightly-1', alive: true });
    expect(resumeCandidate(running, spec, 'nightly-1')).toBeUndefined();
  });

  it('none once its outcome reached the user (its record says delivered): that is a new order, asked about', async () => {
    const j = journal();
    const done = await left(j, { phase: 'accepted', orderId: 'ord_1', status: 'completed' });
    await j.recordDelivery([endedRecord(done, 'delivered', Date.now())]);
    expect(resumeCandidate(j, spec, undefined)).toBeUndefined();
    expect(resumeCandidate(j, spec, done.key)).toBeUndefined();
  });
});

// The order an --idempotency-key run asks about (order/place.ts): until now held only end to end (a scoped mutation run
// of recover.ts found every condition unchecked in process).
describe('interruptedBeside: an order of this request left interrupted under another key', () => {
  it('one sent and left by a dead run here, under another key, not yet reached; in another profile holding this API key too', async () => {
    const j = journal();
    expect(interruptedBeside(j, spec, 'my-key')).toBeUndefined();
    const out = await left(j, { key: 'dead-one', phase: 'sending' });
    expect(interruptedBeside(j, spec, 'my-key')?.key).toBe(out.key);
    // Its own key is this order, not another beside it.
    expect(interruptedBeside(j, spec, 'dead-one')).toBeUndefined();
    // Another request, another environment, another API key in another profile: not this request.
    expect(interruptedBeside(j, { ...spec, quantity: spec.quantity + 1 }, 'my-key')).toBeUndefined();
    expect(interruptedBeside(j, { ...spec, productId: 'steam-us-20' }, 'my-key')).toBeUndefined();
    expect(interruptedBeside(j, { ...spec, environment: 'live' }, 'my-key')).toBeUndefined();
    expect(interruptedBeside(j, { ...spec, profile: 'shop', keyId: 'k2' }, 'my-key')).toBeUndefined();
    // Another profile holding the same API key: the same reseller, the same request.
    expect(interruptedBeside(j, { ...spec, profile: 'shop' }, 'my-key')?.key).toBe(out.key);
  });

  it('not: one never sent (it charged nothing), one a live run holds, one whose outcome reached the user', async () => {
    const never = journal();
    await left(never, { key: 'prepared-one', phase: 'prepared' });
    expect(interruptedBeside(never, spec, 'my-key')).toBeUndefined();
    const running = journal();
    await left(running, { key: 'live-one', phase: 'sending', alive: true });
    expect(interruptedBeside(running, spec, 'my-key')).toBeUndefined();
    const reached = journal();
    const done = await left(reached, { key: 'done-one', phase: 'accepted', orderId: 'ord_1', status: 'completed' });
    expect(interruptedBeside(reached, spec, 'my-key')?.key).toBe(done.key);
    await reached.recordDelivery([endedRecord(done, 'delivered', Date.now())]);
    expect(interruptedBeside(reached, spec, 'my-key')).toBeUndefined();
  });
});

describe('leftByEarlierRuns', () => {
  it('nothing left: no warning; one: named with its resume; several: counted, with order pending', async () => {
    const j = journal();
    expect(leftByEarlierRuns(j, () => false)).toBeUndefined();
    expect(leftByEarlierRuns(j, () => false, '/var/lib/giftcodes')).toBeUndefined();
    const one = await left(j, { key: 'k-1', phase: 'sending' });
    expect(leftByEarlierRuns(j, () => false)).toBe(
      `an order interrupted in an earlier run is still unfinished (it may have been charged): 3 × amazon-us-25, profile "default" (test), started ${one.createdAt}: giftcodes order resume k-1`,
    );
    // The run's own intent is not named.
    expect(leftByEarlierRuns(j, (intent) => intent.key === 'k-1')).toBeUndefined();
    await left(j, { key: 'k-2', productId: 'steam-us-20', phase: 'accepted', orderId: 'ord_2' });
    // The one the API answered (its order id known) was placed and charged; the other's answer was lost (a second
    // adversarial review read "may have been charged" of an order the tool held the id of).
    expect(leftByEarlierRuns(j, () => false)).toBe(
      '2 orders interrupted in earlier runs are still unfinished (1 placed and charged, 1 may have been charged): see giftcodes order pending',
    );
    expect(leftByEarlierRuns(j, (intent) => intent.key === 'k-2')).toContain('giftcodes order resume k-1');
    expect(chargeWords([one])).toBe('it may have been charged');
    expect(chargeWords([one, one])).toBe('they may have been charged');
    const placed = { ...one, orderId: 'ord_1' };
    expect(chargeWords([placed])).toBe('it was placed and charged');
    expect(chargeWords([placed, placed])).toBe('they were placed and charged');
    const unsent = { ...one, phase: 'prepared' as const };
    expect(chargeWords([unsent])).toBe('it was never sent, so not charged');
    expect(chargeWords([placed, unsent])).toBe('1 placed and charged, 1 never sent');
    // A run with its own config directory (cron) names it in the command, as its errors' hints do.
    expect(leftByEarlierRuns(j, (intent) => intent.key === 'k-2', '/var/lib/giftcodes')).toMatch(
      /: GIFTCODES_CONFIG_DIR=\/var\/lib\/giftcodes giftcodes order resume k-1$/,
    );
    expect(leftByEarlierRuns(j, () => false, '/var/lib/giftcodes')).toMatch(
      /: see GIFTCODES_CONFIG_DIR=\/var\/lib\/giftcodes giftcodes order pending$/,
    );
  });

  it('one never sent (still prepared) is said to have charged nothing, with both ways out: place it, or drop it', async () => {
    const j = journal();
    const one = await left(j, { key: 'k-1' });
    expect(one.phase).toBe('prepared');
    expect(leftByEarlierRuns(j, () => false)).toBe(
      `an order interrupted in an earlier run was never sent (nothing was charged): 3 × amazon-us-25, profile "default" (test), started ${one.createdAt}: place it with giftcodes order resume k-1, or drop it with giftcodes order abandon k-1`,
    );
    await left(j, { key: 'k-2', productId: 'steam-us-20' });
    expect(leftByEarlierRuns(j, () => false)).toBe(
      '2 orders interrupted in earlier runs are still unfinished (never sent, so not charged): see giftcodes order pending',
    );
    await left(j, { key: 'k-3', productId: 'steam-us-20', phase: 'sending' });
    expect(leftByEarlierRuns(j, () => false)).toBe(
      '3 orders interrupted in earlier runs are still unfinished (1 may have been charged, 2 never sent): see giftcodes order pending',
    );
  });

  it('a run still going is not named; a stale one points to order pending, not a resume it would refuse', async () => {
    const running = journal();
    await left(running, { alive: true });
    expect(leftByEarlierRuns(running, () => false)).toBeUndefined();
    const stale = journal();
    await left(stale, { key: 'old', createdAt: new Date(Date.now() - 25 * HOUR).toISOString() });
    expect(leftByEarlierRuns(stale, () => false)).toMatch(/: see giftcodes order pending$/);
  });

  it("another machine's intent (a shared config directory) is not named: its run may be going there", async () => {
    const j = journal();
    await left(j, { owner: { ...dead(), machine: 'another-host' } });
    expect(leftByEarlierRuns(j, () => false)).toBeUndefined();
  });

  // A review: a damaged intent file's order went unnamed while the same command ordered again.
  it('journal files that cannot be read are named too: alone, after the orders left, two at most then counted', async () => {
    const j = journal();
    const bad = (name: string): string => {
      writeFileSync(join(j.dir, name), '{"version":2,"key":"cut');
      return join(j.dir, name);
    };
    const first = bad('0000000000000000000000000000000000000001.json');
    expect(leftByEarlierRuns(j, () => false)).toBe(
      `1 journal file could not be read (${first}: not valid JSON); each may be an order an earlier run sent: see giftcodes order pending`,
    );
    const one = await left(j, { key: 'k-1', phase: 'sending' });
    expect(leftByEarlierRuns(j, () => false, '/var/lib/giftcodes')).toBe(
      `an order interrupted in an earlier run is still unfinished (it may have been charged): 3 × amazon-us-25, profile "default" (test), started ${one.createdAt}: GIFTCODES_CONFIG_DIR=/var/lib/giftcodes giftcodes order resume k-1; and 1 journal file could not be read (${first}: not valid JSON); each may be an order an earlier run sent: see GIFTCODES_CONFIG_DIR=/var/lib/giftcodes giftcodes order pending`,
    );
    bad('0000000000000000000000000000000000000002.json');
    bad('0000000000000000000000000000000000000003.json');
    expect(leftByEarlierRuns(j, (intent) => intent.key === 'k-1')).toMatch(
      /^3 journal files could not be read \(.+0001\.json: not valid JSON; .+0002\.json: not valid JSON; and 1 more\); each may be/,
    );
  });
});

describe('leftByEarlierRuns of a log with several lines it cannot read', () => {
  it('names the file once, with its first reason (it said "2 journal files" of one log)', () => {
    const read = () => ({
      intents: [],
      unreadable: [
        { file: '/j/1-a.log.unreadable', reason: 'line 2 is not a journal entry' },
        { file: '/j/1-a.log.unreadable', reason: 'line 3 is not a journal entry' },
        { file: '/j/x.json', reason: 'not valid JSON' },
      ],
    });
    expect(leftByEarlierRuns({ read } as unknown as Journal, () => false)).toBe(
      '2 journal files could not be read (/j/1-a.log.unreadable: line 2 is not a journal entry; /j/x.json: not valid JSON); each may be an order an earlier run sent: see giftcodes order pending',
    );
  });
});

describe('requestFootprint and placedMeanwhile: the same order another run placed while a question waited', () => {
  const request = {
    productId: spec.productId,
    quantity: spec.quantity,
    environment: spec.environment,
    keyId: spec.keyId,
  };
  const elsewhere = (): Intent['owner'] => ({ pid: process.ppid, boot: currentOwner().boot });
  /** Nothing of the request as a question was asked at `at`. */
  const none = (at = Date.now()): Footprint => ({
    notes: new Map(),
    unsent: new Set(),
    at: new Date(at).toISOString(),
  });

  it('what is new since the question: an order sent, placed, recorded, or another live run about to send', async () => {
    const j = journal();
    const before = requestFootprint(j, request);
    expect(before.notes.size).toBe(0);
    // Without a request (a guided order's, before its questions): every order's notes.
    const any = journal();
    await left(any, { key: 'steam', productId: 'steam-us-20', phase: 'sending', alive: true });
    await left(any, { key: 'dead-unsent', productId: 'steam-us-20' });
    expect([...requestFootprint(any).notes.keys()]).toEqual(['steam']);
    expect([...requestFootprint(any).unsent]).toEqual(['dead-unsent']);
    expect(requestFootprint(any, request).notes.size).toBe(0);
    expect(placedMeanwhile(j, request, before)).toBeUndefined();
    await left(j, { key: 'other-1', phase: 'sending', alive: true });
    const first = placedMeanwhile(j, request, before);
    expect(first?.said).toBe('key other-1, sent');
    // Asked again only for what is new since the last question: nothing yet, then a third order.
    expect(placedMeanwhile(j, request, first!.now)).toBeUndefined();
    await left(j, { key: 'other-2', phase: 'accepted', orderId: 'ord_9' });
    expect(placedMeanwhile(j, request, first!.now)?.said).toBe('ord_9');
    // Another live run's note, not sent yet: about to be an order.
    const running = journal();
    await left(running, { key: 'paused', owner: elsewhere() });
    expect(placedMeanwhile(running, request, none())?.said).toBe(`key paused, being placed by pid ${process.ppid}`);
    // A record of an order that ended since the question: placed meanwhile; one that ended before it: not.
    const recorded = journal();
    const asked = none();
    await recorded.history.record(
      recordAt('r-0', new Date(Date.now() - 60_000).toISOString(), { ...request, orderId: 'ord_0' }),
    );
    expect(placedMeanwhile(recorded, request, asked)).toBeUndefined();
    await recorded.history.record(
      recordAt('r-1', new Date(Date.now() + 3_600_000).toISOString(), { ...request, orderId: 'ord_r' }),
    );
    expect(placedMeanwhile(recorded, request, asked)?.said).toBe('ord_r');
    // A record sent and abandoned before its answer may have been placed; one written after the question of an order
    // that ended before it did not end meanwhile; an older record without a key id is of any key.
    const more = journal();
    const at = none();
    const later = new Date(Date.now() + 3_600_000).toISOString();
    await more.history.record({
      ...recordAt('late', later, { ...request, orderId: 'ord_late' }),
      endedAt: new Date(Date.now() - 60_000).toISOString(),
    });
    expect(placedMeanwhile(more, request, at)).toBeUndefined();
    const { keyId: _keyId, ...unkeyed } = request;
    await more.history.record(
      recordAt('gone', later, { ...unkeyed, orderId: undefined, outcome: 'abandoned', sent: true }),
    );
    expect(placedMeanwhile(more, request, at)?.said).toBe('key gone, sent');
    // An order begun before the question whose record ends meanwhile (abandoned, then delivered by codes get, as the
    // question itself said to do) was placed before it; a note never sent then, ended placed, was placed meanwhile.
    const older = journal();
    const question = none();
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    await older.history.record({ ...recordAt('fetched', later, { ...request, orderId: 'ord_f' }), createdAt: hourAgo });
    expect(placedMeanwhile(older, request, question)).toBeUndefined();
    await older.history.record({ ...recordAt('resumed', later, { ...request, orderId: 'ord_u' }), createdAt: hourAgo });
    expect(placedMeanwhile(older, request, { ...question, unsent: new Set(['resumed']) })?.said).toBe('ord_u');
    // Nor a record of a note there as the question was asked (said then, by its note).
    expect(placedMeanwhile(recorded, request, { ...asked, notes: new Map([['r-1', {} as Intent]]) })).toBeUndefined();
  });

  it('an old note never sent, sent during the question (another run resumed it): new, as it was no order before', async () => {
    const j = journal();
    const old = await left(j, { key: 'old', createdAt: new Date(Date.now() - 3_600_000).toISOString() });
    const before = requestFootprint(j, request);
    expect(before.notes.has('old')).toBe(false);
    await j.save({ ...old, phase: 'sending' });
    expect(placedMeanwhile(j, request, before)?.said).toBe('key old, sent');
  });

  it("not: a dead run's note never sent, another order, this very key, another environment or key, a refusal", async () => {
    const j = journal();
    await left(j, { key: 'prepared' });
    await left(j, { key: 'own-prepared', alive: true });
    await left(j, { key: 'other', phase: 'sending', quantity: 4, alive: true });
    await left(j, { key: 'product', phase: 'sending', productId: 'steam-us-20', alive: true });
    await left(j, { key: 'mine', phase: 'sending', alive: true });
    await left(j, { key: 'live', phase: 'sending', environment: 'live', alive: true });
    await left(j, { key: 'rotated', phase: 'sending', keyId: 'k2', alive: true });
    await j.history.record(
      recordAt('r-2', new Date(Date.now() + 3_600_000).toISOString(), {
        ...request,
        orderId: undefined,
        outcome: 'refused',
        sent: true,
      }),
    );
    await j.history.record(
      recordAt('r-3', new Date(Date.now() + 3_600_000).toISOString(), {
        ...request,
        orderId: undefined,
        outcome: 'failed',
      }),
    );
    expect([...requestFootprint(j, { ...request, key: 'mine' }).notes]).toEqual([]);
    expect(placedMeanwhile(j, { ...request, key: 'mine' }, none(Date.now() - 60_000))).toBeUndefined();
  });
});

describe('placingNow and resumableFor (until now held only end to end)', () => {
  it("placingNow: the pid of another live run placing the same order (another key's too), unless this run resumes one", async () => {
    const j = journal();
    const elsewhere = { pid: process.ppid, boot: currentOwner().boot };
    await left(j, { key: 'running', owner: elsewhere });
    expect(placingNow(j, spec, undefined)).toBe(process.ppid);
    // This run's own intent is not another run.
    const own = journal();
    await left(own, { key: 'mine', alive: true });
    expect(placingNow(own, spec, undefined)).toBeUndefined();
    // With a key: another key's run is a second order all the same; the run of this very key is this order.
    expect(placingNow(j, spec, 'my-key')).toBe(process.ppid);
    expect(placingNow(j, spec, 'running')).toBeUndefined();
    // The same server at another spelling, with the same API key: the same reseller; another API key: not.
    expect(placingNow(j, { ...spec, baseUrl: 'http://localhost:4010' }, undefined)).toBe(process.ppid);
    expect(placingNow(j, { ...spec, baseUrl: 'http://localhost:4010', keyId: 'other' }, undefined)).toBeUndefined();
    // With a key, an interrupted run of the same order under another key is no reason to stay silent.
    const keyed = journal();
    await left(keyed, { key: 'dead-one' });
    await left(keyed, { key: 'live-one', owner: elsewhere });
    expect(placingNow(keyed, spec, 'my-key')).toBe(process.ppid);
    expect(placingNow(keyed, spec, undefined)).toBeUndefined();
    expect(placingNow(j, { ...spec, quantity: 99 }, undefined)).toBeUndefined();
    await left(j, { key: 'interrupted' });
    expect(placingNow(j, spec, undefined)).toBeUndefined();
  });

  // Review F8: the same command beside a run finishing the interrupted order placed a second order.
  it('resumingNow: another live run finishing an interrupted order of this one that was sent and is fresh; none else', async () => {
    const elsewhere = { pid: process.ppid, boot: currentOwner().boot };
    const at = new Date().toISOString();
    const sent = { owner: elsewhere, resumedAt: at, phase: 'sending' as const };
    const j = journal();
    await left(j, { key: 'resumed', ...sent });
    expect(resumingNow(j, spec)?.key).toBe('resumed');
    // Another order, or this one under another API key: not this one.
    expect(resumingNow(j, { ...spec, quantity: 99 })).toBeUndefined();
    expect(resumingNow(j, { ...spec, keyId: 'other' })).toBeUndefined();
    // Still with the run that began it (no resumedAt): a second window placing it, asked or said as a second order.
    const first = journal();
    await left(first, { key: 'first', owner: elsewhere, phase: 'sending' });
    expect(resumingNow(first, spec)).toBeUndefined();
    // Its resumer gone: the next run resumes it.
    const gone = journal();
    await left(gone, { key: 'gone', resumedAt: at, phase: 'sending' });
    expect(resumingNow(gone, spec)).toBeUndefined();
    // Never sent: held by an order place that took it over, it is placed by that run (a review's two charges after
    // a kill before the first send); held by order resume, a person may be asked about it, and this run goes on.
    const unsent = journal();
    await left(unsent, { key: 'unsent', ...sent, phase: 'prepared' });
    expect(resumingNow(unsent, spec)?.key).toBe('unsent');
    const asking = journal();
    await left(asking, { key: 'asking', ...sent, phase: 'prepared', resumedBy: 'order resume' });
    expect(resumingNow(asking, spec)).toBeUndefined();
    const resuming = journal();
    await left(resuming, { key: 'resuming', ...sent, resumedBy: 'order resume' });
    expect(resumingNow(resuming, spec)?.key).toBe('resuming');
    // Past the day and sent: the same command alone refuses it, and beside its order resume --force-stale places
    // nothing either (a review's second charge); never sent and past the day, held by an order place: not this one's.
    const old = journal();
    const dayAgo = new Date(Date.now() - 25 * HOUR).toISOString();
    await left(old, { key: 'old', ...sent, createdAt: dayAgo, resumedBy: 'order resume' });
    expect(resumingNow(old, spec)?.key).toBe('old');
    const oldUnsent = journal();
    await left(oldUnsent, { key: 'old-unsent', ...sent, phase: 'prepared', createdAt: dayAgo });
    expect(resumingNow(oldUnsent, spec)).toBeUndefined();
  });

  it('resumableFor: whether the intent this run would resume delivered its own file at that path', async () => {
    const j = journal();
    const file = join(tempDir(), 'codes.json');
    const mine = await left(j, { key: 'k-file', out: outTo(file), phase: 'accepted', orderId: 'ord_1' });
    writeFileSync(file, '[{"code":"A"}]\n');
    j.save({ ...mine, files: [{ ...fileIdentity(file, 'ord_1', file), count: 1, renamed: true }] });
    expect(resumableFor(j, spec, undefined, file)).toBe(true);
    expect(resumableFor(j, spec, 'k-file', file)).toBe(true);
    expect(resumableFor(j, spec, 'other-key', file)).toBe(false);
    expect(resumableFor(j, spec, undefined, join(tempDir(), 'else.json'))).toBe(false);
    expect(resumableFor(j, { ...spec, quantity: 99 }, undefined, file)).toBe(false);
  });
});

/** ofThisRequest's two rules, each as order place reads it. */
const finishedInItsPlace = (...args: Parameters<typeof ofThisRequest>) => ofThisRequest(...args).finished;
const abandonedMaybePlaced = (...args: Parameters<typeof ofThisRequest>) => ofThisRequest(...args).abandoned;

/** A request that differs from `spec` in one part, or is placed in another scope: never `spec`'s record. */
const OTHER_REQUESTS = [
  { quantity: 4 },
  { productId: 'steam-us-20' },
  // Another profile with its own key: another reseller (with this very key it is this one: below).
  { profile: 'shop', keyId: 'k-shop' },
  { environment: 'live' as const },
  { baseUrl: 'http://127.0.0.1:9' },
  { keyId: 'k2' },
];

describe('finishedInItsPlace: an interrupted order place of this very request that codes get or order watch finished', () => {
  const T = Date.parse('2026-06-01T12:00:00.000Z');
  const at = (ms: number): string => new Date(ms).toISOString();
  /** A record of `spec`'s request that codes get finished `ago` ms before T. */
  const finished = (key: string, ago: number, extra: Partial<OrderRecord> = {}): OrderRecord =>
    recordAt(key, at(T - ago), {
      ...spec,
      orderId: `ord_${key}`,
      finishedBy: 'codes get',
      ...extra,
    });

  it('names the record within the day; never with a key given, nor for another request, scope or ending', () => {
    const j = journal();
    j.history.record(finished('peeked', HOUR));
    // Without the mark settle leaves (journal.settleWhere), no record is read: one stat for each order place.
    expect(finishedInItsPlace(j, spec, undefined, T)).toBeUndefined();
    j.history.mark('finished', T - HOUR);
    expect(finishedInItsPlace(j, spec, undefined, T)?.key).toBe('peeked');
    expect(finishedInItsPlace(j, spec, undefined, T + 23 * HOUR)?.key).toBe('peeked');
    // A key given names one order, refused by the journal when reused: not this question.
    expect(finishedInItsPlace(j, spec, 'my-key', T)).toBeUndefined();
    for (const other of OTHER_REQUESTS)
      expect(finishedInItsPlace(j, { ...spec, ...other }, undefined, T), JSON.stringify(other)).toBeUndefined();
  });

  // A run refused before it placed anything (the server out of reach, a wallet short) is not the request's last order.
  it('a refused run of the request since does not hide the one finished in its place', () => {
    const j = journal();
    j.history.record(finished('peeked', 2 * HOUR));
    j.history.record(finished('refused', HOUR, { outcome: 'refused', orderId: undefined, finishedBy: undefined }));
    j.history.mark('finished', T - HOUR);
    expect(finishedInItsPlace(j, spec, undefined, T)?.key).toBe('peeked');
  });

  it('a record its own run delivered, one that failed, or one older than a day is not asked about', () => {
    const own = journal();
    own.history.record(finished('own', HOUR, { finishedBy: undefined }));
    own.history.mark('finished', T);
    expect(finishedInItsPlace(own, spec, undefined, T)).toBeUndefined();
    const failed = journal();
    failed.history.record(finished('failed', HOUR, { outcome: 'failed' }));
    failed.history.mark('finished', T);
    expect(finishedInItsPlace(failed, spec, undefined, T)).toBeUndefined();
    const day = journal();
    day.history.record(finished('day', 24 * HOUR));
    day.history.mark('finished', T);
    expect(finishedInItsPlace(day, spec, undefined, T)?.key).toBe('day');
    const older = journal();
    older.history.record(finished('older', 24 * HOUR + 1));
    older.history.mark('finished', T);
    expect(finishedInItsPlace(older, spec, undefined, T)).toBeUndefined();
  });
});

describe('ofThisRequest abandonedPlaced: this very request, abandoned after the API had placed it', () => {
  const T = Date.parse('2026-06-01T12:00:00.000Z');
  const at = (ms: number): string => new Date(ms).toISOString();
  const placed = (key: string, ago: number, extra: Partial<OrderRecord> = {}): OrderRecord =>
    recordAt(key, at(T - ago), { ...spec, outcome: 'abandoned', orderId: `ord_${key}`, ...extra });

  it('the last record of the request, abandoned with an order id, within the day and once marked; nothing after a later order', () => {
    const j = journal();
    j.history.record(placed('gave-up', HOUR));
    expect(ofThisRequest(j, spec, undefined, T).abandonedPlaced).toBeUndefined();
    j.history.mark('abandoned', T - HOUR);
    expect(ofThisRequest(j, spec, undefined, T).abandonedPlaced).toMatchObject({
      key: 'gave-up',
      orderId: 'ord_gave-up',
    });
    // A key given names one order of its own; another request is not this one.
    expect(ofThisRequest(j, spec, 'my-key', T).abandonedPlaced).toBeUndefined();
    // Another scope of the request (another address spelling, a key rotated) is the same request: it counts (below).
    for (const other of OTHER_REQUESTS.filter((o) => !('baseUrl' in o) && !('keyId' in o)))
      expect(
        ofThisRequest(j, { ...spec, ...other }, undefined, T).abandonedPlaced,
        JSON.stringify(other),
      ).toBeUndefined();
    // Older than a day: not asked about.
    expect(ofThisRequest(j, spec, undefined, T + 24 * HOUR + 1).abandonedPlaced).toBeUndefined();
    // The second order, placed since (asked about then): the request's last record is that one.
    j.history.record(recordAt('again', at(T - HOUR / 2), { ...spec, orderId: 'ord_again' }));
    expect(ofThisRequest(j, spec, undefined, T).abandonedPlaced).toBeUndefined();
  });

  it('a run since that placed nothing does not hide it; one at another spelling of the address is it too', () => {
    const j = journal();
    j.history.mark('abandoned', T - HOUR);
    j.history.record(placed('gave-up', HOUR));
    // The same command through a dead proxy: said "a second order", then placed nothing (a review).
    j.history.record(
      recordAt('unreached', at(T - HOUR / 2), {
        ...spec,
        outcome: 'refused',
        error: { code: 'network_error', message: 'cannot reach' },
      }),
    );
    expect(ofThisRequest(j, spec, undefined, T).abandonedPlaced?.key).toBe('gave-up');
    // Abandoned at localhost, placed again at 127.0.0.1 (a review): charged as much.
    const k = journal();
    k.history.mark('abandoned', T - HOUR);
    k.history.record(placed('there', HOUR, { baseUrl: 'http://localhost:4010' }));
    expect(ofThisRequest(k, spec, undefined, T).abandonedPlaced?.key).toBe('there');
    // Placed again since, in either scope: asked about then, not again.
    k.history.record(recordAt('again', at(T - HOUR / 2), { ...spec, baseUrl: 'http://localhost:4010', orderId: 'o2' }));
    expect(ofThisRequest(k, spec, undefined, T).abandonedPlaced).toBeUndefined();
  });

  // A review (stop 77, F3): a plan's row abandoned after the API had placed it, then the same product and quantity by
  // hand: a second order without a word (plan rows were skipped), where the same single order asked.
  it("a plan's row abandoned after the API placed it is it too, in this scope, until the request is placed again", () => {
    const j = journal();
    j.history.mark('abandoned', T - HOUR);
    j.history.record(placed('plan-row-1', HOUR, { plan: 'rows.csv', batch: null }));
    expect(ofThisRequest(j, spec, undefined, T).abandonedPlaced).toMatchObject({
      key: 'plan-row-1',
      orderId: 'ord_plan-row-1',
    });
    // At another spelling of the address (or under a key since rotated) it was charged as much, as a single order
    // abandoned so is said there (a second review: localhost after 127.0.0.1, a second order without a word); in
    // another environment it is another wallet's.
    const k = journal();
    k.history.mark('abandoned', T - HOUR);
    k.history.record(placed('plan-row-2', HOUR, { plan: 'rows.csv', batch: null, baseUrl: 'http://localhost:4010' }));
    expect(ofThisRequest(k, spec, undefined, T).abandonedPlaced?.key).toBe('plan-row-2');
    const m = journal();
    m.history.mark('abandoned', T - HOUR);
    m.history.record(placed('plan-row-4', HOUR, { plan: 'rows.csv', batch: null, environment: 'live' }));
    expect(ofThisRequest(m, spec, undefined, T).abandonedPlaced).toBeUndefined();
    // A row delivered is not abandoned; an order of the request placed since answered the question.
    j.history.record(recordAt('again', at(T - HOUR / 2), { ...spec, orderId: 'ord_again' }));
    expect(ofThisRequest(j, spec, undefined, T).abandonedPlaced).toBeUndefined();
    const l = journal();
    l.history.mark('abandoned', T - HOUR);
    l.history.record(placed('plan-row-3', HOUR, { plan: 'rows.csv', batch: null, outcome: 'delivered' }));
    expect(ofThisRequest(l, spec, undefined, T).abandonedPlaced).toBeUndefined();
  });

  // A third review (stop 77, H6): another reseller's key in the same profile (GIFTCODES_API_KEY of a second shop's
  // job) placed the same product and quantity after this reseller's order was abandoned after it was placed; that
  // order hid the abandoned one, and this reseller's own next order was a second charge without a word. An order of
  // another key, not known to be this reseller's, may raise the question, never answer it.
  it("an order of another key, not known to be this reseller's, placed since does not answer it", () => {
    const j = journal();
    j.history.mark('abandoned', T - HOUR);
    j.history.record(placed('mine', HOUR));
    j.history.record(recordAt('theirs', at(T - HOUR / 2), { ...spec, keyId: 'k-other-shop', orderId: 'ord_theirs' }));
    expect(ofThisRequest(j, spec, undefined, T).abandonedPlaced?.key).toBe('mine');
    // The same reseller's other key (known at login) answers it, as this key's own order does.
    const k = journal();
    k.history.mark('abandoned', T - HOUR);
    k.history.record(placed('mine', HOUR, { resellerId: 'rs_1' }));
    k.history.record(
      recordAt('rotated', at(T - HOUR / 2), { ...spec, keyId: 'k-new', resellerId: 'rs_1', orderId: 'ord_r' }),
    );
    expect(ofThisRequest(k, { ...spec, resellerId: 'rs_1' }, undefined, T).abandonedPlaced).toBeUndefined();
  });

  // A fourth review (stop 77, F4, F5, F7, E9): an abandoned record since (another key's, or this key's own request
  // abandoned while it was out) took the place of this reseller's order abandoned after it was placed, which was then
  // never named again (two charges, the words about another order); another reseller's order abandoned so was said
  // to this one as its own. Only an order of this reseller placed and not abandoned since answers it; another key not
  // known to be this reseller's neither raises nor answers it.
  it("an abandoned record since does not answer it; another reseller's neither raises nor answers it", () => {
    const j = journal();
    j.history.mark('abandoned', T - HOUR);
    j.history.record(placed('placed-first', HOUR));
    j.history.record(recordAt('sent-since', at(T - HOUR / 2), { ...spec, outcome: 'abandoned', sent: true }));
    expect(ofThisRequest(j, spec, undefined, T).abandonedPlaced?.key).toBe('placed-first');
    j.history.record(placed('other-shop', HOUR / 4, { keyId: 'k-other-shop' }));
    expect(ofThisRequest(j, spec, undefined, T).abandonedPlaced?.key).toBe('placed-first');
    const k = journal();
    k.history.mark('abandoned', T - HOUR);
    k.history.record(placed('theirs-only', HOUR, { keyId: 'k-other-shop' }));
    expect(ofThisRequest(k, spec, undefined, T).abandonedPlaced).toBeUndefined();
    k.history.record(
      placed('row-theirs', HOUR, { keyId: 'k-other-shop', plan: 'rows.csv', batch: null, key: 'plan-x' }),
    );
    expect(ofThisRequest(k, spec, undefined, T).abandonedPlaced).toBeUndefined();
  });

  // What a mutation run of those rules found untested.
  it('an order that ended before it does not answer it; a record older than key ids raises it; a row never placed does not hide it', () => {
    const j = journal();
    j.history.mark('abandoned', T - HOUR);
    j.history.record(recordAt('earlier', at(T - 2 * HOUR), { ...spec, orderId: 'ord_earlier' }));
    j.history.record(placed('placed-after', HOUR));
    expect(ofThisRequest(j, spec, undefined, T).abandonedPlaced?.key).toBe('placed-after');
    // A plan row of the request abandoned while its request was out (no order id) since: not a placed one, and it
    // does not take the place of the one that was.
    j.history.record(
      recordAt('plan-row-sent', at(T - HOUR / 2), { ...spec, outcome: 'abandoned', sent: true, plan: 'rows.csv' }),
    );
    expect(ofThisRequest(j, spec, undefined, T).abandonedPlaced?.key).toBe('placed-after');
    const k = journal();
    k.history.mark('abandoned', T - HOUR);
    k.history.record({ ...placed('no-key-id', HOUR), keyId: undefined } as OrderRecord);
    expect(ofThisRequest(k, spec, undefined, T).abandonedPlaced?.key).toBe('no-key-id');
  });

  it('one abandoned without an order id is not it (that one is followed under its key, or was never sent)', () => {
    const j = journal();
    j.history.record(placed('unanswered', HOUR, { orderId: undefined, sent: true }));
    j.history.mark('abandoned', T - HOUR);
    expect(ofThisRequest(j, spec, undefined, T).abandonedPlaced).toBeUndefined();
    expect(ofThisRequest(j, spec, undefined, T).abandoned?.key).toBe('unanswered');
  });

  it('order abandon of an order the API had placed leaves the mark that lets the next order place read it', async () => {
    const j = journal();
    const { intent } = await j.begin({ ...spec, key: 'k-placed' });
    j.save({ ...intent, phase: 'accepted', orderId: 'ord_p', owner: dead() });
    await j.abandon('k-placed');
    expect(j.history.markedWithinDay('abandoned')).toBe(true);
    expect(ofThisRequest(j, spec, undefined).abandonedPlaced?.orderId).toBe('ord_p');
  });
});

describe('abandonedMaybePlaced: this very request, abandoned after it went out, within the day the server keeps its key', () => {
  const T = Date.parse('2026-06-01T12:00:00.000Z');
  const at = (ms: number): string => new Date(ms).toISOString();
  /** A record of `spec`'s request, sent `ago` ms before T and abandoned with no answer. */
  const abandoned = (key: string, ago: number, extra: Partial<OrderRecord> = {}): OrderRecord => ({
    ...recordAt(key, at(T - ago), { ...spec, outcome: 'abandoned', sent: true }),
    ...extra,
  });

  it("names the record within the day, with another key given too; never that key's own, nor another request or scope", () => {
    const j = journal();
    j.history.record(abandoned('stopped', HOUR));
    // Without the mark abandon leaves, no record is read: one stat for each order place.
    expect(abandonedMaybePlaced(j, spec, undefined, T)).toBeUndefined();
    j.history.mark('abandoned', T - HOUR);
    expect(abandonedMaybePlaced(j, spec, undefined, T)?.key).toBe('stopped');
    // A key given "to be safe" is a second order beside it if it was placed (an adversarial review): named, to be asked.
    expect(abandonedMaybePlaced(j, spec, 'my-key', T)?.key).toBe('stopped');
    expect(abandonedMaybePlaced(j, spec, 'stopped', T)).toBeUndefined();
    for (const other of OTHER_REQUESTS)
      expect(abandonedMaybePlaced(j, { ...spec, ...other }, undefined, T), JSON.stringify(other)).toBeUndefined();
  });

  // An adversarial review ordered an abandoned plan row by hand: its plan sends its key, never order place; said.
  it("a plan's row abandoned while out: named apart (abandonedRow), never its key to reuse; declined, placed or another scope not", () => {
    const j = journal();
    const rowKey = `plan-${'a'.repeat(12)}${'b'.repeat(12)}`;
    j.history.record(abandoned(rowKey, HOUR, { plan: 'p.csv' }));
    j.history.mark('abandoned', T - HOUR);
    const found = ofThisRequest(j, spec, undefined, T);
    expect(found.abandonedRow?.key).toBe(rowKey);
    expect(found.abandoned).toBeUndefined();
    expect(ofThisRequest(j, spec, 'my-key', T).abandonedRow?.key).toBe(rowKey);
    expect(ofThisRequest(j, spec, undefined, T + 24 * HOUR).abandonedRow).toBeUndefined();
    for (const other of OTHER_REQUESTS)
      expect(ofThisRequest(j, { ...spec, ...other }, undefined, T).abandonedRow, JSON.stringify(other)).toBeUndefined();
    // An order of the request that ended before it says nothing of it: still asked.
    j.history.record(abandoned('before', 2 * HOUR, { outcome: 'delivered', sent: undefined, orderId: 'ord_b' }));
    expect(ofThisRequest(j, spec, undefined, T).abandonedRow?.key).toBe(rowKey);
    // One that ended at the same instant as the abandon is taken as after it (no question twice for one moment).
    const k = journal();
    k.history.record(abandoned(rowKey, HOUR, { plan: 'p.csv' }));
    k.history.record(abandoned('same', HOUR, { outcome: 'delivered', sent: undefined, orderId: 'ord_s' }));
    k.history.mark('abandoned', T - HOUR);
    expect(ofThisRequest(k, spec, undefined, T).abandonedRow).toBeUndefined();
    // An order of the request ended since (the second order the question let through): not asked again.
    j.history.record(abandoned('later', HOUR / 2, { outcome: 'delivered', sent: undefined, orderId: 'ord_l' }));
    expect(ofThisRequest(j, spec, undefined, T).abandonedRow).toBeUndefined();
    for (const extra of [{ declined: true as const }, { orderId: 'ord_x' }, { sent: undefined }]) {
      const k = journal();
      k.history.record(abandoned(rowKey, HOUR, extra));
      k.history.mark('abandoned', T - HOUR);
      expect(ofThisRequest(k, spec, undefined, T).abandonedRow, JSON.stringify(extra)).toBeUndefined();
    }
  });

  // A review abandoned an order in one profile and placed it again in a second holding the same API key: one reseller
  // to the API, charged twice without a word.
  it('another profile holding this very API key is the same reseller: its record is this request', () => {
    const j = journal();
    j.history.record(abandoned('stopped', HOUR));
    j.history.mark('abandoned', T - HOUR);
    expect(abandonedMaybePlaced(j, { ...spec, profile: 'shop' }, undefined, T)?.key).toBe('stopped');
    expect(abandonedMaybePlaced(j, { ...spec, profile: 'shop', keyId: 'k-shop' }, undefined, T)).toBeUndefined();
    // Another profile with its own key is another reseller: nothing of it is said, not even as elsewhere.
    expect(ofThisRequest(j, { ...spec, profile: 'shop', keyId: 'k-shop' }, undefined, T)).toEqual({});
  });

  // A review abandoned at 127.0.0.1 and placed the same order again at localhost: charged twice without a word.
  it('one abandoned under another scope of this environment (another address, a key rotated) is named, not reused', () => {
    for (const other of [{ baseUrl: 'http://localhost:4010' }, { keyId: 'k2' }]) {
      const j = journal();
      j.history.record(abandoned('there', HOUR, other));
      j.history.mark('abandoned', T);
      expect(ofThisRequest(j, spec, undefined, T), JSON.stringify(other)).toEqual({
        abandonedElsewhere: expect.objectContaining({ key: 'there' }),
      });
      // One in this scope is the one reused, and the other is not named beside it.
      j.history.record(abandoned('here', 2 * HOUR));
      expect(ofThisRequest(j, spec, undefined, T)).toEqual({ abandoned: expect.objectContaining({ key: 'here' }) });
    }
    // Another environment's, a declined one, an old one: not named.
    for (const record of [
      abandoned('live', HOUR, { baseUrl: 'http://localhost:4010', environment: 'live' }),
      abandoned('declined', HOUR, { baseUrl: 'http://localhost:4010', declined: true }),
      abandoned('old', 25 * HOUR, { baseUrl: 'http://localhost:4010' }),
    ]) {
      const j = journal();
      j.history.record(record);
      j.history.mark('abandoned', T);
      expect(ofThisRequest(j, spec, undefined, T), record.key).toEqual({});
    }
  });

  it('not: one never sent, one with an order id, one that ended otherwise, one sent over a day ago', () => {
    const none = (record: OrderRecord): void => {
      const j = journal();
      j.history.record(record);
      j.history.mark('abandoned', T);
      expect(abandonedMaybePlaced(j, spec, undefined, T), JSON.stringify(record)).toBeUndefined();
    };
    none(abandoned('prepared', HOUR, { sent: undefined }));
    none(abandoned('answered', HOUR, { orderId: 'ord_1' }));
    none(abandoned('refused', HOUR, { outcome: 'refused' }));
    none(abandoned('delivered', HOUR, { outcome: 'delivered' }));
    none(abandoned('old', 24 * HOUR + 1));
    // A plan's row: its plan sends it again.
    none(abandoned(`plan-${'a'.repeat(24)}`, HOUR));
    const day = journal();
    day.history.record(abandoned('day', 24 * HOUR));
    day.history.mark('abandoned', T);
    expect(abandonedMaybePlaced(day, spec, undefined, T)?.key).toBe('day');
    // Dated ahead of the clock (it went back since): not sent again, but given as such to order place, which refuses
    // (journal.ts staleAbandoned): dropped, a second order was placed without a word (a review).
    const ahead = journal();
    ahead.history.record(abandoned('ahead', -10 * 60 * 1000));
    ahead.history.mark('abandoned', T);
    expect(abandonedMaybePlaced(ahead, spec, undefined, T)).toBeUndefined();
    expect(ofThisRequest(ahead, spec, undefined, T)).toEqual({
      abandonedAhead: expect.objectContaining({ key: 'ahead' }),
    });
  });

  it('sentUnanswered: abandoned, sent, and no order id; nothing else', () => {
    const r = abandoned('k', HOUR);
    expect(sentUnanswered(r)).toBe(true);
    expect(sentUnanswered(undefined)).toBe(false);
    expect(sentUnanswered({ ...r, sent: undefined })).toBe(false);
    expect(sentUnanswered({ ...r, orderId: 'ord_1' })).toBe(false);
    expect(sentUnanswered({ ...r, outcome: 'refused' })).toBe(false);
  });

  it('recordOf marks an abandoned intent sent only when its request went out without an answer', () => {
    const base = { ...spec, key: 'k', createdAt: at(T), updatedAt: at(T) } as unknown as Intent;
    expect(recordOf({ ...base, phase: 'sending' }, 'abandoned').sent).toBe(true);
    expect(recordOf({ ...base, phase: 'prepared' }, 'abandoned').sent).toBeUndefined();
    expect(recordOf({ ...base, phase: 'accepted', orderId: 'ord_1' }, 'abandoned').sent).toBeUndefined();
    expect(recordOf({ ...base, phase: 'sending' }, 'refused').sent).toBeUndefined();
    // Sending with an order id (answered, the accept not yet on disk): its order is known, not "may have been placed".
    expect(recordOf({ ...base, phase: 'sending', orderId: 'ord_1' }, 'abandoned').sent).toBeUndefined();
    // A pending one's record (a view): its request may be out, so order show and watch say it may have been placed.
    expect(recordOf({ ...base, phase: 'sending' }, 'pending').sent).toBe(true);
    expect(recordOf({ ...base, phase: 'prepared' }, 'pending').sent).toBeUndefined();
    expect(recordOf({ ...base, phase: 'sending' }, 'delivered').sent).toBeUndefined();
  });

  it('of several abandoned here (or elsewhere), the one that ended last; a record that is no sent abandon is never named', () => {
    const j = journal();
    j.history.record(abandoned('first', 3 * HOUR, { endedAt: at(T - 3 * HOUR) }));
    j.history.record(abandoned('second', 2 * HOUR, { endedAt: at(T - HOUR) }));
    // Begun first, ended last (its run waited longest): by when each ended, not began.
    j.history.record(abandoned('third', 4 * HOUR, { endedAt: at(T - HOUR / 2) }));
    j.history.mark('abandoned', T);
    expect(abandonedMaybePlaced(j, spec, undefined, T)?.key).toBe('third');
    const e = journal();
    const there = { baseUrl: 'http://localhost:4010' };
    e.history.record(abandoned('a', 3 * HOUR, { ...there, endedAt: at(T - 3 * HOUR) }));
    e.history.record(abandoned('b', 2 * HOUR, { ...there, endedAt: at(T - HOUR) }));
    e.history.record(abandoned('c', 4 * HOUR, { ...there, endedAt: at(T - HOUR / 2) }));
    // Delivered there, later: not an abandon, never named.
    e.history.record(abandoned('d', HOUR, { ...there, outcome: 'delivered', orderId: 'ord_d', sent: undefined }));
    e.history.mark('abandoned', T);
    expect(ofThisRequest(e, spec, undefined, T).abandonedElsewhere?.key).toBe('c');
  });
});

// A review answered No (a new order placed), and the next same order place asked again, Yes first, and handed out the
// abandoned order's codes; and after a second order placed on purpose, it kept asking "a second order?" for a day.
describe('which record of the request is followed', () => {
  const T = Date.parse('2026-06-01T12:00:00.000Z');
  const at = (ms: number): string => new Date(ms).toISOString();

  it('a later order of the same request ends the finished question, never the abandoned one; a declined reuse does', () => {
    const j = journal();
    j.history.record(recordAt('stopped', at(T - 2 * HOUR), { ...spec, outcome: 'abandoned', sent: true }));
    j.history.record(recordAt('peeked', at(T - 3 * HOUR), { ...spec, orderId: 'ord_p', finishedBy: 'codes get' }));
    j.history.mark('abandoned', T);
    j.history.mark('finished', T);
    expect(abandonedMaybePlaced(j, spec, undefined, T)?.key).toBe('stopped');
    // A second order of the request that ended after the abandon (a cron job's, started while the person's request
    // was out) settles nothing about the abandoned key: only its own next run does (a review lost a charged order).
    j.history.record(recordAt('new-one', at(T - HOUR), { ...spec, orderId: 'ord_n' }));
    expect(abandonedMaybePlaced(j, spec, undefined, T)?.key).toBe('stopped');
    expect(finishedInItsPlace(j, spec, undefined, T)).toBeUndefined();
    // Answered No at the question: not asked about again, and still `sent` for order show.
    j.history.record({ ...j.history.get('stopped', scopeOf(spec))!, declined: true });
    expect(abandonedMaybePlaced(j, spec, undefined, T)).toBeUndefined();
    expect(j.history.get('stopped', scopeOf(spec))).toMatchObject({ sent: true, declined: true });
    // Both rules at once: the order asked about as a second one goes under the abandoned key.
    const b = journal();
    b.history.record(recordAt('stopped', at(T - 3 * HOUR), { ...spec, outcome: 'abandoned', sent: true }));
    b.history.record(recordAt('peeked', at(T - 2 * HOUR), { ...spec, orderId: 'ord_p', finishedBy: 'codes get' }));
    b.history.mark('abandoned', T);
    b.history.mark('finished', T);
    expect(ofThisRequest(b, spec, undefined, T)).toMatchObject({
      finished: { key: 'peeked' },
      abandoned: { key: 'stopped' },
    });
    // Reused before, its day counts from its first send: a reuse 20 hours on, abandoned again, is stale 5 hours after.
    const r = journal();
    r.history.record(
      recordAt('again', at(T - 1 * HOUR), { ...spec, outcome: 'abandoned', sent: true, keySince: at(T - 21 * HOUR) }),
    );
    r.history.mark('abandoned', T);
    expect(abandonedMaybePlaced(r, spec, undefined, T)?.key).toBe('again');
    expect(abandonedMaybePlaced(r, spec, undefined, T + 4 * HOUR)).toBeUndefined();
    // By when each ended: an order abandoned after a second window's order of it was placed and delivered (that one
    // began later) is the one to follow (a review lost a charged order when the later beginning hid it).
    const w = journal();
    w.history.record(
      recordAt('first-window', at(T - 2 * HOUR), { ...spec, outcome: 'abandoned', sent: true, endedAt: at(T - HOUR) }),
    );
    w.history.record(
      recordAt('second-window', at(T - 2 * HOUR + 700), {
        ...spec,
        orderId: 'ord_y',
        endedAt: at(T - 2 * HOUR + 4000),
      }),
    );
    w.history.mark('abandoned', T);
    expect(abandonedMaybePlaced(w, spec, undefined, T)?.key).toBe('first-window');
    // A plan's row of the same product and quantity is its plan's: it ends neither.
    const k = journal();
    k.history.record(recordAt('stopped', at(T - 2 * HOUR), { ...spec, outcome: 'abandoned', sent: true }));
    k.history.record(recordAt(`plan-${'b'.repeat(24)}`, at(T - HOUR), { ...spec, orderId: 'ord_row' }));
    k.history.mark('abandoned', T);
    expect(abandonedMaybePlaced(k, spec, undefined, T)?.key).toBe('stopped');
  });
});

// A review: a run that began its note just before the footprint was read, then waited for the journal's lock behind a
// busy plan, wrote it after, and was charged during the question, unasked: its note was dated before the footprint.
describe('beganSince', () => {
  const at = '2026-12-01T10:00:00.000Z';
  const before = { unsent: new Set(['never-sent']), at };
  const began = (seconds: number, o: { key?: string; finishedBy?: string } = {}) => ({
    key: o.key ?? 'k',
    createdAt: new Date(Date.parse(at) + seconds * 1000).toISOString(),
    ...(o.finishedBy ? { finishedBy: o.finishedBy } : {}),
  });
  it('since the footprint; or up to a lock wait before it; or a note never sent then', () => {
    expect(beganSince(began(0), before)).toBe(true);
    expect(beganSince(began(5), before)).toBe(true);
    expect(beganSince(began(-30), before)).toBe(true);
    expect(beganSince(began(-60), before)).toBe(true);
    expect(beganSince(began(-61), before)).toBe(false);
    expect(beganSince(began(-3600, { key: 'never-sent' }), before)).toBe(true);
  });
  it('not an older order delivered by codes get meanwhile (finishedBy), however recent', () => {
    expect(beganSince(began(-30, { finishedBy: 'codes get' }), before)).toBe(false);
    expect(beganSince(began(1, { finishedBy: 'codes get' }), before)).toBe(true);
  });
});
