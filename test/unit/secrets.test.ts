import { describe, expect, it } from 'vitest';
import { maskKey, mayHoldKey, mayHoldSecret, redactKeys, redactWith, stripControl } from '../../src/secrets.js';

describe('redactKeys', () => {
  it('masks every key-shaped token, whatever characters follow the prefix', () => {
    for (const key of [
      'sc_live_ABCDEFGH/secretsecretsecret',
      'sc_test_abc.defghijklmnopqrstuv',
      'sc_live_aGVsbG8+d29ybGQ=xyzw',
      'sc_test_plain_0123456789abcdef',
    ]) {
      const text = `{"message":"key ${key} is unknown"}`;
      const out = redactKeys(text);
      expect(out, key).not.toContain(key.slice(8));
      expect(out).toContain(maskKey(key));
      expect(out.endsWith(' is unknown"}')).toBe(true);
    }
  });

  it('masks known secrets whole before the pattern can cut them', () => {
    const secret = 'sc_live_part1/part2/part3-tail';
    expect(redactKeys(`a ${secret} b`, [secret])).toBe(`a ${maskKey(secret)} b`);
    expect(redactKeys('token whsec_abcdefghijkl used', ['whsec_abcdefghijkl'])).not.toContain('whsec_abcdefghijkl');
  });

  it('keeps only the prefix and the last four characters', () => {
    expect(maskKey('sc_live_demo_9b1e6d2c8a7f')).toBe('sc_live_…8a7f');
    expect(maskKey('sc_test_short')).toBe('sc_test_…');
  });
});

describe('stripControl', () => {
  it('removes terminal control sequences a hostile server could send', () => {
    // eslint-disable-next-line no-control-regex
    expect(stripControl('ok\u001b[2Jcleared\u001b]0;title\u0007\u009b')).not.toMatch(/[\u001b\u0007\u009b]/);
    expect(stripControl('tab\tand\nnewline')).toBe('tab\tand\nnewline');
  });
});

describe('redactKeys against echoed keys', () => {
  const key = 'sc_live_Ab12_cd34_EF56gh78';
  const body = key.slice('sc_live_'.length);
  it.each([
    ['upper-cased', key.toUpperCase()],
    ['an escaped underscore in the body', key.replace('Ab12_', String.raw`Ab12\u005f`)],
    ['an escaped prefix', String.raw`sc\u005flive\u005f` + body],
    ['an escaped and upper-cased prefix', String.raw`S\u0043_LIVE_` + body],
    ['escaped quotes around it', String.raw`\"${key}\"`],
    ['after a JSON-escaped newline', String.raw`line\n${key}`],
  ])('masks a key echoed with %s', (_what, echoed) => {
    const out = redactKeys(`{"detail":"bad key ${echoed} here"}`);
    expect(out.toLowerCase()).not.toContain(body.toLowerCase());
    expect(out.toLowerCase()).not.toContain(body.slice(0, 8).toLowerCase());
    expect(out).toContain('here"}');
  });
});

describe('redactKeys, regressions from the fuzz test', () => {
  it('masks a key whose escaped prefix lost its backslashes (a problem title turned into an error code)', () => {
    const out = redactKeys('http 400 bad_key_sc_u005ftest_u005faaaaaaaaaaaa: revoked');
    expect(out).not.toContain('aaaaaaaa');
    expect(out).toContain(': revoked');
  });
});

describe('redactKeys: known secrets as a server may echo them', () => {
  it('masks a known secret in its JSON-escaped form, even with quotes and backslashes in it', () => {
    const secret = 'sc_test_we"ird\\key_0123';
    const text = JSON.stringify({ error: { message: `bad key ${secret}` } });
    const out = redactKeys(text, [secret]);
    expect(out).not.toContain(JSON.stringify(secret).slice(1, -1));
    expect(out).not.toContain('ird');
    expect(() => JSON.parse(out) as unknown).not.toThrow();
  });

  it('masks a known secret split across lines, even one the pattern cannot see (a quote right after the prefix)', () => {
    // Found by test/fuzz/redaction.test.ts (seed 7): such a key, given in GIFTCODES_API_KEY, was printed whole.
    const secret = 'sc_live_"s\\XM.u0H5XpxFrjyO2dSY\\6IgWgmaouJ';
    for (const text of [
      `a ${secret.slice(0, 20)}\n${secret.slice(20)} b`,
      JSON.stringify({ m: `${secret.slice(0, 12)}\n${secret.slice(12)}` }),
      secret.toUpperCase(),
    ]) {
      const out = redactKeys(text, [secret]);
      expect(out.replace(/\s|\\n/g, '').toLowerCase(), text).not.toContain('xm.u0h5xpx');
    }
  });

  it('leaves a masked key as it is', () => {
    expect(redactKeys('sc_live_…8a7f and SC_TEST_…')).toBe('sc_live_…8a7f and SC_TEST_…');
  });

  it('keeps only the prefix and the last four characters', () => {
    expect(maskKey('sc_live_demo_9b1e6d2c8a7f')).toBe('sc_live_…8a7f');
    expect(maskKey('sc_test_short')).toBe('sc_test_…');
  });
});

describe('redactKeys: the screen that skips patterns never changes the result', () => {
  // A seeded generator: the same texts every run.
  let seed = 0x9e3779b9;
  const random = (): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const escapeChar = (c: string): string =>
    `${'\\'.repeat(1 + Math.floor(random() * 3))}u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  /** The key as a server may echo it: as is, upper-cased, some characters escaped, split over lines, JSON-quoted. */
  const disguise = (key: string): string => {
    const form = pick(['plain', 'upper', 'escape', 'split', 'spaced', 'json', 'underscore-escape']);
    if (form === 'upper') return key.toUpperCase();
    if (form === 'escape') return [...key].map((c) => (random() < 0.3 ? escapeChar(c) : c)).join('');
    if (form === 'underscore-escape') return key.replace(/_/, '_u005f'.slice(random() < 0.5 ? 1 : 0));
    if (form === 'split') return [...key].map((c) => (random() < 0.1 ? `${c}\\n` : c)).join('');
    if (form === 'spaced')
      return [...key].map((c) => (random() < 0.1 ? `${c}${pick([' ', '\n', '\t '])}` : c)).join('');
    if (form === 'json') return JSON.stringify(key).slice(1, -1);
    return key;
  };
  const noise = [
    'status ok',
    'reseller rs_demo',
    'description: scenic',
    'http://127.0.0.1:4010',
    '{"a":1}',
    'Sc',
    'u0053',
    '\\u0073c_',
    ' ',
    '\n',
    'test_',
    'live',
    'SC_LIVE',
    '…',
    'sc_test_…7e2d',
    'key          sc_test_…7e2d (from the config file)',
    'SC_LIVE_…',
  ];
  const secrets = ['sc_test_demo_4f3c9a1b7e2d', 'sc_live_Zx9.Y/+w=_k', 'hunter2-proxy-pass', 'p"a\\ss w0rd!'];

  it('agrees with the unscreened redaction on 3,000 texts, key-bearing or not', () => {
    let changed = 0;
    for (let i = 0; i < 3000; i++) {
      const parts: string[] = [];
      for (let n = Math.floor(random() * 6); n >= 0; n--)
        parts.push(random() < 0.35 ? disguise(pick(secrets)) : pick(noise));
      const text = parts.join(pick(['', ' ', '\n', '"', ',']));
      const known = secrets.filter(() => random() < 0.6);
      const screened = redactWith(text, known, true);
      expect(screened, JSON.stringify(text)).toBe(redactWith(text, known, false));
      if (screened !== text) changed++;
    }
    // The texts must exercise the patterns, not only the screen's fast path.
    expect(changed).toBeGreaterThan(500);
  });

  it("rules out ping's output, which holds a masked key and every character of the key, without a pattern", () => {
    const key = 'sc_test_demo_4f3c9a1b7e2d';
    const ping =
      'status       ok\nenvironment  test\nreseller     rs_demo\nbase URL     http://127.0.0.1:34975\n' +
      `profile      default\nkey          ${maskKey(key)} (from the config file)\n`;
    expect(mayHoldKey(ping)).toBe(false);
    expect(mayHoldKey('a prefix alone: sc_test_ or "sc_live_", (sc_test_)')).toBe(false);
    expect(mayHoldKey('at the end: sc_live_')).toBe(false);
    expect(mayHoldSecret(ping, key)).toBe(false);
    // And still lets through every form the patterns mask.
    expect(mayHoldKey(`x ${key} y`)).toBe(true);
    expect(mayHoldKey('x SC_LIVE_abcdefgh y')).toBe(true);
    expect(mayHoldKey('x sc_live_\\u20acbcd y')).toBe(true);
    expect(redactKeys('x sc_live_\\u20acbcdefghij y')).toBe('x sc_live_…ghij y');
    expect(mayHoldKey('x \\u0073c_live_abcd y')).toBe(true);
    expect(mayHoldSecret(`a ${key.toUpperCase()} b`, key)).toBe(true);
    expect(mayHoldSecret('a sc_test_demo_4f3c\n  9a1b7e2d b', key)).toBe(true);
    expect(mayHoldSecret('a sc_test_demo_4f3c\\n9a1b7e2d b', key)).toBe(true);
    expect(mayHoldSecret('p\\"a\\\\ss w0rd!', 'p"a\\ss w0rd!')).toBe(true);
  });

  it('still masks a key whose first characters are escaped, and skips text with no key', () => {
    expect(redactKeys('key: \\u0073\\u0063_live_abcdefgh1234')).toBe('key: sc_live_…1234');
    expect(redactKeys('status ok\nreseller rs_demo', ['sc_test_demo_4f3c9a1b7e2d'])).toBe(
      'status ok\nreseller rs_demo',
    );
  });
});

describe('redactKeys: a key starts a word', () => {
  it.each([
    ['a profile', 'profile misc_test_shop'],
    ['a product id', '{"product_id":"misc_test_pack"}'],
    ['a path', 'wrote 3 codes to /tmp/misc_test_out/codes.json'],
    ['an underscore before it', 'bad_sc_live_abcdefgh1234'],
    ['a digit before it', 'x9sc_test_abcdefgh1234'],
    ['upper case in a name', 'BASIC_LIVE_STUFF and MISC_TEST_PACK'],
  ])('leaves %s alone', (_what, text) => {
    expect(redactKeys(text)).toBe(text);
  });

  it.each([
    ['at the start', 'sc_test_abcdefgh1234', 'sc_test_…1234'],
    ['after a space', 'key sc_live_abcdefgh1234', 'key sc_live_…1234'],
    ['after a slash', 'misc_test_x/sc_test_abcdefgh1234', 'misc_test_x/sc_test_…1234'],
    ['after a quote', '"sc_test_abcdefgh1234"', '"sc_test_…1234"'],
    ['after an escaped newline', String.raw`line\nsc_test_abcdefgh1234`, String.raw`line\nsc_test_…1234`],
    ['after an escaped tab', String.raw`a\tSC_LIVE_abcdefgh1234`, String.raw`a\tsc_live_…1234`],
    ['after a \\u escape', String.raw`a\u000asc_test_abcdefgh1234`, String.raw`a\u000asc_test_…1234`],
    ['after a dash', 'x-sc_test_abcdefgh1234', 'x-sc_test_…1234'],
  ])('masks a key %s', (_what, text, masked) => {
    expect(redactKeys(text)).toBe(masked);
  });

  it('masks a known secret wherever it stands, word start or not', () => {
    expect(redactKeys('misc_test_demo_4f3c9a1b7e2d', ['sc_test_demo_4f3c9a1b7e2d'])).toBe(
      'mi' + maskKey('sc_test_demo_4f3c9a1b7e2d'),
    );
  });
});
