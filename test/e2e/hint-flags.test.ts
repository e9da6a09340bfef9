// The hints of a run against the reference server: their commands carry the --base-url and --env the run was given
// as flags, they say the wait the server asked for, and a base URL with a wrong path is said as such.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggedIn, runCli, startServer, type TestServer } from '../helpers/e2e.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.stop();
});

describe('hints of a run given --base-url', () => {
  // A review: `list the products with: giftcodes catalog list`, pasted, asked the profile's server.
  it('an unknown product: the catalog list of the same server and environment', async () => {
    const configDir = await loggedIn(server);
    const result = await runCli(
      ['--base-url', server.url, '--env', 'test', 'order', 'place', '--product', 'nope-x', '--quantity', '1'],
      { configDir },
    );
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(
      `hint: list the products with: GIFTCODES_CONFIG_DIR=${configDir} giftcodes --env test --base-url ${server.url} catalog list\n`,
    );
  });
});

describe('a rate limit', () => {
  // A review: `retry after 1 s` in the message, `try again in a minute` in the hint.
  it("the hint says the server's Retry-After, not a minute", async () => {
    const limited = await startServer(['--rate-limit', '1']);
    try {
      const configDir = await loggedIn(limited);
      let stderr = '';
      for (let i = 0; i < 5 && !stderr.includes('HTTP 429'); i++)
        stderr = (await runCli(['catalog', 'list', '--retries', '0'], { configDir })).stderr;
      expect(stderr).toContain('HTTP 429');
      expect(stderr).toMatch(/hint: the API limits this key's requests and asked to be tried again in 1 s: /);
      expect(stderr).not.toContain('a minute');
    } finally {
      await limited.stop();
    }
  });
});

describe('a base URL with a path the API does not live under', () => {
  // A review: `--base-url http://127.0.0.1:PORT/api` got `HTTP 404 not_found: no route /api/v1/orders` and no hint.
  it('the 404 is hinted with the base URL to check, where it came from, and its root', async () => {
    const configDir = await loggedIn(server);
    const result = await runCli(['--base-url', `${server.url}/api`, 'catalog', 'list'], { configDir });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('no route /api/v1/catalog');
    expect(result.stderr).toContain(
      `hint: check the path of the base URL ${server.url}/api (from --base-url): the client adds /v1/… to it, so it is the API's root, such as ${server.url}, `,
    );
  });
});
