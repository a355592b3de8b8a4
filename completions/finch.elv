
use builtin;
use str;

set edit:completion:arg-completer[finch] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'finch'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'finch'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand add 'Install a mini tool from npm, a directory, a .tgz/.zip file or URL'
            cand install 'Install a mini tool from npm, a directory, a .tgz/.zip file or URL'
            cand i 'Install a mini tool from npm, a directory, a .tgz/.zip file or URL'
            cand update 'Update installed mini tools from where they came from'
            cand up 'Update installed mini tools from where they came from'
            cand remove 'Uninstall a mini tool (its data directory is kept)'
            cand rm 'Uninstall a mini tool (its data directory is kept)'
            cand uninstall 'Uninstall a mini tool (its data directory is kept)'
            cand list 'List installed mini tools'
            cand ls 'List installed mini tools'
            cand enable 'Enable a mini tool'
            cand disable 'Disable a mini tool'
            cand reload 'Rescan mini tools, start them and refresh the tool catalog'
            cand where 'Print the homes and every state file finch uses'
            cand doctor 'Check a mini tool package, or the whole environment'
            cand memory 'Read and write the agent''s memory files'
            cand schedule 'Manage scheduled automation tasks'
            cand session 'Read and change session transcripts'
            cand space 'List and create spaces'
            cand skill 'List and show skills'
            cand mcp 'Configure MCP servers'
            cand tool 'List, search, describe and call tools'
            cand policy 'Ask the permission gateway for a verdict'
            cand run 'Run the tool host'
            cand completions 'Print shell completions'
            cand man 'Print or write the man pages'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'finch;add'= {
            cand --registry 'npm registry to use instead of the configured one'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand -g 'Install into the global tier (<runtime>/extensions)'
            cand --global 'Install into the global tier (<runtime>/extensions)'
            cand -d 'Link a source directory instead of copying it (development install)'
            cand --dev 'Link a source directory instead of copying it (development install)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;install'= {
            cand --registry 'npm registry to use instead of the configured one'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand -g 'Install into the global tier (<runtime>/extensions)'
            cand --global 'Install into the global tier (<runtime>/extensions)'
            cand -d 'Link a source directory instead of copying it (development install)'
            cand --dev 'Link a source directory instead of copying it (development install)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;i'= {
            cand --registry 'npm registry to use instead of the configured one'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand -g 'Install into the global tier (<runtime>/extensions)'
            cand --global 'Install into the global tier (<runtime>/extensions)'
            cand -d 'Link a source directory instead of copying it (development install)'
            cand --dev 'Link a source directory instead of copying it (development install)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;update'= {
            cand --registry 'npm registry to use instead of the configured one'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --all 'Update every mini tool in the tier'
            cand -g 'Use the global tier'
            cand --global 'Use the global tier'
            cand --dry-run 'Show what would change without changing anything'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;up'= {
            cand --registry 'npm registry to use instead of the configured one'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --all 'Update every mini tool in the tier'
            cand -g 'Use the global tier'
            cand --global 'Use the global tier'
            cand --dry-run 'Show what would change without changing anything'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;remove'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand -g 'Use the global tier'
            cand --global 'Use the global tier'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;rm'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand -g 'Use the global tier'
            cand --global 'Use the global tier'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;uninstall'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand -g 'Use the global tier'
            cand --global 'Use the global tier'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;list'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand -g 'List the global tier'
            cand --global 'List the global tier'
            cand --all-tiers 'List both tiers'
            cand --long 'Print an aligned table even when stdout is not a terminal'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;ls'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand -g 'List the global tier'
            cand --global 'List the global tier'
            cand --all-tiers 'List both tiers'
            cand --long 'Print an aligned table even when stdout is not a terminal'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;enable'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;disable'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;reload'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;where'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;doctor'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --state 'Check finch''s state files and offer to move corrupt ones aside'
            cand --env 'Check the environment even when the current directory is a package'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;memory'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand remember 'Add an entry to a memory file'
            cand replace 'Replace exactly one entry'
            cand forget 'Remove an entry'
            cand search 'Search memory, ranked'
            cand list 'List entries with their ids'
            cand ls 'List entries with their ids'
            cand show 'Show a memory file, a day''s log or a space''s memory'
            cand prune 'Delete daily logs older than a duration'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'finch;memory;remember'= {
            cand --to 'Which file: long-term, daily, space:<name>, lessons or profile'
            cand --section 'Put the entry under this heading (created at the end of the file when missing)'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;memory;replace'= {
            cand --id 'Id of the entry to replace (or a prefix of at least 4 digits)'
            cand --in 'Only look in this file (long-term, profile, lessons, a date, a space)'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;memory;forget'= {
            cand --id 'Id of the entry to remove (or a prefix of at least 4 digits)'
            cand --in 'Only look in this file (long-term, profile, lessons, a date, a space)'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --all-matching 'Remove every matching entry'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;memory;search'= {
            cand --scope 'Which files to search'
            cand --space 'Only this space''s memory'
            cand --since 'Only entries dated on or after this day (YYYY-MM-DD)'
            cand --until 'Only entries dated on or before this day (YYYY-MM-DD)'
            cand --limit 'At most this many hits (0 for all)'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;memory;list'= {
            cand --scope 'Which files to list'
            cand --space 'Only this space''s memory'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;memory;ls'= {
            cand --scope 'Which files to list'
            cand --space 'Only this space''s memory'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;memory;show'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;memory;prune'= {
            cand --older-than 'Age with a unit, e.g. 30d'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --dry-run 'Print what would be deleted, delete nothing'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;memory;help'= {
            cand remember 'Add an entry to a memory file'
            cand replace 'Replace exactly one entry'
            cand forget 'Remove an entry'
            cand search 'Search memory, ranked'
            cand list 'List entries with their ids'
            cand show 'Show a memory file, a day''s log or a space''s memory'
            cand prune 'Delete daily logs older than a duration'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'finch;memory;help;remember'= {
        }
        &'finch;memory;help;replace'= {
        }
        &'finch;memory;help;forget'= {
        }
        &'finch;memory;help;search'= {
        }
        &'finch;memory;help;list'= {
        }
        &'finch;memory;help;show'= {
        }
        &'finch;memory;help;prune'= {
        }
        &'finch;memory;help;help'= {
        }
        &'finch;schedule'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'List tasks with their next run and last result'
            cand ls 'List tasks with their next run and last result'
            cand create 'Create a task'
            cand update 'Change a task; only the given settings change'
            cand enable 'Enable a task'
            cand disable 'Disable a task (it stays in the list and keeps its history)'
            cand delete 'Delete a task (its history is kept)'
            cand run 'Run a task now, in the foreground'
            cand history 'Show run history, newest first'
            cand daemon 'Run due tasks in the foreground until SIGINT or SIGTERM'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'finch;schedule;list'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;schedule;ls'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;schedule;create'= {
            cand --name 'A name to recognise the task by'
            cand --prompt 'What the agent is asked to do'
            cand --hourly 'Run every hour, at minute :MM (default :00)'
            cand --daily 'Run every day at HH:MM'
            cand --weekdays 'Run Monday to Friday at HH:MM'
            cand --weekly 'Run every week on DAY (mon…sun) at HH:MM'
            cand --cron 'Run on a five-field cron expression (minute hour day-of-month month day-of-week)'
            cand --once 'Run once at an ISO 8601 date-time (2026-12-24T10:00+05:00; without an offset: in the task''s time zone)'
            cand --tz 'Time zone, an IANA name such as Europe/Berlin (default: the local zone)'
            cand --space 'Run in this space''s directory (space id or name)'
            cand --cwd 'Run in this directory (default: the agent home)'
            cand --model 'Model for the agent ({model} in the agent command)'
            cand --effort 'Reasoning effort: off, minimal, low, medium, high or xhigh ({effort})'
            cand --mode 'Permission mode: ask or acceptCalls (default acceptCalls)'
            cand --timeout 'Stop a run after this long, e.g. 45m (default 30m)'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;schedule;update'= {
            cand --name 'A new name'
            cand --prompt 'A new prompt'
            cand --hourly 'Run every hour, at minute :MM (default :00)'
            cand --daily 'Run every day at HH:MM'
            cand --weekdays 'Run Monday to Friday at HH:MM'
            cand --weekly 'Run every week on DAY (mon…sun) at HH:MM'
            cand --cron 'Run on a five-field cron expression (minute hour day-of-month month day-of-week)'
            cand --once 'Run once at an ISO 8601 date-time (2026-12-24T10:00+05:00; without an offset: in the task''s time zone)'
            cand --tz 'Time zone, an IANA name such as Europe/Berlin (default: the local zone)'
            cand --space 'Run in this space''s directory (space id or name)'
            cand --cwd 'Run in this directory (default: the agent home)'
            cand --model 'Model for the agent ({model} in the agent command)'
            cand --effort 'Reasoning effort: off, minimal, low, medium, high or xhigh ({effort})'
            cand --mode 'Permission mode: ask or acceptCalls (default acceptCalls)'
            cand --timeout 'Stop a run after this long, e.g. 45m (default 30m)'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;schedule;enable'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;schedule;disable'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;schedule;delete'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;schedule;run'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;schedule;history'= {
            cand --limit 'How many runs to show'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;schedule;daemon'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;schedule;help'= {
            cand list 'List tasks with their next run and last result'
            cand create 'Create a task'
            cand update 'Change a task; only the given settings change'
            cand enable 'Enable a task'
            cand disable 'Disable a task (it stays in the list and keeps its history)'
            cand delete 'Delete a task (its history is kept)'
            cand run 'Run a task now, in the foreground'
            cand history 'Show run history, newest first'
            cand daemon 'Run due tasks in the foreground until SIGINT or SIGTERM'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'finch;schedule;help;list'= {
        }
        &'finch;schedule;help;create'= {
        }
        &'finch;schedule;help;update'= {
        }
        &'finch;schedule;help;enable'= {
        }
        &'finch;schedule;help;disable'= {
        }
        &'finch;schedule;help;delete'= {
        }
        &'finch;schedule;help;run'= {
        }
        &'finch;schedule;help;history'= {
        }
        &'finch;schedule;help;daemon'= {
        }
        &'finch;schedule;help;help'= {
        }
        &'finch;session'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'List sessions, most recently active first'
            cand ls 'List sessions, most recently active first'
            cand show 'Show a transcript'
            cand search 'Search message text and tool names of every transcript, ranked'
            cand rename 'Set a session''s title'
            cand extend-dir 'Trust another directory for a session''s file tools'
            cand attach 'Attach a file (at most 20 MiB) to a session''s composer draft'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'finch;session;list'= {
            cand --workspace 'Only sessions whose working directory is DIR or inside it'
            cand --limit 'Show at most N sessions (0 for all)'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;session;ls'= {
            cand --workspace 'Only sessions whose working directory is DIR or inside it'
            cand --limit 'Show at most N sessions (0 for all)'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;session;show'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;session;search'= {
            cand --limit 'Show at most N hits (0 for all)'
            cand --since 'Only entries since DATE: 2026-03-01, 2026-03-01T09:30, an RFC 3339 time, or an age such as 12h, 7d, 2w'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;session;rename'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;session;extend-dir'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;session;attach'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;session;help'= {
            cand list 'List sessions, most recently active first'
            cand show 'Show a transcript'
            cand search 'Search message text and tool names of every transcript, ranked'
            cand rename 'Set a session''s title'
            cand extend-dir 'Trust another directory for a session''s file tools'
            cand attach 'Attach a file (at most 20 MiB) to a session''s composer draft'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'finch;session;help;list'= {
        }
        &'finch;session;help;show'= {
        }
        &'finch;session;help;search'= {
        }
        &'finch;session;help;rename'= {
        }
        &'finch;session;help;extend-dir'= {
        }
        &'finch;session;help;attach'= {
        }
        &'finch;session;help;help'= {
        }
        &'finch;space'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'List spaces'
            cand ls 'List spaces'
            cand create 'Create a space'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'finch;space;list'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;space;ls'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;space;create'= {
            cand --dir 'Bind the space to a directory'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;space;help'= {
            cand list 'List spaces'
            cand create 'Create a space'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'finch;space;help;list'= {
        }
        &'finch;space;help;create'= {
        }
        &'finch;space;help;help'= {
        }
        &'finch;skill'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'List skills of every source (project, personal, global, enabled mini tools)'
            cand ls 'List skills of every source (project, personal, global, enabled mini tools)'
            cand show 'Print the SKILL.md of the skill that wins for a name'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'finch;skill;list'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;skill;ls'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;skill;show'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;skill;help'= {
            cand list 'List skills of every source (project, personal, global, enabled mini tools)'
            cand show 'Print the SKILL.md of the skill that wins for a name'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'finch;skill;help;list'= {
        }
        &'finch;skill;help;show'= {
        }
        &'finch;skill;help;help'= {
        }
        &'finch;mcp'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'List MCP servers: transport, source, owner, status and tool count (connects to each)'
            cand ls 'List MCP servers: transport, source, owner, status and tool count (connects to each)'
            cand add 'Add an MCP server: a stdio command after `--`, or --url for Streamable HTTP'
            cand remove 'Remove an MCP server from servers.json'
            cand rm 'Remove an MCP server from servers.json'
            cand tools 'Connect to an MCP server and list its tools'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'finch;mcp;list'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;mcp;ls'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;mcp;add'= {
            cand --url 'The URL of a Streamable HTTP server'
            cand -H 'A header sent to an HTTP server, `Name: value` (repeatable; `${VAR}` expands when finch connects)'
            cand --header 'A header sent to an HTTP server, `Name: value` (repeatable; `${VAR}` expands when finch connects)'
            cand -e 'An environment variable of a stdio server, KEY=VALUE (repeatable; `${VAR}` expands)'
            cand --env 'An environment variable of a stdio server, KEY=VALUE (repeatable; `${VAR}` expands)'
            cand --cwd 'The working directory of a stdio server (default: where finch runs)'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --force 'Replace the server of the same name'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;mcp;remove'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;mcp;rm'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;mcp;tools'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;mcp;help'= {
            cand list 'List MCP servers: transport, source, owner, status and tool count (connects to each)'
            cand add 'Add an MCP server: a stdio command after `--`, or --url for Streamable HTTP'
            cand remove 'Remove an MCP server from servers.json'
            cand tools 'Connect to an MCP server and list its tools'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'finch;mcp;help;list'= {
        }
        &'finch;mcp;help;add'= {
        }
        &'finch;mcp;help;remove'= {
        }
        &'finch;mcp;help;tools'= {
        }
        &'finch;mcp;help;help'= {
        }
        &'finch;tool'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'List the tools in the catalog'
            cand ls 'List the tools in the catalog'
            cand search 'Rank the catalog''s tools for a query, as ToolSearch does'
            cand info 'Describe one tool: layer, owner, exposure, permission, schema'
            cand call 'Call one tool through the permission gateway'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'finch;tool;list'= {
            cand --source 'Only tools from this source: builtin, suite, minitool, minitool:<id>, mcp, mcp:<server>'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;tool;ls'= {
            cand --source 'Only tools from this source: builtin, suite, minitool, minitool:<id>, mcp, mcp:<server>'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;tool;search'= {
            cand --source 'Only tools from this source: builtin, suite, minitool, minitool:<id>, mcp, mcp:<server>'
            cand --limit 'How many tools to show (0 = all that match)'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;tool;info'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;tool;call'= {
            cand --mode 'Permission mode (default: finch.toml [host] mode, else ask)'
            cand --approve 'Answer the permission cards of this exact tool name with "allow" (repeatable; logged)'
            cand --cwd 'Working directory of the session (default: the current directory)'
            cand --session 'Continue this session''s transcript instead of starting a new one (id or unique prefix)'
            cand --minitool 'Load the mini tool in this directory for this run only, without installing it (repeatable)'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;tool;help'= {
            cand list 'List the tools in the catalog'
            cand search 'Rank the catalog''s tools for a query, as ToolSearch does'
            cand info 'Describe one tool: layer, owner, exposure, permission, schema'
            cand call 'Call one tool through the permission gateway'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'finch;tool;help;list'= {
        }
        &'finch;tool;help;search'= {
        }
        &'finch;tool;help;info'= {
        }
        &'finch;tool;help;call'= {
        }
        &'finch;tool;help;help'= {
        }
        &'finch;policy'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand check 'Print the gateway''s decision for a call: allow, ask (a permission card) or deny'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'finch;policy;check'= {
            cand --mode 'Permission mode of the run'
            cand --cwd 'Working directory of the call (default: the current directory)'
            cand --trusted-dir 'A directory the file tools may use besides the working directory (repeatable)'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;policy;help'= {
            cand check 'Print the gateway''s decision for a call: allow, ask (a permission card) or deny'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'finch;policy;help;check'= {
        }
        &'finch;policy;help;help'= {
        }
        &'finch;run'= {
            cand --mode 'Permission mode (default: finch.toml [host] mode, else ask)'
            cand --approve 'Answer the permission cards of this exact tool name with "allow" (repeatable; logged)'
            cand --cwd 'Working directory of the session (default: the current directory)'
            cand --session 'Continue this session''s transcript instead of starting a new one (id or unique prefix)'
            cand --minitool 'Load the mini tool in this directory for this run only, without installing it (repeatable)'
            cand --serve 'Serve the session''s tools to an agent over this protocol on stdin/stdout (only: mcp)'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --jsonl 'Read one JSON request per stdin line ({"id","tool","arguments"}), answer one per stdout line'
            cand --no-builtins 'Leave out the runtime built-in tools'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;completions'= {
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;man'= {
            cand --out-dir 'Write one page per command into this directory instead of printing the top page'
            cand --runtime-home 'Runtime home (default: $FINCH_RUNTIME_HOME, else ~/.finch)'
            cand --agent-home 'Agent home (default: $FINCH_AGENT_HOME, else the app''s setting, else ~/finchnest)'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --json 'Print machine-readable JSON on stdout (JSON Lines for `run` and `schedule daemon`)'
            cand -q 'Print only data and errors'
            cand --quiet 'Print only data and errors'
            cand -v 'Print more detail on stderr'
            cand --verbose 'Print more detail on stderr'
            cand --yes 'Answer yes to confirmations (never to permission cards)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'finch;help'= {
            cand add 'Install a mini tool from npm, a directory, a .tgz/.zip file or URL'
            cand update 'Update installed mini tools from where they came from'
            cand remove 'Uninstall a mini tool (its data directory is kept)'
            cand list 'List installed mini tools'
            cand enable 'Enable a mini tool'
            cand disable 'Disable a mini tool'
            cand reload 'Rescan mini tools, start them and refresh the tool catalog'
            cand where 'Print the homes and every state file finch uses'
            cand doctor 'Check a mini tool package, or the whole environment'
            cand memory 'Read and write the agent''s memory files'
            cand schedule 'Manage scheduled automation tasks'
            cand session 'Read and change session transcripts'
            cand space 'List and create spaces'
            cand skill 'List and show skills'
            cand mcp 'Configure MCP servers'
            cand tool 'List, search, describe and call tools'
            cand policy 'Ask the permission gateway for a verdict'
            cand run 'Run the tool host'
            cand completions 'Print shell completions'
            cand man 'Print or write the man pages'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'finch;help;add'= {
        }
        &'finch;help;update'= {
        }
        &'finch;help;remove'= {
        }
        &'finch;help;list'= {
        }
        &'finch;help;enable'= {
        }
        &'finch;help;disable'= {
        }
        &'finch;help;reload'= {
        }
        &'finch;help;where'= {
        }
        &'finch;help;doctor'= {
        }
        &'finch;help;memory'= {
            cand remember 'Add an entry to a memory file'
            cand replace 'Replace exactly one entry'
            cand forget 'Remove an entry'
            cand search 'Search memory, ranked'
            cand list 'List entries with their ids'
            cand show 'Show a memory file, a day''s log or a space''s memory'
            cand prune 'Delete daily logs older than a duration'
        }
        &'finch;help;memory;remember'= {
        }
        &'finch;help;memory;replace'= {
        }
        &'finch;help;memory;forget'= {
        }
        &'finch;help;memory;search'= {
        }
        &'finch;help;memory;list'= {
        }
        &'finch;help;memory;show'= {
        }
        &'finch;help;memory;prune'= {
        }
        &'finch;help;schedule'= {
            cand list 'List tasks with their next run and last result'
            cand create 'Create a task'
            cand update 'Change a task; only the given settings change'
            cand enable 'Enable a task'
            cand disable 'Disable a task (it stays in the list and keeps its history)'
            cand delete 'Delete a task (its history is kept)'
            cand run 'Run a task now, in the foreground'
            cand history 'Show run history, newest first'
            cand daemon 'Run due tasks in the foreground until SIGINT or SIGTERM'
        }
        &'finch;help;schedule;list'= {
        }
        &'finch;help;schedule;create'= {
        }
        &'finch;help;schedule;update'= {
        }
        &'finch;help;schedule;enable'= {
        }
        &'finch;help;schedule;disable'= {
        }
        &'finch;help;schedule;delete'= {
        }
        &'finch;help;schedule;run'= {
        }
        &'finch;help;schedule;history'= {
        }
        &'finch;help;schedule;daemon'= {
        }
        &'finch;help;session'= {
            cand list 'List sessions, most recently active first'
            cand show 'Show a transcript'
            cand search 'Search message text and tool names of every transcript, ranked'
            cand rename 'Set a session''s title'
            cand extend-dir 'Trust another directory for a session''s file tools'
            cand attach 'Attach a file (at most 20 MiB) to a session''s composer draft'
        }
        &'finch;help;session;list'= {
        }
        &'finch;help;session;show'= {
        }
        &'finch;help;session;search'= {
        }
        &'finch;help;session;rename'= {
        }
        &'finch;help;session;extend-dir'= {
        }
        &'finch;help;session;attach'= {
        }
        &'finch;help;space'= {
            cand list 'List spaces'
            cand create 'Create a space'
        }
        &'finch;help;space;list'= {
        }
        &'finch;help;space;create'= {
        }
        &'finch;help;skill'= {
            cand list 'List skills of every source (project, personal, global, enabled mini tools)'
            cand show 'Print the SKILL.md of the skill that wins for a name'
        }
        &'finch;help;skill;list'= {
        }
        &'finch;help;skill;show'= {
        }
        &'finch;help;mcp'= {
            cand list 'List MCP servers: transport, source, owner, status and tool count (connects to each)'
            cand add 'Add an MCP server: a stdio command after `--`, or --url for Streamable HTTP'
            cand remove 'Remove an MCP server from servers.json'
            cand tools 'Connect to an MCP server and list its tools'
        }
        &'finch;help;mcp;list'= {
        }
        &'finch;help;mcp;add'= {
        }
        &'finch;help;mcp;remove'= {
        }
        &'finch;help;mcp;tools'= {
        }
        &'finch;help;tool'= {
            cand list 'List the tools in the catalog'
            cand search 'Rank the catalog''s tools for a query, as ToolSearch does'
            cand info 'Describe one tool: layer, owner, exposure, permission, schema'
            cand call 'Call one tool through the permission gateway'
        }
        &'finch;help;tool;list'= {
        }
        &'finch;help;tool;search'= {
        }
        &'finch;help;tool;info'= {
        }
        &'finch;help;tool;call'= {
        }
        &'finch;help;policy'= {
            cand check 'Print the gateway''s decision for a call: allow, ask (a permission card) or deny'
        }
        &'finch;help;policy;check'= {
        }
        &'finch;help;run'= {
        }
        &'finch;help;completions'= {
        }
        &'finch;help;man'= {
        }
        &'finch;help;help'= {
        }
    ]
    $completions[$command]
}
