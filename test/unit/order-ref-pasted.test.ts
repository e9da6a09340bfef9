// Refs as support staff paste them from Slack, a web page or the docs (a usability review): invisible format
// characters, emphasis markers, a leading #, a trailing ! or ?, and an id the docs print truncated with an ellipsis.
// Each went to the API unchanged, and the 404's hint then said none of the orders recorded here matched.
import { describe, expect, it } from 'vitest';
import type { OrderRecord } from '../../src/journal/history.js';
import { cleanRef, intentKey, localRecord, notFoundHere } from '../../src/orders/ref.js';
import { ApiError } from '../../src/errors.js';
import type { Connection } from '../../src/config/resolve.js';
import { freshJournal } from '../helpers/inprocess.js';
import { recordAt } from '../helpers/journal.js';

const id = 'ord_c47ab0c95e1d4f2aa8b3c6d7';
const record: OrderRecord = recordAt('k-1', '2026-11-29T00:00:00Z', {
  orderId: id,
  productId: 'p',
  quantity: 1,
  baseUrl: 'https://api.example',
});

const INVISIBLE = ['\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF'];

describe('a ref pasted from a chat or a web page: cleanRef', () => {
  it('drops invisible format characters (U+200B–U+200D, U+2060, U+FEFF), before, after or inside', () => {
    for (const c of INVISIBLE) {
      expect(cleanRef(`${id}${c}`), JSON.stringify(c)).toBe(id);
      expect(cleanRef(`${c}${id}`), JSON.stringify(c)).toBe(id);
      expect(cleanRef(`"${id}"${c}.`), JSON.stringify(c)).toBe(id);
      expect(cleanRef(`ord_c47a${c}b0c95e1d4f2aa8b3c6d7`), JSON.stringify(c)).toBe(id);
    }
  });

  it('drops Slack and Markdown emphasis around it, a leading #, and a trailing ! or ?', () => {
    for (const typed of [
      `*${id}*`,
      `**${id}**`,
      `_${id}_`,
      `__${id}__`,
      `~${id}~`,
      `~~${id}~~`,
      `*\`${id}\`*`,
      `#${id}`,
      `${id}!`,
      `${id}?`,
      `${id}?!`,
      `${id};`,
      `"#${id}"!`,
      `*${id}*.`,
      `${id}\u200B!`,
    ])
      expect(cleanRef(typed), typed).toBe(id);
  });

  it('underscores only when they wrap the whole ref: those that are part of it stay', () => {
    expect(cleanRef('ord_c47ab0')).toBe('ord_c47ab0');
    expect(cleanRef('ord_c47ab0_')).toBe('ord_c47ab0_');
    expect(cleanRef('_ord_c47ab0')).toBe('_ord_c47ab0');
    expect(cleanRef('*ord_c47ab0')).toBe('*ord_c47ab0');
  });

  it('an id truncated with an ellipsis (as the docs print ids) is left as the prefix it is', () => {
    expect(cleanRef('ord_c47ab0c9…')).toBe('ord_c47ab0c9');
    expect(cleanRef('ord_c47ab0c9...')).toBe('ord_c47ab0c9');
    expect(cleanRef('`ord_c47ab0c9…`')).toBe('ord_c47ab0c9');
  });

  it('what was cleaned before still is; nothing left is the ref as typed; two words and a URL are left', () => {
    for (const typed of [`"${id}"`, `“${id}”`, `<${id}>`, `\`${id}\``, `(${id})`, `${id}.`, `${id},`, `${id}:`])
      expect(cleanRef(typed), typed).toBe(id);
    expect(cleanRef(` ${id}\u00A0\r`)).toBe(id);
    expect(cleanRef(id.toUpperCase())).toBe(id);
    for (const typed of ['…', '**', '#', '!', '\u200B', '_']) expect(cleanRef(typed), typed).toBe(typed);
    expect(cleanRef(`order ${id}`)).toBe(`order ${id}`);
    const url = `https://dashboard.example/orders/${id}`;
    expect(cleanRef(url)).toBe(url);
  });
});

describe('the local record finds an order pasted that way', () => {
  it('order show, watch and codes get: the pasted forms find the record, a truncated id as a prefix', () => {
    const journal = freshJournal();
    journal.history.record(record);
    for (const typed of [
      `${id}\u200B`,
      `*${id}*`,
      `_${id}_`,
      `~${id}~`,
      `#${id}`,
      `${id}!`,
      `${id}?`,
      'ord_c47ab0c9…',
      'ord_c47ab0c9...',
    ])
      expect(localRecord(journal, typed)?.key, typed).toBe('k-1');
  });

  it('a key as typed wins over the cleaned spelling: never another order', () => {
    const journal = freshJournal();
    journal.history.record({ ...record, key: '#po-7', orderId: 'ord_aa0001' });
    journal.history.record({ ...record, key: 'po-7', orderId: 'ord_bb0001' });
    journal.history.record({ ...record, key: '_x_', orderId: 'ord_cc0001' });
    journal.history.record({ ...record, key: 'x', orderId: 'ord_dd0001' });
    expect(localRecord(journal, '#po-7')?.orderId).toBe('ord_aa0001');
    expect(localRecord(journal, '*po-7*')?.orderId).toBe('ord_bb0001');
    expect(localRecord(journal, '_x_')?.orderId).toBe('ord_cc0001');
    expect(localRecord(journal, '~x~')?.orderId).toBe('ord_dd0001');
  });

  it('order resume and abandon: a pasted key finds its intent', async () => {
    const journal = freshJournal();
    await journal.begin({
      profile: 'default',
      environment: 'test',
      baseUrl: 'http://127.0.0.1:1',
      keyId: 'k',
      productId: 'amazon-us-10',
      quantity: 1,
      key: 'invoice-1001',
    });
    for (const typed of ['invoice-1001\u200B', '*invoice-1001*', '#invoice-1001', 'invoice-1001!', 'invoice-10…'])
      expect(await intentKey(journal, typed), typed).toBe('invoice-1001');
  });

  it('a 404 of a pasted ref that matches a recorded order is not told that none recorded here matches', async () => {
    const journal = freshJournal();
    journal.history.record(record);
    const deps = {
      journal: () => Promise.resolve(journal),
      connection: () =>
        Promise.resolve({ environment: 'test', baseUrl: 'https://api.example', keySource: 'profile' } as Connection),
    };
    const error = new ApiError('HTTP 404 order_not_found', { code: 'order_not_found', hint: 'as the API said' });
    const passed = (await notFoundHere(deps, `${id}\u200B`, error)) as ApiError;
    expect(passed.hint).toBe('as the API said');
  });
});
