import type { Command } from 'commander';
import type { App } from '../app.js';
import { register as registerDecrypt } from './decrypt.js';
import { register as registerGet } from './get.js';

export function register(program: Command, app: App): void {
  const codes = program
    .command('codes')
    .description('fetch the codes of a completed order (CSV, JSON, JSONL, XLSX; encrypted with age)');
  registerGet(codes, app);
  registerDecrypt(codes, app);
}
