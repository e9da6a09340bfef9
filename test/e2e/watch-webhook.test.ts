// order watch --webhook-port: a signed order.fulfilled event ends the wait at once (confirmed by one GET),
// long before the next poll would have.
import { describe, expect, it } from 'vitest';
import { loggedIn, runCli, withServer } from '../helpers/e2e.js';
import { freePort } from '../helpers/ports.js';

describe('order watch with a webhook listener', () => {
  it('ends on the signed event instead of waiting for the next poll', async () => {
    const port = await freePort();
    const secret = 'whsec_watch_test_secret';
    await withServer(
      ['--fulfil-after', '4000', '--webhook-url', `http://127.0.0.1:${port}/`, '--webhook-secret', secret],
      async (server) => {
        const configDir = await loggedIn(server);
        const placed = JSON.parse(
          (await runCli(['order', 'place', '--product', 'amazon-us-25', '--quantity', '2', '--json'], { configDir }))
            .stdout,
        );
        // One poll at the start, then none for 10 minutes: only the event can end this in time. 4 s to
        // fulfil leaves a loaded machine time to start the watch before the order completes.
        const watched = await runCli(
          ['order', 'watch', placed.id, '--interval', '600', '--webhook-port', String(port), '--json'],
          {
            configDir,
            env: { GIFTCODES_WEBHOOK_SECRET: secret },
            timeoutMs: 120_000,
          },
        );
        expect(watched.code, watched.stderr).toBe(0);
        expect(JSON.parse(watched.stdout)).toMatchObject({ id: placed.id, status: 'completed' });
      },
    );
  });

  it('refuses an event signed with another secret, says so once, and keeps polling', async () => {
    const port = await freePort();
    // The order completes (and its event is sent) 3 s after it is placed; the watch polls at its start and then
    // 5 s later: the refused event comes between them (the first test's allowance for a loaded machine).
    await withServer(
      [
        '--fulfil-after',
        '3000',
        '--webhook-url',
        `http://127.0.0.1:${port}/`,
        '--webhook-secret',
        'whsec_the_real_one',
      ],
      async (server) => {
        const configDir = await loggedIn(server);
        const placed = JSON.parse(
          (await runCli(['order', 'place', '--product', 'amazon-us-25', '--quantity', '1', '--json'], { configDir }))
            .stdout,
        );
        const watched = await runCli(
          [
            'order',
            'watch',
            placed.id,
            '--interval',
            '5',
            '--webhook-port',
            String(port),
            '--webhook-secret',
            'whsec_wrong_secret',
          ],
          { configDir },
        );
        expect(watched.code, watched.stderr).toBe(0);
        expect(watched.stderr).not.toContain('webhook event received');
        expect(watched.stdout).toContain('completed');
        const refusals = watched.stderr.match(
          /warning: refused a webhook delivery \(\d+\): .*; the watch goes on polling/g,
        );
        expect(refusals, watched.stderr).toHaveLength(1);

        // A port already taken (the server's own): exit 2, and the hint names this command's flag.
        const busy = await runCli(['order', 'watch', placed.id, '--webhook-port', String(server.port)], {
          configDir,
          env: { GIFTCODES_WEBHOOK_SECRET: 'whsec_the_real_one' },
        });
        expect(busy.code, busy.stderr).toBe(2);
        expect(busy.stderr).toContain('is already in use');
        expect(busy.stderr).toContain('choose another --webhook-port (0 picks a free one)');
      },
    );
  });

  it('needs the secret with --webhook-port (exit 2)', async () => {
    const result = await runCli(['order', 'watch', 'ord_x', '--webhook-port', '9']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('GIFTCODES_WEBHOOK_SECRET');
    expect(result.stderr).toContain('--secret-file');
  });
});
