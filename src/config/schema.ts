// The config file's shape as zod checks it, with zod's English messages: loaded only when the quick check in
// store.ts does not vouch for a file (it is damaged, or holds something unusual), so a valid profile is read
// without loading zod (BENCHMARKS.md, issue 23).
import * as z from 'zod/mini';
import { en } from 'zod/v4/locales';
import type { ConfigData } from './store.js';

// zod/mini (see api/schemas.ts) comes without messages; an invalid config file is reported with zod's English ones.
z.config(en());

const environmentSchema = z.enum(['test', 'live']);

const resellerSchema = z.object({ id: z.string(), keyId: z.string(), baseUrl: z.string() });

const profileSchema = z.object({
  baseUrl: z.optional(z.string()),
  defaultEnv: z.optional(environmentSchema),
  /** A forward proxy for this profile's API, used when HTTPS_PROXY/HTTP_PROXY are unset. */
  proxy: z.optional(z.string()),
  /** Days the local order record keeps an ended order (default 90). */
  historyDays: z.optional(z.int()),
  encryptTo: z.optional(z.array(z.string())),
  keys: z.optional(z.partial(z.object({ test: z.optional(z.string()), live: z.optional(z.string()) }))),
  /** Keys kept in the credential store: the account each is filed under (a reference, never the key). */
  keyring: z.optional(z.partial(z.object({ test: z.optional(z.string()), live: z.optional(z.string()) }))),
  /** The reseller login learned for each environment's key (store.ts ResellerSeen). */
  resellers: z.optional(z.partial(z.object({ test: z.optional(resellerSchema), live: z.optional(resellerSchema) }))),
});

export const configSchema: z.ZodMiniType<ConfigData> = z.object({
  defaultProfile: z.optional(z.string()),
  profiles: z.optional(z.record(z.string(), profileSchema)),
});
