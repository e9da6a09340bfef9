// Pieces the bash and zsh renderers share: the same case tables, written in the same POSIX-ish syntax.
import { allCommands, type CommandSpec, type ValueSource } from './model.js';

/** A single-quoted word for sh, bash and zsh. */
export function sq(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A command path as the scripts track it: "" for the program, "order place " below it. */
export function pathKey(path: readonly string[]): string {
  return path.map((word) => `${word} `).join('');
}

/** How a script names a value source: `words a b`, `files`, `dynamic products`, `none`. */
export function sourceWord(source: ValueSource): string {
  switch (source.kind) {
    case 'words':
      return `words ${source.words.join(' ')}`;
    case 'dynamic':
      return `dynamic ${source.source}`;
    default:
      return source.kind;
  }
}

/**
 * `case "$path|$flag"` branches for flags that take a value. A flag defined at "order " is accepted
 * at "order place " too; deeper definitions come first so they win.
 */
export function flagValueCases(root: CommandSpec, indent: string): string[] {
  const seen = new Set<string>();
  const rows: { depth: number; line: string }[] = [];
  for (const command of allCommands(root)) {
    for (const flag of command.flags) {
      if (!flag.value) continue;
      const at = flag.definedAt === '' ? '' : `${flag.definedAt} `;
      for (const name of flag.names) {
        const pattern = `${at === '' ? '' : sq(at)}*${sq(`|${name}`)}`;
        if (seen.has(pattern)) continue;
        seen.add(pattern);
        rows.push({ depth: at.split(' ').length, line: `${indent}${pattern}) REPLY=${sq(sourceWord(flag.value))} ;;` });
      }
    }
  }
  return rows.sort((a, b) => b.depth - a.depth).map((row) => row.line);
}

/**
 * `case "$path|$index|$previous"` branches for positional arguments ($previous: the argument before the cursor's);
 * a variadic last argument matches every later index. One completed by the word before it comes first.
 */
export function argValueCases(root: CommandSpec, indent: string): string[] {
  const lines: string[] = [];
  for (const command of allCommands(root)) {
    const key = pathKey(command.path);
    for (const { index, previous, source } of command.argsByPrevious) {
      lines.push(`${indent}${sq(`${key}|${index}|${previous}`)}) REPLY=${sq(sourceWord(source))} ;;`);
    }
    command.args.forEach((source, index) => {
      if (source.kind === 'none') return;
      const last = index === command.args.length - 1 && command.variadic;
      lines.push(`${indent}${sq(`${key}|${last ? '' : `${index}|`}`)}*) REPLY=${sq(sourceWord(source))} ;;`);
    });
  }
  return lines;
}

/** The two lookups bash and zsh share word for word: what follows a flag, and what a positional takes. */
export function valueLookupFunctions(root: CommandSpec): string {
  return `# What follows a flag at a path ("words a b", files, "dynamic products", none); fails for a boolean flag.
_giftcodes_flag_value() {
  case "$1|$2" in
${flagValueCases(root, '    ').join('\n')}
    *) return 1 ;;
  esac
}

# What completes the positional argument at an index of a path, after the argument $3; fails when nothing does.
_giftcodes_arg_value() {
  case "$1|$2|$3" in
${argValueCases(root, '    ').join('\n')}
    *) return 1 ;;
  esac
}
`;
}
