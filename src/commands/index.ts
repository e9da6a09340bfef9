// The command tree. A noun's index registers its verbs; a new verb is one file and one line.
import type { Command } from 'commander';
import type { App } from './app.js';
import { register as registerCatalog } from './catalog/index.js';
import { register as registerCodes } from './codes/index.js';
import { register as registerCompletion } from './completion.js';
import { register as registerConfig } from './config/index.js';
import { register as registerLogin } from './login.js';
import { register as registerLogout } from './logout.js';
import { register as registerOrder } from './order/index.js';
import { register as registerPing } from './ping.js';
import { register as registerServe } from './serve.js';
import { register as registerWebhook } from './webhook/index.js';

export function registerCommands(program: Command, app: App): void {
  program.commandsGroup('Set up:');
  registerLogin(program, app);
  registerLogout(program, app);
  registerConfig(program, app);
  registerPing(program, app);
  program.commandsGroup('Buy codes:');
  registerCatalog(program, app);
  registerOrder(program, app);
  registerCodes(program, app);
  program.commandsGroup('Tools:');
  registerWebhook(program, app);
  registerServe(program, app);
  registerCompletion(program, app);
}
