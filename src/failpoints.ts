// Failpoints (CONTRIBUTING.md): each durable step of the order machine has a name, and a test may ask the process
// to die, pause or wait exactly there, then run the natural recovery. Inert unless GIFTCODES_FAILPOINTS is set:
// one environment lookup per process, parsed once (a plan's 1,000 rows pass about 8,000 failpoints, and a lookup
// in process.env each time cost 13 ms of its CPU); nothing is imported (a wait takes node:fs from the running Node).
//   GIFTCODES_FAILPOINTS="codes.renamed=kill"            SIGKILL this process at that step
//   GIFTCODES_FAILPOINTS="intent.written=pause:10000"    sleep 10 s there (the event loop keeps running)
//   GIFTCODES_FAILPOINTS="request.sent=wait:/tmp/go"     block there until the file /tmp/go exists: a test
//                                                        releases the process on its own event, not a timer
//   several: "request.sent=pause:200,resolved=kill"

/** In the order an order meets them (src/orders/lifecycle.ts names where each sits); journal.locked last. */
export const FAILPOINTS = [
  'intent.written',
  'sending.written',
  'request.sent',
  'order.accepted',
  'codes.tmp-written',
  'codes.identity-written',
  'codes.committed',
  'codes.renamed',
  'delivered',
  'resolved',
  'journal.locked',
] as const;
export type Failpoint = (typeof FAILPOINTS)[number];

type Action = { kind: 'kill' } | { kind: 'pause'; ms: number } | { kind: 'wait'; file: string };

let table: Map<string, Action> | undefined;

function parse(spec: string): Map<string, Action> {
  const map = new Map<string, Action>();
  for (const part of spec.split(',')) {
    const at = part.indexOf('=');
    const name = part.slice(0, at).trim();
    const action = part.slice(at + 1).trim();
    if (at < 0 || !name || !action) continue;
    if (action === 'kill') map.set(name, { kind: 'kill' });
    else if (action.startsWith('pause:')) map.set(name, { kind: 'pause', ms: Number(action.slice(6)) || 0 });
    else if (action.startsWith('wait:') && action.length > 5) map.set(name, { kind: 'wait', file: action.slice(5) });
  }
  return map;
}

function actionFor(name: Failpoint): Action | undefined {
  table ??= parse(process.env.GIFTCODES_FAILPOINTS ?? '');
  return table.get(name);
}

/** How often a wait looks for its release file. */
const WAIT_POLL_MS = 10;

/** The pause or wait a test asked for at this step (announced on stderr), after killing the process if it asked for that. */
function fire(name: Failpoint): Exclude<Action, { kind: 'kill' }> | undefined {
  const action = actionFor(name);
  if (!action) return undefined;
  if (action.kind === 'kill') {
    process.kill(process.pid, 'SIGKILL');
    return undefined;
  }
  process.stderr.write(
    action.kind === 'pause'
      ? `failpoint ${name}: pause ${action.ms} ms\n`
      : `failpoint ${name}: wait for ${action.file}\n`,
  );
  return action;
}

/** A durable step was just taken. Kills, pauses or holds the process only when a test asked for it. */
export async function failpoint(name: Failpoint): Promise<void> {
  const action = fire(name);
  if (!action) return;
  if (action.kind === 'pause') {
    await new Promise((resolve) => setTimeout(resolve, action.ms));
    return;
  }
  const { existsSync } = process.getBuiltinModule('node:fs');
  while (!existsSync(action.file)) await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
}

/** The same for a step inside synchronous code (a lock held): a pause or wait blocks the whole process there. */
export function failpointSync(name: Failpoint): void {
  const action = fire(name);
  if (!action) return;
  const block = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  if (action.kind === 'pause') {
    block(action.ms);
    return;
  }
  const { existsSync } = process.getBuiltinModule('node:fs');
  while (!existsSync(action.file)) block(WAIT_POLL_MS);
}
