import type { Command } from 'commander';
import type { App } from '../app.js';
import { register as registerList } from './list.js';

export function register(program: Command, app: App): void {
  const catalog = program.command('catalog').description('browse the products you can order');
  registerList(catalog, app);
}
