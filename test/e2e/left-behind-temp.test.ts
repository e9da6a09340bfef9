// A run killed while it wrote an order's codes file leaves its temporary file beside that --out (hidden,
// `.<name>.giftcodes-<pid>-<random>.tmp`, 0600) and its writer's lock. The next run that writes the same --out
// sweeps them; one that finishes the order into another file must too: the temporary file holds the order's
// codes, which are cash, in a file the user never sees and never deletes. Each recovery below finishes the
// killed order into b.csv (one charge), and nothing of the killed run is left beside a.csv.
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chargesFor, runCli, servedApi, tempDir } from '../helpers/e2e.js';

const PRODUCT = 'amazon-us-10';
const CODE = /\b[A-Z0-9]{4}(?:-[A-Z0-9]{4}){3}\b/g;

type Recovery = 'place again' | 'codes get' | 'order watch';
const POINTS = ['codes.tmp-written', 'codes.identity-written'] as const;
const RECOVERIES: Recovery[] = ['place again', 'codes get', 'order watch'];
const cases = POINTS.flatMap((point) => RECOVERIES.map((recovery) => ({ point, recovery })));

describe('a killed codes write, then the order finished into another --out: nothing left beside the first', () => {
  const served = servedApi(['--fulfil-after', '50'], { login: true });

  it.concurrent.each(cases.map((c, i) => ({ ...c, i, label: `${c.point} × ${c.recovery}` })))(
    '$label',
    { timeout: 120_000 },
    async ({ point, recovery, i }) => {
      const configDir = tempDir();
      cpSync(served.configDir, configDir, { recursive: true });
      const dir = tempDir();
      const quantity = 40 + i;
      const place = (file: string): string[] => [
        'order',
        'place',
        '--product',
        PRODUCT,
        '--quantity',
        String(quantity),
        '--out',
        join(dir, file),
        '--interval',
        '0.05',
      ];
      const killed = await runCli(place('a.csv'), {
        configDir,
        env: { GIFTCODES_FAILPOINTS: `${point}=kill` },
      });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      // The killed run's leftovers are there (the test would prove nothing otherwise).
      expect(readdirSync(dir).filter((name) => name.startsWith('.a.csv.giftcodes-'))).not.toEqual([]);
      const [orderId] = await chargesFor(served.server, PRODUCT, quantity);
      expect(orderId).toBeDefined();

      const args: Record<Recovery, string[]> = {
        'place again': place('b.csv'),
        'codes get': ['codes', 'get', orderId!, '--out', join(dir, 'b.csv')],
        'order watch': ['order', 'watch', orderId!, '--out', join(dir, 'b.csv'), '--interval', '0.05'],
      };
      const again = await runCli(args[recovery], { configDir });
      expect(again.code, again.stderr).toBe(0);
      expect(readFileSync(join(dir, 'b.csv'), 'utf8').match(CODE)).toHaveLength(quantity);
      expect(await chargesFor(served.server, PRODUCT, quantity)).toEqual([orderId]);
      expect(readdirSync(dir).sort()).toEqual(['b.csv']);
    },
  );
});
