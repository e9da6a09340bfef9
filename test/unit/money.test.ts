import { describe, expect, it } from 'vitest';
import { currencyDecimals, formatMoney, majorUnits, spokenMoney } from '../../src/money.js';

describe('money for a person', () => {
  it('writes two-decimal currencies in their major unit, exactly', () => {
    expect(formatMoney(2500, 'USD')).toBe('25.00 USD');
    expect(formatMoney(29, 'eur')).toBe('0.29 EUR');
    expect(formatMoney(5, 'GBP')).toBe('0.05 GBP');
    expect(formatMoney(250000, 'USD')).toBe('2500.00 USD');
    expect(formatMoney(-1999, 'USD')).toBe('-19.99 USD');
    expect(formatMoney(0, 'USD')).toBe('0.00 USD');
  });

  it('for a person (a question, a summary line, a table) groups the thousands; for a file or a program, whole', () => {
    expect(spokenMoney(500000000, 'USD')).toBe('5,000,000.00 USD');
    expect(spokenMoney(99999, 'usd')).toBe('999.99 USD');
    expect(spokenMoney(-123456789, 'USD')).toBe('-1,234,567.89 USD');
    expect(spokenMoney(1234567, 'JPY')).toBe('1,234,567 JPY');
    expect(spokenMoney(1234567, 'KWD')).toBe('1,234.567 KWD');
    expect(spokenMoney(2 ** 60, 'USD')).toBe(`${2 ** 60} USD`);
    expect(formatMoney(500000000, 'USD')).toBe('5000000.00 USD');
  });

  it('follows ISO 4217 for currencies without cents or with thousandths', () => {
    expect(currencyDecimals('JPY')).toBe(0);
    expect(formatMoney(500, 'JPY')).toBe('500 JPY');
    expect(currencyDecimals('kwd')).toBe(3);
    expect(formatMoney(1234, 'KWD')).toBe('1.234 KWD');
    expect(formatMoney(7, 'BHD')).toBe('0.007 BHD');
    expect(currencyDecimals('CLF')).toBe(4);
    expect(currencyDecimals('HUF')).toBe(2);
  });

  it('leaves an amount that is not a safe integer as the API sent it', () => {
    expect(majorUnits(12.5, 'USD')).toBe('12.5');
    expect(majorUnits(2 ** 60, 'USD')).toBe(String(2 ** 60));
  });
});
