// gunzipInto (src/api/transport.ts) against gunzipSync, on gzip bodies a server or the network could hand over:
// whole, cut, with a byte changed, with bytes after the end, with a trailer that lies, in several members, at
// any compression level. The export writes the codes gunzipInto decodes, so a wrong byte there is a wrong code
// in a customer's file: whenever gunzipInto says "n bytes", they must be exactly the bytes gunzipSync gives, and
// gunzipSync must have accepted the body; and a clean single-member body in room enough takes the fast path.
import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gunzipInto, gzipOutputSize } from '../../src/api/transport.js';
import { fuzzSettings } from './check.js';

const LIMIT = 4 * 1024 * 1024;
// In process and fast (~0.3 ms a body): 5,000 bodies with `npm run fuzz`, 1,500 in `npm test`.
const settings = fuzzSettings(5000);

/** A page-like JSON body: codes with repeats and runs, so that every compression level has something to do. */
const page = fc
  .array(fc.record({ code: fc.stringMatching(/^[A-Z0-9-]{0,24}$/), pin: fc.nat(99_999) }), { maxLength: 400 })
  .map((data) => Buffer.from(JSON.stringify({ data })));

type Damage =
  | { kind: 'none' }
  | { kind: 'cut'; at: number }
  | { kind: 'flip'; at: number; mask: number }
  | { kind: 'append'; bytes: Uint8Array }
  | { kind: 'size'; stated: number }
  | { kind: 'members'; at: number };

const damage: fc.Arbitrary<Damage> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'none' as const }), weight: 3 },
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), mask: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ kind: fc.constant('append' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 40 }) }),
  fc.record({ kind: fc.constant('size' as const), stated: fc.nat() }),
  fc.record({ kind: fc.constant('members' as const), at: fc.nat() }),
);

function damaged(body: Buffer, level: number, d: Damage): Buffer {
  const gz = gzipSync(body, { level });
  switch (d.kind) {
    case 'none':
      return gz;
    case 'cut':
      return gz.subarray(0, d.at % gz.length);
    case 'flip': {
      const copy = Buffer.from(gz);
      const at = d.at % copy.length;
      copy[at] = copy[at]! ^ d.mask;
      return copy;
    }
    case 'append':
      return Buffer.concat([gz, d.bytes]);
    case 'size': {
      const copy = Buffer.from(gz);
      copy.writeUInt32LE(d.stated % (body.length * 2 + 2), copy.length - 4);
      return copy;
    }
    case 'members': {
      const at = body.length === 0 ? 0 : d.at % body.length;
      return Buffer.concat([gzipSync(body.subarray(0, at), { level }), gzipSync(body.subarray(at), { level })]);
    }
  }
}

/** What gunzipSync makes of a body: its bytes, or undefined where it throws. */
function reference(body: Buffer): Buffer | undefined {
  try {
    return gunzipSync(body);
  } catch {
    return undefined;
  }
}

describe('gunzipInto against gunzipSync', () => {
  it('says "n bytes" only for a body gunzipSync accepts, and then its n bytes are gunzipSync’s, byte for byte', async () => {
    let fast = 0;
    await fc.assert(
      fc.asyncProperty(
        page,
        fc.integer({ min: 1, max: 9 }),
        damage,
        fc.integer({ min: -2, max: 2 }),
        async (body, level, d, slack) => {
          const gz = damaged(body, level, d);
          // The room bodyBytes gives (the trailer's size and one byte), or a little more or less than that.
          const room = Math.max(0, gzipOutputSize(gz, LIMIT) + slack);
          const out = Buffer.alloc(room, 0xee);
          const length = await gunzipInto(gz, out);
          const expected = reference(gz);
          if (length === undefined) {
            // Left to gunzipSync: never for a clean body in the room bodyBytes gives.
            if (d.kind === 'none' && slack >= 0) expect.fail(`a clean ${body.length}-byte body was not decoded`);
            return;
          }
          fast++;
          expect(expected, `gunzipInto decoded a body gunzipSync refuses (${d.kind})`).toBeDefined();
          expect(length).toBe(expected!.length);
          expect(out.subarray(0, length).equals(expected!)).toBe(true);
        },
      ),
      { numRuns: settings.runs, seed: settings.seed },
    );
    // The property is about the fast path: most runs must take it, or it says little.
    expect(fast).toBeGreaterThan(settings.runs / 4);
  });
});
