//! Host lists (issue 42): the patterns a mini tool's `permissions.networkHosts`, a person's
//! `[sandbox.hosts]`, `[sandbox] hosts` and `finch sandbox grant <id> host=…` name, and the
//! two checks the proxy (`proxy.rs`) makes of each connection: does the requested host match
//! an entry, and may the address it resolved to be reached. Pure: no I/O, no resolving.
//!
//! An entry is a name (`api.example.com`), a suffix (`*.feishu.cn`: any name below it, not the
//! name itself), an address (`10.0.0.5`, `[::1]`) or a range (`10.0.0.0/8`), each with an
//! optional `:port` (default: any port). A request for an address literal matches only an
//! address entry and a request for a name only a name entry, so `localhost:8080` lets a
//! program ask for `localhost:8080` and not for `127.0.0.1:8080`.
//!
//! Loopback, private, link-local and other non-public addresses are reachable only when the
//! list names them: a name that resolves to one (a DNS answer that "rebinds" a public name
//! into the person's network) is refused unless an address entry covers that address, or the
//! name is `localhost` itself (or below `.localhost`) and the address is loopback.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// One entry of a host list.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HostPattern {
    host: PatternHost,
    port: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum PatternHost {
    /// A name, lower case, without a trailing dot.
    Name(String),
    /// `*.suffix`: names ending in `.suffix` (the suffix stored without `*.`).
    Suffix(String),
    /// An address range: `10.0.0.0/8`; a single address has the full length.
    Range(IpAddr, u8),
}

/// What a program asked to reach: a name or an address literal, and a port.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Target {
    pub host: TargetHost,
    pub port: u16,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TargetHost {
    Name(String),
    Addr(IpAddr),
}

/// Why an entry is not a host pattern.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{text:?} is not a host pattern: {why} (use a name, *.suffix, an address or a range, each with an optional :port)"
)]
pub struct PatternError {
    pub text: String,
    pub why: &'static str,
}

impl HostPattern {
    pub fn parse(text: &str) -> Result<HostPattern, PatternError> {
        let err = |why| PatternError {
            text: text.to_string(),
            why,
        };
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(err("it is empty"));
        }
        if trimmed.contains("://") || trimmed.contains('/') && !looks_like_range(trimmed) {
            return Err(err("a host, not a URL"));
        }
        let (host, port) = split_port(trimmed).map_err(err)?;
        let host = if let Some((addr, len)) = host.split_once('/') {
            let addr: IpAddr = addr.parse().map_err(|_| err("a range needs an address"))?;
            let len: u8 = len
                .parse()
                .map_err(|_| err("a range's length is a number"))?;
            if len > max_len(addr) {
                return Err(err("the range's length is too long for its address"));
            }
            PatternHost::Range(addr, len)
        } else if let Ok(addr) = host.parse::<IpAddr>() {
            PatternHost::Range(addr, max_len(addr))
        } else if let Some(suffix) = host.strip_prefix("*.") {
            PatternHost::Suffix(name(suffix).ok_or_else(|| err("not a host name"))?)
        } else {
            PatternHost::Name(name(host).ok_or_else(|| err("not a host name"))?)
        };
        Ok(HostPattern { host, port })
    }

    /// Whether `target` is what this entry names (the address a name resolves to is checked
    /// apart, `address_allowed`).
    pub fn matches(&self, target: &Target) -> bool {
        if self.port.is_some_and(|p| p != target.port) {
            return false;
        }
        match (&self.host, &target.host) {
            (PatternHost::Name(n), TargetHost::Name(t)) => n == t,
            (PatternHost::Suffix(s), TargetHost::Name(t)) => {
                t.len() > s.len() + 1 && t.ends_with(s.as_str()) && {
                    let dot = t.len() - s.len() - 1;
                    t.as_bytes()[dot] == b'.'
                }
            }
            (PatternHost::Range(net, len), TargetHost::Addr(a)) => in_range(*a, *net, *len),
            _ => false,
        }
    }

    /// Whether this entry names an address range holding `addr` (on `port`).
    fn covers_address(&self, addr: IpAddr, port: u16) -> bool {
        self.port.is_none_or(|p| p == port)
            && matches!(self.host, PatternHost::Range(net, len) if in_range(addr, net, len))
    }
}

impl fmt::Display for HostPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.host {
            PatternHost::Name(n) => f.write_str(n)?,
            PatternHost::Suffix(s) => write!(f, "*.{s}")?,
            PatternHost::Range(a, len) if *len == max_len(*a) => match a {
                IpAddr::V6(_) if self.port.is_some() => write!(f, "[{a}]")?,
                _ => write!(f, "{a}")?,
            },
            PatternHost::Range(a, len) => write!(f, "{a}/{len}")?,
        }
        match self.port {
            Some(p) => write!(f, ":{p}"),
            None => Ok(()),
        }
    }
}

impl Target {
    /// `host:port` as a CONNECT request or a URL's authority names it (`[v6]:port`); `None`
    /// for anything else. A name is taken lower case without a trailing dot.
    pub fn parse(authority: &str, default_port: Option<u16>) -> Option<Target> {
        let (host, port) = match split_port(authority) {
            Ok((host, Some(port))) => (host, port),
            Ok((host, None)) => (host, default_port?),
            Err(_) => return None,
        };
        if port == 0 {
            return None;
        }
        let host = match host.parse::<IpAddr>() {
            Ok(addr) => TargetHost::Addr(addr),
            Err(_) => TargetHost::Name(name(host)?),
        };
        Some(Target { host, port })
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.host {
            TargetHost::Name(n) => write!(f, "{n}:{}", self.port),
            TargetHost::Addr(IpAddr::V6(a)) => write!(f, "[{a}]:{}", self.port),
            TargetHost::Addr(a) => write!(f, "{a}:{}", self.port),
        }
    }
}

/// The first entry of `list` that `target` matches.
pub fn matching<'a>(list: &'a [HostPattern], target: &Target) -> Option<&'a HostPattern> {
    list.iter().find(|p| p.matches(target))
}

/// Whether a connection to `addr`, which `target` (allowed by `list`) resolved to, may be made:
/// a public address may; a non-public one (loopback, private, link-local, …) only when an
/// address entry of `list` covers it, or when `target` is `localhost` and `addr` loopback.
pub fn address_allowed(list: &[HostPattern], target: &Target, addr: IpAddr) -> bool {
    let addr = canonical(addr);
    if is_public(addr) {
        return true;
    }
    if list.iter().any(|p| p.covers_address(addr, target.port)) {
        return true;
    }
    match &target.host {
        TargetHost::Name(n) => {
            addr.is_loopback() && (n == "localhost" || n.ends_with(".localhost"))
        }
        TargetHost::Addr(_) => false,
    }
}

/// An IPv4-mapped IPv6 address as the IPv4 address it is.
fn canonical(addr: IpAddr) -> IpAddr {
    match addr {
        IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map(IpAddr::V4)
            .unwrap_or(IpAddr::V6(v6)),
        v4 => v4,
    }
}

/// Whether `addr` is on the public internet: not loopback, private, shared (CGNAT),
/// link-local, unspecified, multicast, broadcast, documentation or benchmarking space, and for
/// IPv6 not unique-local, link-local or a form that embeds one of those.
pub fn is_public(addr: IpAddr) -> bool {
    match canonical(addr) {
        IpAddr::V4(a) => is_public_v4(a),
        IpAddr::V6(a) => is_public_v6(a),
    }
}

fn is_public_v4(a: Ipv4Addr) -> bool {
    let [b0, b1, ..] = a.octets();
    !(a.is_loopback()
        || a.is_private()
        || a.is_link_local()
        || a.is_unspecified()
        || a.is_multicast()
        || a.is_broadcast()
        || a.is_documentation()
        || b0 == 0
        || b0 >= 240
        || (b0 == 100 && (64..128).contains(&b1))
        || (b0 == 198 && (b1 == 18 || b1 == 19))
        || (b0 == 192 && b1 == 0 && a.octets()[2] == 0))
}

fn is_public_v6(a: Ipv6Addr) -> bool {
    let s = a.segments();
    if let Some(v4) = a.to_ipv4() {
        // ::a.b.c.d (compatible) and the NAT64 prefix carry an IPv4 address.
        if s[0] == 0 && s[1] == 0 && s[2] == 0 && s[3] == 0 && s[4] == 0 {
            return is_public_v4(v4);
        }
    }
    if s[0] == 0x64 && s[1] == 0xff9b {
        let v4 = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
        return is_public_v4(v4);
    }
    !(a.is_loopback()
        || a.is_unspecified()
        || a.is_multicast()
        || (s[0] & 0xfe00) == 0xfc00
        || (s[0] & 0xffc0) == 0xfe80
        || (s[0] & 0xffc0) == 0xfec0
        || (s[0] == 0x2001 && s[1] == 0x0db8))
}

fn max_len(addr: IpAddr) -> u8 {
    match addr {
        IpAddr::V4(_) => 32,
        IpAddr::V6(_) => 128,
    }
}

fn in_range(addr: IpAddr, net: IpAddr, len: u8) -> bool {
    match (canonical(addr), canonical(net)) {
        (IpAddr::V4(a), IpAddr::V4(n)) => {
            let mask = u32::MAX
                .checked_shl(32 - u32::from(len.min(32)))
                .unwrap_or(0);
            u32::from(a) & mask == u32::from(n) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(n)) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
            u128::from(a) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}

fn looks_like_range(text: &str) -> bool {
    text.split_once('/')
        .is_some_and(|(a, l)| !a.is_empty() && l.chars().all(|c| c.is_ascii_digit() || c == ':'))
}

/// `host[:port]`, `[v6][:port]` or a bare v6 address (no port).
fn split_port(text: &str) -> Result<(&str, Option<u16>), &'static str> {
    let port = |p: &str| -> Result<Option<u16>, &'static str> {
        match p.parse::<u16>() {
            Ok(0) | Err(_) => Err("the port is not a number from 1 to 65535"),
            Ok(p) => Ok(Some(p)),
        }
    };
    if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest.split_once(']').ok_or("an unclosed [")?;
        return match after.strip_prefix(':') {
            Some(p) => Ok((host, port(p)?)),
            None if after.is_empty() => Ok((host, None)),
            None => Err("text after ]"),
        };
    }
    match text.matches(':').count() {
        0 => Ok((text, None)),
        1 => {
            let (host, p) = text.split_once(':').ok_or("a port")?;
            Ok((host, port(p)?))
        }
        // A bare IPv6 address (a port needs brackets).
        _ => Ok((text, None)),
    }
}

/// A host name, lower case, without a trailing dot; `None` when it is not one.
fn name(text: &str) -> Option<String> {
    let text = text.strip_suffix('.').unwrap_or(text);
    let ok = !text.is_empty()
        && text.len() <= 253
        && text.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        });
    ok.then(|| text.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> HostPattern {
        HostPattern::parse(text).unwrap()
    }

    fn t(text: &str) -> Target {
        Target::parse(text, None).unwrap()
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn accepts_names_suffixes_addresses_and_ranges_with_optional_ports() {
        for (text, shown) in [
            ("api.example.com", "api.example.com"),
            ("API.Example.com.", "api.example.com"),
            ("*.feishu.cn:443", "*.feishu.cn:443"),
            ("localhost:8080", "localhost:8080"),
            ("10.0.0.5", "10.0.0.5"),
            ("10.0.0.0/8", "10.0.0.0/8"),
            ("::1", "::1"),
            ("[::1]:8080", "[::1]:8080"),
            ("[fd00::1]", "fd00::1"),
        ] {
            assert_eq!(p(text).to_string(), shown, "{text}");
        }
    }

    #[test]
    fn rejects_urls_bad_ports_and_junk() {
        for text in [
            "",
            "https://api.example.com",
            "api.example.com/path",
            "host:0",
            "host:65536",
            "host:http",
            "a..b",
            "*.",
            "[::1",
            "[::1]x",
            "10.0.0.0/33",
            "bad name",
        ] {
            assert!(HostPattern::parse(text).is_err(), "{text:?} was accepted");
        }
    }

    #[test]
    fn a_name_matches_itself_on_any_port_or_its_own() {
        assert!(p("api.example.com").matches(&t("api.example.com:443")));
        assert!(p("api.example.com").matches(&t("API.example.com.:80")));
        assert!(p("api.example.com:443").matches(&t("api.example.com:443")));
        assert!(!p("api.example.com:443").matches(&t("api.example.com:80")));
        assert!(!p("api.example.com").matches(&t("evil-api.example.com:443")));
        assert!(!p("api.example.com").matches(&t("api.example.com.evil:443")));
    }

    #[test]
    fn a_suffix_matches_names_below_it_only() {
        let s = p("*.feishu.cn:443");
        assert!(s.matches(&t("open.feishu.cn:443")));
        assert!(s.matches(&t("a.b.feishu.cn:443")));
        assert!(!s.matches(&t("feishu.cn:443")));
        assert!(!s.matches(&t("evilfeishu.cn:443")));
        assert!(!s.matches(&t("open.feishu.cn:80")));
    }

    #[test]
    fn an_address_literal_matches_only_an_address_entry_and_a_name_only_a_name_entry() {
        assert!(!p("localhost:8080").matches(&t("127.0.0.1:8080")));
        assert!(!p("127.0.0.1:8080").matches(&t("localhost:8080")));
        assert!(p("127.0.0.1:8080").matches(&t("127.0.0.1:8080")));
        assert!(p("10.0.0.0/8").matches(&t("10.1.2.3:22")));
        assert!(!p("10.0.0.0/8").matches(&t("11.1.2.3:22")));
        assert!(p("::1").matches(&t("[::1]:80")));
        assert!(
            p("127.0.0.1").matches(&t("[::ffff:127.0.0.1]:80")),
            "an IPv4-mapped address is the IPv4 address"
        );
        assert!(!p("*.0.0.1").matches(&t("127.0.0.1:80")));
    }

    #[test]
    fn loopback_and_private_addresses_need_an_entry_that_names_them() {
        let list = [p("api.example.com"), p("localhost:8080"), p("10.0.0.5")];
        let api = t("api.example.com:443");
        assert!(address_allowed(&list, &api, ip("93.184.216.34")));
        for rebound in [
            "127.0.0.1",
            "10.0.0.6",
            "192.168.1.1",
            "172.16.0.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "64:ff9b::7f00:1",
        ] {
            assert!(
                !address_allowed(&list, &api, ip(rebound)),
                "{rebound} was let through"
            );
        }
        assert!(address_allowed(&list, &api, ip("10.0.0.5")));
        let local = t("localhost:8080");
        assert!(address_allowed(&list, &local, ip("127.0.0.1")));
        assert!(address_allowed(&list, &local, ip("::1")));
        assert!(!address_allowed(&list, &local, ip("10.0.0.9")));
        // An address literal is allowed only by an address entry.
        assert!(!address_allowed(
            &list,
            &t("127.0.0.1:8080"),
            ip("127.0.0.1")
        ));
        assert!(address_allowed(
            &[p("127.0.0.1:8080")],
            &t("127.0.0.1:8080"),
            ip("127.0.0.1")
        ));
        assert!(!address_allowed(
            &[p("127.0.0.1:8080")],
            &t("127.0.0.1:9"),
            ip("127.0.0.1")
        ));
    }

    #[test]
    fn public_addresses_are_told_from_the_rest() {
        for public in ["1.1.1.1", "93.184.216.34", "2606:4700::1111"] {
            assert!(is_public(ip(public)), "{public}");
        }
        for private in [
            "127.0.0.2",
            "10.1.1.1",
            "224.0.0.1",
            "255.255.255.255",
            "2001:db8::1",
        ] {
            assert!(!is_public(ip(private)), "{private}");
        }
    }

    #[test]
    fn targets_parse_from_authorities() {
        assert_eq!(t("Example.COM:443").to_string(), "example.com:443");
        assert_eq!(t("[::1]:80").to_string(), "[::1]:80");
        assert_eq!(
            Target::parse("example.com", Some(80)).unwrap().to_string(),
            "example.com:80"
        );
        assert!(Target::parse("example.com", None).is_none());
        assert!(Target::parse("example.com:0", None).is_none());
        assert!(Target::parse("bad host:80", None).is_none());
        assert_eq!(
            matching(&[p("a.com"), p("b.com")], &t("b.com:1")),
            Some(&p("b.com"))
        );
    }
}
