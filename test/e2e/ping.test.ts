import { describe, expect, it } from 'vitest';
import { DEMO_KEYS, loggedIn, runCli, servedApi } from '../helpers/e2e.js';

const served = servedApi();

describe('ping', () => {
  it('reports a test key as the test environment', async () => {
    const configDir = await loggedIn(served.server);
    const result = await runCli(['ping', '--json'], { configDir });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'ok', environment: 'test', resellerId: 'rs_demo' });
  });

  it('reports a live key given in GIFTCODES_API_KEY as live', async () => {
    const result = await runCli(['ping', '--json'], {
      baseUrl: served.url,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.live },
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ environment: 'live', resellerId: 'rs_demo' });
  });
});
