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
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) return { ok: false, reason: `nested deeper than ${MAX_JSON_DEPTH} levels` };
  return { ok: true, value };
}

/** Iterative, so the check cannot overflow the stack it protects. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: { node: object; depth: number }[] = value !== null && typeof value === 'object' ? [{ node: value, depth: 1 }] : [];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    if (top.depth > limit) return true;
    for (const child of Object.values(top.node)) {
      if (child !== null && typeof child === 'object') stack.push({ node: child as object, depth: top.depth + 1 });
    }
  }
  return false;
}
