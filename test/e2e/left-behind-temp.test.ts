// A run killed while it wrote an order's codes file leaves its temporary file beside that --out (hidden,
// `.<name>.giftcodes-<pid>-<random>.tmp`, 0600) and its writer's lock. The next run that writes the same --out
// sweeps them; one that finishes the order into another file must too: the temporary file holds the order's
// codes, which are cash, in a file the user never sees and never deletes. Each recovery below finishes the
// killed order into b.csv (one charge), and nothing of the killed run is left beside a.csv.
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chargesFor, configCopy, journalIntents, runCli, servedApi, tempDir } from '../helpers/e2e.js';

const PRODUCT = 'amazon-us-10';
const CODE = /\b[A-Z0-9]{4}(?:-[A-Z0-9]{4}){3}\b/g;

/** `order place` of `quantity` codes into `file` in `dir`. */
const place = (dir: string, file: string, quantity: number): string[] => [
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
      const configDir = configCopy(served.configDir);
      const dir = tempDir();
      const quantity = 40 + i;
      const killed = await runCli(place(dir, 'a.csv', quantity), {
        configDir,
        env: { GIFTCODES_FAILPOINTS: `${point}=kill` },
      });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      // The killed run's leftovers are there (the test would prove nothing otherwise).
      expect(readdirSync(dir).filter((name) => name.startsWith('.a.csv.giftcodes-'))).not.toEqual([]);
      const [orderId] = await chargesFor(served.server, PRODUCT, quantity);
      expect(orderId).toBeDefined();

      const args: Record<Recovery, string[]> = {
        'place again': place(dir, 'b.csv', quantity),
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

describe('the run that finishes it dies too, after its own file is in place: the next run still sweeps', () => {
  const served = servedApi(['--fulfil-after', '50'], { login: true });
  // Failed before the sweep moved to the order's end: a third run found the codes delivered to b.csv (the second run
  // died after its rename) and returned early, leaving the first run's temporary file and lock beside a.csv for good.
  const cases = (['codes.committed', 'codes.renamed'] as const).flatMap((point) =>
    (['place again', 'order resume'] as const).map((third) => ({ point, third })),
  );
  it.concurrent.each(cases.map((c, i) => ({ ...c, i, label: `${c.point} × ${c.third}` })))(
    '$label',
    { timeout: 120_000 },
    async ({ point, third, i }) => {
      const configDir = configCopy(served.configDir);
      const dir = tempDir();
      const quantity = 60 + i;
      const first = await runCli(place(dir, 'a.csv', quantity), {
        configDir,
        env: { GIFTCODES_FAILPOINTS: 'codes.tmp-written=kill' },
      });
      expect(first.signal, first.stderr).toBe('SIGKILL');
      const second = await runCli(place(dir, 'b.csv', quantity), {
        configDir,
        env: { GIFTCODES_FAILPOINTS: `${point}=kill` },
      });
      expect(second.signal, second.stderr).toBe('SIGKILL');
      expect(readdirSync(dir).filter((name) => name.startsWith('.a.csv.giftcodes-'))).not.toEqual([]);
      const [intent] = journalIntents(configDir);
      const args = { 'place again': place(dir, 'b.csv', quantity), 'order resume': ['order', 'resume', intent!.key] }[
        third
      ];
      const again = await runCli(args, { configDir });
      expect(again.code, again.stderr).toBe(0);
      expect(readFileSync(join(dir, 'b.csv'), 'utf8').match(CODE)).toHaveLength(quantity);
      expect(await chargesFor(served.server, PRODUCT, quantity)).toHaveLength(1);
      expect(journalIntents(configDir)).toEqual([]);
      expect(readdirSync(dir).sort()).toEqual(['b.csv']);
    },
  );
});

describe('abandoned, or another config directory', () => {
  const served = servedApi(['--fulfil-after', '50'], { login: true });

  it('an order abandoned after a killed write: its temporary file (the codes) goes with it', async () => {
    const configDir = configCopy(served.configDir);
    const dir = tempDir();
    const killed = await runCli(place(dir, 'a.csv', 81), {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'codes.tmp-written=kill' },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const [intent] = journalIntents(configDir);
    const abandoned = await runCli(['order', 'abandon', intent!.key, '--yes'], { configDir });
    expect(abandoned.code, abandoned.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });

  // Failed before the sweep went by the pids of the order's own runs: a run finishing its order into b.csv removed
  // the temporary file another config directory's journal recorded beside a.csv, and that order's next run stopped
  // (exit 2, "neither that file nor its temporary file holds them now") until finished by hand (a review).
  it("never another order's temporary file, whichever journal records it", async () => {
    const [one, two] = [tempDir(), tempDir()];
    cpSync(served.configDir, one, { recursive: true });
    cpSync(served.configDir, two, { recursive: true });
    const dir = tempDir();
    const killedOne = await runCli(place(dir, 'a.csv', 82), {
      configDir: one,
      env: { GIFTCODES_FAILPOINTS: 'codes.tmp-written=kill' },
    });
    expect(killedOne.signal, killedOne.stderr).toBe('SIGKILL');
    const killedTwo = await runCli(place(dir, 'a.csv', 83), {
      configDir: two,
      env: { GIFTCODES_FAILPOINTS: 'codes.identity-written=kill' },
    });
    expect(killedTwo.signal, killedTwo.stderr).toBe('SIGKILL');
    const finishedOne = await runCli(place(dir, 'b.csv', 82), { configDir: one });
    expect(finishedOne.code, finishedOne.stderr).toBe(0);
    const finishedTwo = await runCli(place(dir, 'a.csv', 83), { configDir: two });
    expect(finishedTwo.code, finishedTwo.stderr).toBe(0);
    expect(readFileSync(join(dir, 'a.csv'), 'utf8').match(CODE)).toHaveLength(83);
    expect(readdirSync(dir).sort()).toEqual(['a.csv', 'b.csv']);
  });
});
