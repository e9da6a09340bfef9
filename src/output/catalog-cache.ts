// The product ids of the last `catalog list`, for shell completion: TAB must never call the network. One file
// per profile and base URL: the ids of one server's catalog are no use on another's command line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir } from '../config/paths.js';
import { writeFileAtomicSync } from '../files/atomic.js';
import { redactKeys } from '../secrets.js';

/** Whose catalog: a profile, at a base URL (normalised as the client uses it). */
export interface CacheTarget {
  readonly profile: string;
  readonly baseUrl: string;
}

/** The cache file of one profile and base URL; a short hash keeps any URL a safe file name. */
export function catalogCacheFile(dir: string, target: CacheTarget): string {
  return join(dir, `catalog-cache-${fnv1a(`${target.profile}\n${target.baseUrl}`)}.json`);
}

/** A product's unit price as the catalog gave it: minor units and an ISO 4217 currency. */
export interface UnitPrice {
  readonly amount: number;
  readonly currency: string;
}

export function saveCatalogCache(
  dir: string,
  target: CacheTarget,
  ids: readonly string[],
  prices: Readonly<Record<string, UnitPrice>> = {},
): void {
  try {
    // Made here if it is not there: reading the config no longer makes it (config/store.ts open).
    ensurePrivateDir(dir);
    const body = { savedAt: new Date().toISOString(), profile: target.profile, baseUrl: target.baseUrl, ids, prices };
    writeFileAtomicSync(catalogCacheFile(dir, target), redactKeys(`${JSON.stringify(body)}\n`));
  } catch {
    // A cache is a convenience: failing to write it must never fail the command.
  }
}

export function readCatalogCache(dir: string, target: CacheTarget): string[] {
  const { ids } = readCache(dir, target);
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}

/** The unit prices the last `catalog list` of this profile and base URL saw, by product id (`order list`'s amounts). */
export function readCatalogPrices(dir: string, target: CacheTarget): Map<string, UnitPrice> {
  const { prices } = readCache(dir, target);
  const out = new Map<string, UnitPrice>();
  if (!prices || typeof prices !== 'object') return out;
  for (const [id, price] of Object.entries(prices as Record<string, unknown>)) {
    const p = price as Partial<UnitPrice> | null;
    if (p && Number.isSafeInteger(p.amount) && typeof p.currency === 'string')
      out.set(id, { amount: p.amount!, currency: p.currency });
  }
  return out;
}

function readCache(dir: string, target: CacheTarget): { ids?: unknown; prices?: unknown } {
  try {
    const parsed: unknown = JSON.parse(readFileSync(catalogCacheFile(dir, target), 'utf8'));
    if (!parsed || typeof parsed !== 'object') return {};
    const cache = parsed as { ids?: unknown; prices?: unknown; profile?: unknown; baseUrl?: unknown };
    // A hash collision must not offer another server's ids.
    return cache.profile === target.profile && cache.baseUrl === target.baseUrl ? cache : {};
  } catch {
    return {};
  }
}

/** 32-bit FNV-1a, hex: a file name, not a secret (TAB should not load node:crypto). */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
