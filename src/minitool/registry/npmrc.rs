//! Which registry and which bearer token finch uses: `--registry` → finch.toml → environment →
//! the `.npmrc` chain npm reads → `npm config get registry` (SPEC §3.3).
//!
//! Resolution is a function of the inputs it is handed (flag, finch.toml value, an env lookup,
//! directories); it never reads the process environment itself, never hard-codes a registry host,
//! and never lets a token reach `Debug` output or an error message.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::RegistryError;

/// How long `npm config get registry` may take before finch gives up on it.
const NPM_CONFIG_TIMEOUT: Duration = Duration::from_secs(5);

/// Everything registry resolution looks at, gathered once by the caller.
pub struct RegistryInputs<'a> {
    /// `--registry URL`.
    pub flag: Option<&'a str>,
    /// The `registry` value of `<runtime>/config/finch.toml`.
    pub finch_toml: Option<&'a str>,
    /// Environment lookup (the real environment in the binary, a table in tests).
    pub env: &'a dyn Fn(&str) -> Option<String>,
    pub cwd: &'a Path,
    pub home: Option<&'a Path>,
    /// Path of the `npm` executable to ask as a last resort, or `None` not to ask.
    pub npm_command: Option<&'a Path>,
}

/// Where the default registry came from (for `finch where`, `doctor` and error messages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistrySource {
    Flag,
    FinchToml,
    Env,
    Npmrc(PathBuf),
    NpmConfig,
}

impl fmt::Display for RegistrySource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Flag => f.write_str("--registry"),
            Self::FinchToml => f.write_str("finch.toml"),
            Self::Env => f.write_str("npm_config_registry"),
            Self::Npmrc(path) => write!(f, "{}", path.display()),
            Self::NpmConfig => f.write_str("`npm config get registry`"),
        }
    }
}

/// The resolved registries and tokens. `Debug` shows which prefixes have a token, never the token.
#[derive(Clone)]
pub struct RegistryConfig {
    /// The registry for unscoped packages and scopes without their own; always ends with `/`.
    pub default: String,
    /// `@scope` → registry URL (ending with `/`).
    pub scoped: BTreeMap<String, String>,
    /// `//host[:port]/path/` → token.
    tokens: Vec<(String, String)>,
    pub source: RegistrySource,
}

impl fmt::Debug for RegistryConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tokens: Vec<String> = self
            .tokens
            .iter()
            .map(|(prefix, _)| format!("{prefix}:_authToken=<redacted>"))
            .collect();
        f.debug_struct("RegistryConfig")
            .field("default", &self.default)
            .field("scoped", &self.scoped)
            .field("tokens", &tokens)
            .field("source", &self.source)
            .finish()
    }
}

impl RegistryConfig {
    /// The registry that serves `package` (its scope's registry when one is configured).
    pub fn registry_for(&self, package: &str) -> &str {
        package
            .strip_prefix('@')
            .and_then(|scoped| scoped.split_once('/'))
            .and_then(|(scope, _)| self.scoped.get(&format!("@{scope}")))
            .unwrap_or(&self.default)
    }

    /// The token whose `//host/path/` prefix is the longest match for `url`, if any.
    pub fn token_for(&self, url: &str) -> Option<&str> {
        let key = nerf_dart(url)?;
        self.tokens
            .iter()
            .filter(|(prefix, _)| key.starts_with(prefix.as_str()))
            .max_by_key(|(prefix, _)| prefix.len())
            .map(|(_, token)| token.as_str())
    }
}

/// Resolve the registry configuration in npm's order (SPEC §3.3).
pub fn resolve(inputs: &RegistryInputs) -> Result<RegistryConfig, RegistryError> {
    let files = npmrc_chain(inputs);
    let mut parsed = Vec::new();
    for path in files {
        match std::fs::read_to_string(&path) {
            Ok(text) => parsed.push((path, parse_npmrc(&text, inputs.env))),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(RegistryError::Io {
                    action: "read",
                    path,
                    source,
                });
            }
        }
    }

    // Later files in the chain have lower precedence: insert them first, let earlier ones win.
    let mut tokens = BTreeMap::new();
    let mut scoped = BTreeMap::new();
    for (path, rc) in parsed.iter().rev() {
        tokens.extend(rc.tokens.iter().cloned());
        for (scope, url) in &rc.scoped {
            let origin = RegistrySource::Npmrc(path.clone()).to_string();
            scoped.insert(scope.clone(), normalize_registry_url(url, &origin)?);
        }
    }

    let env_registry = ["npm_config_registry", "NPM_CONFIG_REGISTRY"]
        .iter()
        .find_map(|name| non_empty((inputs.env)(name)));
    let chosen = if let Some(url) = inputs.flag {
        Some((url.to_owned(), RegistrySource::Flag))
    } else if let Some(url) = inputs.finch_toml {
        Some((url.to_owned(), RegistrySource::FinchToml))
    } else if let Some(url) = env_registry {
        Some((url, RegistrySource::Env))
    } else if let Some((path, url)) = parsed
        .iter()
        .find_map(|(path, rc)| rc.registry.clone().map(|url| (path, url)))
    {
        Some((url, RegistrySource::Npmrc(path.clone())))
    } else {
        inputs
            .npm_command
            .and_then(|npm| ask_npm(npm, inputs.cwd))
            .map(|url| (url, RegistrySource::NpmConfig))
    };
    let Some((url, source)) = chosen else {
        return Err(RegistryError::NoRegistry);
    };
    let default = normalize_registry_url(&url, &source.to_string())?;
    if source == RegistrySource::Flag {
        // `--registry` means "this registry", for scoped packages too.
        scoped.clear();
    }
    Ok(RegistryConfig {
        default,
        scoped,
        tokens: tokens.into_iter().collect(),
        source,
    })
}

fn non_empty(value: Option<String>) -> Option<String> {
    value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
}

/// Project, user and global `.npmrc`, in precedence order.
fn npmrc_chain(inputs: &RegistryInputs) -> Vec<PathBuf> {
    let env = |names: [&str; 2]| names.iter().find_map(|name| non_empty((inputs.env)(name)));
    let mut files = vec![project_root(inputs.cwd).join(".npmrc")];
    if let Some(user) = env(["npm_config_userconfig", "NPM_CONFIG_USERCONFIG"]) {
        files.push(inputs.cwd.join(user));
    } else if let Some(home) = inputs.home {
        files.push(home.join(".npmrc"));
    }
    if let Some(global) = env(["npm_config_globalconfig", "NPM_CONFIG_GLOBALCONFIG"]) {
        files.push(inputs.cwd.join(global));
    }
    files
}

/// npm's "local prefix": the nearest ancestor holding `package.json` or `node_modules`, else cwd.
fn project_root(cwd: &Path) -> &Path {
    cwd.ancestors()
        .find(|dir| dir.join("package.json").is_file() || dir.join("node_modules").is_dir())
        .unwrap_or(cwd)
}

/// The settings finch cares about from one `.npmrc`.
#[derive(Debug, Default, PartialEq)]
struct Npmrc {
    registry: Option<String>,
    scoped: Vec<(String, String)>,
    tokens: Vec<(String, String)>,
}

/// Parse `.npmrc` the way npm's `ini` does for top-level keys: `key = value`, `;`/`#` comments
/// (also after an unquoted value), quoted values, `${VAR}` expanded.
fn parse_npmrc(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Npmrc {
    let mut rc = Npmrc::default();
    let mut in_section = false;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with(';') || line.starts_with('#') {
            continue;
        }
        if line.starts_with('[') && line.ends_with(']') {
            // npm only reads top-level keys; anything under a section is someone else's.
            in_section = true;
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if in_section {
            continue;
        }
        let key = expand_env(&unquote(key.trim()), env);
        let value = expand_env(&unquote(value.trim()), env);
        if key == "registry" {
            rc.registry = Some(value);
        } else if let Some(scope) = key.strip_suffix(":registry") {
            if scope.starts_with('@') && scope.len() > 1 {
                rc.scoped.push((scope.to_owned(), value));
            }
        } else if let Some(prefix) = key.strip_suffix(":_authToken") {
            // A variable left unexpanded means "no token here", not a literal `${NPM_TOKEN}`.
            if let Some(prefix) = normalize_token_prefix(prefix)
                && !value.is_empty()
                && !value.contains("${")
            {
                rc.tokens.push((prefix, value));
            }
        }
    }
    rc
}

/// `ini`'s value rules: a quoted value is taken whole; otherwise an unescaped `;` or `#` starts a
/// comment and `\;`, `\#`, `\\` are escapes.
fn unquote(raw: &str) -> String {
    let quoted = raw.len() >= 2
        && ((raw.starts_with('"') && raw.ends_with('"'))
            || (raw.starts_with('\'') && raw.ends_with('\'')));
    if quoted {
        let inner = &raw[1..raw.len() - 1];
        if raw.starts_with('"')
            && let Ok(serde_json::Value::String(s)) = serde_json::from_str(raw)
        {
            return s;
        }
        return inner.to_owned();
    }
    let mut out = String::with_capacity(raw.len());
    let mut escaped = false;
    for c in raw.chars() {
        if escaped {
            if !";#\\".contains(c) {
                out.push('\\');
            }
            out.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == ';' || c == '#' {
            break;
        } else {
            out.push(c);
        }
    }
    if escaped {
        out.push('\\');
    }
    out.trim().to_owned()
}

/// npm's env replacement: `${NAME}` → its value (left as written when unset), `${NAME?}` → its
/// value or nothing, `\${NAME}` → the literal text.
fn expand_env(value: &str, env: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else {
            break;
        };
        let backslashes = rest[..start].len() - rest[..start].trim_end_matches('\\').len();
        let end = start + 2 + len + 1;
        let expr = &rest[start..end];
        let name = &rest[start + 2..end - 1];
        out.push_str(&rest[..start - backslashes]);
        out.push_str(&"\\".repeat(backslashes / 2));
        if backslashes % 2 == 1 {
            out.push_str(expr);
        } else {
            let (name, optional) = match name.strip_suffix('?') {
                Some(name) => (name, true),
                None => (name, false),
            };
            match env(name) {
                Some(val) => out.push_str(&val),
                None if optional => {}
                None => out.push_str(expr),
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Check a registry URL is http(s) and give it the trailing `/` every path is joined onto.
fn normalize_registry_url(url: &str, origin: &str) -> Result<String, RegistryError> {
    let url = url.trim();
    let invalid = || RegistryError::InvalidRegistryUrl {
        url: url.to_owned(),
        origin: origin.to_owned(),
    };
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err(invalid());
    };
    let scheme = scheme.to_ascii_lowercase();
    if !(scheme == "http" || scheme == "https") || rest.is_empty() || rest.starts_with('/') {
        return Err(invalid());
    }
    let mut normalized = format!("{scheme}://{rest}");
    if !normalized.ends_with('/') {
        normalized.push('/');
    }
    reqwest::Url::parse(&normalized).map_err(|_| invalid())?;
    Ok(normalized)
}

/// npm's "nerf dart" of a URL: `https://Host:443/a/b?q` → `//host/a/b`, the form token keys use.
fn nerf_dart(url: &str) -> Option<String> {
    let parsed = reqwest::Url::parse(url).ok()?;
    let host = parsed.host_str()?;
    let port = parsed
        .port()
        .map(|port| format!(":{port}"))
        .unwrap_or_default();
    Some(format!("//{host}{port}{}", parsed.path()))
}

/// `//Host:443/path` → `//host/path/`: the same shape `nerf_dart` gives, ending with `/` so a
/// prefix match can only stop at a path boundary.
fn normalize_token_prefix(prefix: &str) -> Option<String> {
    let rest = prefix.strip_prefix("//")?;
    let mut dart = nerf_dart(&format!("https://{rest}"))?;
    if !dart.ends_with('/') {
        dart.push('/');
    }
    Some(dart)
}

/// `npm config get registry`, trimmed; `None` when npm fails, prints nothing, or takes too long.
fn ask_npm(npm: &Path, cwd: &Path) -> Option<String> {
    let mut child = Command::new(npm)
        .args(["config", "get", "registry"])
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    let (tx, rx) = mpsc::channel();
    // A reader thread, so a stalled npm (or a grandchild holding the pipe) cannot block past the
    // deadline.
    std::thread::spawn(move || {
        let mut text = String::new();
        let read = stdout.read_to_string(&mut text).map(|_| text);
        // The receiver may have given up already; nothing left to tell it then.
        let _ = tx.send(read);
    });
    let deadline = Instant::now() + NPM_CONFIG_TIMEOUT;
    let output = rx.recv_timeout(NPM_CONFIG_TIMEOUT);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
            _ => {
                // Best effort: the process may already be gone.
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    if !status?.success() {
        return None;
    }
    non_empty(output.ok()?.ok()).filter(|url| url != "undefined")
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::fs;

    use super::*;

    /// A sealed world: a home, a project below it, and an environment table.
    struct World {
        _dir: tempfile::TempDir,
        home: PathBuf,
        project: PathBuf,
        cwd: PathBuf,
        env: HashMap<String, String>,
    }

    impl World {
        fn new() -> Self {
            let dir = tempfile::tempdir().unwrap();
            let home = dir.path().join("home");
            let project = home.join("project");
            let cwd = project.join("src").join("deep");
            fs::create_dir_all(&cwd).unwrap();
            fs::write(project.join("package.json"), "{}").unwrap();
            Self {
                home,
                project,
                cwd,
                env: HashMap::new(),
                _dir: dir,
            }
        }

        fn write(&self, path: &Path, text: &str) {
            fs::write(path, text).unwrap();
        }

        fn resolve(
            &self,
            flag: Option<&str>,
            finch_toml: Option<&str>,
        ) -> Result<RegistryConfig, RegistryError> {
            let env = |name: &str| self.env.get(name).cloned();
            resolve(&RegistryInputs {
                flag,
                finch_toml,
                env: &env,
                cwd: &self.cwd,
                home: Some(&self.home),
                npm_command: None,
            })
        }
    }

    #[test]
    fn precedence_flag_toml_env_project_user_global() {
        let mut w = World::new();
        let global = w.home.join("global-npmrc");
        w.write(&global, "registry=http://global.test/\n");
        w.env.insert(
            "NPM_CONFIG_GLOBALCONFIG".into(),
            global.display().to_string(),
        );
        let cfg = w.resolve(None, None).unwrap();
        assert_eq!(cfg.default, "http://global.test/");
        assert_eq!(cfg.source, RegistrySource::Npmrc(global.clone()));

        w.write(&w.home.join(".npmrc"), "registry = http://user.test\n");
        let cfg = w.resolve(None, None).unwrap();
        assert_eq!(cfg.default, "http://user.test/");

        w.write(
            &w.project.join(".npmrc"),
            "registry=\"http://project.test/npm/\"\n",
        );
        let cfg = w.resolve(None, None).unwrap();
        assert_eq!(cfg.default, "http://project.test/npm/");
        assert_eq!(cfg.source, RegistrySource::Npmrc(w.project.join(".npmrc")));

        w.env
            .insert("NPM_CONFIG_REGISTRY".into(), "https://env.test/".into());
        let cfg = w.resolve(None, None).unwrap();
        assert_eq!(
            (cfg.default.as_str(), &cfg.source),
            ("https://env.test/", &RegistrySource::Env)
        );

        w.env
            .insert("npm_config_registry".into(), "https://lower.test/".into());
        assert_eq!(
            w.resolve(None, None).unwrap().default,
            "https://lower.test/"
        );

        let cfg = w.resolve(None, Some("https://toml.test")).unwrap();
        assert_eq!(
            (cfg.default.as_str(), &cfg.source),
            ("https://toml.test/", &RegistrySource::FinchToml)
        );

        let cfg = w
            .resolve(Some("HTTPS://flag.test:8443/r"), Some("https://toml.test"))
            .unwrap();
        assert_eq!(
            (cfg.default.as_str(), &cfg.source),
            ("https://flag.test:8443/r/", &RegistrySource::Flag)
        );
    }

    #[test]
    fn user_config_from_env_replaces_home_npmrc() {
        let mut w = World::new();
        w.write(&w.home.join(".npmrc"), "registry=http://home.test/\n");
        let custom = w.home.join("custom-rc");
        w.write(&custom, "registry=http://custom.test/\n");
        w.env
            .insert("npm_config_userconfig".into(), custom.display().to_string());
        assert_eq!(
            w.resolve(None, None).unwrap().default,
            "http://custom.test/"
        );
    }

    #[test]
    fn project_npmrc_is_read_from_cwd_without_a_project() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(".npmrc"), "registry=http://cwd.test/\n").unwrap();
        let env = |_: &str| None;
        let cfg = resolve(&RegistryInputs {
            flag: None,
            finch_toml: None,
            env: &env,
            cwd: dir.path(),
            home: None,
            npm_command: None,
        })
        .unwrap();
        assert_eq!(cfg.default, "http://cwd.test/");
    }

    #[test]
    fn no_registry_anywhere_is_an_error_with_a_hint() {
        let w = World::new();
        let err = w.resolve(None, None).unwrap_err();
        assert!(matches!(err, RegistryError::NoRegistry));
        assert_eq!(
            err.hint().as_deref(),
            Some("pass --registry URL or set registry in <runtime>/config/finch.toml")
        );
    }

    #[cfg(unix)]
    #[test]
    fn asks_npm_last_and_survives_a_broken_npm() {
        use std::os::unix::fs::PermissionsExt as _;
        let w = World::new();
        let env = |_: &str| None;
        let script = |name: &str, body: &str| {
            let path = w.home.join(name);
            fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
            path
        };
        let run = |npm: &Path| {
            resolve(&RegistryInputs {
                flag: None,
                finch_toml: None,
                env: &env,
                cwd: &w.cwd,
                home: Some(&w.home),
                npm_command: Some(npm),
            })
        };
        let good = script("npm-good", "echo \"  http://npm.test/mirror\"");
        let cfg = run(&good).unwrap();
        assert_eq!(
            (cfg.default.as_str(), &cfg.source),
            ("http://npm.test/mirror/", &RegistrySource::NpmConfig)
        );
        let failing = script("npm-bad", "echo http://npm.test/; exit 1");
        assert!(matches!(run(&failing), Err(RegistryError::NoRegistry)));
        assert!(matches!(
            run(&w.home.join("missing")),
            Err(RegistryError::NoRegistry)
        ));
    }

    #[test]
    fn scoped_registries_gathered_from_all_files_unless_flag() {
        let mut w = World::new();
        let global = w.home.join("g");
        w.write(
            &global,
            "@a:registry=http://global-a.test\n@c:registry=http://global-c.test/\n",
        );
        w.env.insert(
            "NPM_CONFIG_GLOBALCONFIG".into(),
            global.display().to_string(),
        );
        w.write(
            &w.home.join(".npmrc"),
            "@a:registry=http://user-a.test/\n@b:registry=http://user-b.test/\n",
        );
        w.write(
            &w.project.join(".npmrc"),
            "registry=http://default.test/\n@b:registry=http://project-b.test/\n",
        );
        let cfg = w.resolve(None, None).unwrap();
        assert_eq!(cfg.registry_for("@a/x"), "http://user-a.test/");
        assert_eq!(cfg.registry_for("@b/x"), "http://project-b.test/");
        assert_eq!(cfg.registry_for("@c/x"), "http://global-c.test/");
        assert_eq!(cfg.registry_for("@d/x"), "http://default.test/");
        assert_eq!(cfg.registry_for("plain"), "http://default.test/");

        let cfg = w.resolve(Some("http://flag.test/"), None).unwrap();
        assert_eq!(cfg.registry_for("@a/x"), "http://flag.test/");
        let cfg = w.resolve(None, Some("http://toml.test/")).unwrap();
        assert_eq!(cfg.registry_for("@a/x"), "http://user-a.test/");
    }

    #[test]
    fn tokens_match_the_longest_prefix_and_expand_env() {
        let mut w = World::new();
        w.env.insert("NPM_TOKEN".into(), "from-env".into());
        w.write(
            &w.home.join(".npmrc"),
            "registry=https://reg.test/npm/\n\
             //reg.test/:_authToken=host-token\n\
             //reg.test/npm/:_authToken=${NPM_TOKEN}\n\
             //other.test:8080/x:_authToken=\"port-token\"\n\
             //unset.test/:_authToken=${NOT_SET}\n\
             //Upper.TEST:443/:_authToken=upper ; trailing comment\n",
        );
        w.write(
            &w.project.join(".npmrc"),
            "//reg.test/:_authToken=project-token\n",
        );
        let cfg = w.resolve(None, None).unwrap();
        let cases: &[(&str, Option<&str>)] = &[
            ("https://reg.test/npm/pkg", Some("from-env")),
            ("https://reg.test/npm/-/pkg-1.0.0.tgz", Some("from-env")),
            ("https://reg.test/other/pkg", Some("project-token")),
            ("http://reg.test/npmx", Some("project-token")),
            ("https://reg.test:444/npm/pkg", None),
            ("https://evil.test/reg.test/npm/pkg", None),
            ("https://reg.test.evil.test/npm/pkg", None),
            ("http://other.test:8080/x/y", Some("port-token")),
            ("http://other.test:8080/xy", None),
            ("http://other.test/x/y", None),
            ("https://unset.test/p", None),
            ("https://upper.test/p", Some("upper")),
            ("not a url", None),
        ];
        for (url, token) in cases {
            assert_eq!(cfg.token_for(url), *token, "{url}");
        }
    }

    #[test]
    fn debug_and_errors_never_show_tokens() {
        let w = World::new();
        w.write(
            &w.project.join(".npmrc"),
            "registry=http://r.test/\n//r.test/:_authToken=SECRET-TOKEN\n@s:registry=ftp://bad\n",
        );
        let err = w.resolve(None, None).unwrap_err();
        assert!(!format!("{err} {err:?}").contains("SECRET"));
        w.write(
            &w.project.join(".npmrc"),
            "registry=http://r.test/\n//r.test/:_authToken=SECRET-TOKEN\n",
        );
        let cfg = w.resolve(None, None).unwrap();
        let debug = format!("{cfg:?} {cfg:#?}");
        assert!(!debug.contains("SECRET"), "{debug}");
        assert!(debug.contains("//r.test/:_authToken=<redacted>"), "{debug}");
    }

    #[test]
    fn rejects_non_http_registries() {
        let w = World::new();
        for bad in [
            "ftp://x.test/",
            "file:///tmp/reg",
            "registry.test",
            "http://",
            "http:///x",
        ] {
            let err = w.resolve(Some(bad), None).unwrap_err();
            assert!(
                matches!(err, RegistryError::InvalidRegistryUrl { .. }),
                "{bad}"
            );
            assert!(err.to_string().contains("from --registry"), "{err}");
        }
    }

    #[test]
    fn parses_npmrc_syntax() {
        let env = |name: &str| (name == "HOST").then(|| "h.test".to_owned());
        let cases: &[(&str, Option<&str>)] = &[
            ("registry=http://a.test/", Some("http://a.test/")),
            ("  registry  =  http://a.test/  ", Some("http://a.test/")),
            ("registry=http://a.test/ ; comment", Some("http://a.test/")),
            ("registry=http://a.test/ # comment", Some("http://a.test/")),
            ("registry=\"http://a.test/#x\"", Some("http://a.test/#x")),
            ("registry='http://a.test/;x'", Some("http://a.test/;x")),
            ("registry=http://a.test/\\#x", Some("http://a.test/#x")),
            ("registry=http://${HOST}/", Some("http://h.test/")),
            ("registry=http://${NOPE}/", Some("http://${NOPE}/")),
            ("registry=http://${NOPE?}h/", Some("http://h/")),
            ("registry=http://\\${HOST}/", Some("http://${HOST}/")),
            ("; registry=http://a.test/", None),
            ("# registry=http://a.test/", None),
            ("[section]\nregistry=http://a.test/", None),
            ("registry", None),
        ];
        for (text, registry) in cases {
            assert_eq!(
                parse_npmrc(text, &env).registry.as_deref(),
                *registry,
                "{text}"
            );
        }
    }
}
