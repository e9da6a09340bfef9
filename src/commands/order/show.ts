import type { Command } from 'commander';
import type { Factory } from '../../factory.js';
import { printOrder } from '../../orders/present.js';
import { examples, type App } from '../app.js';
import { nonEmpty } from '../parse.js';

export function register(parent: Command, app: App): void {
  const command = parent
    .command('show')
    .description('read an order: its status and every field the API sends')
    .argument('<id>', 'order id', nonEmpty('order id'))
    .action(async (id: string, _flags: object, cmd: Command) => run({ id }, app.factory(cmd)));
  examples(command, ['giftcodes order show ord_8f2k1', 'giftcodes order show ord_8f2k1 --json | jq -r .status']);
}

export async function run(options: { id: string }, f: Factory): Promise<void> {
  const api = await f.api();
  printOrder(f.io, await api.getOrder(options.id));
}
