import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, loggedIn, runCli, startServer, type TestServer } from '../helpers/e2e.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.stop();
});

describe('ping', () => {
  it('reports a test key as the test environment', async () => {
    const configDir = await loggedIn(server);
    const result = await runCli(['ping', '--json'], { configDir });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'ok', environment: 'test', resellerId: 'rs_demo' });
  });

  it('reports a live key given in GIFTCODES_API_KEY as live', async () => {
    const result = await runCli(['ping', '--json'], { baseUrl: server.url, env: { GIFTCODES_API_KEY: DEMO_KEYS.live } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ environment: 'live', resellerId: 'rs_demo' });
  });
});
