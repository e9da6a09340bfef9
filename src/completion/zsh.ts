// The zsh script: the same tables as bash, with descriptions shown by _describe. Works autoloaded from
// $fpath (as _giftcodes) and sourced (`source <(giftcodes completion zsh)`).
import { allCommands, type CommandSpec } from './model.js';
import { pathKey, sq, valueLookupFunctions } from './shared.js';

/** `name:description` for _describe, colons in the name escaped. */
function described(name: string, description: string): string {
  return sq(`${name.replaceAll(':', '\\:')}:${description}`);
}

export function zshScript(root: CommandSpec): string {
  const commands = allCommands(root);
  const subcommandCases = commands
    .filter((command) => command.subcommands.length > 0)
    .map(
      (command) =>
        `    ${sq(pathKey(command.path))}) reply=(${command.subcommands.map((sub) => described(sub.name, sub.description)).join(' ')}) ;;`,
    );
  // A word under help takes no flags: the default branch says so.
  const flagCases = commands
    .filter((command) => command.flags.length > 0)
    .map(
      (command) =>
        `    ${sq(pathKey(command.path))}) reply=(${command.flags.flatMap((flag) => flag.names.map((name) => described(name, flag.description))).join(' ')}) ;;`,
    );

  return `#compdef giftcodes
# zsh completion for giftcodes
# Generated from the command tree by \`giftcodes completion zsh\`; do not edit (npm run completions).
# Load it now: source <(giftcodes completion zsh); for good: see "Shell completion" in README.md.

# Subcommands of a command path ("" is giftcodes itself, "config " is giftcodes config), as name:description.
_giftcodes_subcommands() {
  case "$1" in
${subcommandCases.join('\n')}
    *) reply=() ;;
  esac
}

# Flags accepted at a command path, as name:description: its own and those of the commands above it.
_giftcodes_flags() {
  case "$1" in
${flagCases.join('\n')}
    *) reply=() ;;
  esac
}

${valueLookupFunctions(root)}
_giftcodes_values() {
  case "$1" in
    'words '*) compadd -- \${=\${1#words }} ;;
    files) _files ;;
    'dynamic '*) compadd -- \${(f)"$(\${words[1]} __complete \${1#dynamic } -- \${words[2,CURRENT-1]} 2>/dev/null)"} ;;
    *) _message 'a value' ;;
  esac
}

_giftcodes() {
  local cur=\${words[CURRENT]} end=$CURRENT flag='' cmdpath='' nargs=0 previous='' i word REPLY
  local -a reply names
  if [[ $cur == -*=* ]]; then
    flag=\${cur%%=*}
    compset -P '*='
  elif [[ \${words[CURRENT-1]} == -* ]]; then
    flag=\${words[CURRENT-1]} end=$((CURRENT - 1))
  fi
  for ((i = 2; i < end; i++)); do
    word=\${words[i]}
    case "$word" in
      -*=*) ;;
      -*) _giftcodes_flag_value "$cmdpath" "$word" && i=$((i + 1)) ;;
      *)
        _giftcodes_subcommands "$cmdpath"
        names=(\${reply%%:*})
        if [[ $nargs == 0 ]] && (( \${names[(Ie)$word]} )); then cmdpath="$cmdpath$word "; else nargs=$((nargs + 1)) previous=$word; fi ;;
    esac
  done
  if [[ -n $flag ]] && _giftcodes_flag_value "$cmdpath" "$flag"; then
    _giftcodes_values "$REPLY"
    return
  fi
  if [[ $cur != -* ]]; then
    _giftcodes_subcommands "$cmdpath"
    if (( \${#reply} )) && [[ $nargs == 0 ]]; then
      _describe -t commands 'giftcodes command' reply
      return
    fi
    if _giftcodes_arg_value "$cmdpath" "$nargs" "$previous"; then
      _giftcodes_values "$REPLY"
      return
    fi
  fi
  _giftcodes_flags "$cmdpath"
  _describe -t options 'option' reply
}

if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  _giftcodes "$@"
else
  compdef _giftcodes giftcodes
fi
`;
}
