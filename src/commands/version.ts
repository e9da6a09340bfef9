import type { Command } from 'commander';
import { exportResult } from '../output/exporter.js';
import { VERSION } from '../version.js';
import { addVerb, type App } from './app.js';

/**
 * `giftcodes version` prints what `--version` prints (commander's flag), so scripts may use either; with --json, a
 * document with the Node it runs on too (what a bug report needs).
 */
export function register(parent: Command, app: App): void {
  const help = {
    description: 'print the version (the same as --version; --json adds the Node version)',
    examples: ['giftcodes version', 'giftcodes --version', 'giftcodes version --json'],
  };
  addVerb(parent, app, 'version', help, async () =>
    exportResult(app.io, { version: VERSION, node: process.versions.node }, { text: () => VERSION }),
  );
}
