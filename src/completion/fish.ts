// The fish script: `complete` rules conditioned on the command path, which a small walker computes
// from the tokens before the cursor. fish itself completes flag values (-r/-a/-F).
import { allCommands, type CommandSpec, type FlagSpec, type ValueSource } from './model.js';
import { pathKey } from './shared.js';

/** A single-quoted fish word: inside, only \\ and \' are escapes. */
function fq(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

function valueArgs(source: ValueSource): string {
  switch (source.kind) {
    case 'words':
      return ` -a ${fq(source.words.join(' '))}`;
    case 'files':
      return ' -F';
    case 'dynamic':
      return ` -a ${fq(`(__giftcodes_dynamic ${source.source})`)}`;
    default:
      return '';
  }
}

/** Whether a flag defined at `path` is defined again below `above` (logout's --env below the program's). */
function below(path: string, above: string): boolean {
  return above === '' ? path !== '' : path.startsWith(`${above} `);
}

/**
 * The rule for a flag. fish offers the values of every rule whose condition holds, so the rule of a definition
 * that takes a value stops where a deeper one of the same flag takes over.
 */
function flagLine(flag: FlagSpec, all: readonly FlagSpec[]): string {
  const conditions = flag.definedAt === '' ? [] : [`__giftcodes_under ${fq(`${flag.definedAt} `)}`];
  if (flag.value) {
    for (const deeper of all) {
      if (deeper.value && below(deeper.definedAt, flag.definedAt) && deeper.names.some((n) => flag.names.includes(n)))
        conditions.push(`not __giftcodes_under ${fq(`${deeper.definedAt} `)}`);
    }
  }
  const condition = conditions.length === 0 ? '' : ` -n ${fq(conditions.join('; and '))}`;
  const names = flag.names
    .map((name) => (name.startsWith('--') ? ` -l ${name.slice(2)}` : ` -s ${name.slice(1)}`))
    .join('');
  // -x: a value, and no file names unless the value is a path (-F).
  const value = flag.value ? (flag.value.kind === 'files' ? ' -r -F' : ` -x${valueArgs(flag.value)}`) : '';
  return `complete -c giftcodes${condition}${names}${value} -d ${fq(flag.description)}`;
}

export function fishScript(root: CommandSpec): string {
  const commands = allCommands(root);
  const takesValue = new Set<string>();
  const flags: FlagSpec[] = [];
  const seen = new Set<string>();
  for (const command of commands) {
    for (const flag of command.flags) {
      const id = `${flag.definedAt}|${flag.names.join(',')}`;
      if (seen.has(id)) continue;
      seen.add(id);
      flags.push(flag);
      if (flag.value) for (const name of flag.names) takesValue.add(name);
    }
  }
  const flagLines = flags.map((flag) => flagLine(flag, flags));
  const subcommandCases = commands
    .filter((command) => command.subcommands.length > 0)
    .map(
      (command) =>
        `        case ${fq(pathKey(command.path))}\n            printf '%s\\n' ${command.subcommands.map((sub) => fq(sub.name)).join(' ')}`,
    );
  const subcommandLines = commands.flatMap((command) =>
    command.subcommands.map(
      (sub) =>
        `complete -c giftcodes -n ${fq(`__giftcodes_at ${fq(pathKey(command.path))}`)} -a ${fq(sub.name)} -d ${fq(sub.description)}`,
    ),
  );
  const argLines = commands.flatMap((command) =>
    command.args.flatMap((source, index) => {
      if (source.kind === 'none') return [];
      const last = index === command.args.length - 1 && command.variadic;
      const condition = `__giftcodes_arg ${fq(pathKey(command.path))} ${last ? `${index}+` : index}`;
      const description = source.kind === 'dynamic' ? ` -d ${fq(source.source)}` : '';
      return [`complete -c giftcodes -n ${fq(condition)}${valueArgs(source)}${description}`];
    }),
  );
  const argByPreviousLines = commands.flatMap((command) =>
    command.argsByPrevious.map(({ index, previous, source }) => {
      const condition = `__giftcodes_arg ${fq(pathKey(command.path))} ${index} ${fq(previous)}`;
      return `complete -c giftcodes -n ${fq(condition)}${valueArgs(source)}`;
    }),
  );

  return `# fish completion for giftcodes
# Generated from the command tree by \`giftcodes completion fish\`; do not edit (npm run completions).
# Load it now: giftcodes completion fish | source; for good: see "Shell completion" in README.md.

function __giftcodes_subcommands --argument-names path
    switch $path
${subcommandCases.join('\n')}
    end
end

function __giftcodes_takes_value --argument-names flag
    contains -- $flag ${[...takesValue].map(fq).join(' ')}
end

# Prints the command path before the cursor ("order place "), how many arguments follow it, whether the cursor is
# at a flag's value, and the last of those arguments.
function __giftcodes_walk
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l path ''
    set -l nargs 0
    set -l skip 0
    set -l previous ''
    for token in $tokens
        if test $skip = 1
            set skip 0
            continue
        end
        switch $token
            case '--*=*'
            case '-*'
                __giftcodes_takes_value $token; and set skip 1
            case '*'
                if test $nargs = 0; and contains -- $token (__giftcodes_subcommands $path)
                    set path "$path$token "
                else
                    set nargs (math $nargs + 1)
                    set previous $token
                end
        end
    end
    printf '%s\\n' "$path" $nargs $skip "$previous"
end

# True when the cursor is at a word (not a flag's value) right below a command path.
function __giftcodes_at --argument-names path
    set -l walk (__giftcodes_walk)
    test "$walk[1]" = "$path"; and test $walk[2] = 0; and test $walk[3] = 0
end

# True at the positional argument of a path with this index ("2+" for a variadic one), after the argument
# \`previous\` when it is given.
function __giftcodes_arg --argument-names path index previous
    set -l walk (__giftcodes_walk)
    test "$walk[1]" = "$path"; and test $walk[3] = 0; or return 1
    set -q argv[3]; and test "$walk[4]" != "$previous"; and return 1
    if string match -q -- '*+' $index
        test $walk[2] -ge (string trim -c + -- $index)
    else
        test $walk[2] = $index
    end
end

# True anywhere below a command path (flags of a command are accepted by its subcommands).
function __giftcodes_under --argument-names path
    string match -q -- "$path*" (__giftcodes_walk)[1]
end

function __giftcodes_dynamic --argument-names source
    set -l line (commandline -opc)
    $line[1] __complete $source -- $line[2..-1] 2>/dev/null
end

complete -c giftcodes -f
${subcommandLines.join('\n')}
${argLines.join('\n')}
${argByPreviousLines.join('\n')}
${flagLines.join('\n')}
`;
}
