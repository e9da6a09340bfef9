// A preload that sets a CLI process's clock back, as a dual-boot machine or a restored VM does: only Date moves (the
// files' times stay the kernel's).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './e2e.js';

/** A preload (for NODE_OPTIONS `--import=`) that sets the process's clock `hours` back. */
export function clockBack(hours: number): string {
  const file = join(tempDir(), 'clock-back.mjs');
  writeFileSync(
    file,
    `const shift = ${-hours * 3_600_000};
const Real = Date;
const now = Real.now.bind(Real);
class Shifted extends Real {
  constructor(...a) { if (a.length === 0) super(now() + shift); else super(...a); }
  static now() { return now() + shift; }
}
globalThis.Date = Shifted;
`,
  );
  return file;
}
