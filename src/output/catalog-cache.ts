// The product ids of the last `catalog list`, for shell completion: TAB must never call the network. One file
// per profile and base URL: the ids of one server's catalog are no use on another's command line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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

export function saveCatalogCache(dir: string, target: CacheTarget, ids: readonly string[]): void {
  try {
    const body = { savedAt: new Date().toISOString(), profile: target.profile, baseUrl: target.baseUrl, ids };
    writeFileAtomicSync(catalogCacheFile(dir, target), redactKeys(`${JSON.stringify(body)}\n`));
  } catch {
    // A cache is a convenience: failing to write it must never fail the command.
  }
}

export function readCatalogCache(dir: string, target: CacheTarget): string[] {
  try {
    const parsed: unknown = JSON.parse(readFileSync(catalogCacheFile(dir, target), 'utf8'));
    if (!parsed || typeof parsed !== 'object') return [];
    const { ids, profile, baseUrl } = parsed as { ids?: unknown; profile?: unknown; baseUrl?: unknown };
    // A hash collision must not offer another server's ids.
    if (profile !== target.profile || baseUrl !== target.baseUrl) return [];
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
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
