// A key is never printed whole: these helpers are the only way a key reaches text.

const KEY_PATTERN = /\b(sc_(?:test|live)_)([A-Za-z0-9_-]+)/g;

/** `sc_live_…3f9a`: the prefix says which environment, the last four say which key. */
export function maskKey(key: string): string {
  const match = /^(sc_(?:test|live)_)(.*)$/.exec(key);
  const prefix = match?.[1] ?? '';
  const rest = match?.[2] ?? key;
  const tail = rest.length > 8 ? rest.slice(-4) : '';
  return `${prefix}…${tail}`;
}

/** Masks every key-shaped token in a text: the last net before anything is written. */
export function redactKeys(text: string, extraSecrets: readonly string[] = []): string {
  let out = text.replace(KEY_PATTERN, (_m, prefix: string, rest: string) => maskKey(prefix + rest));
  for (const secret of extraSecrets) {
    if (secret.length >= 8) out = out.split(secret).join(maskKey(secret));
  }
  return out;
}

export type KeyEnvironment = 'test' | 'live';

export function environmentOfKey(key: string): KeyEnvironment | undefined {
  if (key.startsWith('sc_test_')) return 'test';
  if (key.startsWith('sc_live_')) return 'live';
  return undefined;
}
