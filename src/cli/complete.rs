//! Dynamic shell completions: the scripts `finch completions <shell>` prints register finch
//! itself as the completer (`COMPLETE=<shell> finch -- <words>`, clap_complete's dynamic
//! engine), so Tab offers what is there now — installed mini tool ids, task ids, session ids,
//! tool names, memory files — besides the commands and flags.
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

/// The ids of the mini tools installed in either tier (the directory names).
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
    candidates(ids.into_iter().map(|id| (id, None)))
}

/// Scheduled tasks' ids, with their names.
pub fn task_ids() -> Vec<CompletionCandidate> {
    let Some(file) = homes().and_then(|h| crate::schedule::tasks::load(&h).ok()) else {
        return Vec::new();
    };
    candidates(file.tasks.into_iter().map(|t| (t.id, Some(t.name))))
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

/// Tool names: the built-ins, the suites and what the last `finch reload` cached.
pub fn tool_names() -> Vec<CompletionCandidate> {
    use crate::host::Provider;
    let mut defs = crate::host::builtins::Builtins.defs();
    defs.extend(crate::host::suites::Suites::default().defs());
    if let Some(homes) = homes()
        && let Ok(cached) = crate::host::catalog::read_cache_listing(&homes.catalog_cache())
    {
        defs.extend(cached);
    }
    let catalog = crate::host::catalog::Catalog::build(defs);
    candidates(catalog.tools().iter().map(|t| {
        (
            t.name.clone(),
            Some(brief(&crate::ui::first_line(&t.def.description))),
        )
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

/// The registration script of `finch completions <shell>` for a shell the dynamic engine
/// knows; `None` for the others, which keep clap's static script.
pub fn registration(shell: &str) -> Option<Vec<u8>> {
    use clap_complete::env::{Bash, Elvish, EnvCompleter, Fish, Powershell, Zsh};
    let completer: &dyn EnvCompleter = match shell {
        "bash" => &Bash,
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
