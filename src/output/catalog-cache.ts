// The product ids of the last `catalog list`, for shell completion: TAB must never call the network.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../files/atomic.js';
import { redactKeys } from '../secrets.js';

const FILE = 'catalog-cache.json';

export function saveCatalogCache(dir: string, ids: readonly string[]): void {
  try {
    writeFileAtomicSync(join(dir, FILE), redactKeys(`${JSON.stringify({ savedAt: new Date().toISOString(), ids })}\n`));
  } catch {
    // A cache is a convenience: failing to write it must never fail the command.
  }
}

export function readCatalogCache(dir: string): string[] {
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(dir, FILE), 'utf8'));
    const ids = parsed && typeof parsed === 'object' ? (parsed as { ids?: unknown }).ids : undefined;
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}
