// Every error-body form a real service might send is read into { code, message } and mapped to an exit code.
import { describe, expect, it } from 'vitest';
import {
  canonicalCode,
  describeHttpError,
  errorForStatus,
  refusesTheOrder,
  parseErrorBody,
  unreadableBody,
} from '../../src/api/errors.js';
import { ApiError, AuthError, ExitCode, NetworkError } from '../../src/errors.js';

const JSON_TYPE = 'application/json';

describe('parseErrorBody: each form', () => {
  it('{"error":{"code","message"}} (the reference server)', () => {
    const text = JSON.stringify({
      error: { code: 'idempotency_key_reused', message: 'that key was used with another body' },
    });
    expect(parseErrorBody(422, text, JSON_TYPE)).toEqual({
      code: 'idempotency_key_reused',
      message: 'that key was used with another body',
    });
  });

  it('{"error":{"type","message"}} takes the type as the code', () => {
    expect(
      parseErrorBody(400, JSON.stringify({ error: { type: 'invalid_request_error', message: 'bad' } }), JSON_TYPE),
    ).toEqual({
      code: 'invalid_request_error',
      message: 'bad',
    });
  });

  it('{"error":"code","message"}', () => {
    expect(
      parseErrorBody(409, JSON.stringify({ error: 'request_in_progress', message: 'still working' }), JSON_TYPE),
    ).toEqual({
      code: 'request_in_progress',
      message: 'still working',
    });
  });

  it('{"error":"…","error_description"} (OAuth style)', () => {
    expect(
      parseErrorBody(401, JSON.stringify({ error: 'invalid_token', error_description: 'expired' }), JSON_TYPE),
    ).toEqual({
      code: 'invalid_token',
      message: 'expired',
    });
  });

  it('{"code","message"}', () => {
    expect(
      parseErrorBody(404, JSON.stringify({ code: 'order_not_found', message: 'no such order' }), JSON_TYPE),
    ).toEqual({
      code: 'order_not_found',
      message: 'no such order',
    });
  });

  it('a numeric code is kept as text', () => {
    expect(parseErrorBody(400, JSON.stringify({ code: 1042, message: 'nope' }), JSON_TYPE)).toEqual({
      code: '1042',
      message: 'nope',
    });
  });

  it('{"message"} alone gets the status as its code', () => {
    expect(parseErrorBody(418, JSON.stringify({ message: 'teapot' }), JSON_TYPE)).toEqual({
      code: 'http_418',
      message: 'teapot',
    });
  });

  it('application/problem+json: the last segment of type is the code, detail the message', () => {
    const text = JSON.stringify({
      type: 'https://example.com/problems/out-of-stock',
      title: 'Out of stock',
      status: 422,
      detail: 'only 3 left',
    });
    expect(parseErrorBody(422, text, 'application/problem+json')).toEqual({
      code: 'out-of-stock',
      message: 'only 3 left',
    });
  });

  it('problem+json with type about:blank: the title becomes the code', () => {
    const text = JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404 });
    expect(parseErrorBody(404, text, 'application/problem+json; charset=utf-8')).toEqual({
      code: 'not_found',
      message: 'Not Found',
    });
  });

  it('plain text: the first non-empty line, the status as the code', () => {
    expect(parseErrorBody(500, '\n  Internal meltdown \nat line 3\n', 'text/plain')).toEqual({
      code: 'http_500',
      message: 'Internal meltdown',
    });
  });

  it('HTML on one line: the page title, once', () => {
    const html = '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>';
    expect(parseErrorBody(502, html, 'text/html')).toEqual({ code: 'http_502', message: '502 Bad Gateway' });
  });

  it('HTML over several lines (an nginx error page) still yields a message', () => {
    const html =
      '<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n<center><h1>504 Gateway Time-out</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';
    expect(parseErrorBody(504, html, 'text/html')).toEqual({ code: 'http_504', message: '504 Gateway Time-out' });
  });

  it('HTML without a title: the first line of text', () => {
    const html = '<!DOCTYPE html>\n<html>\n<body>\n<p>Service down for maintenance</p>\n</body>\n</html>';
    expect(parseErrorBody(503, html, 'text/html')).toEqual({
      code: 'http_503',
      message: 'Service down for maintenance',
    });
  });

  it('an empty body: the status alone', () => {
    expect(parseErrorBody(503, '', undefined)).toEqual({ code: 'http_503', message: '' });
  });

  it('a long message is cut to one line of bounded length', () => {
    const parsed = parseErrorBody(
      400,
      JSON.stringify({ code: 'x', message: `${'word '.repeat(200)}\nsecond line` }),
      JSON_TYPE,
    );
    expect(parsed.message.length).toBeLessThanOrEqual(300);
    expect(parsed.message).not.toContain('\n');
    expect(parsed.message.endsWith('…')).toBe(true);
  });

  it.each([
    ['broken JSON with a JSON type', '{"error": {"code": ', JSON_TYPE],
    ['a JSON array', '[1,2,3]', JSON_TYPE],
    ['a JSON string', '"oops"', JSON_TYPE],
    ['binary', '\u0000\u0001\u0002\u00ff', 'application/octet-stream'],
    ['JSON of no known shape', '{"foo":{"bar":1}}', JSON_TYPE],
  ])('garbage (%s) still gives the status as the code and a one-line message', (_name, text, type) => {
    const parsed = parseErrorBody(500, text, type);
    expect(parsed.code).toBe('http_500');
    expect(parsed.message).not.toMatch(/[\r\n]/);
  });
});

describe('errorForStatus: the exit code of each status', () => {
  const body = { code: 'some_code', message: 'some message' };

  it('401 and 403 are the key (exit 3)', () => {
    for (const status of [401, 403]) {
      const error = errorForStatus('GET', '/v1/ping', status, body, 1);
      expect(error).toBeInstanceOf(AuthError);
      expect(error.exitCode).toBe(ExitCode.auth);
      expect(error.status).toBe(status);
    }
  });

  it('other 4xx are refusals (exit 4) that show the status, the code and the message', () => {
    for (const status of [400, 404, 409, 422]) {
      const error = errorForStatus('POST', '/v1/orders', status, body, 1);
      expect(error).toBeInstanceOf(ApiError);
      expect(error.exitCode).toBe(ExitCode.api);
      expect(error.code).toBe('some_code');
      expect(error.message).toBe(`POST /v1/orders failed: HTTP ${status} some_code: some message`);
    }
  });

  // A person's day: the hint said to repeat the original product and quantity, which then read "already placed".
  it('a key bound to another order: the hint says to use a new key, never to repeat the original', () => {
    const reused = parseErrorBody(422, '{"error":{"code":"idempotency_key_reused","message":"m"}}', 'application/json');
    const error = errorForStatus('POST', '/v1/orders', 422, reused, 1);
    expect(error).toMatchObject({ exitCode: ExitCode.api, code: 'idempotency_key_reused' });
    expect(error.hint).toBe(
      'that idempotency key belongs to another order (another product or quantity): for this one, use a new key, or give none and one is made; giftcodes order list shows the orders placed from here',
    );
  });

  // Reviews settled abandoned keys with a gateway's `{"error":"Not Found"}`, `{"code":404}`, gRPC's `{"code":5}`,
  // a problem+json anchor and a Cloudflare number: only the order refusals the API names prove no order is under it.
  it('refusesTheOrder: the order refusals the API names, in any spelling, and nothing else', () => {
    for (const code of [
      'insufficient_funds',
      'INSUFFICIENT_FUNDS',
      'insufficientSupply',
      'product-not-found',
      'unknown_product',
      'idempotency_key_invalid',
      'IdempotencyKeyMissing',
    ])
      expect(refusesTheOrder(code), code).toBe(true);
    for (const code of [
      'http_404',
      'Not Found',
      'not_found',
      '404',
      '5',
      '7003',
      'section-15.5.5',
      '404 Not Found',
      'resource_not_found',
      'idempotency_key_reused',
      'request_in_progress',
      'PRODUCT_UNAVAILABLE',
    ])
      expect(refusesTheOrder(code), code).toBe(false);
  });

  it('5xx, 429 and 408 are failures to get an answer (exit 5), with the attempt count', () => {
    for (const status of [500, 503, 429, 408]) {
      const error = errorForStatus('GET', '/v1/catalog', status, body, 3);
      expect(error).toBeInstanceOf(NetworkError);
      expect(error.exitCode).toBe(ExitCode.network);
      expect(error.message).toContain('(after 3 attempts)');
    }
  });

  it("each failure's hint is right for its cause: the service failing, the key's rate, a request timed out, a first attempt still running", () => {
    const hint = (status: number, code = 'some_code'): string | undefined =>
      errorForStatus('POST', '/v1/orders', status, { code, message: '' }, 3).hint;
    for (const status of [500, 502, 503])
      expect(hint(status)).toBe('the service is failing; try again later, or raise --retries');
    expect(hint(429)).toMatch(/^the API limits this key's requests/);
    expect(hint(408)).toBe(
      'the service gave up waiting for the request: check the network or proxy between here and the API, then try again',
    );
    expect(hint(409, 'request_in_progress')).toBe(
      'the API is still working on the first request with this idempotency key: run the same command again in a minute (the same key is never charged twice)',
    );
  });

  it('a redirect is not followed and not a refusal: exit 5, naming where it pointed', () => {
    const error = errorForStatus(
      'GET',
      '/v1/catalog',
      302,
      { code: 'http_302', message: '' },
      1,
      'https://elsewhere.example/v1/catalog',
    );
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.exitCode).toBe(ExitCode.network);
    expect(error.message).toContain('HTTP 302');
    expect(error.hint).toContain('https://elsewhere.example/v1/catalog');
  });

  it('known codes carry a hint, naming the order when the path does', () => {
    const hint = errorForStatus(
      'GET',
      '/v1/orders/ord_9f2/codes',
      409,
      { code: 'order_not_completed', message: 'not yet' },
      1,
    ).hint;
    expect(hint).toBe('the order is not completed yet: add --wait, or run: giftcodes order watch ord_9f2');
  });

  it('describeHttpError leaves out an empty message', () => {
    expect(describeHttpError('GET', '/v1/x', 500, { code: 'http_500', message: '' })).toBe(
      'GET /v1/x failed: HTTP 500 http_500',
    );
  });

  it('an unreadable body is exit 5 with a one-line message', () => {
    const error = unreadableBody('GET', '/v1/catalog', 200, 'not JSON');
    expect(error.exitCode).toBe(ExitCode.network);
    expect(error.code).toBe('invalid_response');
    expect(error.message).not.toContain('\n');
  });
});

describe('issue 13: every error dialect of docs/dialects.md, with the idempotency errors of openapi.yaml in each', () => {
  const IDEMPOTENCY = [
    ['idempotency_key_reused', 422],
    ['request_in_progress', 409],
    ['idempotency_key_missing', 400],
  ] as const;

  const forms: [string, (code: string, status: number) => [string, string]][] = [
    ['{"error":{"code","message"}}', (code) => [JSON.stringify({ error: { code, message: 'm' } }), JSON_TYPE]],
    ['{"error":"code","message"}', (code) => [JSON.stringify({ error: code, message: 'm' }), JSON_TYPE]],
    ['{"code","message"}', (code) => [JSON.stringify({ code, message: 'm' }), JSON_TYPE]],
    [
      'problem+json with a code member',
      (code, status) => [
        JSON.stringify({ type: 'about:blank', title: 'T', status, detail: 'm', code }),
        'application/problem+json',
      ],
    ],
    [
      'problem+json, the code in the type',
      (code, status) => [
        JSON.stringify({ type: `https://api.example.com/problems/${code}`, title: 'T', status, detail: 'm' }),
        'application/problem+json',
      ],
    ],
    [
      'problem+json, the type with dashes',
      (code, status) => [
        JSON.stringify({ type: `https://x.test/p/${code.replace(/_/g, '-')}`, title: 'T', status, detail: 'm' }),
        'application/problem+json',
      ],
    ],
    [
      'JSON:API errors',
      (code, status) => [
        JSON.stringify({ errors: [{ status: String(status), code, title: 'T', detail: 'm' }] }),
        'application/vnd.api+json',
      ],
    ],
    [
      '{"type","message","help"} (Runa)',
      (code) => [JSON.stringify({ type: code, message: 'm', help: 'see the docs' }), JSON_TYPE],
    ],
    ['upper-case code', (code) => [JSON.stringify({ error: code.toUpperCase(), message: 'm' }), JSON_TYPE]],
  ];

  for (const [form, make] of forms) {
    it.each(IDEMPOTENCY)(`${form}: %s (%i)`, (code, status) => {
      const [text, type] = make(code, status);
      const body = parseErrorBody(status, text, type);
      expect(body.code).toBe(code);
      expect(body.message).toMatch(/^m\b/);
      const error = errorForStatus('POST', '/v1/orders', status, body, 1);
      // 409 request_in_progress is a failure to retry (exit 5), the others refusals (exit 4).
      expect(error.exitCode).toBe(status === 409 ? ExitCode.network : ExitCode.api);
      expect(error.message).toContain(`HTTP ${status} ${code}: m`);
    });
  }

  it('JSON:API: the first error, with a count of the others; the title when there is no detail', () => {
    const text = JSON.stringify({
      errors: [{ status: '404', code: 'product_not_found', title: 'Not found' }, { title: 'other' }],
    });
    expect(parseErrorBody(404, text, 'application/vnd.api+json')).toEqual({
      code: 'product_not_found',
      message: 'Not found (and 1 more)',
    });
  });

  it('JSON:API without a code: a slug of the title', () => {
    expect(
      parseErrorBody(404, JSON.stringify({ errors: [{ status: '404', title: 'Product Not Found' }] }), JSON_TYPE).code,
    ).toBe('product_not_found');
  });

  it("Runa's help is kept with the message", () => {
    expect(
      parseErrorBody(
        404,
        JSON.stringify({ type: 'product_not_found', message: 'no such product', help: 'list the catalog' }),
        JSON_TYPE,
      ),
    ).toEqual({
      code: 'product_not_found',
      message: 'no such product (list the catalog)',
    });
  });

  it('a known code in another spelling is the openapi.yaml spelling; an unknown one is kept as sent', () => {
    expect(canonicalCode('RequestInProgress')).toBe('request_in_progress');
    expect(canonicalCode('ORDER-NOT-COMPLETED')).toBe('order_not_completed');
    expect(canonicalCode('SOMETHING_ELSE')).toBe('SOMETHING_ELSE');
  });

  it('a 404 product_not_found in each form is a refusal with its hint', () => {
    for (const [, make] of forms) {
      const [text, type] = make('product_not_found', 404);
      const error = errorForStatus('POST', '/v1/orders', 404, parseErrorBody(404, text, type), 1);
      expect(error.exitCode).toBe(ExitCode.api);
      expect(error.hint).toContain('catalog list');
    }
  });
});

describe('parseErrorBody: a key in a title made into a code', () => {
  it('is masked before its spaces become underscores (it would no longer start a word)', () => {
    for (const text of [
      JSON.stringify({ title: 'Bad key sc_live_abcdefgh1234', status: 400 }),
      JSON.stringify({ errors: [{ status: '400', title: 'bad key sc_test_abcdefgh1234' }] }),
    ]) {
      const { code } = parseErrorBody(400, text, 'application/problem+json');
      expect(code).not.toContain('abcdefgh');
      expect(code).toMatch(/^bad_key_sc_(live|test)_1234$/);
    }
  });
});
