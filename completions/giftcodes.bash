# bash completion for giftcodes
# Generated from the command tree by `giftcodes completion bash`; do not edit (npm run completions).
# Load it now: source <(giftcodes completion bash); for good: see "Shell completion" in README.md.

# Subcommands of a command path ("" is giftcodes itself, "config " is giftcodes config).
_giftcodes_subcommands() {
  case "$1" in
    '') REPLY='login logout config status ping doctor catalog order codes webhook serve completion version help' ;;
    'config ') REPLY='show list set unset use help' ;;
    'config help ') REPLY='show list set unset use' ;;
    'catalog ') REPLY='list help' ;;
    'catalog help ') REPLY='list' ;;
    'order ') REPLY='place show watch list pending resume abandon help' ;;
    'order help ') REPLY='place show watch list pending resume abandon' ;;
    'codes ') REPLY='get decrypt help' ;;
    'codes help ') REPLY='get decrypt' ;;
    'webhook ') REPLY='listen help' ;;
    'webhook help ') REPLY='listen' ;;
    'help ') REPLY='login logout config status ping doctor catalog order codes webhook serve completion version environment exit-codes options' ;;
    'help config ') REPLY='show list set unset use' ;;
    'help catalog ') REPLY='list' ;;
    'help order ') REPLY='place show watch list pending resume abandon' ;;
    'help codes ') REPLY='get decrypt' ;;
    'help webhook ') REPLY='listen' ;;
    *) REPLY='' ;;
  esac
}

# Flags accepted at a command path: its own and those of the commands above it.
_giftcodes_flags() {
  case "$1" in
    '') REPLY='--version -V --profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --help -h' ;;
    'login ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --api-key-stdin --insecure-storage --force --help -h' ;;
    'logout ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --help -h' ;;
    'config ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --help -h' ;;
    'config show ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --help -h' ;;
    'config list ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --help -h' ;;
    'config set ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --help -h' ;;
    'config unset ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --help -h' ;;
    'config use ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --help -h' ;;
    'config help ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager' ;;
    'status ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --offline --help -h' ;;
    'ping ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --help -h' ;;
    'doctor ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --help -h' ;;
    'catalog ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --help -h' ;;
    'catalog list ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --filter --limit --help -h' ;;
    'catalog help ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager' ;;
    'order ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --help -h' ;;
    'order place ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --product --quantity --idempotency-key --wait --plan --batch --dry-run --concurrency --interval --timeout --out -o --format --force --csv-raw --encrypt-to --help -h' ;;
    'order show ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --help -h' ;;
    'order watch ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --webhook-port --secret-file --webhook-secret --webhook-scheme --signature-header --interval --timeout --out -o --format --force --csv-raw --encrypt-to --help -h' ;;
    'order list ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --status --product --since --limit --refresh --format --help -h' ;;
    'order pending ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --help -h' ;;
    'order resume ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --interval --timeout --all --force --force-stale --help -h' ;;
    'order abandon ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --help -h' ;;
    'order help ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager' ;;
    'codes ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --help -h' ;;
    'codes get ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --wait --interval --timeout --out -o --format --force --csv-raw --encrypt-to --help -h' ;;
    'codes decrypt ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --identity -i --out -o --force --help -h' ;;
    'codes help ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager' ;;
    'webhook ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --help -h' ;;
    'webhook listen ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --port --host --secret-file --secret --scheme --signature-header --forward-to --help -h' ;;
    'webhook help ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager' ;;
    'serve ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --host --port --seed --latency --fail-rate --rate-limit --fulfil-after --drop-after-commit --hold --fail-orders --webhook-url --webhook-secret --dialect --webhook-scheme --admin --log --tls-cert --tls-key --gzip --connection-close --help -h' ;;
    'completion ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --help -h' ;;
    'version ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager --help -h' ;;
    'help ') REPLY='--profile --env --api-key --base-url --json --quiet -q --verbose -v --no-color --request-timeout --retries --ca-file --yes -y --query --raw --no-pager' ;;
    *) REPLY='' ;;
  esac
}

# What follows a flag at a path ("words a b", files, "dynamic products", none); fails for a boolean flag.
_giftcodes_flag_value() {
  case "$1|$2" in
    'catalog list '*'|--filter') REPLY='none' ;;
    'catalog list '*'|--limit') REPLY='none' ;;
    'order place '*'|--product') REPLY='dynamic products' ;;
    'order place '*'|--quantity') REPLY='none' ;;
    'order place '*'|--idempotency-key') REPLY='dynamic intents' ;;
    'order place '*'|--plan') REPLY='files' ;;
    'order place '*'|--batch') REPLY='none' ;;
    'order place '*'|--concurrency') REPLY='none' ;;
    'order place '*'|--interval') REPLY='none' ;;
    'order place '*'|--timeout') REPLY='none' ;;
    'order place '*'|--out') REPLY='files' ;;
    'order place '*'|-o') REPLY='files' ;;
    'order place '*'|--format') REPLY='words csv json jsonl xlsx' ;;
    'order place '*'|--encrypt-to') REPLY='none' ;;
    'order watch '*'|--webhook-port') REPLY='none' ;;
    'order watch '*'|--secret-file') REPLY='files' ;;
    'order watch '*'|--webhook-secret') REPLY='none' ;;
    'order watch '*'|--webhook-scheme') REPLY='words giftcodes stripe standard github' ;;
    'order watch '*'|--signature-header') REPLY='none' ;;
    'order watch '*'|--interval') REPLY='none' ;;
    'order watch '*'|--timeout') REPLY='none' ;;
    'order watch '*'|--out') REPLY='files' ;;
    'order watch '*'|-o') REPLY='files' ;;
    'order watch '*'|--format') REPLY='words csv json jsonl xlsx' ;;
    'order watch '*'|--encrypt-to') REPLY='none' ;;
    'order list '*'|--status') REPLY='words delivered failed refused abandoned pending unfinished processing completed complete cancelled canceled rejected expired refunded error declined placed saved printed unreachable' ;;
    'order list '*'|--product') REPLY='dynamic products' ;;
    'order list '*'|--since') REPLY='none' ;;
    'order list '*'|--limit') REPLY='none' ;;
    'order list '*'|--format') REPLY='words table csv' ;;
    'order resume '*'|--interval') REPLY='none' ;;
    'order resume '*'|--timeout') REPLY='none' ;;
    'codes get '*'|--interval') REPLY='none' ;;
    'codes get '*'|--timeout') REPLY='none' ;;
    'codes get '*'|--out') REPLY='files' ;;
    'codes get '*'|-o') REPLY='files' ;;
    'codes get '*'|--format') REPLY='words csv json jsonl xlsx' ;;
    'codes get '*'|--encrypt-to') REPLY='none' ;;
    'codes decrypt '*'|--identity') REPLY='files' ;;
    'codes decrypt '*'|-i') REPLY='files' ;;
    'codes decrypt '*'|--out') REPLY='files' ;;
    'codes decrypt '*'|-o') REPLY='files' ;;
    'webhook listen '*'|--port') REPLY='none' ;;
    'webhook listen '*'|--host') REPLY='none' ;;
    'webhook listen '*'|--secret-file') REPLY='files' ;;
    'webhook listen '*'|--secret') REPLY='none' ;;
    'webhook listen '*'|--scheme') REPLY='words giftcodes stripe standard github' ;;
    'webhook listen '*'|--signature-header') REPLY='none' ;;
    'webhook listen '*'|--forward-to') REPLY='none' ;;
    'logout '*'|--env') REPLY='words test live all' ;;
    'serve '*'|--host') REPLY='none' ;;
    'serve '*'|--port') REPLY='none' ;;
    'serve '*'|--seed') REPLY='files' ;;
    'serve '*'|--latency') REPLY='none' ;;
    'serve '*'|--fail-rate') REPLY='none' ;;
    'serve '*'|--rate-limit') REPLY='none' ;;
    'serve '*'|--fulfil-after') REPLY='none' ;;
    'serve '*'|--drop-after-commit') REPLY='none' ;;
    'serve '*'|--hold') REPLY='none' ;;
    'serve '*'|--fail-orders') REPLY='none' ;;
    'serve '*'|--webhook-url') REPLY='none' ;;
    'serve '*'|--webhook-secret') REPLY='none' ;;
    'serve '*'|--dialect') REPLY='words ours jsonapi problem spring pages' ;;
    'serve '*'|--webhook-scheme') REPLY='words giftcodes stripe standard github' ;;
    'serve '*'|--tls-cert') REPLY='files' ;;
    'serve '*'|--tls-key') REPLY='files' ;;
    'serve '*'|--gzip') REPLY='words accepted always' ;;
    *'|--profile') REPLY='dynamic profiles' ;;
    *'|--env') REPLY='words test live' ;;
    *'|--api-key') REPLY='none' ;;
    *'|--base-url') REPLY='none' ;;
    *'|--request-timeout') REPLY='none' ;;
    *'|--retries') REPLY='none' ;;
    *'|--ca-file') REPLY='files' ;;
    *'|--query') REPLY='none' ;;
    *) return 1 ;;
  esac
}

# What completes the positional argument at an index of a path, after the argument $3; fails when nothing does.
_giftcodes_arg_value() {
  case "$1|$2|$3" in
    'config set |1|default-env') REPLY='words test live' ;;
    'config set |0|'*) REPLY='words base-url default-env encrypt-to history-days proxy' ;;
    'config unset |0|'*) REPLY='words base-url default-env encrypt-to history-days proxy' ;;
    'config use |0|'*) REPLY='dynamic profiles' ;;
    'order show |0|'*) REPLY='dynamic orders' ;;
    'order watch |0|'*) REPLY='dynamic orders' ;;
    'order resume |0|'*) REPLY='dynamic intents' ;;
    'order abandon |0|'*) REPLY='dynamic intents' ;;
    'codes get |0|'*) REPLY='dynamic orders' ;;
    'codes decrypt |0|'*) REPLY='files' ;;
    'completion |0|'*) REPLY='words bash zsh fish' ;;
    *) return 1 ;;
  esac
}

# Fills COMPREPLY with the values of a source that begin with $2.
_giftcodes_values() {
  case "$1" in
    'words '*) COMPREPLY=($(compgen -W "${1#words }" -- "$2")) ;;
    files)
      # One name a line: file names may hold spaces.
      local IFS=$'\n'
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "$2")) ;;
    'dynamic '*) COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" __complete "${1#dynamic }" -- "${COMP_WORDS[@]:1:COMP_CWORD-1}" 2>/dev/null)" -- "$2")) ;;
    *) COMPREPLY=() ;;
  esac
}

_giftcodes() {
  local cur="${COMP_WORDS[COMP_CWORD]}" end=$COMP_CWORD flag='' path='' nargs=0 previous='' i word REPLY
  COMPREPLY=()
  # bash splits --flag=value at "=": complete the value of that flag.
  if [[ $cur == '=' && ${COMP_WORDS[end-1]} == -* ]]; then
    flag=${COMP_WORDS[end-1]} cur='' end=$((end - 1))
  elif [[ ${COMP_WORDS[end-1]} == '=' && ${COMP_WORDS[end-2]} == -* ]]; then
    flag=${COMP_WORDS[end-2]} end=$((end - 2))
  elif [[ ${COMP_WORDS[end-1]} == -* ]]; then
    flag=${COMP_WORDS[end-1]} end=$((end - 1))
  fi
  for ((i = 1; i < end; i++)); do
    word=${COMP_WORDS[i]}
    case "$word" in
      -*)
        if [[ ${COMP_WORDS[i+1]} == '=' ]]; then
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
