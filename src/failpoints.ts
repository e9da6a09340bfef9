// Failpoints (STYLE 10): each durable step of the order machine has a name, and a test may ask the process
// to die or pause exactly there, then run the natural recovery. Inert unless GIFTCODES_FAILPOINTS is set:
// one environment lookup, parsed once; nothing is imported.
//   GIFTCODES_FAILPOINTS="codes.renamed=kill"            SIGKILL this process at that step
//   GIFTCODES_FAILPOINTS="intent.written=pause:10000"    sleep 10 s there (the event loop keeps running)
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

type Action = { kind: 'kill' } | { kind: 'pause'; ms: number };

let table: Map<string, Action> | undefined;

function parse(spec: string): Map<string, Action> {
  const map = new Map<string, Action>();
  for (const part of spec.split(',')) {
    const [name, action] = part.trim().split('=');
    if (!name || !action) continue;
    if (action === 'kill') map.set(name, { kind: 'kill' });
    else if (action.startsWith('pause:')) map.set(name, { kind: 'pause', ms: Number(action.slice(6)) || 0 });
  }
  return map;
}

function actionFor(name: Failpoint): Action | undefined {
  const spec = process.env.GIFTCODES_FAILPOINTS;
  if (!spec) return undefined;
  table ??= parse(spec);
  return table.get(name);
}

/** The pause a test asked for at this step (announced on stderr), after killing the process if it asked for that. */
function fire(name: Failpoint): number | undefined {
  const action = actionFor(name);
  if (!action) return undefined;
  if (action.kind === 'kill') {
    process.kill(process.pid, 'SIGKILL');
    return undefined;
  }
  process.stderr.write(`failpoint ${name}: pause ${action.ms} ms\n`);
  return action.ms;
}

/** A durable step was just taken. Kills or pauses the process only when a test asked for it. */
export async function failpoint(name: Failpoint): Promise<void> {
  const ms = fire(name);
  if (ms !== undefined) await new Promise((resolve) => setTimeout(resolve, ms));
}

/** The same for a step inside synchronous code (a lock held): a pause blocks the whole process there. */
export function failpointSync(name: Failpoint): void {
  const ms = fire(name);
  if (ms !== undefined) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
