// Stopping a guided order (src/orders/guided.ts): Ctrl-C at any of its questions says what "n" at its confirmation
// says, `cancelled: nothing was sent`, exit 130 (docs/exit-codes.md). Ctrl-C at the product picker printed
// "cancelled at the prompt; nothing was saved or sent" instead (a usability review).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import type { Product } from '../../src/api/schemas.js';
import type { Connection } from '../../src/config/resolve.js';
import { ExitCode, InterruptedError } from '../../src/errors.js';
import { guidedOrder } from '../../src/orders/guided.js';
import { Io } from '../../src/output/io.js';

const products = [
  { id: 'amazon-us-10', brand: 'Amazon', price: { amount: 1000, currency: 'USD' } },
] as unknown as Product[];
const connection = { environment: 'test', profile: 'default' } as unknown as Connection;

/** A guided order at a terminal whose keys are `typed`, one string at a time, each a little after the last. */
async function guided(typed: readonly string[], given: { product?: string; quantity?: number } = {}): Promise<unknown> {
  const stdin = new PassThrough();
  const stderr = new PassThrough();
  stderr.resume();
  const io = new Io({
    stdin,
    stdout: new PassThrough(),
    stderr,
    env: {},
    stdinIsTTY: true,
    stdoutIsTTY: false,
    stderrIsTTY: true,
  });
  const asking = guidedOrder(io, {} as ApiClient, connection, products, given);
  for (const keys of typed) {
    await new Promise((resolve) => setTimeout(resolve, 30));
    stdin.write(keys);
  }
  return asking.catch((e: unknown) => e);
}

describe('a guided order stopped', () => {
  const nothingSent = { exitCode: ExitCode.interrupted, message: 'cancelled: nothing was sent' };

  it('Ctrl-C at the product picker: nothing was sent, exit 130', async () => {
    const error = await guided(['\x03']);
    expect(error).toBeInstanceOf(InterruptedError);
    expect(error).toMatchObject(nothingSent);
  });

  it('Ctrl-C at the quantity: the same words', async () => {
    expect(await guided(['\x03'], { product: 'amazon-us-10' })).toMatchObject(nothingSent);
  });

  it('Ctrl-C at the confirmation says what n says', async () => {
    const given = { product: 'amazon-us-10', quantity: 2 };
    expect(await guided(['n\n'], given)).toMatchObject(nothingSent);
    expect(await guided(['\x03'], given)).toMatchObject(nothingSent);
  });
});
