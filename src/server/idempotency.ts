// Idempotency keys: bound to a fingerprint of the body, scoped per reseller and environment,
// remembered for 24 hours; what a finished request answered (`T`, chosen by the route) is kept to replay.
import { createHash } from 'node:crypto';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_KEY_MAX = 255;

/** `result` is undefined while the first request with the key is still running. */
interface Entry<T> {
  fingerprint: string;
  at: number;
  result: T | undefined;
}

export type Claim<T> = { kind: 'new' } | { kind: 'reused' } | { kind: 'in_progress' } | { kind: 'replay'; result: T };

export type KeyParse =
  | { ok: true; key: string }
  | { ok: false; code: 'idempotency_key_missing' | 'idempotency_key_invalid'; message: string };

/** Accepts a bare key (Stripe) or an RFC 8941 sf-string (`"abc"` is the key abc). */
export function parseIdempotencyKey(header: string | undefined): KeyParse {
  const raw = (header ?? '').trim();
  if (raw === '' || raw === '""') {
    return {
      ok: false,
      code: 'idempotency_key_missing',
      message: 'the Idempotency-Key header is required on POST /v1/orders',
    };
  }
  let key = raw;
  if (raw.startsWith('"')) {
    const m = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/.exec(raw);
    if (m === null) return invalid('Idempotency-Key is not a valid quoted string (RFC 8941 sf-string)');
    key = (m[1] ?? '').replace(/\\(["\\])/g, '$1');
  }
  if (!/^[\x20-\x7e]+$/.test(key)) return invalid('Idempotency-Key may hold only printable ASCII characters');
  if (key.length > IDEMPOTENCY_KEY_MAX)
    return invalid(`Idempotency-Key is longer than ${IDEMPOTENCY_KEY_MAX} characters`);
  return { ok: true, key };
}

function invalid(message: string): KeyParse {
  return { ok: false, code: 'idempotency_key_invalid', message };
}

/** Deeper bodies are refused rather than risk the stack; an order request has depth 1. */
export const MAX_BODY_DEPTH = 32;

/** JSON with object keys sorted at every depth, so equal bodies have equal fingerprints; undefined when too deep. */
export function canonicalJson(value: unknown, depth = 0): string | undefined {
  if (depth > MAX_BODY_DEPTH) return undefined;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const parts: string[] = [];
  if (Array.isArray(value)) {
    for (const item of value) {
      const s = canonicalJson(item, depth + 1);
      if (s === undefined) return undefined;
      parts.push(s);
    }
    return `[${parts.join(',')}]`;
  }
  const obj = value as Record<string, unknown>;
  for (const k of Object.keys(obj).sort()) {
    const s = canonicalJson(obj[k], depth + 1);
    if (s === undefined) return undefined;
    parts.push(`${JSON.stringify(k)}:${s}`);
  }
  return `{${parts.join(',')}}`;
}

/** sha256 of the canonical JSON; undefined when the body nests deeper than MAX_BODY_DEPTH. */
export function fingerprint(body: unknown): string | undefined {
  const canonical = canonicalJson(body);
  return canonical === undefined ? undefined : createHash('sha256').update(canonical).digest('base64');
}

export class IdempotencyStore<T> {
  // Insertion order is claim order, so expired entries are always at the front.
  private entries = new Map<string, Entry<T>>();

  constructor(private readonly ttlMs = IDEMPOTENCY_TTL_MS) {}

  /** Looks the key up; when it is new, it is now in progress and the caller must finish or release it. */
  claim(scope: string, print: string, now = Date.now()): Claim<T> {
    this.prune(now);
    const entry = this.entries.get(scope);
    if (entry === undefined) {
      this.entries.set(scope, { fingerprint: print, at: now, result: undefined });
      return { kind: 'new' };
    }
    if (entry.fingerprint !== print) return { kind: 'reused' };
    if (entry.result === undefined) return { kind: 'in_progress' };
    return { kind: 'replay', result: entry.result };
  }

  finish(scope: string, result: T): void {
    const entry = this.entries.get(scope);
    if (entry !== undefined) entry.result = result;
  }

  /** Forgets an in-progress key whose request produced nothing worth replaying (a 5xx). */
  release(scope: string): void {
    if (this.entries.get(scope)?.result === undefined) this.entries.delete(scope);
  }

  clear(): void {
    this.entries.clear();
  }

  private prune(now: number): void {
    for (const [scope, entry] of this.entries) {
      if (now - entry.at < this.ttlMs) break;
      this.entries.delete(scope);
    }
  }
}
