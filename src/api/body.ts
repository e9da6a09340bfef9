// What a successful answer's body must be before anything reads it. Valid UTF-8: a code with a replacement
// character in it is a wrong code, silently. JSON. And nested no deeper than any API answer needs: the
// schemas, the exporters and JSON.stringify all recurse, and a hostile body must not overflow their stack.

export const MAX_JSON_DEPTH = 64;

const utf8 = new TextDecoder('utf-8', { fatal: true });

export type ParsedBody = { ok: true; value: unknown } | { ok: false; reason: string };

export function parseJsonBody(bytes: Uint8Array): ParsedBody {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, reason: 'not valid UTF-8' };
  }
  if (text === '') return { ok: false, reason: 'empty' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  if (nestsDeeperThan(value, MAX_JSON_DEPTH))
    return { ok: false, reason: `nested deeper than ${MAX_JSON_DEPTH} levels` };
  return { ok: true, value };
}

/** Iterative, so the check cannot overflow the stack it protects; nothing allocated per object (a page of codes has thousands). */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const nodes: object[] = [value];
  const depths: number[] = [1];
  const push = (child: unknown, depth: number): void => {
    if (child !== null && typeof child === 'object') {
      nodes.push(child);
      depths.push(depth);
    }
  };
  for (let node = nodes.pop(); node !== undefined; node = nodes.pop()) {
    const depth = depths.pop() ?? 0;
    if (depth > limit) return true;
    // for…of and for…in: Object.values made an array per object.
    if (Array.isArray(node)) for (const child of node as unknown[]) push(child, depth + 1);
    else for (const key in node) push((node as Record<string, unknown>)[key], depth + 1);
  }
  return false;
}
