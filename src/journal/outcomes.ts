// The outcomes of the local order record and the words order list's OUTCOME column gives them, apart from history.ts:
// order list's --status and its completion read them where the command tree is built, without the record's code;
// and when a record's codes file was written, which output/words.ts says without loading the record's code either.
import type { OrderRecord } from './history.js';

/** Every outcome a record can have, in the order `order list --status` names them. */
export const OUTCOMES: readonly OrderRecord['outcome'][] = ['delivered', 'failed', 'refused', 'abandoned', 'pending'];
/**
 * The word `order list`'s OUTCOME column shows for a pending order ("unfinished: resume it"), taken by --status as
 * the outcome it stands for: a person filters by what the table says.
 */
export const STATUS_WORDS: Readonly<Record<string, OrderRecord['outcome']>> = {
  unfinished: 'pending',
  'not placed': 'refused',
};

/** When a delivered record's codes were written to its `out` file (OrderRecord.outAt; absent, when it ended). */
export function writtenAt(r: Pick<OrderRecord, 'outAt' | 'endedAt' | 'updatedAt'>): string {
  return r.outAt ?? r.endedAt ?? r.updatedAt;
}
