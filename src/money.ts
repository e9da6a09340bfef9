// Money as a person reads it. The API gives every amount as an integer in the currency's minor unit
// (2500 USD is $25.00); messages and tables show the major unit with the currency's own number of
// decimals (ISO 4217), and JSON keeps the API's integers untouched. Integer arithmetic only: a float
// division would print 0.29 USD for 29 cents as 0.28999….
// Two forms: spokenMoney, its thousands grouped (5,000,000.00 USD), is what a person reads, in a sentence or a
// table (order show, order place's result, order list, catalog list, a plan's summary, the guided order's list and
// question, the local server's insufficient_funds message); formatMoney, ungrouped (5000000.00 USD), is how a
// person may type an amount to search the guided order's list (src/orders/guided.ts), never what is shown; files
// and machine output keep the amount whole: majorUnits alone is the `display` of CSV, JSON Lines and xlsx.
import { grouped } from './output/words.js';

/** ISO 4217 currencies whose minor unit is not a hundredth. Every other code has two decimals. */
const DECIMALS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

/** An amount in the currency's minor unit, as the API gives money: `{ "amount": 2500, "currency": "USD" }`. */
export interface Money {
  amount: number;
  currency: string;
}

const CURRENCY = /^[A-Za-z]{3}$/;

/** The value as money when it is an object with an integer `amount` and a three-letter `currency`; else undefined. */
export function moneyOf(value: unknown): Money | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { amount, currency } = value as Record<string, unknown>;
  return typeof amount === 'number' &&
    Number.isSafeInteger(amount) &&
    typeof currency === 'string' &&
    CURRENCY.test(currency)
    ? { amount, currency }
    : undefined;
}

/** How many decimals the currency's minor unit has (2 unless ISO 4217 says otherwise). */
export function currencyDecimals(currency: string): number {
  return DECIMALS[currency.toUpperCase()] ?? 2;
}

/** An integer amount in minor units as a decimal string in the major unit: 2500 USD → "25.00", 500 JPY → "500". */
export function majorUnits(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor)) return String(minor);
  const decimals = currencyDecimals(currency);
  const sign = minor < 0 ? '-' : '';
  const digits = String(Math.abs(minor)).padStart(decimals + 1, '0');
  if (decimals === 0) return `${sign}${digits}`;
  return `${sign}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/**
 * An amount ungrouped: 2500 USD → "25.00 USD", 500000000 USD → "5000000.00 USD", as a file or a program reads it.
 * A person reads spokenMoney.
 */
export function formatMoney(minor: number, currency: string): string {
  return `${majorUnits(minor, currency)} ${currency.toUpperCase()}`;
}

/**
 * An amount as a person reads it, in a sentence (the live order's question, a plan's total, an error) or a table
 * (order list's AMOUNT, order show's amount): 500000000 USD → "5,000,000.00 USD", its thousands grouped, since
 * 500000.00 and 5000000.00 differ by one digit.
 */
export function spokenMoney(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor)) return formatMoney(minor, currency);
  const [whole = '', fraction] = majorUnits(Math.abs(minor), currency).split('.');
  return `${minor < 0 ? '-' : ''}${grouped(Number(whole))}${fraction ? `.${fraction}` : ''} ${currency.toUpperCase()}`;
}
