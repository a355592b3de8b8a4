//! The download cache (`<runtime>/cache/minitools/`): verified tarballs keyed by package and
//! version, and the last good packument of each package for offline runs.
//!
//! A cached tarball is only handed out after its integrity is checked again; one that fails is
//! deleted. The cache never holds anything finch could not rebuild from the registry, so a broken
//! entry is treated as missing rather than as an error. It never touches anything outside its root.

use std::fs::{self, File};
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use super::RegistryError;
use super::integrity::Integrity;
use super::packument::Packument;

const PACKUMENT_FILE: &str = "packument.json";

/// A download cache rooted at a directory the caller chose.
#[derive(Debug, Clone)]
pub struct Cache {
    root: PathBuf,
}

impl Cache {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// `<root>/<package>/<version>.tgz`, both made safe as single path components.
    pub fn tarball_path(&self, name: &str, version: &str) -> PathBuf {
        self.package_dir(name)
            .join(format!("{}.tgz", path_component(version)))
    }

    /// Keep `packument` as the package's last good document (written atomically).
    pub fn store_packument(&self, name: &str, packument: &Packument) -> Result<(), RegistryError> {
        let dir = self.package_dir(name);
        let io = |action: &'static str, path: &Path| {
            let path = path.to_owned();
            move |source| RegistryError::Io {
                action,
                path,
                source,
            }
        };
        fs::create_dir_all(&dir).map_err(io("create", &dir))?;
        let path = dir.join(PACKUMENT_FILE);
        let body = serde_json::to_vec(packument).map_err(|err| RegistryError::Io {
            action: "write",
            path: path.clone(),
            source: err.into(),
        })?;
        let mut temp = tempfile::NamedTempFile::new_in(&dir).map_err(io("write", &path))?;
        temp.write_all(&body).map_err(io("write", &path))?;
        temp.as_file().sync_all().map_err(io("write", &path))?;
        temp.persist(&path).map_err(|err| RegistryError::Io {
            action: "write",
            path: path.clone(),
            source: err.error,
        })?;
        Ok(())
    }

    /// The last good packument of `name`, if one was stored and still parses.
    pub fn load_packument(&self, name: &str) -> Option<Packument> {
        let body = fs::read(self.package_dir(name).join(PACKUMENT_FILE)).ok()?;
        Packument::from_json(&body, name).ok()
    }

    /// The cached tarball of `name@version`, if present and it still matches `integrity`. A file
    /// that does not match is deleted so the next download replaces it.
    pub fn cached_tarball(
        &self,
        name: &str,
        version: &str,
        integrity: &Integrity,
    ) -> Option<PathBuf> {
        let path = self.tarball_path(name, version);
        let mut file = File::open(&path).ok()?;
        let mut verifier = integrity.verifier();
        let mut buf = vec![0; 64 * 1024];
        loop {
            match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => verifier.update(&buf[..n]),
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
        drop(file);
        if verifier.finish().is_ok() {
            Some(path)
        } else {
            // Best effort: if it cannot be removed, the download's rename replaces it anyway.
            let _ = fs::remove_file(&path);
            None
        }
    }

    fn package_dir(&self, name: &str) -> PathBuf {
        self.root.join(path_component(name))
    }
}

/// One safe path component for a package name or version: `@scope/name` → `@scope+name` (`+` never
/// occurs in package names), and anything a filesystem could misread — separators, `:`, `*`,
/// control characters, a leading `.` — percent-encoded, so distinct inputs stay distinct.
fn path_component(raw: &str) -> String {
    let scope_slash = raw.strip_prefix('@').and_then(|_| raw.find('/'));
    let mut out = String::with_capacity(raw.len());
    for (i, c) in raw.char_indices() {
        let keep = c.is_ascii_alphanumeric() || "-_~'!()@+".contains(c) || (c == '.' && i > 0);
        if Some(i) == scope_slash {
            out.push('+');
        } else if keep {
            out.push(c);
        } else {
            let mut bytes = [0; 4];
            for b in c.encode_utf8(&mut bytes).bytes() {
                out.push_str(&format!("%{b:02x}"));
            }
        }
    }
    if out.is_empty() {
        out.push_str("%00");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testing::HELLO_SHA512;
    use super::*;

    #[test]
    fn keys_tarballs_by_safe_package_and_version() {
        let cache = Cache::new("/c");
        let cases: &[(&str, &str, &str)] = &[
            ("left-pad", "1.3.0", "/c/left-pad/1.3.0.tgz"),
            (
                "@scope/name",
                "2.0.0-beta.1+build.5",
                "/c/@scope+name/2.0.0-beta.1+build.5.tgz",
            ),
            ("JSONStream", "1.0.0", "/c/JSONStream/1.0.0.tgz"),
            (
                "..",
                "../../etc/passwd",
                "/c/%2e./%2e.%2f..%2fetc%2fpasswd.tgz",
            ),
            ("a*b", "1:2\\3", "/c/a%2ab/1%3a2%5c3.tgz"),
            ("", "", "/c/%00/%00.tgz"),
        ];
        for (name, version, want) in cases {
            assert_eq!(
                cache.tarball_path(name, version),
                PathBuf::from(want),
                "{name} {version}"
            );
        }
    }

    #[test]
    fn re_verifies_cached_tarballs() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        let integrity = Integrity::parse(HELLO_SHA512).unwrap();
        assert_eq!(cache.cached_tarball("@s/a", "1.0.0", &integrity), None);

        let path = cache.tarball_path("@s/a", "1.0.0");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, "hello").unwrap();
        assert_eq!(
            cache.cached_tarball("@s/a", "1.0.0", &integrity),
            Some(path.clone())
        );

        fs::write(&path, "tampered").unwrap();
        assert_eq!(cache.cached_tarball("@s/a", "1.0.0", &integrity), None);
        assert!(!path.exists(), "a tarball failing verification is deleted");
    }

    #[test]
    fn keeps_the_last_good_packument() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("not-yet-created");
        let cache = Cache::new(&root);
        assert_eq!(cache.load_packument("@s/a"), None);
        let body = br#"{"name":"@s/a","dist-tags":{"latest":"1.0.0"},"versions":{"1.0.0":{"dist":{"tarball":"http://r.test/a.tgz","integrity":"sha1-qvTGHdzF6KLavt4PO0gs2a6pQ00="}}}}"#;
        let doc = Packument::from_json(body, "@s/a").unwrap();
        cache.store_packument("@s/a", &doc).unwrap();
        assert_eq!(cache.load_packument("@s/a"), Some(doc));

        fs::write(root.join("@s+a").join(PACKUMENT_FILE), "{ truncated").unwrap();
        assert_eq!(
            cache.load_packument("@s/a"),
            None,
            "a corrupt copy counts as missing"
        );
    }
}
