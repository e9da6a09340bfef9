// Credential stores for tests: a private D-Bus session with gnome-keyring-daemon unlocked by a test password
// (a real Secret Service), a bus that accepts connections and never answers (what a cron job may meet), and a
// config dir whose key is kept in the store.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { tempDir } from './e2e.js';

/** The tools the Secret Service tests need that this machine lacks (Debian: dbus gnome-keyring libsecret-tools). */
export function missingKeyringTools(): string[] {
  return ['dbus-run-session', 'dbus-send', 'gnome-keyring-daemon', 'secret-tool'].filter(
    (tool) => spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status !== 0,
  );
}

/**
 * A Secret Service for the tests of the enclosing describe: a D-Bus session of its own with gnome-keyring
 * unlocked, started before them and ended after. `env()` is what a process needs to reach it.
 */
export function secretService(): { env(): NodeJS.ProcessEnv } {
  let session: ChildProcess | undefined;
  let bus = '';
  const home = tempDir();
  const env = (): NodeJS.ProcessEnv => ({
    DBUS_SESSION_BUS_ADDRESS: bus,
    HOME: home,
    XDG_DATA_HOME: join(home, 'data'),
    XDG_RUNTIME_DIR: home,
  });
  beforeAll(async () => {
    mkdirSync(join(home, 'data'), { recursive: true });
    const script =
      'printf test-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; echo "$DBUS_SESSION_BUS_ADDRESS"; exec sleep 600';
    const started = spawn('dbus-run-session', ['--', 'sh', '-c', script], {
      env: { ...process.env, HOME: home, XDG_DATA_HOME: join(home, 'data'), XDG_RUNTIME_DIR: home },
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    session = started;
    bus = await new Promise<string>((resolve, reject) => {
      let out = '';
      started.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      started.on('exit', (code) => reject(new Error(`dbus-run-session ended (${code})`)));
    });
  }, 300_000);
  afterAll(() => {
    if (session?.pid) process.kill(-session.pid, 'SIGTERM');
  });
  return { env };
}

/** Runs `fn` with the address of a D-Bus socket that takes every connection and never says a word; closed after. */
export async function withSilentBus<T>(fn: (address: string) => Promise<T>): Promise<T> {
  const socket = join(tempDir(), 'bus');
  const connections: Socket[] = [];
  const silent = createServer((connection) => connections.push(connection));
  await new Promise<void>((resolve) => silent.listen(socket, resolve));
  try {
    return await fn(`unix:path=${socket}`);
  } finally {
    for (const connection of connections) connection.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
}

/** A new config dir whose default profile uses `baseUrl` and keeps its test key in the credential store. */
export function storeKeptConfigDir(baseUrl: string): string {
  const configDir = tempDir();
  writeFileSync(
    join(configDir, 'config.json'),
    JSON.stringify({ profiles: { default: { baseUrl, keyring: { test: 'default/test' } } } }),
    { mode: 0o600 },
  );
  return configDir;
}
