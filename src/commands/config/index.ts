import type { Command } from 'commander';
import type { App } from '../app.js';
import { register as registerList } from './list.js';
import { register as registerSet } from './set.js';
import { register as registerShow } from './show.js';
import { register as registerUnset } from './unset.js';
import { register as registerUse } from './use.js';

export function register(program: Command, app: App): void {
  const config = program.command('config').description('inspect and change profiles (keys are always shown masked)');
  registerShow(config, app);
  registerList(config, app);
  registerSet(config, app);
  registerUnset(config, app);
  registerUse(config, app);
}
