// A key is never printed whole: these helpers are the only way a key reaches text.

// Everything up to a separator counts as part of the key, so a key with `.`, `/`, `+` or `=` is masked whole.
// The prefix is matched in any case and with any of its characters JSON-escaped (`sc\u005flive_`), and the
// body may hold `\uXXXX` escapes (`sc_live_ab\u005fcd`): a server that echoes a key escaped or upper-cased
// must not get it printed. A key starts a word: a plainly spelled prefix preceded by a letter, a digit or an
// underscore is part of another name (a profile `misc_test_shop`, a product `misc_test_pack`) and is left
// alone; an escape right before it (`\n`, `\u000a`) still counts as a boundary, since the text it stands for
// ends there. An escape whose backslashes were lost on the way (an error title turned into a code:
// `bad_key_sc_u005flive_`) still counts in the prefix, and such a prefix needs no boundary: no name is
// spelled that way.
// A masked key (`sc_live_…3f9a`) is left as it is.
const ESCAPE = String.raw`\\+u[0-9a-fA-F]{4}`;
function escapable(text: string): string {
  const hex = (ch: string): string => ch.charCodeAt(0).toString(16);
  return [...text].map((ch) => `(?:${ch}|[\\\\_]*u00(?:${hex(ch.toLowerCase())}|${hex(ch.toUpperCase())}))`).join('');
}
const PREFIX = `(?:${escapable('sc_')}(?:${escapable('test')}|${escapable('live')})${escapable('_')})`;
/** Before a plainly spelled prefix: not a word character, unless that character ends an escape (`\n`, `\u000a`). */
const WORD_START = String.raw`(?:(?<![A-Za-z0-9_])|(?<=\\[A-Za-z])|(?<=\\u[0-9a-fA-F]{4})|(?!sc_(?:test|live)_))`;
const KEY_PATTERN = new RegExp(`${WORD_START}(${PREFIX})((?:${ESCAPE}|[^\\s"'\`<>,;()[\\]{}…\\\\])+)`, 'gi');

/** `\u005f` escapes (any number of backslashes; none in a prefix) read back as the characters they stand for. */
function unescapeKey(text: string, inPrefix = false): string {
  const escape = inPrefix ? /[\\_]*u00([0-9a-fA-F]{2})/g : /\\+u([0-9a-fA-F]{4})/g;
  return text.replace(escape, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** `sc_live_…3f9a`: the prefix says which environment, the last four say which key. */
export function maskKey(key: string): string {
  const match = /^(sc_(?:test|live)_)(.*)$/i.exec(key);
  const prefix = match?.[1] ?? '';
  const rest = match?.[2] ?? key;
  // Only a plain tail is shown: a `"` or `\` in it would break the JSON document the mask is written into.
  const last = rest.slice(-4);
  const tail = rest.length > 8 && !/["\\]/.test(last) ? last : '';
  return `${prefix}…${tail}`;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A known secret as it may stand in text: any case, each character as it is, JSON-escaped (`\"`, `\\`) or
 * as `\uXXXX`, and split across lines (whitespace or an escaped line break between any two characters).
 */
function secretPattern(secret: string): RegExp {
  const between = String.raw`(?:\s|\\+[nrt])*`;
  const char = (c: string): string => {
    // Raw, or JSON-escaped once or twice (a backslash as 4, 2 or 1, longest first, so masking takes whole
    // escape units and the JSON document stays valid), or as \uXXXX.
    const forms =
      c === '\\'
        ? [String.raw`\\\\\\\\`, String.raw`\\\\`, String.raw`\\`]
        : c === '"'
          ? [String.raw`\\*"`]
          : [escapeRegExp(c)];
    forms.push(String.raw`\\+u` + c.charCodeAt(0).toString(16).padStart(4, '0'));
    return `(?:${forms.join('|')})`;
  };
  return new RegExp([...secret].map(char).join(between), 'gi');
}

/** Masks every key-shaped token in a text: the last net before anything is written. */
export function redactKeys(text: string, extraSecrets: readonly string[] = []): string {
  return redactWith(text, extraSecrets, true);
}

/**
 * `screen` skips a pattern when a plain search proves it cannot match: compiling the patterns costs more than
 * the rest of a short command's output (~2–4 ms of `ping`), and most text holds no key. Exported for the
 * test that screened and unscreened redaction agree.
 */
export function redactWith(text: string, extraSecrets: readonly string[], screen: boolean): string {
  // Known secrets first, longest first, while they still stand whole in the text; then anything key-shaped.
  let out = text;
  for (const secret of [...extraSecrets].sort((a, b) => b.length - a.length)) {
    if (secret.length < 8) continue;
    out = out.split(secret).join(maskKey(secret));
    // Escaped, upper-cased or split across lines, as a server may echo it.
    if (!screen || mayHoldSecret(out, secret)) out = out.replace(secretPattern(secret), maskKey(secret));
  }
  if (screen && !mayHoldKey(out)) return out;
  return out.replace(KEY_PATTERN, (_m, prefix: string, rest: string) =>
    maskKey(unescapeKey(prefix, true).toLowerCase() + unescapeKey(rest)),
  );
}

/**
 * Whether a text may hold a match of KEY_PATTERN. Every escaped form of a prefix character holds `u00`; with
 * none in the text, a match starts with `sc_test_` or `sc_live_` spelled plainly (any case), followed by a
 * character of a key's body or a `\uXXXX` escape. A masked key (`sc_test_…7e2d`, which `ping`, `status` and
 * `login` print) is followed by `…` and is ruled out.
 */
export function mayHoldKey(text: string): boolean {
  // Plain string searches: a regular expression in any case costs ~0.2 ms to compile, a tenth of what this saves.
  const lower = text.toLowerCase();
  if (lower.includes('u00')) return true;
  for (const prefix of ['sc_test_', 'sc_live_']) {
    for (let at = lower.indexOf(prefix); at >= 0; at = lower.indexOf(prefix, at + 1)) {
      const next = lower[at + prefix.length];
      // Anything counts unless it ends a key (as in KEY_PATTERN's body); a backslash may start a `\uXXXX` escape.
      if (next !== undefined && next.trim() !== '' && !NOT_IN_KEY.includes(next)) return true;
    }
  }
  return false;
}
/** The characters that end a key in KEY_PATTERN's body, besides whitespace (a backslash may start an escape). */
const NOT_IN_KEY = '"\'`<>,;()[]{}…';

/**
 * Whether a text may hold the secret in a form secretPattern matches. A text without a backslash can hold it
 * only as its characters in order, in any case, with whitespace between any two: so the text, upper-cased and
 * without whitespace, holds the secret so. With a backslash (escapes), each of its characters must stand
 * somewhere as itself (in any case) or as a `\uXXXX` escape: one missing rules it out.
 */
export function mayHoldSecret(text: string, secret: string): boolean {
  const upper = text.toUpperCase();
  if (!text.includes('\\')) return holdsSpaced(upper, secret.toUpperCase().replace(/\s+/g, ''));
  for (const c of new Set(secret)) {
    const escape = `U${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`;
    if (!upper.includes(c.toUpperCase()) && !upper.includes(escape)) return false;
  }
  return true;
}

/**
 * Whether `text` without its whitespace holds `wanted` (which has none): `text.replace(/\s+/g, '').includes(wanted)`
 * without the copy. A plan's `--json` summary of 1,000 rows is 300 KB, most of it indentation: the copy and its
 * search took 25 ms of the run (issue 33). Each occurrence of the first character is followed on, over whitespace.
 */
function holdsSpaced(text: string, wanted: string): boolean {
  if (wanted === '') return true;
  const first = wanted[0]!;
  for (let at = text.indexOf(first); at >= 0; at = text.indexOf(first, at + 1)) {
    let i = at + 1;
    let j = 1;
    while (j < wanted.length && i < text.length) {
      const c = text[i]!;
      if (c === wanted[j]) j++;
      else if (!SPACE.test(c)) break;
      i++;
    }
    if (j === wanted.length) return true;
  }
  return false;
}
const SPACE = /\s/;

/** The environments of a profile's keys, in the words --env and default-env take. */
export const KEY_ENVIRONMENTS = ['test', 'live'] as const;
export type KeyEnvironment = (typeof KEY_ENVIRONMENTS)[number];

/** The environment a profile's other key is for. */
export function otherEnvironment(environment: KeyEnvironment): KeyEnvironment {
  return environment === 'test' ? 'live' : 'test';
}

/** A profile's two keys as they may be shown: masked, or null when absent. */
export function maskedKeys(keys: { test?: string | undefined; live?: string | undefined } | undefined): {
  test: string | null;
  live: string | null;
} {
  return { test: keys?.test ? maskKey(keys.test) : null, live: keys?.live ? maskKey(keys.live) : null };
}

export function environmentOfKey(key: string): KeyEnvironment | undefined {
  if (key.startsWith('sc_test_')) return 'test';
  if (key.startsWith('sc_live_')) return 'live';
  return undefined;
}

/** Terminal control characters (C0, DEL, C1) a hostile server could use to rewrite the screen. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Server text made safe to print: control characters become spaces. */
export function stripControl(text: string): string {
  return text.replace(CONTROL, ' ');
}
