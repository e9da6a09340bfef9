// The temporary files a codes file is written through (export/write.ts): `.<name>.giftcodes-<pid>-<12 hex>.tmp`
// beside its target, 0600, renamed into place once complete. A run killed before its rename leaves one, which holds
// the codes (in plaintext, unless encrypted): the next run that writes the same target removes it, and the journal
// removes those of an order's runs that are gone when the order ends, wherever its codes went (sweepLeftBy).
// Small on purpose: the journal loads it, and the journal is loaded by every order command.
import { existsSync, readdirSync, unlinkSync } from 'node:fs';
import { randomBytes } from '../random.js';
import { basename, dirname, join } from 'node:path';
import { lockOutTarget, outLockPath } from '../export/out-lock.js';
import { pidAlive } from '../journal/owner.js';

/** `.codes.csv.giftcodes-`: temporary files of a target share this prefix, then `<pid>-<random>.tmp`. */
export function tempPrefix(target: string): string {
  return `.${basename(target)}.giftcodes-`;
}

/** A temporary file of this process under `prefix` in `dir`: `<prefix><pid>-<12 hex>.tmp`, the name tempPid reads. */
export function tempPath(dir: string, prefix: string): string {
  return join(dir, `${prefix}${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * The writer's pid in a temporary file's name after its prefix, when the rest is exactly `<pid>-<12 hex>.tmp`: a
 * target whose own name begins as another's temporary files do (`a.csv.giftcodes-4000000-z.csv`) has temporary
 * files that share that prefix, and their pid is further on (a review had a live writer's file taken for pid 4000000's).
 */
export function tempPid(rest: string): number | undefined {
  const pid = Number(/^(\d+)-[0-9a-f]{12}\.tmp$/.exec(rest)?.[1]);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Temporary files left by a process that died (SIGKILL, power loss); a live process's are its own. `only`: just
 * those of these pids. `keep`: a file the journal still records (the next run of its order reads it).
 */
export function removeStaleTemps(
  dir: string,
  prefix: string,
  keep?: (path: string) => boolean,
  only?: ReadonlySet<number>,
): void {
  removeStale(dir, prefix, tempPid, keep, only);
}

/** Files of `dir` named `prefix` then what `pidOf` reads a dead writer's pid from (see removeStaleTemps). */
function removeStale(
  dir: string,
  prefix: string,
  pidOf: (rest: string) => number | undefined,
  keep?: (path: string) => boolean,
  only?: ReadonlySet<number>,
): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = pidOf(name.slice(prefix.length));
    if (pid === undefined || pid === process.pid || (only && !only.has(pid)) || pidAlive(pid)) continue;
    if (keep?.(join(dir, name))) continue;
    try {
      unlinkSync(join(dir, name));
    } catch {
      // Another run removed it first, or it is not ours to remove.
    }
  }
}

/**
 * A comparison copy of the codes `codes get` (or an order's run) writes beside an existing file to tell whether it
 * holds them already (orders/recover.ts): `.<name>.giftcodes-check-<pid>-<12 hex>.tmp`, itself written through a
 * temporary file of its own, `..<name>.giftcodes-check-<pid>-<12 hex>.tmp.giftcodes-<pid>-<12 hex>.tmp`. Both hold
 * every code; a run killed during the comparison left them, under names no sweep knew (a review).
 */
export function checkPath(target: string): string {
  return tempPath(dirname(target), checkPrefix(target));
}

function checkPrefix(target: string): string {
  return `.${basename(target)}.giftcodes-check-`;
}

/**
 * What dead runs left beside `target`: its temporary files (removeStaleTemps) and comparison copies with theirs.
 * `keep` and `only` as removeStaleTemps takes them.
 */
export function removeStaleFor(target: string, keep?: (path: string) => boolean, only?: ReadonlySet<number>): void {
  const dir = dirname(target);
  removeStaleTemps(dir, tempPrefix(target), keep, only);
  removeStaleTemps(dir, checkPrefix(target), undefined, only);
  // Each copy's own temporary file: `<pid>-<12 hex>.tmp.giftcodes-<the same pid>-<12 hex>.tmp` after the dot.
  removeStale(dir, `.${checkPrefix(target)}`, copyTempPid, undefined, only);
}

function copyTempPid(rest: string): number | undefined {
  const [check, temp] = rest.split('.tmp.giftcodes-');
  const pid = tempPid(`${check}.tmp`);
  return temp !== undefined && tempPid(temp) === pid ? pid : undefined;
}

/** A run of an order that is gone: the codes file it was to write, and its pid (which names its temporary files). */
export interface LeftBy {
  path: string;
  pid: number;
}

/**
 * What runs of an ended order that are gone left beside the codes files they were to write: their temporary files
 * (only theirs, by pid: another order's, or another config directory's, is not this order's to judge) and the
 * target's lock, once its holder is dead. A file that cannot be removed is left, as removeStaleTemps leaves it.
 */
export function sweepLeftBy(runs: readonly LeftBy[], keep?: (path: string) => boolean): void {
  const byPath = new Map<string, Set<number>>();
  for (const { path, pid } of runs) {
    byPath.set(path, (byPath.get(path) ?? new Set()).add(pid));
  }
  for (const [path, pids] of byPath) {
    removeStaleFor(path, keep, pids);
    if (!existsSync(outLockPath(path))) continue;
    try {
      // Taken and let go: a dead holder's lock is broken on the way (out-lock.ts); a live one's stays.
      lockOutTarget(path).release();
    } catch {
      // A live writer holds it, or the directory refuses: left as it is.
    }
  }
}
