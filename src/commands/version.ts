import type { Command } from 'commander';
import { VERSION } from '../version.js';
import { addVerb, type App } from './app.js';

/** `giftcodes version` prints what `--version` prints (commander's flag), so scripts may use either. */
export function register(parent: Command, app: App): void {
  const help = {
    description: 'print the version (the same as --version)',
    examples: ['giftcodes version', 'giftcodes --version'],
  };
  addVerb(parent, app, 'version', help, async () => app.io.out(VERSION));
}
