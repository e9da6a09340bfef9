// Who holds an intent or the journal lock, and whether that process is still alive. A process is its pid,
// its start time and the boot it runs in; never the host's name (a renamed host, a shared config directory).
import { readdirSync, readFileSync } from 'node:fs';

export interface Owner {
  pid: number;
  /** The process's start time in clock ticks since boot (Linux), so a reused pid is not mistaken for the owner. */
  start?: string | undefined;
  /** /proc/sys/kernel/random/boot_id: a pid and start time mean something only within one boot. */
  boot?: string | undefined;
  /** Written by version 1 intents only; read, never trusted for liveness. */
  host?: string | undefined;
}

let bootCache: string | undefined | null = null;

export function bootId(): string | undefined {
  if (bootCache !== null) return bootCache;
  try {
    bootCache = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    bootCache = undefined;
  }
  return bootCache;
}

export function currentOwner(): Owner {
  const boot = bootId();
  const start = processStart(process.pid);
  return { pid: process.pid, ...(start !== undefined ? { start } : {}), ...(boot !== undefined ? { boot } : {}) };
}

export function isSameProcess(a: Owner, b: Owner): boolean {
  return a.pid === b.pid && sameBoot(a, b) && (a.start === undefined || b.start === undefined || a.start === b.start);
}

function sameBoot(a: Owner, b: Owner): boolean {
  return a.boot === undefined || b.boot === undefined || a.boot === b.boot;
}

/**
 * Alive only when provably so on this boot: an owner from another boot (a reboot, another host sharing the
 * config directory) is not. A stopped process (SIGSTOP) is alive. A version 1 owner carries a host name
 * instead of a boot id: it is checked by pid and start time here, whatever the name says.
 */
export function isAlive(owner: Owner): boolean {
  const here = bootId();
  if (owner.boot !== undefined && here !== undefined && owner.boot !== here) return false;
  if (owner.pid === process.pid) return owner.start === undefined || owner.start === processStart(process.pid);
  if (!pidAlive(owner.pid)) return false;
  const stat = readStat(owner.pid);
  if (stat === undefined) return true;
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return owner.start === undefined || stat.start === owner.start;
}

/** Whether a process with this pid exists (one of another user's counts). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The names in `dir` that a process now dead made, by the pid `pidOf` reads from each name (undefined: not
 * such a name): temporary files and directories a kill left behind. Never this process's; a reused pid only
 * keeps its name longer.
 */
export function leftByDead(dir: string, pidOf: (name: string) => number | undefined): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((name) => {
    const pid = pidOf(name);
    return pid !== undefined && pid !== process.pid && !pidAlive(pid);
  });
}

function processStart(pid: number): string | undefined {
  return readStat(pid)?.start;
}

function readStat(pid: number): { state: string; start: string } | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields are counted after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const state = fields[0];
    const start = fields[19];
    return state && start ? { state, start } : undefined;
  } catch {
    return undefined;
  }
}
