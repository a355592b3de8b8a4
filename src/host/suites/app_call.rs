//! The `AppCall` dispatcher (SPEC §8.1): what the agent may ask of the app around it — facts
//! about this finch (`info`), the app's appearance setting, spaces, models, updates and the
//! user's profile. It runs without a card (SPEC §8.3), so every action either only reads, or
//! changes one small piece of state the way the matching `finch` command does.
//!
//! Choices made where the spec is silent:
//! - `info` reports the finch version, the platform, both homes (and how the agent home was
//!   found), the session, and whether `node` is found (finch.toml `node`, `FINCH_NODE`, `PATH`;
//!   the same lookup as `finch doctor`) with its version.
//! - `setAppearance` writes `theme`, `accentColor` and `fontSize` into the `appearance` object of
//!   `<runtime>/config/settings.json`, the app's settings file: under the lock of its directory,
//!   through a temp file renamed over the old one, every other key kept in place. A corrupt file
//!   (or an `appearance` that is not an object) is an error that names it and changes nothing;
//!   a call that changes nothing does not rewrite the file. finch does not apply the theme
//!   itself: the app does when it reads its settings.
//! - `listSpaces` and `createSpace` are `finch space list` and `finch space create` (a relative
//!   `dir` is taken from the session's working directory).
//! - `listModels`: finch configures no models of its own (scheduled tasks pass `model` to the
//!   agent command as given). It lists the `models` array of the app's settings.json when the
//!   app keeps one there, each item as written, and otherwise an empty list with a note saying so.
//! - `checkUpdate` reports the running version and `checked: false`: this build has no release
//!   channel to ask, and it does not pretend to. The note points at `MiniTool` `update` with
//!   `dryRun`, which does check the registry for newer mini tools.
//! - `saveProfile` writes the profile `USER.md` in the agent home (SPEC §1: finch writes only
//!   `MEMORY.md` and `USER.md`). `mode: "append"` (the default, since it never loses what the
//!   user wrote) adds one entry through the memory module's profile target — the same as
//!   `finch memory remember --to profile`, duplicates refused. `mode: "replace"` replaces the
//!   whole file with the given text, under the agent home's lock, atomically. The text may be
//!   passed as `content` or `text`.

use std::path::Path;
use std::time::Duration;

use chrono::SecondsFormat;
use serde_json::{Map, Value, json};

use super::super::output::{Content, ToolOutput};
use super::{About, Action, ActionError, Suite, text};
use crate::error::CommandError;
use crate::homes::{absolutize, expand_tilde};
use crate::host::call::context::CallCx;
use crate::memory::entry_json;
use crate::memory::{self, FileKind, MemoryHome, Target};
use crate::store::{DirLock, JsonError, LockError, read_json_object, write_atomic, write_json};

pub struct AppCallSuite;

/// The keys `setAppearance` writes under `appearance`.
const APPEARANCE_KEYS: [&str; 3] = ["theme", "accentColor", "fontSize"];

const ABOUT: About = About {
    name: "AppCall",
    title: "Finch app",
    description: "Ask the Finch app and this finch: version, homes and node (info), the appearance theme, spaces, models, update status, and the user's profile (USER.md)",
    keywords: "app application settings: version info about, theme appearance dark mode light mode accent colour font size, spaces workspace project create a new space list spaces, models available models, check for updates upgrade, save user profile. 应用信息 版本 主题 外观 深色模式 浅色模式 暗色 夜间模式 字体大小 空间 工作区 项目 创建新空间 新建空间 列出空间 模型列表 可用模型 检查更新 升级 保存用户资料 个人资料 應用程式 版本 主題 外觀 深色模式 淺色模式 字體大小 空間 工作區 專案 建立新空間 新增空間 列出空間 模型 檢查更新 升級 儲存個人資料",
};

impl Suite for AppCallSuite {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn actions(&self) -> Vec<Action> {
        let none = || json!({"type": "object", "properties": {}, "additionalProperties": false});
        vec![
            Action {
                name: "info",
                summary: "The finch version, platform, runtime and agent homes, this session, and whether node (needed by mini tools) is found",
                params: none(),
                example: json!({"action": "info"}),
            },
            Action {
                name: "setAppearance",
                summary: "Set the app's theme (and optionally accent colour and font size) in its settings.json; other settings are kept",
                params: json!({
                    "type": "object",
                    "properties": {
                        "theme": {
                            "type": "string",
                            "enum": ["light", "dark", "system"],
                            "description": "Colour theme; system follows the operating system",
                        },
                        "accentColor": {
                            "type": "string",
                            "pattern": "^#[0-9a-fA-F]{6}$",
                            "description": "Accent colour as #RRGGBB",
                        },
                        "fontSize": {
                            "type": "integer",
                            "minimum": 10,
                            "maximum": 32,
                            "description": "Base font size in points (10–32)",
                        },
                    },
                    "minProperties": 1,
                    "additionalProperties": false,
                }),
                example: json!({"action": "setAppearance", "theme": "dark"}),
            },
            Action {
                name: "listSpaces",
                summary: "List spaces: id, name, bound directory, created",
                params: none(),
                example: json!({"action": "listSpaces"}),
            },
            Action {
                name: "createSpace",
                summary: "Create a space, optionally bound to a directory",
                params: json!({
                    "type": "object",
                    "properties": {
                        "name": {
                            "type": "string",
                            "minLength": 1,
                            "description": "Space name (unique, ignoring case; usable as a file name)",
                        },
                        "dir": {
                            "type": "string",
                            "minLength": 1,
                            "description": "Existing directory to bind the space to (relative to the session's working directory)",
                        },
                    },
                    "required": ["name"],
                    "additionalProperties": false,
                }),
                example: json!({"action": "createSpace", "name": "Work", "dir": "~/work"}),
            },
            Action {
                name: "listModels",
                summary: "List the models the app's settings name (finch itself configures none)",
                params: none(),
                example: json!({"action": "listModels"}),
            },
            Action {
                name: "checkUpdate",
                summary: "Report the running finch version and how updates are checked",
                params: none(),
                example: json!({"action": "checkUpdate"}),
            },
            Action {
                name: "saveProfile",
                summary: "Save what to remember about the user in the profile USER.md: append one entry (default) or replace the whole file",
                params: json!({
                    "type": "object",
                    "properties": {
                        "content": {
                            "type": "string",
                            "description": "The text: one entry to append, or the whole new profile with mode replace",
                        },
                        "text": {
                            "type": "string",
                            "description": "Same as content (give one of the two)",
                        },
                        "mode": {
                            "type": "string",
                            "enum": ["append", "replace"],
                            "description": "append (default) adds one entry and refuses a duplicate; replace overwrites USER.md",
                        },
                        "section": {
                            "type": "string",
                            "minLength": 1,
                            "description": "With append: the heading to put the entry under (created if missing)",
                        },
                    },
                    "additionalProperties": false,
                }),
                example: json!({"action": "saveProfile", "content": "Prefers metric units"}),
            },
        ]
    }

    fn run(
        &mut self,
        action: &str,
        args: &Map<String, Value>,
        cx: &mut CallCx,
    ) -> Result<ToolOutput, ActionError> {
        match action {
            "info" => Ok(info(cx)),
            "setAppearance" => set_appearance(args, cx),
            "listSpaces" => list_spaces(cx),
            "createSpace" => create_space(args, cx),
            "listModels" => list_models(cx),
            "checkUpdate" => Ok(check_update()),
            "saveProfile" => save_profile(args, cx),
            other => Err(ActionError::new(format!("AppCall has no action {other}"))),
        }
    }
}

/// A JSON result with a first line for the model to read before the data.
fn json_with(summary: String, value: Value) -> ToolOutput {
    let mut out = ToolOutput::json(value);
    out.content.insert(0, Content::Text(summary));
    out
}

fn info(cx: &CallCx) -> ToolOutput {
    let env = cx.env;
    let node = match crate::node::find_node(&env.settings, &env.env) {
        None => json!({
            "found": false,
            "problem": "node not found: mini tools need node 18 or newer; install it, or set `node` in finch.toml or FINCH_NODE",
        }),
        Some((path, from)) => match crate::node::node_version(&path) {
            Ok(version) => {
                let supported =
                    crate::node::major(&version).is_some_and(|m| m >= crate::node::MIN_NODE_MAJOR);
                let mut v = json!({"found": true, "path": path, "from": from, "version": version, "supported": supported});
                if !supported {
                    v["problem"] = format!(
                        "node {version} is too old: mini tools need node {} or newer",
                        crate::node::MIN_NODE_MAJOR
                    )
                    .into();
                }
                v
            }
            Err(problem) => {
                json!({"found": false, "path": path, "from": from, "problem": problem})
            }
        },
    };
    let value = json!({
        "finch": {"version": env!("CARGO_PKG_VERSION")},
        "platform": {"os": std::env::consts::OS, "arch": std::env::consts::ARCH, "family": std::env::consts::FAMILY},
        "homes": {
            "runtime": env.homes.runtime,
            "agent": env.homes.agent,
            "agentSource": env.homes.agent_source.describe(),
        },
        "session": {"id": cx.session.id, "cwd": cx.session.cwd, "mode": cx.session.mode.as_str()},
        "node": node,
    });
    ToolOutput::json(value)
}

fn set_appearance(args: &Map<String, Value>, cx: &mut CallCx) -> Result<ToolOutput, ActionError> {
    let path = cx.env.homes.settings_json();
    let changes: Map<String, Value> = APPEARANCE_KEYS
        .iter()
        .filter_map(|k| args.get(*k).map(|v| (k.to_string(), v.clone())))
        .collect();
    if changes.is_empty() {
        return Err(ActionError::new(format!(
            "setAppearance needs at least one of {}",
            APPEARANCE_KEYS.join(", ")
        )));
    }
    let (appearance, changed) = write_appearance(&path, &changes, cx.env.settings.lock_timeout)?;
    let summary = if changed {
        format!(
            "Saved the appearance in {}; the app applies it when it reads its settings.",
            path.display()
        )
    } else {
        format!(
            "The appearance in {} already had these values; nothing changed.",
            path.display()
        )
    };
    Ok(json_with(
        summary,
        json!({"path": path, "changed": changed, "appearance": appearance}),
    ))
}

/// Merges `changes` into the `appearance` object of the settings file at `path` and writes the
/// file when anything changed. Returns the `appearance` object as saved and whether it changed.
pub(crate) fn write_appearance(
    path: &Path,
    changes: &Map<String, Value>,
    lock_timeout: Duration,
) -> Result<(Map<String, Value>, bool), ActionError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let _lock =
        DirLock::acquire(dir, &path.display().to_string(), lock_timeout).map_err(lock_error)?;
    let mut doc = read_json_object(path)
        .map_err(settings_error)?
        .unwrap_or_default();
    let appearance = doc
        .entry("appearance")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(appearance) = appearance else {
        return Err(ActionError::new(format!(
            "{}: `appearance` is {}, not an object; finch leaves the file unchanged",
            path.display(),
            kind_of(appearance)
        ))
        .with_hint(
            "fix `appearance` in the file by hand (or remove it), then call setAppearance again",
        ));
    };
    let mut changed = false;
    for (k, v) in changes {
        if appearance.get(k) != Some(v) {
            appearance.insert(k.clone(), v.clone());
            changed = true;
        }
    }
    let saved = appearance.clone();
    if changed {
        write_json(path, &Value::Object(doc)).map_err(settings_error)?;
    }
    Ok((saved, changed))
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn settings_error(e: JsonError) -> ActionError {
    let corrupt = e.is_corrupt();
    let error = ActionError::new(format!("{e}; finch left it unchanged"));
    if corrupt {
        error.with_hint(
            "fix the file by hand, or run `finch doctor --state` to move it aside, then try again",
        )
    } else {
        error
    }
}

fn lock_error(e: LockError) -> ActionError {
    let held = matches!(e, LockError::Held { .. });
    let error = ActionError::new(e.to_string());
    if held {
        error.with_hint("wait for the other finch to finish, then try again")
    } else {
        error
    }
}

fn list_spaces(cx: &CallCx) -> Result<ToolOutput, ActionError> {
    let spaces = crate::space::list(&cx.env.homes).map_err(CommandError::from)?;
    let summary = match spaces.len() {
        0 => format!(
            "No spaces yet ({}). Create one with {{\"action\": \"createSpace\", \"name\": \"…\"}}.",
            cx.env.homes.spaces_json().display()
        ),
        1 => "1 space.".to_string(),
        n => format!("{n} spaces."),
    };
    let items = spaces.iter().map(crate::space::Space::to_json).collect();
    Ok(json_with(summary, Value::Array(items)))
}

fn create_space(args: &Map<String, Value>, cx: &mut CallCx) -> Result<ToolOutput, ActionError> {
    let name = text(args, "name").unwrap_or_default();
    let dir = match text(args, "dir") {
        Some(d) => {
            let expanded =
                expand_tilde(Path::new(d), cx.session.home.as_deref()).map_err(|_| {
                    ActionError::new(format!(
                        "cannot expand `~` in \"{d}\": the home directory is unknown"
                    ))
                    .with_hint("give the directory as an absolute path")
                })?;
            Some(absolutize(&expanded, &cx.session.cwd))
        }
        None => None,
    };
    let now = cx
        .env
        .now_utc()
        .to_rfc3339_opts(SecondsFormat::Millis, true);
    let space = crate::space::create(
        &cx.env.homes,
        name,
        dir.as_deref(),
        cx.env.settings.lock_timeout,
        &now,
    )
    .map_err(CommandError::from)?;
    Ok(json_with(
        format!("Created space \"{}\" ({}).", space.name, space.id),
        space.to_json(),
    ))
}

fn list_models(cx: &CallCx) -> Result<ToolOutput, ActionError> {
    let path = cx.env.homes.settings_json();
    let doc = read_json_object(&path).map_err(settings_error)?;
    let listed = doc.as_ref().and_then(|d| d.get("models"));
    let (models, note) = match listed {
        Some(Value::Array(items)) => (items.clone(), None),
        Some(other) => (
            Vec::new(),
            Some(format!(
                "`models` in {} is {}, not a list; it was not read",
                path.display(),
                kind_of(other)
            )),
        ),
        None => (
            Vec::new(),
            Some(format!(
                "finch configures no models itself, and {} lists none (`models`): the Finch app keeps its model choices; a scheduled task's `model` is passed to the agent command as given",
                path.display()
            )),
        ),
    };
    let mut value = json!({"models": models, "source": path});
    if let Some(note) = &note {
        value["note"] = note.clone().into();
    }
    let summary = match (models.len(), note) {
        (_, Some(note)) => format!("No models listed: {note}."),
        (1, None) => "1 model.".to_string(),
        (n, None) => format!("{n} models."),
    };
    Ok(json_with(summary, value))
}

fn check_update() -> ToolOutput {
    let note = "This finch has no release channel to check for a newer finch; nothing was checked. To see whether installed mini tools have updates, call MiniTool with {\"action\": \"update\", \"all\": true, \"dryRun\": true}.";
    json_with(
        format!("finch {} is running. {note}", env!("CARGO_PKG_VERSION")),
        json!({"version": env!("CARGO_PKG_VERSION"), "checked": false, "note": note}),
    )
}

fn save_profile(args: &Map<String, Value>, cx: &mut CallCx) -> Result<ToolOutput, ActionError> {
    let content = match (text(args, "content"), text(args, "text")) {
        (Some(c), None) | (None, Some(c)) => c,
        (Some(_), Some(_)) => {
            return Err(ActionError::new(
                "give the profile text as `content` or as `text`, not both",
            ));
        }
        (None, None) => {
            return Err(
                ActionError::new("saveProfile needs the text to save in `content`").with_hint(
                    r#"example: {"action": "saveProfile", "content": "Prefers metric units"}"#,
                ),
            );
        }
    };
    let home = MemoryHome::new(&cx.env.homes.agent, cx.env.settings.lock_timeout);
    match text(args, "mode").unwrap_or("append") {
        "replace" => {
            if args.contains_key("section") {
                return Err(ActionError::new(
                    "`section` only applies to mode append; mode replace writes the whole file",
                ));
            }
            replace_profile(&home, content)
        }
        _ => {
            let now = cx.env.now().naive_local();
            let section = text(args, "section");
            let done = memory::remember(&home, &Target::Profile, content, section, now)
                .map_err(CommandError::from)?;
            let mut v = entry_json(&done.entry);
            v["mode"] = "append".into();
            v["createdFile"] = done.created_file.into();
            v["createdSection"] = done.created_section.into();
            Ok(json_with(
                format!(
                    "Saved to the profile {}:{} (id {}).",
                    done.entry.file.name, done.entry.line, done.entry.id
                ),
                v,
            ))
        }
    }
}

/// Replaces the whole of `USER.md` under the agent home's lock.
fn replace_profile(home: &MemoryHome, content: &str) -> Result<ToolOutput, ActionError> {
    if content.trim().is_empty() {
        return Err(ActionError::new(
            "the profile text is empty: mode replace needs the whole new profile",
        )
        .with_hint("finch does not empty USER.md; to add one fact, use mode append"));
    }
    let file = home.file(FileKind::Profile);
    let _lock = DirLock::acquire(
        file.dir(),
        &file.path.display().to_string(),
        home.lock_timeout,
    )
    .map_err(lock_error)?;
    let previous = match std::fs::metadata(&file.path) {
        Ok(m) => Some(m.len()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(ActionError::new(format!(
                "cannot read {}: {e}",
                file.path.display()
            )));
        }
    };
    let mut text = content.to_string();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    write_atomic(&file.path, text.as_bytes())
        .map_err(|e| ActionError::new(format!("cannot write {}: {e}", file.path.display())))?;
    let summary = match previous {
        Some(_) => format!("Replaced the profile {}.", file.path.display()),
        None => format!("Created the profile {}.", file.path.display()),
    };
    Ok(json_with(
        summary,
        json!({
            "mode": "replace",
            "file": file.name,
            "path": file.path,
            "bytes": text.len(),
            "previousBytes": previous,
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changes(pairs: Value) -> Map<String, Value> {
        pairs.as_object().cloned().unwrap_or_default()
    }

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn appearance_is_merged_and_every_other_byte_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let before = "{\n  \"general\": {\n    \"finchHomeDir\": \"/x\"\n  },\n  \"appearance\": {\n    \"theme\": \"light\",\n    \"density\": \"compact\"\n  },\n  \"zeta\": [\n    1.5,\n    null\n  ]\n}\n";
        std::fs::write(&path, before).unwrap();
        let (saved, changed) =
            write_appearance(&path, &changes(json!({"theme": "dark"})), SECOND).unwrap();
        assert!(changed);
        assert_eq!(
            Value::Object(saved),
            json!({"theme": "dark", "density": "compact"})
        );
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            before.replace("\"light\"", "\"dark\"")
        );
    }

    #[test]
    fn appearance_cases() {
        // (file before, changes, file after or None when the call fails and the file stays)
        let cases: &[(Option<&str>, Value, Option<&str>)] = &[
            (
                None,
                json!({"theme": "system"}),
                Some("{\n  \"appearance\": {\n    \"theme\": \"system\"\n  }\n}\n"),
            ),
            (
                Some("{\"a\":1}"),
                json!({"fontSize": 14, "accentColor": "#112233"}),
                Some(
                    "{\n  \"a\": 1,\n  \"appearance\": {\n    \"fontSize\": 14,\n    \"accentColor\": \"#112233\"\n  }\n}\n",
                ),
            ),
            (
                Some("{\"appearance\": \"dark\"}"),
                json!({"theme": "dark"}),
                None,
            ),
            (Some("{\"appearance\": {"), json!({"theme": "dark"}), None),
            (Some("[1, 2]"), json!({"theme": "dark"}), None),
        ];
        for (before, change, after) in cases {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("config").join("settings.json");
            if let Some(text) = before {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, text).unwrap();
            }
            let result = write_appearance(&path, &changes(change.clone()), SECOND);
            match after {
                Some(want) => {
                    assert!(result.is_ok(), "{before:?}: {result:?}");
                    assert_eq!(&std::fs::read_to_string(&path).unwrap(), want);
                }
                None => {
                    let err = result.unwrap_err();
                    assert!(err.message.contains("settings.json"), "{before:?}: {err:?}");
                    assert_eq!(
                        std::fs::read_to_string(&path).ok().as_deref(),
                        *before,
                        "unchanged"
                    );
                }
            }
        }
    }

    #[test]
    fn an_unchanged_appearance_is_not_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        // Not in finch's own layout: a rewrite would show.
        let before = "{\"appearance\":{\"theme\":\"dark\"}}";
        std::fs::write(&path, before).unwrap();
        let (_, changed) =
            write_appearance(&path, &changes(json!({"theme": "dark"})), SECOND).unwrap();
        assert!(!changed);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    }

    #[test]
    fn corrupt_settings_name_line_and_column_and_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{\n  \"a\": ,\n}\n").unwrap();
        let err = write_appearance(&path, &changes(json!({"theme": "dark"})), SECOND).unwrap_err();
        assert!(err.message.contains("line 2"), "{err:?}");
        assert!(err.message.contains("unchanged"), "{err:?}");
        assert!(err.hints[0].contains("finch doctor --state"), "{err:?}");
    }

    #[test]
    fn every_action_has_a_schema_that_accepts_its_example() {
        for action in AppCallSuite.actions() {
            let schema = crate::host::schema::Schema::compile(&action.params);
            let mut example = action.example.as_object().cloned().unwrap();
            assert_eq!(example.remove("action"), Some(Value::from(action.name)));
            assert!(
                schema.check(&Value::Object(example)).is_ok(),
                "{}",
                action.name
            );
        }
    }
}
