//! `finch new`'s package: what a fresh mini tool holds for each template, rendered in memory
//! (`render`) and written into an empty directory (`write`). The package builds with esbuild
//! (`npm run build`), passes `finch doctor`, and passes its own `finch.test.json` as written.
//! Nothing here runs npm or node; the caller says what to do next.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::AuthoringError;
use crate::minitool::id;

/// The esbuild the scaffold's `package.json` asks for (`^` this). `scripts/install-test-peers`
/// pins the same version, so the tests install it offline from the peers' npm cache.
pub const ESBUILD_VERSION: &str = "0.28.2";

const FINCH_D_TS: &str = include_str!("templates/finch.d.ts");
const TOOL_TS: &str = include_str!("templates/tool.ts");
const MCP_TS: &str = include_str!("templates/mcp.ts");
const SKILL_MD: &str = include_str!("templates/SKILL.md");
const README_MD: &str = include_str!("templates/README.md");
const GITIGNORE: &str = include_str!("templates/gitignore");

/// What kind of mini tool to start from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Template {
    /// One tool with a JSON Schema.
    Tool,
    /// A tool that uses the host's MCP client (`requires.capabilities: ["mcp.client"]`).
    Mcp,
    /// The tool, plus a skill the agent reads (`skills/<id>/SKILL.md`).
    Skill,
}

/// What the author chose.
#[derive(Debug, Clone)]
pub struct NewPackage {
    /// The runtime id; the npm package name follows from it (`scope@name` → `@scope/name`).
    pub id: String,
    /// The display name.
    pub name: String,
    pub template: Template,
}

/// One file of the package, path relative to its root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    pub path: String,
    pub text: String,
}

/// The id `finch new <dir>` uses without `--id`: the directory's name, lower-cased.
pub fn default_id(dir: &Path) -> Option<String> {
    dir.file_name()
        .and_then(|n| n.to_str())
        .map(str::to_lowercase)
}

/// Checks an id as `finch add` checks the runtime id, and that npm accepts the package name
/// it becomes (lower case).
pub fn check_id(id: &str) -> Result<(), AuthoringError> {
    id::validate_runtime_id(id).map_err(|e| AuthoringError::BadId {
        id: id.to_string(),
        why: e.to_string(),
    })?;
    if id.chars().any(|c| c.is_ascii_uppercase()) {
        return Err(AuthoringError::BadId {
            id: id.to_string(),
            why: "npm package names are lower case".into(),
        });
    }
    Ok(())
}

/// The npm package name of an id: `scope@name` → `@scope/name`.
pub fn package_name(id: &str) -> String {
    match id.split_once('@') {
        Some((scope, name)) => format!("@{scope}/{name}"),
        None => id.to_string(),
    }
}

/// A display name from an id: `acme@weather-now` → `Weather Now`.
pub fn default_name(id: &str) -> String {
    let base = id.rsplit('@').next().unwrap_or(id);
    base.split(['-', '_', '.'])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(first) => first.to_uppercase().chain(c).collect::<String>(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every file of the package.
pub fn render(p: &NewPackage) -> Vec<File> {
    let fill = |text: &str| text.replace("__ID__", &p.id).replace("__NAME__", &p.name);
    let entry = match p.template {
        Template::Tool | Template::Skill => TOOL_TS,
        Template::Mcp => MCP_TS,
    };
    let mut files = vec![
        file("package.json", pretty(&package_json(p))),
        file("src/index.ts", entry.to_string()),
        file("src/finch.d.ts", FINCH_D_TS.to_string()),
        file("finch.test.json", pretty(&test_json(p.template))),
        file(".gitignore", GITIGNORE.to_string()),
        file("README.md", fill(README_MD)),
    ];
    if p.template == Template::Skill {
        files.push(file(
            &format!("skills/{}/SKILL.md", skill_dir(&p.id)),
            fill(SKILL_MD),
        ));
    }
    files
}

/// Writes the package into `dir`, which must not exist or be empty. Every file goes into a
/// staging directory beside `dir` first, which is then renamed into place (or its files moved
/// into the empty `dir`), so a failure leaves nothing behind.
pub fn write(dir: &Path, files: &[File]) -> Result<Vec<PathBuf>, AuthoringError> {
    let io = |what: &str, path: &Path, e: std::io::Error| AuthoringError::Io {
        what: format!("{what} {}", path.display()),
        source: e,
    };
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(AuthoringError::NotEmpty(dir.to_path_buf()));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            return Err(AuthoringError::NotEmpty(dir.to_path_buf()));
        }
        Err(e) => return Err(io("read", dir, e)),
    }
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| io("create", parent, e))?;
    let staging = tempfile::Builder::new()
        .prefix(".finch-new-")
        .tempdir_in(parent)
        .map_err(|e| io("create a staging directory in", parent, e))?;
    let mut written = Vec::new();
    for f in files {
        let path = staging.path().join(&f.path);
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d).map_err(|e| io("create", d, e))?;
        }
        std::fs::write(&path, &f.text).map_err(|e| io("write", &path, e))?;
        written.push(dir.join(&f.path));
    }
    if dir.exists() {
        // An empty directory the author made: move the files in.
        let entries =
            std::fs::read_dir(staging.path()).map_err(|e| io("read", staging.path(), e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io("read", staging.path(), e))?;
            let to = dir.join(entry.file_name());
            std::fs::rename(entry.path(), &to).map_err(|e| io("move into", &to, e))?;
        }
    } else {
        let staged = staging.keep();
        if let Err(e) = std::fs::rename(&staged, dir) {
            let _ = std::fs::remove_dir_all(&staged);
            return Err(io("create", dir, e));
        }
    }
    Ok(written)
}

fn file(path: &str, text: String) -> File {
    File {
        path: path.to_string(),
        text,
    }
}

fn pretty(value: &Value) -> String {
    crate::store::to_pretty_json(value)
}

/// A skill's directory name: the id without its scope.
fn skill_dir(id: &str) -> &str {
    id.rsplit('@').next().unwrap_or(id)
}

fn package_json(p: &NewPackage) -> Value {
    let mut files = vec![json!("dist")];
    let mut contributes = json!({"tools": true});
    let mut manifest = json!({
        "manifestVersion": 1,
        "displayName": p.name,
        "description": format!("{}: a Finch mini tool", p.name),
        // The least rights: this tool reads no file, opens no connection and runs no command.
        "permissions": {"filesystem": "none", "network": false, "shell": false},
    });
    match p.template {
        Template::Tool => {}
        Template::Mcp => {
            manifest["requires"] = json!({"capabilities": ["mcp.client"]});
        }
        Template::Skill => {
            files.push(json!("skills"));
            contributes["skills"] = json!(true);
        }
    }
    manifest["contributes"] = contributes;
    json!({
        "name": package_name(&p.id),
        "version": "0.1.0",
        "description": format!("{}: a Finch mini tool", p.name),
        "type": "module",
        "main": "dist/index.js",
        "files": files,
        "keywords": ["finch-mini-tool"],
        "scripts": {
            "build": "esbuild src/index.ts --bundle --platform=node --format=esm --target=node20 --sourcemap --outfile=dist/index.js",
            "test": "finch test"
        },
        "devDependencies": {"esbuild": format!("^{ESBUILD_VERSION}")},
        "finch": manifest,
    })
}

fn test_json(template: Template) -> Value {
    let cases = match template {
        Template::Tool | Template::Skill => json!([
            {
                "name": "greets by name",
                "tool": "greet",
                "args": {"name": "Ada"},
                "expect": {"equals": "Hello, Ada!", "structuredContent": {"length": 3}}
            },
            {
                "name": "needs a name",
                "tool": "greet",
                "args": {},
                "expect": {"isError": true, "contains": "name"}
            }
        ]),
        Template::Mcp => json!([
            {
                "name": "lists no servers in a fresh home",
                "tool": "mcp_servers",
                "expect": {"structuredContent": {"servers": []}, "contains": "No MCP servers"}
            },
            {
                "name": "takes no arguments",
                "tool": "mcp_servers",
                "args": {"extra": 1},
                "expect": {"isError": true}
            }
        ]),
    };
    json!({"cases": cases})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_ids_add_accepts() {
        for id in ["weather", "acme@weather", "a.b_c-1"] {
            assert!(check_id(id).is_ok(), "{id}");
        }
    }

    #[test]
    fn rejects_ids_add_rejects_and_upper_case() {
        for id in ["", "-x", "a/b", "@x", "a@b@c", "Weather", "../x"] {
            assert!(check_id(id).is_err(), "{id}");
        }
    }

    #[test]
    fn scoped_ids_become_scoped_package_names() {
        assert_eq!(package_name("acme@weather"), "@acme/weather");
        assert_eq!(package_name("weather"), "weather");
        assert_eq!(default_name("acme@weather-now"), "Weather Now");
    }

    #[test]
    fn the_pinned_esbuild_is_the_one_the_test_peers_install() {
        let script = include_str!("../../scripts/install-test-peers");
        assert!(
            script.contains(&format!("ESBUILD_VERSION={ESBUILD_VERSION}\n")),
            "scripts/install-test-peers must pin esbuild {ESBUILD_VERSION}"
        );
    }

    #[test]
    fn every_template_declares_least_rights_and_its_extras() {
        let p = |template| NewPackage {
            id: "acme@demo".into(),
            name: "Demo".into(),
            template,
        };
        let pkg = |t| -> Value {
            let files = render(&p(t));
            serde_json::from_str(&files[0].text).unwrap()
        };
        let tool = pkg(Template::Tool);
        assert_eq!(tool["name"], "@acme/demo");
        assert_eq!(
            tool["finch"]["permissions"],
            json!({"filesystem": "none", "network": false, "shell": false})
        );
        assert_eq!(
            pkg(Template::Mcp)["finch"]["requires"],
            json!({"capabilities": ["mcp.client"]})
        );
        let skill = render(&p(Template::Skill));
        assert!(skill.iter().any(|f| f.path == "skills/demo/SKILL.md"));
        assert_eq!(pkg(Template::Skill)["files"], json!(["dist", "skills"]));
    }
}
