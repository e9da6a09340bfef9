// The suite's key-leak check (test/helpers/leaks.ts), run after every test file: it finds a registered key in a
// recorded output, and a file's check reads only the runs recorded since the last one, as files may share a
// worker's modules (vitest.config.ts) and a leak must be blamed on the file that made it, once.
import { describe, expect, it } from 'vitest';
import { recordOutput, registerSecret, takeLeaks } from '../helpers/leaks.js';

describe('the key-leak check', () => {
  it('finds a registered key in stdout or stderr, names the command and shows only the key’s start', () => {
    registerSecret('sc_test_leakcheck_5e1b2a');
    recordOutput('giftcodes ping', 'fine', '');
    recordOutput('giftcodes config get', '', 'key sc_test_leakcheck_5e1b2a\n');
    expect(takeLeaks()).toEqual([{ command: 'giftcodes config get', secret: 'sc_test_le…' }]);
  });

  it('forgets the outputs it read: the next check does not report them again', () => {
    registerSecret('sc_test_leakcheck_9c3d4f');
    recordOutput('giftcodes whoami', 'sc_test_leakcheck_9c3d4f', '');
    expect(takeLeaks()).toHaveLength(1);
    expect(takeLeaks()).toEqual([]);
  });

  it('ignores strings too short to be a key', () => {
    registerSecret('short');
    recordOutput('giftcodes version', 'short', '');
    expect(takeLeaks()).toEqual([]);
  });
});
