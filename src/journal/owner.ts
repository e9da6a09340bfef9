// Who holds an intent or the journal lock, and whether that process is still alive. A process is its pid,
// its start time and the boot it runs in, on a machine (its /etc/machine-id): a config directory shared by two
// hosts holds intents whose pid means nothing here, which this machine can neither prove alive nor dead.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { LeftBy } from '../files/codes-temps.js';
import type { Intent } from './intent.js';
import { hostname } from 'node:os';

export interface Owner {
  pid: number;
  /** The process's start time in clock ticks since boot (Linux), so a reused pid is not mistaken for the owner. */
  start?: string | undefined;
  /** /proc/sys/kernel/random/boot_id: a pid and start time mean something only within one boot. */
  boot?: string | undefined;
  /** Written by version 1 intents only; read, never trusted for liveness. */
  host?: string | undefined;
  /** The machine the process runs on (machineId): absent in owners written before it was recorded. */
  machine?: string | undefined;
  /**
   * The pid namespace the process runs in (Linux: /proc/self/ns/pid, `pid:[4026531836]`). A container that shares
   * the config directory and the machine id still numbers its processes apart: its pid means nothing here.
   * Absent in owners written before it was recorded, and where the platform has none.
   */
  pidns?: string | undefined;
}

let machineCache: string | undefined;

/**
 * This machine: /etc/machine-id, else `host:<hostname>`. GIFTCODES_MACHINE_ID overrides it for tests only
 * (two "machines" sharing one config directory on one host); it is no setting for users.
 */
export function machineId(): string {
  const forTests = process.env.GIFTCODES_MACHINE_ID;
  if (forTests) return forTests;
  if (machineCache !== undefined) return machineCache;
  let id = '';
  try {
    id = readFileSync('/etc/machine-id', 'utf8').trim();
  } catch {
    // No machine id (not systemd, a minimal container): the host name stands in.
  }
  machineCache = id || `host:${hostname()}`;
  return machineCache;
}

/**
 * The other machine an owner runs on, or undefined when it is this one (or an owner from before machines were
 * recorded). A process in another pid namespace (a container sharing the directory) counts as one: from here its
 * pid can be proven neither alive nor dead.
 */
export function otherMachine(owner: Owner): string | undefined {
  if (owner.machine !== undefined && owner.machine !== machineId()) return owner.machine;
  const here = pidNamespace();
  if (owner.pidns !== undefined && here !== undefined && owner.pidns !== here)
    return `${owner.machine ?? machineId()}, pid namespace ${owner.pidns}`;
  return undefined;
}

let pidnsCache: string | undefined | null = null;

/** This process's pid namespace (Linux), or undefined where there is none to read. */
export function pidNamespace(): string | undefined {
  if (pidnsCache !== null) return pidnsCache;
  try {
    pidnsCache = readlinkSync('/proc/self/ns/pid') || undefined;
  } catch {
    pidnsCache = undefined;
  }
  return pidnsCache;
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
  const pidns = pidNamespace();
  return {
    pid: process.pid,
    ...(start !== undefined ? { start } : {}),
    ...(boot !== undefined ? { boot } : {}),
    machine: machineId(),
    ...(pidns !== undefined ? { pidns } : {}),
  };
}

export function isSameProcess(a: Owner, b: Owner): boolean {
  return (
    a.pid === b.pid &&
    (a.machine === undefined || b.machine === undefined || a.machine === b.machine) &&
    (a.pidns === undefined || b.pidns === undefined || a.pidns === b.pidns) &&
    sameBoot(a, b) &&
    (a.start === undefined || b.start === undefined || a.start === b.start)
  );
}

function sameBoot(a: Owner, b: Owner): boolean {
  return a.boot === undefined || b.boot === undefined || a.boot === b.boot;
}

/** A live process of another run than this one: a run placing an order beside this one (recover.ts, plan.ts). */
export function anotherLiveRun(owner: Owner): boolean {
  return owner.pid !== process.pid && isAlive(owner);
}

/**
 * Alive only when provably so on this boot: an owner from another boot (a reboot, another host sharing the
 * config directory) is not. A stopped process (SIGSTOP) is alive. A version 1 owner carries a host name
 * instead of a boot id: it is checked by pid and start time here, whatever the name says.
 */
export function isAlive(owner: Owner): boolean {
  // Another machine's pid says nothing here (verbs that take intents over ask otherMachine first).
  if (otherMachine(owner) !== undefined) return false;
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

/** This process's own start time, read once: a plan asked /proc for it three times a row (issue 33). */
let ownStart: { pid: number; start: string | undefined } | undefined;

function processStart(pid: number): string | undefined {
  if (pid !== process.pid) return readStat(pid)?.start;
  if (ownStart?.pid !== pid) ownStart = { pid, start: readStat(pid)?.start };
  return ownStart.start;
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

/** `runs` with `run` among them, once (a run is its file and its pid). */
export function withRun(runs: readonly LeftBy[], run: LeftBy | undefined): LeftBy[] {
  return !run || runs.some((r) => r.path === run.path && r.pid === run.pid) ? [...runs] : [...runs, run];
}

/** The runs of `intent` that are gone (intent.ts leftBy), with its owner's once a new run takes it over. */
export function runsGone(intent: Pick<Intent, 'leftBy' | 'out' | 'owner'>): LeftBy[] {
  return withRun(intent.leftBy ?? [], goneRun(intent));
}

/** The codes file the intent's owner was to write, when that owner is a run of this machine other than this one. */
function goneRun(intent: Pick<Intent, 'out' | 'owner'>): LeftBy | undefined {
  if (intent.out === undefined || intent.out.path === '-') return undefined;
  if (isSameProcess(intent.owner, currentOwner()) || otherMachine(intent.owner) !== undefined) return undefined;
  return { path: intent.out.path, pid: intent.owner.pid };
}
