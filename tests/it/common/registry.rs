//! A loopback npm registry that integration tests start themselves.
//!
//! Plain `std::net` HTTP/1.1 (keep-alive honoured, `Content-Length` on every
//! response, `Content-Length` and chunked request bodies read), one accepting
//! thread and one thread per connection, no async runtime. Packuments and
//! tarballs live in memory; faults and quirks are switched on per test.
//!
//! Routes:
//! - `GET /<name>` and `GET /@scope%2fname` (any percent-encoding, `%2F` too):
//!   the packument. Abbreviated (`application/vnd.npm.install-v1+json`) when
//!   the request's `Accept` asks for it, else the full document as
//!   `application/json`.
//! - `GET /<name>/-/<basename>-<version>.tgz`: the tarball bytes.
//! - `GET /` and `GET /-/ping`: `200 {}` (a reachability probe).
//! - `PUT /<name>` with an `npm publish` document (`versions`, `dist-tags`,
//!   `_attachments` with base64 `data`): publishes, `201 {"ok":true}`.
//! - `HEAD` of any of the `GET` routes: the same headers, no body.
//! - Anything else: `404 {"error":"Not found"}`.
#![allow(dead_code)] // each test binary uses a different subset of the harness

use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::fixtures::{MiniTool, sha1_hex, sri_sha512};

/// The media type npm uses for abbreviated ("corgi") packuments.
pub const ABBREVIATED_ACCEPT: &str = "application/vnd.npm.install-v1+json";

/// Package.json fields kept in the abbreviated version documents (npm's list,
/// plus `description`).
const ABBREVIATED_VERSION_FIELDS: &[&str] = &[
    "description",
    "deprecated",
    "dependencies",
    "optionalDependencies",
    "devDependencies",
    "bundleDependencies",
    "peerDependencies",
    "peerDependenciesMeta",
    "bin",
    "directories",
    "engines",
    "cpu",
    "os",
    "funding",
];

const MAX_HEADER_BYTES: usize = 64 * 1024;

/// A fault injected into the responses to requests whose path contains a string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// `404 {"error":"Not found"}`.
    NotFound,
    /// `500` for the first `n` matching requests, then normal.
    ServerErrorTimes(usize),
    /// `429` with `Retry-After: <retry_after_secs>` for the first `times`
    /// matching requests, then normal.
    TooManyRequests { times: usize, retry_after_secs: u64 },
    /// The full body, written `chunk` bytes at a time with `delay` between chunks.
    SlowBody { chunk: usize, delay: Duration },
    /// Headers announce the full `Content-Length`, then the connection closes
    /// after `after` body bytes. `times`: `None` = every matching request,
    /// `Some(n)` = the first `n`, then normal.
    Truncate { after: usize, times: Option<usize> },
    /// Send `after` body bytes, then block until [`TestRegistry::release_stalls`]
    /// or drop; then the connection closes without the rest.
    Stall { after: usize },
    /// The packument's `dist.integrity`/`dist.shasum` describe different bytes
    /// than the tarball served. Applies to every version whose packument path or
    /// tarball path matches; the tarball itself is always served unchanged.
    WrongIntegrity,
}

/// Behaviour seen on real registry mirrors, for tolerance tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Quirks {
    /// Answer an abbreviated-metadata request with the full document as
    /// plain `application/json`.
    pub full_document_as_plain_json: bool,
    /// Top-level packument keys are only `_id`, `dist-tags`, `name`, `time`,
    /// `versions` (version documents are unchanged).
    pub minimal_fields: bool,
    /// `time` entries look like `2024-01-02T03:04:05.000+00:00` and
    /// `time.created`/`time.modified` are absent.
    pub time_plus_offsets: bool,
}

/// One request as the registry received it.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    /// The raw request target, query string included (e.g. `/@scope%2fname`).
    pub path: String,
    /// Header names lowercased, values trimmed, in the order received.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// The first header with this (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A running loopback registry; shut down (stalls released, threads joined or
/// detached) on drop.
pub struct TestRegistry {
    shared: Arc<Shared>,
    addr: SocketAddr,
    accept_thread: Option<JoinHandle<Vec<JoinHandle<()>>>>,
}

struct Shared {
    base_url: String,
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    packages: Vec<Package>,
    /// Plain files served at `/files/<name>` (archive URLs for `finch add <url>`).
    files: HashMap<String, Vec<u8>>,
    faults: Vec<ActiveFault>,
    log: Vec<Request>,
    token: Option<String>,
    quirks: Quirks,
    ticks: u64,
    stalls_since_release: usize,
    release_generation: u64,
    shutdown: bool,
    connections: HashMap<u64, TcpStream>,
    next_connection: u64,
}

struct Package {
    name: String,
    dist_tags: Vec<(String, String)>,
    versions: Vec<PublishedVersion>,
    created: u64,
    modified: u64,
}

struct PublishedVersion {
    version: String,
    tarball: Vec<u8>,
    /// `package/package.json` read from the tarball (empty when unreadable).
    manifest: Map<String, Value>,
    published: u64,
}

struct ActiveFault {
    pattern: String,
    fault: Fault,
    used: usize,
}

impl TestRegistry {
    /// Binds `127.0.0.1:0` and starts serving.
    pub fn start() -> TestRegistry {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the test registry");
        let addr = listener.local_addr().expect("test registry address");
        let shared = Arc::new(Shared {
            base_url: format!("http://{addr}/"),
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
        });
        let accept_shared = Arc::clone(&shared);
        let accept_thread = thread::Builder::new()
            .name("test-registry-accept".into())
            .spawn(move || accept_loop(listener, accept_shared))
            .expect("spawn the test registry");
        TestRegistry {
            shared,
            addr,
            accept_thread: Some(accept_thread),
        }
    }

    /// `http://127.0.0.1:PORT/` (with the trailing slash).
    pub fn url(&self) -> String {
        self.shared.base_url.clone()
    }

    /// `127.0.0.1:PORT`, e.g. for an `.npmrc` line `//127.0.0.1:PORT/:_authToken=…`.
    pub fn authority(&self) -> String {
        self.addr.to_string()
    }

    /// Where [`TestRegistry::publish`] puts a version's tarball:
    /// `<url><name>/-/<basename>-<version>.tgz` (scoped names unencoded, as npm does).
    pub fn tarball_url(&self, name: &str, version: &str) -> String {
        tarball_url(&self.shared.base_url, name, version)
    }

    /// Adds (or replaces) a version. `dist.integrity` is the sha512 SRI of the
    /// bytes, `dist.shasum` their sha1 hex; the version document also carries
    /// the fields of the tarball's `package/package.json` when it can be read.
    /// Moves the `latest` tag unless the version is a prerelease.
    pub fn publish(&self, name: &str, version: &str, tarball: Vec<u8>) {
        let mut state = self.shared.lock();
        publish_locked(&mut state, name, version, tarball);
    }

    /// Serves `bytes` at `<url>files/<name>` and returns that URL.
    pub fn serve_file(&self, name: &str, bytes: Vec<u8>) -> String {
        self.shared.lock().files.insert(name.to_string(), bytes);
        format!("{}files/{name}", self.url())
    }

    /// Publishes `tool.npm_tarball()` under its `package.json` name and
    /// version; returns the tarball bytes (for digests in assertions).
    pub fn publish_tool(&self, tool: &MiniTool) -> Vec<u8> {
        let package = tool.package_json();
        let name = package["name"]
            .as_str()
            .expect("the tool has a package name");
        let version = package["version"].as_str().expect("the tool has a version");
        let tarball = tool.npm_tarball();
        self.publish(name, version, tarball.clone());
        tarball
    }

    /// Points a dist-tag at a version (the version need not exist: a dangling
    /// tag is a registry state tests may want).
    pub fn set_tag(&self, name: &str, tag: &str, version: &str) {
        let mut state = self.shared.lock();
        let tick = state.tick();
        let package = state.package_entry(name, tick);
        set_tag_in(&mut package.dist_tags, tag, version);
        package.modified = tick;
    }

    /// Injects `fault` into requests whose path (raw or percent-decoded)
    /// contains `path_contains`. Setting the same string again replaces the
    /// fault and resets its counter. When several faults match, the first set wins.
    pub fn set_fault(&self, path_contains: &str, fault: Fault) {
        let mut state = self.shared.lock();
        state.faults.retain(|f| f.pattern != path_contains);
        state.faults.push(ActiveFault {
            pattern: path_contains.to_string(),
            fault,
            used: 0,
        });
    }

    /// Removes every fault (already stalled responses stay stalled until
    /// [`TestRegistry::release_stalls`]).
    pub fn clear_faults(&self) {
        self.shared.lock().faults.clear();
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.shared.lock().log.clone()
    }

    /// Forgets the request log.
    pub fn clear_requests(&self) {
        self.shared.lock().log.clear();
    }

    /// From now on every request must carry `authorization: Bearer <token>`,
    /// else `401 {"error":"Unauthorized"}`.
    pub fn require_token(&self, token: &str) {
        self.shared.lock().token = Some(token.to_string());
    }

    pub fn set_quirks(&self, q: Quirks) {
        self.shared.lock().quirks = q;
    }

    /// True once a `Stall` fault has sent its partial body (since the last
    /// [`TestRegistry::release_stalls`]); false if none did within `timeout`.
    pub fn wait_for_stall(&self, timeout: Duration) -> bool {
        let state = self.shared.lock();
        let (state, _) = self
            .shared
            .changed
            .wait_timeout_while(state, timeout, |s| s.stalls_since_release == 0)
            .unwrap_or_else(|e| e.into_inner());
        state.stalls_since_release > 0
    }

    /// Closes every stalled response (without the rest of its body). The
    /// `Stall` fault stays set: later matching requests stall again.
    pub fn release_stalls(&self) {
        let mut state = self.shared.lock();
        state.release_generation += 1;
        state.stalls_since_release = 0;
        drop(state);
        self.shared.changed.notify_all();
    }
}

impl Drop for TestRegistry {
    fn drop(&mut self) {
        {
            let mut state = self.shared.lock();
            state.shutdown = true;
            state.release_generation += 1;
            for stream in state.connections.values() {
                let _ = stream.shutdown(Shutdown::Both);
            }
        }
        self.shared.changed.notify_all();
        // Wake the blocking accept(); if that fails, detach the accept thread.
        let woke = TcpStream::connect_timeout(&self.addr, Duration::from_secs(2)).is_ok();
        let Some(accept_thread) = self.accept_thread.take() else {
            return;
        };
        if !woke {
            return;
        }
        let Ok(workers) = accept_thread.join() else {
            return;
        };
        let deadline = Instant::now() + Duration::from_secs(5);
        while workers.iter().any(|w| !w.is_finished()) && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(5));
        }
        for worker in workers {
            if worker.is_finished() {
                let _ = worker.join();
            } // else: detached
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl State {
    fn tick(&mut self) -> u64 {
        self.ticks += 1;
        self.ticks
    }

    fn package_entry(&mut self, name: &str, tick: u64) -> &mut Package {
        let index = match self.packages.iter().position(|p| p.name == name) {
            Some(i) => i,
            None => {
                self.packages.push(Package {
                    name: name.to_string(),
                    dist_tags: Vec::new(),
                    versions: Vec::new(),
                    created: tick,
                    modified: tick,
                });
                self.packages.len() - 1
            }
        };
        &mut self.packages[index]
    }

    fn find_package(&self, name: &str) -> Option<&Package> {
        self.packages.iter().find(|p| p.name == name).or_else(|| {
            self.packages
                .iter()
                .find(|p| p.name.eq_ignore_ascii_case(name))
        })
    }
}

fn publish_locked(state: &mut State, name: &str, version: &str, tarball: Vec<u8>) {
    let tick = state.tick();
    let manifest = read_package_json(&tarball).unwrap_or_default();
    let package = state.package_entry(name, tick);
    let entry = PublishedVersion {
        version: version.to_string(),
        tarball,
        manifest,
        published: tick,
    };
    match package.versions.iter_mut().find(|v| v.version == version) {
        Some(existing) => *existing = entry,
        None => package.versions.push(entry),
    }
    if !is_prerelease(version) {
        set_tag_in(&mut package.dist_tags, "latest", version);
    }
    package.modified = tick;
}

fn set_tag_in(tags: &mut Vec<(String, String)>, tag: &str, version: &str) {
    match tags.iter_mut().find(|(t, _)| t == tag) {
        Some(existing) => existing.1 = version.to_string(),
        None => tags.push((tag.to_string(), version.to_string())),
    }
}

fn is_prerelease(version: &str) -> bool {
    version.split('+').next().unwrap_or("").contains('-')
}

fn basename(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

fn tarball_url(base_url: &str, name: &str, version: &str) -> String {
    format!("{base_url}{name}/-/{}-{version}.tgz", basename(name))
}

/// The `package.json` of the first top-level directory of a `.tgz` (npm packs
/// under `package/`, a few publishers use another name).
fn read_package_json(tarball: &[u8]) -> Option<Map<String, Value>> {
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(tarball));
    for entry in archive.entries().ok()? {
        let mut entry = entry.ok()?;
        let path = entry.path_bytes().into_owned();
        let path = String::from_utf8_lossy(&path);
        let mut parts = path.trim_start_matches("./").split('/');
        if let (Some(_), Some("package.json"), None) = (parts.next(), parts.next(), parts.next()) {
            let mut text = String::new();
            entry.read_to_string(&mut text).ok()?;
            return match serde_json::from_str(&text) {
                Ok(Value::Object(map)) => Some(map),
                _ => None,
            };
        }
    }
    None
}

/// Deterministic timestamps: tick `n` is `2024-01-02T03:04:05.000Z` plus `n`
/// minutes.
fn timestamp(tick: u64, plus_offset: bool) -> String {
    let minutes = 4 + tick;
    let hours = 3 + minutes / 60;
    let day = 2 + hours / 24;
    let zone = if plus_offset { "+00:00" } else { "Z" };
    format!(
        "2024-01-{day:02}T{:02}:{:02}:05.000{zone}",
        hours % 24,
        minutes % 60
    )
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(hi), Some(lo)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((hi * 16 + lo) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>) -> Vec<JoinHandle<()>> {
    let mut workers: Vec<JoinHandle<()>> = Vec::new();
    for stream in listener.incoming() {
        let Ok(stream) = stream else {
            if shared.lock().shutdown {
                break;
            }
            continue;
        };
        let id = {
            let mut state = shared.lock();
            if state.shutdown {
                break;
            }
            let Ok(clone) = stream.try_clone() else {
                continue;
            };
            let id = state.next_connection;
            state.next_connection += 1;
            state.connections.insert(id, clone);
            id
        };
        let worker_shared = Arc::clone(&shared);
        let spawned = thread::Builder::new()
            .name(format!("test-registry-conn-{id}"))
            .spawn(move || {
                let _ = serve_connection(&worker_shared, stream);
                worker_shared.lock().connections.remove(&id);
            });
        match spawned {
            Ok(handle) => workers.push(handle),
            Err(_) => {
                shared.lock().connections.remove(&id);
            }
        }
        workers.retain(|w| !w.is_finished());
    }
    workers
}

/// How the body of a response goes out.
#[derive(Clone, Copy, Debug)]
enum Delivery {
    Full,
    Slow { chunk: usize, delay: Duration },
    Truncate { after: usize },
    Stall { after: usize },
}

struct Reply {
    status: u16,
    content_type: &'static str,
    extra_headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
    delivery: Delivery,
}

impl Reply {
    fn json(status: u16, body: &Value) -> Reply {
        Reply {
            status,
            content_type: "application/json",
            extra_headers: Vec::new(),
            body: serde_json::to_vec(body).expect("serialize a JSON reply"),
            delivery: Delivery::Full,
        }
    }

    fn not_found() -> Reply {
        Reply::json(404, &json!({"error": "Not found"}))
    }
}

struct Incoming {
    request: Request,
    keep_alive: bool,
}

fn serve_connection(shared: &Shared, stream: TcpStream) -> io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut writer = stream;
    loop {
        let Some(incoming) = read_request(&mut reader, &mut writer)? else {
            return Ok(());
        };
        let head = incoming.request.method.eq_ignore_ascii_case("HEAD");
        let reply = respond(shared, incoming.request);
        let keep_alive = incoming.keep_alive && matches!(reply.delivery, Delivery::Full);
        if !write_reply(shared, &mut writer, &reply, head, keep_alive)? || !keep_alive {
            let _ = writer.shutdown(Shutdown::Both);
            return Ok(());
        }
    }
}

/// Reads one request; `None` on a clean end of the connection.
fn read_request(
    reader: &mut BufReader<TcpStream>,
    writer: &mut TcpStream,
) -> io::Result<Option<Incoming>> {
    let mut line = String::new();
    // Tolerate stray empty lines between requests.
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        if !line.trim().is_empty() {
            break;
        }
    }
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "bad request line",
        ));
    };
    let version = parts.next().unwrap_or("HTTP/1.0").to_string();
    let (method, target) = (method.to_string(), target.to_string());

    let mut headers = Vec::new();
    let mut header_bytes = 0;
    loop {
        line.clear();
        let n = reader.read_line(&mut line)?;
        header_bytes += n;
        if n == 0 || header_bytes > MAX_HEADER_BYTES {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "bad headers"));
        }
        let trimmed = line.trim_end_matches(['\r', '\n']);
        if trimmed.is_empty() {
            break;
        }
        if let Some((name, value)) = trimmed.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.to_ascii_lowercase())
    };
    let connection = header("connection").unwrap_or_default();
    let keep_alive = if version.eq_ignore_ascii_case("HTTP/1.0") {
        connection.contains("keep-alive")
    } else {
        !connection.contains("close")
    };
    if header("expect").is_some_and(|e| e.contains("100-continue")) {
        writer.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
        writer.flush()?;
    }
    let mut body = Vec::new();
    if header("transfer-encoding").is_some_and(|t| t.contains("chunked")) {
        read_chunked(reader, &mut body)?;
    } else if let Some(length) = header("content-length") {
        let length: usize = length
            .parse()
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "bad content-length"))?;
        body.resize(length, 0);
        reader.read_exact(&mut body)?;
    }
    Ok(Some(Incoming {
        request: Request {
            method,
            path: target,
            headers,
            body,
        },
        keep_alive,
    }))
}

fn read_chunked(reader: &mut BufReader<TcpStream>, body: &mut Vec<u8>) -> io::Result<()> {
    let bad = || io::Error::new(io::ErrorKind::InvalidData, "bad chunked body");
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Err(bad());
        }
        let size = line.trim().split(';').next().unwrap_or("");
        let size = usize::from_str_radix(size.trim(), 16).map_err(|_| bad())?;
        if size == 0 {
            // Trailers, up to the empty line.
            loop {
                line.clear();
                if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
                    return Ok(());
                }
            }
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        let mut crlf = [0u8; 2];
        reader.read_exact(&mut crlf)?;
    }
}

fn respond(shared: &Shared, request: Request) -> Reply {
    let mut state = shared.lock();
    state.log.push(request.clone());

    if let Some(token) = &state.token {
        let expected = format!("Bearer {token}");
        if request.header("authorization") != Some(expected.as_str()) {
            let mut reply = Reply::json(401, &json!({"error": "Unauthorized"}));
            reply
                .extra_headers
                .push(("WWW-Authenticate", "Bearer".to_string()));
            return reply;
        }
    }

    let raw_path = request.path.split('?').next().unwrap_or("").to_string();
    let decoded_path = percent_decode(&raw_path);
    let matches = |pattern: &str| raw_path.contains(pattern) || decoded_path.contains(pattern);

    let mut delivery = Delivery::Full;
    for active in state.faults.iter_mut() {
        if !matches(&active.pattern) {
            continue;
        }
        match active.fault {
            Fault::WrongIntegrity => continue,
            Fault::NotFound => return Reply::not_found(),
            Fault::ServerErrorTimes(n) => {
                if active.used < n {
                    active.used += 1;
                    return Reply::json(500, &json!({"error": "Internal server error"}));
                }
            }
            Fault::TooManyRequests {
                times,
                retry_after_secs,
            } => {
                if active.used < times {
                    active.used += 1;
                    let mut reply = Reply::json(429, &json!({"error": "Too many requests"}));
                    reply
                        .extra_headers
                        .push(("Retry-After", retry_after_secs.to_string()));
                    return reply;
                }
            }
            Fault::SlowBody { chunk, delay } => {
                delivery = Delivery::Slow {
                    chunk: chunk.max(1),
                    delay,
                };
            }
            Fault::Truncate { after, times } => {
                if times.is_none_or(|t| active.used < t) {
                    active.used += 1;
                    delivery = Delivery::Truncate { after };
                }
            }
            Fault::Stall { after } => delivery = Delivery::Stall { after },
        }
        if !matches!(delivery, Delivery::Full) {
            break;
        }
    }

    let mut reply = route(&mut state, &shared.base_url, &request, &raw_path);
    reply.delivery = delivery;
    reply
}

fn route(state: &mut State, base_url: &str, request: &Request, raw_path: &str) -> Reply {
    let method = request.method.to_ascii_uppercase();
    let name_part = percent_decode(raw_path.trim_start_matches('/'));
    match method.as_str() {
        "GET" | "HEAD" => {}
        "PUT" => return publish_from_request(state, &name_part, &request.body),
        _ => return Reply::not_found(),
    }
    if name_part.is_empty() || name_part == "-/ping" {
        return Reply::json(200, &json!({}));
    }
    if let Some(file) = name_part.strip_prefix("files/") {
        return match state.files.get(file) {
            Some(bytes) => Reply {
                status: 200,
                content_type: "application/octet-stream",
                extra_headers: Vec::new(),
                body: bytes.clone(),
                delivery: Delivery::Full,
            },
            None => Reply::not_found(),
        };
    }
    if let Some((name, file)) = name_part.split_once("/-/") {
        let Some(package) = state.find_package(name) else {
            return Reply::not_found();
        };
        let base = basename(&package.name);
        return match package
            .versions
            .iter()
            .find(|v| format!("{base}-{}.tgz", v.version) == file)
        {
            Some(v) => Reply {
                status: 200,
                content_type: "application/octet-stream",
                extra_headers: Vec::new(),
                body: v.tarball.clone(),
                delivery: Delivery::Full,
            },
            None => Reply::not_found(),
        };
    }
    let Some(package) = state.find_package(&name_part) else {
        return Reply::not_found();
    };
    let wants_abbreviated = request
        .header("accept")
        .is_some_and(|a| a.contains(ABBREVIATED_ACCEPT));
    let abbreviated = wants_abbreviated && !state.quirks.full_document_as_plain_json;
    let wrong_integrity = |version: &PublishedVersion| {
        let tarball_path = format!(
            "/{}/-/{}-{}.tgz",
            package.name,
            basename(&package.name),
            version.version
        );
        state.faults.iter().any(|f| {
            f.fault == Fault::WrongIntegrity
                && (raw_path.contains(&f.pattern)
                    || name_part.contains(&f.pattern)
                    || tarball_path.contains(&f.pattern))
        })
    };
    let document = packument(
        package,
        base_url,
        abbreviated,
        state.quirks,
        wrong_integrity,
    );
    let mut reply = Reply::json(200, &document);
    if abbreviated {
        reply.content_type = ABBREVIATED_ACCEPT;
    }
    reply
}

fn packument(
    package: &Package,
    base_url: &str,
    abbreviated: bool,
    quirks: Quirks,
    wrong_integrity: impl Fn(&PublishedVersion) -> bool,
) -> Value {
    let offsets = quirks.time_plus_offsets;
    let mut versions = Map::new();
    let mut time = Map::new();
    if !offsets {
        time.insert("created".into(), timestamp(package.created, false).into());
        time.insert("modified".into(), timestamp(package.modified, false).into());
    }
    for v in &package.versions {
        let (integrity, shasum) = if wrong_integrity(v) {
            let mut other = v.tarball.clone();
            other.extend_from_slice(b"-- not the bytes that are served --");
            (sri_sha512(&other), sha1_hex(&other))
        } else {
            (sri_sha512(&v.tarball), sha1_hex(&v.tarball))
        };
        let dist = json!({
            "tarball": tarball_url(base_url, &package.name, &v.version),
            "integrity": integrity,
            "shasum": shasum,
        });
        let mut doc = Map::new();
        doc.insert("name".into(), package.name.clone().into());
        doc.insert("version".into(), v.version.clone().into());
        if abbreviated {
            for key in ABBREVIATED_VERSION_FIELDS {
                if let Some(value) = v.manifest.get(*key) {
                    doc.insert((*key).into(), value.clone());
                }
            }
        } else {
            for (key, value) in &v.manifest {
                if key != "name" && key != "version" {
                    doc.insert(key.clone(), value.clone());
                }
            }
            doc.insert(
                "_id".into(),
                format!("{}@{}", package.name, v.version).into(),
            );
        }
        doc.insert("dist".into(), dist);
        versions.insert(v.version.clone(), Value::Object(doc));
        time.insert(v.version.clone(), timestamp(v.published, offsets).into());
    }
    let dist_tags: Map<String, Value> = package
        .dist_tags
        .iter()
        .map(|(t, v)| (t.clone(), Value::String(v.clone())))
        .collect();

    let mut doc = Map::new();
    doc.insert("_id".into(), package.name.clone().into());
    doc.insert("name".into(), package.name.clone().into());
    if !quirks.minimal_fields {
        let latest = package
            .dist_tags
            .iter()
            .find(|(t, _)| t == "latest")
            .and_then(|(_, l)| package.versions.iter().find(|v| &v.version == l));
        if let Some(description) = latest.and_then(|v| v.manifest.get("description")) {
            doc.insert("description".into(), description.clone());
        }
        doc.insert(
            "modified".into(),
            timestamp(package.modified, offsets).into(),
        );
        doc.insert(
            "maintainers".into(),
            json!([{"name": "finch-tests", "email": "tests@example.invalid"}]),
        );
        doc.insert("readme".into(), "".into());
    }
    doc.insert("dist-tags".into(), Value::Object(dist_tags));
    doc.insert("versions".into(), Value::Object(versions));
    doc.insert("time".into(), Value::Object(time));
    Value::Object(doc)
}

/// `PUT /<name>` with an `npm publish` body.
fn publish_from_request(state: &mut State, name: &str, body: &[u8]) -> Reply {
    let bad = |why: &str| Reply::json(400, &json!({"error": why}));
    let Ok(Value::Object(doc)) = serde_json::from_slice::<Value>(body) else {
        return bad("body is not a JSON object");
    };
    if name.is_empty() || name.contains("/-/") {
        return Reply::not_found();
    }
    let attachments = doc.get("_attachments").and_then(Value::as_object);
    let Some(versions) = doc.get("versions").and_then(Value::as_object) else {
        return bad("no versions");
    };
    let mut to_publish = Vec::new();
    for version in versions.keys() {
        let file = format!("{}-{version}.tgz", basename(name));
        let attachment = attachments.and_then(|a| {
            a.get(&file)
                .or_else(|| (a.len() == 1).then(|| a.values().next()).flatten())
        });
        let Some(data) = attachment
            .and_then(|a| a.get("data"))
            .and_then(Value::as_str)
        else {
            return bad("missing attachment");
        };
        let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(data) else {
            return bad("attachment is not base64");
        };
        to_publish.push((version.clone(), bytes));
    }
    for (version, bytes) in to_publish {
        publish_locked(state, name, &version, bytes);
    }
    if let Some(tags) = doc.get("dist-tags").and_then(Value::as_object) {
        let tick = state.tick();
        let package = state.package_entry(name, tick);
        for (tag, version) in tags {
            if let Some(version) = version.as_str() {
                set_tag_in(&mut package.dist_tags, tag, version);
            }
        }
    }
    Reply::json(201, &json!({"ok": true}))
}

fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        _ => "Unknown",
    }
}

/// Writes the reply; `Ok(false)` when the connection must close.
fn write_reply(
    shared: &Shared,
    out: &mut TcpStream,
    reply: &Reply,
    head: bool,
    keep_alive: bool,
) -> io::Result<bool> {
    let mut head_bytes = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: {}\r\n",
        reply.status,
        reason(reply.status),
        reply.content_type,
        reply.body.len(),
        if keep_alive { "keep-alive" } else { "close" },
    );
    for (name, value) in &reply.extra_headers {
        head_bytes.push_str(&format!("{name}: {value}\r\n"));
    }
    head_bytes.push_str("\r\n");
    out.write_all(head_bytes.as_bytes())?;
    if head {
        out.flush()?;
        return Ok(true);
    }
    let body = &reply.body;
    match reply.delivery {
        Delivery::Full => {
            out.write_all(body)?;
            out.flush()?;
            Ok(true)
        }
        Delivery::Slow { chunk, delay } => {
            let mut chunks = body.chunks(chunk).peekable();
            while let Some(piece) = chunks.next() {
                out.write_all(piece)?;
                out.flush()?;
                if chunks.peek().is_some() && !pause(shared, delay) {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Delivery::Truncate { after } => {
            out.write_all(&body[..after.min(body.len())])?;
            out.flush()?;
            Ok(false)
        }
        Delivery::Stall { after } => {
            out.write_all(&body[..after.min(body.len())])?;
            out.flush()?;
            let mut state = shared.lock();
            let generation = state.release_generation;
            state.stalls_since_release += 1;
            shared.changed.notify_all();
            let _released = shared
                .changed
                .wait_while(state, |s| s.release_generation == generation && !s.shutdown)
                .unwrap_or_else(|e| e.into_inner());
            Ok(false)
        }
    }
}

/// Sleeps up to `delay`; false when the registry is shutting down.
fn pause(shared: &Shared, delay: Duration) -> bool {
    let state = shared.lock();
    let (state, _) = shared
        .changed
        .wait_timeout_while(state, delay, |s| !s.shutdown)
        .unwrap_or_else(|e| e.into_inner());
    !state.shutdown
}
