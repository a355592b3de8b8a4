//! The packument (a package's registry document) and choosing one of its versions.
//!
//! The model is deliberately lenient because real mirrors are (SPEC §10): every field may be
//! missing, unknown fields are ignored, a version entry that cannot be read is skipped instead of
//! failing the whole document, and `time` is kept as the strings the registry sent. It never fetches
//! anything and never trusts a version it did not find in `versions`.

use std::collections::BTreeMap;

use nodejs_semver::Version;
use serde::{Deserialize, Deserializer, Serialize};

use super::RegistryError;
use super::integrity::Integrity;
use super::spec::VersionRequest;

/// How many versions a "no match" error lists.
const NEWEST_SHOWN: usize = 5;

/// A registry document: the abbreviated form (`application/vnd.npm.install-v1+json`) or the full
/// one, reduced to what finch uses.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Packument {
    #[serde(default)]
    pub name: String,
    #[serde(rename = "dist-tags", default, deserialize_with = "string_map")]
    pub dist_tags: BTreeMap<String, String>,
    #[serde(default, deserialize_with = "readable_versions")]
    pub versions: BTreeMap<String, VersionMeta>,
    /// Publish times as sent (`created`/`modified` may be missing, offsets may be `+00:00`).
    #[serde(default, deserialize_with = "string_map")]
    pub time: BTreeMap<String, String>,
}

/// One published version, reduced to what finch uses.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VersionMeta {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub version: String,
    pub dist: Dist,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Dist {
    pub tarball: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrity: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shasum: Option<String>,
}

/// Keep the string entries of an object and drop the rest (`time.unpublished` is an object).
fn string_map<'de, D: Deserializer<'de>>(de: D) -> Result<BTreeMap<String, String>, D::Error> {
    let raw = Option::<BTreeMap<String, serde_json::Value>>::deserialize(de)?;
    Ok(raw
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(key, value)| match value {
            serde_json::Value::String(s) => Some((key, s)),
            _ => None,
        })
        .collect())
}

/// Skip version entries that do not fit the model (no `dist.tarball`, wrong types) instead of
/// rejecting the packument; fill a missing `version`/`name` from the key and the document.
fn readable_versions<'de, D: Deserializer<'de>>(
    de: D,
) -> Result<BTreeMap<String, VersionMeta>, D::Error> {
    let raw = Option::<BTreeMap<String, serde_json::Value>>::deserialize(de)?;
    Ok(raw
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(key, value)| {
            let mut meta = VersionMeta::deserialize(value).ok()?;
            if meta.version.is_empty() {
                meta.version.clone_from(&key);
            }
            Some((key, meta))
        })
        .collect())
}

impl Packument {
    /// Parse a registry answer; `name` fills in a document that does not carry its own.
    pub fn from_json(body: &[u8], name: &str) -> Result<Self, serde_json::Error> {
        // serde would read `[]` as an empty struct; a registry answering that is broken, not empty.
        if body.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            return Err(serde::de::Error::custom("expected a JSON object"));
        }
        let mut packument: Self = serde_json::from_slice(body)?;
        if packument.name.is_empty() {
            packument.name = name.to_owned();
        }
        for meta in packument.versions.values_mut() {
            if meta.name.is_empty() {
                meta.name.clone_from(&packument.name);
            }
        }
        Ok(packument)
    }

    /// The version `request` asks for (SPEC §3.3).
    pub fn select(&self, request: &VersionRequest) -> Result<&VersionMeta, RegistryError> {
        match request {
            VersionRequest::Latest => match self.dist_tags.get("latest") {
                Some(version) => self.tagged("latest", version),
                None => self.highest(|v| !v.is_prerelease(), request),
            },
            VersionRequest::Tag(tag) => match self.dist_tags.get(tag) {
                Some(version) => self.tagged(tag, version),
                None => Err(RegistryError::UnknownTag {
                    name: self.name.clone(),
                    tag: tag.clone(),
                    known: self.dist_tags.keys().cloned().collect(),
                }),
            },
            VersionRequest::Exact(wanted) => self.highest(|v| v == wanted, request),
            VersionRequest::Range(range, _) => self.highest(|v| range.satisfies(v), request),
        }
    }

    fn tagged(&self, tag: &str, version: &str) -> Result<&VersionMeta, RegistryError> {
        let wanted = Version::parse(version).ok();
        self.versions
            .get(version)
            .or_else(|| {
                let wanted = wanted.as_ref()?;
                self.parsed()
                    .find(|(v, _)| v == wanted)
                    .map(|(_, meta)| meta)
            })
            .ok_or_else(|| RegistryError::DanglingTag {
                name: self.name.clone(),
                tag: tag.to_owned(),
                version: version.to_owned(),
            })
    }

    /// The highest listed version accepted by `keep`, or a "no match" error for `request`.
    fn highest(
        &self,
        keep: impl Fn(&Version) -> bool,
        request: &VersionRequest,
    ) -> Result<&VersionMeta, RegistryError> {
        self.parsed()
            .filter(|(v, _)| keep(v))
            .max_by(|(a, _), (b, _)| a.cmp(b))
            .map(|(_, meta)| meta)
            .ok_or_else(|| RegistryError::NoMatchingVersion {
                name: self.name.clone(),
                request: request.to_string(),
                newest: self.newest(),
            })
    }

    /// Versions whose key is valid semver (old packages have a few that are not).
    fn parsed(&self) -> impl Iterator<Item = (Version, &VersionMeta)> {
        self.versions
            .iter()
            .filter_map(|(key, meta)| Some((Version::parse(key).ok()?, meta)))
    }

    fn newest(&self) -> Vec<String> {
        let mut versions: Vec<Version> = self.parsed().map(|(v, _)| v).collect();
        versions.sort_unstable_by(|a, b| b.cmp(a));
        versions
            .iter()
            .take(NEWEST_SHOWN)
            .map(ToString::to_string)
            .collect()
    }
}

impl VersionMeta {
    /// What the tarball must hash to: `dist.integrity` (its strongest algorithm), else the sha1
    /// `dist.shasum`. A version with neither cannot be verified and is refused.
    pub fn expected_integrity(&self) -> Result<Integrity, RegistryError> {
        let from_sri = self.dist.integrity.as_deref().map(Integrity::parse);
        let from_shasum = self.dist.shasum.as_deref().map(Integrity::from_shasum);
        match (from_sri, from_shasum) {
            (Some(Ok(integrity)), _) | (_, Some(Ok(integrity))) => Ok(integrity),
            (Some(Err(err)), _) | (None, Some(Err(err))) => Err(err),
            (None, None) => Err(RegistryError::MissingIntegrity {
                name: self.name.clone(),
                version: self.version.clone(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::spec::PackageSpec;
    use super::super::testing::HELLO_SHA512;
    use super::*;

    fn packument(versions: &[&str], tags: serde_json::Value) -> Packument {
        let versions: serde_json::Map<String, serde_json::Value> = versions
            .iter()
            .map(|v| {
                (
                    (*v).to_owned(),
                    json!({"name": "pkg", "version": v, "dist": {
                        "tarball": format!("http://r.test/pkg/-/pkg-{v}.tgz"), "integrity": HELLO_SHA512}}),
                )
            })
            .collect();
        let body = json!({"name": "pkg", "dist-tags": tags, "versions": versions});
        Packument::from_json(body.to_string().as_bytes(), "pkg").unwrap()
    }

    fn pick(doc: &Packument, spec: &str) -> Result<String, String> {
        let request = PackageSpec::parse(&format!("pkg@{spec}")).unwrap().request;
        doc.select(&request)
            .map(|meta| meta.version.clone())
            .map_err(|err| err.to_string())
    }

    #[test]
    fn selects_like_npm() {
        let doc = packument(
            &[
                "0.9.0",
                "1.0.0",
                "1.2.0",
                "1.2.5",
                "1.3.0-beta.1",
                "1.9.9",
                "2.0.0-rc.1",
                "2.0.0",
                "3.1.0",
                "4.0.0-alpha.1",
            ],
            json!({"latest": "2.0.0", "next": "4.0.0-alpha.1", "beta": "1.3.0-beta.1"}),
        );
        let cases: &[(&str, &str)] = &[
            ("", "2.0.0"),
            ("latest", "2.0.0"),
            ("next", "4.0.0-alpha.1"),
            ("beta", "1.3.0-beta.1"),
            ("1.2.0", "1.2.0"),
            ("2.0.0-rc.1", "2.0.0-rc.1"),
            ("^1.2", "1.9.9"),
            ("~1.2.0", "1.2.5"),
            (">=1.0.0 <2.0.0", "1.9.9"),
            ("1.x || 3.x", "3.1.0"),
            ("*", "3.1.0"),
            ("^1.3.0-beta.0", "1.9.9"),
            ("~1.3.0-beta.0", "1.3.0-beta.1"),
            (">=2.0.0-rc.0 <2.0.0", "2.0.0-rc.1"),
            ("^4.0.0-alpha.0", "4.0.0-alpha.1"),
            ("0.9", "0.9.0"),
        ];
        for (spec, want) in cases {
            assert_eq!(pick(&doc, spec).as_deref(), Ok(*want), "{spec}");
        }
    }

    #[test]
    fn explains_what_does_not_match() {
        let doc = packument(
            &[
                "1.0.0",
                "1.1.0",
                "1.2.0",
                "2.0.0",
                "2.1.0",
                "3.0.0",
                "4.0.0-beta.1",
            ],
            json!({"latest": "3.0.0", "next": "4.0.0-beta.1"}),
        );
        let cases: &[(&str, &str)] = &[
            (
                "^9",
                "no version of `pkg` matches `^9` (newest available: 4.0.0-beta.1, 3.0.0, 2.1.0, 2.0.0, 1.2.0)",
            ),
            ("^4", "no version of `pkg` matches `^4`"),
            ("1.0.1", "no version of `pkg` matches `1.0.1`"),
            (
                "canary",
                "package `pkg` has no dist-tag `canary` (known tags: latest, next)",
            ),
        ];
        for (spec, want) in cases {
            let err = pick(&doc, spec).unwrap_err();
            assert!(err.starts_with(want), "{spec}: {err}");
        }
        let dangling = packument(&["1.0.0"], json!({"latest": "1.0.1"}));
        assert_eq!(
            pick(&dangling, "latest").unwrap_err(),
            "dist-tag `latest` of `pkg` points to 1.0.1, which the registry does not list"
        );
    }

    #[test]
    fn latest_without_dist_tags_is_highest_stable() {
        let doc = packument(&["1.0.0", "1.5.0", "2.0.0-beta.1"], json!({}));
        assert_eq!(pick(&doc, "").as_deref(), Ok("1.5.0"));
        let only_pre = packument(&["2.0.0-beta.1"], json!(null));
        assert!(pick(&only_pre, "").unwrap_err().contains("2.0.0-beta.1"));
    }

    #[test]
    fn tolerates_quirky_minimal_documents() {
        let body = json!({
            "_id": "@s/pkg",
            "dist-tags": {"latest": "1.0.1"},
            "time": {"1.0.0": "2024-05-01T10:00:00.000+00:00", "1.0.1": "2024-05-02T10:00:00Z",
                     "unpublished": {"time": "x"}},
            "versions": {
                "1.0.0": {"dist": {"tarball": "http://r.test/a.tgz",
                                   "shasum": "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d"}},
                "1.0.1": {"version": "1.0.1", "dist": {"tarball": "http://r.test/b.tgz",
                          "integrity": HELLO_SHA512, "shasum": "0000"}, "someField": [1, 2]},
                "1.0.2": {"dist": "broken"},
                "not-semver": {"dist": {"tarball": "http://r.test/c.tgz"}}
            },
            "unknown": {"x": 1}
        });
        let doc = Packument::from_json(body.to_string().as_bytes(), "@s/pkg").unwrap();
        assert_eq!(doc.name, "@s/pkg");
        assert_eq!(doc.versions.len(), 3, "the broken entry is skipped");
        let latest = doc.select(&VersionRequest::Latest).unwrap();
        assert_eq!(
            (latest.name.as_str(), latest.version.as_str()),
            ("@s/pkg", "1.0.1")
        );
        assert_eq!(
            latest.expected_integrity().unwrap().to_string(),
            HELLO_SHA512
        );
        let old = doc.versions.get("1.0.0").unwrap();
        assert_eq!(old.version, "1.0.0");
        assert_eq!(
            old.expected_integrity().unwrap().to_string(),
            "sha1-qvTGHdzF6KLavt4PO0gs2a6pQ00="
        );
        let none = doc.versions.get("not-semver").unwrap();
        assert!(matches!(
            none.expected_integrity(),
            Err(RegistryError::MissingIntegrity { .. })
        ));
        assert_eq!(doc.time.len(), 2);
        assert_eq!(
            doc.time.get("1.0.0").map(String::as_str),
            Some("2024-05-01T10:00:00.000+00:00")
        );

        let bare = Packument::from_json(b"{}", "x").unwrap();
        assert!(matches!(
            bare.select(&VersionRequest::Latest),
            Err(RegistryError::NoMatchingVersion { .. })
        ));
        for not_an_object in [&b"[]"[..], b"", b"null", b"\"x\""] {
            assert!(Packument::from_json(not_an_object, "x").is_err());
        }
        assert!(Packument::from_json(b"{\"versions\": null, \"time\": null}", "x").is_ok());
    }

    #[test]
    fn round_trips_through_the_cache_format() {
        let doc = packument(&["1.0.0"], json!({"latest": "1.0.0"}));
        let stored = serde_json::to_vec(&doc).unwrap();
        assert_eq!(Packument::from_json(&stored, "pkg").unwrap(), doc);
    }

    #[test]
    fn broken_sri_falls_back_to_shasum() {
        let meta = VersionMeta {
            name: "a".into(),
            version: "1.0.0".into(),
            dist: Dist {
                tarball: "http://r.test/a.tgz".into(),
                integrity: Some("md5-XUFAKrxLKna5cZ2REBfFkg==".into()),
                shasum: Some("aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d".into()),
            },
        };
        assert_eq!(
            meta.expected_integrity().unwrap().to_string(),
            "sha1-qvTGHdzF6KLavt4PO0gs2a6pQ00="
        );
    }
}
