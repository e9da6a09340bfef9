// An export stopped by a signal between pages (exit 130) says what it left: a file export leaves no file, and
// an export to stdout leaves what it wrote there, which a person may have redirected to a file and must not
// take for the whole order.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { exportCodes } from '../../src/export/write.js';
import { tempDir } from '../helpers/e2e.js';
import type { ApiClient } from '../../src/api/client.js';
import { capturedIo } from '../helpers/inprocess.js';

/** Three pages of one code; the signal comes as the third is asked for (the next page is fetched ahead). */
function interruptedExport(out: string, expected?: number, abortAt = 3) {
  const controller = new AbortController();
  async function* codePages() {
    for (let page = 1; page <= 3; page++) {
      if (page === abortAt) controller.abort(new InterruptedError('interrupted by SIGINT'));
      yield [{ code: `A-${page}` }];
    }
  }
  const captured = capturedIo();
  const result = exportCodes({
    api: { codePages, rawCodePages: codePages } as unknown as ApiClient,
    orderId: 'ord_1',
    out,
    format: 'jsonl',
    force: false,
    csvRaw: false,
    io: captured.io,
    signal: controller.signal,
    expected,
  });
  return { result, out: captured.out };
}

describe('an export interrupted between pages', () => {
  it('to stdout: says stdout holds part of the codes at most (a CSV spool may hold back what was read), and how many were read', async () => {
    const { result, out } = interruptedExport('-', 3);
    await expect(result).rejects.toMatchObject({
      exitCode: 130,
      message:
        'interrupted by SIGINT before the export finished; standard output holds part of the codes at most (1 of 3 were read): it is no complete export',
      hint: 'the order and its codes stay on the server: run the same command again',
    });
    expect(out()).toBe('{"code":"A-1"}\n');
  });

  it('to stdout, the order’s quantity unknown: the count written alone', async () => {
    const { result } = interruptedExport('-');
    await expect(result).rejects.toThrow(
      'before the export finished; standard output holds part of the codes at most (1 of them were read): it is no complete export',
    );
  });

  it('to stdout, before the first page was written: none', async () => {
    const { result, out } = interruptedExport('-', 3, 1);
    await expect(result).rejects.toThrow('; standard output got none of the 3 codes');
    expect(out()).toBe('');
  });

  it('to a file: no file was written, and none is there', async () => {
    const dir = tempDir();
    const { result } = interruptedExport(join(dir, 'codes.jsonl'), 3);
    await expect(result).rejects.toMatchObject({
      exitCode: 130,
      message: 'interrupted by SIGINT before the export finished; no file was written',
    });
    expect(readdirSync(dir)).toEqual([]);
  });
});
