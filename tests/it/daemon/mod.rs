//! `finch daemon` (issue 44) through the real binary with no terminal: a bot mini tool of our
//! own that behaves like the public WeChat bot (a long poll to the base URL in its storage,
//! one agent turn per chat message through `ctx.sessions`, the reply posted back) against a
//! fake iLink platform on loopback, with a scripted `[agent] command`. Judged by effects: what
//! reached the fake, the processes in `/proc`, the files on disk.

mod ilink;
mod service;

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::TestContext;
use crate::common::fixtures::MiniTool;
use ilink::{FakeIlink, text_of};

const BOT: &str = include_str!("../fixtures/minitools/ilink-bot.mjs");
/// The agent: answers `echo: <prompt>`.
const AGENT: &str =
    "[agent]\ncommand = [\"sh\", \"-c\", \"printf 'echo: %s' \\\"$0\\\"\", \"{prompt}\"]\n";
/// The agent, answering only once the test writes `go` into the agent home (the session's
/// directory), after it wrote `started`: a turn the test can catch in the middle.
const GATED_AGENT: &str = "[agent]\ncommand = [\"sh\", \"-c\", \"touch started; while [ ! -e go ]; do sleep 0.05; done; printf 'echo: %s' \\\"$0\\\"\", \"{prompt}\"]\n";
/// Quick restarts, so that a test does not wait for the default backoff.
const FAST: &str = "[runtime]\nactivate_timeout = \"5s\"\nrestart_backoff = \"300ms\"\nrestart_backoff_max = \"2s\"\nshutdown_timeout = \"2s\"\n";
const WAIT: Duration = Duration::from_secs(30);

/// The fixture bot as a package named `id`.
fn bot(id: &str) -> MiniTool {
    MiniTool::new(id, "1.0.0")
        .finch_field("displayName", json!("iLink bot"))
        .finch_field(
            "permissions",
            json!({"network": true, "sessions": true, "filesystem": "none"}),
        )
        .entry_source(BOT)
}

/// Installs and enables `pkg`, and points it at `base` (its storage's `baseUrl`, where the
/// public bot keeps its platform's address too).
fn install_bot(ctx: &TestContext, id: &str, base: &str) {
    let dir = ctx.base().join("src").join(id);
    bot(id).write_to(&dir);
    ctx.run(&["add", &dir.display().to_string()]).success();
    ctx.run(&["enable", id]).success();
    let data = ctx.runtime.join("extension-data").join(id);
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(
        data.join("storage.json"),
        json!({"baseUrl": base}).to_string(),
    )
    .unwrap();
}

/// A `finch daemon` running in the background, SIGKILLed (with its tree) if a test ends early.
struct Daemon {
    child: Child,
    stderr: std::path::PathBuf,
}

impl Daemon {
    fn start(ctx: &TestContext) -> Daemon {
        let stderr = ctx
            .base()
            .join(format!("daemon-{}.err", std::process::id()));
        let file = std::fs::File::create(&stderr).unwrap();
        let child = ctx
            .std_cmd()
            .arg("daemon")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .expect("start finch daemon");
        Daemon { child, stderr }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// Waits for the daemon to end by itself; its exit code.
    fn wait(&mut self, limit: Duration) -> Option<i32> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            // The daemon runs in a session of its own (`std_cmd`): its process group.
            unsafe {
                libc::kill(-(self.child.id() as i32), libc::SIGKILL);
            }
            let _ = self.child.wait();
        }
    }
}

/// `finch daemon status --json`, once.
fn status(ctx: &TestContext) -> Option<Value> {
    let out = ctx.run(&["daemon", "status", "--json"]);
    (out.code() == 0).then(|| out.json())
}

/// Waits until every listed mini tool is `running` (and `check` holds), and returns the
/// status.
#[track_caller]
fn await_status(ctx: &TestContext, daemon: &Daemon, check: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + WAIT;
    let mut last = None;
    while Instant::now() < deadline {
        if let Some(s) = status(ctx) {
            let all_running = s["minitools"]
                .as_array()
                .is_some_and(|m| m.iter().all(|t| t["state"] == "running"));
            if all_running && check(&s) {
                return s;
            }
            last = Some(s);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!(
        "the daemon did not get there; last status {last:?}\nits stderr:\n{}",
        daemon.stderr()
    );
}

fn minitool<'a>(status: &'a Value, id: &str) -> &'a Value {
    status["minitools"]
        .as_array()
        .and_then(|m| m.iter().find(|t| t["id"] == id))
        .unwrap_or_else(|| panic!("no {id} in {status}"))
}

/// Every live descendant of `pid`.
fn descendants(pid: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|p| {
            let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
            let rest = &stat[stat.rfind(')')? + 1..];
            Some((p, rest.split_whitespace().nth(1)?.parse().ok()?))
        })
        .collect();
    let mut out = Vec::new();
    let mut frontier = vec![pid];
    while let Some(parent) = frontier.pop() {
        for (child, _) in parents.iter().filter(|(_, pp)| *pp == parent) {
            out.push(*child);
            frontier.push(*child);
        }
    }
    out
}

/// The socket inodes `pid` holds open.
fn socket_inodes(pid: u32) -> Vec<u64> {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap_or_else(|e| panic!("cannot read the descriptors of {pid}: {e}"))
        .flatten()
        .filter_map(|fd| {
            let link = std::fs::read_link(fd.path()).ok()?;
            let text = link.to_str()?;
            text.strip_prefix("socket:[")?
                .strip_suffix(']')?
                .parse()
                .ok()
        })
        .collect()
}

/// The inodes of TCP sockets in LISTEN state, as `pid`'s network namespace shows them.
fn listening_inodes(pid: &str) -> Vec<u64> {
    let mut out = Vec::new();
    for table in ["tcp", "tcp6"] {
        let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/net/{table}")) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split_whitespace().collect();
            if cols.get(3) == Some(&"0A")
                && let Some(inode) = cols.get(9).and_then(|i| i.parse().ok())
            {
                out.push(inode);
            }
        }
    }
    out
}

/// The `node` processes among `pids`.
fn nodes(pids: &[u32]) -> Vec<u32> {
    pids.iter()
        .copied()
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|c| c.trim() == "node")
        })
        .collect()
}

/// Whether `pid` is gone (or a zombie) within `limit`.
fn ended(pid: u32, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| {
                Some(
                    s[s.rfind(')')? + 1..]
                        .split_whitespace()
                        .next()?
                        .to_string(),
                )
            });
        if state.is_none_or(|s| s == "Z") {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// Through the daemon, a chat message reaches the agent and the agent's reply reaches the
/// platform; the daemon's whole process tree listens on no TCP port, and its control socket
/// is the user's alone.
#[test]
fn a_chat_message_reaches_the_agent_and_its_reply_reaches_the_platform() {
    let ctx = TestContext::new();
    ctx.write_config(&format!("{AGENT}{FAST}"));
    let fake = FakeIlink::start();
    install_bot(&ctx, "ilink-bot", &fake.base);
    let daemon = Daemon::start(&ctx);
    let s = await_status(&ctx, &daemon, |_| true);
    let bot = minitool(&s, "ilink-bot");
    assert_eq!(bot["restarts"], 0, "{s}");
    assert!(bot["pid"].as_u64().is_some(), "{s}");
    assert!(bot["rssBytes"].as_u64().is_some_and(|b| b > 0), "{s}");
    assert_eq!(s["pid"], daemon.pid(), "{s}");
    assert_eq!(s["schedule"], json!({"state": "running"}), "{s}");

    assert!(fake.await_polls(1, WAIT), "the bot long-polls the platform");
    fake.push("wxid_ann", 1, "hello bot");
    let sent = fake.await_sent(1, WAIT);
    assert_eq!(sent.len(), 1, "stderr:\n{}", daemon.stderr());
    assert_eq!(text_of(&sent[0]), "echo: hello bot", "{sent:?}");
    assert_eq!(sent[0]["msg"]["to_user_id"], "wxid_ann");
    assert_eq!(sent[0]["msg"]["context_token"], "ctx-1");

    // The control socket: mode 0600, in a directory only the user enters.
    let socket = ctx.runtime.join("daemon/daemon.sock");
    assert_eq!(mode_of(&socket), 0o600);
    assert_eq!(mode_of(&ctx.runtime.join("daemon")), 0o700);

    // No TCP listener anywhere in the daemon's tree (each process read in its own network
    // namespace). The check itself sees a listener: the fake's, in this process.
    let mine = socket_inodes(std::process::id());
    let listening_here = listening_inodes("self");
    assert!(
        mine.iter().any(|i| listening_here.contains(i)),
        "the /proc reading must see the fake platform's listener on port {}",
        fake.port
    );
    let mut tree = vec![daemon.pid()];
    tree.extend(descendants(daemon.pid()));
    assert!(!nodes(&tree).is_empty(), "the bot's node is in the tree");
    let mut sockets = 0;
    for pid in &tree {
        let held = socket_inodes(*pid);
        sockets += held.len();
        let listening = listening_inodes(&pid.to_string());
        let open: Vec<&u64> = held.iter().filter(|i| listening.contains(i)).collect();
        assert!(open.is_empty(), "pid {pid} listens on TCP: {open:?}");
    }
    assert!(
        sockets > 0,
        "the tree holds sockets (its control socket, the bot's poll)"
    );
}

/// Waits until the gated agent has started a turn.
#[track_caller]
fn await_agent(ctx: &TestContext, daemon: &Daemon) {
    let started = ctx.agent.join("started");
    let deadline = Instant::now() + WAIT;
    while !started.exists() {
        assert!(
            Instant::now() < deadline,
            "the agent never started; stderr:\n{}",
            daemon.stderr()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The bot's node is killed in the middle of a turn: the daemon starts it again after its
/// backoff and counts the restart, the turn's reply reaches the platform once, and the bot
/// keeps answering; the daemon's log and the bot's log say what happened.
#[test]
fn a_bot_node_killed_mid_turn_restarts_and_its_reply_arrives_once() {
    let ctx = TestContext::new();
    ctx.write_config(&format!("{GATED_AGENT}{FAST}"));
    let fake = FakeIlink::start();
    install_bot(&ctx, "ilink-bot", &fake.base);
    let daemon = Daemon::start(&ctx);
    let before = await_status(&ctx, &daemon, |_| true);
    let old_pid = minitool(&before, "ilink-bot")["pid"].as_u64().unwrap() as u32;

    fake.push("wxid_bob", 7, "are you there?");
    await_agent(&ctx, &daemon);
    let mut tree = vec![old_pid];
    tree.extend(descendants(old_pid));
    let node = nodes(&tree);
    assert_eq!(node.len(), 1, "one node under {old_pid}: {tree:?}");
    unsafe {
        libc::kill(node[0] as i32, libc::SIGKILL);
    }
    let after = await_status(&ctx, &daemon, |s| minitool(s, "ilink-bot")["restarts"] == 1);
    let bot = minitool(&after, "ilink-bot");
    assert_ne!(bot["pid"].as_u64().unwrap() as u32, old_pid, "{after}");
    assert!(
        bot["lastError"].is_null(),
        "running again, no error: {after}"
    );
    std::fs::write(ctx.agent.join("go"), "").unwrap();
    let first = fake.await_sent(1, WAIT);
    assert_eq!(first.len(), 1, "stderr:\n{}", daemon.stderr());

    fake.push("wxid_bob", 8, "still there?");
    let sent = fake.await_sent(2, WAIT);
    let texts: Vec<&str> = sent.iter().map(text_of).collect();
    assert_eq!(texts, ["echo: are you there?", "echo: still there?"]);

    let log = ctx.run(&["daemon", "logs"]);
    log.success();
    assert!(
        log.stdout().contains("restarted ilink-bot (pid ")
            && log.stdout().contains("mini tool ilink-bot "),
        "{}",
        log.stdout()
    );
    let bot_log = ctx.run(&["daemon", "logs", "ilink-bot", "-n", "200"]);
    bot_log.success();
    let starts = bot_log
        .stdout()
        .lines()
        .filter(|l| l.contains(": starting ilink-bot 1.0.0"))
        .count();
    // The daemon's start and its restart.
    assert_eq!(starts, 2, "{}", bot_log.stdout());
    assert!(bot_log.stdout().contains("replied to wxid_bob (turn "));
}

/// The daemon itself is killed (SIGKILL) in the middle of a turn, its bot's node with it; the
/// agent's turn goes on, and the next daemon delivers its reply to the platform once — none
/// lost, none twice — and the bot goes on answering.
#[test]
fn a_daemon_killed_mid_turn_loses_no_reply_and_duplicates_none() {
    let ctx = TestContext::new();
    ctx.write_config(&format!("{GATED_AGENT}{FAST}"));
    let fake = FakeIlink::start();
    install_bot(&ctx, "ilink-bot", &fake.base);
    let mut first = Daemon::start(&ctx);
    let s = await_status(&ctx, &first, |_| true);
    let bot_pid = minitool(&s, "ilink-bot")["pid"].as_u64().unwrap() as u32;
    fake.push("wxid_cat", 21, "remember me");
    await_agent(&ctx, &first);
    unsafe {
        libc::kill(first.pid() as i32, libc::SIGKILL);
    }
    assert_eq!(first.wait(WAIT), None, "killed, no exit code");
    assert!(ended(bot_pid, WAIT), "the bot's tree went with the daemon");
    // The turn ends while no daemon runs.
    std::fs::write(ctx.agent.join("go"), "").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert!(fake.sent().is_empty(), "nobody could deliver it yet");

    let second = Daemon::start(&ctx);
    await_status(&ctx, &second, |_| true);
    let replies = fake.await_sent(1, WAIT);
    assert_eq!(replies.len(), 1, "stderr:\n{}", second.stderr());
    fake.push("wxid_cat", 22, "and now?");
    let sent = fake.await_sent(2, WAIT);
    let texts: Vec<&str> = sent.iter().map(text_of).collect();
    assert_eq!(texts, ["echo: remember me", "echo: and now?"]);
    assert!(sent.iter().all(|m| m["msg"]["to_user_id"] == "wxid_cat"));
}

/// One daemon at a time: a second one exits 5 naming the first, and changes nothing; `stop`
/// ends the first (exit 0, its socket gone), after which `status` and `stop` exit 3.
#[test]
fn a_second_daemon_is_refused_and_stop_ends_the_first() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    let fake = FakeIlink::start();
    install_bot(&ctx, "ilink-bot", &fake.base);
    let mut daemon = Daemon::start(&ctx);
    let s = await_status(&ctx, &daemon, |_| true);
    assert_eq!(
        s["schedule"]["state"], "off",
        "no [agent] command, no scheduled tasks: {s}"
    );
    let bot_pid = minitool(&s, "ilink-bot")["pid"].as_u64().unwrap();

    let second = ctx.run(&["daemon"]);
    second.failure(5);
    assert_eq!(
        second.stderr(),
        format!(
            "Error: another finch daemon is running (pid {})\nhint: `finch daemon status` shows it, `finch daemon stop` stops it (lock: {})\n",
            daemon.pid(),
            ctx.runtime.join("daemon/daemon.lock").display()
        )
    );
    let still = status(&ctx).expect("the first still answers");
    assert_eq!(minitool(&still, "ilink-bot")["pid"], bot_pid);

    let stop = ctx.run(&["daemon", "stop"]);
    stop.success();
    assert_eq!(
        stop.stdout(),
        format!("✓ Stopped the finch daemon (pid {})\n", daemon.pid())
    );
    assert_eq!(daemon.wait(WAIT), Some(0), "{}", daemon.stderr());
    assert!(!ctx.runtime.join("daemon/daemon.sock").exists());
    assert!(
        ended(bot_pid as u32, Duration::from_secs(5)),
        "the bot's process ended with the daemon"
    );

    let socket = ctx.runtime.join("daemon/daemon.sock");
    let gone = format!(
        "Error: no finch daemon is running (nothing listens on {})\nhint: start it with `finch daemon`, or as a service: `finch daemon install`\n",
        socket.display()
    );
    let st = ctx.run(&["daemon", "status"]);
    st.failure(3);
    assert_eq!(st.stderr(), gone);
    let again = ctx.run(&["daemon", "stop"]);
    again.failure(3);
    assert_eq!(again.stderr(), gone);
    let json = ctx.run(&["daemon", "status", "--json"]);
    json.failure(3);
    assert_eq!(json.json()["error"]["code"], "daemon_not_running");
}

/// `finch daemon logs` of an id without a log, and without any daemon log yet: exit 3, saying
/// which file is missing.
#[test]
fn logs_without_a_log_exit_3_naming_the_file() {
    let ctx = TestContext::new();
    let out = ctx.run(&["daemon", "logs", "nobody"]);
    out.failure(3);
    let path = ctx.runtime.join("logs/minitools/nobody.log");
    assert_eq!(
        out.stderr(),
        format!(
            "Error: mini tool nobody has no log yet ({} does not exist)\nhint: a log appears once the daemon started (`finch daemon`); `finch list` shows the ids\n",
            path.display()
        )
    );
    let own = ctx.run(&["daemon", "logs"]);
    own.failure(3);
    assert!(
        own.stderr()
            .starts_with("Error: the finch daemon has no log yet (")
    );
    ctx.run(&["daemon", "logs", "../etc"]).failure(2);
}

/// The daemon runs the scheduled tasks beside its mini tools: a task due in two seconds runs
/// through `[agent] command` and is recorded, while the bot answers.
#[test]
fn the_daemon_fires_a_due_scheduled_task_beside_the_bots() {
    let ctx = TestContext::new();
    ctx.write_config(&format!("{AGENT}{FAST}"));
    let fake = FakeIlink::start();
    install_bot(&ctx, "ilink-bot", &fake.base);
    let at = (chrono::Utc::now() + chrono::TimeDelta::seconds(2))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let created = ctx.run(&[
        "--json", "schedule", "create", "--name", "Soon", "--prompt", "tidy up", "--once", &at,
    ]);
    created.success();
    let id = created.json()["id"].as_str().unwrap().to_string();
    let daemon = Daemon::start(&ctx);
    await_status(&ctx, &daemon, |s| s["schedule"]["state"] == "running");
    let deadline = Instant::now() + WAIT;
    let run = loop {
        let out = ctx.run(&["--json", "schedule", "history", &id]);
        out.success();
        if let Some(run) = out.json().as_array().and_then(|a| a.first().cloned()) {
            break run;
        }
        assert!(
            Instant::now() < deadline,
            "the task never ran; stderr:\n{}",
            daemon.stderr()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(run["status"], "succeeded", "{run}");
    assert_eq!(run["trigger"], "schedule", "{run}");
    assert_eq!(run["outputTail"], "echo: tidy up", "{run}");
    fake.push("wxid_dan", 3, "hi");
    let sent = fake.await_sent(1, WAIT);
    assert_eq!(sent.iter().map(text_of).collect::<Vec<_>>(), ["echo: hi"]);
}
