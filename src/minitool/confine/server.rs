//! The MCP servers a mini tool brings — `contributes.mcpServers`, and servers it registers at
//! run time through `mcp.client` — are the mini tool's code (issue 39): each runs confined to
//! that mini tool's declaration and grants, never more. A server's `"sandbox"` entry may only
//! narrow it (a profile caps `filesystem`, its `network` can only take the network away).
//!
//! The table is the mini tool's own (`access`), laid over the server's program instead of
//! node: the program the entry names (found on `PATH`, or finch's node for `node`), its ELF
//! interpreter, and the interpreter its `#!` line names (for `npx`, `uvx` and other scripts:
//! `/usr/bin/env node` runs node) may be executed even without `shell`, as node may for the
//! mini tool itself; what they start beyond that needs `shell: true`. The program's
//! installation (`<prefix>` of `<prefix>/bin/<program>`) is readable, as node's is.
//!
//! Where the kernel cannot confine, such a server starts only where its mini tool would: once a
//! person agreed that the mini tool runs unconfined (`Mode::Unconfined`); otherwise it does not
//! start, with the mini tool's refusal. `[sandbox] minitools = "off"` confines neither.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Declared, Filesystem, Held, Mode, Whereabouts, access, elf_interpreter};
use crate::homes::Homes;
use crate::sandbox::Access;

/// How one MCP server a mini tool brings is held: the mini tool's mode, with what it declares
/// (narrowed by the entry's `"sandbox"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfinement {
    /// The mini tool that brings the server.
    pub minitool: String,
    /// Its package directory.
    pub package: PathBuf,
    /// `Mode::Enforced` holds the narrowed declaration.
    pub mode: Mode,
}

/// An entry's `"sandbox"` as a cap on the mini tool's declaration: the highest `filesystem`
/// its profile allows and whether it keeps the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Narrowing {
    pub filesystem: Filesystem,
    pub network: bool,
}

impl ServerConfinement {
    /// The confinement of a server that mini tool `id`, whose package is at `package`, brings.
    /// Its declaration is read from the package's manifest (an unreadable one declares nothing).
    pub fn of(
        homes: &Homes,
        settings: &crate::config::Settings,
        id: &str,
        package: &Path,
        narrowing: Option<Narrowing>,
    ) -> ServerConfinement {
        let manifest = crate::minitool::manifest::load(package).ok().flatten();
        let permissions = manifest.as_ref().and_then(|m| m.permissions());
        let narrow = |d: Declared| match narrowing {
            None => d,
            Some(n) => Declared {
                filesystem: d.filesystem.min(n.filesystem),
                network: d.network && n.network,
                shell: d.shell,
            },
        };
        let mode = match Mode::of(homes, settings, id, permissions) {
            Mode::Enforced(d) => Mode::Enforced(narrow(d)),
            other => other,
        };
        ServerConfinement {
            minitool: id.to_string(),
            package: package.to_path_buf(),
            mode,
        }
    }

    /// What it is held to, when the kernel holds it.
    pub fn held(&self) -> Option<Held<'_>> {
        match &self.mode {
            Mode::Enforced(declared) => Some(Held {
                id: &self.minitool,
                declared: *declared,
                package: &self.package,
            }),
            _ => None,
        }
    }

    fn declared(&self) -> Declared {
        match &self.mode {
            Mode::Enforced(d) | Mode::Unconfined { declared: d, .. } => *d,
            Mode::Refused { declared: d, .. } => *d,
            Mode::Off => Declared::from_permissions(None),
        }
    }

    /// `"sandbox"` of a server in `finch reload --json`, `mcp list --json` and `tool info
    /// --json`: the mini tool's `Mode::to_json` and its id.
    pub fn to_json(&self) -> Value {
        let mut out = self.mode.to_json(self.declared());
        out["minitool"] = self.minitool.clone().into();
        out
    }

    /// `mini tool doors; filesystem none, network false, shell false` (and the status when it
    /// is not enforced).
    pub fn describe(&self) -> String {
        let d = self.declared();
        let status = match &self.mode {
            Mode::Enforced(_) => String::new(),
            other => format!(" ({})", other.status()),
        };
        format!(
            "mini tool {}; filesystem {}, network {}, shell {}{status}",
            self.minitool,
            d.filesystem.as_str(),
            d.network,
            d.shell
        )
    }
}

/// What the kernel lets a mini tool's server reach (see the module docs): the mini tool's
/// table with `program` (as the entry resolved it) executable in place of nothing more.
pub fn server_access(declared: &Declared, at: &Whereabouts, program: &Path) -> Access {
    let mut access = access(declared, at);
    let path = at.path.clone();
    for exe in exec_chain(program, path.as_ref()) {
        if let Some(prefix) = installation(&exe) {
            access.read.push(prefix);
        }
        access.exec_files.extend(elf_interpreter(&exe));
        access.exec_files.push(exe);
    }
    access
}

/// `<prefix>` of `<prefix>/bin/<program>`: read as node's installation is.
fn installation(program: &Path) -> Option<PathBuf> {
    let bin = program.parent()?;
    (bin.file_name()? == "bin")
        .then(|| bin.parent().map(Path::to_path_buf))
        .flatten()
        .filter(|p| p.parent().is_some())
}

/// `program` as given and with its links resolved, and — for a script — the interpreter its
/// `#!` line names (through `/usr/bin/env <name>`, `<name>` found on `path`), at most two deep.
fn exec_chain(program: &Path, path: Option<&OsString>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut next = Some(program.to_path_buf());
    for _ in 0..3 {
        let Some(exe) = next.take() else { break };
        let real = std::fs::canonicalize(&exe).unwrap_or_else(|_| exe.clone());
        next = interpreter(&real, path);
        if !out.contains(&exe) {
            out.push(exe);
        }
        if !out.contains(&real) {
            out.push(real);
        }
    }
    out
}

/// The interpreter a script's `#!` line names: `/usr/bin/env node` gives node on `path`.
fn interpreter(script: &Path, path: Option<&OsString>) -> Option<PathBuf> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(script).ok()?.read(&mut head).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = String::from_utf8_lossy(line);
    let line = line.lines().next()?.trim();
    let mut words = line.split_whitespace();
    let first = PathBuf::from(words.next()?);
    if first.file_name().is_some_and(|n| n == "env") {
        let name = words.find(|w| !w.starts_with('-'))?;
        let found = std::env::split_paths(path?)
            .map(|d| d.join(name))
            .find(|p| p.is_file());
        return found.or(Some(first));
    }
    Some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_brings_its_interpreter_and_env_finds_it_on_path() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("prefix/bin");
        std::fs::create_dir_all(&bin).unwrap();
        let node = bin.join("fake-node");
        std::fs::write(&node, "not a script").unwrap();
        let npx = bin.join("npx");
        std::fs::write(&npx, "#!/usr/bin/env fake-node\nrequire('npx')\n").unwrap();
        let path = OsString::from(bin.as_os_str());
        let chain = exec_chain(&npx, Some(&path));
        assert!(chain.contains(&npx), "{chain:?}");
        assert!(chain.contains(&node), "{chain:?}");
        assert_eq!(installation(&npx), Some(dir.path().join("prefix")));
        assert_eq!(installation(Path::new("/bin/sh")), None);
        let direct = dir.path().join("direct");
        std::fs::write(&direct, "#!/bin/sh -e\necho\n").unwrap();
        assert!(exec_chain(&direct, None).contains(&PathBuf::from("/bin/sh")));
    }

    fn other_declared() -> Declared {
        Declared::from_permissions(None)
    }

    #[test]
    fn an_entry_only_narrows_and_an_unreadable_package_declares_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let homes = Homes {
            runtime: dir.path().join("rt"),
            agent: dir.path().join("ag"),
            agent_source: crate::homes::AgentHomeSource::Flag,
        };
        let settings = crate::config::Config::default()
            .settings(&dir.path().join("finch.toml"))
            .unwrap();
        let pkg = dir.path().join("pkg");
        std::fs::create_dir_all(&pkg).unwrap();
        std::fs::write(
            pkg.join("finch.json"),
            r#"{"id": "pkg", "main": "x.js", "permissions": {"filesystem": "readwrite", "network": true}}"#,
        )
        .unwrap();
        let narrowed = ServerConfinement::of(
            &homes,
            &settings,
            "pkg",
            &pkg,
            Some(Narrowing {
                filesystem: Filesystem::Read,
                network: false,
            }),
        );
        match narrowed.mode {
            Mode::Enforced(d) => assert_eq!((d.filesystem, d.network), (Filesystem::Read, false)),
            other => assert!(
                super::super::kernel_gap(&other_declared()).is_some(),
                "{other:?}"
            ),
        }
        let nothing =
            ServerConfinement::of(&homes, &settings, "gone", &dir.path().join("gone"), None);
        assert_eq!(nothing.declared(), Declared::from_permissions(None));
        assert!(
            nothing
                .describe()
                .starts_with("mini tool gone; filesystem none, network false, shell false")
        );
    }
}
