//! What an auto-allowed dispatcher may let the model set (issue 28): the dispatchers run
//! without a card, so none of their actions may give the model more than the session has — a
//! scheduled task in a higher permission mode, an agent run or a space bound to a directory no
//! person trusted. Such an action takes a card (the gateway's `DispatcherWidens` step, so it
//! shows in `finch policy check`).
//!
//! The audit, action by action (the ones not listed widen nothing):
//! - `Schedule create`: the task's `mode` (default `acceptCalls`, SPEC §6) may not exceed the
//!   session's; it must run inside the working directory or a trusted directory: its `cwd`, or
//!   its `space`'s directory (no target, or a space without a directory, is the agent home:
//!   outside).
//! - `Schedule update` that sets `prompt`, `mode`, `cwd` or `space`: the task as it would be
//!   after the update (the stored one, read by `probe`, with the new fields) must pass the same
//!   test; changing only its time, name, model or time-out widens nothing.
//! - `Schedule run` and `enable`: they start (or arm) the stored task, which must pass it too.
//!   `list`, `history`, `disable`, `delete` only narrow. A task or space that does not exist
//!   takes no card: the action fails on its own.
//! - `AppCall createSpace` with a `dir` outside the working directory and the trusted
//!   directories: a space's directory is where its tasks run.
//! - `Session extendDir`/`attach`: handled by the gateway itself (trust is a person's decision).
//! - `Memory`, `Skills` (`list`, `invoke` by name), `ToolSearch`, `AppCall` `info`,
//!   `setAppearance`, `listSpaces`, `listModels`, `checkUpdate`, `saveProfile`, `Session`
//!   `search`/`rename`: no field names a path, a mode or a trust.
//!
//! Pure: it judges the arguments against the workspace and the facts the probe found.

use serde_json::Value;

use super::{Mode, PathFacts, Workspace, resolve};

/// Why this dispatcher call would give the model more than the session has, if it would.
pub fn widens(
    tool: &str,
    args: &Value,
    workspace: &Workspace,
    facts: &PathFacts,
    mode: Mode,
) -> Option<String> {
    let text = |k: &str| args.get(k).and_then(Value::as_str);
    let action = text("action")?;
    // Both a space and a cwd, or a space that does not exist: the action fails on its own,
    // and a card would only hide its error.
    if args.get("space").is_some() && args.get("cwd").is_some() {
        return None;
    }
    if tool == "Schedule" && args.get("space").is_some() && facts.space.is_none() {
        return None;
    }
    match (tool, action) {
        ("Schedule", "create") => task_mode_exceeds(text("mode").unwrap_or("acceptCalls"), mode)
            .or_else(|| task_place_outside(args, workspace, facts, true)),
        ("Schedule", "update") => {
            // A task that does not exist: the update fails on its own.
            let stored = facts.task.as_ref()?;
            let widens = ["prompt", "mode", "cwd", "space"]
                .iter()
                .any(|k| args.get(*k).is_some());
            if !widens {
                return None;
            }
            let place_given = args.get("cwd").is_some() || args.get("space").is_some();
            task_mode_exceeds(text("mode").unwrap_or(&stored.mode), mode)
                .or_else(|| task_place_outside(args, workspace, facts, false))
                .or_else(|| {
                    (!place_given)
                        .then(|| stored_place_outside(stored.dir.as_deref(), workspace, facts))
                        .flatten()
                })
        }
        ("Schedule", "run" | "enable") => {
            let stored = facts.task.as_ref()?;
            task_mode_exceeds(&stored.mode, mode)
                .or_else(|| stored_place_outside(stored.dir.as_deref(), workspace, facts))
                .map(|why| format!("`{action}` starts a stored task: {why}"))
        }
        ("AppCall", "createSpace") => {
            let dir = text("dir")?;
            outside(dir, workspace, facts).map(|why| format!("the space's directory {why}"))
        }
        _ => None,
    }
}

/// The order of permission modes: a task may not run in a higher one than the session.
fn rank(mode: &str) -> u8 {
    match mode.trim().to_ascii_lowercase().as_str() {
        "ask" => 0,
        "acceptcalls" | "accept-calls" => 1,
        _ => u8::MAX,
    }
}

fn task_mode_exceeds(task: &str, session: Mode) -> Option<String> {
    (rank(task) > rank(session.as_str())).then(|| {
        format!(
            "the task would run in `{task}` mode, more than this session's `{}`",
            session.as_str()
        )
    })
}

/// Where the task would run, when that is not inside the workspace. `required`: no target at
/// all (the agent home) counts as outside.
fn task_place_outside(
    args: &Value,
    workspace: &Workspace,
    facts: &PathFacts,
    required: bool,
) -> Option<String> {
    if let Some(space) = args.get("space") {
        return match &facts.space {
            Some(Some(dir)) => outside(&dir.to_string_lossy(), workspace, facts)
                .map(|why| format!("the task's space {space} has the directory {why}")),
            _ => Some(format!(
                "the task would run in the space {space}, which has no directory: the agent \
                 home, outside the working directory"
            )),
        };
    }
    match args.get("cwd").map(|c| c.as_str().unwrap_or_default()) {
        Some("") => {
            Some("the task would run in the agent home, outside the working directory".into())
        }
        Some(dir) => outside(dir, workspace, facts).map(|why| format!("the task's cwd {why}")),
        None if required => Some(
            "the task would run in the agent home (no `cwd` given), outside the working directory"
                .into(),
        ),
        None => None,
    }
}

/// Where a stored task runs, when that is not inside the workspace.
fn stored_place_outside(
    dir: Option<&std::path::Path>,
    workspace: &Workspace,
    facts: &PathFacts,
) -> Option<String> {
    match dir {
        Some(dir) => outside(&dir.to_string_lossy(), workspace, facts)
            .map(|why| format!("the task runs in {why}")),
        None => Some("the task runs in the agent home, outside the working directory".into()),
    }
}

/// `dir` resolved, when it is outside the working directory and the trusted directories.
fn outside(dir: &str, workspace: &Workspace, facts: &PathFacts) -> Option<String> {
    match resolve(dir, workspace) {
        Ok(path) if workspace.really_contains(&path, facts) => None,
        Ok(path) => Some(format!(
            "{} is outside the working directory and the trusted directories",
            path.display()
        )),
        Err(why) => Some(why),
    }
}

/// The directory a dispatcher call names, for `probe` (where it really leads).
pub fn named_dir<'a>(tool: &str, args: &'a Value) -> Option<&'a str> {
    let text = |k: &str| args.get(k).and_then(Value::as_str);
    match (tool, text("action")?) {
        ("Schedule", "create" | "update") => text("cwd").filter(|c| !c.is_empty()),
        ("AppCall", "createSpace") => text("dir"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::policy::StoredTask;
    use serde_json::json;
    use std::path::PathBuf;

    fn ws() -> Workspace {
        Workspace {
            cwd: PathBuf::from("/w/p"),
            project: PathBuf::from("/w/p"),
            trusted: vec![PathBuf::from("/w/shared")],
            home: Some(PathBuf::from("/home/u")),
            runtime: None,
        }
    }

    fn check(tool: &str, args: Value, mode: Mode) -> Option<String> {
        widens(tool, &args, &ws(), &PathFacts::default(), mode)
    }

    /// Stored tasks, as `probe` reads them: `(stored mode, stored dir, args, mode, widens)`.
    #[test]
    fn stored_tasks_are_judged_as_they_would_run() {
        use Mode::{AcceptCalls, Ask};
        let inside = Some(PathBuf::from("/w/p/sub"));
        let root = Some(PathBuf::from("/"));
        let cases = [
            (
                "ask",
                inside.clone(),
                json!({"action": "run", "id": "t"}),
                Ask,
                false,
            ),
            (
                "acceptCalls",
                inside.clone(),
                json!({"action": "run", "id": "t"}),
                Ask,
                true,
            ),
            (
                "acceptCalls",
                inside.clone(),
                json!({"action": "run", "id": "t"}),
                AcceptCalls,
                false,
            ),
            (
                "ask",
                root.clone(),
                json!({"action": "enable", "id": "t"}),
                AcceptCalls,
                true,
            ),
            (
                "ask",
                None,
                json!({"action": "run", "id": "t"}),
                AcceptCalls,
                true,
            ),
            (
                "acceptCalls",
                None,
                json!({"action": "update", "id": "t", "daily": "07:00"}),
                Ask,
                false,
            ),
            (
                "acceptCalls",
                inside.clone(),
                json!({"action": "update", "id": "t", "prompt": "x"}),
                Ask,
                true,
            ),
            (
                "acceptCalls",
                inside.clone(),
                json!({"action": "update", "id": "t", "prompt": "x", "mode": "ask"}),
                Ask,
                false,
            ),
            (
                "ask",
                root.clone(),
                json!({"action": "update", "id": "t", "prompt": "x"}),
                AcceptCalls,
                true,
            ),
            (
                "ask",
                root.clone(),
                json!({"action": "update", "id": "t", "prompt": "x", "cwd": "."}),
                Ask,
                false,
            ),
        ];
        let mut failures = Vec::new();
        for (stored_mode, dir, args, mode, want) in cases {
            let mut facts = PathFacts::default();
            facts.task = Some(StoredTask {
                mode: stored_mode.into(),
                dir: dir.clone(),
            });
            let got = widens("Schedule", &args, &ws(), &facts, mode);
            if got.is_some() != want {
                failures.push(format!(
                    "{stored_mode} {dir:?} {args} {mode:?}: got {got:?}"
                ));
            }
        }
        let mut facts = PathFacts::default();
        facts.space = Some(Some(PathBuf::from("/w/p/site")));
        let create = json!({"action": "create", "space": "Site", "mode": "ask"});
        assert_eq!(widens("Schedule", &create, &ws(), &facts, Ask), None);
        facts.space = Some(None);
        assert!(widens("Schedule", &create, &ws(), &facts, Ask).is_some());
        assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    }

    /// `(tool, args, mode, widens)`: each field of the audit, both ways.
    #[test]
    fn each_widening_field_takes_a_card_and_its_narrow_form_does_not() {
        use Mode::{AcceptCalls, Ask};
        let cases = [
            (
                "Schedule",
                json!({"action": "create", "cwd": ".", "mode": "ask"}),
                Ask,
                false,
            ),
            (
                "Schedule",
                json!({"action": "create", "cwd": ".", "mode": "acceptCalls"}),
                Ask,
                true,
            ),
            (
                "Schedule",
                json!({"action": "create", "cwd": "."}),
                Ask,
                true,
            ),
            (
                "Schedule",
                json!({"action": "create", "cwd": "."}),
                AcceptCalls,
                false,
            ),
            (
                "Schedule",
                json!({"action": "create", "cwd": "/", "mode": "ask"}),
                Ask,
                true,
            ),
            (
                "Schedule",
                json!({"action": "create", "cwd": "/w/shared/x", "mode": "ask"}),
                Ask,
                false,
            ),
            (
                "Schedule",
                json!({"action": "create", "cwd": "", "mode": "ask"}),
                Ask,
                true,
            ),
            (
                "Schedule",
                json!({"action": "create", "mode": "ask"}),
                Ask,
                true,
            ),
            (
                "Schedule",
                json!({"action": "create", "space": "Nowhere", "mode": "ask"}),
                Ask,
                false,
            ),
            (
                "Schedule",
                json!({"action": "create", "cwd": ".", "mode": "sudo"}),
                AcceptCalls,
                true,
            ),
            (
                "Schedule",
                json!({"action": "update", "id": "t-nope", "prompt": "x"}),
                Ask,
                false,
            ),
            (
                "Schedule",
                json!({"action": "run", "id": "t-nope"}),
                Ask,
                false,
            ),
            (
                "Schedule",
                json!({"action": "disable", "id": "t-1"}),
                Ask,
                false,
            ),
            (
                "Schedule",
                json!({"action": "delete", "id": "t-1"}),
                Ask,
                false,
            ),
            ("Schedule", json!({"action": "list"}), Ask, false),
            (
                "AppCall",
                json!({"action": "createSpace", "name": "x", "dir": "/"}),
                AcceptCalls,
                true,
            ),
            (
                "AppCall",
                json!({"action": "createSpace", "name": "x", "dir": "sub"}),
                Ask,
                false,
            ),
            (
                "AppCall",
                json!({"action": "createSpace", "name": "x"}),
                Ask,
                false,
            ),
            (
                "AppCall",
                json!({"action": "saveProfile", "content": "x"}),
                Ask,
                false,
            ),
            (
                "Skills",
                json!({"action": "invoke", "name": "x"}),
                Ask,
                false,
            ),
            (
                "Memory",
                json!({"action": "remember", "text": "x"}),
                Ask,
                false,
            ),
            ("ToolSearch", json!({"query": "x"}), Ask, false),
        ];
        let mut failures = Vec::new();
        for (tool, args, mode, want) in cases {
            let got = check(tool, args.clone(), mode);
            if got.is_some() != want {
                failures.push(format!(
                    "{tool} {args} {mode:?}: got {got:?}, want widens={want}"
                ));
            }
        }
        assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    }
}
