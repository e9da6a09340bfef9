// The names of `serve --dialect`, apart from dialects.ts so that the command's definition (loaded for
// every command's --help and completion) does not pull the server in. Only serve.ts imports the value;
// the server imports the type alone, so the list stays in cli.js instead of a start-up chunk of its own.
export const DIALECTS = ['ours', 'jsonapi', 'problem', 'spring', 'pages'] as const;
export type DialectName = (typeof DIALECTS)[number];
