//! Where finch's state lives: the runtime home (`~/.finch`) and the agent home (`~/finchnest`),
//! resolved once per process in the order of SPEC §1. This is the only module that knows the
//! variables and settings that move them; everything else asks a `Homes` for paths.

use std::path::{Component, Path, PathBuf};

use crate::env::Env;
use crate::store::{JsonError, read_json_object};

/// Which of the two install tiers a mini tool lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tier {
    /// `<agent>/.finch/extensions` — the default target of `add`.
    Personal,
    /// `<runtime>/extensions` — chosen with `-g/--global`.
    Global,
}

impl Tier {
    pub fn from_global_flag(global: bool) -> Tier {
        if global { Tier::Global } else { Tier::Personal }
    }

    pub fn name(self) -> &'static str {
        match self {
            Tier::Personal => "personal",
            Tier::Global => "global",
        }
    }
}

/// How the agent home was found, for `finch where`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentHomeSource {
    Flag,
    Env,
    Settings(PathBuf),
    Workspace(PathBuf),
    Default,
}

impl AgentHomeSource {
    pub fn describe(&self) -> String {
        match self {
            AgentHomeSource::Flag => "--agent-home".into(),
            AgentHomeSource::Env => "FINCH_AGENT_HOME".into(),
            AgentHomeSource::Settings(p) => format!("general.finchHomeDir in {}", p.display()),
            AgentHomeSource::Workspace(p) => format!("finchHomeDir in {}", p.display()),
            AgentHomeSource::Default => "default".into(),
        }
    }
}

/// Directories under `<runtime>/extension-data/` that finch reads configuration from, which no
/// mini tool's storage may be (`Homes::extension_data`).
const CONFIG_DIRS: [&str; 1] = ["mcp"];

/// The two roots, absolute.
#[derive(Debug, Clone)]
pub struct Homes {
    pub runtime: PathBuf,
    pub agent: PathBuf,
    pub agent_source: AgentHomeSource,
}

#[derive(Debug, thiserror::Error)]
pub enum HomesError {
    #[error(
        "cannot find the home directory (HOME is not set); pass --runtime-home and --agent-home"
    )]
    NoHomeDir,
    #[error(transparent)]
    Settings(#[from] JsonError),
}

impl Homes {
    /// Resolves both homes. Flags win over variables, variables over the app's settings files.
    pub fn resolve(
        runtime_flag: Option<&Path>,
        agent_flag: Option<&Path>,
        env: &Env,
        cwd: &Path,
    ) -> Result<Homes, HomesError> {
        let home = env.home_dir();
        let expand = |p: &Path| -> Result<PathBuf, HomesError> {
            Ok(absolutize(&expand_tilde(p, home.as_deref())?, cwd))
        };
        let runtime = match runtime_flag
            .map(Path::to_path_buf)
            .or_else(|| env.get_path("FINCH_RUNTIME_HOME"))
        {
            Some(p) => expand(&p)?,
            None => home.clone().ok_or(HomesError::NoHomeDir)?.join(".finch"),
        };

        let (agent, agent_source) = if let Some(p) = agent_flag {
            (expand(p)?, AgentHomeSource::Flag)
        } else if let Some(p) = env.get_path("FINCH_AGENT_HOME") {
            (expand(&p)?, AgentHomeSource::Env)
        } else if let Some((p, file)) = setting_home_dir(&runtime)? {
            (expand(&p)?, file)
        } else {
            let dev = runtime.file_name().is_some_and(|n| n == ".finch-dev");
            let name = if dev { "finchnest-dev" } else { "finchnest" };
            let base = home.ok_or(HomesError::NoHomeDir)?;
            (base.join(name), AgentHomeSource::Default)
        };
        Ok(Homes {
            runtime,
            agent,
            agent_source,
        })
    }

    pub fn tier_dir(&self, tier: Tier) -> PathBuf {
        match tier {
            Tier::Personal => self.agent.join(".finch").join("extensions"),
            Tier::Global => self.runtime.join("extensions"),
        }
    }

    pub fn extensions_json(&self) -> PathBuf {
        self.runtime.join("extensions.json")
    }

    /// A mini tool's private directory (`ctx.storagePath`): `<runtime>/extension-data/<id>`,
    /// except for an id that names a directory finch reads configuration from there (`mcp`,
    /// whose `servers.json` starts programs; compared without case, as a case-insensitive disk
    /// would): such a mini tool gets `extension-data/.minitool/<id>` instead, so that nothing it
    /// writes becomes finch's configuration. (No id starts with `.`.)
    pub fn extension_data(&self, id: &str) -> PathBuf {
        let data = self.runtime.join("extension-data");
        if CONFIG_DIRS.iter().any(|c| c.eq_ignore_ascii_case(id)) {
            return data.join(".minitool").join(id);
        }
        data.join(id)
    }

    /// The user's MCP servers (SPEC §9.2), in the directory the app's MCP mini tool keeps.
    pub fn mcp_servers_json(&self) -> PathBuf {
        self.runtime
            .join("extension-data")
            .join("mcp")
            .join("servers.json")
    }

    pub fn minitool_cache(&self) -> PathBuf {
        self.runtime.join("cache").join("minitools")
    }

    pub fn catalog_cache(&self) -> PathBuf {
        self.runtime.join("cache").join("catalog.json")
    }

    pub fn settings_json(&self) -> PathBuf {
        settings_json(&self.runtime)
    }

    pub fn workspace_json(&self) -> PathBuf {
        self.runtime.join("workspace.json")
    }

    pub fn finch_toml(&self) -> PathBuf {
        self.runtime.join("config").join("finch.toml")
    }

    pub fn tasks_json(&self) -> PathBuf {
        self.runtime.join("automation").join("tasks.json")
    }

    pub fn runs_dir(&self) -> PathBuf {
        self.runtime.join("automation").join("runs")
    }

    pub fn sessions_dir(&self) -> PathBuf {
        self.runtime.join("pi").join("sessions")
    }

    pub fn spaces_json(&self) -> PathBuf {
        self.runtime.join("spaces.json")
    }

    pub fn logs_dir(&self) -> PathBuf {
        self.runtime.join("logs")
    }

    pub fn memory_md(&self) -> PathBuf {
        self.agent.join("MEMORY.md")
    }

    pub fn memory_dir(&self) -> PathBuf {
        self.agent.join("memory")
    }
}

fn settings_json(runtime: &Path) -> PathBuf {
    runtime.join("config").join("settings.json")
}

/// `general.finchHomeDir` of settings.json, then `finchHomeDir` of workspace.json.
fn setting_home_dir(runtime: &Path) -> Result<Option<(PathBuf, AgentHomeSource)>, JsonError> {
    let settings = settings_json(runtime);
    if let Some(map) = read_json_object(&settings)? {
        let dir = map
            .get("general")
            .and_then(|g| g.get("finchHomeDir"))
            .and_then(|v| v.as_str())
            .filter(|s| !s.trim().is_empty());
        if let Some(dir) = dir {
            return Ok(Some((
                PathBuf::from(dir),
                AgentHomeSource::Settings(settings),
            )));
        }
    }
    let workspace = runtime.join("workspace.json");
    if let Some(map) = read_json_object(&workspace)? {
        let dir = map
            .get("finchHomeDir")
            .and_then(|v| v.as_str())
            .filter(|s| !s.trim().is_empty());
        if let Some(dir) = dir {
            return Ok(Some((
                PathBuf::from(dir),
                AgentHomeSource::Workspace(workspace),
            )));
        }
    }
    Ok(None)
}

/// Expands a leading `~` or `~/`.
pub fn expand_tilde(path: &Path, home: Option<&Path>) -> Result<PathBuf, HomesError> {
    let mut components = path.components();
    match components.next() {
        Some(Component::Normal(first)) if first == "~" => {
            let home = home.ok_or(HomesError::NoHomeDir)?;
            Ok(home.join(components.as_path()))
        }
        _ => Ok(path.to_path_buf()),
    }
}

/// Makes `path` absolute against `cwd` and removes `.` and `..` components lexically.
pub fn absolutize(path: &Path, cwd: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(env: &[(&str, &str)], runtime_flag: Option<&str>) -> Homes {
        Homes::resolve(
            runtime_flag.map(Path::new),
            None,
            &Env::from_pairs(env),
            Path::new("/work/dir"),
        )
        .unwrap()
    }

    #[test]
    fn defaults_follow_home() {
        let h = resolve(&[("HOME", "/home/u")], None);
        assert_eq!(h.runtime, Path::new("/home/u/.finch"));
        assert_eq!(h.agent, Path::new("/home/u/finchnest"));
        assert_eq!(h.agent_source, AgentHomeSource::Default);
    }

    #[test]
    fn no_mini_tool_storage_is_a_configuration_directory() {
        let h = resolve(&[("HOME", "/home/u")], None);
        let data = Path::new("/home/u/.finch/extension-data");
        assert_eq!(h.extension_data("weather"), data.join("weather"));
        for id in ["mcp", "MCP", "Mcp"] {
            assert_eq!(
                h.extension_data(id),
                data.join(".minitool").join(id),
                "{id}"
            );
            assert_ne!(h.extension_data(id).parent(), h.mcp_servers_json().parent());
        }
        assert_eq!(h.extension_data("mcp-tools"), data.join("mcp-tools"));
    }

    #[test]
    fn dev_runtime_home_gets_dev_agent_home() {
        let h = resolve(&[("HOME", "/home/u")], Some("~/.finch-dev"));
        assert_eq!(h.runtime, Path::new("/home/u/.finch-dev"));
        assert_eq!(h.agent, Path::new("/home/u/finchnest-dev"));
    }

    #[test]
    fn relative_env_paths_resolve_against_cwd() {
        let h = resolve(
            &[
                ("HOME", "/home/u"),
                ("FINCH_RUNTIME_HOME", "rt"),
                ("FINCH_AGENT_HOME", "../agent"),
            ],
            None,
        );
        assert_eq!(h.runtime, Path::new("/work/dir/rt"));
        assert_eq!(h.agent, Path::new("/work/agent"));
        assert_eq!(h.agent_source, AgentHomeSource::Env);
    }

    #[test]
    fn settings_then_workspace_name_the_agent_home() {
        let dir = tempfile::tempdir().unwrap();
        let rt = dir.path().to_str().unwrap();
        std::fs::write(
            dir.path().join("workspace.json"),
            r#"{"finchHomeDir":"/from/workspace"}"#,
        )
        .unwrap();
        let h = resolve(&[("HOME", "/home/u")], Some(rt));
        assert_eq!(h.agent, Path::new("/from/workspace"));
        std::fs::create_dir(dir.path().join("config")).unwrap();
        std::fs::write(
            dir.path().join("config/settings.json"),
            r#"{"general":{"finchHomeDir":"~/from-settings"}}"#,
        )
        .unwrap();
        let h = resolve(&[("HOME", "/home/u")], Some(rt));
        assert_eq!(h.agent, Path::new("/home/u/from-settings"));
        assert!(matches!(h.agent_source, AgentHomeSource::Settings(_)));
    }
}
