// A refused plan says every problem the checks can see in one run (orders/plan.ts refusePlan, and parsePlan
// given the ids the last `catalog list` saved): by line, with each kind's hint once, the kind's own code when
// there is one kind, and the exit of the worst.
import { describe, expect, it } from 'vitest';
import { LocalError, UsageError } from '../../src/errors.js';
import { badRowsRefusal, parsePlan, parsePlanRows, refusePlan, type RowProblem } from '../../src/orders/plan.js';

const exists = (row: number, file = `f${row}.csv`): RowProblem => ({
  row,
  error: new UsageError(`line ${row}: ${file} exists`, {
    code: 'out_exists',
    hint: 'pass --force to overwrite it, or name another file in the out column',
  }),
});
const refused = (...args: Parameters<typeof refusePlan>): Error => {
  try {
    refusePlan(...args);
  } catch (error) {
    return error as Error;
  }
  throw new Error('refusePlan did not refuse');
};

describe('refusePlan', () => {
  it('nothing to say: the plan runs', () => {
    expect(() => refusePlan('p.csv', [], { rows: [], ids: ['a'] })).not.toThrow();
    expect(() => refusePlan('p.csv', [])).not.toThrow();
  });

  it('one problem keeps its words, code and hint, and says nothing was ordered', () => {
    expect(refused('p.csv', [exists(2)])).toMatchObject({
      exitCode: 2,
      code: 'out_exists',
      message: 'line 2: f2.csv exists; nothing was ordered',
      hint: 'pass --force to overwrite it, or name another file in the out column',
    });
    const bare = refused('p.csv', [{ row: 4, error: new UsageError('line 4: x', { code: 'odd' }) }]);
    expect(bare).toMatchObject({ code: 'odd', message: 'line 4: x; nothing was ordered' });
    expect((bare as UsageError).hint).toBeUndefined();
  });

  it("unknown products alone are the catalog check's own refusal, naming the first one's nearest ids", () => {
    expect(refused('p.csv', [], { rows: [{ row: 3, productId: 'amazn-us-25' }], ids: ['amazon-us-25'] })).toMatchObject(
      {
        code: 'unknown_product',
        message: 'line 3: no product "amazn-us-25" in the catalog (nothing was sent); did you mean amazon-us-25?',
        hint: 'list the products with: giftcodes catalog list',
      },
    );
  });

  it('several of one kind keep its code and say its hint once, by line', () => {
    const error = refused('p.csv', [exists(5), exists(2)]);
    expect(error).toMatchObject({
      exitCode: 2,
      code: 'out_exists',
      message: 'the plan p.csv cannot be run, nothing was ordered: line 2: f2.csv exists; line 5: f5.csv exists',
      hint: 'pass --force to overwrite it, or name another file in the out column',
    });
  });

  it('kinds mixed: bad_plan, each hint once, unknown products among the rows by line', () => {
    const error = refused('p.csv', [exists(1), exists(4)], {
      rows: [
        { row: 2, productId: 'stem-us-20' },
        { row: 3, productId: 'zzzzzzzzzzzzzzzz' },
      ],
      ids: ['steam-us-20'],
    });
    expect(error).toMatchObject({
      exitCode: 2,
      code: 'bad_plan',
      message:
        'the plan p.csv cannot be run, nothing was ordered: line 1: f1.csv exists; line 2: no product "stem-us-20" in the catalog; did you mean steam-us-20?; line 3: no product "zzzzzzzzzzzzzzzz" in the catalog; line 4: f4.csv exists',
      hint: 'pass --force to overwrite it, or name another file in the out column; list the products with: giftcodes catalog list',
    });
  });

  it('one problem beside one unknown product is said together; a problem without a hint adds none', () => {
    const hintless = { row: 1, error: new UsageError('line 1: odd', { code: 'odd' }) };
    const error = refused('p.csv', [hintless], { rows: [{ row: 2, productId: 'x' }], ids: ['amazon-us-25'] });
    expect(error).toMatchObject({
      code: 'bad_plan',
      message: 'the plan p.csv cannot be run, nothing was ordered: line 1: odd; line 2: no product "x" in the catalog',
      hint: 'list the products with: giftcodes catalog list',
    });
    const none = refused('p.csv', [hintless, { ...hintless, row: 3 }]);
    expect(none).toMatchObject({ code: 'odd' });
    expect((none as UsageError).hint).toBeUndefined();
  });

  it('a directory the system will not let us write is its own exit (8), whatever else is wrong', () => {
    const local = {
      row: 3,
      error: new LocalError('line 3: cannot write to the directory /ro', { code: 'out_not_writable' }),
    };
    expect(refused('p.csv', [exists(1), local])).toMatchObject({ exitCode: 8, code: 'out_not_writable' });
    expect(refused('p.csv', [local, exists(1)]).message).toMatch(/: line 1: f1\.csv exists; line 3: cannot write/);
  });

  it("one hint for each kind of problem, its first row's: a hint that names its row's file is not said for every row", () => {
    const held = (row: number): RowProblem => ({
      row,
      error: new UsageError(`line ${row}: codes-${row}.csv exists and holds the codes of order ord_${row}`, {
        code: 'out_exists',
        hint: `give each batch a file of its own: {batch} in the out column (codes-${row}-{batch}.csv) is the --batch name`,
      }),
    });
    const error = refused(
      'p.csv',
      Array.from({ length: 30 }, (_, i) => held(i + 1)),
    ) as UsageError;
    expect(error.hint).toBe(
      'give each batch a file of its own: {batch} in the out column (codes-1-{batch}.csv) is the --batch name',
    );
  });

  it('at most twenty problems are named, then the rest counted', () => {
    const many = Array.from({ length: 21 }, (_, i) => exists(i + 1));
    const message = refused('p.csv', many).message;
    expect(message).toMatch(/line 20: f20\.csv exists; and 1 more$/);
    expect(message).not.toContain('line 21');
    expect(refused('p.csv', many.slice(0, 20)).message).toMatch(/line 20: f20\.csv exists$/);
  });
});

describe('parsePlan with the ids the last catalog list saved', () => {
  it("the rows' own hint stays, the catalog's beside it (the --batch to add is still said)", () => {
    let hint: string | undefined;
    try {
      parse('amazon-us-25,1,a-{batch}.csv\namazn-us-50,1,b-{batch}.csv\n', ['amazon-us-25', 'amazon-us-50']);
    } catch (error) {
      hint = (error as UsageError).hint;
    }
    expect(hint).toBe(
      'give the run a batch name: add --batch "$(date +%F)" to the same command; list the products with: giftcodes catalog list',
    );
  });

  const parse = (text: string, known?: readonly string[]) =>
    parsePlan(Buffer.from(text, 'utf8'), '/plans/p.csv', undefined, undefined, known);
  const refusal = (text: string, known?: readonly string[]): string => {
    try {
      parse(text, known);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('parsePlan did not refuse');
  };

  it('a plan with nothing else wrong is not refused for them: the run checks its products online', () => {
    expect(parse('amazn-us-25,1\n', ['amazon-us-25']).map((r) => r.productId)).toEqual(['amazn-us-25']);
  });

  it("a refused plan names them, a row's bad quantity beside its typo; each bad row counted once, in line order", () => {
    expect(refusal('amazon-us-25,1,a.csv\namazn-us-25,x\namazon-us-25,2,a.csv\n', ['amazon-us-25'])).toBe(
      'the plan /plans/p.csv has 2 bad rows, nothing was ordered: line 2: quantity must be a whole number from 1 to 1,000,000, got "x"; line 2: no product "amazn-us-25" in the catalog (as catalog list last saw it); did you mean amazon-us-25?; line 3: out file /plans/a.csv is also the out file of line 1',
    );
  });

  it('without them, the refusal is what the rows alone show', () => {
    expect(refusal('amazn-us-25,x\n')).toBe(
      'the plan /plans/p.csv has 1 bad row, nothing was ordered: line 1: quantity must be a whole number from 1 to 1,000,000, got "x"',
    );
  });
});

// README: a refused plan "names every problem in one run (each line's typo, bad quantity, existing file)". A row
// whose quantity did not parse hid the other rows' typo, file format and existing file until the next run.
describe('a plan some of whose rows do not parse: the other rows checked too, said in one refusal', () => {
  const text =
    'product,quantity,out\namazon-us-2S,100,amazon-25.csv\nsteam-us-20,0,steam-20.csv\napple-us-25,25,x.xls\n';

  it("parsePlanRows keeps the rows that parse beside the bad rows' problems, and every row's product", () => {
    const { rows, problems, named } = parsePlanRows(Buffer.from(text), '/plans/p.csv');
    expect(rows.map((r) => r.row)).toEqual([2, 4]);
    expect(problems.map((p) => p.line)).toEqual([3]);
    expect(named.map((r) => r.productId)).toEqual(['amazon-us-2S', 'steam-us-20', 'apple-us-25']);
  });

  it("every problem by line in the bad-rows words, each kind's hint once, exit 2 and bad_plan", () => {
    const { problems } = parsePlanRows(Buffer.from(text), '/plans/p.csv');
    const error = badRowsRefusal(
      '/plans/p.csv',
      problems,
      [
        exists(2, '/plans/amazon-25.csv'),
        {
          row: 4,
          error: new UsageError('line 4: /plans/x.xls: the extension .xls names no format', {
            code: 'out_format_unknown',
            hint: 'name the file .csv in the out column',
          }),
        },
      ],
      { rows: [{ row: 2, productId: 'amazon-us-2S' }], ids: ['amazon-us-25'] },
    );
    expect(error).toMatchObject({
      exitCode: 2,
      code: 'bad_plan',
      message:
        'the plan /plans/p.csv has 3 bad rows, nothing was ordered: line 2: no product "amazon-us-2S" in the catalog; did you mean amazon-us-25?; line 2: /plans/amazon-25.csv exists; line 3: quantity must be a whole number from 1 to 1,000,000, got "0"; line 4: /plans/x.xls: the extension .xls names no format',
      hint: 'each row is product,quantity[,out] (a header row product,quantity,out is optional); list the products with: giftcodes catalog list; pass --force to overwrite it, or name another file in the out column; name the file .csv in the out column',
    });
  });

  it('a directory that cannot be written keeps its exit (8)', () => {
    const { problems } = parsePlanRows(Buffer.from(text), '/plans/p.csv');
    const local = { row: 2, error: new LocalError('line 2: cannot write to the directory /ro', { code: 'x' }) };
    expect(badRowsRefusal('/plans/p.csv', problems, [local])).toMatchObject({ exitCode: 8, code: 'bad_plan' });
  });
});
