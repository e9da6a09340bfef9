// `order place --plan`: the plan file is checked whole before anything is sent. Rows, keys, and every
// refusal with its line number, in-process (runPlan itself is driven end to end in test/e2e).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/journal/intent.js';
import { parsePlan, readPlan, rowKey } from '../../src/orders/plan.js';
import { tempDir } from '../helpers/e2e.js';

const parse = (text: string, path = '/plans/p.csv'): ReturnType<typeof parsePlan> => parsePlan(Buffer.from(text, 'utf8'), path);

function refusal(text: string): Error & { code?: string; exitCode?: number; hint?: string } {
  try {
    parse(text);
  } catch (error) {
    return error as Error;
  }
  throw new Error('the plan was accepted');
}

describe('plan parsing', () => {
  it('the key is the plan bytes and the row: plan-<24 hex of sha256>-r<line>', () => {
    const sha = sha256('x');
    expect(rowKey(sha, 7)).toBe(`plan-${sha.slice(0, 24)}-r7`);
  });

  it('rows keep their line numbers; blank lines, comments, a header and a BOM are skipped; out is resolved beside the plan', () => {
    const text = '\uFEFFProduct, Quantity ,out\r\n\n# restock\n amazon-us-25 , 3 , codes/a.csv\r\n"steam-10",1\n  \n';
    const rows = parse(text);
    const sha = sha256(Buffer.from(text, 'utf8').toString('latin1'));
    expect(rows).toEqual([
      { row: 4, productId: 'amazon-us-25', quantity: 3, key: `plan-${sha.slice(0, 24)}-r4`, out: '/plans/codes/a.csv' },
      { row: 5, productId: 'steam-10', quantity: 1, key: `plan-${sha.slice(0, 24)}-r5` },
    ]);
    expect(rows[1]).not.toHaveProperty('out');
  });

  it('an empty out cell is no out file', () => {
    expect(parse('p1,2,\n')[0]).not.toHaveProperty('out');
  });

  it('a header row is only a header on the first row', () => {
    expect(refusal('p1,1\nproduct,quantity\n').message).toContain('line 2: quantity must be a whole number');
    expect(refusal('product,x\n').message).toContain('line 1: quantity must be a whole number');
    expect(refusal('x,quantity\n').message).toContain('line 1: quantity must be a whole number');
  });

  it('the same bytes give the same keys; other bytes other keys', () => {
    expect(parse('p1,1\n')[0]!.key).toBe(parse('p1,1\n')[0]!.key);
    expect(parse('p1,1\n')[0]!.key).not.toBe(parse('p1,1\r\n')[0]!.key);
  });

  it('quantity: a whole number from 1 to 1000000', () => {
    expect(parse('p,1\n')[0]!.quantity).toBe(1);
    expect(parse('p,1000000\n')[0]!.quantity).toBe(1_000_000);
    for (const q of ['0', '1000001', '-1', '1.5', '1e3', 'x', '', ' ']) {
      expect(refusal(`p,${q}\n`).message, q).toContain(`line 1: quantity must be a whole number from 1 to 1000000, got "${q.trim()}"`);
    }
  });

  it('product: 1 to 200 printable ASCII characters without spaces', () => {
    expect(parse(`${'a'.repeat(200)},1\n`)[0]!.productId).toHaveLength(200);
    expect(refusal(`${'a'.repeat(201)},1\n`).message).toContain('is not a product id');
    expect(refusal('a b,1\n').message).toContain('line 1: "a b" is not a product id');
    expect(refusal('é,1\n').message).toContain('line 1: "é" is not a product id');
    expect(refusal(',1\n').message).toContain('line 1: "" is not a product id');
  });

  it('field counts: two or three', () => {
    expect(refusal('p\n').message).toContain('line 1: expected product,quantity[,out], got 1 fields');
    expect(refusal('p,1,o,x\n').message).toContain('line 1: expected product,quantity[,out], got 4 fields');
  });

  it('two rows with one out file are refused, naming both lines', () => {
    expect(refusal('p,1,a.csv\nq,2,b.csv\nr,3,a.csv\n').message).toContain('line 3: out file /plans/a.csv is also the out file of line 1');
  });

  it('every bad row is named in one usage error, bad_plan, nothing ordered', () => {
    const error = refusal('p,0\nok,1\nq,x\n');
    expect(error).toMatchObject({ exitCode: 2, code: 'bad_plan', hint: 'each row is product,quantity[,out] (a header row product,quantity,out is optional)' });
    expect(error.message).toBe(
      'the plan /plans/p.csv has 2 bad rows, nothing was ordered: line 1: quantity must be a whole number from 1 to 1000000, got "0"; line 3: quantity must be a whole number from 1 to 1000000, got "x"',
    );
    expect(refusal('p,0\n').message).toMatch(/^the plan \/plans\/p\.csv has 1 bad row, nothing was ordered: line 1: /);
  });

  it('at most 20 problems are listed, then an ellipsis', () => {
    const twenty = refusal('p,0\n'.repeat(20)).message;
    expect(twenty).toContain('has 20 bad rows');
    expect(twenty).not.toContain('…');
    const many = refusal('p,0\n'.repeat(21)).message;
    expect(many).toContain('has 21 bad rows');
    expect(many).toContain('line 20: ');
    expect(many).not.toContain('line 21: ');
    expect(many.endsWith('; …')).toBe(true);
  });

  it('a plan without rows is refused', () => {
    for (const text of ['', '# only a comment\n', 'product,quantity,out\n']) {
      expect(refusal(text)).toMatchObject({ exitCode: 2, code: 'bad_plan', message: 'the plan /plans/p.csv has no rows', hint: 'each row is product,quantity[,out]' });
    }
  });

  it('readPlan: a missing file or a directory is a usage error, the plan read otherwise', () => {
    const dir = tempDir();
    expect(() => readPlan(join(dir, 'none.csv'))).toThrow(expect.objectContaining({ exitCode: 2, code: 'bad_plan', message: `cannot read the plan ${join(dir, 'none.csv')}: no such file` }));
    mkdirSync(join(dir, 'd'));
    expect(() => readPlan(join(dir, 'd'))).toThrow(expect.objectContaining({ exitCode: 2, code: 'bad_plan', message: `cannot read the plan ${join(dir, 'd')}: it is a directory` }));
    writeFileSync(join(dir, 'ok.csv'), 'p,2,c.json\n');
    expect(readPlan(join(dir, 'ok.csv'))).toMatchObject([{ row: 1, productId: 'p', quantity: 2, out: join(dir, 'c.json') }]);
  });

  it('a header is only the first row: product,quantity after a row is a bad row; a row of one field is a bad row, never a crash', () => {
    expect(refusal('p1,1\nproduct,quantity\n').message).toContain('line 2: quantity must be a whole number from 1 to 1000000, got "quantity"');
    expect(refusal('product\n').message).toContain('line 1: expected product,quantity[,out], got 1 fields');
  });

  it('quotes are taken off a whole cell only', () => {
    expect(parse('x"y",1\n')[0]!.productId).toBe('x"y"');
    expect(parse('"x"y,1\n')[0]!.productId).toBe('"x"y');
    expect(parse('"x-y","2"\n')[0]).toMatchObject({ productId: 'x-y', quantity: 2 });
  });

  it('every bad row is named with its line and what is wrong with it', () => {
    const message = refusal('caf\u00e9,1\np1,0\np2,1000001\n').message;
    expect(message).toContain('has 3 bad rows, nothing was ordered');
    expect(message).toContain('line 1: "caf\u00e9" is not a product id');
    expect(message).toContain('line 2: quantity must be a whole number from 1 to 1000000, got "0"');
    expect(message).toContain('line 3: quantity must be a whole number from 1 to 1000000, got "1000001"');
  });
});
