// A config directory's history/ as 90 days of nightly plans leave it: `nights` × `rows` order records, one JSON
// line each, in the line file the CLI reads a key's record from (history/<first two hex digits of its key's
// sha256>.jsonl; docs/architecture.md). Records of another server than the bench's, as a reseller's ordering
// from the same machine elsewhere: every command reads them all the same (order list parses each; a plan's rows
// look in their files), and none of them is this run's.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function seedHistory(configDir, { nights = 90, rows = 1000, now = Date.now() } = {}) {
  const dir = join(configDir, 'history');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const files = new Map();
  for (let night = 0; night < nights; night++) {
    // Within the 90 days the CLI keeps (config history-days): none of them is pruned by the commands timed.
    const at = new Date(now - (nights - night) * 86_400_000 + 3_600_000).toISOString();
    for (let row = 0; row < rows; row++) {
      const key = `plan-${createHash('sha256').update(`${night}/${row}`).digest('hex').slice(0, 24)}`;
      const line = JSON.stringify({
        key,
        keyId: '139357825e679305',
        orderId: `ord_${createHash('sha256').update(key).digest('hex').slice(0, 24)}`,
        productId: 'amazon-us-10',
        quantity: (row % 3) + 1,
        status: 'completed',
        amount: { amount: 1000 * ((row % 3) + 1), currency: 'USD' },
        environment: 'test',
        profile: 'default',
        baseUrl: 'http://127.0.0.1:4010',
        createdAt: at,
        updatedAt: at,
        endedAt: at,
        outcome: 'delivered',
        plan: 'restock.csv',
        batch: at.slice(0, 10),
        planDir: '/home/reseller/nightly',
      });
      const file = `${createHash('sha256').update(key).digest('hex').slice(0, 2)}.jsonl`;
      const lines = files.get(file) ?? [];
      lines.push(line);
      files.set(file, lines);
    }
  }
  for (const [file, lines] of files) writeFileSync(join(dir, file), `${lines.join('\n')}\n`, { mode: 0o600 });
  return nights * rows;
}
