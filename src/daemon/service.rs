//! What `finch daemon install` writes so that a service manager runs `finch daemon` for the
//! user: a systemd user unit on Linux (`~/.config/systemd/user/finch.service`), a launchd agent
//! on macOS (`~/Library/LaunchAgents/dev.finch.daemon.plist`). Both run this very binary with
//! the homes and `PATH` of the install (so `node` and the agent command are found as they are
//! now), restart it when it fails, and do not restart it when it exits 5 (another daemon runs:
//! restarting would not help). Writing the file changes nothing else; starting it is the
//! service manager's (`Manager::start_commands`), which `install --start` runs.
//!
//! The texts are pure functions of a `ServiceSpec`, so tests read them without a service
//! manager.

use std::path::{Path, PathBuf};

/// Which service manager a file is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Manager {
    Systemd,
    Launchd,
}

/// The unit's name under systemd.
pub const SYSTEMD_UNIT: &str = "finch.service";
/// The agent's label under launchd.
pub const LAUNCHD_LABEL: &str = "dev.finch.daemon";

impl Manager {
    /// The one this system has.
    pub fn native() -> Manager {
        if cfg!(target_os = "macos") {
            Manager::Launchd
        } else {
            Manager::Systemd
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Manager::Systemd => "systemd",
            Manager::Launchd => "launchd",
        }
    }

    /// The program that starts and stops services.
    pub fn program(self) -> &'static str {
        match self {
            Manager::Systemd => "systemctl",
            Manager::Launchd => "launchctl",
        }
    }

    /// Where the file goes: `$XDG_CONFIG_HOME/systemd/user/` (else `~/.config/…`), or
    /// `~/Library/LaunchAgents/`.
    pub fn file_path(self, home: &Path, xdg_config_home: Option<&Path>) -> PathBuf {
        match self {
            Manager::Systemd => xdg_config_home
                .filter(|p| p.is_absolute())
                .map_or_else(|| home.join(".config"), Path::to_path_buf)
                .join("systemd/user")
                .join(SYSTEMD_UNIT),
            Manager::Launchd => home
                .join("Library/LaunchAgents")
                .join(format!("{LAUNCHD_LABEL}.plist")),
        }
    }

    /// The commands that load the file and start the daemon now and at every login.
    pub fn start_commands(self, file: &Path, uid: u32) -> Vec<Vec<String>> {
        let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        match self {
            Manager::Systemd => vec![
                s(&["systemctl", "--user", "daemon-reload"]),
                s(&["systemctl", "--user", "enable", "--now", SYSTEMD_UNIT]),
            ],
            Manager::Launchd => vec![vec![
                "launchctl".into(),
                "bootstrap".into(),
                format!("gui/{uid}"),
                file.display().to_string(),
            ]],
        }
    }

    /// The commands that undo the install.
    pub fn undo_commands(self, file: &Path, uid: u32) -> Vec<Vec<String>> {
        let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        let rm = vec!["rm".to_string(), file.display().to_string()];
        match self {
            Manager::Systemd => vec![
                s(&["systemctl", "--user", "disable", "--now", SYSTEMD_UNIT]),
                rm,
                s(&["systemctl", "--user", "daemon-reload"]),
            ],
            Manager::Launchd => vec![
                vec![
                    "launchctl".into(),
                    "bootout".into(),
                    format!("gui/{uid}/{LAUNCHD_LABEL}"),
                ],
                rm,
            ],
        }
    }

    /// The file's text.
    pub fn render(self, spec: &ServiceSpec) -> String {
        match self {
            Manager::Systemd => systemd_unit(spec),
            Manager::Launchd => launchd_plist(spec),
        }
    }
}

/// What the service runs.
#[derive(Debug, Clone)]
pub struct ServiceSpec {
    /// This finch binary.
    pub exe: PathBuf,
    pub runtime_home: PathBuf,
    pub agent_home: PathBuf,
    /// `PATH` as it is now.
    pub path: String,
    /// Where launchd writes the daemon's stdout and stderr (systemd keeps them in its journal).
    pub stderr_log: PathBuf,
}

/// A command shown to a person: words with spaces or quotes quoted for a POSIX shell.
pub fn shell_line(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            let plain = !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
            if plain {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// One word of a systemd unit line, quoted: `%` doubled (a specifier otherwise), `\` and `"`
/// escaped, the whole in double quotes.
fn systemd_word(text: &str) -> String {
    let escaped = text
        .replace('\\', r"\\")
        .replace('"', "\\\"")
        .replace('%', "%%");
    format!("\"{escaped}\"")
}

fn systemd_unit(spec: &ServiceSpec) -> String {
    let env = |name: &str, value: &str| {
        format!("Environment={}\n", systemd_word(&format!("{name}={value}")))
    };
    format!(
        "# Written by `finch daemon install` (finch {version}).\n\
         # Undo: systemctl --user disable --now {SYSTEMD_UNIT}, then delete this file.\n\
         [Unit]\n\
         Description=finch daemon: mini tools and scheduled tasks\n\
         After=network-online.target\n\
         Wants=network-online.target\n\
         \n\
         [Service]\n\
         Type=simple\n\
         ExecStart={exe} daemon\n\
         {runtime}{agent}{path}\
         Restart=on-failure\n\
         RestartSec=5\n\
         # Exit 5: another finch daemon already runs; restarting would not help.\n\
         RestartPreventExitStatus=5\n\
         # SIGTERM stops the mini tools and the scheduled runs within seconds; leave room.\n\
         TimeoutStopSec=30\n\
         \n\
         [Install]\n\
         WantedBy=default.target\n",
        version = env!("CARGO_PKG_VERSION"),
        exe = systemd_word(&spec.exe.display().to_string()),
        runtime = env(
            "FINCH_RUNTIME_HOME",
            &spec.runtime_home.display().to_string()
        ),
        agent = env("FINCH_AGENT_HOME", &spec.agent_home.display().to_string()),
        path = env("PATH", &spec.path),
    )
}

fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn launchd_plist(spec: &ServiceSpec) -> String {
    let string = |s: &str| format!("<string>{}</string>", xml(s));
    let env = |name: &str, value: &str| format!("\t\t<key>{name}</key>\n\t\t{}\n", string(value));
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n\
         <!-- Written by `finch daemon install` (finch {version}). Undo: launchctl bootout gui/$(id -u)/{LAUNCHD_LABEL}, then delete this file. -->\n\
         <plist version=\"1.0\">\n\
         <dict>\n\
         \t<key>Label</key>\n\
         \t<string>{LAUNCHD_LABEL}</string>\n\
         \t<key>ProgramArguments</key>\n\
         \t<array>\n\
         \t\t{exe}\n\
         \t\t<string>daemon</string>\n\
         \t</array>\n\
         \t<key>EnvironmentVariables</key>\n\
         \t<dict>\n\
         {runtime}{agent}{path}\
         \t</dict>\n\
         \t<key>RunAtLoad</key>\n\
         \t<true/>\n\
         \t<key>KeepAlive</key>\n\
         \t<dict>\n\
         \t\t<key>SuccessfulExit</key>\n\
         \t\t<false/>\n\
         \t</dict>\n\
         \t<key>ThrottleInterval</key>\n\
         \t<integer>5</integer>\n\
         \t<key>StandardOutPath</key>\n\
         \t{log}\n\
         \t<key>StandardErrorPath</key>\n\
         \t{log}\n\
         </dict>\n\
         </plist>\n",
        version = env!("CARGO_PKG_VERSION"),
        exe = string(&spec.exe.display().to_string()),
        runtime = env(
            "FINCH_RUNTIME_HOME",
            &spec.runtime_home.display().to_string()
        ),
        agent = env("FINCH_AGENT_HOME", &spec.agent_home.display().to_string()),
        path = env("PATH", &spec.path),
        log = string(&spec.stderr_log.display().to_string()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> ServiceSpec {
        ServiceSpec {
            exe: "/opt/my finch/bin/finch".into(),
            runtime_home: "/home/ann/.finch".into(),
            agent_home: "/home/ann/50%\"nest".into(),
            path: "/usr/local/bin:/usr/bin".into(),
            stderr_log: "/home/ann/.finch/logs/daemon.stderr.log".into(),
        }
    }

    #[test]
    fn the_systemd_unit_quotes_spaces_percent_and_quotes() {
        let unit = Manager::Systemd.render(&spec());
        assert!(
            unit.contains("ExecStart=\"/opt/my finch/bin/finch\" daemon\n"),
            "{unit}"
        );
        assert!(
            unit.contains("Environment=\"FINCH_AGENT_HOME=/home/ann/50%%\\\"nest\"\n"),
            "{unit}"
        );
        assert!(unit.contains("RestartPreventExitStatus=5\n"), "{unit}");
        assert!(unit.contains("WantedBy=default.target\n"), "{unit}");
    }

    #[test]
    fn the_launchd_plist_escapes_xml() {
        let plist = Manager::Launchd.render(&ServiceSpec {
            agent_home: "/Users/ann/a&b<c>".into(),
            ..spec()
        });
        assert!(
            plist.contains("<string>/Users/ann/a&amp;b&lt;c&gt;</string>"),
            "{plist}"
        );
        assert!(plist.contains("<key>Label</key>\n\t<string>dev.finch.daemon</string>"));
        assert!(plist.contains("<key>SuccessfulExit</key>\n\t\t<false/>"));
    }

    #[test]
    fn files_go_where_the_managers_look() {
        let home = Path::new("/home/ann");
        assert_eq!(
            Manager::Systemd.file_path(home, None),
            Path::new("/home/ann/.config/systemd/user/finch.service")
        );
        assert_eq!(
            Manager::Systemd.file_path(home, Some(Path::new("/x/cfg"))),
            Path::new("/x/cfg/systemd/user/finch.service")
        );
        assert_eq!(
            Manager::Systemd.file_path(home, Some(Path::new("relative"))),
            Path::new("/home/ann/.config/systemd/user/finch.service"),
            "XDG says a relative value is ignored"
        );
        assert_eq!(
            Manager::Launchd.file_path(home, None),
            Path::new("/home/ann/Library/LaunchAgents/dev.finch.daemon.plist")
        );
    }

    #[test]
    fn shell_lines_quote_what_a_shell_would_split() {
        let words = vec!["rm".to_string(), "/a b/it's".to_string()];
        assert_eq!(shell_line(&words), r"rm '/a b/it'\''s'");
    }
}
