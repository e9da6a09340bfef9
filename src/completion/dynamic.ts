// Values for TAB that depend on the user's files: profile names, cached product ids, recorded order ids and
// pending intent keys. Plain fs only (no conf, no zod, never the network), because a shell waits for this on
// every TAB.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { byCodePoint } from '../compare.js';
import { configDir, configFile } from '../config/paths.js';
import { DEFAULT_BASE_URL, normaliseBaseUrl } from '../config/resolve.js';
import { readCatalogCache } from '../output/catalog-cache.js';
import type { DynamicSource } from './names.js';
import type { Intent } from '../journal/intent.js';

/**
 * `words`: the command line before the word being completed, as the shell split it (the scripts pass it after
 * `--`). Its --profile, --base-url and --env choose whose values TAB offers, over GIFTCODES_PROFILE and
 * GIFTCODES_BASE_URL, as they would for the command: `--profile eu order place --product <TAB>` offered the
 * default profile's catalog, another server's ids (a person's day).
 */
export async function dynamicValues(
  source: DynamicSource,
  env: NodeJS.ProcessEnv,
  words: readonly string[] = [],
): Promise<string[]> {
  const dir = configDir(env);
  const line = lineFlags(words);
  const ofLine = (r: Record<string, unknown>): boolean =>
    (line.profile === undefined || r.profile === line.profile) &&
    (line.env === undefined || r.environment === line.env);
  switch (source) {
    case 'products':
      return readCatalogCache(
        dir,
        activeTarget(dir, {
          ...env,
          ...(line.profile !== undefined ? { GIFTCODES_PROFILE: line.profile } : {}),
          ...(line.baseUrl !== undefined ? { GIFTCODES_BASE_URL: line.baseUrl } : {}),
        }),
      );
    case 'orders':
      // Order ids of the local record, newest first; an intent that never got one is named by its key.
      return unique(
        [...(await journalIntents(join(dir, 'journal'))), ...jsonFiles(join(dir, 'history'))]
          .filter(ofLine)
          .sort(newestFirst)
          .map((r) => str(r.orderId) ?? str(r.key)),
      );
    case 'intents':
      return unique(
        (await journalIntents(join(dir, 'journal')))
          .filter(ofLine)
          .sort(newestFirst)
          .map((r) => str(r.key)),
      );
    case 'profiles':
      return profileNames(dir);
  }
}

/** The --profile, --base-url and --env of a command line (`--flag value`, `--flag=value`, or bash's `--flag = value`). */
function lineFlags(words: readonly string[]): { profile?: string; baseUrl?: string; env?: string } {
  const found: { profile?: string; baseUrl?: string; env?: string } = {};
  const names = { '--profile': 'profile', '--base-url': 'baseUrl', '--env': 'env' } as const;
  for (let i = 0; i < words.length; i++) {
    const [flag, inline] = (words[i] as string).split(/=(.*)/s, 2) as [string, string | undefined];
    const name = names[flag as keyof typeof names];
    if (name === undefined) continue;
    let value = inline;
    if (value === undefined) {
      value = words[i + 1] === '=' ? words[i + 2] : words[i + 1];
      i += words[i + 1] === '=' ? 2 : 1;
    }
    if (value !== undefined && value !== '') found[name] = value;
  }
  return found;
}

function readConfig(dir: string): Record<string, unknown> | undefined {
  try {
    const config: unknown = JSON.parse(readFileSync(configFile(dir), 'utf8'));
    return config && typeof config === 'object' ? (config as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function profileNames(dir: string): string[] {
  const config = readConfig(dir);
  if (!config) return [];
  const { profiles, defaultProfile } = config;
  const names = profiles && typeof profiles === 'object' ? Object.keys(profiles) : [];
  if (typeof defaultProfile === 'string' && !names.includes(defaultProfile)) names.unshift(defaultProfile);
  return names;
}

/** The profile and base URL a command typed now would use (flags on the line are not seen): whose catalog TAB offers. */
function activeTarget(dir: string, env: NodeJS.ProcessEnv): { profile: string; baseUrl: string } {
  const config = readConfig(dir);
  const profile =
    env.GIFTCODES_PROFILE || (typeof config?.defaultProfile === 'string' ? config.defaultProfile : 'default');
  const profiles =
    config?.profiles && typeof config.profiles === 'object' ? (config.profiles as Record<string, unknown>) : {};
  const stored =
    profiles[profile] && typeof profiles[profile] === 'object' ? (profiles[profile] as Record<string, unknown>) : {};
  const raw = env.GIFTCODES_BASE_URL || str(stored.baseUrl) || DEFAULT_BASE_URL;
  let baseUrl = raw;
  try {
    baseUrl = normaliseBaseUrl(raw);
  } catch {
    // Not a URL: no cache was written for it, and none is found.
  }
  return { profile, baseUrl };
}

/**
 * The journal's intents: its files, and those a run's log holds until it is compacted into files (journal/log.ts). A
 * killed run's orders were offered by no TAB until some command compacted its log (a support review). The log reader
 * is loaded only where there is a log.
 */
async function journalIntents(dir: string): Promise<Record<string, unknown>[]> {
  const files = jsonFiles(dir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return files;
  }
  if (!names.some((name) => name.endsWith('.log'))) return files;
  // Folded as the journal folds them (a log's copy over a file's, one a log ended gone), its files read as they are:
  // TAB offers what it can read.
  const { foldIntents, otherLogs } = await import('../journal/log.js');
  const none = { live: new Map(), ended: new Set<string>() };
  const folded = foldIntents(files as unknown as Intent[], otherLogs(dir, undefined, names).logs, none);
  return [...folded.values()].map((f) => f.intent as unknown as Record<string, unknown>);
}

/** The objects a directory holds: one per .json file, one per line of a .jsonl file (the order record's, history.ts). */
function jsonFiles(dir: string): Record<string, unknown>[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: Record<string, unknown>[] = [];
  const add = (text: string): void => {
    try {
      const value: unknown = JSON.parse(text);
      if (value && typeof value === 'object') out.push(value as Record<string, unknown>);
    } catch {
      // Half-written or damaged: TAB offers what it can read.
    }
  };
  for (const name of names) {
    const lines = name.endsWith('.jsonl');
    if (!lines && !name.endsWith('.json')) continue;
    let text: string;
    try {
      text = readFileSync(join(dir, name), 'utf8');
    } catch {
      continue;
    }
    if (lines) for (const line of text.split('\n')) add(line);
    else add(text);
  }
  return out;
}

function newestFirst(a: Record<string, unknown>, b: Record<string, unknown>): number {
  return byCodePoint(str(b.createdAt) ?? '', str(a.createdAt) ?? '');
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function unique(values: readonly (string | undefined)[]): string[] {
  return [...new Set(values.filter((value): value is string => value !== undefined))];
}
