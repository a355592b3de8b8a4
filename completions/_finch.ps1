
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'finch' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'finch'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'finch' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Install a mini tool from npm, a directory, a .tgz/.zip file or URL')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Install a mini tool from npm, a directory, a .tgz/.zip file or URL')
            [CompletionResult]::new('i', 'i', [CompletionResultType]::ParameterValue, 'Install a mini tool from npm, a directory, a .tgz/.zip file or URL')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Update installed mini tools from where they came from')
            [CompletionResult]::new('up', 'up', [CompletionResultType]::ParameterValue, 'Update installed mini tools from where they came from')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Uninstall a mini tool (its data directory is kept)')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'Uninstall a mini tool (its data directory is kept)')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Uninstall a mini tool (its data directory is kept)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List installed mini tools')
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List installed mini tools')
            [CompletionResult]::new('enable', 'enable', [CompletionResultType]::ParameterValue, 'Enable a mini tool')
            [CompletionResult]::new('disable', 'disable', [CompletionResultType]::ParameterValue, 'Disable a mini tool')
            [CompletionResult]::new('reload', 'reload', [CompletionResultType]::ParameterValue, 'Rescan mini tools, start them and refresh the tool catalog')
            [CompletionResult]::new('where', 'where', [CompletionResultType]::ParameterValue, 'Print the homes and every state file finch uses')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check a mini tool package, or the whole environment')
            [CompletionResult]::new('memory', 'memory', [CompletionResultType]::ParameterValue, 'Read and write the agent''s memory files')
            [CompletionResult]::new('schedule', 'schedule', [CompletionResultType]::ParameterValue, 'Manage scheduled automation tasks')
            [CompletionResult]::new('session', 'session', [CompletionResultType]::ParameterValue, 'Read and change session transcripts')
            [CompletionResult]::new('space', 'space', [CompletionResultType]::ParameterValue, 'List and create spaces')
            [CompletionResult]::new('skill', 'skill', [CompletionResultType]::ParameterValue, 'List and show skills')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Configure MCP servers')
            [CompletionResult]::new('tool', 'tool', [CompletionResultType]::ParameterValue, 'List, search, describe and call tools')
            [CompletionResult]::new('policy', 'policy', [CompletionResultType]::ParameterValue, 'Ask the permission gateway for a verdict')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run the tool host')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print or write the man pages')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'finch;add' {
            [CompletionResult]::new('--registry', '--registry', [CompletionResultType]::ParameterName, 'npm registry to use instead of the configured one')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Install into the global tier (<runtime>/extensions)')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Install into the global tier (<runtime>/extensions)')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Link a source directory instead of copying it (development install)')
            [CompletionResult]::new('--dev', '--dev', [CompletionResultType]::ParameterName, 'Link a source directory instead of copying it (development install)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;install' {
            [CompletionResult]::new('--registry', '--registry', [CompletionResultType]::ParameterName, 'npm registry to use instead of the configured one')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Install into the global tier (<runtime>/extensions)')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Install into the global tier (<runtime>/extensions)')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Link a source directory instead of copying it (development install)')
            [CompletionResult]::new('--dev', '--dev', [CompletionResultType]::ParameterName, 'Link a source directory instead of copying it (development install)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;i' {
            [CompletionResult]::new('--registry', '--registry', [CompletionResultType]::ParameterName, 'npm registry to use instead of the configured one')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Install into the global tier (<runtime>/extensions)')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Install into the global tier (<runtime>/extensions)')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Link a source directory instead of copying it (development install)')
            [CompletionResult]::new('--dev', '--dev', [CompletionResultType]::ParameterName, 'Link a source directory instead of copying it (development install)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;update' {
            [CompletionResult]::new('--registry', '--registry', [CompletionResultType]::ParameterName, 'npm registry to use instead of the configured one')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Update every mini tool in the tier')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Use the global tier')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Use the global tier')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would change without changing anything')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;up' {
            [CompletionResult]::new('--registry', '--registry', [CompletionResultType]::ParameterName, 'npm registry to use instead of the configured one')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Update every mini tool in the tier')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Use the global tier')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Use the global tier')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would change without changing anything')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;remove' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Use the global tier')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Use the global tier')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;rm' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Use the global tier')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Use the global tier')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;uninstall' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Use the global tier')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Use the global tier')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;list' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'List the global tier')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'List the global tier')
            [CompletionResult]::new('--all-tiers', '--all-tiers', [CompletionResultType]::ParameterName, 'List both tiers')
            [CompletionResult]::new('--long', '--long', [CompletionResultType]::ParameterName, 'Print an aligned table even when stdout is not a terminal')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;ls' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'List the global tier')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'List the global tier')
            [CompletionResult]::new('--all-tiers', '--all-tiers', [CompletionResultType]::ParameterName, 'List both tiers')
            [CompletionResult]::new('--long', '--long', [CompletionResultType]::ParameterName, 'Print an aligned table even when stdout is not a terminal')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;enable' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;disable' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;reload' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;where' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;doctor' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Check finch''s state files and offer to move corrupt ones aside')
            [CompletionResult]::new('--env', '--env', [CompletionResultType]::ParameterName, 'Check the environment even when the current directory is a package')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;memory' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('remember', 'remember', [CompletionResultType]::ParameterValue, 'Add an entry to a memory file')
            [CompletionResult]::new('replace', 'replace', [CompletionResultType]::ParameterValue, 'Replace exactly one entry')
            [CompletionResult]::new('forget', 'forget', [CompletionResultType]::ParameterValue, 'Remove an entry')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search memory, ranked')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List entries with their ids')
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List entries with their ids')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a memory file, a day''s log or a space''s memory')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Delete daily logs older than a duration')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'finch;memory;remember' {
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'Which file: long-term, daily, space:<name>, lessons or profile')
            [CompletionResult]::new('--section', '--section', [CompletionResultType]::ParameterName, 'Put the entry under this heading (created at the end of the file when missing)')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;memory;replace' {
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Id of the entry to replace (or a prefix of at least 4 digits)')
            [CompletionResult]::new('--in', '--in', [CompletionResultType]::ParameterName, 'Only look in this file (long-term, profile, lessons, a date, a space)')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;memory;forget' {
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Id of the entry to remove (or a prefix of at least 4 digits)')
            [CompletionResult]::new('--in', '--in', [CompletionResultType]::ParameterName, 'Only look in this file (long-term, profile, lessons, a date, a space)')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--all-matching', '--all-matching', [CompletionResultType]::ParameterName, 'Remove every matching entry')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;memory;search' {
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Which files to search')
            [CompletionResult]::new('--space', '--space', [CompletionResultType]::ParameterName, 'Only this space''s memory')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only entries dated on or after this day (YYYY-MM-DD)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only entries dated on or before this day (YYYY-MM-DD)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many hits (0 for all)')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;memory;list' {
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Which files to list')
            [CompletionResult]::new('--space', '--space', [CompletionResultType]::ParameterName, 'Only this space''s memory')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;memory;ls' {
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Which files to list')
            [CompletionResult]::new('--space', '--space', [CompletionResultType]::ParameterName, 'Only this space''s memory')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;memory;show' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;memory;prune' {
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Age with a unit, e.g. 30d')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would be deleted, delete nothing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;memory;help' {
            [CompletionResult]::new('remember', 'remember', [CompletionResultType]::ParameterValue, 'Add an entry to a memory file')
            [CompletionResult]::new('replace', 'replace', [CompletionResultType]::ParameterValue, 'Replace exactly one entry')
            [CompletionResult]::new('forget', 'forget', [CompletionResultType]::ParameterValue, 'Remove an entry')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search memory, ranked')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List entries with their ids')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a memory file, a day''s log or a space''s memory')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Delete daily logs older than a duration')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'finch;memory;help;remember' {
            break
        }
        'finch;memory;help;replace' {
            break
        }
        'finch;memory;help;forget' {
            break
        }
        'finch;memory;help;search' {
            break
        }
        'finch;memory;help;list' {
            break
        }
        'finch;memory;help;show' {
            break
        }
        'finch;memory;help;prune' {
            break
        }
        'finch;memory;help;help' {
            break
        }
        'finch;schedule' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List tasks with their next run and last result')
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List tasks with their next run and last result')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a task')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change a task; only the given settings change')
            [CompletionResult]::new('enable', 'enable', [CompletionResultType]::ParameterValue, 'Enable a task')
            [CompletionResult]::new('disable', 'disable', [CompletionResultType]::ParameterValue, 'Disable a task (it stays in the list and keeps its history)')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a task (its history is kept)')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run a task now, in the foreground')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'Show run history, newest first')
            [CompletionResult]::new('daemon', 'daemon', [CompletionResultType]::ParameterValue, 'Run due tasks in the foreground until SIGINT or SIGTERM')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'finch;schedule;list' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;schedule;ls' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;schedule;create' {
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'A name to recognise the task by')
            [CompletionResult]::new('--prompt', '--prompt', [CompletionResultType]::ParameterName, 'What the agent is asked to do')
            [CompletionResult]::new('--hourly', '--hourly', [CompletionResultType]::ParameterName, 'Run every hour, at minute :MM (default :00)')
            [CompletionResult]::new('--daily', '--daily', [CompletionResultType]::ParameterName, 'Run every day at HH:MM')
            [CompletionResult]::new('--weekdays', '--weekdays', [CompletionResultType]::ParameterName, 'Run Monday to Friday at HH:MM')
            [CompletionResult]::new('--weekly', '--weekly', [CompletionResultType]::ParameterName, 'Run every week on DAY (mon…sun) at HH:MM')
            [CompletionResult]::new('--cron', '--cron', [CompletionResultType]::ParameterName, 'Run on a five-field cron expression (minute hour day-of-month month day-of-week)')
            [CompletionResult]::new('--once', '--once', [CompletionResultType]::ParameterName, 'Run once at an ISO 8601 date-time (2026-12-24T10:00+05:00; without an offset: in the task''s time zone)')
            [CompletionResult]::new('--tz', '--tz', [CompletionResultType]::ParameterName, 'Time zone, an IANA name such as Europe/Berlin (default: the local zone)')
            [CompletionResult]::new('--space', '--space', [CompletionResultType]::ParameterName, 'Run in this space''s directory (space id or name)')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Run in this directory (default: the agent home)')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model for the agent ({model} in the agent command)')
            [CompletionResult]::new('--effort', '--effort', [CompletionResultType]::ParameterName, 'Reasoning effort: off, minimal, low, medium, high or xhigh ({effort})')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Permission mode: ask or acceptCalls (default acceptCalls)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Stop a run after this long, e.g. 45m (default 30m)')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;schedule;update' {
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'A new name')
            [CompletionResult]::new('--prompt', '--prompt', [CompletionResultType]::ParameterName, 'A new prompt')
            [CompletionResult]::new('--hourly', '--hourly', [CompletionResultType]::ParameterName, 'Run every hour, at minute :MM (default :00)')
            [CompletionResult]::new('--daily', '--daily', [CompletionResultType]::ParameterName, 'Run every day at HH:MM')
            [CompletionResult]::new('--weekdays', '--weekdays', [CompletionResultType]::ParameterName, 'Run Monday to Friday at HH:MM')
            [CompletionResult]::new('--weekly', '--weekly', [CompletionResultType]::ParameterName, 'Run every week on DAY (mon…sun) at HH:MM')
            [CompletionResult]::new('--cron', '--cron', [CompletionResultType]::ParameterName, 'Run on a five-field cron expression (minute hour day-of-month month day-of-week)')
            [CompletionResult]::new('--once', '--once', [CompletionResultType]::ParameterName, 'Run once at an ISO 8601 date-time (2026-12-24T10:00+05:00; without an offset: in the task''s time zone)')
            [CompletionResult]::new('--tz', '--tz', [CompletionResultType]::ParameterName, 'Time zone, an IANA name such as Europe/Berlin (default: the local zone)')
            [CompletionResult]::new('--space', '--space', [CompletionResultType]::ParameterName, 'Run in this space''s directory (space id or name)')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Run in this directory (default: the agent home)')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model for the agent ({model} in the agent command)')
            [CompletionResult]::new('--effort', '--effort', [CompletionResultType]::ParameterName, 'Reasoning effort: off, minimal, low, medium, high or xhigh ({effort})')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Permission mode: ask or acceptCalls (default acceptCalls)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Stop a run after this long, e.g. 45m (default 30m)')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;schedule;enable' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;schedule;disable' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;schedule;delete' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;schedule;run' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;schedule;history' {
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'How many runs to show')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;schedule;daemon' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;schedule;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List tasks with their next run and last result')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a task')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change a task; only the given settings change')
            [CompletionResult]::new('enable', 'enable', [CompletionResultType]::ParameterValue, 'Enable a task')
            [CompletionResult]::new('disable', 'disable', [CompletionResultType]::ParameterValue, 'Disable a task (it stays in the list and keeps its history)')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a task (its history is kept)')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run a task now, in the foreground')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'Show run history, newest first')
            [CompletionResult]::new('daemon', 'daemon', [CompletionResultType]::ParameterValue, 'Run due tasks in the foreground until SIGINT or SIGTERM')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'finch;schedule;help;list' {
            break
        }
        'finch;schedule;help;create' {
            break
        }
        'finch;schedule;help;update' {
            break
        }
        'finch;schedule;help;enable' {
            break
        }
        'finch;schedule;help;disable' {
            break
        }
        'finch;schedule;help;delete' {
            break
        }
        'finch;schedule;help;run' {
            break
        }
        'finch;schedule;help;history' {
            break
        }
        'finch;schedule;help;daemon' {
            break
        }
        'finch;schedule;help;help' {
            break
        }
        'finch;session' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List sessions, most recently active first')
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List sessions, most recently active first')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a transcript')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search message text and tool names of every transcript, ranked')
            [CompletionResult]::new('rename', 'rename', [CompletionResultType]::ParameterValue, 'Set a session''s title')
            [CompletionResult]::new('extend-dir', 'extend-dir', [CompletionResultType]::ParameterValue, 'Trust another directory for a session''s file tools')
            [CompletionResult]::new('attach', 'attach', [CompletionResultType]::ParameterValue, 'Attach a file (at most 20 MiB) to a session''s composer draft')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'finch;session;list' {
            [CompletionResult]::new('--workspace', '--workspace', [CompletionResultType]::ParameterName, 'Only sessions whose working directory is DIR or inside it')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most N sessions (0 for all)')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;session;ls' {
            [CompletionResult]::new('--workspace', '--workspace', [CompletionResultType]::ParameterName, 'Only sessions whose working directory is DIR or inside it')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most N sessions (0 for all)')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;session;show' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;session;search' {
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most N hits (0 for all)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only entries since DATE: 2026-03-01, 2026-03-01T09:30, an RFC 3339 time, or an age such as 12h, 7d, 2w')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;session;rename' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;session;extend-dir' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;session;attach' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;session;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List sessions, most recently active first')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a transcript')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search message text and tool names of every transcript, ranked')
            [CompletionResult]::new('rename', 'rename', [CompletionResultType]::ParameterValue, 'Set a session''s title')
            [CompletionResult]::new('extend-dir', 'extend-dir', [CompletionResultType]::ParameterValue, 'Trust another directory for a session''s file tools')
            [CompletionResult]::new('attach', 'attach', [CompletionResultType]::ParameterValue, 'Attach a file (at most 20 MiB) to a session''s composer draft')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'finch;session;help;list' {
            break
        }
        'finch;session;help;show' {
            break
        }
        'finch;session;help;search' {
            break
        }
        'finch;session;help;rename' {
            break
        }
        'finch;session;help;extend-dir' {
            break
        }
        'finch;session;help;attach' {
            break
        }
        'finch;session;help;help' {
            break
        }
        'finch;space' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List spaces')
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List spaces')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a space')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'finch;space;list' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;space;ls' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;space;create' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Bind the space to a directory')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;space;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List spaces')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a space')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'finch;space;help;list' {
            break
        }
        'finch;space;help;create' {
            break
        }
        'finch;space;help;help' {
            break
        }
        'finch;skill' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List skills of every source (project, personal, global, enabled mini tools)')
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List skills of every source (project, personal, global, enabled mini tools)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the SKILL.md of the skill that wins for a name')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'finch;skill;list' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;skill;ls' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;skill;show' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;skill;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List skills of every source (project, personal, global, enabled mini tools)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the SKILL.md of the skill that wins for a name')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'finch;skill;help;list' {
            break
        }
        'finch;skill;help;show' {
            break
        }
        'finch;skill;help;help' {
            break
        }
        'finch;mcp' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List MCP servers: transport, source, owner, status and tool count (connects to each)')
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List MCP servers: transport, source, owner, status and tool count (connects to each)')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add an MCP server: a stdio command after `--`, or --url for Streamable HTTP')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove an MCP server from servers.json')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'Remove an MCP server from servers.json')
            [CompletionResult]::new('tools', 'tools', [CompletionResultType]::ParameterValue, 'Connect to an MCP server and list its tools')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'finch;mcp;list' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;mcp;ls' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;mcp;add' {
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'The URL of a Streamable HTTP server')
            [CompletionResult]::new('-H', '-H ', [CompletionResultType]::ParameterName, 'A header sent to an HTTP server, `Name: value` (repeatable; `${VAR}` expands when finch connects)')
            [CompletionResult]::new('--header', '--header', [CompletionResultType]::ParameterName, 'A header sent to an HTTP server, `Name: value` (repeatable; `${VAR}` expands when finch connects)')
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'An environment variable of a stdio server, KEY=VALUE (repeatable; `${VAR}` expands)')
            [CompletionResult]::new('--env', '--env', [CompletionResultType]::ParameterName, 'An environment variable of a stdio server, KEY=VALUE (repeatable; `${VAR}` expands)')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'The working directory of a stdio server (default: where finch runs)')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace the server of the same name')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;mcp;remove' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;mcp;rm' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;mcp;tools' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;mcp;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List MCP servers: transport, source, owner, status and tool count (connects to each)')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add an MCP server: a stdio command after `--`, or --url for Streamable HTTP')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove an MCP server from servers.json')
            [CompletionResult]::new('tools', 'tools', [CompletionResultType]::ParameterValue, 'Connect to an MCP server and list its tools')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'finch;mcp;help;list' {
            break
        }
        'finch;mcp;help;add' {
            break
        }
        'finch;mcp;help;remove' {
            break
        }
        'finch;mcp;help;tools' {
            break
        }
        'finch;mcp;help;help' {
            break
        }
        'finch;tool' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the tools in the catalog')
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List the tools in the catalog')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Rank the catalog''s tools for a query, as ToolSearch does')
            [CompletionResult]::new('info', 'info', [CompletionResultType]::ParameterValue, 'Describe one tool: layer, owner, exposure, permission, schema')
            [CompletionResult]::new('call', 'call', [CompletionResultType]::ParameterValue, 'Call one tool through the permission gateway')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'finch;tool;list' {
            [CompletionResult]::new('--source', '--source', [CompletionResultType]::ParameterName, 'Only tools from this source: builtin, suite, minitool, minitool:<id>, mcp, mcp:<server>')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;tool;ls' {
            [CompletionResult]::new('--source', '--source', [CompletionResultType]::ParameterName, 'Only tools from this source: builtin, suite, minitool, minitool:<id>, mcp, mcp:<server>')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;tool;search' {
            [CompletionResult]::new('--source', '--source', [CompletionResultType]::ParameterName, 'Only tools from this source: builtin, suite, minitool, minitool:<id>, mcp, mcp:<server>')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'How many tools to show (0 = all that match)')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;tool;info' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;tool;call' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Permission mode (default: finch.toml [host] mode, else ask)')
            [CompletionResult]::new('--approve', '--approve', [CompletionResultType]::ParameterName, 'Answer the permission cards of this exact tool name with "allow" (repeatable; logged)')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory of the session (default: the current directory)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Continue this session''s transcript instead of starting a new one (id or unique prefix)')
            [CompletionResult]::new('--minitool', '--minitool', [CompletionResultType]::ParameterName, 'Load the mini tool in this directory for this run only, without installing it (repeatable)')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;tool;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the tools in the catalog')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Rank the catalog''s tools for a query, as ToolSearch does')
            [CompletionResult]::new('info', 'info', [CompletionResultType]::ParameterValue, 'Describe one tool: layer, owner, exposure, permission, schema')
            [CompletionResult]::new('call', 'call', [CompletionResultType]::ParameterValue, 'Call one tool through the permission gateway')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'finch;tool;help;list' {
            break
        }
        'finch;tool;help;search' {
            break
        }
        'finch;tool;help;info' {
            break
        }
        'finch;tool;help;call' {
            break
        }
        'finch;tool;help;help' {
            break
        }
        'finch;policy' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Print the gateway''s decision for a call: allow, ask (a permission card) or deny')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'finch;policy;check' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Permission mode of the run')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory of the call (default: the current directory)')
            [CompletionResult]::new('--trusted-dir', '--trusted-dir', [CompletionResultType]::ParameterName, 'A directory the file tools may use besides the working directory (repeatable)')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;policy;help' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Print the gateway''s decision for a call: allow, ask (a permission card) or deny')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'finch;policy;help;check' {
            break
        }
        'finch;policy;help;help' {
            break
        }
        'finch;run' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Permission mode (default: finch.toml [host] mode, else ask)')
            [CompletionResult]::new('--approve', '--approve', [CompletionResultType]::ParameterName, 'Answer the permission cards of this exact tool name with "allow" (repeatable; logged)')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory of the session (default: the current directory)')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Continue this session''s transcript instead of starting a new one (id or unique prefix)')
            [CompletionResult]::new('--minitool', '--minitool', [CompletionResultType]::ParameterName, 'Load the mini tool in this directory for this run only, without installing it (repeatable)')
            [CompletionResult]::new('--serve', '--serve', [CompletionResultType]::ParameterName, 'Serve the session''s tools to an agent over this protocol on stdin/stdout (only: mcp)')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--jsonl', '--jsonl', [CompletionResultType]::ParameterName, 'Read one JSON request per stdin line ({"id","tool","arguments"}), answer one per stdout line')
            [CompletionResult]::new('--no-builtins', '--no-builtins', [CompletionResultType]::ParameterName, 'Leave out the runtime built-in tools')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;completions' {
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;man' {
            [CompletionResult]::new('--out-dir', '--out-dir', [CompletionResultType]::ParameterName, 'Write one page per command into this directory instead of printing the top page')
            [CompletionResult]::new('--runtime-home', '--runtime-home', [CompletionResultType]::ParameterName, 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)')
            [CompletionResult]::new('--agent-home', '--agent-home', [CompletionResultType]::ParameterName, 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail on stderr')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to confirmations (never to permission cards)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'finch;help' {
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Install a mini tool from npm, a directory, a .tgz/.zip file or URL')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Update installed mini tools from where they came from')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Uninstall a mini tool (its data directory is kept)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List installed mini tools')
            [CompletionResult]::new('enable', 'enable', [CompletionResultType]::ParameterValue, 'Enable a mini tool')
            [CompletionResult]::new('disable', 'disable', [CompletionResultType]::ParameterValue, 'Disable a mini tool')
            [CompletionResult]::new('reload', 'reload', [CompletionResultType]::ParameterValue, 'Rescan mini tools, start them and refresh the tool catalog')
            [CompletionResult]::new('where', 'where', [CompletionResultType]::ParameterValue, 'Print the homes and every state file finch uses')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check a mini tool package, or the whole environment')
            [CompletionResult]::new('memory', 'memory', [CompletionResultType]::ParameterValue, 'Read and write the agent''s memory files')
            [CompletionResult]::new('schedule', 'schedule', [CompletionResultType]::ParameterValue, 'Manage scheduled automation tasks')
            [CompletionResult]::new('session', 'session', [CompletionResultType]::ParameterValue, 'Read and change session transcripts')
            [CompletionResult]::new('space', 'space', [CompletionResultType]::ParameterValue, 'List and create spaces')
            [CompletionResult]::new('skill', 'skill', [CompletionResultType]::ParameterValue, 'List and show skills')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Configure MCP servers')
            [CompletionResult]::new('tool', 'tool', [CompletionResultType]::ParameterValue, 'List, search, describe and call tools')
            [CompletionResult]::new('policy', 'policy', [CompletionResultType]::ParameterValue, 'Ask the permission gateway for a verdict')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run the tool host')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print or write the man pages')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'finch;help;add' {
            break
        }
        'finch;help;update' {
            break
        }
        'finch;help;remove' {
            break
        }
        'finch;help;list' {
            break
        }
        'finch;help;enable' {
            break
        }
        'finch;help;disable' {
            break
        }
        'finch;help;reload' {
            break
        }
        'finch;help;where' {
            break
        }
        'finch;help;doctor' {
            break
        }
        'finch;help;memory' {
            [CompletionResult]::new('remember', 'remember', [CompletionResultType]::ParameterValue, 'Add an entry to a memory file')
            [CompletionResult]::new('replace', 'replace', [CompletionResultType]::ParameterValue, 'Replace exactly one entry')
            [CompletionResult]::new('forget', 'forget', [CompletionResultType]::ParameterValue, 'Remove an entry')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search memory, ranked')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List entries with their ids')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a memory file, a day''s log or a space''s memory')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Delete daily logs older than a duration')
            break
        }
        'finch;help;memory;remember' {
            break
        }
        'finch;help;memory;replace' {
            break
        }
        'finch;help;memory;forget' {
            break
        }
        'finch;help;memory;search' {
            break
        }
        'finch;help;memory;list' {
            break
        }
        'finch;help;memory;show' {
            break
        }
        'finch;help;memory;prune' {
            break
        }
        'finch;help;schedule' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List tasks with their next run and last result')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a task')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change a task; only the given settings change')
            [CompletionResult]::new('enable', 'enable', [CompletionResultType]::ParameterValue, 'Enable a task')
            [CompletionResult]::new('disable', 'disable', [CompletionResultType]::ParameterValue, 'Disable a task (it stays in the list and keeps its history)')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a task (its history is kept)')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run a task now, in the foreground')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'Show run history, newest first')
            [CompletionResult]::new('daemon', 'daemon', [CompletionResultType]::ParameterValue, 'Run due tasks in the foreground until SIGINT or SIGTERM')
            break
        }
        'finch;help;schedule;list' {
            break
        }
        'finch;help;schedule;create' {
            break
        }
        'finch;help;schedule;update' {
            break
        }
        'finch;help;schedule;enable' {
            break
        }
        'finch;help;schedule;disable' {
            break
        }
        'finch;help;schedule;delete' {
            break
        }
        'finch;help;schedule;run' {
            break
        }
        'finch;help;schedule;history' {
            break
        }
        'finch;help;schedule;daemon' {
            break
        }
        'finch;help;session' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List sessions, most recently active first')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a transcript')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search message text and tool names of every transcript, ranked')
            [CompletionResult]::new('rename', 'rename', [CompletionResultType]::ParameterValue, 'Set a session''s title')
            [CompletionResult]::new('extend-dir', 'extend-dir', [CompletionResultType]::ParameterValue, 'Trust another directory for a session''s file tools')
            [CompletionResult]::new('attach', 'attach', [CompletionResultType]::ParameterValue, 'Attach a file (at most 20 MiB) to a session''s composer draft')
            break
        }
        'finch;help;session;list' {
            break
        }
        'finch;help;session;show' {
            break
        }
        'finch;help;session;search' {
            break
        }
        'finch;help;session;rename' {
            break
        }
        'finch;help;session;extend-dir' {
            break
        }
        'finch;help;session;attach' {
            break
        }
        'finch;help;space' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List spaces')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a space')
            break
        }
        'finch;help;space;list' {
            break
        }
        'finch;help;space;create' {
            break
        }
        'finch;help;skill' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List skills of every source (project, personal, global, enabled mini tools)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the SKILL.md of the skill that wins for a name')
            break
        }
        'finch;help;skill;list' {
            break
        }
        'finch;help;skill;show' {
            break
        }
        'finch;help;mcp' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List MCP servers: transport, source, owner, status and tool count (connects to each)')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add an MCP server: a stdio command after `--`, or --url for Streamable HTTP')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove an MCP server from servers.json')
            [CompletionResult]::new('tools', 'tools', [CompletionResultType]::ParameterValue, 'Connect to an MCP server and list its tools')
            break
        }
        'finch;help;mcp;list' {
            break
        }
        'finch;help;mcp;add' {
            break
        }
        'finch;help;mcp;remove' {
            break
        }
        'finch;help;mcp;tools' {
            break
        }
        'finch;help;tool' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the tools in the catalog')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Rank the catalog''s tools for a query, as ToolSearch does')
            [CompletionResult]::new('info', 'info', [CompletionResultType]::ParameterValue, 'Describe one tool: layer, owner, exposure, permission, schema')
            [CompletionResult]::new('call', 'call', [CompletionResultType]::ParameterValue, 'Call one tool through the permission gateway')
            break
        }
        'finch;help;tool;list' {
            break
        }
        'finch;help;tool;search' {
            break
        }
        'finch;help;tool;info' {
            break
        }
        'finch;help;tool;call' {
            break
        }
        'finch;help;policy' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Print the gateway''s decision for a call: allow, ask (a permission card) or deny')
            break
        }
        'finch;help;policy;check' {
            break
        }
        'finch;help;run' {
            break
        }
        'finch;help;completions' {
            break
        }
        'finch;help;man' {
            break
        }
        'finch;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
