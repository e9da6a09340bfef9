// Each attempt's deadline ends with the attempt. AbortSignal.timeout's timer (joined to the process's signal
// with AbortSignal.any) outlived every request by the whole --request-timeout, and over the thousand pages
// of a large export they piled up in the old generation: peak RSS grew with the number of codes.
import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { DEFAULT_RETRY_POLICY } from '../../src/api/retry.js';

const TIMEOUT_MS = 43_210;
let server: Server | undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(status: number): Promise<string> {
  server = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(status === 200 ? '{"status":"ok"}' : '{"error":{"code":"invalid_key","message":"no"}}');
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server?.address() as AddressInfo).port}`;
}

describe('the deadline of a request', () => {
  for (const status of [200, 401]) {
    it(`is cleared when the attempt ends (answered ${status})`, async () => {
      const url = await serve(status);
      const controller = new AbortController();
      const api = new ApiClient({
        baseUrl: url,
        apiKey: 'sc_test_demo_4f3c9a1b7e2d',
        requestTimeoutMs: TIMEOUT_MS,
        retry: { ...DEFAULT_RETRY_POLICY, retries: 0 },
        signal: controller.signal,
      });
      const set = vi.spyOn(globalThis, 'setTimeout');
      const cleared = vi.spyOn(globalThis, 'clearTimeout');
      try {
        for (let i = 0; i < 3; i++) await api.ping().catch(() => undefined);
      } finally {
        await api.close();
      }
      const deadlines = set.mock.results
        .filter((_, call) => set.mock.calls[call]?.[1] === TIMEOUT_MS)
        .map((result) => result.value as unknown);
      // One per attempt, and one per connection opened (the transport's deadline for opening it).
      expect(deadlines.length).toBeGreaterThanOrEqual(3);
      const clearedTimers = new Set(cleared.mock.calls.map((call) => call[0] as unknown));
      for (const timer of deadlines) expect(clearedTimers.has(timer)).toBe(true);
      // Nothing of the requests stays attached to the process's signal either.
      expect(EventEmitter.getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    });
  }
});
