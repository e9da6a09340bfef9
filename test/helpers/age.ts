// The real age tool for the encrypted codes tests: Debian's age package, installed when missing (as root, the way CI
// images run the tests); a machine that has not got it and cannot install it fails those tests, never skips them.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { tempDir } from './e2e.js';

/** `age` and `age-keygen` from Debian's package, installed when missing; a machine that cannot install them fails. */
export function ensureAge(): void {
  const has = (tool: string): boolean => {
    try {
      execFileSync(tool, ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  if (has('age') && has('age-keygen')) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    execFileSync('apt-get', ['install', '-y', '-qq', 'age'], { stdio: 'ignore', env });
  } catch {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env });
    execFileSync('apt-get', ['install', '-y', '-qq', 'age'], { stdio: 'ignore', env });
  }
  if (!has('age') || !has('age-keygen'))
    throw new Error('the age tool (Debian package age) is needed by these tests and could not be installed');
}

/** A fresh key pair from age-keygen: the identity file and its recipient. */
export function keyPair(dir = tempDir()): { identity: string; recipient: string } {
  const identity = join(dir, `key-${Math.random().toString(36).slice(2)}.txt`);
  execFileSync('age-keygen', ['-o', identity], { stdio: 'ignore' });
  const recipient = execFileSync('age-keygen', ['-y', identity], { encoding: 'utf8' }).trim();
  return { identity, recipient };
}

/** `age -d -i identity file`: the plaintext, as bytes. */
export function ageDecrypt(identity: string, file: string): Buffer {
  return execFileSync('age', ['-d', '-i', identity, file]);
}
