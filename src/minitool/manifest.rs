//! Mini tool manifests (SPEC §3.1): finding one in a directory, merging `finch.json` with
//! `package.json`, and checking every field, each problem marked fatal (the package cannot be
//! installed or run) or a warning. Reading a manifest never executes anything in the package.

use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};

use super::id::{self, IdError};
use crate::store::{JsonError, read_json_as, read_json_object};

pub const FINCH_JSON: &str = "finch.json";
pub const PACKAGE_JSON: &str = "package.json";
const DEFAULT_MAIN: &str = "dist/index.js";

/// A loaded manifest: the merged fields plus what came from `package.json`.
#[derive(Debug, Clone)]
pub struct Manifest {
    pub dir: PathBuf,
    /// `finch.json`, or `package.json` when the manifest is its `finch` object.
    pub file: PathBuf,
    pub fields: Map<String, Value>,
    pub package_name: Option<String>,
    pub version: Option<String>,
}

/// How bad a problem is: fatal stops `add` and fails `doctor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Fatal,
    Warning,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    pub severity: Severity,
    pub message: String,
    /// The official CLI's wording of the same problem, where scripts (and the official CLI's own
    /// tests) match on it; `doctor` prints it after finch's message.
    pub official: Option<String>,
}

impl Issue {
    fn fatal(message: impl Into<String>) -> Issue {
        Issue {
            severity: Severity::Fatal,
            message: message.into(),
            official: None,
        }
    }

    fn warning(message: impl Into<String>) -> Issue {
        Issue {
            severity: Severity::Warning,
            message: message.into(),
            official: None,
        }
    }

    fn official(mut self, wording: impl Into<String>) -> Issue {
        self.official = Some(wording.into());
        self
    }

    /// The line `doctor` prints: finch's message, then the official wording in parentheses.
    pub fn text(&self) -> String {
        match &self.official {
            Some(o) => format!("{} ({o})", self.message),
            None => self.message.clone(),
        }
    }
}

/// Whether `dir` holds a mini tool, without parsing anything beyond `package.json`.
pub fn is_minitool_dir(dir: &Path) -> bool {
    if dir.join(FINCH_JSON).is_file() {
        return true;
    }
    matches!(
        read_json_as::<PackageJson>(&dir.join(PACKAGE_JSON)),
        Ok(Some(PackageJson {
            finch: Some(Value::Object(_)),
            ..
        }))
    )
}

/// The parts of `package.json` a manifest uses; everything else in the file is skipped unread.
#[derive(Debug, Default, serde::Deserialize)]
struct PackageJson {
    name: Option<Value>,
    version: Option<Value>,
    #[serde(rename = "displayName")]
    display_name: Option<Value>,
    main: Option<Value>,
    description: Option<Value>,
    finch: Option<Value>,
}

/// Loads the manifest of `dir`; `Ok(None)` when the directory is not a mini tool.
pub fn load(dir: &Path) -> Result<Option<Manifest>, JsonError> {
    let package: Option<PackageJson> = read_json_as(&dir.join(PACKAGE_JSON))?;
    let finch_json_path = dir.join(FINCH_JSON);
    let mut package = package.unwrap_or_default();
    let (mut fields, file) = match read_json_object(&finch_json_path)? {
        Some(f) => (f, finch_json_path),
        None => match package.finch.take() {
            Some(Value::Object(f)) => (f, dir.join(PACKAGE_JSON)),
            _ => return Ok(None),
        },
    };
    let string = |v: &Option<Value>| v.as_ref().and_then(Value::as_str).map(str::to_string);
    let package_name = string(&package.name).filter(|n| !n.trim().is_empty());
    let version = string(&package.version).or_else(|| string(&fields.get("version").cloned()));
    // Missing manifest fields come from package.json.
    for (field, from) in [
        ("id", package.name),
        ("name", package.display_name),
        ("main", package.main),
        ("description", package.description),
    ] {
        if let Some(v) = from
            && !fields.contains_key(field)
        {
            fields.insert(field.to_string(), v);
        }
    }
    Ok(Some(Manifest {
        dir: dir.to_path_buf(),
        file,
        fields,
        package_name,
        version,
    }))
}

impl Manifest {
    /// The runtime id of SPEC §3.2.
    pub fn runtime_id(&self) -> Result<String, IdError> {
        let finch_id = self.fields.get("id").and_then(Value::as_str);
        id::derive_id(self.package_name.as_deref(), finch_id)
    }

    /// The name people see: `displayName`, else `name`, else the id.
    pub fn display_name(&self) -> String {
        ["displayName", "name"]
            .iter()
            .find_map(|k| self.fields.get(*k).and_then(localized))
            .or_else(|| self.runtime_id().ok())
            .unwrap_or_else(|| self.dir_name())
    }

    pub fn description(&self) -> Option<String> {
        self.fields.get("description").and_then(localized)
    }

    /// The entry module, relative to the package: `main`, else `dist/index.js`.
    pub fn main(&self) -> String {
        self.fields
            .get("main")
            .and_then(Value::as_str)
            .filter(|m| !m.trim().is_empty())
            .unwrap_or(DEFAULT_MAIN)
            .to_string()
    }

    pub fn permissions(&self) -> Option<&Map<String, Value>> {
        self.fields.get("permissions").and_then(Value::as_object)
    }

    /// Whether `contributes.tools` declares tools.
    pub fn declares_tools(&self) -> bool {
        self.fields
            .get("contributes")
            .and_then(|c| c.get("tools"))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    fn dir_name(&self) -> String {
        self.dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// Every problem with the manifest, fatal ones first.
    pub fn check(&self) -> Vec<Issue> {
        let mut issues = Vec::new();
        check_fields(self, &mut issues);
        issues.sort_by_key(|i| i.severity);
        issues
    }
}

/// A display string: a plain string, or `{default, en-US, zh-CN, zh-HK}`.
pub fn localized(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Object(m) => ["default", "en-US"]
            .iter()
            .find_map(|k| m.get(*k).and_then(Value::as_str))
            .or_else(|| m.values().find_map(Value::as_str))
            .map(str::to_string),
        _ => None,
    }
}

const LOCALES: [&str; 4] = ["default", "en-US", "zh-CN", "zh-HK"];
const PERMISSION_KEYS: [&str; 14] = [
    "filesystem",
    "network",
    "shell",
    "sessions",
    "artifacts",
    "collaboration",
    "appearance",
    "destructiveInteractions",
    "sessionInteractions",
    "sessionWaits",
    "agentEvents",
    "secrets",
    "oauth",
    "clipboard",
];
const SETTING_TYPES: [&str; 6] = [
    "string",
    "number",
    "boolean",
    "select",
    "multiselect",
    "list",
];

fn check_fields(m: &Manifest, issues: &mut Vec<Issue>) {
    let f = &m.fields;
    // Optional, as in the official CLI (its own fixtures omit it); only another value is fatal.
    if let Some(v) = f.get("manifestVersion")
        && v.as_u64() != Some(1)
    {
        issues.push(Issue::fatal(format!(
            "manifestVersion must be 1 (found {v})"
        )));
    }
    if let Some(v) = f.get("minVersion") {
        let full = v.as_str().is_some_and(|s| {
            nodejs_semver::Version::parse(s).is_ok()
                && !s.trim_start().starts_with(['^', '~', '>', '<', '='])
        });
        if !full {
            issues.push(Issue::fatal(format!(
                "minVersion must be a full version such as \"1.4.0\", not a range (found {v})"
            )));
        }
    }
    if let Some(v) = f.get("id") {
        match v.as_str() {
            Some(s) if id::is_valid_manifest_id(s) => {}
            // A scoped package name filled in as the id is checked by the runtime id below.
            Some(s) if m.package_name.as_deref() == Some(s) => {}
            _ => issues.push(Issue::fatal(format!(
                "id {v} is invalid (it must match ^[a-zA-Z0-9][a-zA-Z0-9._-]*$)"
            ))),
        }
    }
    match m.runtime_id() {
        Ok(runtime) => {
            if let (Some(_), Some(manifest_id)) = (
                &m.package_name,
                f.get("id")
                    .and_then(Value::as_str)
                    .filter(|i| Some(*i) != m.package_name.as_deref()),
            ) && manifest_id != runtime
            {
                issues.push(Issue::warning(format!(
                    "id \"{manifest_id}\" differs from the runtime id \"{runtime}\" derived from the package name; the package name wins"
                )));
            }
        }
        Err(e) => issues.push(Issue::fatal(e.to_string())),
    }
    for key in ["name", "displayName", "description", "systemPrompt"] {
        check_localized(f, key, issues);
    }
    check_main(m, issues);
    if let Some(v) = f.get("activationEvents") {
        match v.as_array() {
            Some(events) if events.iter().all(Value::is_string) => {
                for e in events.iter().filter_map(Value::as_str) {
                    if e != "onStartup" {
                        issues.push(Issue::warning(format!(
                            "activationEvents: unknown event \"{e}\" (known: onStartup)"
                        )));
                    }
                }
            }
            _ => issues.push(Issue::fatal("activationEvents must be an array of strings")),
        }
    }
    if let Some(c) = f.get("contributes") {
        match c.as_object() {
            Some(c) => check_contributes(c, issues),
            None => issues.push(Issue::warning("contributes should be an object")),
        }
    }
    if let Some(p) = f.get("permissions") {
        match p.as_object() {
            Some(p) => check_permissions(p, issues),
            None => issues.push(Issue::fatal("permissions must be an object")),
        }
    }
    if let Some(s) = f.get("settings") {
        check_settings(s, issues);
    }
    for key in ["provides", "requires"] {
        if let Some(v) = f.get(key) {
            let ok = v
                .get("capabilities")
                .and_then(Value::as_array)
                .is_some_and(|a| a.iter().all(Value::is_string));
            if !ok {
                issues.push(Issue::warning(format!(
                    "{key} should be {{\"capabilities\": [\"…\"]}}"
                )));
            }
        }
    }
    let kind = f.get("miniToolType").or_else(|| f.get("extensionType"));
    if let Some(k) = kind
        && !matches!(k.as_str(), Some("official" | "community" | "local"))
    {
        issues.push(Issue::warning(format!(
            "miniToolType {k} is not one of official, community, local"
        )));
    }
    if let Some(c) = f.get("categories")
        && !c.as_array().is_some_and(|a| a.iter().all(Value::is_string))
    {
        issues.push(Issue::warning("categories should be an array of strings"));
    }
    for key in ["privacyPolicyUrl", "termsOfServiceUrl"] {
        if let Some(v) = f.get(key)
            && !v.is_string()
        {
            issues.push(Issue::fatal(format!("{key} must be a string")));
        }
    }
    if let Some(v) = f.get("autoEnable")
        && !v.is_boolean()
    {
        issues.push(Issue::warning("autoEnable should be true or false"));
    }
    if let Some(v) = f.get("toolMeta")
        && !v.get("name").is_some_and(Value::is_string)
    {
        issues.push(Issue::warning("toolMeta.name should be a string"));
    }
}

fn check_localized(f: &Map<String, Value>, key: &str, issues: &mut Vec<Issue>) {
    match f.get(key) {
        None | Some(Value::String(_)) => {}
        Some(Value::Object(m)) => {
            for (locale, v) in m {
                if !v.is_string() {
                    issues.push(Issue::fatal(format!("{key}.{locale} must be a string")));
                } else if !LOCALES.contains(&locale.as_str()) {
                    issues.push(Issue::warning(format!(
                        "{key}: unknown locale \"{locale}\" (known: {})",
                        LOCALES.join(", ")
                    )));
                }
            }
        }
        Some(_) => issues.push(Issue::fatal(format!(
            "{key} must be a string or an object of locale strings"
        ))),
    }
}

fn check_main(m: &Manifest, issues: &mut Vec<Issue>) {
    if let Some(v) = m.fields.get("main")
        && !v.is_string()
    {
        issues.push(Issue::fatal("main must be a string"));
        return;
    }
    let main = m.main();
    let inside = Path::new(&main)
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if !inside {
        issues.push(Issue::fatal(format!(
            "main \"{main}\" must be a path inside the package"
        )));
    } else if !m.dir.join(&main).is_file() {
        issues.push(Issue::fatal(format!(
            "entry file not found: {main} (build the mini tool first)"
        )));
    }
}

fn check_contributes(c: &Map<String, Value>, issues: &mut Vec<Issue>) {
    for key in ["tools", "skills"] {
        if let Some(v) = c.get(key)
            && !v.is_boolean()
        {
            issues.push(Issue::warning(format!(
                "contributes.{key} should be true or false"
            )));
        }
    }
    if let Some(v) = c.get("settingsMenu")
        && !v.is_object()
    {
        issues.push(Issue::warning(
            "contributes.settingsMenu should be an object",
        ));
    }
    let items_need = |key: &str, required: &[&str], issues: &mut Vec<Issue>| {
        let Some(v) = c.get(key) else { return };
        let Some(items) = v.as_array() else {
            issues.push(Issue::fatal(format!("contributes.{key} must be an array")));
            return;
        };
        for (i, item) in items.iter().enumerate() {
            for field in required {
                if item
                    .get(*field)
                    .and_then(Value::as_str)
                    .is_none_or(str::is_empty)
                {
                    issues.push(Issue::fatal(format!(
                        "contributes.{key}[{i}] needs a \"{field}\" string"
                    )));
                }
            }
        }
    };
    items_need("composerActions", &["id"], issues);
    items_need("iconPacks", &["id"], issues);
    items_need("sessionContainers", &["id"], issues);
    items_need("agentProfiles", &["id", "prompt"], issues);
    if let Some(containers) = c.get("sessionContainers").and_then(Value::as_array) {
        for (i, item) in containers.iter().enumerate() {
            if let Some(mode) = item.get("mode")
                && !matches!(mode.as_str(), Some("inbox" | "assistant"))
            {
                issues.push(Issue::warning(format!(
                    "contributes.sessionContainers[{i}].mode {mode} is not inbox or assistant"
                )));
            }
        }
    }
    if let Some(v) = c.get("icons") {
        match v.as_object() {
            Some(icons) => {
                for (name, icon) in icons {
                    if !icon.get("svg").is_some_and(Value::is_string) {
                        issues.push(Issue::fatal(format!(
                            "contributes.icons.{name} needs an \"svg\" string"
                        )));
                    }
                }
            }
            None => issues.push(Issue::fatal("contributes.icons must be an object")),
        }
    }
    if let Some(v) = c.get("mcpServers")
        && !v.is_array()
    {
        issues.push(Issue::fatal("contributes.mcpServers must be an array"));
    }
}

fn check_permissions(p: &Map<String, Value>, issues: &mut Vec<Issue>) {
    for (key, value) in p {
        match key.as_str() {
            "filesystem" => match value.as_str() {
                Some("none" | "read" | "readwrite") => {}
                Some("write") => issues.push(Issue::warning(
                    "permissions.filesystem \"write\" is not a level; use \"readwrite\"",
                )),
                Some("readonly") => issues.push(Issue::warning(
                    "permissions.filesystem \"readonly\" is not a level; use \"read\"",
                )),
                _ => issues.push(Issue::warning(format!(
                    "permissions.filesystem {value} is not one of none, read, readwrite"
                ))),
            },
            "destructiveInteractions" if !value.is_boolean() => issues.push(Issue::warning(
                "permissions.destructiveInteractions should be true or false",
            )),
            "sessionInteractions" | "sessionWaits"
                if !(value.is_boolean() || value.as_str() == Some("all")) =>
            {
                issues.push(
                    Issue::warning(format!(
                        "permissions.{key} should be true, false or \"all\""
                    ))
                    .official(format!("finch.permissions.{key} 应为 boolean 或 'all'")),
                )
            }
            "agentEvents" if value.as_str() != Some("full") => {
                issues.push(Issue::warning("permissions.agentEvents should be \"full\""))
            }
            "secrets" => check_secrets(value, issues),
            "oauth"
                if !value
                    .as_array()
                    .is_some_and(|a| a.iter().all(Value::is_string)) =>
            {
                issues.push(Issue::warning(
                    "permissions.oauth should be an array of provider ids",
                ))
            }
            k if PERMISSION_KEYS.contains(&k) => {}
            _ => issues.push(
                Issue::warning(format!("unknown permission \"{key}\""))
                    .official(format!("finch.permissions.{key} 不是已知权限位")),
            ),
        }
    }
}

fn check_secrets(value: &Value, issues: &mut Vec<Issue>) {
    let Some(keys) = value.as_array() else {
        issues.push(Issue::fatal("permissions.secrets must be an array of keys"));
        return;
    };
    for key in keys {
        let Some(k) = key.as_str() else {
            issues.push(Issue::fatal(format!(
                "permissions.secrets entry {key} must be a string"
            )));
            continue;
        };
        let stars = k.matches('*').count();
        let ok = stars == 0 || (stars == 1 && k.ends_with(".*") && k.len() > 2);
        if !ok {
            issues.push(
                Issue::fatal(format!(
                    "permissions.secrets \"{k}\": use exact keys or a \"prefix.*\" pattern; a bare or mid-string wildcard is not allowed"
                ))
                .official(format!("finch.permissions.secrets: {k} 仅允许精确 key 或末尾 .* 前缀")),
            );
        }
    }
}

fn check_settings(s: &Value, issues: &mut Vec<Issue>) {
    let Some(fields) = s.get("fields") else {
        issues.push(Issue::warning("settings should be {\"fields\": [...]}"));
        return;
    };
    let Some(fields) = fields.as_array() else {
        issues.push(Issue::fatal("settings.fields must be an array"));
        return;
    };
    for (i, field) in fields.iter().enumerate() {
        if !field.get("key").is_some_and(Value::is_string) {
            issues.push(Issue::fatal(format!(
                "settings.fields[{i}] needs a \"key\" string"
            )));
        }
        match field.get("type").and_then(Value::as_str) {
            Some(t) if SETTING_TYPES.contains(&t) => {}
            _ => issues.push(Issue::warning(format!(
                "settings.fields[{i}].type should be one of {}",
                SETTING_TYPES.join(", ")
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn manifest(fields: Value, files: &[&str]) -> (tempfile::TempDir, Manifest) {
        let dir = tempfile::tempdir().unwrap();
        let pkg = json!({"name": "demo", "version": "1.0.0", "finch": fields});
        std::fs::write(dir.path().join("package.json"), pkg.to_string()).unwrap();
        for f in files {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "export function activate() {}").unwrap();
        }
        let m = load(dir.path()).unwrap().unwrap();
        (dir, m)
    }

    fn messages(fields: Value) -> Vec<(Severity, String)> {
        let (_d, m) = manifest(fields, &["dist/index.js"]);
        m.check()
            .into_iter()
            .map(|i| (i.severity, i.message))
            .collect()
    }

    #[test]
    fn a_minimal_manifest_is_clean() {
        assert_eq!(messages(json!({"manifestVersion": 1})), vec![]);
    }

    #[test]
    fn a_manifest_without_manifest_version_is_clean() {
        assert_eq!(messages(json!({})), vec![]);
    }

    #[test]
    fn field_checks() {
        use Severity::*;
        let cases: Vec<(Value, Severity, &str)> = vec![
            (
                json!({"manifestVersion": 2}),
                Fatal,
                "manifestVersion must be 1",
            ),
            (
                json!({"manifestVersion": 1, "minVersion": "^1.2.0"}),
                Fatal,
                "minVersion must be a full version",
            ),
            (
                json!({"manifestVersion": 1, "minVersion": "1.2"}),
                Fatal,
                "minVersion must be a full version",
            ),
            (
                json!({"manifestVersion": 1, "id": "bad id"}),
                Fatal,
                "id \"bad id\" is invalid",
            ),
            (
                json!({"manifestVersion": 1, "main": "lib/missing.js"}),
                Fatal,
                "entry file not found: lib/missing.js (build the mini tool first)",
            ),
            (
                json!({"manifestVersion": 1, "main": "../outside.js"}),
                Fatal,
                "must be a path inside the package",
            ),
            (
                json!({"manifestVersion": 1, "contributes": []}),
                Warning,
                "contributes should be an object",
            ),
            (
                json!({"manifestVersion": 1, "contributes": {"mcpServers": {}}}),
                Fatal,
                "contributes.mcpServers must be an array",
            ),
            (
                json!({"manifestVersion": 1, "contributes": {"composerActions": [{"icon": "x"}]}}),
                Fatal,
                "contributes.composerActions[0] needs a \"id\" string",
            ),
            (
                json!({"manifestVersion": 1, "contributes": {"agentProfiles": [{"id": "a"}]}}),
                Fatal,
                "contributes.agentProfiles[0] needs a \"prompt\" string",
            ),
            (
                json!({"manifestVersion": 1, "contributes": {"icons": {"x": {}}}}),
                Fatal,
                "contributes.icons.x needs an \"svg\" string",
            ),
            (
                json!({"manifestVersion": 1, "contributes": {"sessionContainers": [{"id": "c", "mode": "chat"}]}}),
                Warning,
                "mode \"chat\" is not inbox or assistant",
            ),
            (
                json!({"manifestVersion": 1, "permissions": {"filesystem": "write"}}),
                Warning,
                "use \"readwrite\"",
            ),
            (
                json!({"manifestVersion": 1, "permissions": {"filesystem": "readonly"}}),
                Warning,
                "use \"read\"",
            ),
            (
                json!({"manifestVersion": 1, "permissions": {"teleport": true}}),
                Warning,
                "unknown permission \"teleport\"",
            ),
            (
                json!({"manifestVersion": 1, "permissions": {"secrets": ["*"]}}),
                Fatal,
                "a bare or mid-string wildcard",
            ),
            (
                json!({"manifestVersion": 1, "permissions": {"secrets": ["a.*.b"]}}),
                Fatal,
                "a bare or mid-string wildcard",
            ),
            (
                json!({"manifestVersion": 1, "miniToolType": "premium"}),
                Warning,
                "miniToolType \"premium\"",
            ),
            (
                json!({"manifestVersion": 1, "privacyPolicyUrl": 3}),
                Fatal,
                "privacyPolicyUrl must be a string",
            ),
            (
                json!({"manifestVersion": 1, "name": 5}),
                Fatal,
                "name must be a string or an object",
            ),
            (
                json!({"manifestVersion": 1, "settings": {"fields": [{"type": "color"}]}}),
                Fatal,
                "settings.fields[0] needs a \"key\" string",
            ),
            (
                json!({"manifestVersion": 1, "activationEvents": ["onCommand"]}),
                Warning,
                "unknown event \"onCommand\"",
            ),
        ];
        for (fields, severity, needle) in cases {
            let got = messages(fields.clone());
            assert!(
                got.iter()
                    .any(|(s, m)| *s == severity && m.contains(needle)),
                "{fields} → {got:?}, wanted {severity:?} containing {needle:?}"
            );
        }
    }

    #[test]
    fn secrets_patterns_that_are_fine() {
        let got = messages(
            json!({"manifestVersion": 1, "permissions": {"secrets": ["api.key", "github.*"]}}),
        );
        assert_eq!(got, vec![]);
    }

    #[test]
    fn finch_json_is_filled_from_package_json() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"name":"@acme/tool","version":"2.0.0","displayName":"Acme Tool","main":"index.js","description":"d"}"#,
        )
        .unwrap();
        std::fs::write(dir.path().join("finch.json"), r#"{"manifestVersion":1}"#).unwrap();
        std::fs::write(dir.path().join("index.js"), "export function activate(){}").unwrap();
        let m = load(dir.path()).unwrap().unwrap();
        assert_eq!(m.runtime_id().unwrap(), "acme@tool");
        assert_eq!(m.display_name(), "Acme Tool");
        assert_eq!(m.main(), "index.js");
        assert_eq!(m.version.as_deref(), Some("2.0.0"));
        assert_eq!(m.description().as_deref(), Some("d"));
        assert_eq!(m.check(), vec![]);
    }

    #[test]
    fn package_json_without_finch_is_not_a_minitool() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("package.json"), r#"{"name":"x"}"#).unwrap();
        assert!(load(dir.path()).unwrap().is_none());
        assert!(!is_minitool_dir(dir.path()));
    }

    #[test]
    fn localized_names() {
        assert_eq!(
            localized(&json!({"zh-CN": "天气", "en-US": "Weather"})).as_deref(),
            Some("Weather")
        );
        assert_eq!(
            localized(&json!({"zh-CN": "天气"})).as_deref(),
            Some("天气")
        );
        assert_eq!(localized(&json!(3)), None);
    }
}
