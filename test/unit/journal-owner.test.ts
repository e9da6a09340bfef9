// Who a process is, read from the machine itself: what an intent and the journal lock write as their owner, and
// how two owners are told apart. Each value is checked against the file it comes from, so a wrong path, a missing
// trim or a field counted wrong is seen here, not first as an intent that cannot be resumed.
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  bootId,
  currentOwner,
  isSameProcess,
  leftByDead,
  machineId,
  otherMachine,
  pidNamespace,
} from '../../src/journal/owner.js';

const linux = process.platform === 'linux';
const fileText = (path: string): string | undefined =>
  existsSync(path) ? readFileSync(path, 'utf8').trim() : undefined;

describe('this process as an owner', () => {
  it('its machine is /etc/machine-id, trimmed, else host:<hostname>', () => {
    expect(process.env.GIFTCODES_MACHINE_ID).toBeUndefined();
    expect(machineId()).toBe(fileText('/etc/machine-id') || `host:${hostname()}`);
  });

  it.runIf(linux)('its boot is the kernel boot id, trimmed, and its pid namespace the link /proc/self/ns/pid', () => {
    expect(bootId()).toBe(fileText('/proc/sys/kernel/random/boot_id'));
    expect(bootId()).toMatch(/^[0-9a-f-]{36}$/);
    expect(pidNamespace()).toBe(readlinkSync('/proc/self/ns/pid'));
  });

  it.runIf(linux)(
    'carries its pid, its start time (field 22 of /proc/self/stat), boot, machine and pid namespace',
    () => {
      const stat = readFileSync(`/proc/${process.pid}/stat`, 'utf8');
      const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
      expect(start).toMatch(/^\d+$/);
      expect(currentOwner()).toEqual({
        pid: process.pid,
        start,
        boot: bootId(),
        machine: machineId(),
        pidns: pidNamespace(),
      });
      // Read once and kept: the same on every call.
      expect(currentOwner()).toEqual(currentOwner());
    },
  );
});

describe('two owners', () => {
  it('in two pid namespaces are two processes, whatever their pids', () => {
    const me = currentOwner();
    expect(isSameProcess(me, { ...me })).toBe(true);
    expect(isSameProcess(me, { ...me, pidns: 'pid:[1]' })).toBe(false);
    expect(isSameProcess(me, { pid: me.pid })).toBe(true);
  });

  it.runIf(linux)('an owner in another pid namespace is on "another machine", even with no machine of its own', () => {
    const here = pidNamespace();
    expect(otherMachine({ pid: 1, pidns: 'pid:[1]' })).toBe(`${machineId()}, pid namespace pid:[1]`);
    expect(otherMachine({ pid: 1, machine: machineId(), pidns: 'pid:[1]' })).toBe(
      `${machineId()}, pid namespace pid:[1]`,
    );
    expect(otherMachine({ pid: 1, machine: 'elsewhere', pidns: here })).toBe('elsewhere');
    expect(otherMachine({ pid: 1, pidns: here })).toBeUndefined();
    expect(otherMachine({ pid: 1 })).toBeUndefined();
  });
});

describe('leftByDead', () => {
  it('finds nothing in a directory that cannot be read', () => {
    expect(leftByDead('/nonexistent/giftcodes-test', () => 1)).toEqual([]);
  });
});
