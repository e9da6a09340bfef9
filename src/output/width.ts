// How many terminal columns text takes, for tables: a CJK character or an emoji takes two, a combining mark or a
// joiner none, and a cut never splits a character (a surrogate pair cut in two prints as U+FFFD). A catalog's
// product names are the service's text (`楽天ギフトカード 5,000円`), and a table measured in UTF-16 units put its
// next column out of line by one column for each wide character. Terminals differ on a few characters (emoji
// sequences joined by U+200D, flags); each part is counted here as most of them draw it.

/** East Asian Wide and Fullwidth ranges (Unicode's EastAsianWidth.txt, W and F), as [first, last] pairs. */
const WIDE: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x16fe0, 0x18cff],
  [0x1b000, 0x1b2ff],
  [0x1f200, 0x1f2ff],
  [0x20000, 0x2fffd],
  [0x30000, 0x3fffd],
];

/** Drawn over the character before (combining marks), or not drawn (joiners, variation selectors, format characters). */
const ZERO = /^[\p{Mn}\p{Me}\p{Cf}]$/u;
/** Emoji drawn as pictures by default: two columns. */
const EMOJI = /^\p{Emoji_Presentation}$/u;

/** The columns one character (a code point, as `for…of` gives them) takes. */
export function charWidth(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  // Latin, Greek, Cyrillic and the rest below the combining marks: one each (control characters are replaced
  // before anything is measured).
  if (code < 0x300) return 1;
  if (ZERO.test(char)) return 0;
  if (EMOJI.test(char)) return 2;
  for (const [first, last] of WIDE) {
    if (code < first) return 1;
    if (code <= last) return 2;
  }
  return 1;
}

/** The columns the text takes on a terminal. */
export function textWidth(text: string): number {
  // Printable ASCII only, as ids, keys, statuses and most names are: its length.
  if (/^[\x20-\x7e]*$/.test(text)) return text.length;
  let width = 0;
  for (const char of text) width += charWidth(char);
  return width;
}

/** The text with spaces after it up to `width` columns (as String.padEnd, in columns). */
export function padToWidth(text: string, width: number): string {
  const short = width - textWidth(text);
  return short > 0 ? text + ' '.repeat(short) : text;
}

/** The longest start of the text that fits in `width` columns, whole characters only (with their marks). */
export function headOfWidth(text: string, width: number): string {
  let used = 0;
  let end = 0;
  for (const char of text) {
    used += charWidth(char);
    if (used > width) break;
    end += char.length;
  }
  return text.slice(0, end);
}

/** The longest end of the text that fits in `width` columns, whole characters only. */
export function tailOfWidth(text: string, width: number): string {
  const chars = [...text];
  let used = 0;
  let start = chars.length;
  while (start > 0) {
    const next = chars[start - 1]!;
    if (used + charWidth(next) > width) break;
    used += charWidth(next);
    start--;
  }
  // A mark at the start of the kept end would be drawn over nothing: it goes with its character.
  while (start < chars.length && charWidth(chars[start]!) === 0) start++;
  return chars.slice(start).join('');
}
