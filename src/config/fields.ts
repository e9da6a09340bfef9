// Fields `config set` may change, in the reseller's words (keys are stored with login).
export const SETTABLE_FIELDS = ['base-url', 'default-env', 'proxy', 'history-days'] as const;
export type SettableField = (typeof SETTABLE_FIELDS)[number];
