// Who holds an intent, and whether that process is still alive (a dead owner's intent is resumable).
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export interface Owner {
  pid: number;
  /** The process's start time in clock ticks since boot (Linux), so a reused pid is not mistaken for the owner. */
  start?: string | undefined;
  host: string;
}

export function currentOwner(): Owner {
  return { pid: process.pid, start: processStart(process.pid), host: hostname() };
}

export function isSameProcess(a: Owner, b: Owner): boolean {
  return a.pid === b.pid && a.host === b.host && (a.start === undefined || b.start === undefined || a.start === b.start);
}

/** Dead is certain only on this host; an owner on another host (a shared config dir) counts as alive. */
export function isAlive(owner: Owner): boolean {
  if (owner.host !== hostname()) return true;
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
