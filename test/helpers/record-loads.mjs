// A module hook for `node --import`: appends the URL of every file the program loads to $GIFTCODES_LOADS,
// so a test can tell which chunks of the bundle a command pulled in.
import { appendFileSync } from 'node:fs';

export async function load(url, context, nextLoad) {
  if (process.env.GIFTCODES_LOADS) appendFileSync(process.env.GIFTCODES_LOADS, `${url}\n`);
  return nextLoad(url, context);
}
