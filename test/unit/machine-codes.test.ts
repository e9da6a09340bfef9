// OrderMachine.writeCodes and deliveredTo, in-process against the reference server: an identity an earlier run
// recorded but never renamed is taken back before this run writes (or its swept temporary file would read as
// a rename); one whose file never took its place is taken back on failure; a delivered file moved away since
// is never written again.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { LocalError, NetworkError } from '../../src/errors.js';
import { fileIdentity } from '../../src/journal/codes-file.js';
import { keyIdOf, type Intent, type OutSpec } from '../../src/journal/intent.js';
import type { Journal } from '../../src/journal/journal.js';
import { endedRecord } from '../../src/orders/lifecycle.js';
import { OrderMachine } from '../../src/orders/machine.js';
import { type RunningServer } from '../../src/server/index.js';
import { deadPid, tempDir } from '../helpers/e2e.js';
import { capturedIo, clientOf, freshJournal, inProcessServer, KEY } from '../helpers/inprocess.js';

let server: RunningServer;
beforeAll(async () => {
  server = await inProcessServer();
});
afterAll(async () => {
  await server.close();
});

const outTo = (path: string): OutSpec => ({ path, force: false, csvRaw: false, format: 'json' });

/** An accepted, completed order of 2 codes, its intent on disk with `out`. */
async function accepted(j: Journal, out: OutSpec): Promise<{ machine: OrderMachine; api: ApiClient }> {
  const api = clientOf(server.url);
  const { intent } = await j.begin({
    profile: 'default',
    environment: 'test',
    baseUrl: server.url,
    keyId: keyIdOf(KEY),
    productId: 'amazon-us-25',
    quantity: 2,
    out,
  });
  const machine = machineOf(j, intent, api);
  await machine.send();
  return { machine, api };
}

/** A machine for an intent, as a run of its own would make it (its own output, never interrupted). */
function machineOf(journal: Journal, intent: Intent, api: ApiClient = clientOf(server.url)): OrderMachine {
  return new OrderMachine({ io: capturedIo().io, api, journal, signal: new AbortController().signal }, intent);
}

/** An API whose codes fail after the first page (the connection lost). */
function failingCodes(real: ApiClient): ApiClient {
  async function* pages() {
    yield [{ code: 'A-1' }];
    throw new NetworkError('connection reset', { code: 'network_error' });
  }
  return Object.assign(Object.create(real) as ApiClient, { codePages: pages, rawCodePages: pages });
}

describe('writeCodes', () => {
  it("an earlier run's identity that never reached its rename is no delivery, also once the export swept its temporary file: a failure leaves it resumable", async () => {
    const j = freshJournal();
    const dir = tempDir();
    const path = join(dir, 'codes.json');
    const { machine, api } = await accepted(j, outTo(path));
    // The earlier run (now dead) had written its temporary file and recorded it, then died before the rename.
    const temp = join(dir, `.codes.json.giftcodes-${deadPid()}-abcdef012345.tmp`);
    writeFileSync(temp, '[]');
    machine.intent = j.save({ ...machine.intent, files: [fileIdentity(temp, machine.intent.orderId!, path)] });
    const failing = machineOf(j, machine.intent, failingCodes(api));
    await expect(failing.writeCodes(outTo(path))).rejects.toMatchObject({ code: 'network_error' });
    expect(existsSync(temp)).toBe(false);
    expect(j.reached(j.find(machine.intent.key)!)).toBeUndefined();
    // Taken back: the intent names no file, and its next run writes the codes.
    expect(j.find(machine.intent.key)!.files).toEqual([]);
  });

  it('an identity whose file never took its place (a file appeared at the target) is no delivery', async () => {
    const j = freshJournal();
    const path = join(tempDir(), 'codes.json');
    const { machine, api } = await accepted(j, outTo(path));
    async function* pages() {
      yield [{ code: 'A-1' }];
      writeFileSync(path, 'theirs\n');
      yield [{ code: 'A-2' }];
    }
    const planting = Object.assign(Object.create(api) as ApiClient, { codePages: pages, rawCodePages: pages });
    const m = machineOf(j, machine.intent, planting);
    await expect(m.writeCodes(outTo(path))).rejects.toMatchObject({ code: 'out_exists' });
    // Taken back: the identity of the file that never took its place is no longer the intent's.
    expect(j.find(machine.intent.key)!.files).toEqual([]);
    expect(j.reached(j.find(machine.intent.key)!)).toBeUndefined();
  });

  it("a temporary file another interrupted order recorded as its finished codes is not swept by this order's export", async () => {
    const j = freshJournal();
    const dir = tempDir();
    const path = join(dir, 'codes.json');
    // Another order for the same target, whose run died between its recorded temporary file and the rename.
    const other = await accepted(j, outTo(path));
    const theirs = join(dir, `.codes.json.giftcodes-${deadPid()}-abcdef012345.tmp`);
    writeFileSync(theirs, '[]');
    j.save({ ...other.machine.intent, files: [fileIdentity(theirs, other.machine.intent.orderId!, path)] });
    // A dead run's temporary file nobody recorded: swept.
    const stray = join(dir, `.codes.json.giftcodes-${deadPid()}-012345abcdef.tmp`);
    writeFileSync(stray, '[]');
    const { machine } = await accepted(j, outTo(path));
    expect(await machine.writeCodes(outTo(path))).toMatchObject({ path, count: 2 });
    expect(existsSync(theirs)).toBe(true);
    expect(existsSync(stray)).toBe(false);
  });

  it('the identity recorded before the rename holds the count and format, and gains the mark that it was renamed', async () => {
    const j = freshJournal();
    const path = join(tempDir(), 'codes.json');
    const { machine } = await accepted(j, outTo(path));
    const written = await machine.writeCodes(outTo(path));
    expect(written).toMatchObject({ path, count: 2, format: 'json' });
    const [identity] = j.find(machine.intent.key)!.files!;
    expect(identity).toMatchObject({ path, orderId: machine.intent.orderId, count: 2, format: 'json', renamed: true });
  });
});

describe('a codes file renamed into place whose mark could not be written (journal disk full, EIO)', () => {
  /** The journal of `j`, whose asynchronous saves (the note after the rename) fail as a full disk does. */
  function fullAfterRename(j: Journal): Journal {
    return Object.assign(Object.create(j) as Journal, {
      saveAsync: () =>
        Promise.reject(
          Object.assign(
            new LocalError('cannot write the journal: no space left on the device (ENOSPC)', {
              code: 'journal_failed',
            }),
          ),
        ),
    });
  }

  it('the error says the codes are already in the file; the identity and count were recorded before the rename', async () => {
    const j = freshJournal();
    const path = join(tempDir(), 'codes.json');
    const { machine, api } = await accepted(j, outTo(path));
    const m = machineOf(fullAfterRename(j), machine.intent, api);
    const error = await m.writeCodes(outTo(path)).catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: 8,
      code: 'journal_failed',
      message: `cannot write the journal: no space left on the device (ENOSPC); the codes of order ${machine.intent.orderId} are already in ${path} (written once, do not write them again)`,
    });
    expect((error as { hint: string }).hint).toBe(
      `keep ${path}; once the journal can be written: giftcodes order resume ${machine.intent.key}  (it finds the file and writes nothing)`,
    );
    expect(JSON.parse(readFileSync(path, 'utf8'))).toHaveLength(2);
    const [identity] = j.find(machine.intent.key)!.files!;
    expect(identity).toMatchObject({ path, count: 2, format: 'json' });
    expect(identity!.renamed).toBeUndefined();
  });

  it('moved away since: the next run stops (exit 2, codes_file_unaccounted) instead of writing the codes again', async () => {
    const j = freshJournal();
    const dir = tempDir();
    const path = join(dir, 'codes.json');
    const { machine, api } = await accepted(j, outTo(path));
    const m = machineOf(fullAfterRename(j), machine.intent, api);
    await expect(m.writeCodes(outTo(path))).rejects.toMatchObject({ exitCode: 8 });
    renameSync(path, join(dir, 'sold.json'));
    const intent = j.find(machine.intent.key)!;
    const again = machineOf(j, intent, api);
    const error = await again.writeCodes(outTo(path)).catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: 2, code: 'codes_file_unaccounted' });
    const { orderId, key } = machine.intent;
    expect(error).toMatchObject({
      message: `the codes of order ${orderId} (2) were written for ${path} by an earlier run, and neither that file nor its temporary file holds them now: they may already have reached you, so they are not written again`,
      hint: `if you have them, end it with: giftcodes order abandon ${key}   to write them again anyway: giftcodes codes get ${orderId} --out CODES_FILE`,
    });
    expect(existsSync(path)).toBe(false);
    // Still there unchanged: the earlier delivery, left as it was.
    renameSync(join(dir, 'sold.json'), path);
    expect(await again.writeCodes(outTo(path))).toMatchObject({ path, count: 2, earlier: true });
  });

  it('an unaccounted identity without its count (recorded before the rename by older versions) names the quantity ordered', async () => {
    const j = freshJournal();
    const dir = tempDir();
    const path = join(dir, 'codes.json');
    const { machine, api } = await accepted(j, outTo(path));
    const temp = join(dir, `.codes.json.giftcodes-${deadPid()}-abcdef012345.tmp`);
    writeFileSync(temp, '[]');
    const identity = fileIdentity(temp, machine.intent.orderId!, path);
    rmSync(temp);
    const intent = j.save({ ...machine.intent, files: [identity] });
    const again = machineOf(j, intent, api);
    const error = await again.writeCodes(outTo(path)).catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: 2, code: 'codes_file_unaccounted' });
    expect((error as Error).message).toContain(`the codes of order ${intent.orderId} (2) were written for ${path}`);
  });

  it('a failure of any kind of the note after the rename says the codes are already in the file (journal_failed)', async () => {
    const j = freshJournal();
    const path = join(tempDir(), 'codes.json');
    const { machine, api } = await accepted(j, outTo(path));
    const broken = Object.assign(Object.create(j) as Journal, {
      saveAsync: () => Promise.reject(new Error('EIO: i/o error, write')),
    });
    const m = machineOf(broken, machine.intent, api);
    const error = await m.writeCodes(outTo(path)).catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: 8,
      code: 'journal_failed',
      message: `EIO: i/o error, write; the codes of order ${machine.intent.orderId} are already in ${path} (written once, do not write them again)`,
    });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toHaveLength(2);
  });

  it('its temporary file still there (killed before the rename): the identity is taken back and the codes written', async () => {
    const j = freshJournal();
    const dir = tempDir();
    const path = join(dir, 'codes.json');
    const { machine, api } = await accepted(j, outTo(path));
    const temp = join(dir, `.codes.json.giftcodes-${deadPid()}-abcdef012345.tmp`);
    writeFileSync(temp, '[]');
    machine.intent = j.save({
      ...machine.intent,
      files: [{ ...fileIdentity(temp, machine.intent.orderId!, path), count: 2, format: 'json' }],
    });
    const again = machineOf(j, machine.intent, api);
    expect(await again.writeCodes(outTo(path))).toMatchObject({ path, count: 2 });
    expect(j.find(machine.intent.key)!.files).toEqual([expect.objectContaining({ path, count: 2, renamed: true })]);
  });
});

describe('deliveredTo', () => {
  /** Codes written to codes.json, the delivery recorded, then the file moved away (sold.json). */
  const deliveredThenMoved = async (): Promise<{ j: Journal; path: string; intent: Intent }> => {
    const j = freshJournal();
    const dir = tempDir();
    const path = join(dir, 'codes.json');
    const { machine } = await accepted(j, outTo(path));
    await machine.writeCodes(outTo(path));
    renameSync(path, join(dir, 'sold.json'));
    const intent: Intent = j.find(machine.intent.key)!;
    await j.recordDelivery([endedRecord(intent, 'delivered', Date.now())]);
    return { j, path, intent };
  };

  it("a delivered file moved away since is still this intent's delivery: never written again", async () => {
    const { j, path, intent } = await deliveredThenMoved();
    const again = machineOf(j, intent);
    expect(again.deliveredTo(path)).toMatchObject({ path, count: 2 });
    expect(await again.writeCodes(outTo(path))).toEqual({ path, count: 2, format: 'json', earlier: true });
    expect(existsSync(path)).toBe(false);
    // Codes to stdout are never an earlier delivery.
    expect(again.deliveredTo('-')).toBeUndefined();
  });

  it('before the intent reached the user, an identity is no delivery unless its file is there unchanged', async () => {
    const j = freshJournal();
    const dir = tempDir();
    const path = join(dir, 'codes.json');
    const { machine } = await accepted(j, outTo(path));
    // Recorded, never renamed: its temporary file is still there.
    const temp = join(dir, `.codes.json.giftcodes-${process.pid}-abcdef012345.tmp`);
    writeFileSync(temp, '[]');
    machine.intent = j.save({ ...machine.intent, files: [fileIdentity(temp, machine.intent.orderId!, path)] });
    expect(j.reached(machine.intent)).toBeUndefined();
    expect(machine.deliveredTo(path)).toBeUndefined();
  });

  it('after the intent reached the user: a file recorded for another order is not its delivery, and no file recorded is none', async () => {
    const { j, path, intent } = await deliveredThenMoved();
    const deps = { io: capturedIo().io, api: clientOf(server.url), journal: j, signal: new AbortController().signal };
    const { files: _files, ...bare } = intent;
    expect(j.reached(bare)).toBe('delivered');
    expect(new OrderMachine(deps, bare).deliveredTo(path)).toBeUndefined();
    const another = { ...intent, files: intent.files!.map((f) => ({ ...f, orderId: 'ord_another' })) };
    expect(new OrderMachine(deps, another).deliveredTo(path)).toBeUndefined();
  });
});

describe('codes to stdout (--out -)', () => {
  const toStdout = (stdout: Writable) => capturedIo({ stdout }).io;
  const failing = (code?: string) =>
    new Writable({
      write(_chunk, _e, callback) {
        callback(Object.assign(new Error('write failed'), code ? { code } : {}));
      },
    });

  it('every code written: delivered, no file identity', async () => {
    const j = freshJournal();
    const { machine } = await accepted(j, outTo('-'));
    let out = '';
    const stdout = new Writable({ write: (chunk, _e, callback) => ((out += String(chunk)), callback()) });
    const m = new OrderMachine(
      { io: toStdout(stdout), api: clientOf(server.url), journal: j, signal: new AbortController().signal },
      machine.intent,
    );
    expect(await m.writeCodes(outTo('-'))).toMatchObject({ path: '-', count: 2 });
    expect(JSON.parse(out)).toHaveLength(2);
    expect(j.find(machine.intent.key)!.files ?? []).toEqual([]);
  });

  it('the reader gone before every code was written: exit 8 output_failed, counted, the intent kept', async () => {
    const j = freshJournal();
    const { machine } = await accepted(j, outTo('-'));
    const m = new OrderMachine(
      { io: toStdout(failing('EPIPE')), api: clientOf(server.url), journal: j, signal: new AbortController().signal },
      machine.intent,
    );
    const error = await m.writeCodes(outTo('-')).catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: 8, code: 'output_failed' });
    // What is known: the codes handed to the pipe, not those its reader read.
    expect((error as Error).message).toBe(
      `could not write the codes of order ${machine.intent.orderId} to standard output: the reader closed the pipe; 0 of 2 codes were handed to it, how many it read is not known; it was placed`,
    );
    expect(j.find(machine.intent.key)).toMatchObject({ phase: 'accepted' });
  });

  it.each([
    ['ENOSPC', 'no space left on the device'],
    ['EIO', 'EIO'],
    [undefined, 'write failed'],
  ])('a stdout that fails (%s) is exit 8 in words: %s', async (code, why) => {
    const j = freshJournal();
    const { machine } = await accepted(j, outTo('-'));
    const m = new OrderMachine(
      { io: toStdout(failing(code)), api: clientOf(server.url), journal: j, signal: new AbortController().signal },
      machine.intent,
    );
    const error = await m.writeCodes(outTo('-')).catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: 8, code: 'output_failed' });
    expect((error as Error).message).toBe(
      `could not write the codes to standard output (${why}); order ${machine.intent.orderId} was placed`,
    );
  });

  // CSV to stdout is put in column order in a temporary file, read back once every page arrived. That file
  // failing on the way back (cut short: a TMPDIR cleaner, an I/O error) is a local resource failing, exit 8 with
  // the order's resume hint, as it was while the machine wrapped every raw error of --out -; not "unexpected
  // internal error" (exit 1), which names no order to resume.
  it('the CSV spool that fails while read back: exit 8 naming the temporary file, the intent kept', async () => {
    const j = freshJournal();
    const { machine } = await accepted(j, outTo('-'));
    const tmp = tempDir();
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      // The header is the first byte written, after every page went into the spool: then the spool is cut.
      const stdout = new Writable({
        write(_chunk, _e, callback) {
          for (const name of readdirSync(tmp)) truncateSync(join(tmp, name), 0);
          callback();
        },
      });
      const m = new OrderMachine(
        { io: toStdout(stdout), api: clientOf(server.url), journal: j, signal: new AbortController().signal },
        machine.intent,
      );
      const error = await m.writeCodes({ ...outTo('-'), format: 'csv' }).catch((e: unknown) => e);
      expect(error).toMatchObject({ exitCode: 8 });
      expect((error as Error).message).toMatch(
        new RegExp(
          `^cannot read the temporary CSV file ${tmp}/giftcodes-spool-\\S+: .*; order ${machine.intent.orderId} was placed$`,
        ),
      );
      expect(j.find(machine.intent.key)).toMatchObject({ phase: 'accepted' });
    } finally {
      process.env.TMPDIR = saved;
      if (saved === undefined) delete process.env.TMPDIR;
    }
  });
});
