//! What a person's "Allow for this session" covers (SPEC §8.4, issue 28): the exact command
//! of a shell call, the directory of the file (and below) for `Write` and `Edit`, the tool for
//! any other. The host remembers the key of each such answer; `finch policy check --session`
//! rebuilds them from a transcript. A key is text because it is kept: pi's extension stores
//! the `sessionKey` that `policy check --json` prints and hands it back.

use std::path::Path;

use super::{Lane, Target, lane};
use crate::host::tool::ToolRef;

/// The key an answer "Allow for this session" to a call of `tool` on `target` is remembered
/// under.
pub fn session_key(tool: &ToolRef, target: &Target) -> String {
    let name = tool.name;
    match (target, writes_files(tool)) {
        (Target::Command(command, _), _) => format!("{name}\0{command}"),
        (Target::Paths(paths), true) => match paths
            .as_ref()
            .ok()
            .and_then(|p| p.first())
            .and_then(|p| p.parent())
        {
            Some(dir) => format!("{name}\0{}", dir.display()),
            None => name.to_string(),
        },
        _ => name.to_string(),
    }
}

/// Whether an answer remembered under one of `allowed` (`session_key`s) covers a call with
/// key `key`: the same key, or for a tool that writes files a directory at or above the
/// call's.
pub fn session_allows<'a>(allowed: impl IntoIterator<Item = &'a String>, key: &str) -> bool {
    let scoped = |k: &'a str| {
        k.split_once('\0')
            .filter(|(tool, _)| writes_files(&ToolRef::from_name(tool)))
    };
    allowed.into_iter().any(|a| {
        a == key
            || matches!(
                (scoped(a), key.split_once('\0')),
                (Some((tool, dir)), Some((call_tool, call_dir)))
                    if tool == call_tool && Path::new(call_dir).starts_with(dir)
            )
    })
}

/// What "Allow for this session" covers, in words for a card whose summary (the path as the
/// call gave it, for a file tool) is `summary`.
pub fn session_scope(tool: &ToolRef, target: &Target, summary: &str) -> String {
    let name = tool.name;
    match (target, writes_files(tool)) {
        (Target::Command(..), _) => "this exact command only".to_string(),
        (Target::Paths(_), true) => match Path::new(summary)
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
        {
            Some(dir) => format!("{name} in {} and below", dir.display()),
            None => format!("{name} in the working directory and below"),
        },
        _ => format!("every {name} call"),
    }
}

/// The file tools that change files: their answers are scoped to a directory.
fn writes_files(tool: &ToolRef) -> bool {
    lane(tool) == Lane::File && matches!(tool.name, "Write" | "Edit")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::policy::Workspace;
    use serde_json::json;
    use std::path::PathBuf;

    fn key(tool: &str, args: serde_json::Value) -> String {
        let ws = Workspace {
            cwd: PathBuf::from("/w"),
            project: PathBuf::from("/w"),
            trusted: Vec::new(),
            home: None,
            runtime: None,
        };
        let tool = ToolRef::from_name(tool);
        session_key(&tool, &Target::of(&tool, &args, &ws))
    }

    #[test]
    fn keys_are_the_command_the_directory_or_the_tool() {
        assert_eq!(
            key("Bash", json!({"command": "npm test"})),
            "Bash\0npm test"
        );
        assert_eq!(
            key("Write", json!({"file_path": "src/a.rs"})),
            "Write\0/w/src"
        );
        assert_eq!(
            key("WebFetch", json!({"url": "https://x.org/"})),
            "WebFetch"
        );
        let allowed = [key("Edit", json!({"file_path": "src/a.rs"}))];
        assert!(session_allows(
            &allowed,
            &key("Edit", json!({"file_path": "src/b/c.rs"}))
        ));
        assert!(!session_allows(
            &allowed,
            &key("Edit", json!({"file_path": "d.rs"}))
        ));
        assert!(!session_allows(
            &allowed,
            &key("Write", json!({"file_path": "src/a.rs"}))
        ));
    }
}
