//! Test support: a one-thread loopback HTTP/1.1 server that answers a fixed script of replies, one
//! per connection, then closes its port (so later requests see "connection refused").
//!
//! Only for unit tests of the client; the integration suite tests registry faults in depth.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{Shutdown, TcpListener};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use super::npmrc::{RegistryConfig, RegistryInputs, resolve};

/// One scripted answer.
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Send only this many body bytes (while announcing the full length), then hang up.
    pub cut_at: Option<usize>,
}

impl Reply {
    pub fn new(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: body.into(),
            cut_at: None,
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    pub fn cut_at(mut self, bytes: usize) -> Self {
        self.cut_at = Some(bytes);
        self
    }
}

/// What the server saw of one request: its path and headers (names lowercased).
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub headers: Vec<(String, String)>,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

pub struct Server {
    /// `http://127.0.0.1:<port>/`
    pub url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    thread: JoinHandle<()>,
}

impl Server {
    /// Start serving the replies `script` builds from the server's base URL.
    pub fn start(script: impl FnOnce(&str) -> Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let replies = script(&url);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let thread = std::thread::spawn(move || {
            for reply in replies {
                let Ok((stream, _)) = listener.accept() else {
                    return;
                };
                stream
                    .set_read_timeout(Some(Duration::from_secs(5)))
                    .unwrap();
                let mut reader = BufReader::new(&stream);
                let mut request_line = String::new();
                reader.read_line(&mut request_line).unwrap();
                let path = request_line
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or_default()
                    .to_owned();
                let mut headers = Vec::new();
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                        break;
                    }
                    if let Some((name, value)) = line.split_once(':') {
                        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
                    }
                }
                log.lock().unwrap().push(Seen { path, headers });
                let mut out = format!(
                    "HTTP/1.1 {} Scripted\r\nContent-Length: {}\r\nConnection: close\r\n",
                    reply.status,
                    reply.body.len()
                );
                for (name, value) in &reply.headers {
                    out.push_str(&format!("{name}: {value}\r\n"));
                }
                out.push_str("\r\n");
                let mut stream = &stream;
                let body = &reply.body[..reply.cut_at.unwrap_or(reply.body.len())];
                // The client may hang up first (e.g. on a status it will not read further).
                let _ = stream.write_all(out.as_bytes());
                let _ = stream.write_all(body);
                let _ = stream.flush();
                let _ = stream.shutdown(Shutdown::Both);
            }
        });
        Self { url, seen, thread }
    }

    /// Wait until every reply was served and the port is closed.
    pub fn finish(self) -> Vec<Seen> {
        let seen = Arc::clone(&self.seen);
        self.thread.join().unwrap();
        seen.lock().unwrap().clone()
    }
}

/// A tokio runtime as the binary builds it, plus the crypto provider the binary installs.
pub fn block_on<T>(future: impl Future<Output = T>) -> T {
    // Fails only when another test already installed it, which is just as good.
    let _ = rustls::crypto::ring::default_provider().install_default();
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

/// A config for `registry` with an optional `.npmrc` (for tokens) in `dir`.
pub fn config(registry: &str, dir: &Path, npmrc: &str) -> RegistryConfig {
    std::fs::write(dir.join(".npmrc"), npmrc).unwrap();
    let env = |_: &str| None;
    resolve(&RegistryInputs {
        flag: Some(registry),
        finch_toml: None,
        env: &env,
        cwd: dir,
        home: None,
        npm_command: None,
    })
    .unwrap()
}

/// A packument with one version `1.0.0` whose tarball is `tarball` and hashes to `integrity`.
pub fn packument_json(name: &str, tarball: &str, integrity: &str) -> String {
    serde_json::json!({
        "name": name,
        "dist-tags": {"latest": "1.0.0"},
        "versions": {"1.0.0": {"name": name, "version": "1.0.0",
                               "dist": {"tarball": tarball, "integrity": integrity}}}
    })
    .to_string()
}

pub const HELLO_SHA512: &str = "sha512-m3HSJL1i83hdltRq0+o9czGb+8KJDKra4t/3JRlnPKcjI8PZm6XBHXx6zG4UuMXaDEZjR1wuXDre9G9zvN7AQw==";
