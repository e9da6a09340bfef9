// node:crypto only where a command needs what only it has (a hash, a cipher, a UUID): loading it is seventeen modules
// and ~2.5 MiB of a run's peak RSS (BENCHMARKS.md, issue 33). The random bytes of temporary names, a lock's token
// and the code tally's seeds come from the system's own generator, /dev/urandom, where there is one (the kernel's
// CSPRNG, which OpenSSL's generator itself seeds from); elsewhere (Windows), or where it cannot be read, from
// node:crypto as before.
import type * as Crypto from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/** node:crypto, loaded on first use. */
export function nodeCrypto(): typeof Crypto {
  return load('node:crypto') as typeof Crypto;
}

/** Whether /dev/urandom is worth trying (false once it failed: the rest of the run asks node:crypto). */
let systemSource = process.platform !== 'win32';

/** `size` cryptographically random bytes. */
export function randomBytes(size: number): Buffer {
  if (systemSource) {
    const bytes = Buffer.allocUnsafe(size);
    if (fillFromSystem(bytes)) return bytes;
    systemSource = false;
  }
  return nodeCrypto().randomBytes(size);
}

/** Fills `bytes` from /dev/urandom; false when it cannot be opened or read whole. */
function fillFromSystem(bytes: Buffer): boolean {
  let fd: number | undefined;
  try {
    fd = openSync('/dev/urandom', 'r');
    for (let done = 0; done < bytes.length;) {
      const read = readSync(fd, bytes, done, bytes.length - done, null);
      if (read <= 0) return false;
      done += read;
    }
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
