// Every CLI run's output is recorded; after each test file, no full API key may appear in any of it. A worker may
// run several files with these modules shared (vitest.config.ts): each file's check reads only its own runs.
import { afterAll, expect } from 'vitest';

const secrets = new Set<string>();
const outputs: { command: string; text: string }[] = [];

export function registerSecret(secret: string): void {
  if (secret.length >= 12) secrets.add(secret);
}

export function recordOutput(command: string, stdout: string, stderr: string): void {
  outputs.push({ command, text: `${stdout}\n${stderr}` });
}

/** The full keys in the outputs recorded since the last call (each shortened), and forgets those outputs. */
export function takeLeaks(): { command: string; secret: string }[] {
  const found: { command: string; secret: string }[] = [];
  for (const output of outputs.splice(0)) {
    for (const secret of secrets)
      if (output.text.includes(secret)) found.push({ command: output.command, secret: `${secret.slice(0, 10)}…` });
  }
  return found;
}

export function installLeakCheck(): void {
  afterAll(() => {
    expect(takeLeaks(), 'a full API key appeared in CLI output').toEqual([]);
  });
}
