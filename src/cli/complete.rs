//! Dynamic shell completions: the scripts `finch completions <shell>` prints register finch
//! itself as the completer (`COMPLETE=<shell> finch -- <words>`, clap_complete's dynamic
//! engine), so Tab offers what is there now — installed mini tool ids, task ids, session ids,
//! tool names, a tool's argument names (`key=`) after `tool call <tool>`, memory files — besides
//! the commands, paths where a path goes (`add`, `doctor`, `--minitool`), and flags once a `-`
//! is typed (`flags_after_dash`).
//!
//! Each candidate function reads the state files without locking or writing and without
//! starting anything, and offers nothing when it cannot read them (a completion must never
//! print an error into the user's command line). The homes are those of the environment
//! (`FINCH_RUNTIME_HOME`, `FINCH_AGENT_HOME`, the app's setting); `--runtime-home` typed on the
//! same line is not seen.

use clap_complete::engine::CompletionCandidate;

use crate::env::Env;
use crate::homes::{Homes, Tier};

fn homes() -> Option<Homes> {
    let env = Env::from_process();
    let cwd = std::env::current_dir().ok()?;
    Homes::resolve(None, None, &env, &cwd).ok()
}

fn candidates(
    items: impl IntoIterator<Item = (String, Option<String>)>,
) -> Vec<CompletionCandidate> {
    items
        .into_iter()
        .map(|(value, help)| {
            let c = CompletionCandidate::new(value);
            match help {
                Some(help) if !help.is_empty() => c.help(Some(help.into())),
                _ => c,
            }
        })
        .collect()
}

/// The words already typed on the line, the one under the cursor left out: an id given once
/// is not offered again (`finch enable a <Tab>`).
fn typed_elsewhere() -> Vec<String> {
    let Some((words, index)) = words_being_completed() else {
        return Vec::new();
    };
    words
        .into_iter()
        .enumerate()
        .filter(|(i, _)| *i != index)
        .map(|(_, w)| w)
        .collect()
}

/// A value as the shell inserts it: for bash, which inserts an answer as it is, a space is
/// escaped (`Morning\ digest`); the other shells quote what they insert themselves.
fn as_shell_word(value: &str) -> String {
    if std::env::var("COMPLETE").as_deref() == Ok("bash") {
        value.replace(' ', "\\ ")
    } else {
        value.to_string()
    }
}

/// The ids of the mini tools installed in either tier (the directory names), but those typed
/// on the line already.
pub fn installed_ids() -> Vec<CompletionCandidate> {
    let Some(homes) = homes() else {
        return Vec::new();
    };
    let mut ids = Vec::new();
    for tier in [Tier::Personal, Tier::Global] {
        let Ok(entries) = std::fs::read_dir(homes.tier_dir(tier)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !name.starts_with('.') && entry.path().is_dir() && !ids.contains(&name) {
                ids.push(name);
            }
        }
    }
    ids.sort();
    let typed = typed_elsewhere();
    ids.retain(|id| !typed.contains(id));
    candidates(ids.into_iter().map(|id| (id, None)))
}

/// Scheduled tasks: their ids (with their names) and their names (with their ids), as the
/// commands take either.
pub fn task_ids() -> Vec<CompletionCandidate> {
    let Some(file) = homes().and_then(|h| crate::schedule::tasks::load(&h).ok()) else {
        return Vec::new();
    };
    let ids = file
        .tasks
        .iter()
        .map(|t| (t.id.clone(), Some(t.name.clone())));
    let names = file
        .tasks
        .iter()
        .filter(|t| !t.name.trim().is_empty())
        .map(|t| (as_shell_word(&t.name), Some(t.id.clone())));
    candidates(ids.chain(names).collect::<Vec<_>>())
}

/// Sessions' short ids, most recent first, with their titles.
pub fn session_ids() -> Vec<CompletionCandidate> {
    let Some(homes) = homes() else {
        return Vec::new();
    };
    let options = crate::session::locate::ListOptions {
        workspace: None,
        limit: 50,
    };
    let Ok((sessions, _)) = crate::session::locate::list(&homes, &options) else {
        return Vec::new();
    };
    candidates(sessions.into_iter().map(|s| (s.short_id, s.title)))
}

/// The tools a call could name: the built-ins, the suites and what the catalog cache holds
/// (`finch reload` and `tool call` write it; `enable` runs no package code). The cached tools'
/// input schemas are read only when `schemas` asks (argument completion): they are most of the
/// file.
pub(crate) fn known_tools(schemas: bool) -> crate::host::catalog::Catalog {
    use crate::host::Provider;
    use crate::host::catalog::{read_cache, read_cache_listing};
    let mut defs = crate::host::builtins::Builtins.defs();
    defs.extend(crate::host::suites::Suites::default().defs());
    let read = if schemas {
        read_cache
    } else {
        read_cache_listing
    };
    if let Some(homes) = homes()
        && let Ok(cached) = read(&homes.catalog_cache())
    {
        defs.extend(cached);
    }
    crate::host::catalog::Catalog::build(defs)
}

/// Tool names: the built-ins, the suites and what the last `finch reload` cached.
pub fn tool_names() -> Vec<CompletionCandidate> {
    let catalog = known_tools(false);
    candidates(catalog.tools().iter().map(|t| {
        (
            t.name.clone(),
            Some(brief(&crate::ui::first_line(&t.def.description))),
        )
    }))
}

/// The words of the command line being completed (after `finch -- `, the program's name
/// first) and the index of the one under the cursor: bash says which (`_CLAP_COMPLETE_INDEX`),
/// the other shells complete the last.
fn words_being_completed() -> Option<(Vec<String>, usize)> {
    let args: Vec<String> = std::env::args().collect();
    let words = args[args.iter().position(|a| a == "--")? + 1..].to_vec();
    let index = std::env::var("_CLAP_COMPLETE_INDEX")
        .ok()
        .and_then(|i| i.parse::<usize>().ok())
        .unwrap_or(words.len().saturating_sub(1));
    Some((words, index))
}

/// The command tree completions are asked of, its flags and options hidden unless the word
/// under the cursor starts with `-`: Tab offers subcommands and values first, and flags once a
/// `-` is typed ([`DashFirst`] keeps the engine from offering them where nothing else fits).
pub fn flags_after_dash(mut cmd: clap::Command) -> clap::Command {
    let dash = words_being_completed()
        .and_then(|(words, index)| words.get(index).map(|w| w.starts_with('-')))
        .unwrap_or(false);
    if dash {
        return cmd;
    }
    // Built first, so the generated --help and --version are there to hide as well.
    cmd.build();
    hide_flags(cmd)
}

fn hide_flags(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| if a.is_positional() { a } else { a.hide(true) })
        .mut_subcommands(hide_flags)
}

/// The shells completions answer, each through [`DashFirst`].
pub fn shells() -> clap_complete::env::Shells<'static> {
    use clap_complete::env::{Bash, Elvish, EnvCompleter, Fish, Powershell, Zsh};
    const SHELLS: &[&dyn EnvCompleter] = &[
        &DashFirst(Bash),
        &DashFirst(Elvish),
        &DashFirst(Fish),
        &DashFirst(Powershell),
        &DashFirst(Zsh),
    ];
    clap_complete::env::Shells(SHELLS)
}

/// A shell's completer that offers nothing where all the engine has are the flags
/// `flags_after_dash` hid: clap's engine offers hidden candidates when nothing else fits, which
/// put every global flag (and `--version`) after `finch where <Tab>`. Once a `-` is typed the
/// shell's own answer goes through unchanged.
struct DashFirst<S>(S);

impl<S: clap_complete::env::EnvCompleter> clap_complete::env::EnvCompleter for DashFirst<S> {
    fn name(&self) -> &'static str {
        self.0.name()
    }

    fn is(&self, name: &str) -> bool {
        self.0.is(name)
    }

    fn write_registration(
        &self,
        var: &str,
        name: &str,
        bin: &str,
        completer: &str,
        buf: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        self.0.write_registration(var, name, bin, completer, buf)
    }

    fn write_complete(
        &self,
        cmd: &mut clap::Command,
        args: Vec<std::ffi::OsString>,
        current_dir: Option<&std::path::Path>,
        buf: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let index = std::env::var("_CLAP_COMPLETE_INDEX")
            .ok()
            .and_then(|i| i.parse::<usize>().ok())
            .unwrap_or(args.len().saturating_sub(1));
        let dash = args
            .get(index)
            .is_some_and(|w| w.to_string_lossy().starts_with('-'));
        if !dash {
            let offered = clap_complete::engine::complete(cmd, args.clone(), index, current_dir)?;
            if offered.iter().all(|c| c.is_hide_set()) {
                return Ok(());
            }
        }
        self.0.write_complete(cmd, args, current_dir, buf)
    }
}

/// Flags of `tool call` that take the next word as their value.
const CALL_VALUE_FLAGS: [&str; 5] = ["--mode", "--approve", "--cwd", "--session", "--minitool"];

/// The tool name of the `finch tool call <tool> …` being completed, and the `key=` words
/// given after it.
fn tool_being_called() -> Option<(String, Vec<String>)> {
    let (words, index) = words_being_completed()?;
    let call = words
        .windows(2)
        .position(|w| w[0] == "tool" && w[1] == "call")?
        + 2;
    let mut rest = words
        .iter()
        .enumerate()
        .skip(call)
        .take_while(|(i, _)| *i < index);
    let mut tool = None;
    let mut given = Vec::new();
    while let Some((_, word)) = rest.next() {
        if word.starts_with('-') {
            if CALL_VALUE_FLAGS.contains(&word.as_str()) {
                rest.next();
            }
        } else if tool.is_none() {
            tool = Some(word.clone());
        } else if let Some((key, _)) = word.split_once('=') {
            given.push(key.to_string());
        }
    }
    Some((tool?, given))
}

/// After the tool of `finch tool call <tool>`: the tool's argument names from its schema
/// (`key=`, required ones first, those already given left out), and after `key=` the values an
/// enum or a boolean parameter takes.
pub fn tool_arguments(current: &std::ffi::OsStr) -> Vec<CompletionCandidate> {
    use serde_json::Value;
    let current = current.to_string_lossy();
    let Some((tool, given)) = tool_being_called() else {
        return Vec::new();
    };
    let catalog = known_tools(true);
    let crate::host::catalog::Lookup::Found(i) = catalog.lookup(&tool) else {
        return Vec::new();
    };
    let schema = &catalog.get(i).def.input_schema;
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    if let Some((key, typed)) = current.split_once('=') {
        let Some(property) = properties.get(key) else {
            return Vec::new();
        };
        let values: Vec<String> = match property.get("enum").and_then(Value::as_array) {
            Some(options) => options
                .iter()
                .map(|o| o.as_str().map_or_else(|| o.to_string(), str::to_string))
                .collect(),
            None if property.get("type").and_then(Value::as_str) == Some("boolean") => {
                vec!["true".into(), "false".into()]
            }
            None => return Vec::new(),
        };
        return candidates(
            values
                .into_iter()
                .filter(|v| v.starts_with(typed))
                .map(|v| (format!("{key}={v}"), None)),
        );
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut names: Vec<(&String, &Value)> = properties
        .iter()
        .filter(|(k, _)| k.starts_with(current.as_ref()) && !given.contains(k))
        .collect();
    names.sort_by_key(|(k, _)| !required.contains(&k.as_str()));
    candidates(names.into_iter().map(|(k, p)| {
        let about = p.get("description").and_then(Value::as_str).map(brief);
        let about = match (required.contains(&k.as_str()), about) {
            (true, Some(a)) => Some(format!("(required) {a}")),
            (true, None) => Some("(required)".to_string()),
            (false, a) => a,
        };
        (format!("{k}="), about)
    }))
}

/// The first sentence of a description, at most 60 characters: a completion menu's note.
fn brief(text: &str) -> String {
    let sentence = text.split_once(". ").map_or(text, |(first, _)| first);
    if sentence.chars().count() <= 60 {
        return sentence.trim_end_matches('.').to_string();
    }
    let cut: String = sentence.chars().take(59).collect();
    format!("{cut}…")
}

/// The memory files `--to`/`--in`/`show` take: the fixed ones and one per space.
pub fn memory_files() -> Vec<CompletionCandidate> {
    let mut files: Vec<(String, Option<String>)> = [
        ("long-term", "what the agent keeps"),
        ("daily", "today's file"),
        ("today", "today's file"),
        ("lessons", "what the agent learned"),
        ("profile", "about the user"),
    ]
    .iter()
    .map(|(f, h)| (f.to_string(), Some(h.to_string())))
    .collect();
    if let Some(spaces) = homes().and_then(|h| crate::space::list(&h).ok()) {
        files.extend(spaces.into_iter().map(|s| {
            (
                format!("space:{}", s.name),
                Some("a space's memory".to_string()),
            )
        }));
    }
    candidates(files)
}

/// bash's registration: clap's protocol (`COMPLETE=bash finch -- <words>`, the word under the
/// cursor in `_CLAP_COMPLETE_INDEX`, answers split at `_CLAP_IFS`), with the words joined back
/// where bash split them at `=` or `:` (`COMP_WORDBREAKS`), so `tool call Memory action=<Tab>`
/// reaches finch as the word `action=` and not as `action` `=`. The answers are whole words
/// (`action=search`); bash replaces only the piece after the last break, so the part before it
/// is taken off them.
const BASH_REGISTRATION: &str = r#"_clap_complete_finch() {
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
"#;

/// The registration script of `finch completions <shell>` for a shell the dynamic engine
/// knows; `None` for the others, which keep clap's static script.
pub fn registration(shell: &str) -> Option<Vec<u8>> {
    use clap_complete::env::{Elvish, EnvCompleter, Fish, Powershell, Zsh};
    let completer: &dyn EnvCompleter = match shell {
        "bash" => return Some(BASH_REGISTRATION.as_bytes().to_vec()),
        "zsh" => &Zsh,
        "fish" => &Fish,
        "powershell" => &Powershell,
        "elvish" => &Elvish,
        _ => return None,
    };
    let mut out = Vec::new();
    completer
        .write_registration("COMPLETE", "finch", "finch", "finch", &mut out)
        .ok()?;
    Some(out)
}
