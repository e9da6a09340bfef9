// A valid config file is read without zod (src/config/store.ts plainConfig); anything it does not vouch for goes
// to zod (src/config/schema.ts). The quick check must never accept what zod refuses, nor read a file otherwise.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { plainConfig } from '../../src/config/store.js';

/** As store.ts reads the file: conf's prototype-less copy of the JSON. */
const stored = (json: string): unknown => Object.assign(Object.create(null) as object, JSON.parse(json) as unknown);

/** Key order included: conf writes the config back in this order. */
const shape = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.entries(v) : v,
  );

const anyValue = fc.oneof(
  fc.constantFrom('test', 'live', '', 'x', 90, -0, 1.5, 2 ** 60, null, true, [], {}),
  fc.string({ maxLength: 4 }),
  fc.integer(),
);
const keys = fc.oneof(
  fc.dictionary(fc.constantFrom('test', 'live'), fc.oneof(fc.string({ maxLength: 6 }), anyValue), { maxKeys: 2 }),
  fc.dictionary(fc.constantFrom('test', 'live', 'other', '__proto__'), anyValue, { maxKeys: 3 }),
  anyValue,
);
// The reseller login learned for a key: whole, a field short or of another type, or something else.
const reseller = fc.oneof(
  fc.record(
    {
      id: fc.oneof(fc.constant('rs_demo'), anyValue),
      keyId: fc.oneof(fc.constant('139357825e679305'), anyValue),
      baseUrl: fc.oneof(fc.constant('http://127.0.0.1:4010'), anyValue),
      extra: anyValue,
    },
    { requiredKeys: [] },
  ),
  anyValue,
);
const resellers = fc.oneof(
  fc.dictionary(fc.constantFrom('test', 'live'), reseller, { maxKeys: 2 }),
  fc.dictionary(fc.constantFrom('test', 'live', 'other', '__proto__'), reseller, { maxKeys: 3 }),
  anyValue,
);
const profile = fc.oneof(
  fc.record(
    {
      baseUrl: fc.oneof(fc.constant('http://127.0.0.1:4010'), anyValue),
      defaultEnv: fc.oneof(fc.constantFrom('test', 'live'), anyValue),
      proxy: fc.oneof(fc.constant('http://proxy:3128'), anyValue),
      historyDays: fc.oneof(fc.integer({ min: 0, max: 400 }), anyValue),
      keys,
      keyring: keys,
      resellers,
      extra: anyValue,
      __proto__: anyValue,
    },
    { requiredKeys: [] },
  ),
  anyValue,
);
const profileName = fc.oneof(
  fc.constantFrom('default', 'shop-eu', '0', '10', '__proto__', 'constructor'),
  fc.string({ maxLength: 4 }),
);
const config = fc.oneof(
  fc.record(
    {
      defaultProfile: fc.oneof(profileName, anyValue),
      profiles: fc.oneof(fc.dictionary(profileName, profile, { maxKeys: 4 }), anyValue),
      other: anyValue,
    },
    { requiredKeys: [] },
  ),
  anyValue,
);

describe('the quick check of the config file agrees with zod', () => {
  it('on 5,000 generated files: whatever it accepts, zod accepts and reads the same, key order included', () => {
    let accepted = 0;
    fc.assert(
      fc.property(config, (value) => {
        const input = stored(JSON.stringify(value));
        const quick = plainConfig(input);
        if (quick === undefined) return;
        accepted++;
        const zod = configSchema.safeParse(input);
        expect(zod.success).toBe(true);
        expect(shape(quick)).toBe(shape(zod.data));
      }),
      { numRuns: 5000 },
    );
    // The generator reaches the quick path often enough for the comparison to mean something.
    expect(accepted).toBeGreaterThan(200);
  });

  it('vouches for the files login and config set write, so those are read without zod', () => {
    const files = [
      '{}',
      '{"profiles":{"default":{"baseUrl":"http://127.0.0.1:4010","keys":{"test":"sc_test_demo_4f3c9a1b7e2d"},"keyring":{}}}}',
      '{"profiles":{"default":{"baseUrl":"http://127.0.0.1:4010","keys":{"test":"sc_test_demo_4f3c9a1b7e2d"},"keyring":{},"resellers":{"test":{"id":"rs_demo","keyId":"139357825e679305","baseUrl":"http://127.0.0.1:4010"}}}}}',
      '{"defaultProfile":"shop-eu","profiles":{"shop-eu":{"keyring":{"live":"giftcodes:shop-eu:live"},"keys":{},"defaultEnv":"live","historyDays":30,"proxy":"http://proxy:3128"}}}',
    ];
    for (const file of files)
      expect(shape(plainConfig(stored(file)))).toBe(shape(configSchema.safeParse(stored(file)).data));
  });

  it.each([
    '{"profiles":[]}',
    '{"profiles":{"default":{"historyDays":1.5}}}',
    '{"profiles":{"default":{"keys":{"test":1}}}}',
    '{"profiles":{"__proto__":{}}}',
    '{"profiles":{"default":{"extra":1}}}',
    '{"profiles":{"default":{"resellers":{"test":{"id":"rs_demo"}}}}}',
    '{"defaultProfile":null}',
  ])('leaves %s to zod', (file) => {
    expect(plainConfig(stored(file))).toBeUndefined();
  });
});
