// Every CLI run's output is recorded; after each test file, no full API key may appear in any of it.
import { afterAll, expect } from 'vitest';

const secrets = new Set<string>();
const outputs: { command: string; text: string }[] = [];

export function registerSecret(secret: string): void {
  if (secret.length >= 12) secrets.add(secret);
}

export function recordOutput(command: string, stdout: string, stderr: string): void {
  outputs.push({ command, text: `${stdout}\n${stderr}` });
}

export function leakedSecrets(): { command: string; secret: string }[] {
  const found: { command: string; secret: string }[] = [];
  for (const output of outputs) {
    for (const secret of secrets)
      if (output.text.includes(secret)) found.push({ command: output.command, secret: `${secret.slice(0, 10)}…` });
  }
  return found;
}

export function installLeakCheck(): void {
  afterAll(() => {
    expect(leakedSecrets(), 'a full API key appeared in CLI output').toEqual([]);
  });
}
