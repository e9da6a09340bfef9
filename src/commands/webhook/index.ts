import type { Command } from 'commander';
import type { App } from '../app.js';
import { register as registerListen } from './listen.js';

export function register(program: Command, app: App): void {
  const webhook = program.command('webhook').description('receive signed webhook events from the API');
  registerListen(webhook, app);
}
