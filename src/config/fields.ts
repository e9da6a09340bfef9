// Fields `config set` may change, in the reseller's words (keys are stored with login).
export const SETTABLE_FIELDS = ['base-url', 'default-env', 'history-days', 'proxy'] as const;
export type SettableField = (typeof SETTABLE_FIELDS)[number];
