// The bash script: static tables from the command tree, and a walker over COMP_WORDS. It works on
// bash 3.2 (macOS) too, so no mapfile; dynamic values come from `giftcodes __complete`, local files only.
import { allCommands, type CommandSpec } from './model.js';
import { pathKey, sq, valueLookupFunctions } from './shared.js';

export function bashScript(root: CommandSpec): string {
  const commands = allCommands(root);
  const subcommandCases = commands
    .filter((command) => command.subcommands.length > 0)
    .map(
      (command) =>
        `    ${sq(pathKey(command.path))}) REPLY=${sq(command.subcommands.map((sub) => sub.name).join(' '))} ;;`,
    );
  // A word under help takes no flags: the default branch says so.
  const flagCases = commands
    .filter((command) => command.flags.length > 0)
    .map(
      (command) =>
        `    ${sq(pathKey(command.path))}) REPLY=${sq(command.flags.flatMap((flag) => flag.names).join(' '))} ;;`,
    );

  return `# bash completion for giftcodes
# Generated from the command tree by \`giftcodes completion bash\`; do not edit (npm run completions).
# Load it now: source <(giftcodes completion bash); for good: see "Shell completion" in README.md.

# Subcommands of a command path ("" is giftcodes itself, "config " is giftcodes config).
_giftcodes_subcommands() {
  case "$1" in
${subcommandCases.join('\n')}
    *) REPLY='' ;;
  esac
}

# Flags accepted at a command path: its own and those of the commands above it.
_giftcodes_flags() {
  case "$1" in
${flagCases.join('\n')}
    *) REPLY='' ;;
  esac
}

${valueLookupFunctions(root)}
# Fills COMPREPLY with the values of a source that begin with $2.
_giftcodes_values() {
  case "$1" in
    'words '*) COMPREPLY=($(compgen -W "\${1#words }" -- "$2")) ;;
    files)
      # One name a line: file names may hold spaces.
      local IFS=$'\\n'
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "$2")) ;;
    'dynamic '*) COMPREPLY=($(compgen -W "$("\${COMP_WORDS[0]}" __complete "\${1#dynamic }" -- "\${COMP_WORDS[@]:1:COMP_CWORD-1}" 2>/dev/null)" -- "$2")) ;;
    *) COMPREPLY=() ;;
  esac
}

_giftcodes() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" end=$COMP_CWORD flag='' path='' nargs=0 previous='' i word REPLY
  COMPREPLY=()
  # bash splits --flag=value at "=": complete the value of that flag.
  if [[ $cur == '=' && \${COMP_WORDS[end-1]} == -* ]]; then
    flag=\${COMP_WORDS[end-1]} cur='' end=$((end - 1))
  elif [[ \${COMP_WORDS[end-1]} == '=' && \${COMP_WORDS[end-2]} == -* ]]; then
    flag=\${COMP_WORDS[end-2]} end=$((end - 2))
  elif [[ \${COMP_WORDS[end-1]} == -* ]]; then
    flag=\${COMP_WORDS[end-1]} end=$((end - 1))
  fi
  for ((i = 1; i < end; i++)); do
    word=\${COMP_WORDS[i]}
    case "$word" in
      -*)
        if [[ \${COMP_WORDS[i+1]} == '=' ]]; then
          i=$((i + 2))
        elif _giftcodes_flag_value "$path" "$word"; then
          i=$((i + 1))
        fi ;;
      *)
        _giftcodes_subcommands "$path"
        if [[ $nargs == 0 && " $REPLY " == *" $word "* ]]; then path="$path$word "; else nargs=$((nargs + 1)) previous=$word; fi ;;
    esac
  done
  if [[ -n $flag ]] && _giftcodes_flag_value "$path" "$flag"; then
    _giftcodes_values "$REPLY" "$cur"
    return 0
  fi
  if [[ $cur != -* ]]; then
    _giftcodes_subcommands "$path"
    if [[ -n $REPLY && $nargs == 0 ]]; then
      _giftcodes_values "words $REPLY" "$cur"
      return 0
    fi
    if _giftcodes_arg_value "$path" "$nargs" "$previous"; then
      _giftcodes_values "$REPLY" "$cur"
      return 0
    fi
  fi
  _giftcodes_flags "$path"
  _giftcodes_values "words $REPLY" "$cur"
}

complete -F _giftcodes giftcodes
`;
}
