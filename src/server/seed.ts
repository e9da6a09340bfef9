// The world the server starts with: resellers (keys, wallets, supply) and the catalog.
import { readFile } from 'node:fs/promises';

export type Environment = 'test' | 'live';

export interface SeedProduct {
  id: string;
  name: string;
  brand: string;
  /** Price of one unit in minor units of `currency`; also the face value of its codes. */
  price: number;
  currency: string;
  /** Units a reseller holds of this product in live, unless the reseller's seed says otherwise. */
  supply: number;
  /** Put in front of every code of this product (tests use `=` to exercise CSV escaping). */
  codePrefix?: string;
  /** Every order of this product ends `failed`. */
  fail?: boolean;
}

export interface SeedReseller {
  id: string;
  keys: { test: string[]; live: string[] };
  /** Live balance per currency, in minor units. */
  wallet: Record<string, number>;
  /** Live supply per product id; products not named get the product's `supply`. */
  supply: Record<string, number>;
}

export interface Seed {
  resellers: SeedReseller[];
  products: SeedProduct[];
}

/** sc_test_ or sc_live_, then at least 16 of [A-Za-z0-9_]. */
export const API_KEY_PATTERN = /^sc_(test|live)_[A-Za-z0-9_]{16,240}$/;

const usd = (id: string, name: string, brand: string, price: number, supply = 1_000_000): SeedProduct => ({
  id,
  name,
  brand,
  price,
  currency: 'USD',
  supply,
});

export function defaultSeed(): Seed {
  return {
    resellers: [
      {
        id: 'rs_demo',
        keys: { test: ['sc_test_demo_4f3c9a1b7e2d'], live: ['sc_live_demo_9b1e6d2c8a7f'] },
        wallet: { USD: 500_000, EUR: 200_000, GBP: 100_000 },
        supply: {},
      },
      {
        id: 'rs_small',
        keys: { test: ['sc_test_small_2a7c5e9d1b3f'], live: ['sc_live_small_6d8f0a3c5e1b'] },
        wallet: { USD: 5_000 },
        supply: {},
      },
    ],
    products: [
      usd('amazon-us-10', 'Amazon.com Gift Card $10', 'Amazon', 1000),
      usd('amazon-us-25', 'Amazon.com Gift Card $25', 'Amazon', 2500),
      usd('amazon-us-50', 'Amazon.com Gift Card $50', 'Amazon', 5000),
      usd('amazon-us-100', 'Amazon.com Gift Card $100', 'Amazon', 10000),
      usd('apple-us-25', 'Apple Gift Card $25', 'Apple', 2500),
      usd('apple-us-50', 'Apple Gift Card $50', 'Apple', 5000),
      usd('google-play-us-25', 'Google Play Gift Card $25', 'Google Play', 2500),
      usd('steam-us-20', 'Steam Wallet Card $20', 'Steam', 2000),
      usd('steam-us-50', 'Steam Wallet Card $50', 'Steam', 5000),
      usd('netflix-us-30', 'Netflix Gift Card $30', 'Netflix', 3000, 5),
      {
        id: 'zalando-de-25',
        name: 'Zalando Gutschein 25 €',
        brand: 'Zalando',
        price: 2500,
        currency: 'EUR',
        supply: 1_000_000,
      },
      {
        id: 'tesco-uk-20',
        name: 'Tesco Gift Card £20',
        brand: 'Tesco',
        price: 2000,
        currency: 'GBP',
        supply: 1_000_000,
      },
    ],
  };
}

/** A seed file that could not be read, and the errno why, for the server's caller to word. */
export class SeedFileError extends Error {
  constructor(
    readonly file: string,
    readonly errno: string | undefined,
  ) {
    super(`cannot read seed file ${file}: ${errno ?? 'error'}`);
  }
}

export async function loadSeed(file: string): Promise<Seed> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new SeedFileError(file, (e as NodeJS.ErrnoException).code);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error(`seed file ${file} is not valid JSON`);
  }
  return parseSeed(raw);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function str(o: Obj, field: string, where: string): string {
  const v = o[field];
  if (typeof v !== 'string' || v === '') throw new Error(`seed: ${where}.${field} must be a non-empty string`);
  return v;
}

function counts(v: unknown, where: string): Record<string, number> {
  if (v === undefined) return {};
  if (!isObj(v)) throw new Error(`seed: ${where} must be an object of non-negative integers`);
  const out: Record<string, number> = {};
  for (const [k, n] of Object.entries(v)) {
    if (!isCount(n)) throw new Error(`seed: ${where}.${k} must be a non-negative integer`);
    out[k] = n;
  }
  return out;
}

/** Checks a seed document; throws an Error naming the first bad field. */
export function parseSeed(raw: unknown): Seed {
  if (!isObj(raw)) throw new Error('seed: the document must be an object');
  const defaults = defaultSeed();
  const products = raw.products === undefined ? defaults.products : parseProducts(raw.products);
  const resellers = raw.resellers === undefined ? defaults.resellers : parseResellers(raw.resellers);
  const seen = new Set<string>();
  for (const r of resellers) {
    for (const key of [...r.keys.test, ...r.keys.live]) {
      if (seen.has(key)) throw new Error(`seed: an API key of ${r.id} is used twice`);
      seen.add(key);
    }
  }
  return { resellers, products };
}

function parseProducts(v: unknown): SeedProduct[] {
  if (!Array.isArray(v) || v.length === 0) throw new Error('seed: products must be a non-empty array');
  const ids = new Set<string>();
  return v.map((p: unknown, i) => {
    const where = `products[${i}]`;
    if (!isObj(p)) throw new Error(`seed: ${where} must be an object`);
    const id = str(p, 'id', where);
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(id)) throw new Error(`seed: ${where}.id may hold only A-Z a-z 0-9 _ . -`);
    if (ids.has(id)) throw new Error(`seed: product ${id} is listed twice`);
    ids.add(id);
    const currency = str(p, 'currency', where);
    if (!/^[A-Z]{3}$/.test(currency)) throw new Error(`seed: ${where}.currency must be an ISO 4217 code`);
    if (!isCount(p.price) || p.price === 0) throw new Error(`seed: ${where}.price must be a positive integer`);
    const supply = p.supply === undefined ? 1_000_000 : p.supply;
    if (!isCount(supply)) throw new Error(`seed: ${where}.supply must be a non-negative integer`);
    const product: SeedProduct = {
      id,
      name: str(p, 'name', where),
      brand: str(p, 'brand', where),
      price: p.price,
      currency,
      supply,
    };
    if (p.codePrefix !== undefined) {
      if (typeof p.codePrefix !== 'string') throw new Error(`seed: ${where}.codePrefix must be a string`);
      product.codePrefix = p.codePrefix;
    }
    if (p.fail !== undefined) {
      if (typeof p.fail !== 'boolean') throw new Error(`seed: ${where}.fail must be a boolean`);
      product.fail = p.fail;
    }
    return product;
  });
}

function parseKeys(v: unknown, env: Environment, where: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new Error(`seed: ${where} must be an array of keys`);
  return v.map((k: unknown, i) => {
    if (typeof k !== 'string' || !API_KEY_PATTERN.test(k) || !k.startsWith(`sc_${env}_`)) {
      throw new Error(`seed: ${where}[${i}] must match sc_${env}_ followed by at least 16 of A-Z a-z 0-9 _`);
    }
    return k;
  });
}

function parseResellers(v: unknown): SeedReseller[] {
  if (!Array.isArray(v) || v.length === 0) throw new Error('seed: resellers must be a non-empty array');
  const ids = new Set<string>();
  return v.map((r: unknown, i) => {
    const where = `resellers[${i}]`;
    if (!isObj(r)) throw new Error(`seed: ${where} must be an object`);
    const id = str(r, 'id', where);
    if (ids.has(id)) throw new Error(`seed: reseller ${id} is listed twice`);
    ids.add(id);
    if (!isObj(r.keys)) throw new Error(`seed: ${where}.keys must be an object with test and live arrays`);
    // A bare number is a USD balance, the common case in hand-written seeds.
    const wallet =
      typeof r.wallet === 'number' ? counts({ USD: r.wallet }, `${where}.wallet`) : counts(r.wallet, `${where}.wallet`);
    return {
      id,
      keys: {
        test: parseKeys(r.keys.test, 'test', `${where}.keys.test`),
        live: parseKeys(r.keys.live, 'live', `${where}.keys.live`),
      },
      wallet,
      supply: counts(r.supply, `${where}.supply`),
    };
  });
}
