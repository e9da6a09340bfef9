// Completion scripts generated from the commander tree: the one source of truth for what TAB offers.
import type { Command } from 'commander';
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import { buildModel } from './model.js';
import type { Shell } from './names.js';
import { zshScript } from './zsh.js';

export function completionScript(shell: Shell, program: Command): string {
  const model = buildModel(program);
  switch (shell) {
    case 'bash':
      return bashScript(model);
    case 'zsh':
      return zshScript(model);
    case 'fish':
      return fishScript(model);
  }
}
