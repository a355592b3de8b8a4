# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_finch_global_optspecs
    string join \n json runtime-home= agent-home= q/quiet v/verbose color= yes h/help V/version
end

function __fish_finch_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_finch_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_finch_using_subcommand
    set -l cmd (__fish_finch_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c finch -n "__fish_finch_needs_command" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_needs_command" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_needs_command" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_needs_command" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_needs_command" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_needs_command" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_needs_command" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_needs_command" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_needs_command" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_needs_command" -f -a "add" -d 'Install a mini tool from npm, a directory, a .tgz/.zip file or URL'
complete -c finch -n "__fish_finch_needs_command" -f -a "install" -d 'Install a mini tool from npm, a directory, a .tgz/.zip file or URL'
complete -c finch -n "__fish_finch_needs_command" -f -a "i" -d 'Install a mini tool from npm, a directory, a .tgz/.zip file or URL'
complete -c finch -n "__fish_finch_needs_command" -f -a "update" -d 'Update installed mini tools from where they came from'
complete -c finch -n "__fish_finch_needs_command" -f -a "up" -d 'Update installed mini tools from where they came from'
complete -c finch -n "__fish_finch_needs_command" -f -a "remove" -d 'Uninstall a mini tool (its data directory is kept)'
complete -c finch -n "__fish_finch_needs_command" -f -a "rm" -d 'Uninstall a mini tool (its data directory is kept)'
complete -c finch -n "__fish_finch_needs_command" -f -a "uninstall" -d 'Uninstall a mini tool (its data directory is kept)'
complete -c finch -n "__fish_finch_needs_command" -f -a "list" -d 'List installed mini tools'
complete -c finch -n "__fish_finch_needs_command" -f -a "ls" -d 'List installed mini tools'
complete -c finch -n "__fish_finch_needs_command" -f -a "enable" -d 'Enable a mini tool'
complete -c finch -n "__fish_finch_needs_command" -f -a "disable" -d 'Disable a mini tool'
complete -c finch -n "__fish_finch_needs_command" -f -a "reload" -d 'Rescan mini tools, start them and refresh the tool catalog'
complete -c finch -n "__fish_finch_needs_command" -f -a "where" -d 'Print the homes and every state file finch uses'
complete -c finch -n "__fish_finch_needs_command" -f -a "doctor" -d 'Check a mini tool package, or the whole environment'
complete -c finch -n "__fish_finch_needs_command" -f -a "memory" -d 'Read and write the agent\'s memory files'
complete -c finch -n "__fish_finch_needs_command" -f -a "schedule" -d 'Manage scheduled automation tasks'
complete -c finch -n "__fish_finch_needs_command" -f -a "session" -d 'Read and change session transcripts'
complete -c finch -n "__fish_finch_needs_command" -f -a "space" -d 'List and create spaces'
complete -c finch -n "__fish_finch_needs_command" -f -a "skill" -d 'List and show skills'
complete -c finch -n "__fish_finch_needs_command" -f -a "mcp" -d 'Configure MCP servers'
complete -c finch -n "__fish_finch_needs_command" -f -a "tool" -d 'List, search, describe and call tools'
complete -c finch -n "__fish_finch_needs_command" -f -a "policy" -d 'Ask the permission gateway for a verdict'
complete -c finch -n "__fish_finch_needs_command" -f -a "run" -d 'Run the tool host'
complete -c finch -n "__fish_finch_needs_command" -f -a "completions" -d 'Print shell completions'
complete -c finch -n "__fish_finch_needs_command" -f -a "man" -d 'Print or write the man pages'
complete -c finch -n "__fish_finch_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c finch -n "__fish_finch_using_subcommand add" -l registry -d 'npm registry to use instead of the configured one' -r
complete -c finch -n "__fish_finch_using_subcommand add" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand add" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand add" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand add" -s g -l global -d 'Install into the global tier (<runtime>/extensions)'
complete -c finch -n "__fish_finch_using_subcommand add" -s d -l dev -d 'Link a source directory instead of copying it (development install)'
complete -c finch -n "__fish_finch_using_subcommand add" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand add" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand add" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand add" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand add" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand add" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand install" -l registry -d 'npm registry to use instead of the configured one' -r
complete -c finch -n "__fish_finch_using_subcommand install" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand install" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand install" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand install" -s g -l global -d 'Install into the global tier (<runtime>/extensions)'
complete -c finch -n "__fish_finch_using_subcommand install" -s d -l dev -d 'Link a source directory instead of copying it (development install)'
complete -c finch -n "__fish_finch_using_subcommand install" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand install" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand install" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand install" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand install" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand install" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand i" -l registry -d 'npm registry to use instead of the configured one' -r
complete -c finch -n "__fish_finch_using_subcommand i" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand i" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand i" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand i" -s g -l global -d 'Install into the global tier (<runtime>/extensions)'
complete -c finch -n "__fish_finch_using_subcommand i" -s d -l dev -d 'Link a source directory instead of copying it (development install)'
complete -c finch -n "__fish_finch_using_subcommand i" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand i" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand i" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand i" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand i" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand i" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand update" -l registry -d 'npm registry to use instead of the configured one' -r
complete -c finch -n "__fish_finch_using_subcommand update" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand update" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand update" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand update" -l all -d 'Update every mini tool in the tier'
complete -c finch -n "__fish_finch_using_subcommand update" -s g -l global -d 'Use the global tier'
complete -c finch -n "__fish_finch_using_subcommand update" -l dry-run -d 'Show what would change without changing anything'
complete -c finch -n "__fish_finch_using_subcommand update" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand update" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand update" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand update" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand update" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand update" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand up" -l registry -d 'npm registry to use instead of the configured one' -r
complete -c finch -n "__fish_finch_using_subcommand up" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand up" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand up" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand up" -l all -d 'Update every mini tool in the tier'
complete -c finch -n "__fish_finch_using_subcommand up" -s g -l global -d 'Use the global tier'
complete -c finch -n "__fish_finch_using_subcommand up" -l dry-run -d 'Show what would change without changing anything'
complete -c finch -n "__fish_finch_using_subcommand up" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand up" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand up" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand up" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand up" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand up" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand remove" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand remove" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand remove" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand remove" -s g -l global -d 'Use the global tier'
complete -c finch -n "__fish_finch_using_subcommand remove" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand remove" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand remove" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand remove" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand remove" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand remove" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand rm" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand rm" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand rm" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand rm" -s g -l global -d 'Use the global tier'
complete -c finch -n "__fish_finch_using_subcommand rm" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand rm" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand rm" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand rm" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand rm" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand rm" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand uninstall" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand uninstall" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand uninstall" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand uninstall" -s g -l global -d 'Use the global tier'
complete -c finch -n "__fish_finch_using_subcommand uninstall" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand uninstall" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand uninstall" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand uninstall" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand uninstall" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand uninstall" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand list" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand list" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand list" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand list" -s g -l global -d 'List the global tier'
complete -c finch -n "__fish_finch_using_subcommand list" -l all-tiers -d 'List both tiers'
complete -c finch -n "__fish_finch_using_subcommand list" -l long -d 'Print an aligned table even when stdout is not a terminal'
complete -c finch -n "__fish_finch_using_subcommand list" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand list" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand list" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand list" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand list" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand list" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand ls" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand ls" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand ls" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand ls" -s g -l global -d 'List the global tier'
complete -c finch -n "__fish_finch_using_subcommand ls" -l all-tiers -d 'List both tiers'
complete -c finch -n "__fish_finch_using_subcommand ls" -l long -d 'Print an aligned table even when stdout is not a terminal'
complete -c finch -n "__fish_finch_using_subcommand ls" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand ls" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand ls" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand ls" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand ls" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand ls" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand enable" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand enable" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand enable" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand enable" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand enable" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand enable" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand enable" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand enable" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand enable" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand disable" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand disable" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand disable" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand disable" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand disable" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand disable" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand disable" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand disable" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand disable" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand reload" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand reload" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand reload" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand reload" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand reload" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand reload" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand reload" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand reload" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand reload" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand where" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand where" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand where" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand where" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand where" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand where" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand where" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand where" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand where" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand doctor" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand doctor" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand doctor" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand doctor" -l state -d 'Check finch\'s state files and offer to move corrupt ones aside'
complete -c finch -n "__fish_finch_using_subcommand doctor" -l env -d 'Check the environment even when the current directory is a package'
complete -c finch -n "__fish_finch_using_subcommand doctor" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand doctor" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand doctor" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand doctor" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand doctor" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand memory; and not __fish_seen_subcommand_from remember replace forget search list ls show prune help" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand memory; and not __fish_seen_subcommand_from remember replace forget search list ls show prune help" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand memory; and not __fish_seen_subcommand_from remember replace forget search list ls show prune help" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand memory; and not __fish_seen_subcommand_from remember replace forget search list ls show prune help" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand memory; and not __fish_seen_subcommand_from remember replace forget search list ls show prune help" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand memory; and not __fish_seen_subcommand_from remember replace forget search list ls show prune help" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand memory; and not __fish_seen_subcommand_from remember replace forget search list ls show prune help" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand memory; and not __fish_seen_subcommand_from remember replace forget search list ls show prune help" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand memory; and not __fish_seen_subcommand_from remember replace forget search list ls show prune help" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand memory; and not __fish_seen_subcommand_from remember replace forget search list ls show prune help" -f -a "remember" -d 'Add an entry to a memory file'
complete -c finch -n "__fish_finch_using_subcommand memory; and not __fish_seen_subcommand_from remember replace forget search list ls show prune help" -f -a "replace" -d 'Replace exactly one entry'
complete -c finch -n "__fish_finch_using_subcommand memory; and not __fish_seen_subcommand_from remember replace forget search list ls show prune help" -f -a "forget" -d 'Remove an entry'
complete -c finch -n "__fish_finch_using_subcommand memory; and not __fish_seen_subcommand_from remember replace forget search list ls show prune help" -f -a "search" -d 'Search memory, ranked'
complete -c finch -n "__fish_finch_using_subcommand memory; and not __fish_seen_subcommand_from remember replace forget search list ls show prune help" -f -a "list" -d 'List entries with their ids'
complete -c finch -n "__fish_finch_using_subcommand memory; and not __fish_seen_subcommand_from remember replace forget search list ls show prune help" -f -a "ls" -d 'List entries with their ids'
complete -c finch -n "__fish_finch_using_subcommand memory; and not __fish_seen_subcommand_from remember replace forget search list ls show prune help" -f -a "show" -d 'Show a memory file, a day\'s log or a space\'s memory'
complete -c finch -n "__fish_finch_using_subcommand memory; and not __fish_seen_subcommand_from remember replace forget search list ls show prune help" -f -a "prune" -d 'Delete daily logs older than a duration'
complete -c finch -n "__fish_finch_using_subcommand memory; and not __fish_seen_subcommand_from remember replace forget search list ls show prune help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from remember" -l to -d 'Which file: long-term, daily, space:<name>, lessons or profile' -r
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from remember" -l section -d 'Put the entry under this heading (created at the end of the file when missing)' -r
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from remember" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from remember" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from remember" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from remember" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from remember" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from remember" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from remember" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from remember" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from remember" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from replace" -l id -d 'Id of the entry to replace (or a prefix of at least 4 digits)' -r
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from replace" -l in -d 'Only look in this file (long-term, profile, lessons, a date, a space)' -r
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from replace" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from replace" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from replace" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from replace" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from replace" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from replace" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from replace" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from replace" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from replace" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from forget" -l id -d 'Id of the entry to remove (or a prefix of at least 4 digits)' -r
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from forget" -l in -d 'Only look in this file (long-term, profile, lessons, a date, a space)' -r
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from forget" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from forget" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from forget" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from forget" -l all-matching -d 'Remove every matching entry'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from forget" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from forget" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from forget" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from forget" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from forget" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from forget" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from search" -l scope -d 'Which files to search' -r -f -a "all\t''
long-term\t''
daily\t''
spaces\t''
lessons\t''
profile\t''"
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from search" -l space -d 'Only this space\'s memory' -r
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from search" -l since -d 'Only entries dated on or after this day (YYYY-MM-DD)' -r
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from search" -l until -d 'Only entries dated on or before this day (YYYY-MM-DD)' -r
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from search" -l limit -d 'At most this many hits (0 for all)' -r
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from search" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from search" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from search" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from search" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from search" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from search" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from search" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from search" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from search" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from list" -l scope -d 'Which files to list' -r -f -a "all\t''
long-term\t''
daily\t''
spaces\t''
lessons\t''
profile\t''"
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from list" -l space -d 'Only this space\'s memory' -r
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from list" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from list" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from list" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from list" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from list" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from ls" -l scope -d 'Which files to list' -r -f -a "all\t''
long-term\t''
daily\t''
spaces\t''
lessons\t''
profile\t''"
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from ls" -l space -d 'Only this space\'s memory' -r
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from ls" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from ls" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from ls" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from ls" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from ls" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from ls" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from ls" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from ls" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from ls" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from show" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from show" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from show" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from show" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from show" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from prune" -l older-than -d 'Age with a unit, e.g. 30d' -r
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from prune" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from prune" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from prune" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from prune" -l dry-run -d 'Print what would be deleted, delete nothing'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from prune" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from prune" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from prune" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from prune" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from prune" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from prune" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "remember" -d 'Add an entry to a memory file'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "replace" -d 'Replace exactly one entry'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "forget" -d 'Remove an entry'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "search" -d 'Search memory, ranked'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "list" -d 'List entries with their ids'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show a memory file, a day\'s log or a space\'s memory'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "prune" -d 'Delete daily logs older than a duration'
complete -c finch -n "__fish_finch_using_subcommand memory; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and not __fish_seen_subcommand_from list ls create update enable disable delete run history daemon help" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and not __fish_seen_subcommand_from list ls create update enable disable delete run history daemon help" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and not __fish_seen_subcommand_from list ls create update enable disable delete run history daemon help" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand schedule; and not __fish_seen_subcommand_from list ls create update enable disable delete run history daemon help" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and not __fish_seen_subcommand_from list ls create update enable disable delete run history daemon help" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand schedule; and not __fish_seen_subcommand_from list ls create update enable disable delete run history daemon help" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand schedule; and not __fish_seen_subcommand_from list ls create update enable disable delete run history daemon help" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and not __fish_seen_subcommand_from list ls create update enable disable delete run history daemon help" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand schedule; and not __fish_seen_subcommand_from list ls create update enable disable delete run history daemon help" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand schedule; and not __fish_seen_subcommand_from list ls create update enable disable delete run history daemon help" -f -a "list" -d 'List tasks with their next run and last result'
complete -c finch -n "__fish_finch_using_subcommand schedule; and not __fish_seen_subcommand_from list ls create update enable disable delete run history daemon help" -f -a "ls" -d 'List tasks with their next run and last result'
complete -c finch -n "__fish_finch_using_subcommand schedule; and not __fish_seen_subcommand_from list ls create update enable disable delete run history daemon help" -f -a "create" -d 'Create a task'
complete -c finch -n "__fish_finch_using_subcommand schedule; and not __fish_seen_subcommand_from list ls create update enable disable delete run history daemon help" -f -a "update" -d 'Change a task; only the given settings change'
complete -c finch -n "__fish_finch_using_subcommand schedule; and not __fish_seen_subcommand_from list ls create update enable disable delete run history daemon help" -f -a "enable" -d 'Enable a task'
complete -c finch -n "__fish_finch_using_subcommand schedule; and not __fish_seen_subcommand_from list ls create update enable disable delete run history daemon help" -f -a "disable" -d 'Disable a task (it stays in the list and keeps its history)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and not __fish_seen_subcommand_from list ls create update enable disable delete run history daemon help" -f -a "delete" -d 'Delete a task (its history is kept)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and not __fish_seen_subcommand_from list ls create update enable disable delete run history daemon help" -f -a "run" -d 'Run a task now, in the foreground'
complete -c finch -n "__fish_finch_using_subcommand schedule; and not __fish_seen_subcommand_from list ls create update enable disable delete run history daemon help" -f -a "history" -d 'Show run history, newest first'
complete -c finch -n "__fish_finch_using_subcommand schedule; and not __fish_seen_subcommand_from list ls create update enable disable delete run history daemon help" -f -a "daemon" -d 'Run due tasks in the foreground until SIGINT or SIGTERM'
complete -c finch -n "__fish_finch_using_subcommand schedule; and not __fish_seen_subcommand_from list ls create update enable disable delete run history daemon help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from list" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from list" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from list" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from list" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from list" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from ls" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from ls" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from ls" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from ls" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from ls" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from ls" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from ls" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from ls" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from ls" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -l name -d 'A name to recognise the task by' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -l prompt -d 'What the agent is asked to do' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -l hourly -d 'Run every hour, at minute :MM (default :00)' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -l daily -d 'Run every day at HH:MM' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -l weekdays -d 'Run Monday to Friday at HH:MM' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -l weekly -d 'Run every week on DAY (mon…sun) at HH:MM' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -l cron -d 'Run on a five-field cron expression (minute hour day-of-month month day-of-week)' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -l once -d 'Run once at an ISO 8601 date-time (2026-12-24T10:00+05:00; without an offset: in the task\'s time zone)' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -l tz -d 'Time zone, an IANA name such as Europe/Berlin (default: the local zone)' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -l space -d 'Run in this space\'s directory (space id or name)' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -l cwd -d 'Run in this directory (default: the agent home)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -l model -d 'Model for the agent ({model} in the agent command)' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -l effort -d 'Reasoning effort: off, minimal, low, medium, high or xhigh ({effort})' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -l mode -d 'Permission mode: ask or acceptCalls (default acceptCalls)' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -l timeout -d 'Stop a run after this long, e.g. 45m (default 30m)' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from create" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -l name -d 'A new name' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -l prompt -d 'A new prompt' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -l hourly -d 'Run every hour, at minute :MM (default :00)' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -l daily -d 'Run every day at HH:MM' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -l weekdays -d 'Run Monday to Friday at HH:MM' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -l weekly -d 'Run every week on DAY (mon…sun) at HH:MM' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -l cron -d 'Run on a five-field cron expression (minute hour day-of-month month day-of-week)' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -l once -d 'Run once at an ISO 8601 date-time (2026-12-24T10:00+05:00; without an offset: in the task\'s time zone)' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -l tz -d 'Time zone, an IANA name such as Europe/Berlin (default: the local zone)' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -l space -d 'Run in this space\'s directory (space id or name)' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -l cwd -d 'Run in this directory (default: the agent home)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -l model -d 'Model for the agent ({model} in the agent command)' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -l effort -d 'Reasoning effort: off, minimal, low, medium, high or xhigh ({effort})' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -l mode -d 'Permission mode: ask or acceptCalls (default acceptCalls)' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -l timeout -d 'Stop a run after this long, e.g. 45m (default 30m)' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from update" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from enable" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from enable" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from enable" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from enable" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from enable" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from enable" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from enable" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from enable" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from enable" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from disable" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from disable" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from disable" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from disable" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from disable" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from disable" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from disable" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from disable" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from disable" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from delete" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from delete" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from delete" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from delete" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from delete" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from delete" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from delete" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from delete" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from run" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from run" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from run" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from run" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from run" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from run" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from run" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from run" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from run" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from history" -l limit -d 'How many runs to show' -r
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from history" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from history" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from history" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from history" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from history" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from history" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from history" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from history" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from history" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from daemon" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from daemon" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from daemon" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from daemon" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from daemon" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from daemon" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from daemon" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from daemon" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from daemon" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "list" -d 'List tasks with their next run and last result'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create a task'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "update" -d 'Change a task; only the given settings change'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "enable" -d 'Enable a task'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "disable" -d 'Disable a task (it stays in the list and keeps its history)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete a task (its history is kept)'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "run" -d 'Run a task now, in the foreground'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "history" -d 'Show run history, newest first'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "daemon" -d 'Run due tasks in the foreground until SIGINT or SIGTERM'
complete -c finch -n "__fish_finch_using_subcommand schedule; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c finch -n "__fish_finch_using_subcommand session; and not __fish_seen_subcommand_from list ls show search rename extend-dir attach help" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand session; and not __fish_seen_subcommand_from list ls show search rename extend-dir attach help" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand session; and not __fish_seen_subcommand_from list ls show search rename extend-dir attach help" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand session; and not __fish_seen_subcommand_from list ls show search rename extend-dir attach help" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand session; and not __fish_seen_subcommand_from list ls show search rename extend-dir attach help" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand session; and not __fish_seen_subcommand_from list ls show search rename extend-dir attach help" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand session; and not __fish_seen_subcommand_from list ls show search rename extend-dir attach help" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand session; and not __fish_seen_subcommand_from list ls show search rename extend-dir attach help" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand session; and not __fish_seen_subcommand_from list ls show search rename extend-dir attach help" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand session; and not __fish_seen_subcommand_from list ls show search rename extend-dir attach help" -f -a "list" -d 'List sessions, most recently active first'
complete -c finch -n "__fish_finch_using_subcommand session; and not __fish_seen_subcommand_from list ls show search rename extend-dir attach help" -f -a "ls" -d 'List sessions, most recently active first'
complete -c finch -n "__fish_finch_using_subcommand session; and not __fish_seen_subcommand_from list ls show search rename extend-dir attach help" -f -a "show" -d 'Show a transcript'
complete -c finch -n "__fish_finch_using_subcommand session; and not __fish_seen_subcommand_from list ls show search rename extend-dir attach help" -f -a "search" -d 'Search message text and tool names of every transcript, ranked'
complete -c finch -n "__fish_finch_using_subcommand session; and not __fish_seen_subcommand_from list ls show search rename extend-dir attach help" -f -a "rename" -d 'Set a session\'s title'
complete -c finch -n "__fish_finch_using_subcommand session; and not __fish_seen_subcommand_from list ls show search rename extend-dir attach help" -f -a "extend-dir" -d 'Trust another directory for a session\'s file tools'
complete -c finch -n "__fish_finch_using_subcommand session; and not __fish_seen_subcommand_from list ls show search rename extend-dir attach help" -f -a "attach" -d 'Attach a file (at most 20 MiB) to a session\'s composer draft'
complete -c finch -n "__fish_finch_using_subcommand session; and not __fish_seen_subcommand_from list ls show search rename extend-dir attach help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from list" -l workspace -d 'Only sessions whose working directory is DIR or inside it' -r -F
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from list" -l limit -d 'Show at most N sessions (0 for all)' -r
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from list" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from list" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from list" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from list" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from list" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from ls" -l workspace -d 'Only sessions whose working directory is DIR or inside it' -r -F
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from ls" -l limit -d 'Show at most N sessions (0 for all)' -r
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from ls" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from ls" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from ls" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from ls" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from ls" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from ls" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from ls" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from ls" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from ls" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from show" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from show" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from show" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from show" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from show" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from search" -l limit -d 'Show at most N hits (0 for all)' -r
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from search" -l since -d 'Only entries since DATE: 2026-03-01, 2026-03-01T09:30, an RFC 3339 time, or an age such as 12h, 7d, 2w' -r
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from search" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from search" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from search" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from search" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from search" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from search" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from search" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from search" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from search" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from rename" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from rename" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from rename" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from rename" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from rename" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from rename" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from rename" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from rename" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from rename" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from extend-dir" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from extend-dir" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from extend-dir" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from extend-dir" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from extend-dir" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from extend-dir" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from extend-dir" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from extend-dir" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from extend-dir" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from attach" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from attach" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from attach" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from attach" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from attach" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from attach" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from attach" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from attach" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from attach" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "list" -d 'List sessions, most recently active first'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show a transcript'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "search" -d 'Search message text and tool names of every transcript, ranked'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "rename" -d 'Set a session\'s title'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "extend-dir" -d 'Trust another directory for a session\'s file tools'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "attach" -d 'Attach a file (at most 20 MiB) to a session\'s composer draft'
complete -c finch -n "__fish_finch_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c finch -n "__fish_finch_using_subcommand space; and not __fish_seen_subcommand_from list ls create help" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand space; and not __fish_seen_subcommand_from list ls create help" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand space; and not __fish_seen_subcommand_from list ls create help" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand space; and not __fish_seen_subcommand_from list ls create help" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand space; and not __fish_seen_subcommand_from list ls create help" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand space; and not __fish_seen_subcommand_from list ls create help" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand space; and not __fish_seen_subcommand_from list ls create help" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand space; and not __fish_seen_subcommand_from list ls create help" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand space; and not __fish_seen_subcommand_from list ls create help" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand space; and not __fish_seen_subcommand_from list ls create help" -f -a "list" -d 'List spaces'
complete -c finch -n "__fish_finch_using_subcommand space; and not __fish_seen_subcommand_from list ls create help" -f -a "ls" -d 'List spaces'
complete -c finch -n "__fish_finch_using_subcommand space; and not __fish_seen_subcommand_from list ls create help" -f -a "create" -d 'Create a space'
complete -c finch -n "__fish_finch_using_subcommand space; and not __fish_seen_subcommand_from list ls create help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from list" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from list" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from list" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from list" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from list" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from ls" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from ls" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from ls" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from ls" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from ls" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from ls" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from ls" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from ls" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from ls" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from create" -l dir -d 'Bind the space to a directory' -r -F
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from create" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from create" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from create" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from create" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from create" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from create" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from create" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from create" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from help" -f -a "list" -d 'List spaces'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create a space'
complete -c finch -n "__fish_finch_using_subcommand space; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c finch -n "__fish_finch_using_subcommand skill; and not __fish_seen_subcommand_from list ls show help" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand skill; and not __fish_seen_subcommand_from list ls show help" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand skill; and not __fish_seen_subcommand_from list ls show help" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand skill; and not __fish_seen_subcommand_from list ls show help" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand skill; and not __fish_seen_subcommand_from list ls show help" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand skill; and not __fish_seen_subcommand_from list ls show help" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand skill; and not __fish_seen_subcommand_from list ls show help" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand skill; and not __fish_seen_subcommand_from list ls show help" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand skill; and not __fish_seen_subcommand_from list ls show help" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand skill; and not __fish_seen_subcommand_from list ls show help" -f -a "list" -d 'List skills of every source (project, personal, global, enabled mini tools)'
complete -c finch -n "__fish_finch_using_subcommand skill; and not __fish_seen_subcommand_from list ls show help" -f -a "ls" -d 'List skills of every source (project, personal, global, enabled mini tools)'
complete -c finch -n "__fish_finch_using_subcommand skill; and not __fish_seen_subcommand_from list ls show help" -f -a "show" -d 'Print the SKILL.md of the skill that wins for a name'
complete -c finch -n "__fish_finch_using_subcommand skill; and not __fish_seen_subcommand_from list ls show help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from list" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from list" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from list" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from list" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from list" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from ls" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from ls" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from ls" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from ls" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from ls" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from ls" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from ls" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from ls" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from ls" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from show" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from show" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from show" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from show" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from show" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from help" -f -a "list" -d 'List skills of every source (project, personal, global, enabled mini tools)'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print the SKILL.md of the skill that wins for a name'
complete -c finch -n "__fish_finch_using_subcommand skill; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c finch -n "__fish_finch_using_subcommand mcp; and not __fish_seen_subcommand_from list ls add remove rm tools help" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand mcp; and not __fish_seen_subcommand_from list ls add remove rm tools help" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand mcp; and not __fish_seen_subcommand_from list ls add remove rm tools help" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand mcp; and not __fish_seen_subcommand_from list ls add remove rm tools help" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand mcp; and not __fish_seen_subcommand_from list ls add remove rm tools help" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand mcp; and not __fish_seen_subcommand_from list ls add remove rm tools help" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand mcp; and not __fish_seen_subcommand_from list ls add remove rm tools help" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand mcp; and not __fish_seen_subcommand_from list ls add remove rm tools help" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand mcp; and not __fish_seen_subcommand_from list ls add remove rm tools help" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand mcp; and not __fish_seen_subcommand_from list ls add remove rm tools help" -f -a "list" -d 'List MCP servers: transport, source, owner, status and tool count (connects to each)'
complete -c finch -n "__fish_finch_using_subcommand mcp; and not __fish_seen_subcommand_from list ls add remove rm tools help" -f -a "ls" -d 'List MCP servers: transport, source, owner, status and tool count (connects to each)'
complete -c finch -n "__fish_finch_using_subcommand mcp; and not __fish_seen_subcommand_from list ls add remove rm tools help" -f -a "add" -d 'Add an MCP server: a stdio command after `--`, or --url for Streamable HTTP'
complete -c finch -n "__fish_finch_using_subcommand mcp; and not __fish_seen_subcommand_from list ls add remove rm tools help" -f -a "remove" -d 'Remove an MCP server from servers.json'
complete -c finch -n "__fish_finch_using_subcommand mcp; and not __fish_seen_subcommand_from list ls add remove rm tools help" -f -a "rm" -d 'Remove an MCP server from servers.json'
complete -c finch -n "__fish_finch_using_subcommand mcp; and not __fish_seen_subcommand_from list ls add remove rm tools help" -f -a "tools" -d 'Connect to an MCP server and list its tools'
complete -c finch -n "__fish_finch_using_subcommand mcp; and not __fish_seen_subcommand_from list ls add remove rm tools help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from list" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from list" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from list" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from list" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from list" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from ls" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from ls" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from ls" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from ls" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from ls" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from ls" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from ls" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from ls" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from ls" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from add" -l url -d 'The URL of a Streamable HTTP server' -r
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from add" -s H -l header -d 'A header sent to an HTTP server, `Name: value` (repeatable; `${VAR}` expands when finch connects)' -r
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from add" -s e -l env -d 'An environment variable of a stdio server, KEY=VALUE (repeatable; `${VAR}` expands)' -r
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from add" -l cwd -d 'The working directory of a stdio server (default: where finch runs)' -r -F
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from add" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from add" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from add" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from add" -l force -d 'Replace the server of the same name'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from add" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from add" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from add" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from add" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from add" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from remove" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from remove" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from remove" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from remove" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from remove" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from remove" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from remove" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from remove" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from remove" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from rm" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from rm" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from rm" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from rm" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from rm" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from rm" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from rm" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from rm" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from rm" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from tools" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from tools" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from tools" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from tools" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from tools" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from tools" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from tools" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from tools" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from tools" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "list" -d 'List MCP servers: transport, source, owner, status and tool count (connects to each)'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "add" -d 'Add an MCP server: a stdio command after `--`, or --url for Streamable HTTP'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "remove" -d 'Remove an MCP server from servers.json'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "tools" -d 'Connect to an MCP server and list its tools'
complete -c finch -n "__fish_finch_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c finch -n "__fish_finch_using_subcommand tool; and not __fish_seen_subcommand_from list ls search info call help" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand tool; and not __fish_seen_subcommand_from list ls search info call help" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand tool; and not __fish_seen_subcommand_from list ls search info call help" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand tool; and not __fish_seen_subcommand_from list ls search info call help" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand tool; and not __fish_seen_subcommand_from list ls search info call help" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand tool; and not __fish_seen_subcommand_from list ls search info call help" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand tool; and not __fish_seen_subcommand_from list ls search info call help" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand tool; and not __fish_seen_subcommand_from list ls search info call help" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand tool; and not __fish_seen_subcommand_from list ls search info call help" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand tool; and not __fish_seen_subcommand_from list ls search info call help" -f -a "list" -d 'List the tools in the catalog'
complete -c finch -n "__fish_finch_using_subcommand tool; and not __fish_seen_subcommand_from list ls search info call help" -f -a "ls" -d 'List the tools in the catalog'
complete -c finch -n "__fish_finch_using_subcommand tool; and not __fish_seen_subcommand_from list ls search info call help" -f -a "search" -d 'Rank the catalog\'s tools for a query, as ToolSearch does'
complete -c finch -n "__fish_finch_using_subcommand tool; and not __fish_seen_subcommand_from list ls search info call help" -f -a "info" -d 'Describe one tool: layer, owner, exposure, permission, schema'
complete -c finch -n "__fish_finch_using_subcommand tool; and not __fish_seen_subcommand_from list ls search info call help" -f -a "call" -d 'Call one tool through the permission gateway'
complete -c finch -n "__fish_finch_using_subcommand tool; and not __fish_seen_subcommand_from list ls search info call help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from list" -l source -d 'Only tools from this source: builtin, suite, minitool, minitool:<id>, mcp, mcp:<server>' -r
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from list" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from list" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from list" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from list" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from list" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from ls" -l source -d 'Only tools from this source: builtin, suite, minitool, minitool:<id>, mcp, mcp:<server>' -r
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from ls" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from ls" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from ls" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from ls" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from ls" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from ls" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from ls" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from ls" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from ls" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from search" -l source -d 'Only tools from this source: builtin, suite, minitool, minitool:<id>, mcp, mcp:<server>' -r
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from search" -l limit -d 'How many tools to show (0 = all that match)' -r
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from search" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from search" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from search" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from search" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from search" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from search" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from search" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from search" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from search" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from info" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from info" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from info" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from info" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from info" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from info" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from info" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from info" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from info" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from call" -l mode -d 'Permission mode (default: finch.toml [host] mode, else ask)' -r -f -a "ask\t'Cards for everything outside autoAllow'
acceptCalls\t'The fast lane runs without cards'"
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from call" -l approve -d 'Answer the permission cards of this exact tool name with "allow" (repeatable; logged)' -r
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from call" -l cwd -d 'Working directory of the session (default: the current directory)' -r -F
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from call" -l session -d 'Continue this session\'s transcript instead of starting a new one (id or unique prefix)' -r
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from call" -l minitool -d 'Load the mini tool in this directory for this run only, without installing it (repeatable)' -r -F
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from call" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from call" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from call" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from call" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from call" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from call" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from call" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from call" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from call" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the tools in the catalog'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "search" -d 'Rank the catalog\'s tools for a query, as ToolSearch does'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "info" -d 'Describe one tool: layer, owner, exposure, permission, schema'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "call" -d 'Call one tool through the permission gateway'
complete -c finch -n "__fish_finch_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c finch -n "__fish_finch_using_subcommand policy; and not __fish_seen_subcommand_from check help" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand policy; and not __fish_seen_subcommand_from check help" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand policy; and not __fish_seen_subcommand_from check help" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand policy; and not __fish_seen_subcommand_from check help" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand policy; and not __fish_seen_subcommand_from check help" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand policy; and not __fish_seen_subcommand_from check help" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand policy; and not __fish_seen_subcommand_from check help" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand policy; and not __fish_seen_subcommand_from check help" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand policy; and not __fish_seen_subcommand_from check help" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand policy; and not __fish_seen_subcommand_from check help" -f -a "check" -d 'Print the gateway\'s decision for a call: allow, ask (a permission card) or deny'
complete -c finch -n "__fish_finch_using_subcommand policy; and not __fish_seen_subcommand_from check help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c finch -n "__fish_finch_using_subcommand policy; and __fish_seen_subcommand_from check" -l mode -d 'Permission mode of the run' -r -f -a "ask\t'Cards for everything outside autoAllow'
acceptCalls\t'The fast lane runs without cards'"
complete -c finch -n "__fish_finch_using_subcommand policy; and __fish_seen_subcommand_from check" -l cwd -d 'Working directory of the call (default: the current directory)' -r -F
complete -c finch -n "__fish_finch_using_subcommand policy; and __fish_seen_subcommand_from check" -l trusted-dir -d 'A directory the file tools may use besides the working directory (repeatable)' -r -F
complete -c finch -n "__fish_finch_using_subcommand policy; and __fish_seen_subcommand_from check" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand policy; and __fish_seen_subcommand_from check" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand policy; and __fish_seen_subcommand_from check" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand policy; and __fish_seen_subcommand_from check" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand policy; and __fish_seen_subcommand_from check" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand policy; and __fish_seen_subcommand_from check" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand policy; and __fish_seen_subcommand_from check" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand policy; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c finch -n "__fish_finch_using_subcommand policy; and __fish_seen_subcommand_from check" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand policy; and __fish_seen_subcommand_from help" -f -a "check" -d 'Print the gateway\'s decision for a call: allow, ask (a permission card) or deny'
complete -c finch -n "__fish_finch_using_subcommand policy; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c finch -n "__fish_finch_using_subcommand run" -l mode -d 'Permission mode (default: finch.toml [host] mode, else ask)' -r -f -a "ask\t'Cards for everything outside autoAllow'
acceptCalls\t'The fast lane runs without cards'"
complete -c finch -n "__fish_finch_using_subcommand run" -l approve -d 'Answer the permission cards of this exact tool name with "allow" (repeatable; logged)' -r
complete -c finch -n "__fish_finch_using_subcommand run" -l cwd -d 'Working directory of the session (default: the current directory)' -r -F
complete -c finch -n "__fish_finch_using_subcommand run" -l session -d 'Continue this session\'s transcript instead of starting a new one (id or unique prefix)' -r
complete -c finch -n "__fish_finch_using_subcommand run" -l minitool -d 'Load the mini tool in this directory for this run only, without installing it (repeatable)' -r -F
complete -c finch -n "__fish_finch_using_subcommand run" -l serve -d 'Serve the session\'s tools to an agent over this protocol on stdin/stdout (only: mcp)' -r -f -a "mcp\t'An MCP server on stdio: tools/list, tools/call, cards through elicitation'"
complete -c finch -n "__fish_finch_using_subcommand run" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand run" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand run" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand run" -l jsonl -d 'Read one JSON request per stdin line ({"id","tool","arguments"}), answer one per stdout line'
complete -c finch -n "__fish_finch_using_subcommand run" -l no-builtins -d 'Leave out the runtime built-in tools'
complete -c finch -n "__fish_finch_using_subcommand run" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand run" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand run" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand run" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c finch -n "__fish_finch_using_subcommand run" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand completions" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand completions" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand completions" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand completions" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand completions" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand completions" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand completions" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand completions" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand completions" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand man" -l out-dir -d 'Write one page per command into this directory instead of printing the top page' -r -F
complete -c finch -n "__fish_finch_using_subcommand man" -l runtime-home -d 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)' -r -F
complete -c finch -n "__fish_finch_using_subcommand man" -l agent-home -d 'Agent home (default: $FINCH_AGENT_HOME, else the app\'s setting, else ~/finchnest)' -r -F
complete -c finch -n "__fish_finch_using_subcommand man" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c finch -n "__fish_finch_using_subcommand man" -l json -d 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
complete -c finch -n "__fish_finch_using_subcommand man" -s q -l quiet -d 'Print only data and errors'
complete -c finch -n "__fish_finch_using_subcommand man" -s v -l verbose -d 'Print more detail on stderr'
complete -c finch -n "__fish_finch_using_subcommand man" -l yes -d 'Answer yes to confirmations (never to permission cards)'
complete -c finch -n "__fish_finch_using_subcommand man" -s h -l help -d 'Print help'
complete -c finch -n "__fish_finch_using_subcommand man" -s V -l version -d 'Print version'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "add" -d 'Install a mini tool from npm, a directory, a .tgz/.zip file or URL'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "update" -d 'Update installed mini tools from where they came from'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "remove" -d 'Uninstall a mini tool (its data directory is kept)'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "list" -d 'List installed mini tools'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "enable" -d 'Enable a mini tool'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "disable" -d 'Disable a mini tool'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "reload" -d 'Rescan mini tools, start them and refresh the tool catalog'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "where" -d 'Print the homes and every state file finch uses'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "doctor" -d 'Check a mini tool package, or the whole environment'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "memory" -d 'Read and write the agent\'s memory files'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "schedule" -d 'Manage scheduled automation tasks'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "session" -d 'Read and change session transcripts'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "space" -d 'List and create spaces'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "skill" -d 'List and show skills'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "mcp" -d 'Configure MCP servers'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "tool" -d 'List, search, describe and call tools'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "policy" -d 'Ask the permission gateway for a verdict'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "run" -d 'Run the tool host'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "completions" -d 'Print shell completions'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "man" -d 'Print or write the man pages'
complete -c finch -n "__fish_finch_using_subcommand help; and not __fish_seen_subcommand_from add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "remember" -d 'Add an entry to a memory file'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "replace" -d 'Replace exactly one entry'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "forget" -d 'Remove an entry'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "search" -d 'Search memory, ranked'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "list" -d 'List entries with their ids'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "show" -d 'Show a memory file, a day\'s log or a space\'s memory'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from memory" -f -a "prune" -d 'Delete daily logs older than a duration'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "list" -d 'List tasks with their next run and last result'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "create" -d 'Create a task'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "update" -d 'Change a task; only the given settings change'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "enable" -d 'Enable a task'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "disable" -d 'Disable a task (it stays in the list and keeps its history)'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "delete" -d 'Delete a task (its history is kept)'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "run" -d 'Run a task now, in the foreground'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "history" -d 'Show run history, newest first'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from schedule" -f -a "daemon" -d 'Run due tasks in the foreground until SIGINT or SIGTERM'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "list" -d 'List sessions, most recently active first'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "show" -d 'Show a transcript'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "search" -d 'Search message text and tool names of every transcript, ranked'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "rename" -d 'Set a session\'s title'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "extend-dir" -d 'Trust another directory for a session\'s file tools'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "attach" -d 'Attach a file (at most 20 MiB) to a session\'s composer draft'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from space" -f -a "list" -d 'List spaces'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from space" -f -a "create" -d 'Create a space'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from skill" -f -a "list" -d 'List skills of every source (project, personal, global, enabled mini tools)'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from skill" -f -a "show" -d 'Print the SKILL.md of the skill that wins for a name'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from mcp" -f -a "list" -d 'List MCP servers: transport, source, owner, status and tool count (connects to each)'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from mcp" -f -a "add" -d 'Add an MCP server: a stdio command after `--`, or --url for Streamable HTTP'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from mcp" -f -a "remove" -d 'Remove an MCP server from servers.json'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from mcp" -f -a "tools" -d 'Connect to an MCP server and list its tools'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "list" -d 'List the tools in the catalog'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "search" -d 'Rank the catalog\'s tools for a query, as ToolSearch does'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "info" -d 'Describe one tool: layer, owner, exposure, permission, schema'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "call" -d 'Call one tool through the permission gateway'
complete -c finch -n "__fish_finch_using_subcommand help; and __fish_seen_subcommand_from policy" -f -a "check" -d 'Print the gateway\'s decision for a call: allow, ask (a permission card) or deny'
