// Writes completions/ from the built command tree (`giftcodes completion <shell>`), so the shipped
// scripts and the command can never disagree. Run through `npm run completions` (which builds first).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const files = { bash: 'completions/giftcodes.bash', zsh: 'completions/_giftcodes', fish: 'completions/giftcodes.fish' };

mkdirSync(join(root, 'completions'), { recursive: true });
for (const [shell, file] of Object.entries(files)) {
  const script = execFileSync(process.execPath, [join(root, 'bin', 'giftcodes'), 'completion', shell], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  writeFileSync(join(root, file), script);
  console.error(`wrote ${file}`);
}
