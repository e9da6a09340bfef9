// A flag's range in its error, as a person reads numbers elsewhere: `from 1 to 1,000,000`, the way the guided
// order's quantity question and the docs write it (it read `from 1 to 1000000` beside a prompt's `1 to 1,000,000`).
// A port is a number nobody groups: `from 0 to 65535`.
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { integer, portNumber } from '../../src/commands/parse.js';
import { MAX_QUANTITY } from '../../src/orders/limits.js';

const refusal = (parse: (value: string) => number, value: string): unknown => {
  try {
    parse(value);
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('a whole-number flag out of its range', () => {
  it('--quantity: the range grouped, what was given as given', () => {
    const error = refusal(integer(1, MAX_QUANTITY), '0');
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({ message: 'expected a whole number from 1 to 1,000,000, got "0"' });
    expect(refusal(integer(1, MAX_QUANTITY), '1000001')).toMatchObject({
      message: 'expected a whole number from 1 to 1,000,000, got "1000001"',
    });
    expect(refusal(integer(0, 600_000), '-1')).toMatchObject({
      message: 'expected a whole number from 0 to 600,000, got "-1"',
    });
  });

  it('a port: its range as ports are written', () => {
    expect(refusal(portNumber, '70000')).toMatchObject({
      message: 'expected a whole number from 0 to 65535, got "70000"',
    });
    // Not a number at all: the range is said too (a person's day: `10.5` was told no range, `-3` was).
    expect(refusal(portNumber, 'x')).toMatchObject({ message: 'expected a whole number from 0 to 65535, got "x"' });
    expect(refusal(integer(1, MAX_QUANTITY), '10.5')).toMatchObject({
      message: 'expected a whole number from 1 to 1,000,000, got "10.5"',
    });
    expect(portNumber('4010')).toBe(4010);
  });

  it('values within the range pass', () => {
    expect(integer(1, MAX_QUANTITY)('1000000')).toBe(1_000_000);
    expect(integer(1, MAX_QUANTITY)(' 7 ')).toBe(7);
  });
});

// The errors write 1,000,000 and the guided order and a plan's cell take 1,000; --quantity 1,000 was refused.
describe('a whole number typed grouped', () => {
  it('is read where the range is written grouped: digits in threes after the first group, nothing else', () => {
    const quantity = integer(1, MAX_QUANTITY);
    expect(quantity('1,000')).toBe(1000);
    expect(quantity(' 1,000,000 ')).toBe(1_000_000);
    expect(quantity('999')).toBe(999);
    for (const odd of ['1,5', '1,00', '1.000', '10k', ',100', '1,000,', '1,,000', '-1,000', '1 000'])
      expect(refusal(quantity, odd), odd).toMatchObject({
        message: `expected a whole number from 1 to 1,000,000, got "${odd}"`,
      });
    expect(refusal(quantity, '1,000,001')).toMatchObject({
      message: 'expected a whole number from 1 to 1,000,000, got "1,000,001"',
    });
  });

  it('never for a port, written ungrouped', () => {
    expect(refusal(portNumber, '8,080')).toMatchObject({
      message: 'expected a whole number from 0 to 65535, got "8,080"',
    });
    expect(portNumber('8080')).toBe(8080);
  });
});
