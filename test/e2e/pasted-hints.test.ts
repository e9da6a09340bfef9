// A command in a hint pastes and runs as it is (a review pasted `giftcodes config set default-env test (or live)`
// and bash stopped at the parenthesis; `--out <file>` read as a redirect from a file named `file`). Alternatives are
// said in words before or after the command, and placeholders are words the shell reads as words (CODES_FILE, KEY).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { defaultEnvironment } from '../../src/config/fields.js';
import { resolveConnection, type Connection } from '../../src/config/resolve.js';
import { ConfigStore } from '../../src/config/store.js';
import { wayOut } from '../../src/commands/order/pending.js';
import { AuthError } from '../../src/errors.js';
import { clientAt } from '../../src/orders/ref.js';
import { runCli, tempDir } from '../helpers/e2e.js';
import { capturedIo } from '../helpers/inprocess.js';

/** Each `giftcodes …` command of a hint: to the next `; `, `, or ` or the end, or to its `)` inside parentheses. */
function commandsIn(hint: string): string[] {
  const found: string[] = [];
  for (const match of hint.matchAll(/(\(?)((?:GIFTCODES_CONFIG_DIR=\S+ )?giftcodes [^;]*)/g)) {
    let command = match[2]!.split(', or ')[0]!;
    if (match[1] === '(') command = command.slice(0, command.indexOf(')'));
    found.push(command.trim());
  }
  return found;
}

/** The hint's commands, each parsed by bash as a simple command with no redirect, subshell or placeholder in <>. */
function expectPastable(hint: string | undefined): void {
  expect(hint).toBeDefined();
  const commands = commandsIn(hint!);
  expect(commands.length, hint).toBeGreaterThan(0);
  for (const command of commands) {
    expect(command, hint).not.toMatch(/[<>()|&`]/);
    expect(() => execFileSync('bash', ['-n', '-c', command], { stdio: 'pipe' }), command).not.toThrow();
  }
}

function hintOf(thrower: () => unknown): string | undefined {
  try {
    thrower();
  } catch (error) {
    return (error as { hint?: string }).hint;
  }
  throw new Error('nothing was thrown');
}

function emptyStore(): Promise<ConfigStore> {
  const dir = join(tempDir(), 'config');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ defaultProfile: 'default', profiles: { default: {} } }), {
    mode: 0o600,
  });
  return ConfigStore.open(dir);
}

describe('a command in a hint pastes and runs as it is', () => {
  it('config set default-env with a wrong value', () => {
    expectPastable(hintOf(() => defaultEnvironment('prod')));
  });

  it('no key: the login (GIFTCODES_API_KEY said in words before it)', async () => {
    const store = await emptyStore();
    const hint = hintOf(() => resolveConnection({ env: 'test' }, { DBUS_SESSION_BUS_ADDRESS: '' }, store));
    expectPastable(hint);
    expect(hint).toMatch(/GIFTCODES_API_KEY.*giftcodes login --env test/);
  });

  it("an order's key not at hand: the login at its profile, environment and base URL", async () => {
    const record = {
      key: 'k-1',
      orderId: 'ord_1',
      productId: 'p',
      quantity: 1,
      environment: 'live' as const,
      profile: 'shop',
      baseUrl: 'https://api.example',
      createdAt: '2026-11-29T00:00:00Z',
      updatedAt: '2026-11-29T00:00:00Z',
      outcome: 'delivered' as const,
    };
    const deps = {
      io: capturedIo().io,
      connectionTo: (): Promise<Connection> => Promise.reject(new AuthError('no live key in profile "shop"')),
      clientFor: (): Promise<ApiClient> => Promise.reject(new Error('not asked')),
    };
    const error = (await clientAt(deps, record).catch((e: unknown) => e)) as { hint?: string };
    expectPastable(error.hint);
  });

  it("order pending's lines for several rows", () => {
    const rows = [
      { key: 'a', state: 'interrupted' },
      { key: 'b', state: 'stale' },
    ];
    for (const line of wayOut(rows, () => true)) expectPastable(line);
  });

  it('as printed: status with no key, a config get, a catalog search by argument', async () => {
    const configDir = tempDir();
    for (const args of [
      ['status', '--offline'],
      ['config', 'get'],
      ['catalog', 'list', 'amazon'],
    ]) {
      const result = await runCli(args, { configDir });
      const hint = /hint: (.*)$/m.exec(result.stderr)?.[1];
      expectPastable(hint);
    }
  });
});

describe('no placeholder in <> in any command the source writes into a message', () => {
  // The sweep behind the tests above: a hint added later with `--out <file>` would read as a redirect again.
  it('finds none outside flag and argument definitions and comments', () => {
    const root = join(import.meta.dirname, '..', '..', 'src');
    const found: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts'))
          for (const [i, line] of readFileSync(path, 'utf8').split('\n').entries()) {
            if (/^\s*(\/\/|\*|\/\*)/.test(line) || /argument\(|option\(|Option\(/.test(line)) continue;
            if (/giftcodes [^`'"]*<[a-z][a-z .-]*>/.test(line)) found.push(`${path}:${i + 1}: ${line.trim()}`);
          }
      }
    };
    walk(root);
    expect(found).toEqual([]);
  });
});
