// Tables sized to the terminal: columns padded, the widest cut with an ellipsis when the row would not fit.
// Ids and keys are never cut (support staff copy them whole): names and descriptions give way instead, and
// a row of ids wider than the terminal wraps rather than lose a character. A table that says where codes went (a
// path column) is the exception: its order ids give way first, to a unique prefix, and its paths last.
import type { Io } from './io.js';
import { stripControl } from '../secrets.js';
import { spokenMoney } from '../money.js';
import { headOfWidth, padToWidth, tailOfWidth, textWidth } from './width.js';

export interface Column<Row> {
  header: string;
  value: (row: Row) => string;
  /** Never cut this column (an id, a key). Columns headed id, key, order or … id / … key are kept anyway. */
  whole?: boolean;
  /**
   * On a terminal too narrow for every column, columns with a rank are left out, lowest rank first, before any
   * cell is cut (as gh does): the least useful go, so that ids and quantities stay whole.
   */
  dropRank?: number;
  /**
   * When every row (two or more) has the same value here, the column is left out with this rank as dropRank's
   * are, and the value said once under the table (`status of every row: completed`): at 80 columns a plan's
   * summary gave its file names the room a column of `completed` took.
   */
  sameRank?: number;
  /**
   * Shorter forms of a cell, longest first (order list's OUTCOME: `placed` for `order placed`, `no funds` for
   * `not placed: insufficient_funds`). On a terminal too narrow for every column the column takes them with this
   * rank, in the order columns give way by dropRank, before a column of higher rank is left out; then each cell
   * shows the longest of its forms that fits the column, the shortest cut only where none does.
   */
  narrow?: { rank: number; forms: (row: Row) => readonly string[] };
  /**
   * Where a cell too long for its column is cut: its end (the default); its start; or, for a path (with a suffix
   * such as a count), its directory first, then its file name before the extension, whose start tells files apart
   * (`amazon-10-2026-11-30.csv (2)` at 20 columns: `amazon-10-2….csv (2)`, where a cut start left
   * `…-11-30.csv (2)`). The extension and the suffix stay whole while at least three characters of the start fit
   * beside them (`amz-1-n1.csv (100)` at 15 columns: `amz-….csv (100)`); with less room, the middle of the name goes.
   */
  cut?: 'end' | 'start' | 'path';
}

const WHOLE_HEADERS = /^(id|key|order|order id|idempotency key|.* id|.* key)$/i;

function isWhole<Row>(column: Column<Row>): boolean {
  return column.whole === true || WHOLE_HEADERS.test(column.header);
}

/**
 * `leftOut` is told the headers of the columns a narrow terminal left out that had something to say (not those said
 * once under the table, nor those blank in every row), for a note on stderr after the table.
 */
export function renderTable<Row>(
  io: Io,
  rows: readonly Row[],
  given: readonly Column<Row>[],
  o: { leftOut?: (headers: readonly string[]) => void } = {},
): string {
  // The value of each column that may give way for saying the same in every row (sameRank), read once.
  const uniform = new Map<Column<Row>, string>();
  const all = given.map((column) => {
    if (column.sameRank === undefined || column.dropRank !== undefined || rows.length < 2) return column;
    const values = new Set(rows.map((row) => oneLine(column.value(row))));
    if (values.size !== 1) return column;
    const promoted = { ...column, dropRank: column.sameRank };
    uniform.set(promoted, [...values][0]!);
    return promoted;
  });
  const { columns, narrowed } = io.stdoutIsTTY
    ? fittingColumns(rows, all, io.columns)
    : { columns: all, narrowed: new Set<Column<Row>>() };
  const said = [...uniform]
    .filter(([column]) => !columns.includes(column))
    .map(([column, value]) => `${column.header.toLowerCase()} of every row: ${value}`);
  o.leftOut?.(
    all
      .filter((column) => !columns.includes(column) && !uniform.has(column))
      .filter((column) => rows.some((row) => oneLine(column.value(row)).trim() !== ''))
      .map((column) => column.header.toUpperCase()),
  );
  const cells = rows.map((row) => columns.map((column) => oneLine(column.value(row))));
  // Each cell's forms, longest first: its value, then the shorter ones of a column that took them.
  const forms = rows.map((row, r) =>
    columns.map((column, i) => [
      cells[r]![i]!,
      ...(narrowed.has(column) ? (column.narrow?.forms(row) ?? []).map(oneLine) : []),
    ]),
  );
  const widths = columns.map((column, i) =>
    Math.max(textWidth(column.header), ...forms.map((row) => textWidth(row[i]!.at(-1) ?? ''))),
  );
  if (io.stdoutIsTTY) {
    const minimums = columns.map((c, i) => (isWhole(c) ? (widths[i] ?? 0) : textWidth(c.header)));
    // A table that says where codes went (a path column: a plan's OUT) gives its order ids' room first, down to a
    // unique prefix (`ord_750b0f05…`, which order show, watch and codes get take: docs/support-desk.md): at 80
    // columns a plan's file names were cut to `amazo….csv` beside whole ids, and the file is what the reseller needs.
    // So does a table whose columns, at their least, still do not fit: a unique prefix of an id pastes back, a word of
    // OUTCOME cut mid-word (`abando…`, `unfini…`) is neither read nor taken by --status (a support review at 80
    // columns, two profiles' live and test orders).
    const wordsNeed =
      columns.reduce((sum, c, i) => sum + (narrowed.has(c) ? (widths[i] ?? 0) : (minimums[i] ?? 0)), 0) +
      2 * (columns.length - 1);
    if (columns.some((c) => c.cut === 'path') || (narrowed.size > 0 && wordsNeed > io.columns)) {
      columns.forEach((column, i) => {
        if (!ORDER_ID_HEADERS.test(column.header)) return;
        const over = widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1) - io.columns;
        const shortest = Math.max(textWidth(column.header), uniquePrefix(cells.map((row) => row[i]!)) + 1);
        widths[i] = minimums[i] = Math.max(Math.min(widths[i] ?? 0, shortest), (widths[i] ?? 0) - Math.max(0, over));
      });
    }
    // A path gives way last: where the codes went is what such a table is read for.
    fitToWidth(
      widths,
      io.columns,
      minimums.map((minimum, i) => (columns[i]?.cut === 'path' ? (widths[i] ?? 0) : minimum)),
    );
    fitToWidth(widths, io.columns, minimums);
    // The room left goes to the columns that took shorter forms, as far as their longer forms need it.
    let room = io.columns - widths.reduce((a, b) => a + b, 0) - 2 * (widths.length - 1);
    columns.forEach((column, i) => {
      if (!narrowed.has(column) || room <= 0) return;
      const longest = Math.max(...forms.map((row) => textWidth(row[i]![0]!)));
      const more = Math.min(room, Math.max(0, longest - (widths[i] ?? 0)));
      widths[i] = (widths[i] ?? 0) + more;
      room -= more;
    });
  }
  const line = (values: readonly (readonly string[])[]): string =>
    values
      .map((cell, i) => {
        const width = widths[i] ?? 0;
        return fit(cell.find((form) => textWidth(form) <= width) ?? cell.at(-1) ?? '', width, columns[i]?.cut);
      })
      .join('  ')
      .trimEnd();
  const header = line(columns.map((column) => [column.header.toUpperCase()]));
  return [io.c.bold(header), ...forms.map(line), ...said].join('\n');
}

/**
 * The columns left once the droppable ones blank in every row, then the others lowest rank first, are left out
 * until the rest fits `total`; and the columns that take their shorter forms (narrow), at their rank among them.
 */
function fittingColumns<Row>(
  rows: readonly Row[],
  columns: readonly Column<Row>[],
  total: number,
): { columns: readonly Column<Row>[]; narrowed: ReadonlySet<Column<Row>> } {
  const widest = new Map(
    columns.map((column) => [column, Math.max(0, ...rows.map((row) => textWidth(oneLine(column.value(row)))))]),
  );
  const widths = new Map(
    columns.map((column) => [column, Math.max(textWidth(column.header), widest.get(column) ?? 0)]),
  );
  const narrowed = new Set<Column<Row>>();
  // A column that could give way and is blank in every row says nothing (`order list`'s AMOUNT where no catalog
  // was ever listed on this machine): it goes first, and its width goes to a column that has something to say.
  const kept = columns.filter(
    (column) => column.dropRank === undefined || rows.length === 0 || (widest.get(column) ?? 0) > 0,
  );
  const needed = (): number => kept.reduce((sum, column) => sum + (widths.get(column) ?? 0), 0) + 2 * (kept.length - 1);
  const rank = (step: { column: Column<Row>; narrow: boolean }): number =>
    (step.narrow ? step.column.narrow?.rank : step.column.dropRank) ?? 0;
  const steps = [
    ...columns.filter((column) => column.dropRank !== undefined).map((column) => ({ column, narrow: false })),
    ...columns.filter((column) => column.narrow !== undefined).map((column) => ({ column, narrow: true })),
  ].sort((a, b) => rank(a) - rank(b));
  const dropped: Column<Row>[] = [];
  for (const { column, narrow } of steps) {
    if (needed() <= total) break;
    if (narrow) {
      narrowed.add(column);
      const shortest = rows.map((row) => textWidth(oneLine(column.narrow?.forms(row).at(-1) ?? column.value(row))));
      widths.set(column, Math.max(textWidth(column.header), ...shortest));
      continue;
    }
    const at = kept.indexOf(column);
    if (at >= 0) dropped.push(...kept.splice(at, 1));
  }
  // Then the width left over goes back to a column that was left out and fits in it, the most useful first: dropping
  // a wide column can leave room for a narrow one of lower rank (order list's ENV, once CREATED is gone).
  for (const column of dropped.reverse()) {
    kept.push(column);
    if (needed() > total) kept.pop();
  }
  return { columns: columns.filter((column) => kept.includes(column)), narrowed };
}

const ORDER_ID_HEADERS = /^order( id)?$/i;
/** The fewest characters of an order id a prefix keeps after its `ord_`. */
const ID_PREFIX = 8;

/**
 * The length of the shortest start that tells each of these ids from the others, and keeps `ID_PREFIX` characters
 * after its `xxx_`; an id shorter than that is its own length.
 */
function uniquePrefix(ids: readonly string[]): number {
  const distinct = [...new Set(ids)];
  let length = 0;
  for (const id of distinct) {
    let needed = (/^[^_\s]+_/.exec(id)?.[0].length ?? 0) + ID_PREFIX;
    for (const other of distinct) {
      if (other === id) continue;
      let same = 0;
      while (same < id.length && id[same] === other[same]) same++;
      needed = Math.max(needed, same + 1);
    }
    length = Math.max(length, Math.min(needed, textWidth(id)));
  }
  return length;
}

function fitToWidth(widths: number[], total: number, minimums: number[]): void {
  const gaps = 2 * (widths.length - 1);
  while (widths.reduce((a, b) => a + b, 0) + gaps > total) {
    // The widest column that can still give way (a whole column's minimum is its full width).
    let widest = -1;
    widths.forEach((w, i) => {
      if (w > Math.max(minimums[i] ?? 4, 4) && (widest < 0 || w > (widths[widest] ?? 0))) widest = i;
    });
    if (widest < 0) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
  }
}

/** The fewest columns of a file name's start a path cut keeps beside its extension and suffix (Column.cut). */
const PATH_START = 3;

/** The cell in exactly `width` columns: padded, or cut with an ellipsis where its column says (Column.cut). */
function fit(value: string, width: number, cut: Column<unknown>['cut'] = 'end'): string {
  if (textWidth(value) <= width) return padToWidth(value, width);
  const kept = Math.max(0, width - 1);
  if (cut === 'path') {
    const name = value.slice(value.lastIndexOf('/') + 1);
    if (textWidth(name) + 2 <= width) return padToWidth(`…/${name}`, width);
    // The end kept is the extension and its count (`.csv (2)`) where three characters of the start stay beside them:
    // the start, where a batch's file names differ, gets the rest; else the middle of the name goes. (With six, as
    // once, a plan's `amz-1-n1.csv (100)` at 15 columns showed `amz-1-n…v (100)`: the extension cut in two.)
    const dot = name.lastIndexOf('.');
    const extension = dot > 0 ? textWidth(name.slice(dot)) : Infinity;
    const tail = extension <= kept - PATH_START ? extension : kept - Math.ceil(kept / 2);
    return padToWidth(`${headOfWidth(name, kept - tail)}…${tailOfWidth(name, tail)}`, width);
  }
  // A wide character that would not fit whole leaves its column blank instead.
  return padToWidth(cut === 'start' ? `…${tailOfWidth(value, kept)}` : `${headOfWidth(value, kept)}…`, width);
}

function oneLine(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]+/g, ' ');
}

/** A value from a loosely typed record, for display: nested `{amount,currency}` money reads as `25.00 USD`, `5,000,000.00 USD`. */
export function display(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return stripControl(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'object' && !Array.isArray(value)) {
    const money = value as Record<string, unknown>;
    if (typeof money.amount === 'number' && typeof money.currency === 'string')
      return spokenMoney(money.amount, money.currency);
  }
  return stripControl(JSON.stringify(value));
}
