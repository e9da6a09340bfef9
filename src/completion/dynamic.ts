// Values for TAB that depend on the user's files: profile names and cached product ids. Plain fs only
// (no conf, no zod, never the network), because a shell waits for this on every TAB.
import { readFileSync } from 'node:fs';
import { configDir, configFile } from '../config/paths.js';
import { readCatalogCache } from '../output/catalog-cache.js';
import type { DynamicSource } from './names.js';

export function dynamicValues(source: DynamicSource, env: NodeJS.ProcessEnv): string[] {
  const dir = configDir(env);
  return source === 'products' ? readCatalogCache(dir) : profileNames(dir);
}

function profileNames(dir: string): string[] {
  try {
    const config: unknown = JSON.parse(readFileSync(configFile(dir), 'utf8'));
    if (!config || typeof config !== 'object') return [];
    const { profiles, defaultProfile } = config as { profiles?: unknown; defaultProfile?: unknown };
    const names = profiles && typeof profiles === 'object' ? Object.keys(profiles) : [];
    if (typeof defaultProfile === 'string' && !names.includes(defaultProfile)) names.unshift(defaultProfile);
    return names;
  } catch {
    return [];
  }
}
