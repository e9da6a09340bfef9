// What a crashed run left, seen from the next one: the intent `order place` would resume, and whether the
// file at --out is that intent's own delivery.
import { sameOrder, staleness, type OrderSpec } from '../journal/intent.js';
import type { Journal } from '../journal/journal.js';
import { isAlive } from '../journal/owner.js';
import { deliveredFile } from './machine.js';

/** True when `order place` will resume an intent whose own codes file is at `path` (no lock: advisory, for the early --out check). */
export function resumableFor(journal: Journal, spec: OrderSpec, key: string | undefined, path: string): boolean {
  const { intents } = journal.read();
  const candidate =
    key !== undefined
      ? intents.find((intent) => intent.key === key)
      : intents.find((intent) => sameOrder(intent, spec) && !isAlive(intent.owner) && staleness(intent) === undefined);
  return candidate !== undefined && deliveredFile(candidate, path) !== undefined;
}
