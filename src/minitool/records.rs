//! Install records, `<tier>/.plugins-lock.json` (SPEC §3.5): where each installed mini tool came
//! from, so that `update` knows how to refresh it. Records of other ids, and keys finch does not
//! know inside a record, are kept as they are.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::store::{JsonError, read_json_object, write_json};

pub const LOCK_RECORDS_FILE: &str = ".plugins-lock.json";

/// Where an install came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Local {
        path: PathBuf,
    },
    Dev {
        path: PathBuf,
    },
    Zip {
        location: Location,
    },
    Tgz {
        location: Location,
    },
    Npm {
        package: String,
        version: String,
        integrity: String,
        spec: Option<String>,
    },
}

/// An archive's location: a URL or a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    Url(String),
    File(PathBuf),
}

impl Origin {
    /// The `type` of the record and the `source` of `FINCH_CLI_RESULT_JSON`.
    pub fn kind(&self) -> &'static str {
        match self {
            Origin::Local { .. } => "local",
            Origin::Dev { .. } => "dev",
            Origin::Zip { .. } => "zip",
            Origin::Tgz { .. } => "tgz",
            Origin::Npm { .. } => "npm",
        }
    }

    /// The record as written; `installed_at` is an ISO-8601 timestamp.
    pub fn to_record(
        &self,
        package: Option<&str>,
        version: Option<&str>,
        installed_at: &str,
    ) -> Map<String, Value> {
        let mut r = Map::new();
        r.insert("type".into(), self.kind().into());
        match self {
            Origin::Local { path } => {
                r.insert("localPath".into(), path.to_string_lossy().into());
            }
            Origin::Dev { path } => {
                r.insert("mode".into(), "development".into());
                r.insert("linked".into(), true.into());
                r.insert("localPath".into(), path.to_string_lossy().into());
            }
            Origin::Zip { location } | Origin::Tgz { location } => match location {
                Location::Url(u) => {
                    r.insert("url".into(), u.clone().into());
                }
                Location::File(p) => {
                    r.insert("localPath".into(), p.to_string_lossy().into());
                }
            },
            Origin::Npm { .. } => {}
        }
        match self {
            Origin::Npm {
                package,
                version,
                integrity,
                spec,
            } => {
                r.insert("package".into(), package.clone().into());
                r.insert("version".into(), version.clone().into());
                r.insert("integrity".into(), integrity.clone().into());
                if let Some(s) = spec {
                    r.insert("spec".into(), s.clone().into());
                }
            }
            // A dev record is exactly what SPEC §3.3 lists; the linked source is read live.
            Origin::Dev { .. } => {}
            _ => {
                if let Some(p) = package {
                    r.insert("package".into(), p.into());
                }
                if let Some(v) = version {
                    r.insert("version".into(), v.into());
                }
            }
        }
        r.insert("installedAt".into(), installed_at.into());
        r
    }

    /// Reads a record back; `None` when its `type` or required fields are missing.
    pub fn from_record(r: &Map<String, Value>) -> Option<Origin> {
        let s = |k: &str| r.get(k).and_then(Value::as_str).map(str::to_string);
        let location = || {
            s("url")
                .map(Location::Url)
                .or_else(|| s("localPath").map(|p| Location::File(p.into())))
        };
        Some(match s("type")?.as_str() {
            "local" => Origin::Local {
                path: s("localPath")?.into(),
            },
            "dev" => Origin::Dev {
                path: s("localPath")?.into(),
            },
            "zip" => Origin::Zip {
                location: location()?,
            },
            "tgz" => Origin::Tgz {
                location: location()?,
            },
            "npm" => Origin::Npm {
                package: s("package")?,
                version: s("version").unwrap_or_default(),
                integrity: s("integrity").unwrap_or_default(),
                spec: s("spec"),
            },
            _ => return None,
        })
    }

    /// A short human description: `npm weather@1.2.0`, `local /src/tool`, …
    pub fn describe(&self) -> String {
        match self {
            Origin::Local { path } => format!("local {}", path.display()),
            Origin::Dev { path } => format!("dev link {}", path.display()),
            Origin::Zip { location } | Origin::Tgz { location } => {
                let at = match location {
                    Location::Url(u) => u.clone(),
                    Location::File(p) => p.display().to_string(),
                };
                format!("{} {at}", self.kind())
            }
            Origin::Npm {
                package, version, ..
            } => format!("npm {package}@{version}"),
        }
    }
}

/// The records file of one tier. Change it only while holding the tier's lock.
#[derive(Debug)]
pub struct LockRecords {
    path: PathBuf,
    doc: Map<String, Value>,
}

impl LockRecords {
    pub fn load(tier_dir: &Path) -> Result<LockRecords, JsonError> {
        let path = tier_dir.join(LOCK_RECORDS_FILE);
        let doc = read_json_object(&path)?.unwrap_or_default();
        Ok(LockRecords { path, doc })
    }

    pub fn get(&self, id: &str) -> Option<&Map<String, Value>> {
        self.doc.get(id).and_then(Value::as_object)
    }

    pub fn origin(&self, id: &str) -> Option<Origin> {
        self.get(id).and_then(Origin::from_record)
    }

    pub fn set(&mut self, id: &str, record: Map<String, Value>) {
        self.doc.insert(id.to_string(), Value::Object(record));
    }

    pub fn remove(&mut self, id: &str) -> bool {
        self.doc.shift_remove(id).is_some()
    }

    pub fn save(&self) -> Result<(), JsonError> {
        write_json(&self.path, &json!(self.doc))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let origins = [
            Origin::Local {
                path: "/src/tool".into(),
            },
            Origin::Dev {
                path: "/src/dev".into(),
            },
            Origin::Zip {
                location: Location::Url("https://h/t.zip".into()),
            },
            Origin::Tgz {
                location: Location::File("/tmp/t.tgz".into()),
            },
            Origin::Npm {
                package: "@a/b".into(),
                version: "1.0.0".into(),
                integrity: "sha512-x".into(),
                spec: Some("^1".into()),
            },
        ];
        for o in origins {
            let r = o.to_record(Some("pkg"), Some("1.0.0"), "2026-01-01T00:00:00Z");
            assert_eq!(Origin::from_record(&r), Some(o.clone()), "{r:?}");
            assert_eq!(r["type"], o.kind());
        }
    }

    #[test]
    fn dev_record_matches_the_spec() {
        let r = Origin::Dev {
            path: "/src".into(),
        }
        .to_record(None, None, "T");
        assert_eq!(
            Value::Object(r),
            json!({"type":"dev","mode":"development","linked":true,"localPath":"/src","installedAt":"T"})
        );
    }

    #[test]
    fn other_ids_and_unknown_keys_survive() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(LOCK_RECORDS_FILE),
            r#"{"other":{"type":"local","localPath":"/o","custom":1},"x":{"type":"npm","package":"x"}}"#,
        )
        .unwrap();
        let mut records = LockRecords::load(dir.path()).unwrap();
        records.remove("x");
        records.set(
            "new",
            Origin::Local { path: "/n".into() }.to_record(None, None, "T"),
        );
        records.save().unwrap();
        let text = std::fs::read_to_string(dir.path().join(LOCK_RECORDS_FILE)).unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            doc["other"],
            json!({"type":"local","localPath":"/o","custom":1})
        );
        assert!(doc.get("x").is_none());
        assert_eq!(doc["new"]["localPath"], "/n");
    }
}
