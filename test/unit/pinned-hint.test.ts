// A hint's commands run where the failing run did: its GIFTCODES_CONFIG_DIR (a cron job's is not the operator's)
// and its --profile, put before each `giftcodes <command>` in it (src/output/pinned-hint.ts).
import { describe, expect, it } from 'vitest';
import { pinnedHint } from '../../src/output/pinned-hint.js';

describe('pinnedHint', () => {
  it('puts the config directory and profile before each command', () => {
    expect(
      pinnedHint('run: giftcodes order pending; or (giftcodes order list)', { configDir: '/srv/gc', profile: 'night' }),
    ).toBe(
      'run: GIFTCODES_CONFIG_DIR=/srv/gc giftcodes --profile night order pending; or (GIFTCODES_CONFIG_DIR=/srv/gc giftcodes --profile night order list)',
    );
    expect(pinnedHint('nothing to run', {})).toBe('nothing to run');
  });

  it('pins a hint once: one pinned already is left as it is (a review found a second pass added a second prefix)', () => {
    const once = pinnedHint('see giftcodes order pending, then giftcodes order resume k', { configDir: '/srv/gc' });
    expect(pinnedHint(once, { configDir: '/srv/gc' })).toBe(once);
    expect(once.match(/GIFTCODES_CONFIG_DIR=/g)).toHaveLength(2);
  });

  // A person's day: "start the reference server with GIFTCODES_CONFIG_DIR=… giftcodes --profile small serve".
  it('leaves giftcodes serve as it is: it reads no config directory or profile', () => {
    expect(
      pinnedHint(
        'nothing listens on 127.0.0.1:4010: start the reference server with giftcodes serve, or check --base-url',
        {
          configDir: '/srv/gc',
          profile: 'small',
        },
      ),
    ).toBe('nothing listens on 127.0.0.1:4010: start the reference server with giftcodes serve, or check --base-url');
    expect(pinnedHint('giftcodes serve --port 0; then giftcodes ping', { profile: 'small' })).toBe(
      'giftcodes serve --port 0; then giftcodes --profile small ping',
    );
  });

  it('quotes a directory the shell would split', () => {
    expect(pinnedHint('giftcodes order list', { configDir: '/srv/gift codes' })).toBe(
      "GIFTCODES_CONFIG_DIR='/srv/gift codes' giftcodes order list",
    );
  });
});
