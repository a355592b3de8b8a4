_clap_complete_finch() {
    local IFS=$'\013'
    local _CLAP_COMPLETE_COMP_TYPE=${COMP_TYPE}
    if compopt +o nospace 2> /dev/null; then
        local _CLAP_COMPLETE_SPACE=false
    else
        local _CLAP_COMPLETE_SPACE=true
    fi
    # The words as typed: a piece that follows the one before it with no space between them
    # (bash split it at a COMP_WORDBREAKS character) is joined to it.
    local words=() index=0 pos=0 i piece rest gap prefix=""
    for (( i = 0; i < ${#COMP_WORDS[@]}; i++ )); do
        piece=${COMP_WORDS[i]}
        rest=${COMP_LINE:pos}
        gap=${rest%%[![:space:]]*}
        pos=$(( pos + ${#gap} ))
        if (( i > 0 && ${#gap} == 0 )) && [[ -n $piece ]]; then
            words[${#words[@]}-1]+=$piece
        else
            words+=("$piece")
        fi
        pos=$(( pos + ${#piece} ))
        if (( i == COMP_CWORD )); then
            index=$(( ${#words[@]} - 1 ))
            # After a bare `=` readline completes the empty text that follows it.
            if [[ $piece == *[!=:]* ]]; then
                prefix=${words[index]%"$piece"}
            else
                prefix=${words[index]}
            fi
        fi
    done
    COMPREPLY=( $( \
        _CLAP_IFS="$IFS" \
        _CLAP_COMPLETE_INDEX="$index" \
        _CLAP_COMPLETE_COMP_TYPE="$_CLAP_COMPLETE_COMP_TYPE" \
        _CLAP_COMPLETE_SPACE="$_CLAP_COMPLETE_SPACE" \
        COMPLETE="bash" \
        "finch" -- "${words[@]}" \
    ) )
    if [[ $? != 0 ]]; then
        unset COMPREPLY
        return
    fi
    if [[ -n $prefix ]]; then
        COMPREPLY=( "${COMPREPLY[@]#"$prefix"}" )
    fi
    if [[ $_CLAP_COMPLETE_SPACE == false ]] && [[ "${COMPREPLY-}" =~ [=/:]$ ]]; then
        compopt -o nospace
    fi
}
if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -o nospace -o bashdefault -o nosort -F _clap_complete_finch finch
else
    complete -o nospace -o bashdefault -F _clap_complete_finch finch
fi
