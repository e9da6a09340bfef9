import type { Command } from 'commander';
import type { App } from '../app.js';
import { register as registerAbandon } from './abandon.js';
import { register as registerList } from './list.js';
import { register as registerPending } from './pending.js';
import { register as registerPlace } from './place.js';
import { register as registerResume } from './resume.js';
import { register as registerShow } from './show.js';
import { register as registerWatch } from './watch.js';

export function register(program: Command, app: App): void {
  const order = program.command('order').description('place, follow and recover orders');
  registerPlace(order, app);
  registerShow(order, app);
  registerWatch(order, app);
  registerList(order, app);
  registerPending(order, app);
  registerResume(order, app);
  registerAbandon(order, app);
}
