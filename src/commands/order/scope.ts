// `--profile` and `--env` as filters: `order list`, `order pending` and `order resume --all` show or take up only the
// orders of the profile and environment given, and every one when neither is. They are global flags (the profile and
// key a command runs with); these verbs read the orders of every profile of the config directory, so for them the
// flags narrow the rows. `order pending --profile small` once listed another reseller's orders as small's, and
// `order resume --all --profile small` resumed them (a support review).
import { UsageError } from '../../errors.js';
import { environmentArg, profileName } from '../parse.js';

/** The orders a verb is narrowed to: a profile, an environment, both or neither. */
export interface OrderScope {
  readonly profile?: string;
  readonly environment?: 'test' | 'live';
}

/** The scope the global flags give (`--env all` refused: it is logout's alone). */
export function orderScope(flags: { readonly env?: string; readonly profile?: string }, verb: string): OrderScope {
  const environment = flags.env === undefined ? undefined : environmentArg(flags.env);
  if (environment === 'all')
    throw new UsageError('--env all is only for logout', {
      hint: `${verb} takes every environment unless --env test or --env live is given`,
    });
  return {
    ...(flags.profile === undefined ? {} : { profile: profileName(flags.profile) }),
    ...(environment === undefined ? {} : { environment }),
  };
}

/** Whether an order (an intent, a record) is inside the scope. */
export function inScope(scope: OrderScope, order: { readonly profile: string; readonly environment: string }): boolean {
  return (
    (scope.profile === undefined || order.profile === scope.profile) &&
    (scope.environment === undefined || order.environment === scope.environment)
  );
}

/** ` of profile "small" (live)`, ` of profile "small"`, ` (live)`, or nothing: the scope in words, after a noun. */
export function scopeWords(scope: OrderScope): string {
  const profile = scope.profile === undefined ? '' : ` of profile "${scope.profile}"`;
  return `${profile}${scope.environment === undefined ? '' : ` (${scope.environment})`}`;
}
