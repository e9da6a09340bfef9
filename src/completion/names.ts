// The words `completion` and `__complete` accept; tiny, so the command tree imports it without the renderers.
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** Values `giftcodes __complete <source>` prints from local files. */
export const DYNAMIC_SOURCES = ['profiles', 'products', 'orders', 'intents'] as const;
export type DynamicSource = (typeof DYNAMIC_SOURCES)[number];
