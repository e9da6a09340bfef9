// How an order reads to a person, and the question a live order asks, in-process (the mutation run sees
// only these; the e2e tests of order show and order place run the built CLI).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { liveOrderQuestion } from '../../src/orders/confirm.js';
import { describeOrder, printOrder, statusText } from '../../src/orders/present.js';
import { Io } from '../../src/output/io.js';
import { clientOf, inProcessServers } from '../helpers/inprocess.js';

function io(env: Record<string, string> = {}): { io: Io; out: () => string } {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const made = new Io({
    stdin: new PassThrough(),
    stdout,
    stderr: new PassThrough(),
    env,
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
  });
  return { io: made, out: () => text };
}

describe('statusText', () => {
  it('green when completed, red when failed, yellow otherwise (colour forced on)', () => {
    const { io: coloured } = io({ FORCE_COLOR: '1' });
    expect(statusText(coloured, 'completed')).toBe('\u001b[32mcompleted\u001b[39m');
    expect(statusText(coloured, 'failed')).toBe('\u001b[31mfailed\u001b[39m');
    expect(statusText(coloured, 'processing')).toBe('\u001b[33mprocessing\u001b[39m');
    expect(statusText(io().io, 'completed')).toBe('completed');
  });
});

describe('describeOrder', () => {
  it('order and status, then each known field that has a value, labels padded to 12', () => {
    const text = describeOrder(io().io, {
      id: 'ord_1',
      status: 'completed',
      product_id: 'amazon-us-25',
      quantity: 2,
      amount: { amount: 5000, currency: 'usd' },
      environment: 'test',
      created_at: '2026-01-01T00:00:00Z',
      failure_reason: '',
    });
    expect(text).toBe(
      [
        'order        ord_1',
        'status       completed',
        'product      amazon-us-25',
        'quantity     2',
        'amount       50.00 USD',
        'environment  test',
        'created      2026-01-01T00:00:00Z',
      ].join('\n'),
    );
  });

  it('groups the thousands of a large amount and quantity: 500000.00 and 5000000.00 differ by one digit', () => {
    const text = describeOrder(io().io, {
      id: 'ord_4',
      status: 'completed',
      product_id: 'amazon-us-25',
      quantity: 200_000,
      amount: { amount: 500_000_000, currency: 'USD' },
    });
    expect(text).toContain('quantity     200,000\n');
    expect(text).toContain('amount       5,000,000.00 USD');
    // What is not a whole number is shown as sent.
    expect(describeOrder(io().io, { id: 'o', status: 's', quantity: '12' })).toContain('quantity     12');
  });

  it('reads the other spellings the servers use, and leaves out null and absent fields', () => {
    const text = describeOrder(io().io, {
      id: 'ord_2',
      status: 'failed',
      productId: 'p',
      total: 7,
      createdAt: 'then',
      failureReason: 'out of stock',
      quantity: null,
    });
    expect(text).toBe(
      [
        'order        ord_2',
        'status       failed',
        'product      p',
        'amount       7',
        'created      then',
        'reason       out of stock',
      ].join('\n'),
    );
    expect(describeOrder(io().io, { id: 'o', status: 's', product: 'q', created: 'c' })).toBe(
      ['order        o', 'status       s', 'product      q', 'created      c'].join('\n'),
    );
  });
});

describe('printOrder', () => {
  it('text: the description; --json: the order exactly as sent', async () => {
    const order = { id: 'ord_3', status: 'processing', extra: { nested: true } };
    const text = io();
    await printOrder(text.io, order);
    await text.io.flushOut();
    expect(text.out()).toBe(`${describeOrder(text.io, order)}\n`);
    const json = io();
    json.io.setMode({ json: true, quiet: false, verbose: false });
    await printOrder(json.io, order);
    await json.io.flushOut();
    expect(JSON.parse(json.out())).toEqual(order);
  });
});

describe('liveOrderQuestion', () => {
  const servers = inProcessServers({ server: {} });
  const profile = (name: string) => ({ profile: name, keySource: 'profile' as const });

  const fake = (products: unknown): ApiClient =>
    ({
      listProducts: () => (products instanceof Error ? Promise.reject(products) : Promise.resolve(products)),
    }) as unknown as ApiClient;

  it('names product, quantity, unit price and profile, from the real catalog', async () => {
    const api = clientOf(servers.server.url);
    const question = await liveOrderQuestion(api, 'amazon-us-25', 3, profile('shop'));
    expect(question).toBe(
      'Place a LIVE order for 3 × amazon-us-25 at 25.00 USD each, 75.00 USD in all? It is charged to the wallet of profile "shop".',
    );
    // With --out, the file its codes go to, as the guided order's question names it (a person's day).
    expect(await liveOrderQuestion(api, 'amazon-us-25', 3, profile('shop'), 'live3.csv')).toBe(
      'Place a LIVE order for 3 × amazon-us-25 at 25.00 USD each, 75.00 USD in all, and write its codes to live3.csv? It is charged to the wallet of profile "shop".',
    );
    expect(await liveOrderQuestion(api, 'amazon-us-25', 3, profile('shop'), '-')).toContain(
      'in all, and write its codes to standard output?',
    );
  });

  it('money with a currency gives the total; a bare price gives none', async () => {
    const money = fake([{ id: 'p', price: { amount: 2500, currency: 'usd' } }]);
    expect(await liveOrderQuestion(money, 'p', 3, profile('x'))).toBe(
      'Place a LIVE order for 3 × p at 25.00 USD each, 75.00 USD in all? It is charged to the wallet of profile "x".',
    );
    // A large order's question groups its quantity and total: the sentence a person confirms a charge by.
    expect(await liveOrderQuestion(money, 'p', 200_000, profile('x'))).toBe(
      'Place a LIVE order for 200,000 × p at 25.00 USD each, 5,000,000.00 USD in all? It is charged to the wallet of profile "x".',
    );
    expect(await liveOrderQuestion(fake([{ id: 'p', price: 12 }]), 'p', 2, profile('x'))).toBe(
      'Place a LIVE order for 2 × p at 12 each? It is charged to the wallet of profile "x".',
    );
    expect(
      await liveOrderQuestion(fake([{ id: 'p', price: { amount: '1', currency: 'usd' } }]), 'p', 2, profile('x')),
    ).toBe(
      'Place a LIVE order for 2 × p at {"amount":"1","currency":"usd"} each? It is charged to the wallet of profile "x".',
    );
    expect(
      await liveOrderQuestion(fake([{ id: 'p', price: { amount: 1, currency: 5 } }]), 'p', 2, profile('x')),
    ).toContain(' each? ');
  });

  it("names the wallet of the key it is sent with: a key from --api-key or GIFTCODES_API_KEY is not the profile's", async () => {
    const api = fake([{ id: 'p', price: { amount: 100, currency: 'usd' } }]);
    expect(await liveOrderQuestion(api, 'p', 1, { profile: 'shop', keySource: 'environment' })).toBe(
      'Place a LIVE order for 1 × p at 1.00 USD each, 1.00 USD in all? It is charged to the wallet of the key in GIFTCODES_API_KEY.',
    );
    expect(await liveOrderQuestion(api, 'p', 1, { profile: 'shop', keySource: 'flag' })).toContain(
      'It is charged to the wallet of the key given with --api-key.',
    );
    expect(await liveOrderQuestion(api, 'p', 1, { profile: 'shop', keySource: 'keyring' })).toContain(
      'It is charged to the wallet of profile "shop".',
    );
  });

  it('falls back to face_value, then amount; no price, another product or a failed catalog: no price', async () => {
    expect(await liveOrderQuestion(fake([{ id: 'p', face_value: 5 }]), 'p', 1, profile('x'))).toContain(
      '1 × p at 5 each?',
    );
    expect(await liveOrderQuestion(fake([{ id: 'p', amount: 6 }]), 'p', 1, profile('x'))).toContain('1 × p at 6 each?');
    expect(
      await liveOrderQuestion(fake([{ id: 'p', price: 4, face_value: 5, amount: 6 }]), 'p', 1, profile('x')),
    ).toContain('at 4 each');
    expect(await liveOrderQuestion(fake([{ id: 'p', face_value: 5, amount: 6 }]), 'p', 1, profile('x'))).toContain(
      'at 5 each',
    );
    const bare = 'Place a LIVE order for 1 × p? It is charged to the wallet of profile "x".';
    expect(await liveOrderQuestion(fake([{ id: 'p', price: null }]), 'p', 1, profile('x'))).toBe(bare);
    expect(await liveOrderQuestion(fake([{ id: 'p' }]), 'p', 1, profile('x'))).toBe(bare);
    expect(await liveOrderQuestion(fake([{ id: 'q', price: 3 }]), 'p', 1, profile('x'))).toBe(bare);
    expect(await liveOrderQuestion(fake(new Error('down')), 'p', 1, profile('x'))).toBe(bare);
  });
});
