// The signature schemes' names alone, free of node:crypto: the commands that offer --scheme import this at start-up.
export const SCHEMES = ['giftcodes', 'stripe', 'standard', 'github'] as const;
export type Scheme = (typeof SCHEMES)[number];
