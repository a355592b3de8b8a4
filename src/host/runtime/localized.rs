//! A mini tool's display strings in every locale it ships, as ToolSearch's search text for its
//! tools (`ToolDef::keywords`), so a tool registered in English is found by a Chinese query and
//! the other way round.
//!
//! A tool's search text is:
//! - the mini tool's own `name`/`displayName`/`description` in the manifest (a string or
//!   `{default, en-US, zh-CN, zh-HK}`) and `name`, `description`, `toolMeta.name` of every
//!   `i18n/<locale>.json`;
//! - for each string the tool registered with (title, description, its parameters'
//!   descriptions) that is a message of one of those files — what `ctx.i18n.t(key)` returned —
//!   the same key's message in every other locale.
//!
//! Strings equal to what the tool registered are left out (they are indexed already). The files
//! are read once per mini tool, at its first registration; a file that does not parse is skipped,
//! as `ctx.i18n` skips it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::{Map, Value};

/// The mini tool's strings: see the module docs.
#[derive(Debug)]
pub(crate) struct Localized {
    dir: PathBuf,
    /// From the manifest, known when the mini tool is loaded.
    manifest: Vec<String>,
    /// Every locale file's messages, nested keys flattened with `.`; read on first use.
    locales: OnceLock<Vec<Vec<(String, String)>>>,
}

/// The mini tool-level keys of a locale file.
const OWNER_KEYS: [&str; 3] = ["name", "description", "toolMeta.name"];

impl Localized {
    pub fn new(dir: &Path, fields: &Map<String, Value>) -> Localized {
        let mut manifest = Vec::new();
        for key in ["name", "displayName", "description"] {
            match fields.get(key) {
                Some(Value::String(s)) => manifest.push(s.clone()),
                Some(Value::Object(by_locale)) => manifest.extend(
                    by_locale
                        .values()
                        .filter_map(Value::as_str)
                        .map(str::to_string),
                ),
                _ => {}
            }
        }
        Localized {
            dir: dir.to_path_buf(),
            manifest,
            locales: OnceLock::new(),
        }
    }

    fn locales(&self) -> &[Vec<(String, String)>] {
        self.locales
            .get_or_init(|| read_locales(&self.dir.join("i18n")))
    }

    /// The search text of a tool that registered with `registered` strings.
    pub fn search_text(&self, registered: &[&str]) -> String {
        let locales = self.locales();
        let mut keys: Vec<&str> = OWNER_KEYS.to_vec();
        for locale in locales {
            for (key, message) in locale {
                if registered.iter().any(|r| !r.is_empty() && r == message)
                    && !keys.contains(&key.as_str())
                {
                    keys.push(key);
                }
            }
        }
        let mut text: Vec<&str> = Vec::new();
        let candidates = self
            .manifest
            .iter()
            .map(String::as_str)
            .chain(locales.iter().flat_map(|locale| {
                locale
                    .iter()
                    .filter(|(k, _)| keys.contains(&k.as_str()))
                    .map(|(_, m)| m.as_str())
            }));
        for s in candidates {
            let s = s.trim();
            if !s.is_empty() && !registered.contains(&s) && !text.contains(&s) {
                text.push(s);
            }
        }
        text.join("\n")
    }
}

/// Every `*.json` in `dir` that parses as an object, flattened, in file-name order.
fn read_locales(dir: &Path) -> Vec<Vec<(String, String)>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .filter_map(|f| crate::store::read_json_object(f).ok().flatten())
        .map(|messages| {
            let mut flat = Vec::new();
            flatten("", &messages, &mut flat);
            flat
        })
        .collect()
}

fn flatten(prefix: &str, map: &Map<String, Value>, out: &mut Vec<(String, String)>) {
    for (key, value) in map {
        let key = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match value {
            Value::String(s) => out.push((key, s.clone())),
            Value::Object(inner) => flatten(&key, inner, out),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn write(dir: &Path, name: &str, value: Value) {
        std::fs::create_dir_all(dir.join("i18n")).unwrap();
        std::fs::write(dir.join("i18n").join(name), value.to_string()).unwrap();
    }

    #[test]
    fn a_tool_gets_its_messages_in_every_locale_and_the_mini_tools_names() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "en-US.json",
            json!({"name": "Todo", "description": "Your to-do list",
                   "tool": {"add": {"title": "Add a to-do", "description": "Adds an item"}},
                   "toast": {"added": "Added"}}),
        );
        write(
            dir.path(),
            "zh-CN.json",
            json!({"name": "待办", "description": "个人待办清单",
                   "tool.add.title": "新增待办", "tool.add.description": "新增一项待办",
                   "toast.added": "已添加", "toolMeta": {"name": "待办工具"}}),
        );
        std::fs::write(dir.path().join("i18n/broken.json"), "{not json").unwrap();
        let fields = json!({"description": {"default": "Todo list", "zh-HK": "待辦清單"}});
        let l = Localized::new(dir.path(), fields.as_object().unwrap());
        let text = l.search_text(&["Add a to-do", "Adds an item"]);
        let lines: Vec<&str> = text.lines().collect();
        for expected in [
            "新增待办",
            "新增一项待办",
            "待办",
            "个人待办清单",
            "待办工具",
            "待辦清單",
            "Todo",
        ] {
            assert!(lines.contains(&expected), "{expected} missing: {lines:?}");
        }
        assert!(
            !lines.contains(&"Add a to-do"),
            "registered text is indexed already"
        );
        assert!(
            !lines.contains(&"已添加"),
            "another key's message: {lines:?}"
        );
    }

    #[test]
    fn no_locale_files_leaves_the_manifest_strings() {
        let dir = tempfile::tempdir().unwrap();
        let fields = json!({"name": "Weather", "description": "Forecasts"});
        let l = Localized::new(dir.path(), fields.as_object().unwrap());
        assert_eq!(l.search_text(&["Weather"]), "Forecasts");
    }
}
