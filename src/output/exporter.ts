// One result exporter (gh's cmdutil.Exporter): a verb computes its data, and this is the one place that
// writes it — the JSON document (through Io.outJson, which applies --query), the CSV, or the text with what
// a person reads around it (the line said when there is nothing, the notices after it). A new output mode
// is a change here, not in every verb.
import { UsageError } from '../errors.js';
import type { Io } from './io.js';
import { wrapWords } from './wrap.js';

export interface Exporter<T> {
  /** The text a person reads (a table, a few lines). Omitted: nothing on stdout outside --json. */
  text?: (data: T) => string | undefined;
  /** The CSV document, when the verb offers `--format csv`. */
  csv?: (data: T) => string;
  /**
   * In text mode, when there is nothing to show: this line instead of the text and its notes, on stdout, or
   * as a notice (stderr) with `notice`. Never in --json or CSV, whose empty document is the answer.
   */
  empty?: { when: (data: T) => boolean; line: string; notice?: boolean };
  /** Notices (stderr, not with --quiet) said after the text: a hint, what --json would add. */
  notes?: (data: T) => readonly string[];
  /** false: the text is written whole, never through the pager (a short report, or one printed whole as before). */
  pager?: boolean;
  /**
   * false: this is no --json document, so --json writes nothing on stdout (`order show` prints this machine's
   * record when the API is out of reach, and its --json document is the API's order, or nothing).
   */
  json?: false;
  /**
   * The text is a sentence of ours (`✓ saved the test key … in profile "default" (…)`): on a terminal it is broken at
   * its spaces to stdout's width (output/wrap.ts), each continuation this many columns in, under its first word after
   * the mark. The terminal broke a login's line mid-word (`…:4565` / `1 (from --base-url…`, a person's day), where every
   * warning beside it was broken at its spaces. In a pipe or a file it stays one line, as scripts read it.
   */
  wrap?: number;
}

/**
 * Writes `data` once, in the mode the run asked for: --json (and --query), --format csv, or text (paged on a
 * terminal unless the exporter says otherwise). Without the pager every write happens before it returns.
 */
export async function exportResult<T>(
  io: Io,
  data: T,
  exporter: Exporter<T>,
  format?: 'csv' | 'table' | undefined,
): Promise<void> {
  if (io.json) {
    if (exporter.json !== false) io.outJson(data);
    return;
  }
  if (format === 'csv' && exporter.csv) {
    io.out(exporter.csv(data));
    return;
  }
  if (exporter.empty?.when(data)) {
    if (exporter.empty.notice) io.notice(exporter.empty.line);
    else io.out(exporter.empty.line);
    return;
  }
  const whole = exporter.text?.(data);
  const text =
    whole !== undefined && exporter.wrap !== undefined && io.stdoutIsTTY
      ? wrapWords(whole, io.columns, 0, exporter.wrap)
      : whole;
  if (text !== undefined && text !== '') {
    if (exporter.pager === false) io.out(text);
    else await page(io, text);
  }
  for (const note of exporter.notes?.(data) ?? []) io.notice(note);
}

/**
 * One item of a stream that has no end to wait for (webhook events): with --json one compact JSON line each,
 * --query applied to each; else its line of text. Resolves once stdout took it, and throws LocalError (exit 8)
 * when it could not (the reader closed the pipe, a full disk): a stream then stops, as its reader has.
 */
export async function exportItem<T>(io: Io, item: T, text: (item: T) => string): Promise<void> {
  await io.outItem(item, io.json ? undefined : text(item));
}

/**
 * --json writes one document: a verb that handles many items (order resume --all) gathers them and exports
 * them once; text prints each as it comes, its failures on stderr as they happen.
 */
export function gathersItems(io: Io): boolean {
  return io.json;
}

/** A warning that stays out of --json's stderr (which holds only the one JSON error, if any). */
export function warnOutsideJson(io: Io, warning: string): void {
  if (!io.json) io.warn(warning);
}

/**
 * Long text on a terminal goes through a pager, as gh does: GIFTCODES_PAGER, else PAGER, else `less -FRX`
 * (which quits at once when the text fits one screen). Never into a pipe or a file, never with --json,
 * never with --no-pager or a pager of "" or "cat". A pager that cannot start falls back to plain output.
 */
export async function page(io: Io, text: string): Promise<void> {
  const command = pagerCommand(io);
  const lines = text.split('\n').length;
  const rows = (io.stdout as { rows?: number }).rows ?? 24;
  if (command === undefined || lines < rows) {
    io.out(text);
    return;
  }
  const { spawn } = await import('node:child_process');
  // The pager runs through the shell, which starts even when the pager does not (127: not installed, 126:
  // not executable): only a pager that ended well showed the text. One that failed showed nothing, or not
  // all of it, and the text is printed plainly instead: a plan's summary is its rows' delivery.
  const failed = await new Promise<string | undefined>((resolve) => {
    const child = spawn(command, {
      shell: true,
      stdio: ['pipe', 'inherit', 'inherit'],
      env: { LESS: 'FRX', LV: '-c', ...io.env },
    });
    child.once('error', (error) => resolve(error.message));
    child.once('spawn', () => {
      child.stdin.on('error', () => undefined); // the reader quit early (q in less): not an error
      child.stdin.end(io.redact(text.endsWith('\n') ? text : `${text}\n`));
      child.once('close', (code, signal) =>
        resolve(code === 0 ? undefined : signal ? `killed by ${signal}` : `exit ${code}`),
      );
    });
  });
  if (failed === undefined) return;
  io.out(text);
  io.warn(
    `the pager "${command}" failed (${failed}): printed without it (--no-pager, or GIFTCODES_PAGER=cat, for none)`,
  );
}

export function pagerCommand(io: Io): string | undefined {
  if (!io.pager || io.json || !io.stdoutIsTTY) return undefined;
  // A dumb terminal (TERM=dumb, Emacs's shell) is written to as a log is: less there stopped at "WARNING: terminal is
  // not fully functional. Press RETURN" (a person's day). A pager named for giftcodes is still its choice.
  if (io.env.TERM === 'dumb' && io.env.GIFTCODES_PAGER === undefined) return undefined;
  const chosen = io.env.GIFTCODES_PAGER ?? io.env.PAGER ?? 'less -FRX';
  const trimmed = chosen.trim();
  return trimmed === '' || trimmed === 'cat' ? undefined : trimmed;
}

/**
 * A compiled --query; `missed` says what a null result missed (see queryMissed); `absent` whether the expression is
 * one field's name that the document (an object) does not have at all (`orderId` of an order, which says `id`), as
 * against a field whose value is null (`failure_reason` of an order that did not fail) or any longer expression.
 */
export type Query = ((value: unknown) => unknown) & {
  readonly missed?: (value: unknown) => string | undefined;
  /** What a result that is not null holds a null for: a name (or index) the document does not have (missingIn). */
  readonly lacking?: (value: unknown) => string | undefined;
  readonly absent?: (value: unknown) => boolean;
};

/**
 * --query as every verb takes it, applied before the verb runs (src/cli.ts's preAction hook; the tests' in-process
 * runs, test/helpers/inprocess.ts): it implies --json, and its expression is compiled now, so a bad one is a usage
 * error before anything is sent.
 */
export async function useQuery(io: Io, expression: string): Promise<void> {
  io.json = true;
  io.query = await compileQuery(expression);
}

/**
 * Compiles a JMESPath expression (loaded only when --query is given). A bad expression is a usage error,
 * raised while the arguments are checked: before anything is sent.
 */
export async function compileQuery(expression: string): Promise<Query> {
  const jmespath = await import('@jmespath-community/jmespath');
  let ast: QueryAst;
  try {
    ast = jmespath.compile(expression);
  } catch (error) {
    throw new UsageError(`--query: ${firstLine(error)}`, {
      code: 'bad_query',
      hint: 'a JMESPath expression, e.g. --query "[].id" or --query "status" (https://jmespath.site)',
    });
  }
  const query = (value: unknown): unknown => {
    try {
      return jmespath.TreeInterpreter.search(ast, value as Parameters<typeof jmespath.TreeInterpreter.search>[1]);
    } catch (error) {
      throw new UsageError(`--query: ${firstLine(error)}`, {
        code: 'bad_query',
        hint: 'check the expression against the --json document (without --query)',
      });
    }
  };
  const last = lastField(ast);
  /** Whether the field the expression ends with is in the object its path leads to; undefined where it cannot tell. */
  const there = (value: unknown): { name: string; there: boolean } | undefined => {
    if (last === undefined) return undefined;
    const parent =
      last.parent === undefined
        ? value
        : jmespath.TreeInterpreter.search(last.parent, value as Parameters<typeof jmespath.TreeInterpreter.search>[1]);
    // A list has no fields: a field's name selects nothing from it, ever (`order resume --all --query id`).
    if (parent === null || typeof parent !== 'object') return undefined;
    return { name: last.name, there: !Array.isArray(parent) && Object.hasOwn(parent, last.name) };
  };
  // The name a path of names and indexes asks of something that has no such field (`data` of an order), or an index
  // asked of something not a list (`[0]` of an order): its null is no answer, as one field's missing name is not.
  const missingOf = (value: unknown): string | undefined => missingIn(ast, value);
  return Object.assign(query, {
    missed: (value: unknown) => {
      const missing = missingOf(value);
      return queryMissed(expression, value, there(value) ?? (missing ? { name: missing, there: false } : undefined));
    },
    lacking: (value: unknown) => {
      const missing = missingOf(value);
      return missing === undefined ? undefined : queryMissed(expression, value, { name: missing, there: false }, true);
    },
    absent: (value: unknown) => missingOf(value) !== undefined,
  });
}

/**
 * The first name (or index) an expression asks of the document that selects nothing from it, ever: a path's (see
 * walkPath), or one of the paths a gathering expression puts together (`{order: orderId, status: status}`,
 * `[orderId][0]`), whose result holds a null where the document has nothing (a review: the order's id, which the
 * document names `id`, reached nobody, and the order counted as delivered). Undefined for any other expression (a
 * function, a filter, a projection), whose null may be its answer.
 */
function missingIn(node: QueryAst, value: unknown): string | undefined {
  const walked = walkPath(node, value);
  if (walked !== undefined) return typeof walked === 'string' ? walked : undefined;
  // What is applied to the same document first (`[orderId]` of `[orderId][0]`).
  if (node.type === 'IndexExpression' || node.type === 'Subexpression') return missingIn(node.left, value);
  const members =
    node.type === 'MultiSelectList'
      ? node.children
      : node.type === 'MultiSelectHash'
        ? node.children.map((pair) => pair.value)
        : [];
  for (const member of members) {
    const missing = missingIn(member, value);
    if (missing !== undefined) return missing;
  }
  return undefined;
}

/**
 * Walks a path of names and indexes (`data[0].id`) through a document: where it leads (`{ value }`), or the first name
 * asked of something without that field (an object lacking it, a list, a string or number: selects nothing, ever).
 * A null met on the way is an answer (a field there, and null): nothing after it is called missing. Undefined for any
 * other expression (a function, a filter, a projection), whose null may be its answer.
 */
function walkPath(node: QueryAst, value: unknown): { value: unknown } | string | undefined {
  if (node.type === 'Identity') return { value };
  if (node.type === 'Field') {
    if (value === null || value === undefined) return { value: null };
    if (typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, node.name)) return node.name;
    return { value: (value as Record<string, unknown>)[node.name] };
  }
  if (node.type === 'Subexpression' || (node.type === 'IndexExpression' && node.right.type === 'Index')) {
    const left = walkPath(node.left, value);
    if (left === undefined || typeof left === 'string') return left;
    if (node.type === 'Subexpression') return walkPath(node.right, left.value);
    if (node.right.type !== 'Index') return undefined;
    if (left.value === null) return { value: null };
    // An index of something that is not a list selects nothing from it, ever (`[0].orderId` of an order).
    if (!Array.isArray(left.value)) return `[${node.right.value}]`;
    return { value: (left.value.at(node.right.value) as unknown) ?? null };
  }
  return undefined;
}

/** A compiled JMESPath expression (the library's own type, which it does not export by name). */
type QueryAst = ReturnType<typeof import('@jmespath-community/jmespath').compile>;

/** The field a path of names and indexes ends with (`[0].works`: works), and the path before it; else undefined. */
function lastField(node: QueryAst): { name: string; parent?: QueryAst } | undefined {
  if (node.type === 'Field') return { name: node.name };
  if (node.type !== 'Subexpression' || node.right.type !== 'Field' || !isPath(node.left)) return undefined;
  return { name: node.right.name, parent: node.left };
}

/** Whether an expression only walks down (`items[0].code`): where it leads is an object or a list, or null. */
function isPath(node: QueryAst): boolean {
  if (node.type === 'Field' || node.type === 'Identity') return true;
  if (node.type === 'Subexpression') return isPath(node.left) && isPath(node.right);
  return node.type === 'IndexExpression' && node.right.type === 'Index' && isPath(node.left);
}

/**
 * A --query that gave null from a document that has something (a field missing, or null): its null is printed, as
 * jq prints one, and stderr says so with the fields there are, so a script reading `orderId` where the document
 * says `id` is told.
 */
export function queryMissed(
  expression: string,
  value: unknown,
  field?: { name: string; there: boolean },
  within = false,
): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  // An index asked of something that is not a list: no field's name to offer, and what would select.
  if (field?.name.startsWith('['))
    return `--query ${JSON.stringify(expression)} gave null${within ? ` for ${field.name}` : ''} (the document is not a list: ${field.name} selects nothing)`;
  // The field is there and its value is null: the null is the answer, and no field is missing.
  if (field?.there) return `--query ${JSON.stringify(expression)} gave null: ${field.name} is there, and null`;
  const sample: unknown = Array.isArray(value)
    ? value.find((item) => item !== null && typeof item === 'object')
    : value;
  const fields = sample && !Array.isArray(sample) ? Object.keys(sample) : [];
  const named =
    fields.length > 0
      ? `${Array.isArray(value) ? "each item's" : 'its'} fields: ${fields.slice(0, 12).join(', ')}${fields.length > 12 ? ', …' : ''}`
      : '';
  // A field of the list's items named on the list itself (`order list --query orderId`): said "no such field" beside
  // a list of the items' fields that named it (a person's day). The way to it is said instead.
  if (Array.isArray(value) && field && fields.includes(field.name) && expression.trim() === field.name)
    return `--query ${JSON.stringify(expression)} gave null: the document is a list, and ${field.name} is a field of its items: [].${field.name} gives each item's, [0].${field.name} the first one's`;
  const why = field ? `no such field: ${field.name}` : 'no such field, or its value is null';
  // A result that is not null (`{order: orderId, …}`) holds the null where the field it named is not.
  const where = within && field ? ` for ${field.name}` : '';
  return `--query ${JSON.stringify(expression)} gave null${where} (${why})${named ? `; ${named}` : ''}`;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'invalid expression';
}
