// The signature schemes' names alone, free of node:crypto: the commands that offer --scheme import this at
// start-up, so src/webhooks imports only its type (a value import would split it into a chunk of its own).
export const SCHEMES = ['giftcodes', 'stripe', 'standard', 'github'] as const;
export type Scheme = (typeof SCHEMES)[number];
