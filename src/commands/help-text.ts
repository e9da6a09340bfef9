// The help topics' lists (`help exit-codes`, `help environment`, `help options`) laid out for the width they are
// read at: a term, then its meaning wrapped under itself. Hard-wrapped for 100 columns, they broke mid-word at 80
// (a review in tmux: "environm / ent mismatch"), where every command's own --help wrapped whole.
import { Help } from 'commander';

/** The width of text that is not read on a terminal (a pipe, a file, the generated manual): commander's own. */
export const TEXT_WIDTH = 80;

/** Below this many columns for the meanings, they go on lines of their own rather than in a sliver. */
const MIN_MEANING_WIDTH = 30;

/** commander's wrapper, told to wrap however narrow (its own leaves text under 40 columns as it is). */
function wrapper(): Help {
  const helper = new Help();
  helper.minWidthToWrap = 1;
  return helper;
}

/** One term and its meaning per item, the meanings aligned at `termWidth` and wrapped to `width`; a longer term has a line of its own. */
export function definitionList(
  items: readonly { term: string; meaning: string }[],
  termWidth: number,
  width: number,
): string {
  const helper = wrapper();
  const indent = Math.min(2 + termWidth + 2, Math.max(4, width - MIN_MEANING_WIDTH));
  const meaningWidth = Math.max(MIN_MEANING_WIDTH, width - indent);
  return items
    .map(({ term, meaning }) => {
      const lines = helper.boxWrap(meaning, meaningWidth).split('\n');
      const first = `  ${term}`;
      const rest = lines.map((line) => `${' '.repeat(indent)}${line}`);
      if (first.length + 2 > indent) return [first, ...rest].join('\n');
      return [`${first.padEnd(indent)}${lines[0]}`, ...rest.slice(1)].join('\n');
    })
    .join('\n');
}

/**
 * `label` then its items joined by commas, wrapped to `width` between items, never inside one (`giftcodes help /
 * exit-codes` read as two words); the later lines start under the first item.
 */
export function itemList(label: string, items: readonly string[], width: number): string {
  const indent = ' '.repeat(label.length + 1);
  const lines = [`${label} ${items[0] ?? ''}`];
  for (const item of items.slice(1)) {
    const last = lines.at(-1)!;
    if (`${last}, ${item}`.length <= width) lines[lines.length - 1] = `${last}, ${item}`;
    else lines.splice(lines.length - 1, 1, `${last},`, `${indent}${item}`);
  }
  return lines.join('\n');
}

/** A line of prose wrapped to `width`. */
export function paragraph(text: string, width: number): string {
  return wrapper().boxWrap(text, width);
}
