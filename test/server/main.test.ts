import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { defaultServerOptions } from '../../src/server/index.js';
import { pointTheCli, serveMain } from '../../src/server/main.js';
import { KEYS, until } from './helpers.js';

describe('serveMain', () => {
  test('prints where it listens, how to log in to it and the demo keys, serves, and stops on SIGTERM', async () => {
    const out = new PassThrough();
    const err = new PassThrough();
    let printed = '';
    out.on('data', (c: Buffer) => (printed += c.toString()));
    const signals = new EventEmitter();
    const done = serveMain({ ...defaultServerOptions(), port: 0 }, out, err, signals);
    await until(async () => (printed.includes('\n') ? true : undefined));
    const lines = printed.trimEnd().split('\n');
    const m = /^giftcodes reference server listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(lines[0] ?? '');
    expect(m).not.toBeNull();
    const url = m?.[1] ?? '';
    expect(lines.slice(1)).toEqual([
      // How to point the CLI at it: with --port 0 the URL is new each time, and the CLI's default is port 4010.
      `export GIFTCODES_BASE_URL=${url}, or log in to it with: giftcodes login --base-url ${url}`,
      `  rs_demo   test  ${KEYS.test}`,
      `  rs_demo   live  ${KEYS.live}`,
      `  rs_small  test  ${KEYS.smallTest}`,
      `  rs_small  live  ${KEYS.smallLive}`,
    ]);
    const ping = await fetch(`${url}/v1/ping`, { headers: { 'X-API-Key': KEYS.live } });
    expect(await ping.json()).toEqual({ status: 'ok', environment: 'live', resellerId: 'rs_demo' });
    signals.emit('SIGTERM');
    await done;
    expect(signals.listenerCount('SIGTERM') + signals.listenerCount('SIGINT')).toBe(0);
    await expect(fetch(`${url}/v1/ping`)).rejects.toThrow();
  });

  // A newcomer's walkthrough: at the default address the line named --base-url, which the README's login leaves out.
  test("at the CLI's default address, the login needs no --base-url", () => {
    expect(pointTheCli('http://127.0.0.1:4010')).toBe(
      'giftcodes uses this address by default: log in with: giftcodes login',
    );
    expect(pointTheCli('http://127.0.0.1:4011')).toBe(
      'export GIFTCODES_BASE_URL=http://127.0.0.1:4011, or log in to it with: giftcodes login --base-url http://127.0.0.1:4011',
    );
  });

  test('a port in use is a clear error', async () => {
    const signals = new EventEmitter();
    const out = new PassThrough();
    let printed = '';
    out.on('data', (c: Buffer) => (printed += c.toString()));
    const first = serveMain({ ...defaultServerOptions(), port: 0 }, out, new PassThrough(), signals);
    await until(async () => (printed.includes('\n') ? true : undefined));
    const port = Number(/:(\d+)\n/.exec(printed)?.[1]);
    await expect(
      serveMain({ ...defaultServerOptions(), port }, new PassThrough(), new PassThrough(), new EventEmitter()),
    ).rejects.toThrow(/EADDRINUSE/);
    signals.emit('SIGINT');
    await first;
  });
});
