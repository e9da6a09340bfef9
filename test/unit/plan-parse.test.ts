// `order place --plan`: the plan file is checked whole before anything is sent. Rows, keys, and every
// refusal with its line number, in-process (runPlan itself is driven end to end in test/e2e).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/journal/intent.js';
import { legacyRowKey, parsePlan, planFamily, readPlan, rowKey } from '../../src/orders/plan.js';
import { tempDir } from '../helpers/e2e.js';

const scope = { baseUrl: 'http://127.0.0.1:4010', environment: 'test' as const, keyId: 'k1' };
const F = planFamily(scope, '/plans/p.csv', undefined);
const parse = (text: string, path = '/plans/p.csv'): ReturnType<typeof parsePlan> =>
  parsePlan(Buffer.from(text, 'utf8'), path, F);

function refusal(text: string): Error & { code?: string; exitCode?: number; hint?: string } {
  try {
    parse(text);
  } catch (error) {
    return error as Error;
  }
  throw new Error('the plan was accepted');
}

describe('plan parsing', () => {
  it('a row key is plan-<24 hex>: the family (scope, file name, batch) then what the row is', () => {
    const family = planFamily(scope, '/plans/p.csv', undefined);
    expect(family).toMatch(/^[0-9a-f]{12}$/);
    const key = rowKey(family, { productId: 'p1', quantity: 2, outCell: '', occurrence: 1 });
    expect(key).toMatch(new RegExp(`^plan-${family}[0-9a-f]{12}$`));
    // The older key (the plan's bytes and the line) is kept beside it, to find what older versions ordered.
    const sha = sha256('x');
    expect(legacyRowKey(sha, 7)).toBe(`plan-${sha.slice(0, 24)}-r7`);
  });

  it('the family is the scope, the file name (not its folder) and the batch', () => {
    const family = planFamily(scope, '/plans/p.csv', undefined);
    expect(planFamily(scope, '/elsewhere/p.csv', undefined)).toBe(family);
    expect(planFamily(scope, '/plans/q.csv', undefined)).not.toBe(family);
    expect(planFamily(scope, '/plans/p.csv', '2026-11-29')).not.toBe(family);
    expect(planFamily(scope, '/plans/p.csv', '2026-11-29')).not.toBe(planFamily(scope, '/plans/p.csv', '2026-11-30'));
    expect(planFamily({ ...scope, environment: 'live' }, '/plans/p.csv', undefined)).not.toBe(family);
    expect(planFamily({ ...scope, baseUrl: 'http://other' }, '/plans/p.csv', undefined)).not.toBe(family);
    expect(planFamily({ ...scope, keyId: 'another-reseller' }, '/plans/p.csv', undefined)).not.toBe(family);
  });

  it('rows keep their line numbers; blank lines, comments, a header and a BOM are skipped; out is resolved beside the plan', () => {
    const text = '\uFEFFProduct, Quantity ,out\r\n\n# restock\n amazon-us-25 , 3 , codes/a.csv\r\n"steam-10",1\n  \n';
    const rows = parse(text);
    const sha = sha256(Buffer.from(text, 'utf8').toString('latin1'));
    expect(rows).toEqual([
      {
        row: 4,
        productId: 'amazon-us-25',
        quantity: 3,
        key: rowKey(F, { productId: 'amazon-us-25', quantity: 3, outCell: 'codes/a.csv', occurrence: 1 }),
        legacyKey: `plan-${sha.slice(0, 24)}-r4`,
        out: '/plans/codes/a.csv',
      },
      {
        row: 5,
        productId: 'steam-10',
        quantity: 1,
        key: rowKey(F, { productId: 'steam-10', quantity: 1, outCell: '', occurrence: 1 }),
        legacyKey: `plan-${sha.slice(0, 24)}-r5`,
      },
    ]);
    expect(rows[1]).not.toHaveProperty('out');
  });

  // An adversarial review: Excel's "CSV (Macintosh)" ends lines with a CR alone, and the plan read as one line
  // ("got 4 fields"); a trailing empty cell (`a,1,x.csv,`) was refused the same way. The rows, and their keys, are
  // those of the same plan saved with LF line ends and no empty cells.
  it('lines ended by a CR alone, and empty cells after the third, read as the same rows', () => {
    const plain = parse('product,quantity,out\nsteam-us-20,2,a.csv\napple-us-25,1\n');
    const rowOf = ({ row, productId, quantity, key, out }: (typeof plain)[number]) => ({
      row,
      productId,
      quantity,
      key,
      out,
    });
    expect(parse('product,quantity,out\rsteam-us-20,2,a.csv\rapple-us-25,1\r').map(rowOf)).toEqual(plain.map(rowOf));
    const trailing = parse('product,quantity,out,\nsteam-us-20,2,a.csv,\napple-us-25,1,,,\n');
    expect(trailing.map((r) => r.key)).toEqual(plain.map((r) => r.key));
    expect(trailing.map((r) => r.out)).toEqual(plain.map((r) => r.out));
    // A fourth cell that says something is still refused.
    expect(refusal('steam-us-20,2,a.csv,note\n').message).toContain('got 4 fields');
  });

  it('without a family (a dry run with no key) the rows have no key yet', () => {
    expect(parsePlan(Buffer.from('p1,1\n'), '/plans/p.csv')[0]!.key).toBe('');
  });

  it('an empty out cell is no out file', () => {
    expect(parse('p1,2,\n')[0]).not.toHaveProperty('out');
  });

  // A reviewer: a row `amazon-us-25,2,-` passed --dry-run and wrote a file named `-` beside the plan.
  it("an out cell of '-' is refused as stdout is: a plan's rows cannot write to standard output", () => {
    const refused = refusal('amazon-us-25,2,-\n');
    expect(refused).toMatchObject({ code: 'bad_plan', exitCode: 2 });
    expect(refused.message).toContain('line 1: its out file "-" is standard output');
    expect(refused.hint).toContain("a plan's rows cannot write to standard output");
  });

  it('a header row is only a header on the first row', () => {
    expect(refusal('p1,1\nproduct,quantity\n').message).toContain('line 2: quantity must be a whole number');
    // A product column beside a column of another name: the header it is, with what a plan's header names.
    expect(refusal('product,x\n').message).toContain('line 1: product,x reads as a header row');
    // Column names other than a plan's: said as the header they are (a person's day).
    expect(refusal('x,quantity\n').message).toContain('line 1: x,quantity reads as a header row');
  });

  it('a row keeps its key when other rows are edited, added or moved (issue 29: a fixed typo re-ordered the delivered rows)', () => {
    const before = parse('p1,1\np2-typo,2\np3,3,c.csv\n');
    const after = parse('# fixed\np3,3,c.csv\np1,1\np2,2\np4,1\n');
    expect(after.find((r) => r.productId === 'p1')!.key).toBe(before[0]!.key);
    expect(after.find((r) => r.productId === 'p3')!.key).toBe(before[2]!.key);
    expect(after.find((r) => r.productId === 'p2')!.key).not.toBe(before[1]!.key);
    // Line endings and spacing are not the row.
    expect(parse('p1 , 1\r\n')[0]!.key).toBe(parse('p1,1\n')[0]!.key);
  });

  it('what the row is: product, quantity, out cell; identical rows are told apart by their occurrence', () => {
    const [a, b, c] = parse('p1,1\np1,1\np1,1,x.csv\n');
    expect(new Set([a!.key, b!.key, c!.key]).size).toBe(3);
    expect(parse('p1,2\n')[0]!.key).not.toBe(a!.key);
    expect(parse('p2,1\n')[0]!.key).not.toBe(a!.key);
    // The second of two identical rows is the same order in every run; dropping the first makes it the first.
    expect(parse('p9,1\np1,1\np1,1\n')[2]!.key).toBe(b!.key);
    expect(parse('p1,1\n')[0]!.key).toBe(a!.key);
  });

  it('quantity: a whole number from 1 to 1,000,000', () => {
    expect(parse('p,1\n')[0]!.quantity).toBe(1);
    expect(parse('p,1000000\n')[0]!.quantity).toBe(1_000_000);
    for (const q of ['0', '1000001', '-1', '1.5', '1e3', 'x', '', ' ']) {
      expect(refusal(`p,${q}\n`).message, q).toContain(
        `line 1: quantity must be a whole number from 1 to 1,000,000, got "${q.trim()}"`,
      );
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
    expect(refusal('p,1,a.csv\nq,2,b.csv\nr,3,a.csv\n').message).toContain(
      'line 3: out file /plans/a.csv is also the out file of line 1',
    );
  });

  it('every bad row is named in one usage error, bad_plan, nothing ordered', () => {
    const error = refusal('p,0\nok,1\nq,x\n');
    expect(error).toMatchObject({
      exitCode: 2,
      code: 'bad_plan',
      hint: 'each row is product,quantity[,out] (a header row product,quantity,out is optional)',
    });
    expect(error.message).toBe(
      'the plan /plans/p.csv has 2 bad rows, nothing was ordered: line 1: quantity must be a whole number from 1 to 1,000,000, got "0"; line 3: quantity must be a whole number from 1 to 1,000,000, got "x"',
    );
    expect(refusal('p,0\n').message).toMatch(/^the plan \/plans\/p\.csv has 1 bad row, nothing was ordered: line 1: /);
  });

  it('at most 20 problems are listed, then the rest counted', () => {
    // Each row its own mistake (a quantity of its own): twenty said, the rest counted.
    const rows = (n: number): string => Array.from({ length: n }, (_, i) => `p,-${i + 1}\n`).join('');
    const twenty = refusal(rows(20)).message;
    expect(twenty).toContain('has 20 bad rows');
    expect(twenty).not.toContain('more');
    const many = refusal(rows(21)).message;
    expect(many).toContain('has 21 bad rows');
    expect(many).toContain('line 20: ');
    expect(many).not.toContain('line 21: ');
    expect(many.endsWith('; and 1 more')).toBe(true);
    expect(refusal(rows(1500)).message).toMatch(/line 20: [^;]*; and 1,480 more$/);
  });

  // A person's day: 1,000 rows with the same mistake said it twenty times on one line (1,500 characters).
  it('the same mistake on many rows is said once, with its lines as runs', () => {
    const message = refusal('p,0\n'.repeat(1000)).message;
    expect(message).toContain('has 1,000 bad rows');
    expect(message).toMatch(/nothing was ordered: lines 1–1000: quantity [^;]*$/);
    expect(message.length).toBeLessThan(300);
    expect(refusal('p,0\np,1\np,0\n').message).toMatch(/: lines 1 and 3: quantity [^;]*$/);
  });

  it('a plan without rows is refused', () => {
    for (const text of ['', '# only a comment\n', 'product,quantity,out\n']) {
      expect(refusal(text)).toMatchObject({
        exitCode: 2,
        code: 'bad_plan',
        message: 'the plan /plans/p.csv has no rows',
        hint: 'each row is product,quantity[,out]',
      });
    }
  });

  it('readPlan: a missing file or a directory is exit 8 (a local file that cannot be read), the plan read otherwise', () => {
    const dir = tempDir();
    expect(() => readPlan(join(dir, 'none.csv'))).toThrow(
      expect.objectContaining({
        exitCode: 8,
        code: 'plan_unreadable',
        message: `cannot read the plan ${join(dir, 'none.csv')}: no such file`,
      }),
    );
    mkdirSync(join(dir, 'd'));
    expect(() => readPlan(join(dir, 'd'))).toThrow(
      expect.objectContaining({
        exitCode: 8,
        code: 'plan_unreadable',
        message: `cannot read the plan ${join(dir, 'd')}: it is a directory`,
      }),
    );
    writeFileSync(join(dir, 'ok.csv'), 'p,2,c.json\n');
    expect(readPlan(join(dir, 'ok.csv'))).toMatchObject([
      { row: 1, productId: 'p', quantity: 2, out: join(dir, 'c.json') },
    ]);
  });

  it('a header is only the first row: product,quantity after a row is a bad row; a row of one field is a bad row, never a crash', () => {
    expect(refusal('p1,1\nproduct,quantity\n').message).toContain(
      'line 2: quantity must be a whole number from 1 to 1,000,000, got "quantity"',
    );
    expect(refusal('product\n').message).toContain('line 1: expected product,quantity[,out], got 1 fields');
  });

  it('row keys are the same in every version: a plan run again after an upgrade finds the rows it delivered', () => {
    // Values computed by this derivation when it was introduced: any change to it orders every delivered row again.
    expect(F).toBe('00104a598ae2');
    expect(planFamily(scope, '/plans/p.csv', 'nightly')).toBe('a94f83c9a368');
    expect(rowKey(F, { productId: 'amazon-us-25', quantity: 3, outCell: 'codes/a.csv', occurrence: 1 })).toBe(
      'plan-00104a598ae2cdc4a5026cc5',
    );
  });

  it('a byte order mark is dropped at the start of the file only: inside a cell it is no product id, never silently taken out', () => {
    expect(refusal('p1,1\np\uFEFF2,1\n').message).toContain('line 2: "p\uFEFF2" is not a product id');
  });

  it('a header after a bad first row is a bad row too', () => {
    const message = refusal('only-one-field\nproduct,quantity\n').message;
    expect(message).toContain('has 2 bad rows');
    expect(message).toContain('line 2: quantity must be a whole number from 1 to 1,000,000, got "quantity"');
  });

  it('two out files in a folder that does not exist yet are two files', () => {
    const dir = join(tempDir(), 'not-yet');
    const rows = parse('p1,1,a.csv\np2,1,b.csv\n', join(dir, 'p.csv'));
    expect(rows.map((r) => r.out)).toEqual([join(dir, 'a.csv'), join(dir, 'b.csv')]);
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
    expect(message).toContain('line 2: quantity must be a whole number from 1 to 1,000,000, got "0"');
    expect(message).toContain('line 3: quantity must be a whole number from 1 to 1,000,000, got "1000001"');
  });
});

describe('{batch} in an out cell', () => {
  const night = (batch: string | undefined): ReturnType<typeof parsePlan> =>
    parsePlan(Buffer.from('amazon-us-25,1,codes/amazon-{batch}.csv\n', 'utf8'), '/plans/p.csv', F, batch);

  it("is the run's --batch, in the path; the row's key is the cell as written", () => {
    const [row] = night('2026-11-29');
    expect(row!.out).toBe('/plans/codes/amazon-2026-11-29.csv');
    expect(row!.batched).toBe(true);
    expect(parse('amazon-us-25,1,codes/fixed.csv\n')[0]!.batched).toBeUndefined();
    expect(row!.key).toBe(
      rowKey(F, { productId: 'amazon-us-25', quantity: 1, outCell: 'codes/amazon-{batch}.csv', occurrence: 1 }),
    );
  });

  it('needs --batch, and a batch that can go into a file name: exit 2, naming the line', () => {
    expect(() => night(undefined)).toThrow(/line 1: its out file names \{batch\}, which --batch gives/);
    for (const batch of ['../x', 'a/b', '.hidden', '-rf', 'two words'])
      expect(() => night(batch)).toThrow(/line 1: --batch ".*" cannot go into a file name for \{batch\}/);
  });
});

describe('plans from a spreadsheet', () => {
  it('a semicolon or tab inside a comma-separated row is part of its cell, not a separator', () => {
    expect(parse('p1,1,a;b.csv\n')[0]!.out).toBe('/plans/a;b.csv');
    expect(parse('p1,1,a\tb.csv\n')[0]!.out).toBe('/plans/a\tb.csv');
  });

  // A walkthrough's semicolon file said it five times, counted its header as a bad row, gave the generic hint,
  // and read a later line's "1,500" as two cells of nonsense.
  it('semicolons or tabs between the columns are said once, for the whole file, with their own hint', () => {
    const error = refusal('product;quantity\namazon-us-25;1\nsteam-us-20;"1,500";x.csv\n') as Error & { hint?: string };
    expect(error.message).toBe(
      'the plan /plans/p.csv has its columns separated by semicolons (line 1), nothing was ordered: a plan is comma-separated (product,quantity[,out])',
    );
    expect(error.hint).toBe(
      'save it from the spreadsheet as CSV with commas between the columns (in some locales: "CSV UTF-8 (comma delimited)")',
    );
    expect(refusal('# tonight\namazon-us-25\t1\n').message).toContain('separated by tabs (line 2)');
  });

  it('a quantity as a spreadsheet writes it, "1,500" in quotes, is 1500; cells are quoted as CSV quotes them', () => {
    expect(parse('amazon-us-25,"1,500","a, b.csv"\n')[0]).toMatchObject({ quantity: 1500, out: '/plans/a, b.csv' });
    expect(parse('"x""y",2\n')[0]!.productId).toBe('x"y');
    expect(parse('p1,"1,000,000"\n')[0]!.quantity).toBe(1_000_000);
    for (const q of ['"1,5"', '"1,5000"', '",500"', '"1.500"'])
      expect(refusal(`p1,${q}\n`).message).toContain('quantity must be a whole number');
  });

  it('"1,500" without quotes is read as two cells: the refusal says what to write', () => {
    expect(refusal('steam-us-20,1,500,x.csv\n').message).toContain(
      'line 1: expected product,quantity[,out], got 4 fields (a quantity with a thousands separator? write 1500, or "1,500" in quotes)',
    );
  });

  it('the cells as CSV reads them, to the edge cases (what a mutation run found unheld)', () => {
    // Spaces around a quoted cell, inside it, and an indented comment or blank line.
    expect(parse('  # tonight\n   \n p1 , "1,500" ,x.csv\n" p2 ",2\n').map((r) => [r.productId, r.quantity])).toEqual([
      ['p1', 1500],
      ['p2', 2],
    ]);
    expect(parse('p1,"12,500"\n')[0]!.quantity).toBe(12_500);
    // A quote that never closes is the cell as written.
    expect(parse('"p1,1\n')[0]).toMatchObject({ productId: '"p1', quantity: 1 });
    // A quote inside an unquoted cell is part of it.
    expect(parse('ab",1\n')[0]!.productId).toBe('ab"');
    for (const q of ['"a1,500"', '"1,500x"', '"1234,500"'])
      expect(refusal(`p1,${q}\n`).message).toContain('quantity must be a whole number');
  });

  // An adversarial review: `steam-us-20,1,500` ordered 1 code and wrote it to a file named 500.
  it('"1,500" without quotes and no out file is refused too, never 1 code written to a file named 500', () => {
    expect(refusal('steam-us-20,1,500\n').message).toContain(
      'line 1: its out file "500" looks like the rest of a quantity with a thousands separator: write 1500, or "1,500" in quotes',
    );
    expect(refusal('steam-us-20,12,500\n').message).toContain('write 12500');
    // An out file with a name of its own is an out file.
    expect(parse('steam-us-20,1,500.csv\n')[0]!.out).toBe('/plans/500.csv');
  });

  it('the thousands hint only where the cells look like a cut quantity', () => {
    const hint = (line: string): boolean => refusal(`${line}\n`).message.includes('thousands separator');
    expect(refusal('p1,12,500,x.csv\n').message).toContain('write 12500, or "12,500" in quotes');
    expect(refusal('p1,1,000,000\n').message).toContain('write 1000000, or "1,000,000" in quotes');
    for (const line of ['p1,1,5000,x.csv', 'p1,1234,500,x', 'p1,x,500,y', 'p1,1,50,y', 'p1,1,500x,y'])
      expect(hint(line), line).toBe(false);
  });

  it("semicolons in a row after comma rows are that row's problem, not the whole file's", () => {
    const error = refusal('p1,1\np2;1\n') as Error & { code?: string };
    expect(error.message).toBe(
      'the plan /plans/p.csv has 1 bad row, nothing was ordered: line 2: its columns are separated by semicolons; a plan is comma-separated (product,quantity[,out])',
    );
    expect(error).toMatchObject({ code: 'bad_plan' });
    expect(refusal('p1;1\n')).toMatchObject({ code: 'bad_plan' });
    // After a bad row too: both rows are said.
    expect(refusal('p1,x\np2;1\n').message).toMatch(
      /has 2 bad rows.*line 1: quantity.*line 2: its columns are separated by semicolons/,
    );
  });

  it("a row of empty cells (a spreadsheet's empty row) is skipped as a blank line is", () => {
    expect(parse('p1,1\n,,\n , \n"",""\n').map((r) => r.productId)).toEqual(['p1']);
  });

  it('a header with the columns in another order is said once, not read as a bad quantity on every row', () => {
    const error = refusal('quantity,product\n1,amazon-us-25\n');
    expect(error.message).toContain(
      'has 1 bad row, nothing was ordered: line 1: a header row names the columns product,quantity[,out] in that order, not quantity,product',
    );
    expect(parse('Product,Quantity,Out\namazon-us-25,1\n').map((r) => r.productId)).toEqual(['amazon-us-25']);
    for (const header of ['product,out,quantity', 'out,quantity,product'])
      expect(refusal(`${header}\namazon-us-25,1\n`).message).toContain(
        `line 1: a header row names the columns product,quantity[,out] in that order, not ${header}`,
      );
    // One cell with no separator in it is the count of fields, as before.
    expect(refusal('amazon-us-25\n').message).toContain('line 1: expected product,quantity[,out], got 1 fields');
  });
});

describe('the hint of a refused plan is right for its cause', () => {
  const hintOf = (text: string, batch?: string): string | undefined =>
    (() => {
      try {
        parsePlan(Buffer.from(text, 'utf8'), '/plans/p.csv', F, batch);
      } catch (error) {
        return (error as { hint?: string }).hint;
      }
      throw new Error('the plan was not refused');
    })();

  it('each cause of one kind has its own hint', () => {
    expect(hintOf('p1,1,a-{batch}.csv\np2,1,b-{batch}.csv\n')).toBe(
      // Not a whole command: pasted, one without the flags typed (--dry-run) would be a real order.
      'give the run a batch name: add --batch "$(date +%F)" to the same command',
    );
    expect(hintOf('p1,1,a-{batch}.csv\n', '../x')).toBe(
      'a batch name for a file is a date or a word: --batch "$(date +%F)"',
    );
    expect(hintOf('p1;1\n')).toMatch(/^save it from the spreadsheet as CSV with commas between the columns/);
    expect(hintOf('p1,1,a.csv\np2,1,a.csv\n')).toBe(
      'each row writes a file of its own: give the rows different out files',
    );
    expect(hintOf('caf\u00e9,1\n')).toBe('see the product ids: giftcodes catalog list');
    expect(hintOf('quantity,product\np1,1\n')).toBe('put the columns in that order, or leave the header row out');
  });

  it('causes of several kinds, or one without a hint of its own, get the format of a row', () => {
    const format = 'each row is product,quantity[,out] (a header row product,quantity,out is optional)';
    expect(hintOf('caf\u00e9,1\np2,1,a-{batch}.csv\n')).toBe(format);
    expect(hintOf('p1,0\n')).toBe(format);
    expect(hintOf('caf\u00e9,1\np1,0\n')).toBe(format);
  });
});

// A person's day: a workbook given as the plan was a 30,403-row refusal of binary garbage, 4,234 characters on one line,
// and a UTF-16 CSV refused every `\u0000a\u0000m…` product.
describe('a plan file that is no CSV text', () => {
  const refused = (bytes: Buffer): Error & { code?: string; hint?: string } => {
    try {
      parsePlan(bytes, '/plans/p.csv');
    } catch (error) {
      return error as Error;
    }
    throw new Error('the plan was accepted');
  };

  it('a workbook, or UTF-16 text with or without its byte-order mark: said as such, in one short line', () => {
    const csv = 'product,quantity\namazon-us-10,2\n';
    const cases: [Buffer, string][] = [
      [Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(2000, 7)]), 'a workbook (.xlsx or another zip file)'],
      [Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(csv, 'utf16le')]), 'UTF-16 text'],
      [Buffer.from(csv, 'utf16le'), 'UTF-16 text'],
    ];
    for (const [bytes, what] of cases) {
      const error = refused(bytes);
      expect(error.message).toBe(`the plan /plans/p.csv is ${what}, not CSV text: nothing was ordered`);
      expect(error).toMatchObject({ code: 'bad_plan', exitCode: 2 });
      expect(error.hint).toContain('CSV UTF-8');
    }
    // UTF-8 with its byte-order mark is a plan as before.
    expect(parsePlan(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(csv)]), '/plans/p.csv')).toHaveLength(
      1,
    );
  });
});

// A person's day: a plan whose header named its columns `sku,qty` read the header as a row: "quantity must be a whole
// number, got "qty"" beside "no product "sku"", with the format's hint.
describe('a header row of other column names', () => {
  it('is said as a header, with what a plan header names; the rows below are read as rows', () => {
    const error = refusal('sku,qty\namazon-us-10,2\nsteam-us-20,x\n');
    expect(error.message).toContain(
      "line 1: sku,qty reads as a header row, but a plan's header names its columns product,quantity[,out]",
    );
    expect(error.message).toContain('line 3: quantity must be');
    expect(error.message).not.toContain('got "qty"');
    // A quantity that is not a word is a bad row, as before; so is a first order row with a word for its quantity
    // (a review: "leave the header row out" of an order row).
    expect(refusal('amazon-us-10,2x\n').message).toContain('got "2x"');
    expect(refusal('apple-gift-card,TBD\namazon-us-25,2\n').message).toContain('line 1: quantity must be');
    expect(refusal('netflix,abc\n').message).not.toContain('header');
    expect(refusal('item,Menge\np,1\n').message).toContain('line 1: item,Menge reads as a header row');
  });
});
