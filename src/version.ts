// The build (scripts/build.mjs) replaces __GIFTCODES_VERSION__ with package.json's version.
declare const __GIFTCODES_VERSION__: string | undefined;

export const VERSION: string = typeof __GIFTCODES_VERSION__ === 'string' ? __GIFTCODES_VERSION__ : '0.0.0-dev';
