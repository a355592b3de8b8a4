//! Scheduled runs with pi, the agent core (`@mariozechner/pi-coding-agent`), as the agent
//! command: what the runner does besides starting the program when that program is pi.
//!
//! - pi is recognised by the program's file name: `pi` (a path like `/usr/local/bin/pi` too).
//! - The run's session is made before pi starts: a transcript in finch's sessions directory,
//!   `<runtime>/pi/sessions/<slug>/<timestamp>_<session id>.jsonl`, with finch's header and
//!   opening (`session::append::Appender::create`), so that pi appends to it without rewriting
//!   it. pi is pointed at that directory with `PI_CODING_AGENT_SESSION_DIR` and at the session
//!   with `--session <id>`: the `{session}` placeholder, or, when the command has no
//!   `--session`, the two arguments the runner adds right after the program. pi resolves an id
//!   in its session directory, so the session pi writes is the one in the history, and
//!   `finch session show <id>` shows it.
//! - After the run the transcript's header is read back: the history records the id it holds
//!   and the file (`sessionFile`).
//! - Refused before anything starts, each with a note in the run record: a prompt pi would not
//!   read as the prompt (pi's `-p` takes an argument starting with `-` as an option and one
//!   starting with `@` as a file to attach; pi has no `--` to end its options), and options that
//!   would send pi's session elsewhere (`--session-dir`, `--no-session`, `--fork`,
//!   `-c`/`--continue`, `-r`/`--resume`, `--session` with anything but `{session}`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Value, json};

use crate::homes::Homes;
use crate::session::append::Appender;
use crate::session::transcript::{self, new_transcript_path};

/// The environment variable pi reads its session directory from.
pub const SESSION_DIR_ENV: &str = "PI_CODING_AGENT_SESSION_DIR";

/// Whether the agent command's program is pi.
pub fn is_pi(program: &str) -> bool {
    Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n == "pi")
}

/// Why pi would misread `prompt` as the argument of `-p`, when it would.
pub fn misread_prompt(prompt: &str) -> Option<String> {
    let what = match prompt.chars().next()? {
        '-' => "an option",
        '@' => "a file to attach",
        _ => return None,
    };
    let first = prompt.chars().next().unwrap_or_default();
    Some(format!(
        "the prompt starts with `{first}`, which pi reads as {what}, not as the prompt"
    ))
}

/// Options that would take pi's session away from the one finch prepared.
const SESSION_OPTIONS: &[&str] = &[
    "--session-dir",
    "--no-session",
    "--fork",
    "-c",
    "--continue",
    "-r",
    "--resume",
];

/// The session a pi run writes: prepared before pi starts, read back after.
#[derive(Debug, Clone)]
pub struct PiSession {
    pub id: String,
    pub transcript: PathBuf,
}

impl PiSession {
    /// Checks the command line and the prompt, creates the run's transcript and adds
    /// `--session <id>` to `argv` when it has no `--session`. `Err` is the run's note.
    pub fn prepare(
        homes: &Homes,
        dir: &Path,
        session: &str,
        prompt: &str,
        argv: &mut Vec<String>,
        now: DateTime<Utc>,
        lock_timeout: Duration,
    ) -> Result<PiSession, String> {
        if let Some(why) = misread_prompt(prompt) {
            return Err(format!(
                "not started: {why}; start the prompt with another character \
                 (`finch schedule update <id> --prompt …`)"
            ));
        }
        let mut has_session = false;
        for (i, arg) in argv.iter().enumerate().skip(1) {
            let option = arg.split('=').next().unwrap_or(arg);
            if SESSION_OPTIONS.contains(&option) {
                return Err(format!(
                    "not started: the pi command has `{option}`, which would send pi's session \
                     away from finch's sessions directory; remove it from [agent] command \
                     (finch gives pi its session with --session {{session}})"
                ));
            }
            if option == "--session" {
                if argv.get(i + 1).map(String::as_str) != Some(session) {
                    return Err(
                        "not started: the pi command has `--session` with something other \
                         than {session}; write \"--session\", \"{session}\" in [agent] command"
                            .to_string(),
                    );
                }
                has_session = true;
            }
        }
        if !has_session {
            argv.splice(1..1, ["--session".to_string(), session.to_string()]);
        }
        let cwd = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let started = now.to_rfc3339_opts(SecondsFormat::Millis, true);
        let path = new_transcript_path(&homes.sessions_dir(), &cwd, &started, session);
        let header = json!({
            "type": "session",
            "version": 3,
            "id": session,
            "timestamp": started,
            "cwd": cwd,
        });
        Appender::create(&path, &header, lock_timeout)
            .map_err(|e| format!("cannot create the run's session transcript: {e}"))?;
        Ok(PiSession {
            id: session.to_string(),
            transcript: path,
        })
    }

    /// The environment pi needs: its session directory, the transcript's.
    pub fn env(&self) -> Vec<(OsString, OsString)> {
        let dir = self.transcript.parent().unwrap_or(Path::new("."));
        vec![(SESSION_DIR_ENV.into(), dir.as_os_str().to_owned())]
    }

    /// After the run: the session id the transcript's header holds, and the file, for the
    /// history (`sessionId`, `sessionFile`).
    pub fn finish(
        &self,
        session_id: &mut Option<String>,
        extra: &mut serde_json::Map<String, Value>,
    ) {
        if let Ok(Some(header)) = transcript::read_header(&self.transcript) {
            *session_id = Some(header.id);
        }
        extra.insert(
            "sessionFile".into(),
            self.transcript.to_string_lossy().into_owned().into(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pi_is_known_by_its_file_name() {
        for (program, want) in [
            ("pi", true),
            ("/usr/local/bin/pi", true),
            ("./node_modules/.bin/pi", true),
            ("pip", false),
            ("/opt/pi/bin/agent", false),
            ("claude", false),
        ] {
            assert_eq!(is_pi(program), want, "{program}");
        }
    }

    #[test]
    fn prompts_pi_would_misread() {
        assert!(misread_prompt("-v please").unwrap().contains("an option"));
        assert!(
            misread_prompt("@notes.md summarize")
                .unwrap()
                .contains("a file to attach")
        );
        assert_eq!(misread_prompt("summarize @notes.md - quickly"), None);
        assert_eq!(misread_prompt(""), None);
    }

    fn homes(dir: &Path) -> Homes {
        Homes {
            runtime: dir.join("runtime"),
            agent: dir.join("agent"),
            agent_source: crate::homes::AgentHomeSource::Flag,
        }
    }

    #[test]
    fn prepare_makes_the_transcript_and_gives_pi_the_session() {
        let tmp = tempfile::tempdir().unwrap();
        let homes = homes(tmp.path());
        let work = tmp.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        let mut argv: Vec<String> = ["pi", "-p", "hello"].map(String::from).to_vec();
        let now = Utc::now();
        let s = PiSession::prepare(
            &homes,
            &work,
            "sid-1",
            "hello",
            &mut argv,
            now,
            Duration::from_secs(1),
        )
        .unwrap();
        assert_eq!(argv, ["pi", "--session", "sid-1", "-p", "hello"]);
        let header = transcript::read_header(&s.transcript).unwrap().unwrap();
        assert_eq!(header.id, "sid-1");
        assert!(s.transcript.starts_with(homes.sessions_dir()));
        assert_eq!(s.env()[0].1, s.transcript.parent().unwrap().as_os_str());
        let mut id = None;
        let mut extra = serde_json::Map::new();
        s.finish(&mut id, &mut extra);
        assert_eq!(id.as_deref(), Some("sid-1"));
        assert_eq!(
            extra["sessionFile"],
            s.transcript.to_string_lossy().as_ref()
        );
    }

    #[test]
    fn prepare_refuses_what_pi_would_misread_and_writes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let homes = homes(tmp.path());
        let work = tmp.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        let cases: &[(&[&str], &str, &str)] = &[
            (&["pi", "-p", "-x"], "-x", "starts with `-`"),
            (&["pi", "-p", "@f"], "@f", "starts with `@`"),
            (
                &["pi", "--session-dir", "/x", "-p", "hi"],
                "hi",
                "`--session-dir`",
            ),
            (&["pi", "--no-session", "-p", "hi"], "hi", "`--no-session`"),
            (&["pi", "-c", "-p", "hi"], "hi", "`-c`"),
            (
                &["pi", "--session", "other", "-p", "hi"],
                "hi",
                "other than {session}",
            ),
        ];
        for (argv, prompt, want) in cases {
            let mut argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
            let err = PiSession::prepare(
                &homes,
                &work,
                "sid",
                prompt,
                &mut argv,
                Utc::now(),
                Duration::from_secs(1),
            )
            .unwrap_err();
            assert!(err.contains(want), "{err}");
            assert!(err.starts_with("not started: "), "{err}");
        }
        assert!(!homes.sessions_dir().exists());
    }
}
