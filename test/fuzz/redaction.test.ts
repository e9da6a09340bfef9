// A server that echoes key-shaped strings back (random keys, upper-cased, JSON-escaped, quoted, split across
// lines) in every error dialect and in a 200 body's fields: no key may reach stdout, stderr, or any file
// written under the config directory, in plain, --json or --verbose mode.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/e2e.js';
import { fuzzSettings } from './check.js';

/** What the server sends next: set by each fuzz case. */
let reply: { status: number; type: string; body: string } = { status: 200, type: 'application/json', body: '{}' };
let server: Server;
let url = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(reply.status, { 'content-type': reply.type });
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const bodyChars = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'.split(''));
const keyArb = fc.record({
  env: fc.constantFrom('test', 'live'),
  body: fc.string({ unit: bodyChars, minLength: 12, maxLength: 40 }),
});

/** How the server spells the key it echoes. */
const FORMS: Record<string, (key: string) => string> = {
  plain: (key) => key,
  upper: (key) => key.toUpperCase(),
  escapedUnderscores: (key) => key.replaceAll('_', String.raw`\u005f`),
  escapedPrefix: (key) => String.raw`sc\u005f` + key.slice(3),
  quoted: (key) => String.raw`\"${key}\"`,
  afterNewline: (key) => String.raw`line\n${key}`,
  doubleEscaped: (key) => key.replaceAll('_', String.raw`\\u005f`),
};

/** Where the server puts it: each error dialect, and a 200 body. `echo` is already JSON-string-safe text. */
const DIALECTS: Record<string, (echo: string) => { status: number; type: string; body: string }> = {
  errorObject: (echo) => ({
    status: 401,
    type: 'application/json',
    body: `{"error":{"code":"invalid_key","message":"unknown key ${echo}"}}`,
  }),
  problemJson: (echo) => ({
    status: 400,
    type: 'application/problem+json',
    body: `{"type":"about:blank","title":"bad key ${echo}","status":400,"detail":"the key ${echo} is revoked"}`,
  }),
  jsonApi: (echo) => ({
    status: 422,
    type: 'application/vnd.api+json',
    body: `{"errors":[{"status":"422","code":"bad","title":"key ${echo}","detail":"${echo}"}]}`,
  }),
  plainText: (echo) => ({
    status: 500,
    type: 'text/plain',
    body: `internal error for ${echo}\nsplit ${echo.slice(0, 14)}\n${echo.slice(14)}`,
  }),
  okBody: (echo) => ({
    status: 200,
    type: 'application/json',
    body: `{"status":"ok ${echo}","environment":"test","resellerId":"${echo}"}`,
  }),
};

function unescape(text: string): string {
  return text.replace(/\\+u([0-9a-fA-F]{4})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

function filesUnder(dir: string): string {
  let all = '';
  const walk = (current: string): void => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) walk(path);
      else all += `\n${readFileSync(path, 'latin1')}`;
    }
  };
  if (existsSync(dir)) walk(dir);
  return all;
}

describe('redaction of keys a server echoes', () => {
  it('no echoed key reaches stdout, stderr or a file, in any dialect, spelling or mode', async () => {
    await fc.assert(
      fc.asyncProperty(
        keyArb,
        fc.constantFrom(...Object.keys(FORMS)),
        fc.constantFrom(...Object.keys(DIALECTS)),
        fc.constantFrom([], ['--json'], ['--verbose']),
        async (key, form, dialect, mode) => {
          const echoed = FORMS[form]!(`sc_${key.env}_${key.body}`);
          reply = DIALECTS[dialect]!(echoed);
          const configDir = tempDir();
          const result = await runCli(['ping', ...mode], {
            configDir,
            baseUrl: url,
            env: { GIFTCODES_API_KEY: 'sc_test_configuredkey_0123456789', GIFTCODES_KEYRING: 'off' },
          });
          const seen = `${result.stdout}\n${result.stderr}\n${filesUnder(configDir)}`;
          // Masking shows the last four characters; everything before them is the secret part.
          const secret = key.body.slice(0, -4).toLowerCase();
          for (const text of [seen, unescape(seen), unescape(unescape(seen))]) {
            expect(text.toLowerCase(), `${form} in ${dialect} ${mode.join(' ')}`).not.toContain(secret);
          }
          expect(seen).not.toContain('configuredkey_0123');
          expect(result.stderr).not.toMatch(/^\s+at /m);
        },
      ),
      // The first counterexample found: a problem title turned into an error code kept the escaped prefix.
      {
        numRuns: fuzzSettings(40).runs,
        seed: fuzzSettings(40).seed,
        examples: [[{ env: 'test', body: 'aaaaaaaaaaaa' }, 'doubleEscaped', 'problemJson', []]],
      },
    );
  }, 300_000);
});

describe('files an order writes', () => {
  it.each(Object.keys(DIALECTS).filter((name) => name !== 'okBody'))(
    'an order refused with the key echoed in %s leaves no key in the journal or any other file',
    async (dialect) => {
      const echoed = 'sc_live_Echoed_Key_In_Journal_9f3a';
      reply = DIALECTS[dialect]!(echoed.toUpperCase());
      const configDir = tempDir();
      const result = await runCli(['order', 'place', '--product', 'p1', '--quantity', '1', '--yes', '--json'], {
        configDir,
        baseUrl: url,
        env: { GIFTCODES_API_KEY: 'sc_test_configuredkey_0123456789', GIFTCODES_KEYRING: 'off' },
      });
      expect(result.code).not.toBe(0);
      const seen = `${result.stdout}\n${result.stderr}\n${filesUnder(configDir)}`.toLowerCase();
      expect(seen).not.toContain('echoed_key_in_journal');
      expect(seen).not.toContain('configuredkey_0123');
    },
  );
});
