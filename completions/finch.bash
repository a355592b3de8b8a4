_finch() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="finch"
                ;;
            finch,add)
                cmd="finch__subcmd__add"
                ;;
            finch,completions)
                cmd="finch__subcmd__completions"
                ;;
            finch,disable)
                cmd="finch__subcmd__disable"
                ;;
            finch,doctor)
                cmd="finch__subcmd__doctor"
                ;;
            finch,enable)
                cmd="finch__subcmd__enable"
                ;;
            finch,help)
                cmd="finch__subcmd__help"
                ;;
            finch,i)
                cmd="finch__subcmd__add"
                ;;
            finch,install)
                cmd="finch__subcmd__add"
                ;;
            finch,list)
                cmd="finch__subcmd__list"
                ;;
            finch,ls)
                cmd="finch__subcmd__list"
                ;;
            finch,man)
                cmd="finch__subcmd__man"
                ;;
            finch,mcp)
                cmd="finch__subcmd__mcp"
                ;;
            finch,memory)
                cmd="finch__subcmd__memory"
                ;;
            finch,policy)
                cmd="finch__subcmd__policy"
                ;;
            finch,reload)
                cmd="finch__subcmd__reload"
                ;;
            finch,remove)
                cmd="finch__subcmd__remove"
                ;;
            finch,rm)
                cmd="finch__subcmd__remove"
                ;;
            finch,run)
                cmd="finch__subcmd__run"
                ;;
            finch,schedule)
                cmd="finch__subcmd__schedule"
                ;;
            finch,session)
                cmd="finch__subcmd__session"
                ;;
            finch,skill)
                cmd="finch__subcmd__skill"
                ;;
            finch,space)
                cmd="finch__subcmd__space"
                ;;
            finch,tool)
                cmd="finch__subcmd__tool"
                ;;
            finch,uninstall)
                cmd="finch__subcmd__remove"
                ;;
            finch,up)
                cmd="finch__subcmd__update"
                ;;
            finch,update)
                cmd="finch__subcmd__update"
                ;;
            finch,where)
                cmd="finch__subcmd__where"
                ;;
            finch__subcmd__help,add)
                cmd="finch__subcmd__help__subcmd__add"
                ;;
            finch__subcmd__help,completions)
                cmd="finch__subcmd__help__subcmd__completions"
                ;;
            finch__subcmd__help,disable)
                cmd="finch__subcmd__help__subcmd__disable"
                ;;
            finch__subcmd__help,doctor)
                cmd="finch__subcmd__help__subcmd__doctor"
                ;;
            finch__subcmd__help,enable)
                cmd="finch__subcmd__help__subcmd__enable"
                ;;
            finch__subcmd__help,help)
                cmd="finch__subcmd__help__subcmd__help"
                ;;
            finch__subcmd__help,list)
                cmd="finch__subcmd__help__subcmd__list"
                ;;
            finch__subcmd__help,man)
                cmd="finch__subcmd__help__subcmd__man"
                ;;
            finch__subcmd__help,mcp)
                cmd="finch__subcmd__help__subcmd__mcp"
                ;;
            finch__subcmd__help,memory)
                cmd="finch__subcmd__help__subcmd__memory"
                ;;
            finch__subcmd__help,policy)
                cmd="finch__subcmd__help__subcmd__policy"
                ;;
            finch__subcmd__help,reload)
                cmd="finch__subcmd__help__subcmd__reload"
                ;;
            finch__subcmd__help,remove)
                cmd="finch__subcmd__help__subcmd__remove"
                ;;
            finch__subcmd__help,run)
                cmd="finch__subcmd__help__subcmd__run"
                ;;
            finch__subcmd__help,schedule)
                cmd="finch__subcmd__help__subcmd__schedule"
                ;;
            finch__subcmd__help,session)
                cmd="finch__subcmd__help__subcmd__session"
                ;;
            finch__subcmd__help,skill)
                cmd="finch__subcmd__help__subcmd__skill"
                ;;
            finch__subcmd__help,space)
                cmd="finch__subcmd__help__subcmd__space"
                ;;
            finch__subcmd__help,tool)
                cmd="finch__subcmd__help__subcmd__tool"
                ;;
            finch__subcmd__help,update)
                cmd="finch__subcmd__help__subcmd__update"
                ;;
            finch__subcmd__help,where)
                cmd="finch__subcmd__help__subcmd__where"
                ;;
            finch__subcmd__help__subcmd__mcp,add)
                cmd="finch__subcmd__help__subcmd__mcp__subcmd__add"
                ;;
            finch__subcmd__help__subcmd__mcp,list)
                cmd="finch__subcmd__help__subcmd__mcp__subcmd__list"
                ;;
            finch__subcmd__help__subcmd__mcp,remove)
                cmd="finch__subcmd__help__subcmd__mcp__subcmd__remove"
                ;;
            finch__subcmd__help__subcmd__mcp,tools)
                cmd="finch__subcmd__help__subcmd__mcp__subcmd__tools"
                ;;
            finch__subcmd__help__subcmd__memory,forget)
                cmd="finch__subcmd__help__subcmd__memory__subcmd__forget"
                ;;
            finch__subcmd__help__subcmd__memory,list)
                cmd="finch__subcmd__help__subcmd__memory__subcmd__list"
                ;;
            finch__subcmd__help__subcmd__memory,prune)
                cmd="finch__subcmd__help__subcmd__memory__subcmd__prune"
                ;;
            finch__subcmd__help__subcmd__memory,remember)
                cmd="finch__subcmd__help__subcmd__memory__subcmd__remember"
                ;;
            finch__subcmd__help__subcmd__memory,replace)
                cmd="finch__subcmd__help__subcmd__memory__subcmd__replace"
                ;;
            finch__subcmd__help__subcmd__memory,search)
                cmd="finch__subcmd__help__subcmd__memory__subcmd__search"
                ;;
            finch__subcmd__help__subcmd__memory,show)
                cmd="finch__subcmd__help__subcmd__memory__subcmd__show"
                ;;
            finch__subcmd__help__subcmd__policy,check)
                cmd="finch__subcmd__help__subcmd__policy__subcmd__check"
                ;;
            finch__subcmd__help__subcmd__schedule,create)
                cmd="finch__subcmd__help__subcmd__schedule__subcmd__create"
                ;;
            finch__subcmd__help__subcmd__schedule,daemon)
                cmd="finch__subcmd__help__subcmd__schedule__subcmd__daemon"
                ;;
            finch__subcmd__help__subcmd__schedule,delete)
                cmd="finch__subcmd__help__subcmd__schedule__subcmd__delete"
                ;;
            finch__subcmd__help__subcmd__schedule,disable)
                cmd="finch__subcmd__help__subcmd__schedule__subcmd__disable"
                ;;
            finch__subcmd__help__subcmd__schedule,enable)
                cmd="finch__subcmd__help__subcmd__schedule__subcmd__enable"
                ;;
            finch__subcmd__help__subcmd__schedule,history)
                cmd="finch__subcmd__help__subcmd__schedule__subcmd__history"
                ;;
            finch__subcmd__help__subcmd__schedule,list)
                cmd="finch__subcmd__help__subcmd__schedule__subcmd__list"
                ;;
            finch__subcmd__help__subcmd__schedule,run)
                cmd="finch__subcmd__help__subcmd__schedule__subcmd__run"
                ;;
            finch__subcmd__help__subcmd__schedule,update)
                cmd="finch__subcmd__help__subcmd__schedule__subcmd__update"
                ;;
            finch__subcmd__help__subcmd__session,attach)
                cmd="finch__subcmd__help__subcmd__session__subcmd__attach"
                ;;
            finch__subcmd__help__subcmd__session,extend-dir)
                cmd="finch__subcmd__help__subcmd__session__subcmd__extend__subcmd__dir"
                ;;
            finch__subcmd__help__subcmd__session,list)
                cmd="finch__subcmd__help__subcmd__session__subcmd__list"
                ;;
            finch__subcmd__help__subcmd__session,rename)
                cmd="finch__subcmd__help__subcmd__session__subcmd__rename"
                ;;
            finch__subcmd__help__subcmd__session,search)
                cmd="finch__subcmd__help__subcmd__session__subcmd__search"
                ;;
            finch__subcmd__help__subcmd__session,show)
                cmd="finch__subcmd__help__subcmd__session__subcmd__show"
                ;;
            finch__subcmd__help__subcmd__skill,list)
                cmd="finch__subcmd__help__subcmd__skill__subcmd__list"
                ;;
            finch__subcmd__help__subcmd__skill,show)
                cmd="finch__subcmd__help__subcmd__skill__subcmd__show"
                ;;
            finch__subcmd__help__subcmd__space,create)
                cmd="finch__subcmd__help__subcmd__space__subcmd__create"
                ;;
            finch__subcmd__help__subcmd__space,list)
                cmd="finch__subcmd__help__subcmd__space__subcmd__list"
                ;;
            finch__subcmd__help__subcmd__tool,call)
                cmd="finch__subcmd__help__subcmd__tool__subcmd__call"
                ;;
            finch__subcmd__help__subcmd__tool,info)
                cmd="finch__subcmd__help__subcmd__tool__subcmd__info"
                ;;
            finch__subcmd__help__subcmd__tool,list)
                cmd="finch__subcmd__help__subcmd__tool__subcmd__list"
                ;;
            finch__subcmd__help__subcmd__tool,search)
                cmd="finch__subcmd__help__subcmd__tool__subcmd__search"
                ;;
            finch__subcmd__mcp,add)
                cmd="finch__subcmd__mcp__subcmd__add"
                ;;
            finch__subcmd__mcp,help)
                cmd="finch__subcmd__mcp__subcmd__help"
                ;;
            finch__subcmd__mcp,list)
                cmd="finch__subcmd__mcp__subcmd__list"
                ;;
            finch__subcmd__mcp,ls)
                cmd="finch__subcmd__mcp__subcmd__list"
                ;;
            finch__subcmd__mcp,remove)
                cmd="finch__subcmd__mcp__subcmd__remove"
                ;;
            finch__subcmd__mcp,rm)
                cmd="finch__subcmd__mcp__subcmd__remove"
                ;;
            finch__subcmd__mcp,tools)
                cmd="finch__subcmd__mcp__subcmd__tools"
                ;;
            finch__subcmd__mcp__subcmd__help,add)
                cmd="finch__subcmd__mcp__subcmd__help__subcmd__add"
                ;;
            finch__subcmd__mcp__subcmd__help,help)
                cmd="finch__subcmd__mcp__subcmd__help__subcmd__help"
                ;;
            finch__subcmd__mcp__subcmd__help,list)
                cmd="finch__subcmd__mcp__subcmd__help__subcmd__list"
                ;;
            finch__subcmd__mcp__subcmd__help,remove)
                cmd="finch__subcmd__mcp__subcmd__help__subcmd__remove"
                ;;
            finch__subcmd__mcp__subcmd__help,tools)
                cmd="finch__subcmd__mcp__subcmd__help__subcmd__tools"
                ;;
            finch__subcmd__memory,forget)
                cmd="finch__subcmd__memory__subcmd__forget"
                ;;
            finch__subcmd__memory,help)
                cmd="finch__subcmd__memory__subcmd__help"
                ;;
            finch__subcmd__memory,list)
                cmd="finch__subcmd__memory__subcmd__list"
                ;;
            finch__subcmd__memory,ls)
                cmd="finch__subcmd__memory__subcmd__list"
                ;;
            finch__subcmd__memory,prune)
                cmd="finch__subcmd__memory__subcmd__prune"
                ;;
            finch__subcmd__memory,remember)
                cmd="finch__subcmd__memory__subcmd__remember"
                ;;
            finch__subcmd__memory,replace)
                cmd="finch__subcmd__memory__subcmd__replace"
                ;;
            finch__subcmd__memory,search)
                cmd="finch__subcmd__memory__subcmd__search"
                ;;
            finch__subcmd__memory,show)
                cmd="finch__subcmd__memory__subcmd__show"
                ;;
            finch__subcmd__memory__subcmd__help,forget)
                cmd="finch__subcmd__memory__subcmd__help__subcmd__forget"
                ;;
            finch__subcmd__memory__subcmd__help,help)
                cmd="finch__subcmd__memory__subcmd__help__subcmd__help"
                ;;
            finch__subcmd__memory__subcmd__help,list)
                cmd="finch__subcmd__memory__subcmd__help__subcmd__list"
                ;;
            finch__subcmd__memory__subcmd__help,prune)
                cmd="finch__subcmd__memory__subcmd__help__subcmd__prune"
                ;;
            finch__subcmd__memory__subcmd__help,remember)
                cmd="finch__subcmd__memory__subcmd__help__subcmd__remember"
                ;;
            finch__subcmd__memory__subcmd__help,replace)
                cmd="finch__subcmd__memory__subcmd__help__subcmd__replace"
                ;;
            finch__subcmd__memory__subcmd__help,search)
                cmd="finch__subcmd__memory__subcmd__help__subcmd__search"
                ;;
            finch__subcmd__memory__subcmd__help,show)
                cmd="finch__subcmd__memory__subcmd__help__subcmd__show"
                ;;
            finch__subcmd__policy,check)
                cmd="finch__subcmd__policy__subcmd__check"
                ;;
            finch__subcmd__policy,help)
                cmd="finch__subcmd__policy__subcmd__help"
                ;;
            finch__subcmd__policy__subcmd__help,check)
                cmd="finch__subcmd__policy__subcmd__help__subcmd__check"
                ;;
            finch__subcmd__policy__subcmd__help,help)
                cmd="finch__subcmd__policy__subcmd__help__subcmd__help"
                ;;
            finch__subcmd__schedule,create)
                cmd="finch__subcmd__schedule__subcmd__create"
                ;;
            finch__subcmd__schedule,daemon)
                cmd="finch__subcmd__schedule__subcmd__daemon"
                ;;
            finch__subcmd__schedule,delete)
                cmd="finch__subcmd__schedule__subcmd__delete"
                ;;
            finch__subcmd__schedule,disable)
                cmd="finch__subcmd__schedule__subcmd__disable"
                ;;
            finch__subcmd__schedule,enable)
                cmd="finch__subcmd__schedule__subcmd__enable"
                ;;
            finch__subcmd__schedule,help)
                cmd="finch__subcmd__schedule__subcmd__help"
                ;;
            finch__subcmd__schedule,history)
                cmd="finch__subcmd__schedule__subcmd__history"
                ;;
            finch__subcmd__schedule,list)
                cmd="finch__subcmd__schedule__subcmd__list"
                ;;
            finch__subcmd__schedule,ls)
                cmd="finch__subcmd__schedule__subcmd__list"
                ;;
            finch__subcmd__schedule,run)
                cmd="finch__subcmd__schedule__subcmd__run"
                ;;
            finch__subcmd__schedule,update)
                cmd="finch__subcmd__schedule__subcmd__update"
                ;;
            finch__subcmd__schedule__subcmd__help,create)
                cmd="finch__subcmd__schedule__subcmd__help__subcmd__create"
                ;;
            finch__subcmd__schedule__subcmd__help,daemon)
                cmd="finch__subcmd__schedule__subcmd__help__subcmd__daemon"
                ;;
            finch__subcmd__schedule__subcmd__help,delete)
                cmd="finch__subcmd__schedule__subcmd__help__subcmd__delete"
                ;;
            finch__subcmd__schedule__subcmd__help,disable)
                cmd="finch__subcmd__schedule__subcmd__help__subcmd__disable"
                ;;
            finch__subcmd__schedule__subcmd__help,enable)
                cmd="finch__subcmd__schedule__subcmd__help__subcmd__enable"
                ;;
            finch__subcmd__schedule__subcmd__help,help)
                cmd="finch__subcmd__schedule__subcmd__help__subcmd__help"
                ;;
            finch__subcmd__schedule__subcmd__help,history)
                cmd="finch__subcmd__schedule__subcmd__help__subcmd__history"
                ;;
            finch__subcmd__schedule__subcmd__help,list)
                cmd="finch__subcmd__schedule__subcmd__help__subcmd__list"
                ;;
            finch__subcmd__schedule__subcmd__help,run)
                cmd="finch__subcmd__schedule__subcmd__help__subcmd__run"
                ;;
            finch__subcmd__schedule__subcmd__help,update)
                cmd="finch__subcmd__schedule__subcmd__help__subcmd__update"
                ;;
            finch__subcmd__session,attach)
                cmd="finch__subcmd__session__subcmd__attach"
                ;;
            finch__subcmd__session,extend-dir)
                cmd="finch__subcmd__session__subcmd__extend__subcmd__dir"
                ;;
            finch__subcmd__session,help)
                cmd="finch__subcmd__session__subcmd__help"
                ;;
            finch__subcmd__session,list)
                cmd="finch__subcmd__session__subcmd__list"
                ;;
            finch__subcmd__session,ls)
                cmd="finch__subcmd__session__subcmd__list"
                ;;
            finch__subcmd__session,rename)
                cmd="finch__subcmd__session__subcmd__rename"
                ;;
            finch__subcmd__session,search)
                cmd="finch__subcmd__session__subcmd__search"
                ;;
            finch__subcmd__session,show)
                cmd="finch__subcmd__session__subcmd__show"
                ;;
            finch__subcmd__session__subcmd__help,attach)
                cmd="finch__subcmd__session__subcmd__help__subcmd__attach"
                ;;
            finch__subcmd__session__subcmd__help,extend-dir)
                cmd="finch__subcmd__session__subcmd__help__subcmd__extend__subcmd__dir"
                ;;
            finch__subcmd__session__subcmd__help,help)
                cmd="finch__subcmd__session__subcmd__help__subcmd__help"
                ;;
            finch__subcmd__session__subcmd__help,list)
                cmd="finch__subcmd__session__subcmd__help__subcmd__list"
                ;;
            finch__subcmd__session__subcmd__help,rename)
                cmd="finch__subcmd__session__subcmd__help__subcmd__rename"
                ;;
            finch__subcmd__session__subcmd__help,search)
                cmd="finch__subcmd__session__subcmd__help__subcmd__search"
                ;;
            finch__subcmd__session__subcmd__help,show)
                cmd="finch__subcmd__session__subcmd__help__subcmd__show"
                ;;
            finch__subcmd__skill,help)
                cmd="finch__subcmd__skill__subcmd__help"
                ;;
            finch__subcmd__skill,list)
                cmd="finch__subcmd__skill__subcmd__list"
                ;;
            finch__subcmd__skill,ls)
                cmd="finch__subcmd__skill__subcmd__list"
                ;;
            finch__subcmd__skill,show)
                cmd="finch__subcmd__skill__subcmd__show"
                ;;
            finch__subcmd__skill__subcmd__help,help)
                cmd="finch__subcmd__skill__subcmd__help__subcmd__help"
                ;;
            finch__subcmd__skill__subcmd__help,list)
                cmd="finch__subcmd__skill__subcmd__help__subcmd__list"
                ;;
            finch__subcmd__skill__subcmd__help,show)
                cmd="finch__subcmd__skill__subcmd__help__subcmd__show"
                ;;
            finch__subcmd__space,create)
                cmd="finch__subcmd__space__subcmd__create"
                ;;
            finch__subcmd__space,help)
                cmd="finch__subcmd__space__subcmd__help"
                ;;
            finch__subcmd__space,list)
                cmd="finch__subcmd__space__subcmd__list"
                ;;
            finch__subcmd__space,ls)
                cmd="finch__subcmd__space__subcmd__list"
                ;;
            finch__subcmd__space__subcmd__help,create)
                cmd="finch__subcmd__space__subcmd__help__subcmd__create"
                ;;
            finch__subcmd__space__subcmd__help,help)
                cmd="finch__subcmd__space__subcmd__help__subcmd__help"
                ;;
            finch__subcmd__space__subcmd__help,list)
                cmd="finch__subcmd__space__subcmd__help__subcmd__list"
                ;;
            finch__subcmd__tool,call)
                cmd="finch__subcmd__tool__subcmd__call"
                ;;
            finch__subcmd__tool,help)
                cmd="finch__subcmd__tool__subcmd__help"
                ;;
            finch__subcmd__tool,info)
                cmd="finch__subcmd__tool__subcmd__info"
                ;;
            finch__subcmd__tool,list)
                cmd="finch__subcmd__tool__subcmd__list"
                ;;
            finch__subcmd__tool,ls)
                cmd="finch__subcmd__tool__subcmd__list"
                ;;
            finch__subcmd__tool,search)
                cmd="finch__subcmd__tool__subcmd__search"
                ;;
            finch__subcmd__tool__subcmd__help,call)
                cmd="finch__subcmd__tool__subcmd__help__subcmd__call"
                ;;
            finch__subcmd__tool__subcmd__help,help)
                cmd="finch__subcmd__tool__subcmd__help__subcmd__help"
                ;;
            finch__subcmd__tool__subcmd__help,info)
                cmd="finch__subcmd__tool__subcmd__help__subcmd__info"
                ;;
            finch__subcmd__tool__subcmd__help,list)
                cmd="finch__subcmd__tool__subcmd__help__subcmd__list"
                ;;
            finch__subcmd__tool__subcmd__help,search)
                cmd="finch__subcmd__tool__subcmd__help__subcmd__search"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        finch)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version add install i update up remove rm uninstall list ls enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__add)
            opts="-g -d -q -v -h -V --global --dev --registry --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --registry)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__completions)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version bash zsh fish powershell elvish"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__disable)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__doctor)
            opts="-q -v -h -V --state --env --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__enable)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help)
            opts="add update remove list enable disable reload where doctor memory schedule session space skill mcp tool policy run completions man help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__add)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__completions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__disable)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__doctor)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__enable)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__man)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__mcp)
            opts="list add remove tools"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__mcp__subcmd__add)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__mcp__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__mcp__subcmd__remove)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__mcp__subcmd__tools)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__memory)
            opts="remember replace forget search list show prune"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__memory__subcmd__forget)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__memory__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__memory__subcmd__prune)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__memory__subcmd__remember)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__memory__subcmd__replace)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__memory__subcmd__search)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__memory__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__policy)
            opts="check"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__policy__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__reload)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__remove)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__run)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__schedule)
            opts="list create update enable disable delete run history daemon"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__schedule__subcmd__create)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__schedule__subcmd__daemon)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__schedule__subcmd__delete)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__schedule__subcmd__disable)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__schedule__subcmd__enable)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__schedule__subcmd__history)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__schedule__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__schedule__subcmd__run)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__schedule__subcmd__update)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__session)
            opts="list show search rename extend-dir attach"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__session__subcmd__attach)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__session__subcmd__extend__subcmd__dir)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__session__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__session__subcmd__rename)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__session__subcmd__search)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__session__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__skill)
            opts="list show"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__skill__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__skill__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__space)
            opts="list create"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__space__subcmd__create)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__space__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__tool)
            opts="list search info call"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__tool__subcmd__call)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__tool__subcmd__info)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__tool__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__tool__subcmd__search)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__update)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__help__subcmd__where)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__list)
            opts="-g -q -v -h -V --global --all-tiers --long --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__man)
            opts="-q -v -h -V --out-dir --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --out-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__mcp)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version list ls add remove rm tools help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__mcp__subcmd__add)
            opts="-H -e -q -v -h -V --url --header --env --cwd --force --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --header)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -H)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --env)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -e)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cwd)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__mcp__subcmd__help)
            opts="list add remove tools help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__mcp__subcmd__help__subcmd__add)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__mcp__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__mcp__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__mcp__subcmd__help__subcmd__remove)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__mcp__subcmd__help__subcmd__tools)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__mcp__subcmd__list)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__mcp__subcmd__remove)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__mcp__subcmd__tools)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__memory)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version remember replace forget search list ls show prune help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__memory__subcmd__forget)
            opts="-q -v -h -V --id --all-matching --in --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --in)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__memory__subcmd__help)
            opts="remember replace forget search list show prune help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__memory__subcmd__help__subcmd__forget)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__memory__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__memory__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__memory__subcmd__help__subcmd__prune)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__memory__subcmd__help__subcmd__remember)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__memory__subcmd__help__subcmd__replace)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__memory__subcmd__help__subcmd__search)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__memory__subcmd__help__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__memory__subcmd__list)
            opts="-q -v -h -V --scope --space --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --scope)
                    COMPREPLY=($(compgen -W "all long-term daily spaces lessons profile" -- "${cur}"))
                    return 0
                    ;;
                --space)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__memory__subcmd__prune)
            opts="-q -v -h -V --older-than --dry-run --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --older-than)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__memory__subcmd__remember)
            opts="-q -v -h -V --to --section --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --to)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --section)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__memory__subcmd__replace)
            opts="-q -v -h -V --id --in --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --in)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__memory__subcmd__search)
            opts="-q -v -h -V --scope --space --since --until --limit --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --scope)
                    COMPREPLY=($(compgen -W "all long-term daily spaces lessons profile" -- "${cur}"))
                    return 0
                    ;;
                --space)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --until)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__memory__subcmd__show)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__policy)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version check help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__policy__subcmd__check)
            opts="-q -v -h -V --mode --cwd --trusted-dir --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --mode)
                    COMPREPLY=($(compgen -W "ask acceptCalls" -- "${cur}"))
                    return 0
                    ;;
                --cwd)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --trusted-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__policy__subcmd__help)
            opts="check help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__policy__subcmd__help__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__policy__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__reload)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__remove)
            opts="-g -q -v -h -V --global --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__run)
            opts="-q -v -h -V --jsonl --mode --approve --cwd --session --minitool --no-builtins --serve --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --mode)
                    COMPREPLY=($(compgen -W "ask acceptCalls" -- "${cur}"))
                    return 0
                    ;;
                --approve)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cwd)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --minitool)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --serve)
                    COMPREPLY=($(compgen -W "mcp" -- "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version list ls create update enable disable delete run history daemon help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule__subcmd__create)
            opts="-q -v -h -V --name --prompt --hourly --daily --weekdays --weekly --cron --once --tz --space --cwd --model --effort --mode --timeout --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prompt)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hourly)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --daily)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --weekdays)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --weekly)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cron)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --once)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tz)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --space)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cwd)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --model)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --effort)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mode)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule__subcmd__daemon)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule__subcmd__delete)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule__subcmd__disable)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule__subcmd__enable)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule__subcmd__help)
            opts="list create update enable disable delete run history daemon help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule__subcmd__help__subcmd__create)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule__subcmd__help__subcmd__daemon)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule__subcmd__help__subcmd__delete)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule__subcmd__help__subcmd__disable)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule__subcmd__help__subcmd__enable)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule__subcmd__help__subcmd__history)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule__subcmd__help__subcmd__run)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule__subcmd__help__subcmd__update)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule__subcmd__history)
            opts="-q -v -h -V --limit --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule__subcmd__list)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule__subcmd__run)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__schedule__subcmd__update)
            opts="-q -v -h -V --name --prompt --hourly --daily --weekdays --weekly --cron --once --tz --space --cwd --model --effort --mode --timeout --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prompt)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hourly)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --daily)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --weekdays)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --weekly)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cron)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --once)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tz)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --space)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cwd)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --model)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --effort)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mode)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__session)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version list ls show search rename extend-dir attach help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__session__subcmd__attach)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__session__subcmd__extend__subcmd__dir)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__session__subcmd__help)
            opts="list show search rename extend-dir attach help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__session__subcmd__help__subcmd__attach)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__session__subcmd__help__subcmd__extend__subcmd__dir)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__session__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__session__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__session__subcmd__help__subcmd__rename)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__session__subcmd__help__subcmd__search)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__session__subcmd__help__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__session__subcmd__list)
            opts="-q -v -h -V --workspace --limit --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --workspace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__session__subcmd__rename)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__session__subcmd__search)
            opts="-q -v -h -V --limit --since --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__session__subcmd__show)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__skill)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version list ls show help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__skill__subcmd__help)
            opts="list show help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__skill__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__skill__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__skill__subcmd__help__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__skill__subcmd__list)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__skill__subcmd__show)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__space)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version list ls create help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__space__subcmd__create)
            opts="-q -v -h -V --dir --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__space__subcmd__help)
            opts="list create help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__space__subcmd__help__subcmd__create)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__space__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__space__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__space__subcmd__list)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__tool)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version list ls search info call help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__tool__subcmd__call)
            opts="-q -v -h -V --mode --approve --cwd --session --minitool --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --mode)
                    COMPREPLY=($(compgen -W "ask acceptCalls" -- "${cur}"))
                    return 0
                    ;;
                --approve)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cwd)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --minitool)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__tool__subcmd__help)
            opts="list search info call help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__tool__subcmd__help__subcmd__call)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__tool__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__tool__subcmd__help__subcmd__info)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__tool__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__tool__subcmd__help__subcmd__search)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__tool__subcmd__info)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__tool__subcmd__list)
            opts="-q -v -h -V --source --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --source)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__tool__subcmd__search)
            opts="-q -v -h -V --source --limit --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --source)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__update)
            opts="-g -q -v -h -V --all --global --registry --dry-run --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --registry)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        finch__subcmd__where)
            opts="-q -v -h -V --json --runtime-home --agent-home --quiet --verbose --color --yes --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _finch -o nosort -o bashdefault -o default finch
else
    complete -F _finch -o bashdefault -o default finch
fi
