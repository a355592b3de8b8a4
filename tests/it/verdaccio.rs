//! Tests of `finch` against a real npm registry: verdaccio, started by each test on loopback
//! (SPEC §3.3, §3.4, §10).
//!
//! These are the slower suite, ignored by default: verdaccio is an npm package that
//! `scripts/install-test-peers` puts in `<repo>/.test-peers/` (or point `FINCH_TEST_VERDACCIO`
//! at a `verdaccio` executable). Run them with
//! `cargo nextest run --test it verdaccio --run-ignored all`.
//!
//! Each test gets its own verdaccio (storage, htpasswd and config in a temp dir, no uplinks, a
//! free loopback port), creates a user with one `PUT /-/user/org.couchdb.user:<name>`, and
//! publishes with plain HTTP PUTs of npm publish documents, the way `npm publish` does. The
//! HTTP client is the few lines of `std::net` below: the crate has no blocking client to reuse.

use std::fs;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

use crate::common::TestContext;
use crate::common::fixtures::{MiniTool, sha1_hex, sri_sha512};

const NEEDS_VERDACCIO: &str = "needs verdaccio: run scripts/install-test-peers (scripts/test does)";
const PACKAGE: &str = "finch-verdaccio-demo";
const DISPLAY_NAME: &str = "Verdaccio Demo";
/// How long verdaccio may take to answer `/-/ping` after it is spawned.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// Read/write timeout of one HTTP exchange with verdaccio.
const HTTP_TIMEOUT: Duration = Duration::from_secs(30);

/// Who may read packages: everyone, or only users with a token.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    Public,
    Authenticated,
}

/// The verdaccio executable: `$FINCH_TEST_VERDACCIO`, else the one `scripts/install-test-peers`
/// installs. Panics with the instruction to install it when there is none.
fn verdaccio_bin() -> PathBuf {
    let path = match std::env::var_os("FINCH_TEST_VERDACCIO") {
        Some(path) => PathBuf::from(path),
        None => {
            Path::new(env!("CARGO_MANIFEST_DIR")).join(".test-peers/node_modules/.bin/verdaccio")
        }
    };
    assert!(
        path.is_file(),
        "verdaccio not found at {}: {NEEDS_VERDACCIO}, or set FINCH_TEST_VERDACCIO to a verdaccio executable",
        path.display()
    );
    path
}

/// A running verdaccio on `127.0.0.1:<port>`; killed (and reaped) on drop, so on a panic too.
pub(crate) struct Verdaccio {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl Verdaccio {
    pub(crate) fn start(access: Access) -> Verdaccio {
        let bin = verdaccio_bin();
        let dir = tempfile::Builder::new()
            .prefix("finch-verdaccio-")
            .tempdir()
            .expect("temp dir");
        let port = free_port();
        let read = match access {
            Access::Public => "$all",
            Access::Authenticated => "$authenticated",
        };
        // max_body_size: a publish document carries its tarball, and finch's own npm package
        // (tests/it/npm_dist.rs) holds a binary of tens of MB; verdaccio's default is 10 MB.
        let config = format!(
            "storage: {storage}\n\
             auth:\n  htpasswd:\n    file: {htpasswd}\n    max_users: 100\n\
             uplinks: {{}}\n\
             packages:\n  '**':\n    access: {read}\n    publish: $authenticated\n\
             listen: 127.0.0.1:{port}\n\
             max_body_size: 300mb\n\
             log: {{type: stdout, level: warn}}\n",
            storage = yaml_str(&dir.path().join("storage")),
            htpasswd = yaml_str(&dir.path().join("htpasswd")),
        );
        let config_path = dir.path().join("config.yaml");
        fs::write(&config_path, config).expect("write verdaccio config");
        let log = |name: &str| fs::File::create(dir.path().join(name)).expect("create a log file");
        let mut command = Command::new(&bin);
        command
            .arg("--config")
            .arg(&config_path)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(log("stdout.log"))
            .stderr(log("stderr.log"));
        kill_with_parent(&mut command);
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", bin.display()));
        let mut verdaccio = Verdaccio { child, port, dir };
        verdaccio.wait_until_up();
        verdaccio
    }

    fn wait_until_up(&mut self) {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("poll verdaccio") {
                panic!(
                    "verdaccio exited ({status}) before answering:\n{}",
                    self.logs()
                );
            }
            if let Ok(reply) = http(self.port, "GET", "/-/ping", None, None)
                && reply.status == 200
            {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "verdaccio did not answer GET /-/ping within {START_TIMEOUT:?}:\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub(crate) fn logs(&self) -> String {
        let read = |name: &str| fs::read_to_string(self.dir.path().join(name)).unwrap_or_default();
        format!(
            "--- verdaccio stdout\n{}--- verdaccio stderr\n{}",
            read("stdout.log"),
            read("stderr.log")
        )
    }

    /// `http://127.0.0.1:<port>/`.
    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    /// Creates a user and returns its bearer token.
    pub(crate) fn add_user(&self, name: &str) -> String {
        let body = json!({"_id": format!("org.couchdb.user:{name}"), "name": name,
                          "password": "finch-test-password", "type": "user", "roles": []});
        let reply = self.request(
            "PUT",
            &format!("/-/user/org.couchdb.user:{name}"),
            None,
            Some(&body),
        );
        assert_eq!(
            reply.status,
            201,
            "create user {name}: {reply}\n{}",
            self.logs()
        );
        reply.json()["token"]
            .as_str()
            .unwrap_or_else(|| panic!("no token in {reply}"))
            .to_string()
    }

    /// Publishes `tool` under `tag` with an npm publish document; returns the tarball bytes.
    fn publish(&self, token: &str, tool: &MiniTool, tag: &str) -> Vec<u8> {
        let tarball = tool.npm_tarball();
        let mut version_doc = tool.package_json();
        let name = version_doc["name"]
            .as_str()
            .expect("package name")
            .to_string();
        let version = version_doc["version"]
            .as_str()
            .expect("package version")
            .to_string();
        let file = format!("{name}-{version}.tgz");
        let fields = version_doc
            .as_object_mut()
            .expect("package.json is an object");
        fields.insert("_id".into(), format!("{name}@{version}").into());
        fields.insert(
            "dist".into(),
            json!({
                "tarball": format!("{}{name}/-/{file}", self.url()),
                "shasum": sha1_hex(&tarball),
                "integrity": sri_sha512(&tarball),
            }),
        );
        let document = json!({
            "_id": name,
            "name": name,
            "dist-tags": {tag: version},
            "versions": {version.clone(): version_doc},
            "_attachments": {file: {
                "content_type": "application/octet-stream",
                "data": base64::engine::general_purpose::STANDARD.encode(&tarball),
                "length": tarball.len(),
            }},
        });
        let reply = self.request("PUT", &format!("/{name}"), Some(token), Some(&document));
        assert_eq!(
            reply.status,
            201,
            "publish {name}@{version}: {reply}\n{}",
            self.logs()
        );
        tarball
    }

    fn request(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Reply {
        http(self.port, method, path, token, body)
            .unwrap_or_else(|e| panic!("{method} {path}: {e}\n{}", self.logs()))
    }
}

impl Drop for Verdaccio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Also kill the child if this test process dies without running `Drop` (SIGKILL, abort): the
/// kernel sends it SIGKILL when the spawning thread — the test's — exits.
fn kill_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt as _;
    // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    listener.local_addr().expect("local address").port()
}

fn yaml_str(path: &Path) -> String {
    serde_json::to_string(&path.display().to_string()).expect("quote a path")
}

/// One HTTP response.
struct Reply {
    status: u16,
    body: Vec<u8>,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {self}"))
    }
}

impl std::fmt::Display for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "HTTP {} {}",
            self.status,
            String::from_utf8_lossy(&self.body)
        )
    }
}

/// One HTTP/1.1 exchange with `127.0.0.1:<port>` on a fresh connection (`Connection: close`),
/// with a JSON body and a bearer token when given. Reads `Content-Length`, chunked, or
/// to-end-of-stream bodies.
fn http(
    port: u16,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&Value>,
) -> std::io::Result<Reply> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(HTTP_TIMEOUT))?;
    stream.set_write_timeout(Some(HTTP_TIMEOUT))?;
    let body = body
        .map(|b| serde_json::to_vec(b).expect("serialize a request body"))
        .unwrap_or_default();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json\r\n\
         Connection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(token) = token {
        head.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(&body)?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    parse_response(&raw).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("malformed HTTP response: {}", String::from_utf8_lossy(&raw)),
        )
    })
}

fn parse_response(raw: &[u8]) -> Option<Reply> {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&raw[..end]).ok()?;
    let mut rest = &raw[end + 4..];
    let mut lines = head.split("\r\n");
    let status = lines.next()?.split(' ').nth(1)?.parse().ok()?;
    let header = |name: &str| {
        head.split("\r\n").skip(1).find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_ascii_lowercase())
        })
    };
    let body = if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        let mut body = Vec::new();
        loop {
            let line_end = rest.windows(2).position(|w| w == b"\r\n")?;
            let size_text = std::str::from_utf8(&rest[..line_end]).ok()?;
            let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
            rest = &rest[line_end + 2..];
            if size == 0 {
                break body;
            }
            body.extend_from_slice(rest.get(..size)?);
            rest = rest.get(size + 2..)?;
        }
    } else if let Some(length) = header("content-length") {
        rest.get(..length.parse::<usize>().ok()?)?.to_vec()
    } else {
        rest.to_vec()
    };
    Some(Reply { status, body })
}

fn demo(version: &str) -> MiniTool {
    MiniTool::new(PACKAGE, version).display_name(DISPLAY_NAME)
}

/// The version `finch list --json` reports for the demo tool.
#[track_caller]
fn listed_version(ctx: &TestContext) -> String {
    let list = ctx.run(&["list", "--json"]);
    list.success();
    let items = list.json();
    let item = items
        .as_array()
        .and_then(|items| items.iter().find(|i| i["id"] == PACKAGE))
        .unwrap_or_else(|| panic!("{PACKAGE} not in the listing:\n{list}"));
    item["version"].as_str().unwrap_or_default().to_string()
}

/// Checks the lock record of the demo tool: npm, this version, the tarball's integrity.
#[track_caller]
fn assert_npm_record(ctx: &TestContext, version: &str, tarball: &[u8]) {
    let records = ctx.read_json(&ctx.personal_tier().join(".plugins-lock.json"));
    let record = &records[PACKAGE];
    assert_eq!(record["type"], "npm", "{records:#}");
    assert_eq!(record["package"], PACKAGE, "{records:#}");
    assert_eq!(record["version"], version, "{records:#}");
    assert_eq!(record["integrity"], sri_sha512(tarball), "{records:#}");
    assert!(record["installedAt"].is_string(), "{records:#}");
}

#[track_caller]
fn add(ctx: &TestContext, spec: &str, registry: &str) {
    ctx.run(&["add", spec, "--registry", registry])
        .success()
        .stdout_has(&format!(
            "✓ Added \"{DISPLAY_NAME}\" ({PACKAGE}) → {}",
            ctx.personal_tier().join(PACKAGE).display()
        ))
        .stdout_has("  Installed only. Open Finch → Toolcase → Mini Tools to review permissions and enable.");
}

#[test]
#[ignore = "needs verdaccio: run scripts/install-test-peers (scripts/test does)"]
fn add_resolves_versions_ranges_and_tags_from_verdaccio() {
    let registry = Verdaccio::start(Access::Public);
    let token = registry.add_user("finch-publisher");
    let v100 = registry.publish(&token, &demo("1.0.0"), "latest");
    let v110 = registry.publish(&token, &demo("1.1.0"), "latest");
    let beta = registry.publish(&token, &demo("2.0.0-beta.1"), "beta");
    let url = registry.url();

    let ctx = TestContext::new();
    add(&ctx, &format!("{PACKAGE}@1.0.0"), &url);
    assert_eq!(listed_version(&ctx), "1.0.0");
    assert_npm_record(&ctx, "1.0.0", &v100);

    add(&ctx, &format!("{PACKAGE}@^1.0"), &url);
    assert_eq!(listed_version(&ctx), "1.1.0");
    assert_npm_record(&ctx, "1.1.0", &v110);

    add(&ctx, &format!("{PACKAGE}@beta"), &url);
    assert_eq!(listed_version(&ctx), "2.0.0-beta.1");
    assert_npm_record(&ctx, "2.0.0-beta.1", &beta);
    let installed = ctx.read_json(&ctx.personal_tier().join(PACKAGE).join("package.json"));
    assert_eq!(installed["version"], "2.0.0-beta.1");

    // A tilde range in a fresh home: highest 1.0.x, not 1.1.0, never the prerelease.
    let fresh = TestContext::new();
    add(&fresh, &format!("{PACKAGE}@~1.0"), &url);
    assert_eq!(listed_version(&fresh), "1.0.0");
    assert_npm_record(&fresh, "1.0.0", &v100);

    // The bare name follows `latest`, which is not the beta.
    let bare = TestContext::new();
    add(&bare, PACKAGE, &url);
    assert_eq!(listed_version(&bare), "1.1.0");
    assert_npm_record(&bare, "1.1.0", &v110);

    // A range nothing satisfies fails and installs nothing.
    let none = TestContext::new();
    let run = none.run(&["add", &format!("{PACKAGE}@^3"), "--registry", &url]);
    assert_ne!(run.code(), 0, "a range with no match must fail:\n{run}");
    assert!(!none.personal_tier().join(PACKAGE).exists(), "{run}");
}

#[test]
#[ignore = "needs verdaccio: run scripts/install-test-peers (scripts/test does)"]
fn update_picks_up_a_version_published_after_install() {
    let registry = Verdaccio::start(Access::Public);
    let token = registry.add_user("finch-publisher");
    registry.publish(&token, &demo("1.0.0"), "latest");
    let url = registry.url();

    let ctx = TestContext::new();
    add(&ctx, PACKAGE, &url);
    assert_eq!(listed_version(&ctx), "1.0.0");

    let before = ctx.run(&["update", PACKAGE, "--registry", &url]);
    before.success().stdout_has(&format!(
        "• \"{DISPLAY_NAME}\" ({PACKAGE}) is already up to date (v1.0.0)"
    ));

    let v110 = registry.publish(&token, &demo("1.1.0"), "latest");
    let update = ctx.run(&["update", PACKAGE, "--registry", &url]);
    update
        .success()
        .stdout_has(&format!("✓ Updated \"{DISPLAY_NAME}\" ({PACKAGE}) v1.0.0 → v1.1.0"))
        .stdout_has(&format!(
            "FINCH_CLI_RESULT_JSON:{{\"id\":\"{PACKAGE}\",\"changed\":true,\"previousVersion\":\"1.0.0\",\"version\":\"1.1.0\",\"source\":\"npm\"}}"
        ));
    assert_eq!(listed_version(&ctx), "1.1.0");
    assert_npm_record(&ctx, "1.1.0", &v110);

    let again = ctx.run(&["update", PACKAGE, "--registry", &url]);
    again
        .success()
        .stdout_has(&format!("• \"{DISPLAY_NAME}\" ({PACKAGE}) is already up to date (v1.1.0)"))
        .stdout_has(&format!(
            "FINCH_CLI_RESULT_JSON:{{\"id\":\"{PACKAGE}\",\"changed\":false,\"previousVersion\":\"1.1.0\",\"version\":\"1.1.0\",\"source\":\"npm\"}}"
        ));
    assert_eq!(listed_version(&ctx), "1.1.0");
}

#[test]
#[ignore = "needs verdaccio: run scripts/install-test-peers (scripts/test does)"]
fn npmrc_registry_and_token_reach_a_private_verdaccio() {
    let registry = Verdaccio::start(Access::Authenticated);
    let token = registry.add_user("finch-reader");
    let v100 = registry.publish(&token, &demo("1.0.0"), "latest");
    let anonymous = registry.request("GET", &format!("/{PACKAGE}"), None, None);
    assert!(
        matches!(anonymous.status, 401 | 403),
        "verdaccio must refuse an anonymous read for this test to mean anything: {anonymous}"
    );
    let authority = format!("//127.0.0.1:{}/", registry.port);

    // The registry alone, no token: refused, with a hint naming the .npmrc line to add.
    let ctx = TestContext::new();
    let npmrc = ctx.home.join(".npmrc");
    fs::write(&npmrc, format!("registry={}\n", registry.url())).expect("write .npmrc");
    let refused = ctx.run(&["add", PACKAGE]);
    assert_ne!(refused.code(), 0, "an anonymous read must fail:\n{refused}");
    refused.stderr_has(&format!("{authority}:_authToken="));
    assert!(!ctx.personal_tier().join(PACKAGE).exists(), "{refused}");

    // With the token: installs, and the token is never printed.
    fs::write(
        &npmrc,
        format!(
            "registry={}\n{authority}:_authToken={token}\n",
            registry.url()
        ),
    )
    .expect("write .npmrc");
    let run = ctx.run(&["add", PACKAGE]);
    run.success()
        .stdout_has(&format!("✓ Added \"{DISPLAY_NAME}\" ({PACKAGE})"));
    assert!(
        !run.stdout().contains(&token) && !run.stderr().contains(&token),
        "token printed:\n{run}"
    );
    assert_eq!(listed_version(&ctx), "1.0.0");
    assert_npm_record(&ctx, "1.0.0", &v100);
    let records =
        fs::read_to_string(ctx.personal_tier().join(".plugins-lock.json")).expect("lock records");
    assert!(
        !records.contains(&token),
        "token in the lock records:\n{records}"
    );

    // A later publish reaches `update` through the same .npmrc.
    registry.publish(&token, &demo("1.1.0"), "latest");
    ctx.run(&["update", PACKAGE]).success().stdout_has(&format!(
        "✓ Updated \"{DISPLAY_NAME}\" ({PACKAGE}) v1.0.0 → v1.1.0"
    ));
    assert_eq!(listed_version(&ctx), "1.1.0");
}
