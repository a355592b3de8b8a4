//! How a stdio MCP server is confined when it starts: a server a mini tool brings is held to
//! that mini tool's declaration (`minitool::confine::ServerConfinement`: its table, its
//! environment, and `${VAR}` in its entry expanded only from what the mini tool may read); a
//! server of the user's own runs confined only when its entry asks (`"sandbox"`, opt-in).
//! Nothing here decides who is confined: `McpServerConfig::confinement` does.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::client::{ConnectEnv, ConnectError};
use super::config::expand_with;
use crate::minitool::confine::{self, Declared, Mode, ServerConfinement, Whereabouts};

/// Confines a server a mini tool brings, as `held` says, with the mini tool's environment and
/// the entry's own variables: the confinement (its private TMPDIR lives as long as it does), or
/// `None` when it runs as finch's other servers do (`[sandbox] minitools = "off"`, or a person agreed that the mini tool runs
/// unconfined); an error when it may not start (the kernel cannot confine it and nobody agreed,
/// or its entry reads a variable the mini tool may not).
pub(super) fn minitool_server(
    held: &ServerConfinement,
    program: &Path,
    entry_env: &BTreeMap<String, String>,
    cx: &ConnectEnv,
    cmd: &mut tokio::process::Command,
) -> Result<Option<crate::sandbox::Confinement>, ConnectError> {
    let declared = match &held.mode {
        Mode::Enforced(declared) => *declared,
        Mode::Refused { .. } => {
            let refusal = held.mode.refusal(&held.minitool).unwrap_or_default();
            return Err(ConnectError::Config(refusal));
        }
        Mode::Off | Mode::Unconfined { .. } => return Ok(None),
    };
    let sandbox = &cx.settings.sandbox;
    let mut env = confine::environment(&declared, cx.env.iter(), &sandbox.env);
    for (key, value) in entry_env {
        let value = expand_with(
            value,
            |var| find(&env, var),
            |var| unreadable(&held.minitool, var, cx),
        )
        .map_err(|e| ConnectError::Config(format!("env {key}: {e}")))?;
        env.retain(|(k, _)| k != key);
        env.push((key.clone(), value.into()));
    }
    let storage = cx.homes.extension_data(&held.minitool);
    let at = whereabouts(held, &declared, program, &storage, cx);
    let mut access = confine::server_access(&declared, &at, program);
    // The mini tool's host list holds its servers too (issue 42): the same proxy policy, in a
    // network namespace of the server's own.
    let mut proxy = None;
    if declared.network {
        let manifest = crate::minitool::manifest::load(&held.package)
            .ok()
            .flatten();
        let permissions = manifest.as_ref().and_then(|m| m.permissions());
        let grant = confine::grant_for(&cx.homes, &held.minitool);
        let reach = confine::Reach::of(&cx.settings, &held.minitool, permissions, &grant);
        reach.apply(&mut access);
        if matches!(reach, confine::Reach::Hosts(_)) {
            let listed = confine::listed_hosts(&cx.settings, &held.minitool, permissions)
                .unwrap_or_default();
            proxy = Some(confine::proxy_policy(&cx.homes, &held.minitool, listed));
        }
    }
    let mut confinement = crate::sandbox::Confinement::prepare(access)
        .map_err(|e| ConnectError::Config(e.to_string()))?;
    if let Some(policy) = proxy {
        confinement.set_proxy(std::sync::Arc::new(policy));
    }
    cmd.env_clear().envs(env.iter().map(|(k, v)| (k, v)));
    confinement.apply(cmd.as_std_mut());
    Ok(Some(confinement))
}

/// `${VAR}` in a URL or a header of an HTTP server a mini tool brings: expanded only from the
/// variables the mini tool may read.
pub(super) fn expand_for(
    held: &ServerConfinement,
    text: &str,
    cx: &ConnectEnv,
) -> Result<String, String> {
    let declared = match &held.mode {
        Mode::Enforced(declared) => *declared,
        _ => return super::config::expand_vars(text, &cx.env),
    };
    let env = confine::environment(&declared, cx.env.iter(), &cx.settings.sandbox.env);
    expand_with(
        text,
        |var| find(&env, var),
        |var| unreadable(&held.minitool, var, cx),
    )
}

/// Whether finch may connect to an HTTP server for the mini tool that brings it: only when it
/// declares the network (finch would otherwise reach the network on its behalf).
pub(super) fn http_allowed(held: &ServerConfinement, url: &str) -> Result<(), ConnectError> {
    match &held.mode {
        Mode::Enforced(declared) if !declared.network => {
            let id = &held.minitool;
            Err(ConnectError::Config(format!(
                "blocked: {id} declares network: false, and finch would connect to {url} for it; `finch sandbox grant {id} network` lets it"
            )))
        }
        Mode::Refused { .. } => Err(ConnectError::Config(
            held.mode.refusal(&held.minitool).unwrap_or_default(),
        )),
        _ => Ok(()),
    }
}

fn find(env: &[(String, OsString)], var: &str) -> Option<String> {
    env.iter()
        .find(|(k, _)| k == var)
        .and_then(|(_, v)| v.to_str())
        .map(str::to_string)
}

/// Why a variable cannot be expanded for a mini tool's server: it is not set, or it is set
/// and the mini tool may not read it.
fn unreadable(id: &str, var: &str, cx: &ConnectEnv) -> String {
    if cx.env.get(var).is_some() {
        format!(
            "${{{var}}} is not among the variables mini tool {id} may read (finch's environment reaches a mini tool only through ctx.secrets, or the names [sandbox] env lists)"
        )
    } else {
        format!("${{{var}}} is not set in the environment")
    }
}

/// Where a mini tool's server runs: its package and storage, the session's directory (its
/// protected paths kept read-only when the workspace is written), finch's node for `node`
/// and for scripts run by it.
fn whereabouts<'a>(
    held: &'a ServerConfinement,
    declared: &Declared,
    program: &'a Path,
    storage: &'a Path,
    cx: &'a ConnectEnv,
) -> Whereabouts<'a> {
    let home = cx.env.home_dir();
    let protected = if declared.workspace() == confine::Filesystem::ReadWrite {
        let workspace = crate::host::policy::Workspace {
            cwd: cx.cwd.clone(),
            project: cx.cwd.clone(),
            trusted: Vec::new(),
            home: home.clone(),
            runtime: Some(cx.homes.runtime.clone()),
        };
        crate::host::policy::protected_paths_below(&cx.cwd, &workspace)
    } else {
        Vec::new()
    };
    Whereabouts {
        node: cx.node.as_deref().unwrap_or(program),
        package: &held.package,
        storage,
        bootstrap: None,
        roots: vec![cx.cwd.clone()],
        protected,
        home,
        path: cx.env.get_path("PATH").map(PathBuf::into_os_string),
        extra_read: cx.settings.sandbox.read.clone(),
        extra_ca: cx.env.get_path("NODE_EXTRA_CA_CERTS"),
    }
}

/// Lays a stdio server's `"sandbox"` on `cmd`: the profile over its working directory, the
/// network as the entry says, the program's own directory readable and executable. Fails where
/// the kernel cannot enforce the profile: the server then does not start.
pub(super) fn user_server(
    sandbox: super::config::ServerSandbox,
    program: &Path,
    cwd: &Path,
    cx: &ConnectEnv,
    cmd: &mut tokio::process::Command,
) -> Result<crate::sandbox::Confinement, ConnectError> {
    use crate::sandbox::{Access, Confinement, Places, Profile, ProfileState, Support};
    if let ProfileState::Unavailable(why) = Support::get().profile(sandbox.profile) {
        return Err(ConnectError::Config(format!(
            "its \"sandbox\" ({}) cannot be enforced here: {why}",
            sandbox.profile
        )));
    }
    let home = cx.env.home_dir();
    let protected = if sandbox.profile == Profile::WorkspaceWrite {
        let workspace = crate::host::policy::Workspace {
            cwd: cwd.to_path_buf(),
            project: cwd.to_path_buf(),
            trusted: Vec::new(),
            home: home.clone(),
            runtime: None,
        };
        crate::host::policy::protected_paths_below(cwd, &workspace)
    } else {
        Vec::new()
    };
    let places = Places {
        roots: vec![cwd.to_path_buf()],
        protected,
        home,
        path: cx.env.get_path("PATH").map(PathBuf::into_os_string),
        extra_read: program
            .parent()
            .map(Path::to_path_buf)
            .into_iter()
            .collect(),
        extra_write: Vec::new(),
        network: sandbox.network,
        unix_sockets: Vec::new(),
    };
    let mut access = Access::for_profile(sandbox.profile, &places);
    access.network = sandbox.network;
    let mut confinement =
        Confinement::prepare(access).map_err(|e| ConnectError::Config(e.to_string()))?;
    confinement.apply(cmd.as_std_mut());
    Ok(confinement)
}
