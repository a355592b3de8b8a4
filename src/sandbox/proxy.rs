//! finch's network proxy (issue 42): the only way out of a confined tree that has a host list.
//!
//! Such a tree runs in a network namespace of its own (`Access::proxied`) holding nothing but
//! its loopback; no route leads anywhere else, so a program that ignores the proxy reaches
//! nothing — the kernel's routing holds the list, not the program's good will. Before the
//! tree's first program runs, its first process opens a TCP listener on
//! `127.0.0.1:PROXY_PORT` inside the namespace and hands it to finch over a socket pair
//! (`SCM_RIGHTS`, `linux.rs`); finch accepts on it from outside. A socket keeps the namespace
//! it was made in, so the host needs no route in, no forwarding process and no Unix socket in
//! the tree's mount table, and it knows who asks by which listener took the connection: one
//! listener, one principal, no token.
//!
//! What it speaks: HTTP `CONNECT host:port` (any protocol tunnelled, TLS included; the proxy
//! sees only the name and port) and plain HTTP with an absolute URL (`GET http://host/…`), one
//! request per connection (`Connection: close` both ways: a second request on the same
//! connection could name another host). Plain HTTP request bodies need a `Content-Length`
//! (a chunked one is refused with 411). Every attempt is checked (`hosts`): the name or
//! address against the list, then each address the name resolves to (no rebinding into
//! loopback or private ranges unless listed), and recorded in the audit log (`netlog`).
//!
//! The tree gets `HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` (either case) pointing here and no
//! `NO_PROXY`; finch's node bootstrap routes `fetch`, `http` and `https` through it as well.

use std::io::{self, Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::hosts::{self, HostPattern, Target, TargetHost};
use super::netlog::{AuditLog, Verdict};

/// The port of the proxy inside each tree's own network namespace (squid's): the namespace
/// is the tree's alone, so the port is always free there.
pub const PROXY_PORT: u16 = 3128;

/// The variables that point a program at a proxy (and `NO_PROXY`, which would send some
/// requests around it, where nothing leads).
pub const PROXY_VARS: [&str; 8] = [
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
];

/// Whether `name` is one of `PROXY_VARS`.
pub fn is_proxy_var(name: &str) -> bool {
    PROXY_VARS.contains(&name)
}

/// The proxy's address as a tree's programs are told it.
pub fn url() -> String {
    format!("http://127.0.0.1:{PROXY_PORT}")
}

/// What a proxied tree's environment says: the proxy variables, and `FINCH_PROXY` (which
/// finch's node bootstrap reads).
pub fn env() -> impl Iterator<Item = (&'static str, String)> {
    ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "FINCH_PROXY"]
        .into_iter()
        .chain(["http_proxy", "https_proxy", "all_proxy"])
        .map(|name| (name, url()))
}

/// Who asks through one listener.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    /// A mini tool (its node, or an MCP server it brings).
    MiniTool(String),
    /// An approved Bash call (`[sandbox] hosts`).
    Bash,
    /// `finch sandbox run --host`.
    Run,
}

impl Principal {
    /// The name in the audit log: the mini tool's id, `bash` or `run`.
    pub fn log_name(&self) -> &str {
        match self {
            Principal::MiniTool(id) => id,
            Principal::Bash => "bash",
            Principal::Run => "run",
        }
    }

    /// Why `target` was refused, for the program (and so the model) to read: the declaration
    /// that did not list it and how a person adds it.
    pub fn refusal(&self, target: &Target) -> String {
        match self {
            Principal::MiniTool(id) => format!(
                "finch's proxy refused {target}: mini tool {id} may reach only the hosts its manifest's permissions.networkHosts (or [sandbox.minitool_hosts] {id} in finch's config) and a person's grants list; a person can allow it with `finch sandbox grant {id} host={target}`"
            ),
            Principal::Bash => format!(
                "finch's proxy refused {target}: approved commands may reach only the hosts [sandbox] hosts lists in finch's config; a person can add \"{target}\" there"
            ),
            Principal::Run => format!(
                "finch's proxy refused {target}: not among the --host patterns of `finch sandbox run`"
            ),
        }
    }
}

/// A person's answer to a host the list does not name (the console's card).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Once,
    /// Always: recorded as a grant by whoever asked.
    Always,
    Deny,
}

/// Who may be asked about a host the list does not name; absent when nobody can be.
pub type Ask = dyn Fn(&Principal, &Target) -> Answer + Send + Sync;

/// What one listener's connections are held to.
pub struct Policy {
    pub principal: Principal,
    /// The list as it is now (read again for each connection, so a grant or a revoke holds
    /// for the next one).
    pub hosts: Box<dyn Fn() -> Vec<HostPattern> + Send + Sync>,
    pub audit: Option<AuditLog>,
    pub ask: Option<Arc<Ask>>,
    /// The refusals of this tree, in order, for a caller that reports them (the Bash tool
    /// adds them to its output).
    pub refusals: Mutex<Vec<String>>,
}

impl Policy {
    pub fn new(
        principal: Principal,
        hosts: Box<dyn Fn() -> Vec<HostPattern> + Send + Sync>,
    ) -> Policy {
        Policy {
            principal,
            hosts,
            audit: None,
            ask: None,
            refusals: Mutex::new(Vec::new()),
        }
    }

    fn record(&self, target: &str, verdict: Verdict, detail: Option<String>) {
        if let Some(log) = &self.audit {
            log.record(self.principal.log_name(), target, verdict, detail);
        }
    }

    fn refused(&self, message: String) {
        let mut list = self.refusals.lock().unwrap_or_else(|e| e.into_inner());
        if list.len() < 32 && !list.contains(&message) {
            list.push(message);
        }
    }
}

/// A proxy being served on one tree's listener; dropping it stops accepting (connections
/// already open run to their end).
pub struct Serving {
    listener: TcpListener,
}

#[cfg(unix)]
impl Drop for Serving {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        // Wakes the accepting thread (Linux ends a blocked `accept` with an error).
        // SAFETY: shutting down a socket this value owns.
        unsafe {
            libc::shutdown(self.listener.as_raw_fd(), libc::SHUT_RDWR);
        }
    }
}

/// Serves the proxy on `listener` (a tree's, handed over by its first process) under `policy`:
/// one thread accepting, one per connection.
#[cfg(unix)]
pub fn serve(listener: std::os::fd::OwnedFd, policy: Arc<Policy>) -> io::Result<Serving> {
    let listener = TcpListener::from(listener);
    let wake = listener.try_clone()?;
    std::thread::Builder::new()
        .name("finch-proxy".into())
        .spawn(move || {
            loop {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let policy = policy.clone();
                        let _ = std::thread::Builder::new()
                            .name("finch-proxy-conn".into())
                            .spawn(move || handle(stream, &policy));
                    }
                    Err(e)
                        if matches!(
                            e.kind(),
                            io::ErrorKind::Interrupted | io::ErrorKind::ConnectionAborted
                        ) => {}
                    Err(e) if matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE)) => {
                        std::thread::sleep(Duration::from_millis(50));
                    }
                    Err(_) => break,
                }
            }
        })?;
    Ok(Serving { listener: wake })
}

/// The most a request's head may take.
const HEAD_LIMIT: usize = 32 * 1024;
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);

/// One request parsed from its head.
#[derive(Debug, PartialEq, Eq)]
struct Request {
    target: Target,
    /// `CONNECT`: a tunnel. Otherwise the head to send on (origin-form, `Connection: close`)
    /// and the body's length.
    tunnel: bool,
    head: Vec<u8>,
    body: u64,
}

/// Why a request's head is not one the proxy serves.
#[derive(Debug, PartialEq, Eq)]
enum BadRequest {
    Malformed(&'static str),
    Chunked,
}

fn parse(head: &[u8]) -> Result<Request, BadRequest> {
    let text = std::str::from_utf8(head).map_err(|_| BadRequest::Malformed("not text"))?;
    let mut lines = text.split("\r\n");
    let first = lines.next().unwrap_or_default();
    let mut parts = first.split(' ');
    let (Some(method), Some(uri), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(BadRequest::Malformed("a request line of three parts"));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(BadRequest::Malformed("HTTP/1.x"));
    }
    if method == "CONNECT" {
        let target = Target::parse(uri, None).ok_or(BadRequest::Malformed("CONNECT host:port"))?;
        return Ok(Request {
            target,
            tunnel: true,
            head: Vec::new(),
            body: 0,
        });
    }
    let rest = uri.strip_prefix("http://").ok_or(BadRequest::Malformed(
        "an absolute http:// URL (use CONNECT for https)",
    ))?;
    let (authority, path) = match rest.find(['/', '?']) {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, "/"),
    };
    if authority.contains('@') {
        return Err(BadRequest::Malformed("a URL without credentials"));
    }
    let target = Target::parse(authority, Some(80)).ok_or(BadRequest::Malformed("a host"))?;
    let path = if path.starts_with('?') {
        format!("/{path}")
    } else {
        path.to_string()
    };
    let mut out = format!("{method} {path} {version}\r\n");
    let mut body = 0;
    for line in lines.filter(|l| !l.is_empty()) {
        let Some((name, value)) = line.split_once(':') else {
            return Err(BadRequest::Malformed("header lines of name: value"));
        };
        let lower = name.trim().to_ascii_lowercase();
        match lower.as_str() {
            "proxy-connection" | "proxy-authorization" | "connection" | "keep-alive" => continue,
            "transfer-encoding" => return Err(BadRequest::Chunked),
            "content-length" => {
                body = value
                    .trim()
                    .parse()
                    .map_err(|_| BadRequest::Malformed("a Content-Length"))?;
            }
            _ => {}
        }
        out.push_str(line);
        out.push_str("\r\n");
    }
    out.push_str("Connection: close\r\n\r\n");
    Ok(Request {
        target,
        tunnel: false,
        head: out.into_bytes(),
        body,
    })
}

/// Reads up to the end of a request's head: (the head, what came after it).
fn read_head(stream: &mut TcpStream) -> io::Result<(Vec<u8>, Vec<u8>)> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let from = buf.len().saturating_sub(3);
        buf.extend_from_slice(&chunk[..n]);
        if let Some(at) = buf[from..].windows(4).position(|w| w == b"\r\n\r\n") {
            let end = from + at + 4;
            let rest = buf.split_off(end);
            buf.truncate(end - 4);
            return Ok((buf, rest));
        }
        if buf.len() > HEAD_LIMIT {
            return Err(io::Error::other("request head too long"));
        }
    }
}

fn respond(stream: &mut TcpStream, status: &str, message: &str) {
    let body = format!("{message}\n");
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nX-Finch-Proxy: refused\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
    let _ = stream.flush();
}

/// One connection: its request checked, connected, and bytes passed both ways.
fn handle(mut client: TcpStream, policy: &Policy) {
    let _ = client.set_read_timeout(Some(HEAD_TIMEOUT));
    let _ = client.set_nodelay(true);
    let Ok((head, rest)) = read_head(&mut client) else {
        return;
    };
    let request = match parse(&head) {
        Ok(r) => r,
        Err(BadRequest::Chunked) => {
            respond(
                &mut client,
                "411 Length Required",
                "finch's proxy passes plain-HTTP request bodies with a Content-Length only (use https, which it tunnels)",
            );
            return;
        }
        Err(BadRequest::Malformed(what)) => {
            respond(
                &mut client,
                "400 Bad Request",
                &format!("finch's proxy expected {what}"),
            );
            return;
        }
    };
    let target = &request.target;
    let shown = target.to_string();
    let mut list = (policy.hosts)();
    if hosts::matching(&list, target).is_none() {
        let answer = policy
            .ask
            .as_ref()
            .map_or(Answer::Deny, |ask| ask(&policy.principal, target));
        if answer == Answer::Deny {
            let message = policy.principal.refusal(target);
            policy.record(&shown, Verdict::Refused, None);
            policy.refused(message.clone());
            respond(&mut client, "403 Forbidden", &message);
            return;
        }
        // Allowed by a person for this connection (and, for always, granted by the asker):
        // the name's addresses are checked against the list with this host added.
        if let Ok(p) = HostPattern::parse(&shown) {
            list.push(p);
        }
    }
    let addresses: Vec<SocketAddr> = match &target.host {
        TargetHost::Addr(a) => vec![SocketAddr::new(*a, target.port)],
        TargetHost::Name(n) => match (n.as_str(), target.port).to_socket_addrs() {
            Ok(found) => found.collect(),
            Err(e) => {
                policy.record(&shown, Verdict::Failed, Some(format!("resolve: {e}")));
                respond(
                    &mut client,
                    "502 Bad Gateway",
                    &format!("finch's proxy could not resolve {shown}: {e}"),
                );
                return;
            }
        },
    };
    let (allowed, rebound): (Vec<SocketAddr>, Vec<SocketAddr>) = addresses
        .into_iter()
        .partition(|a| hosts::address_allowed(&list, target, a.ip()));
    if allowed.is_empty() {
        let addr = rebound.first().map(SocketAddr::ip);
        let message = match addr {
            Some(a) => format!(
                "finch's proxy refused {shown}: it resolves to {a}, a loopback or private address no entry names (list the address to allow it)"
            ),
            None => format!("finch's proxy found no address for {shown}"),
        };
        policy.record(
            &shown,
            Verdict::RefusedAddress,
            addr.as_ref().map(IpAddr::to_string),
        );
        policy.refused(message.clone());
        respond(&mut client, "403 Forbidden", &message);
        return;
    }
    let mut last_error = None;
    let mut upstream = None;
    for addr in &allowed {
        match TcpStream::connect_timeout(addr, CONNECT_TIMEOUT) {
            Ok(s) => {
                upstream = Some((s, *addr));
                break;
            }
            Err(e) => last_error = Some(e),
        }
    }
    let Some((mut upstream, addr)) = upstream else {
        let e = last_error.map(|e| e.to_string()).unwrap_or_default();
        policy.record(&shown, Verdict::Failed, Some(e.clone()));
        respond(
            &mut client,
            "502 Bad Gateway",
            &format!("finch's proxy could not connect to {shown}: {e}"),
        );
        return;
    };
    policy.record(&shown, Verdict::Allowed, Some(addr.ip().to_string()));
    let _ = upstream.set_nodelay(true);
    let _ = client.set_read_timeout(None);
    if request.tunnel {
        if client
            .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
            .is_err()
            || upstream.write_all(&rest).is_err()
        {
            return;
        }
        splice(client, upstream);
    } else {
        if upstream.write_all(&request.head).is_err() {
            return;
        }
        let sent = (rest.len() as u64).min(request.body);
        if upstream.write_all(&rest[..sent as usize]).is_err() {
            return;
        }
        if request.body > sent {
            let mut body = (&mut client).take(request.body - sent);
            if io::copy(&mut body, &mut upstream).is_err() {
                return;
            }
        }
        let _ = io::copy(&mut upstream, &mut client);
        let _ = client.shutdown(Shutdown::Both);
    }
}

/// Bytes both ways until each side has ended its half.
fn splice(client: TcpStream, upstream: TcpStream) {
    let (Ok(mut client_in), Ok(mut upstream_out)) = (client.try_clone(), upstream.try_clone())
    else {
        return;
    };
    let up = std::thread::Builder::new()
        .name("finch-proxy-up".into())
        .spawn(move || {
            let _ = io::copy(&mut client_in, &mut upstream_out);
            let _ = upstream_out.shutdown(Shutdown::Write);
        });
    let (mut client_out, mut upstream_in) = (client, upstream);
    let _ = io::copy(&mut upstream_in, &mut client_out);
    let _ = client_out.shutdown(Shutdown::Write);
    if let Ok(up) = up {
        let _ = up.join();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_connect_and_absolute_http_requests() {
        let r =
            parse(b"CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443").unwrap();
        assert!(r.tunnel);
        assert_eq!(r.target.to_string(), "api.example.com:443");
        let r = parse(
            b"POST http://Example.com:8080/a?b HTTP/1.1\r\nHost: example.com\r\nProxy-Connection: keep-alive\r\nConnection: keep-alive\r\nContent-Length: 5",
        )
        .unwrap();
        assert!(!r.tunnel);
        assert_eq!(r.target.to_string(), "example.com:8080");
        assert_eq!(r.body, 5);
        assert_eq!(
            String::from_utf8(r.head).unwrap(),
            "POST /a?b HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\nConnection: close\r\n\r\n"
        );
        let r = parse(b"GET http://example.com HTTP/1.0").unwrap();
        assert_eq!(r.target.to_string(), "example.com:80");
        assert!(
            String::from_utf8(r.head)
                .unwrap()
                .starts_with("GET / HTTP/1.0\r\n")
        );
    }

    #[test]
    fn rejects_what_it_cannot_hold_to_one_host() {
        for head in [
            &b"GET /relative HTTP/1.1"[..],
            b"GET https://example.com/ HTTP/1.1",
            b"GET http://user@example.com/ HTTP/1.1",
            b"CONNECT example.com HTTP/1.1",
            b"GET http://example.com/ HTTP/2",
            b"GET http://example.com/ HTTP/1.1 extra",
        ] {
            assert!(
                matches!(parse(head), Err(BadRequest::Malformed(_))),
                "{}",
                String::from_utf8_lossy(head)
            );
        }
        assert_eq!(
            parse(b"POST http://example.com/ HTTP/1.1\r\nTransfer-Encoding: chunked"),
            Err(BadRequest::Chunked)
        );
    }

    #[test]
    fn a_refusal_names_the_declaration_and_the_grant() {
        let t = Target::parse("b.example:443", None).unwrap();
        let text = Principal::MiniTool("finch-x".into()).refusal(&t);
        assert!(text.contains("permissions.networkHosts"), "{text}");
        assert!(
            text.contains("finch sandbox grant finch-x host=b.example:443"),
            "{text}"
        );
        assert!(Principal::Bash.refusal(&t).contains("[sandbox] hosts"));
    }
}
