# fish completion for giftcodes
# Generated from the command tree by `giftcodes completion fish`; do not edit (npm run completions).
# Load it now: giftcodes completion fish | source; for good: see "Shell completion" in README.md.

function __giftcodes_subcommands --argument-names path
    switch $path
        case ''
            printf '%s\n' 'login' 'logout' 'config' 'status' 'ping' 'doctor' 'catalog' 'order' 'codes' 'webhook' 'serve' 'completion' 'version' 'help'
        case 'config '
            printf '%s\n' 'show' 'list' 'set' 'unset' 'use' 'help'
        case 'config help '
            printf '%s\n' 'show' 'list' 'set' 'unset' 'use'
        case 'catalog '
            printf '%s\n' 'list' 'help'
        case 'catalog help '
            printf '%s\n' 'list'
        case 'order '
            printf '%s\n' 'place' 'show' 'watch' 'list' 'pending' 'resume' 'abandon' 'help'
        case 'order help '
            printf '%s\n' 'place' 'show' 'watch' 'list' 'pending' 'resume' 'abandon'
        case 'codes '
            printf '%s\n' 'get' 'decrypt' 'help'
        case 'codes help '
            printf '%s\n' 'get' 'decrypt'
        case 'webhook '
            printf '%s\n' 'listen' 'help'
        case 'webhook help '
            printf '%s\n' 'listen'
        case 'help '
            printf '%s\n' 'login' 'logout' 'config' 'status' 'ping' 'doctor' 'catalog' 'order' 'codes' 'webhook' 'serve' 'completion' 'version' 'environment' 'exit-codes' 'options'
        case 'help config '
            printf '%s\n' 'show' 'list' 'set' 'unset' 'use'
        case 'help catalog '
            printf '%s\n' 'list'
        case 'help order '
            printf '%s\n' 'place' 'show' 'watch' 'list' 'pending' 'resume' 'abandon'
        case 'help codes '
            printf '%s\n' 'get' 'decrypt'
        case 'help webhook '
            printf '%s\n' 'listen'
    end
end

function __giftcodes_takes_value --argument-names flag
    contains -- $flag '--profile' '--env' '--api-key' '--base-url' '--request-timeout' '--retries' '--ca-file' '--query' '--filter' '--limit' '--product' '--quantity' '--idempotency-key' '--plan' '--batch' '--concurrency' '--interval' '--timeout' '--out' '-o' '--format' '--encrypt-to' '--webhook-port' '--secret-file' '--webhook-secret' '--webhook-scheme' '--signature-header' '--status' '--since' '--identity' '-i' '--port' '--host' '--secret' '--scheme' '--forward-to' '--seed' '--latency' '--fail-rate' '--rate-limit' '--fulfil-after' '--drop-after-commit' '--hold' '--fail-orders' '--webhook-url' '--dialect' '--tls-cert' '--tls-key' '--gzip'
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
    printf '%s\n' "$path" $nargs $skip "$previous"
end

# True when the cursor is at a word (not a flag's value) right below a command path.
function __giftcodes_at --argument-names path
    set -l walk (__giftcodes_walk)
    test "$walk[1]" = "$path"; and test $walk[2] = 0; and test $walk[3] = 0
end

# True at the positional argument of a path with this index ("2+" for a variadic one), after the argument
# `previous` when it is given.
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
complete -c giftcodes -n '__giftcodes_at \'\'' -a 'login' -d 'store an API key in the profile, verified with ping first'
complete -c giftcodes -n '__giftcodes_at \'\'' -a 'logout' -d 'remove keys from the profile (--env test|live|all; default all)'
complete -c giftcodes -n '__giftcodes_at \'\'' -a 'config' -d 'inspect and change profiles (keys are always shown masked)'
complete -c giftcodes -n '__giftcodes_at \'\'' -a 'status' -d 'show every profile and key: where each comes from, whose it is, the base URL, and whether it works now'
complete -c giftcodes -n '__giftcodes_at \'\'' -a 'ping' -d 'check that the key works: status, environment and reseller'
complete -c giftcodes -n '__giftcodes_at \'\'' -a 'doctor' -d 'check that a cron job can run here: PATH, key, directories, API, clock'
complete -c giftcodes -n '__giftcodes_at \'\'' -a 'catalog' -d 'browse the products you can order'
complete -c giftcodes -n '__giftcodes_at \'\'' -a 'order' -d 'place, follow and recover orders'
complete -c giftcodes -n '__giftcodes_at \'\'' -a 'codes' -d 'fetch the codes of a completed order (CSV, JSON, JSONL, XLSX; encrypted with age)'
complete -c giftcodes -n '__giftcodes_at \'\'' -a 'webhook' -d 'receive signed webhook events from the API'
complete -c giftcodes -n '__giftcodes_at \'\'' -a 'serve' -d 'run the local reference server (a faithful implementation of the API, with fault flags for tests); it keeps its orders in memory, so a restart forgets them'
complete -c giftcodes -n '__giftcodes_at \'\'' -a 'completion' -d 'print the shell completion script for bash, zsh or fish'
complete -c giftcodes -n '__giftcodes_at \'\'' -a 'version' -d 'print the version (the same as --version; --json adds the Node version)'
complete -c giftcodes -n '__giftcodes_at \'\'' -a 'help' -d 'show help for a command'
complete -c giftcodes -n '__giftcodes_at \'config \'' -a 'show' -d 'show the profile in use: base URL, default environment, masked keys, the reseller login learned'
complete -c giftcodes -n '__giftcodes_at \'config \'' -a 'list' -d 'list the profiles; the default is marked'
complete -c giftcodes -n '__giftcodes_at \'config \'' -a 'set' -d 'change a field of the profile (base-url, default-env, encrypt-to, history-days, proxy); keys are set with login'
complete -c giftcodes -n '__giftcodes_at \'config \'' -a 'unset' -d 'remove a field from the profile, so its default applies again (base-url, default-env, encrypt-to, history-days, proxy)'
complete -c giftcodes -n '__giftcodes_at \'config \'' -a 'use' -d 'make a profile the default'
complete -c giftcodes -n '__giftcodes_at \'config \'' -a 'help' -d 'show help for a command'
complete -c giftcodes -n '__giftcodes_at \'config help \'' -a 'show' -d 'show the profile in use: base URL, default environment, masked keys, the reseller login learned'
complete -c giftcodes -n '__giftcodes_at \'config help \'' -a 'list' -d 'list the profiles; the default is marked'
complete -c giftcodes -n '__giftcodes_at \'config help \'' -a 'set' -d 'change a field of the profile (base-url, default-env, encrypt-to, history-days, proxy); keys are set with login'
complete -c giftcodes -n '__giftcodes_at \'config help \'' -a 'unset' -d 'remove a field from the profile, so its default applies again (base-url, default-env, encrypt-to, history-days, proxy)'
complete -c giftcodes -n '__giftcodes_at \'config help \'' -a 'use' -d 'make a profile the default'
complete -c giftcodes -n '__giftcodes_at \'catalog \'' -a 'list' -d 'list the products (each id is a purchasable denomination)'
complete -c giftcodes -n '__giftcodes_at \'catalog \'' -a 'help' -d 'show help for a command'
complete -c giftcodes -n '__giftcodes_at \'catalog help \'' -a 'list' -d 'list the products (each id is a purchasable denomination)'
complete -c giftcodes -n '__giftcodes_at \'order \'' -a 'place' -d 'place an order exactly once, even across crashes (the key is journaled before anything is sent); at a terminal, without --product or --quantity, it asks for what is missing (a guided order)'
complete -c giftcodes -n '__giftcodes_at \'order \'' -a 'show' -d 'read an order: its status and every field the API sends, and what this machine did with it'
complete -c giftcodes -n '__giftcodes_at \'order \'' -a 'watch' -d 'wait until an order ends: exit 0 completed, 6 failed, 7 on --timeout'
complete -c giftcodes -n '__giftcodes_at \'order \'' -a 'list' -d 'list every order placed or tried from here (the local order record), newest first (unresolved ones as pending)'
complete -c giftcodes -n '__giftcodes_at \'order \'' -a 'pending' -d 'list the orders whose outcome never reached you (interrupted, crashed, timed out), from the local journal; --profile and --env narrow them'
complete -c giftcodes -n '__giftcodes_at \'order \'' -a 'resume' -d 'finish interrupted orders with their original keys and requests (never a second charge)'
complete -c giftcodes -n '__giftcodes_at \'order \'' -a 'abandon' -d 'stop resuming one interrupted order (it may still exist on the server)'
complete -c giftcodes -n '__giftcodes_at \'order \'' -a 'help' -d 'show help for a command'
complete -c giftcodes -n '__giftcodes_at \'order help \'' -a 'place' -d 'place an order exactly once, even across crashes (the key is journaled before anything is sent); at a terminal, without --product or --quantity, it asks for what is missing (a guided order)'
complete -c giftcodes -n '__giftcodes_at \'order help \'' -a 'show' -d 'read an order: its status and every field the API sends, and what this machine did with it'
complete -c giftcodes -n '__giftcodes_at \'order help \'' -a 'watch' -d 'wait until an order ends: exit 0 completed, 6 failed, 7 on --timeout'
complete -c giftcodes -n '__giftcodes_at \'order help \'' -a 'list' -d 'list every order placed or tried from here (the local order record), newest first (unresolved ones as pending)'
complete -c giftcodes -n '__giftcodes_at \'order help \'' -a 'pending' -d 'list the orders whose outcome never reached you (interrupted, crashed, timed out), from the local journal; --profile and --env narrow them'
complete -c giftcodes -n '__giftcodes_at \'order help \'' -a 'resume' -d 'finish interrupted orders with their original keys and requests (never a second charge)'
complete -c giftcodes -n '__giftcodes_at \'order help \'' -a 'abandon' -d 'stop resuming one interrupted order (it may still exist on the server)'
complete -c giftcodes -n '__giftcodes_at \'codes \'' -a 'get' -d 'write the codes of an order to stdout or a file, every page followed'
complete -c giftcodes -n '__giftcodes_at \'codes \'' -a 'decrypt' -d 'decrypt an encrypted codes file (codes.csv.age) to stdout or a file, with an age identity file'
complete -c giftcodes -n '__giftcodes_at \'codes \'' -a 'help' -d 'show help for a command'
complete -c giftcodes -n '__giftcodes_at \'codes help \'' -a 'get' -d 'write the codes of an order to stdout or a file, every page followed'
complete -c giftcodes -n '__giftcodes_at \'codes help \'' -a 'decrypt' -d 'decrypt an encrypted codes file (codes.csv.age) to stdout or a file, with an age identity file'
complete -c giftcodes -n '__giftcodes_at \'webhook \'' -a 'listen' -d 'receive webhook events: verify each signature, drop duplicates, print each event, optionally forward it'
complete -c giftcodes -n '__giftcodes_at \'webhook \'' -a 'help' -d 'show help for a command'
complete -c giftcodes -n '__giftcodes_at \'webhook help \'' -a 'listen' -d 'receive webhook events: verify each signature, drop duplicates, print each event, optionally forward it'
complete -c giftcodes -n '__giftcodes_at \'help \'' -a 'login' -d 'store an API key in the profile, verified with ping first'
complete -c giftcodes -n '__giftcodes_at \'help \'' -a 'logout' -d 'remove keys from the profile (--env test|live|all; default all)'
complete -c giftcodes -n '__giftcodes_at \'help \'' -a 'config' -d 'inspect and change profiles (keys are always shown masked)'
complete -c giftcodes -n '__giftcodes_at \'help \'' -a 'status' -d 'show every profile and key: where each comes from, whose it is, the base URL, and whether it works now'
complete -c giftcodes -n '__giftcodes_at \'help \'' -a 'ping' -d 'check that the key works: status, environment and reseller'
complete -c giftcodes -n '__giftcodes_at \'help \'' -a 'doctor' -d 'check that a cron job can run here: PATH, key, directories, API, clock'
complete -c giftcodes -n '__giftcodes_at \'help \'' -a 'catalog' -d 'browse the products you can order'
complete -c giftcodes -n '__giftcodes_at \'help \'' -a 'order' -d 'place, follow and recover orders'
complete -c giftcodes -n '__giftcodes_at \'help \'' -a 'codes' -d 'fetch the codes of a completed order (CSV, JSON, JSONL, XLSX; encrypted with age)'
complete -c giftcodes -n '__giftcodes_at \'help \'' -a 'webhook' -d 'receive signed webhook events from the API'
complete -c giftcodes -n '__giftcodes_at \'help \'' -a 'serve' -d 'run the local reference server (a faithful implementation of the API, with fault flags for tests); it keeps its orders in memory, so a restart forgets them'
complete -c giftcodes -n '__giftcodes_at \'help \'' -a 'completion' -d 'print the shell completion script for bash, zsh or fish'
complete -c giftcodes -n '__giftcodes_at \'help \'' -a 'version' -d 'print the version (the same as --version; --json adds the Node version)'
complete -c giftcodes -n '__giftcodes_at \'help \'' -a 'environment' -d 'help topic: environment'
complete -c giftcodes -n '__giftcodes_at \'help \'' -a 'exit-codes' -d 'help topic: exit-codes'
complete -c giftcodes -n '__giftcodes_at \'help \'' -a 'options' -d 'help topic: options'
complete -c giftcodes -n '__giftcodes_at \'help config \'' -a 'show' -d 'show the profile in use: base URL, default environment, masked keys, the reseller login learned'
complete -c giftcodes -n '__giftcodes_at \'help config \'' -a 'list' -d 'list the profiles; the default is marked'
complete -c giftcodes -n '__giftcodes_at \'help config \'' -a 'set' -d 'change a field of the profile (base-url, default-env, encrypt-to, history-days, proxy); keys are set with login'
complete -c giftcodes -n '__giftcodes_at \'help config \'' -a 'unset' -d 'remove a field from the profile, so its default applies again (base-url, default-env, encrypt-to, history-days, proxy)'
complete -c giftcodes -n '__giftcodes_at \'help config \'' -a 'use' -d 'make a profile the default'
complete -c giftcodes -n '__giftcodes_at \'help catalog \'' -a 'list' -d 'list the products (each id is a purchasable denomination)'
complete -c giftcodes -n '__giftcodes_at \'help order \'' -a 'place' -d 'place an order exactly once, even across crashes (the key is journaled before anything is sent); at a terminal, without --product or --quantity, it asks for what is missing (a guided order)'
complete -c giftcodes -n '__giftcodes_at \'help order \'' -a 'show' -d 'read an order: its status and every field the API sends, and what this machine did with it'
complete -c giftcodes -n '__giftcodes_at \'help order \'' -a 'watch' -d 'wait until an order ends: exit 0 completed, 6 failed, 7 on --timeout'
complete -c giftcodes -n '__giftcodes_at \'help order \'' -a 'list' -d 'list every order placed or tried from here (the local order record), newest first (unresolved ones as pending)'
complete -c giftcodes -n '__giftcodes_at \'help order \'' -a 'pending' -d 'list the orders whose outcome never reached you (interrupted, crashed, timed out), from the local journal; --profile and --env narrow them'
complete -c giftcodes -n '__giftcodes_at \'help order \'' -a 'resume' -d 'finish interrupted orders with their original keys and requests (never a second charge)'
complete -c giftcodes -n '__giftcodes_at \'help order \'' -a 'abandon' -d 'stop resuming one interrupted order (it may still exist on the server)'
complete -c giftcodes -n '__giftcodes_at \'help codes \'' -a 'get' -d 'write the codes of an order to stdout or a file, every page followed'
complete -c giftcodes -n '__giftcodes_at \'help codes \'' -a 'decrypt' -d 'decrypt an encrypted codes file (codes.csv.age) to stdout or a file, with an age identity file'
complete -c giftcodes -n '__giftcodes_at \'help webhook \'' -a 'listen' -d 'receive webhook events: verify each signature, drop duplicates, print each event, optionally forward it'
complete -c giftcodes -n '__giftcodes_arg \'config set \' 0' -a 'base-url default-env encrypt-to history-days proxy'
complete -c giftcodes -n '__giftcodes_arg \'config unset \' 0' -a 'base-url default-env encrypt-to history-days proxy'
complete -c giftcodes -n '__giftcodes_arg \'config use \' 0' -a '(__giftcodes_dynamic profiles)' -d 'profiles'
complete -c giftcodes -n '__giftcodes_arg \'order show \' 0' -a '(__giftcodes_dynamic orders)' -d 'orders'
complete -c giftcodes -n '__giftcodes_arg \'order watch \' 0' -a '(__giftcodes_dynamic orders)' -d 'orders'
complete -c giftcodes -n '__giftcodes_arg \'order resume \' 0' -a '(__giftcodes_dynamic intents)' -d 'intents'
complete -c giftcodes -n '__giftcodes_arg \'order abandon \' 0' -a '(__giftcodes_dynamic intents)' -d 'intents'
complete -c giftcodes -n '__giftcodes_arg \'codes get \' 0' -a '(__giftcodes_dynamic orders)' -d 'orders'
complete -c giftcodes -n '__giftcodes_arg \'codes decrypt \' 0' -F
complete -c giftcodes -n '__giftcodes_arg \'completion \' 0' -a 'bash zsh fish'
complete -c giftcodes -n '__giftcodes_arg \'config set \' 1 \'default-env\'' -a 'test live'
complete -c giftcodes -l version -s V -d 'print the version'
complete -c giftcodes -l profile -x -a '(__giftcodes_dynamic profiles)' -d 'config profile to use (env: GIFTCODES_PROFILE)'
complete -c giftcodes -n 'not __giftcodes_under \'logout \'' -l env -x -a 'test live' -d 'which of the profile\'s keys to use'
complete -c giftcodes -l api-key -x -d 'use this key instead of the profile\'s (prefer GIFTCODES_API_KEY: flags show in ps)'
complete -c giftcodes -l base-url -x -d 'API base URL (env: GIFTCODES_BASE_URL; default: the profile\'s, else http://127.0.0.1:4010)'
complete -c giftcodes -l json -d 'machine output: one JSON document on stdout; errors as JSON on stderr'
complete -c giftcodes -l quiet -s q -d 'no spinner, progress or notices: only data and errors'
complete -c giftcodes -l verbose -s v -d 'one stderr line per HTTP attempt (the key redacted)'
complete -c giftcodes -l no-color -d 'no colour (also NO_COLOR)'
complete -c giftcodes -l request-timeout -x -d 'deadline for one HTTP attempt'
complete -c giftcodes -l retries -x -d 'retries of a retryable failure'
complete -c giftcodes -l ca-file -r -F -d 'PEM certificates trusted in addition to Node\'s own (env: GIFTCODES_CA_FILE)'
complete -c giftcodes -l yes -s y -d 'answer yes to confirmations (required for live orders when not interactive)'
complete -c giftcodes -l query -x -d 'JMESPath expression applied to the --json document (implies --json)'
complete -c giftcodes -l raw -d 'with --query: a result that is one string is printed as it is, without quotes (as jq -r)'
complete -c giftcodes -l no-pager -d 'never send long output through a pager (also GIFTCODES_PAGER=cat)'
complete -c giftcodes -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'login \'' -l api-key-stdin -d 'read the key from stdin instead of prompting'
complete -c giftcodes -n '__giftcodes_under \'login \'' -l insecure-storage -d 'keep the key in the 0600 config file, not the credential store'
complete -c giftcodes -n '__giftcodes_under \'login \'' -l force -d 'save a key of another reseller than the profile\'s other key without asking'
complete -c giftcodes -n '__giftcodes_under \'login \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'logout \'' -l env -x -a 'test live all' -d 'which of the profile\'s keys to use'
complete -c giftcodes -n '__giftcodes_under \'logout \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'config \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'config show \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'config list \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'config set \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'config unset \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'config use \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'status \'' -l offline -d 'do not ping: show what is configured only'
complete -c giftcodes -n '__giftcodes_under \'status \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'ping \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'doctor \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'catalog \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'catalog list \'' -l filter -x -d 'only products whose id or name contains this (any case)'
complete -c giftcodes -n '__giftcodes_under \'catalog list \'' -l limit -x -d 'at most n products'
complete -c giftcodes -n '__giftcodes_under \'catalog list \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'order \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'order place \'' -l product -x -a '(__giftcodes_dynamic products)' -d 'product id from the catalog'
complete -c giftcodes -n '__giftcodes_under \'order place \'' -l quantity -x -d 'number of units'
complete -c giftcodes -n '__giftcodes_under \'order place \'' -l idempotency-key -x -a '(__giftcodes_dynamic intents)' -d 'supply the idempotency key yourself (default: a new UUID, journaled)'
complete -c giftcodes -n '__giftcodes_under \'order place \'' -l wait -d 'wait until the order completes (exit 6 if it fails, 7 on --timeout)'
complete -c giftcodes -n '__giftcodes_under \'order place \'' -l plan -r -F -d 'bulk: one order per row product,quantity[,out]; the same plan never orders twice'
complete -c giftcodes -n '__giftcodes_under \'order place \'' -l batch -x -d 'with --plan: order its rows again as a new batch (e.g. --batch "$(date +%F)" each night); {batch} in an out cell is this name'
complete -c giftcodes -n '__giftcodes_under \'order place \'' -l dry-run -d 'with --plan: print what would be ordered, send nothing'
complete -c giftcodes -n '__giftcodes_under \'order place \'' -l concurrency -x -d 'with --plan: rows at once'
complete -c giftcodes -n '__giftcodes_under \'order place \'' -l interval -x -d 'time between status checks (default 2; the second check comes after half a second at most)'
complete -c giftcodes -n '__giftcodes_under \'order place \'' -l timeout -x -d 'give up waiting after this long (exit 7)'
complete -c giftcodes -n '__giftcodes_under \'order place \'' -l out -s o -r -F -d 'wait for the order to complete, then write its codes to this file (- for stdout)'
complete -c giftcodes -n '__giftcodes_under \'order place \'' -l format -x -a 'csv json jsonl xlsx' -d 'csv, json, jsonl or xlsx (default: from the extension, else json)'
complete -c giftcodes -n '__giftcodes_under \'order place \'' -l force -d 'overwrite an existing --out file'
complete -c giftcodes -n '__giftcodes_under \'order place \'' -l csv-raw -d 'do not escape cells a spreadsheet would run as a formula'
complete -c giftcodes -n '__giftcodes_under \'order place \'' -l encrypt-to -x -d 'encrypt the codes to this age recipient (age1...; repeatable): --out codes.csv.age'
complete -c giftcodes -n '__giftcodes_under \'order place \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'order show \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'order watch \'' -l webhook-port -x -d 'also listen for the signed order.fulfilled event on this port'
complete -c giftcodes -n '__giftcodes_under \'order watch \'' -l secret-file -r -F -d 'read the webhook signing secret from this file (or set GIFTCODES_WEBHOOK_SECRET)'
complete -c giftcodes -n '__giftcodes_under \'order watch \'' -l webhook-secret -x -d 'the webhook signing secret on the command line: every user sees it in ps (prefer --secret-file)'
complete -c giftcodes -n '__giftcodes_under \'order watch \'' -l webhook-scheme -x -a 'giftcodes stripe standard github' -d 'signature scheme of the events (default: detected from the headers)'
complete -c giftcodes -n '__giftcodes_under \'order watch \'' -l signature-header -x -d 'the header carrying the signature (default Giftcodes-Signature)'
complete -c giftcodes -n '__giftcodes_under \'order watch \'' -l interval -x -d 'time between status checks (default 2; the second check comes after half a second at most)'
complete -c giftcodes -n '__giftcodes_under \'order watch \'' -l timeout -x -d 'give up waiting after this long (exit 7)'
complete -c giftcodes -n '__giftcodes_under \'order watch \'' -l out -s o -r -F -d 'wait for the order to complete, then write its codes to this file (- for stdout)'
complete -c giftcodes -n '__giftcodes_under \'order watch \'' -l format -x -a 'csv json jsonl xlsx' -d 'csv, json, jsonl or xlsx (default: from the extension, else json)'
complete -c giftcodes -n '__giftcodes_under \'order watch \'' -l force -d 'overwrite an existing --out file'
complete -c giftcodes -n '__giftcodes_under \'order watch \'' -l csv-raw -d 'do not escape cells a spreadsheet would run as a formula'
complete -c giftcodes -n '__giftcodes_under \'order watch \'' -l encrypt-to -x -d 'encrypt the codes to this age recipient (age1...; repeatable): --out codes.csv.age'
complete -c giftcodes -n '__giftcodes_under \'order watch \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'order list \'' -l status -x -a 'delivered failed refused abandoned pending unfinished processing completed complete cancelled canceled rejected expired refunded error declined placed saved printed unreachable' -d 'outcome (delivered, failed, refused, abandoned, pending), server status (processing, completed…) or a word of the OUTCOME column (placed, saved, "no funds"…); unfinished: the runs to resume only'
complete -c giftcodes -n '__giftcodes_under \'order list \'' -l product -x -a '(__giftcodes_dynamic products)' -d 'only products whose id contains this (any case)'
complete -c giftcodes -n '__giftcodes_under \'order list \'' -l since -x -d 'created since a date (2026-11-01), a duration ago (12h, 7d), today or yesterday (local midnight)'
complete -c giftcodes -n '__giftcodes_under \'order list \'' -l limit -x -d 'at most n orders'
complete -c giftcodes -n '__giftcodes_under \'order list \'' -l refresh -d 'read the current status of orders in progress from the API: recorded for ended orders, shown for those to resume'
complete -c giftcodes -n '__giftcodes_under \'order list \'' -l format -x -a 'table csv' -d 'table, or csv for reconciliation'
complete -c giftcodes -n '__giftcodes_under \'order list \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'order pending \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'order resume \'' -l interval -x -d 'time between status checks (default 2; the second check comes after half a second at most)'
complete -c giftcodes -n '__giftcodes_under \'order resume \'' -l timeout -x -d 'give up waiting after this long (exit 7)'
complete -c giftcodes -n '__giftcodes_under \'order resume \'' -l all -d 'resume every interrupted order (of --profile and --env, when given)'
complete -c giftcodes -n '__giftcodes_under \'order resume \'' -l force -d 'overwrite an existing file when the order was placed with --out'
complete -c giftcodes -n '__giftcodes_under \'order resume \'' -l force-stale -d 'resume an order older than 24 hours or dated in the future (check the server for it first)'
complete -c giftcodes -n '__giftcodes_under \'order resume \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'order abandon \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'codes \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'codes get \'' -l wait -d 'wait for the order to complete first'
complete -c giftcodes -n '__giftcodes_under \'codes get \'' -l interval -x -d 'time between status checks (default 2; the second check comes after half a second at most)'
complete -c giftcodes -n '__giftcodes_under \'codes get \'' -l timeout -x -d 'give up waiting after this long (exit 7)'
complete -c giftcodes -n '__giftcodes_under \'codes get \'' -l out -s o -r -F -d 'write to this file (0600, atomically; \'-\' = stdout, the default)'
complete -c giftcodes -n '__giftcodes_under \'codes get \'' -l format -x -a 'csv json jsonl xlsx' -d 'csv, json, jsonl or xlsx (default: from the extension, else json)'
complete -c giftcodes -n '__giftcodes_under \'codes get \'' -l force -d 'overwrite an existing --out file'
complete -c giftcodes -n '__giftcodes_under \'codes get \'' -l csv-raw -d 'do not escape cells a spreadsheet would run as a formula'
complete -c giftcodes -n '__giftcodes_under \'codes get \'' -l encrypt-to -x -d 'encrypt the codes to this age recipient (age1...; repeatable): --out codes.csv.age'
complete -c giftcodes -n '__giftcodes_under \'codes get \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'codes decrypt \'' -l identity -s i -r -F -d 'the age identity file (age-keygen -o key.txt)'
complete -c giftcodes -n '__giftcodes_under \'codes decrypt \'' -l out -s o -r -F -d 'write to this file (0600, atomically; \'-\' = stdout, the default)'
complete -c giftcodes -n '__giftcodes_under \'codes decrypt \'' -l force -d 'overwrite an existing --out file'
complete -c giftcodes -n '__giftcodes_under \'codes decrypt \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'webhook \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'webhook listen \'' -l port -x -d 'port to listen on (0 picks a free one)'
complete -c giftcodes -n '__giftcodes_under \'webhook listen \'' -l host -x -d 'address to listen on'
complete -c giftcodes -n '__giftcodes_under \'webhook listen \'' -l secret-file -r -F -d 'read the webhook signing secret from this file (or set GIFTCODES_WEBHOOK_SECRET)'
complete -c giftcodes -n '__giftcodes_under \'webhook listen \'' -l secret -x -d 'the webhook signing secret on the command line: every user sees it in ps (prefer --secret-file)'
complete -c giftcodes -n '__giftcodes_under \'webhook listen \'' -l scheme -x -a 'giftcodes stripe standard github' -d 'signature scheme (default: detected from the headers)'
complete -c giftcodes -n '__giftcodes_under \'webhook listen \'' -l signature-header -x -d 'the header that carries the signature, as the service names it (its form and companion headers decide the scheme)'
complete -c giftcodes -n '__giftcodes_under \'webhook listen \'' -l forward-to -x -d 'POST each verified event on to this URL, with its body and signature'
complete -c giftcodes -n '__giftcodes_under \'webhook listen \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l host -x -d 'address to listen on'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l port -x -d 'port (0 picks a free one and prints it)'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l seed -r -F -d 'JSON file of resellers, keys, wallets and products'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l latency -x -d 'fault: delay every answer'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l fail-rate -x -d 'fault: share of requests answered 503'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l rate-limit -x -d 'fault: requests per second before 429 with Retry-After (0 = off)'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l fulfil-after -x -d 'time for an order to go pending → processing → completed'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l drop-after-commit -x -d 'fault: share of orders committed, then the connection dropped unanswered'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l hold -x -d 'fault: keep each order request in progress this long'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l fail-orders -x -d 'share of orders that end failed instead of completed'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l webhook-url -x -d 'send signed order.fulfilled events here'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l webhook-secret -x -d 'secret that signs webhook events (default whsec_demo)'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l dialect -x -a 'ours jsonapi problem spring pages' -d 'how lists, resources and errors look: ours (openapi.yaml) or the dialect of a real API'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l webhook-scheme -x -a 'giftcodes stripe standard github' -d 'how webhook events are signed'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l admin -d 'enable the test endpoints /_admin/ledger, /_admin/reset, /_admin/held and /_admin/release'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l log -d 'print one line per request'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l tls-cert -r -F -d 'serve https with this certificate (PEM; with --tls-key)'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l tls-key -r -F -d 'the private key of --tls-cert (PEM)'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l gzip -x -a 'accepted always' -d 'gzip JSON bodies: when the client accepts gzip, or always (even unasked)'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l connection-close -d 'answer with Connection: close and end each connection after one request'
complete -c giftcodes -n '__giftcodes_under \'serve \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'completion \'' -l help -s h -d 'show help'
complete -c giftcodes -n '__giftcodes_under \'version \'' -l help -s h -d 'show help'
