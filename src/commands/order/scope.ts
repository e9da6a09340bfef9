// `--profile` and `--env` as filters: `order list`, `order pending` and `order resume --all` show or take up only the
// orders of the profile and environment given, and every one when neither is. They are global flags (the profile and
// key a command runs with); these verbs read the orders of every profile of the config directory, so for them the
// flags narrow the rows. `order pending --profile small` once listed another reseller's orders as small's, and
// `order resume --all --profile small` resumed them (a support review).
import { UsageError } from '../../errors.js';
import type { Journal } from '../../journal/journal.js';
import type { Column } from '../../output/table.js';
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

/**
 * Why a scope holds no order, where its profile is one no order here was placed with: a typo (`--profile smal`) read
 * "no pending orders of profile smal: every one placed from here reached you", exit 0, while orders of `small` were
 * unfinished (a review). Said as order list says it, with the nearest profile; undefined for a profile that has orders.
 */
export async function unknownScopeProfile(scope: OrderScope, journal: Journal): Promise<string | undefined> {
  if (scope.profile === undefined) return undefined;
  const { allRecords, unknownProfile } = await import('../../orders/history-query.js');
  return unknownProfile(allRecords(journal.history, journal.read().intents), scope.profile);
}

/**
 * A PROFILE column where the rows are of more than one profile (two resellers' orders, or a test profile beside the
 * live one), as ENV is for two environments; none where they are of one: order list's and order pending's rows were
 * listed together without it (reviews). It never gives way.
 */
export function profileColumn<Row extends { readonly profile: string }>(rows: readonly Row[]): Column<Row>[] {
  return new Set(rows.map((r) => r.profile)).size > 1
    ? [{ header: 'profile', value: (r) => r.profile, whole: true }]
    : [];
}
