// The line under order pending's table (a usability review): it said `finish them with: giftcodes order resume
// --all` for a single row, plural for one, and --all, which docs/support-desk.md says a hint never names: it takes
// up orders outside the rows listed too.
import { describe, expect, it } from 'vitest';
import { run, wayOut } from '../../src/commands/order/pending.js';
import { capturedIo, freshJournal } from '../helpers/inprocess.js';
import { localOrder } from '../helpers/journal.js';

const ORDER = localOrder;

async function shown(keys: readonly string[], quantity = ORDER.quantity): Promise<string> {
  const journal = freshJournal();
  // Left by a run that is gone (a pid no process has), as order pending meets them after a kill.
  for (const key of keys) {
    const { intent } = await journal.begin({ ...ORDER, quantity, key });
    journal.save({ ...intent, phase: 'sending', owner: { ...intent.owner, pid: 999_999_999 } });
  }
  const { io, out, err } = capturedIo();
  await run({ io, journal: () => Promise.resolve(journal), configDir: journal.dir });
  return out() + err();
}

describe('order pending: the way to finish the rows it lists', () => {
  it('one row: the order resume of its key', async () => {
    const text = await shown(['invoice-1001']);
    expect(text).toContain('finish it with: giftcodes order resume invoice-1001\n');
    expect(text).not.toContain('--all');
  });

  it('several: order resume with the key of each, never --all', async () => {
    const text = await shown(['invoice-1001', 'invoice-1002']);
    expect(text).toContain('finish each with: giftcodes order resume KEY\n');
    expect(text).not.toContain('--all');
  });
});

// A person's day: the table said QTY 20000 of an order every other line (order show, the summary, the plan's own
// lines) calls 20,000.
it("order pending's table groups a quantity's thousands, as every other line says it", async () => {
  const text = await shown(['invoice-1003'], 20_000);
  expect(text).toMatch(/^invoice-1003 +amazon-us-\S+ +20,000 /m);
});

describe('wayOut', () => {
  it('a row never sent: placing it and dropping it are both named (it charged nothing); several: a line for those', () => {
    const unsent = (key: string): boolean => key === 'po-7';
    expect(wayOut([{ key: 'po-7', state: 'interrupted' }], unsent)).toEqual([
      'it was never sent: place it with giftcodes order resume po-7, or drop it with giftcodes order abandon po-7',
    ]);
    expect(wayOut([{ key: 'po-7', state: 'interrupted' }])).toEqual(['finish it with: giftcodes order resume po-7']);
    expect(
      wayOut(
        [
          { key: 'po-7', state: 'interrupted' },
          { key: 'po-8', state: 'interrupted' },
        ],
        unsent,
      ),
    ).toEqual([
      'finish each with: giftcodes order resume KEY',
      'never sent ones charged nothing: resuming one places it; to drop one: giftcodes order abandon KEY',
    ]);
  });

  // A review was told to resume an order another process was finishing: resume refused it (intent_busy).
  it('a row another process is finishing now: let it end, never resume it', () => {
    expect(wayOut([{ key: 'po-7', state: 'running' }])).toEqual([
      'it is being finished by a running giftcodes process right now: let it end, then look again with giftcodes order pending',
    ]);
    expect(
      wayOut([
        { key: 'po-7', state: 'running' },
        { key: 'po-8', state: 'interrupted' },
      ]),
    ).toEqual(['finish each not running now with: giftcodes order resume KEY']);
  });

  it('a single stale or future-dated row: --force-stale or abandon of its key, once checked; never a plain resume', () => {
    expect(wayOut([{ key: 'po-7', state: 'stale' }])).toEqual([
      'it is stale: once checked on the server, giftcodes order resume po-7 --force-stale, or giftcodes order abandon po-7',
    ]);
    expect(wayOut([{ key: "it's", state: 'interrupted' }])).toEqual([
      `finish it with: giftcodes order resume 'it'\\''s'`,
    ]);
    expect(
      wayOut([
        { key: 'a', state: 'interrupted' },
        { key: 'b', state: 'future-dated' },
      ]),
    ).toEqual([
      'finish each with: giftcodes order resume KEY',
      'stale or future-dated ones: giftcodes order resume KEY --force-stale, or giftcodes order abandon KEY',
    ]);
  });
});
