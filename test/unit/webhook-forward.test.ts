// Why `webhook listen --forward-to` could not forward, in words (src/commands/webhook/listen.ts forwardFailure): fetch
// says "fetch failed" whatever happened, and a person's-day review read "forwarding evt_f1 to http://127.0.0.1:1/app
// failed: fetch failed" for a port fetch never connects to. Real fetches, on loopback.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { forwardFailure } from '../../src/commands/webhook/listen.js';

async function failureOf(url: string): Promise<string> {
  try {
    await fetch(url, { method: 'POST', body: '{}', signal: AbortSignal.timeout(5_000) });
  } catch (error) {
    return forwardFailure(new URL(url), error);
  }
  throw new Error(`${url} answered`);
}

describe('forwardFailure', () => {
  it('a port fetch refuses is named as such, with the way on', async () => {
    expect(await failureOf('http://127.0.0.1:1/app')).toBe(
      'port 1 is one fetch never connects to (a "bad port" of the Fetch standard): forward to another port',
    );
  });

  it('a port nothing listens on is "connection refused", naming it', async () => {
    // A port that was free a moment ago: bound, then closed.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(await failureOf(`http://127.0.0.1:${port}/app`)).toBe(
      `connection refused (nothing listens on 127.0.0.1:${port}?)`,
    );
  });

  it('never says only "fetch failed"', () => {
    const url = new URL('http://127.0.0.1:8080/app');
    expect(forwardFailure(url, new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } }))).toBe('ECONNRESET');
    expect(forwardFailure(url, new TypeError('fetch failed', { cause: new Error('other side closed') }))).toBe(
      'other side closed',
    );
    expect(forwardFailure(url, Object.assign(new Error('aborted'), { name: 'TimeoutError' }))).toMatch(
      /^no answer in \d+ s$/,
    );
  });
});
