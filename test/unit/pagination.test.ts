// The tolerant list parsers: every envelope and every pagination form CONTRACT.md names, and garbage.
import { describe, expect, it } from 'vitest';
import { extractList, nextPageUrl, parseLinkNext } from '../../src/api/pagination.js';
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

  it('ends when has_more is false, whatever else the body or Link header says', () => {
    expect(nextPageUrl({ data: items, has_more: false, next_cursor: 'abc', next: '/v1/catalog?page=2' }, '</v1/catalog?page=2>; rel="next"', here, undefined)).toBeUndefined();
  });

  it('ends when next_cursor is null or empty', () => {
    expect(nextPageUrl({ data: items, next_cursor: null }, undefined, here, undefined)).toBeUndefined();
    expect(nextPageUrl({ data: items, next_cursor: '' }, undefined, here, undefined)).toBeUndefined();
  });

  it('follows a numeric cursor, and a cursor under pagination', () => {
    expect(nextPageUrl({ data: items, next_cursor: 20 }, undefined, here, undefined)?.searchParams.get('cursor')).toBe('20');
    expect(nextPageUrl({ data: items, pagination: { next_cursor: 'p2' } }, undefined, here, undefined)?.searchParams.get('cursor')).toBe('p2');
  });

  it('follows a `next` URL field, absolute or relative to the current page', () => {
    expect(nextPageUrl({ results: items, next: 'https://api.example.com/v1/catalog?page=2' }, undefined, here, undefined)?.toString()).toBe(
      'https://api.example.com/v1/catalog?page=2',
    );
    expect(nextPageUrl({ results: items, next: '/v1/catalog?page=3' }, undefined, here, undefined)?.toString()).toBe('https://api.example.com/v1/catalog?page=3');
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
    expect(nextPageUrl({ items, next: '/from-body' }, '</from-link>; rel="next"', here, undefined)?.pathname).toBe('/from-link');
  });

  it('ends when the Link header names no next page', () => {
    expect(nextPageUrl(items, '</v1/catalog?page=1>; rel="first", </v1/catalog?page=1>; rel="prev"', here, undefined)).toBeUndefined();
  });

  it('Stripe form: has_more without a cursor starts after the last item\'s id', () => {
    const next = nextPageUrl({ object: 'list', data: items, has_more: true }, undefined, here, items.at(-1));
    expect(next?.searchParams.get('starting_after')).toBe('b');
    expect(next?.searchParams.get('limit')).toBe('2');
  });

  it('Stripe form with a numeric id', () => {
    expect(nextPageUrl({ data: [{ id: 7 }], has_more: true }, undefined, here, { id: 7 })?.searchParams.get('starting_after')).toBe('7');
  });

  it('has_more true with no way to the next page is an error (exit 5), not a silent stop', () => {
    const attempt = () => nextPageUrl({ data: [{ name: 'no id' }], has_more: true }, undefined, here, { name: 'no id' });
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
    const header = '<https://x.test/p?page=1>; rel="first", <https://x.test/p?page=3>; rel="next", <https://x.test/p?page=9>; rel="last"';
    expect(parseLinkNext(header)).toBe('https://x.test/p?page=3');
  });

  it('reads a rel with several values', () => {
    expect(parseLinkNext('<https://x.test/p?page=2>; rel="next last"')).toBe('https://x.test/p?page=2');
    expect(parseLinkNext('<https://x.test/p?page=1>; rel="prev first", <https://x.test/p?page=2>; rel="last next"')).toBe('https://x.test/p?page=2');
  });

  it('reads an unquoted rel, any case, with spaces around =', () => {
    expect(parseLinkNext('<https://x.test/p?page=2>; rel=next')).toBe('https://x.test/p?page=2');
    expect(parseLinkNext('<https://x.test/p?page=2> ; REL = "Next"')).toBe('https://x.test/p?page=2');
  });

  it('does not split on a comma inside a quoted parameter', () => {
    const header = '<https://x.test/p?page=1>; title="first, or so"; rel="prev", <https://x.test/p?page=2>; title="a, b"; rel="next"';
    expect(parseLinkNext(header)).toBe('https://x.test/p?page=2');
  });

  it('does not split on a comma inside the URL', () => {
    expect(parseLinkNext('<https://x.test/p?ids=1,2,3&page=2>; rel="next"')).toBe('https://x.test/p?ids=1,2,3&page=2');
  });

  it('is not fooled by "next" in another parameter', () => {
    expect(parseLinkNext('<https://x.test/p?page=9>; title="next"; rel="last"')).toBeUndefined();
    expect(parseLinkNext('<https://x.test/p?page=9>; rel="nextish"')).toBeUndefined();
  });

  it.each(['', 'garbage', '<unterminated; rel="next"', 'https://x.test/p; rel="next"'])('finds nothing in garbage: %j', (header) => {
    expect(parseLinkNext(header)).toBeUndefined();
  });
});
