// One result exporter (gh's cmdutil.Exporter): a verb computes its data, and this is the one place that
// writes it — the JSON document (through Io.outJson, which applies --query), the CSV, or the text.
import { UsageError } from '../errors.js';
import type { Io } from './io.js';

export interface Exporter<T> {
  /** The text a person reads (a table, a few lines). Omitted: nothing on stdout outside --json. */
  text?: (data: T) => string | undefined;
  /** The CSV document, when the verb offers `--format csv`. */
  csv?: (data: T) => string;
}

/** Writes `data` once, in the mode the run asked for: --json (and --query), --format csv, or text (paged on a terminal). */
export async function exportResult<T>(io: Io, data: T, exporter: Exporter<T>, format?: 'csv' | 'table' | undefined): Promise<void> {
  if (io.json) {
    io.outJson(data);
    return;
  }
  if (format === 'csv' && exporter.csv) {
    io.out(exporter.csv(data));
    return;
  }
  const text = exporter.text?.(data);
  if (text !== undefined && text !== '') await page(io, text);
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
  const started = await new Promise<boolean>((resolve) => {
    const child = spawn(command, { shell: true, stdio: ['pipe', 'inherit', 'inherit'], env: { LESS: 'FRX', LV: '-c', ...io.env } });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.stdin.on('error', () => undefined); // the reader quit early (q in less): not an error
      child.stdin.end(io.redact(text.endsWith('\n') ? text : `${text}\n`));
      child.once('close', () => resolve(true));
    });
  });
  if (!started) io.out(text);
}

export function pagerCommand(io: Io): string | undefined {
  if (!io.pager || io.json || !io.stdoutIsTTY) return undefined;
  const chosen = io.env.GIFTCODES_PAGER ?? io.env.PAGER ?? 'less -FRX';
  const trimmed = chosen.trim();
  return trimmed === '' || trimmed === 'cat' ? undefined : trimmed;
}

export type Query = (value: unknown) => unknown;

/**
 * Compiles a JMESPath expression (loaded only when --query is given). A bad expression is a usage error,
 * raised while the arguments are checked: before anything is sent.
 */
export async function compileQuery(expression: string): Promise<Query> {
  const jmespath = await import('@jmespath-community/jmespath');
  let ast: ReturnType<typeof jmespath.compile>;
  try {
    ast = jmespath.compile(expression);
  } catch (error) {
    throw new UsageError(`--query: ${firstLine(error)}`, { code: 'bad_query', hint: 'a JMESPath expression, e.g. --query "[].id" or --query "status" (https://jmespath.site)' });
  }
  return (value) => {
    try {
      return jmespath.TreeInterpreter.search(ast, value as Parameters<typeof jmespath.TreeInterpreter.search>[1]);
    } catch (error) {
      throw new UsageError(`--query: ${firstLine(error)}`, { code: 'bad_query', hint: 'check the expression against the --json document (without --query)' });
    }
  };
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'invalid expression';
}
