// The failpoint actions a test asks for in GIFTCODES_FAILPOINTS, in this process: `wait:<file>` holds the step
// until the test creates the file (an event, never a duration), announced on stderr before it holds.
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../helpers/e2e.js';

/** The module as a process started with `spec` in its environment sees it (the table is parsed once per process). */
async function withSpec(spec: string): Promise<typeof import('../../src/failpoints.js')> {
  vi.stubEnv('GIFTCODES_FAILPOINTS', spec);
  vi.resetModules();
  return import('../../src/failpoints.js');
}

/** Lets timers and I/O callbacks run a few times: a wait that does not depend on the file would have ended. */
const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setTimeout(resolve, 20));
};

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('failpoint wait:<file>', () => {
  it('holds the step until the file exists, says so on stderr first, and lets other steps through', async () => {
    const release = join(tempDir(), 'go');
    const said: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (said.push(String(chunk)), true));
    const { failpoint } = await withSpec(`request.sent=wait:${release}`);
    let passed = false;
    const held = failpoint('request.sent').then(() => (passed = true));
    await failpoint('intent.written');
    await turns(5);
    expect(passed).toBe(false);
    expect(said).toEqual([`failpoint request.sent: wait for ${release}\n`]);
    writeFileSync(release, '');
    await held;
    expect(passed).toBe(true);
    // Once released, the step passes at once every later time.
    await failpoint('request.sent');
  });

  it('a path with "=" in it is the whole file name; several actions side by side', async () => {
    const release = join(tempDir('giftcodes-a=b-'), 'go');
    writeFileSync(release, '');
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const { failpoint, failpointSync } = await withSpec(`delivered=pause:1, journal.locked=wait:${release}`);
    failpointSync('journal.locked');
    await failpoint('delivered');
    expect(vi.mocked(process.stderr.write).mock.calls.map(([chunk]) => String(chunk))).toEqual([
      `failpoint journal.locked: wait for ${release}\n`,
      'failpoint delivered: pause 1 ms\n',
    ]);
  });

  it('an empty wait or an unknown action is no failpoint at all', async () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const { failpoint, failpointSync } = await withSpec('request.sent=wait:,resolved=later,=kill,delivered');
    await failpoint('request.sent');
    await failpoint('resolved');
    failpointSync('delivered');
    expect(write).not.toHaveBeenCalled();
  });

  it('in synchronous code the wait blocks the whole process until another process creates the file', async () => {
    const release = join(tempDir(), 'go');
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const { failpointSync } = await withSpec(`journal.locked=wait:${release}`);
    // The creator is another process: this one cannot run anything while it is blocked.
    const creator = spawn('sh', ['-c', `sleep 0.3; : > '${release}'`], { stdio: 'ignore' });
    const exited = new Promise((resolve) => creator.once('exit', resolve));
    failpointSync('journal.locked');
    expect(existsSync(release)).toBe(true);
    await exited;
  });
});
