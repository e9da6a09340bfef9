// The tolerant list parsers: every envelope and every pagination form docs/dialects.md names, and garbage.
import { describe, expect, it } from 'vitest';
import {
  codeRecord,
  extractList,
  flattenResource,
  nextPageUrl,
  parseLinkNext,
  statedTotal,
  unwrapResource,
} from '../../src/api/pagination.js';
import { NetworkError } from '../../src/errors.js';

const items = [{ id: 'a' }, { id: 'b' }];
const here = new URL('https://api.example.com/v1/catalog?limit=2');

describe('extractList: each list envelope', () => {
  it('reads a bare array', () => {
    expect(extractList(items, 'products')).toEqual(items);
  });

  it.each(['data', 'items', 'results'])('reads the array under "%s"', (key) => {
    expect(extractList({ [key]: items, has_more: false }, 'products')).toEqual(items);
  });

  it('reads "products" for the catalog and "codes" for codes', () => {
    expect(extractList({ products: items }, 'products')).toEqual(items);
    expect(extractList({ codes: items }, 'codes')).toEqual(items);
  });

  it('does not read another list\'s key ("codes" is not a catalog envelope)', () => {
    expect(extractList({ codes: items }, 'products')).toBeUndefined();
  });

  it('prefers data over the named key, and skips keys that are not arrays', () => {
    expect(extractList({ data: items, products: [{ id: 'z' }] }, 'products')).toEqual(items);
    expect(extractList({ data: { not: 'a list' }, items }, 'products')).toEqual(items);
  });

  it('keeps an empty list as a list', () => {
    expect(extractList({ data: [] }, 'products')).toEqual([]);
  });

  it.each([
    ['null', null],
    ['a number', 42],
    ['a string', '[1,2]'],
    ['an object without a list', { hello: 'world' }],
    ['a list under an unknown key', { entries: items }],
    ['undefined', undefined],
  ])('finds no list in garbage: %s', (_name, body) => {
    expect(extractList(body, 'products')).toBeUndefined();
  });
});

describe('nextPageUrl: each pagination form', () => {
  it('has_more with next_cursor sets the cursor on the current URL, keeping other parameters', () => {
    const next = nextPageUrl({ data: items, has_more: true, next_cursor: 'abc' }, undefined, here, items.at(-1));
    expect(next?.toString()).toBe('https://api.example.com/v1/catalog?limit=2&cursor=abc');
  });

  it('replaces an earlier cursor rather than adding a second one', () => {
    const current = new URL('https://api.example.com/v1/catalog?cursor=old');
    const next = nextPageUrl({ data: items, has_more: true, next_cursor: 'new' }, undefined, current, undefined);
    expect(next?.searchParams.getAll('cursor')).toEqual(['new']);
  });

  it('names the same next page for the same URL and cursor asked twice, and a changed URL anew', () => {
    // A list read ahead asks twice (the guess from the tail, then the envelope): the second is the URL made first,
    // unless the current URL or the one made was changed since.
    const current = new URL('https://api.example.com/v1/codes?limit=2&cursor=c1');
    const body = { data: items, has_more: true, next_cursor: 'c2' };
    const first = nextPageUrl(body, undefined, current, undefined);
    expect(first?.href).toBe('https://api.example.com/v1/codes?limit=2&cursor=c2');
    expect(nextPageUrl(body, undefined, current, undefined)).toBe(first);
    expect(nextPageUrl({ ...body, next_cursor: 'c3' }, undefined, current, undefined)?.href).toBe(
      'https://api.example.com/v1/codes?limit=2&cursor=c3',
    );
    const again = nextPageUrl(body, undefined, current, undefined);
    again?.searchParams.set('limit', '9');
    expect(nextPageUrl(body, undefined, current, undefined)?.href).toBe(
      'https://api.example.com/v1/codes?limit=2&cursor=c2',
    );
    current.searchParams.set('limit', '5');
    expect(nextPageUrl(body, undefined, current, undefined)?.href).toBe(
      'https://api.example.com/v1/codes?limit=5&cursor=c2',
    );
    const other = new URL('https://api.example.com/v1/other?cursor=c1');
    expect(nextPageUrl(body, undefined, other, undefined)?.href).toBe('https://api.example.com/v1/other?cursor=c2');
  });

  it('ends when has_more is false, whatever else the body or Link header says', () => {
    expect(
      nextPageUrl(
        { data: items, has_more: false, next_cursor: 'abc', next: '/v1/catalog?page=2' },
        '</v1/catalog?page=2>; rel="next"',
        here,
        undefined,
      ),
    ).toBeUndefined();
  });

  it('ends when next_cursor is null or empty', () => {
    expect(nextPageUrl({ data: items, next_cursor: null }, undefined, here, undefined)).toBeUndefined();
    expect(nextPageUrl({ data: items, next_cursor: '' }, undefined, here, undefined)).toBeUndefined();
  });

  it('follows a numeric cursor, and a cursor under pagination', () => {
    expect(nextPageUrl({ data: items, next_cursor: 20 }, undefined, here, undefined)?.searchParams.get('cursor')).toBe(
      '20',
    );
    expect(
      nextPageUrl({ data: items, pagination: { next_cursor: 'p2' } }, undefined, here, undefined)?.searchParams.get(
        'cursor',
      ),
    ).toBe('p2');
  });

  it('follows a `next` URL field, absolute or relative to the current page', () => {
    expect(
      nextPageUrl(
        { results: items, next: 'https://api.example.com/v1/catalog?page=2' },
        undefined,
        here,
        undefined,
      )?.toString(),
    ).toBe('https://api.example.com/v1/catalog?page=2');
    expect(nextPageUrl({ results: items, next: '/v1/catalog?page=3' }, undefined, here, undefined)?.toString()).toBe(
      'https://api.example.com/v1/catalog?page=3',
    );
  });

  it('follows next_url, links.next and pagination.next', () => {
    expect(nextPageUrl({ data: items, next_url: '/a' }, undefined, here, undefined)?.pathname).toBe('/a');
    expect(nextPageUrl({ data: items, links: { next: '/b' } }, undefined, here, undefined)?.pathname).toBe('/b');
    expect(nextPageUrl({ data: items, pagination: { next: '/c' } }, undefined, here, undefined)?.pathname).toBe('/c');
  });

  it('ends when `next` is null or blank', () => {
    expect(nextPageUrl({ results: items, next: null }, undefined, here, undefined)).toBeUndefined();
    expect(nextPageUrl({ results: items, next: '  ' }, undefined, here, undefined)).toBeUndefined();
  });

  it('follows an RFC 8288 Link header on a bare array', () => {
    const next = nextPageUrl(items, '<https://api.example.com/v1/catalog?page=2>; rel="next"', here, items.at(-1));
    expect(next?.toString()).toBe('https://api.example.com/v1/catalog?page=2');
  });

  it('prefers the Link header to a body field', () => {
    expect(nextPageUrl({ items, next: '/from-body' }, '</from-link>; rel="next"', here, undefined)?.pathname).toBe(
      '/from-link',
    );
  });

  it('ends when the Link header names no next page', () => {
    expect(
      nextPageUrl(items, '</v1/catalog?page=1>; rel="first", </v1/catalog?page=1>; rel="prev"', here, undefined),
    ).toBeUndefined();
  });

  it("Stripe form: has_more without a cursor starts after the last item's id", () => {
    const next = nextPageUrl({ object: 'list', data: items, has_more: true }, undefined, here, items.at(-1));
    expect(next?.searchParams.get('starting_after')).toBe('b');
    expect(next?.searchParams.get('limit')).toBe('2');
  });

  it('Stripe form with a numeric id', () => {
    expect(
      nextPageUrl({ data: [{ id: 7 }], has_more: true }, undefined, here, { id: 7 })?.searchParams.get(
        'starting_after',
      ),
    ).toBe('7');
  });

  it('has_more true with no way to the next page is an error (exit 5), not a silent stop', () => {
    const attempt = () =>
      nextPageUrl({ data: [{ name: 'no id' }], has_more: true }, undefined, here, { name: 'no id' });
    expect(attempt).toThrow(NetworkError);
    expect(attempt).toThrow(/more results but named no next page/);
  });

  it('a bare array with no Link header is the whole list', () => {
    expect(nextPageUrl(items, undefined, here, items.at(-1))).toBeUndefined();
  });

  it.each([null, 'text', 5, []])('garbage bodies end the list: %j', (body) => {
    expect(nextPageUrl(body, undefined, here, undefined)).toBeUndefined();
  });
});

describe('parseLinkNext: the Link header', () => {
  it('finds next among several links', () => {
    const header =
      '<https://x.test/p?page=1>; rel="first", <https://x.test/p?page=3>; rel="next", <https://x.test/p?page=9>; rel="last"';
    expect(parseLinkNext(header)).toBe('https://x.test/p?page=3');
  });

  it('reads a rel with several values', () => {
    expect(parseLinkNext('<https://x.test/p?page=2>; rel="next last"')).toBe('https://x.test/p?page=2');
    expect(
      parseLinkNext('<https://x.test/p?page=1>; rel="prev first", <https://x.test/p?page=2>; rel="last next"'),
    ).toBe('https://x.test/p?page=2');
  });

  it('reads an unquoted rel, any case, with spaces around =', () => {
    expect(parseLinkNext('<https://x.test/p?page=2>; rel=next')).toBe('https://x.test/p?page=2');
    expect(parseLinkNext('<https://x.test/p?page=2> ; REL = "Next"')).toBe('https://x.test/p?page=2');
  });

  it('does not split on a comma inside a quoted parameter', () => {
    const header =
      '<https://x.test/p?page=1>; title="first, or so"; rel="prev", <https://x.test/p?page=2>; title="a, b"; rel="next"';
    expect(parseLinkNext(header)).toBe('https://x.test/p?page=2');
  });

  it('does not split on a comma inside the URL', () => {
    expect(parseLinkNext('<https://x.test/p?ids=1,2,3&page=2>; rel="next"')).toBe('https://x.test/p?ids=1,2,3&page=2');
  });

  it('is not fooled by "next" in another parameter', () => {
    expect(parseLinkNext('<https://x.test/p?page=9>; title="next"; rel="last"')).toBeUndefined();
    expect(parseLinkNext('<https://x.test/p?page=9>; rel="nextish"')).toBeUndefined();
  });

  it.each(['', 'garbage', '<unterminated; rel="next"', 'https://x.test/p; rel="next"'])(
    'finds nothing in garbage: %j',
    (header) => {
      expect(parseLinkNext(header)).toBeUndefined();
    },
  );
});

describe('issue 13: every list envelope of docs/dialects.md', () => {
  it.each(['records', 'content'])('reads the array under "%s"', (key) => {
    expect(extractList({ [key]: items }, 'codes')).toEqual(items);
  });

  it('reads a list one level down (data.items, data.codes)', () => {
    expect(extractList({ data: { items, total: 2 } }, 'products')).toEqual(items);
    expect(extractList({ data: { codes: items } }, 'codes')).toEqual(items);
  });

  it('reads a JSON:API resource as {id, ...attributes}', () => {
    expect(
      flattenResource({ type: 'products', id: 'p1', attributes: { name: 'P', price: 5 }, links: { self: '/x' } }),
    ).toEqual({ id: 'p1', name: 'P', price: 5 });
    expect(flattenResource({ id: 'p1', name: 'plain' })).toEqual({ id: 'p1', name: 'plain' });
  });

  it('reads codes given as plain strings as {code}', () => {
    expect(['AAAA', 'BBBB'].map(codeRecord)).toEqual([{ code: 'AAAA' }, { code: 'BBBB' }]);
  });
});

describe('unwrapResource: a single resource in any envelope', () => {
  const order = { id: 'ord_1', status: 'completed', quantity: 3 };
  it.each([
    ['bare', order],
    ['under data', { data: order }],
    ['under order', { order }],
    ['{meta, data}', { meta: { request_id: 'r' }, data: order }],
    [
      'a JSON:API resource',
      { data: { type: 'orders', id: 'ord_1', attributes: { status: 'completed', quantity: 3 } } },
    ],
  ])('%s', (_name, body) => {
    expect(unwrapResource(body, 'order', 'status')).toEqual(order);
  });

  it('a bare resource that has a data field of its own stays as it is', () => {
    const withData = { id: 'ord_1', status: 'completed', data: { note: 'x' } };
    expect(unwrapResource(withData, 'order', 'status')).toBe(withData);
  });
});

describe('statedTotal', () => {
  it.each([
    [{ total: 7 }, 7],
    [{ total_count: 7 }, 7],
    [{ totalElements: 7 }, 7],
    [{ meta: { total: 7 } }, 7],
    [{ meta: { total_count: '7' } }, 7],
    [{ pagination: { total: 7 } }, 7],
    [{ page: { totalElements: 7, number: 0 } }, 7],
    [{ data: [] }, undefined],
    [{ total: -1 }, undefined],
    [{ total: 'many' }, undefined],
    [[1, 2], undefined],
  ])('%j → %s', (body, total) => {
    expect(statedTotal(body)).toBe(total);
  });
});

describe('issue 13: every pagination form is followed to the end', () => {
  const base = new URL('https://api.example.com/v1/orders/o/codes?limit=1000&per_page=1000');

  it('page/per_page with total_pages and no next link (the silent-partial-result bug)', () => {
    const first = nextPageUrl({ items, page: 1, per_page: 2, total_pages: 3 }, undefined, base, items.at(-1), 2);
    expect(first?.searchParams.get('page')).toBe('2');
    expect(first?.searchParams.get('per_page')).toBe('1000');
    expect(
      nextPageUrl({ items, page: 3, per_page: 2, total_pages: 3 }, undefined, first!, items.at(-1), 2),
    ).toBeUndefined();
  });

  it.each([
    ['totalPages', { page: 1, per_page: 2, totalPages: 2 }],
    ['last_page', { current_page: 1, per_page: 2, last_page: 2 }],
    ['last (a number)', { page: 1, per_page: 2, last: 2 }],
    ['total', { page: 1, per_page: 2, total: 4 }],
    ['total_count', { page: 1, per_page: 2, total_count: 3 }],
    ['meta', { meta: { page: 1, per_page: 2, total_pages: 2 } }],
  ])('page numbers with %s', (_name, body) => {
    const next = nextPageUrl({ data: items, ...body }, undefined, base, items.at(-1), 2);
    expect(next?.searchParams.get('page')).toBe('2');
    const page2 = { ...body, page: 2, current_page: 2, meta: 'meta' in body ? { ...body.meta, page: 2 } : undefined };
    expect(nextPageUrl({ data: items, ...page2 }, undefined, next!, items.at(-1), 2)).toBeUndefined();
  });

  it("Spring's {content, totalPages, number (from 0), size, last}", () => {
    const first = nextPageUrl(
      { content: items, totalPages: 2, totalElements: 4, number: 0, size: 2, last: false },
      undefined,
      base,
      items.at(-1),
      2,
    );
    expect(first?.searchParams.get('page')).toBe('1');
    expect(
      nextPageUrl(
        { content: items, totalPages: 2, totalElements: 4, number: 1, size: 2, last: true },
        undefined,
        first!,
        items.at(-1),
        2,
      ),
    ).toBeUndefined();
  });

  it('Spring HATEOAS: the page facts under `page`', () => {
    const next = nextPageUrl(
      { _embedded: {}, page: { size: 2, totalElements: 3, totalPages: 2, number: 0 } },
      undefined,
      base,
      undefined,
      2,
    );
    expect(next?.searchParams.get('page')).toBe('1');
  });

  it('JSON:API page[number] is kept as the parameter', () => {
    const here2 = new URL('https://api.example.com/v1/catalog?page[number]=1&page[size]=2');
    const next = nextPageUrl({ data: items, meta: { total_pages: 2 } }, undefined, here2, undefined, 2);
    expect(next?.searchParams.get('page[number]')).toBe('2');
    expect(next?.searchParams.has('page')).toBe(false);
  });

  it('page numbers without any count: a full page has a successor, a short one ends', () => {
    expect(nextPageUrl({ items, page: 1, per_page: 2 }, undefined, base, undefined, 2)?.searchParams.get('page')).toBe(
      '2',
    );
    expect(nextPageUrl({ items: [items[0]], page: 2, per_page: 2 }, undefined, base, undefined, 1)).toBeUndefined();
  });

  it('offsets: offset/limit with total', () => {
    const next = nextPageUrl({ results: items, offset: 0, limit: 2, total: 5 }, undefined, base, undefined, 2);
    expect(next?.searchParams.get('offset')).toBe('2');
    expect(
      nextPageUrl({ results: [items[0]], offset: 4, limit: 2, total: 5 }, undefined, next!, undefined, 1),
    ).toBeUndefined();
  });

  it('an offset page that is empty ends the list (the total check then speaks)', () => {
    expect(nextPageUrl({ results: [], offset: 4, limit: 2, total: 9 }, undefined, base, undefined, 0)).toBeUndefined();
  });

  it('a next URL under meta, and links.next as a JSON:API link object', () => {
    expect(
      nextPageUrl({ data: items, meta: { next: '/v1/x?page=2' } }, undefined, base, undefined, 2)?.toString(),
    ).toBe('https://api.example.com/v1/x?page=2');
    expect(
      nextPageUrl(
        { data: items, links: { next: { href: '/v1/x?page=3' } } },
        undefined,
        base,
        undefined,
        2,
      )?.toString(),
    ).toBe('https://api.example.com/v1/x?page=3');
  });

  it('has_more under meta is read like the top-level field', () => {
    expect(
      nextPageUrl({ data: items, meta: { has_more: false }, next: '/v1/x?page=2' }, undefined, base, undefined, 2),
    ).toBeUndefined();
  });
});
