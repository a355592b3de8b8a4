//! Subresource Integrity strings (`sha512-<base64>`) as npm publishes them, and a streaming
//! verifier that hashes bytes as they arrive.
//!
//! Only the strongest supported algorithm of an SRI string is checked, as npm's `ssri` does. This
//! module never decides what to do on a mismatch beyond reporting both digests; it never reads or
//! deletes files.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha384, Sha512};

use super::RegistryError;

/// A hash algorithm SRI strings may name, weakest first so `max` picks the strongest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Algorithm {
    Sha1,
    Sha256,
    Sha384,
    Sha512,
}

impl Algorithm {
    fn from_name(name: &str) -> Option<Self> {
        match name {
            "sha1" => Some(Self::Sha1),
            "sha256" => Some(Self::Sha256),
            "sha384" => Some(Self::Sha384),
            "sha512" => Some(Self::Sha512),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Sha1 => "sha1",
            Self::Sha256 => "sha256",
            Self::Sha384 => "sha384",
            Self::Sha512 => "sha512",
        }
    }

    fn digest_len(self) -> usize {
        match self {
            Self::Sha1 => 20,
            Self::Sha256 => 32,
            Self::Sha384 => 48,
            Self::Sha512 => 64,
        }
    }
}

/// The expected digest(s) of one blob, in the strongest algorithm the SRI string offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Integrity {
    algorithm: Algorithm,
    /// SRI allows several digests of one algorithm; matching any of them is enough.
    digests: Vec<Vec<u8>>,
}

impl Integrity {
    /// Parse an SRI string: space-separated `algo-base64[?options]` items. Items with an unknown
    /// algorithm are skipped; at least one supported item must remain.
    pub fn parse(value: &str) -> Result<Self, RegistryError> {
        let invalid = |reason: &str| RegistryError::InvalidIntegrity {
            value: value.to_owned(),
            reason: reason.to_owned(),
        };
        let mut items = Vec::new();
        for item in value.split_whitespace() {
            let Some((name, rest)) = item.split_once('-') else {
                return Err(invalid("each item must look like `sha512-<base64>`"));
            };
            let Some(algorithm) = Algorithm::from_name(&name.to_ascii_lowercase()) else {
                continue;
            };
            let encoded = rest
                .split_once('?')
                .map_or(rest, |(digest, _options)| digest);
            let digest = BASE64
                .decode(encoded)
                .map_err(|_| invalid("the digest is not valid base64"))?;
            if digest.len() != algorithm.digest_len() {
                return Err(invalid(&format!(
                    "a {} digest has {} bytes, not {}",
                    algorithm.name(),
                    algorithm.digest_len(),
                    digest.len()
                )));
            }
            items.push((algorithm, digest));
        }
        let Some(algorithm) = items.iter().map(|(algorithm, _)| *algorithm).max() else {
            return Err(invalid("no sha1, sha256, sha384 or sha512 digest in it"));
        };
        let digests = items
            .into_iter()
            .filter(|(a, _)| *a == algorithm)
            .map(|(_, digest)| digest)
            .collect();
        Ok(Self { algorithm, digests })
    }

    /// The legacy `dist.shasum` field: a hex sha1.
    pub fn from_shasum(hex: &str) -> Result<Self, RegistryError> {
        let invalid = || RegistryError::InvalidIntegrity {
            value: hex.to_owned(),
            reason: "a shasum is 40 hexadecimal digits".to_owned(),
        };
        let hex = hex.trim();
        if hex.len() != 40 || !hex.is_ascii() {
            return Err(invalid());
        }
        let digest = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16))
            .collect::<Result<Vec<u8>, _>>()
            .map_err(|_| invalid())?;
        Ok(Self {
            algorithm: Algorithm::Sha1,
            digests: vec![digest],
        })
    }

    /// A verifier that hashes with this integrity's algorithm and checks against its digests.
    pub fn verifier(&self) -> Verifier {
        Verifier {
            expected: Some(self.clone()),
            hasher: Hasher::new(self.algorithm),
        }
    }
}

impl fmt::Display for Integrity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, digest) in self.digests.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{}-{}", self.algorithm.name(), BASE64.encode(digest))?;
        }
        Ok(())
    }
}

/// Hashes a blob piece by piece, then says whether it matched.
pub struct Verifier {
    /// `None` for a recorder, which only reports the digest.
    expected: Option<Integrity>,
    hasher: Hasher,
}

impl Verifier {
    /// A sha512 hasher that expects nothing: for downloads that publish no integrity.
    pub fn recorder() -> Self {
        Self {
            expected: None,
            hasher: Hasher::new(Algorithm::Sha512),
        }
    }

    pub fn update(&mut self, bytes: &[u8]) {
        self.hasher.update(bytes);
    }

    /// The actual SRI string of everything hashed, or a mismatch naming both digests.
    pub fn finish(self) -> Result<String, RegistryError> {
        let algorithm = self
            .expected
            .as_ref()
            .map_or(Algorithm::Sha512, |e| e.algorithm);
        let digest = self.hasher.finish();
        let actual = format!("{}-{}", algorithm.name(), BASE64.encode(&digest));
        match self.expected {
            Some(expected) if !expected.digests.contains(&digest) => {
                Err(RegistryError::IntegrityMismatch {
                    expected: expected.to_string(),
                    actual,
                })
            }
            _ => Ok(actual),
        }
    }
}

enum Hasher {
    Sha1(Sha1),
    Sha256(Sha256),
    Sha384(Sha384),
    Sha512(Sha512),
}

impl Hasher {
    fn new(algorithm: Algorithm) -> Self {
        match algorithm {
            Algorithm::Sha1 => Self::Sha1(Sha1::new()),
            Algorithm::Sha256 => Self::Sha256(Sha256::new()),
            Algorithm::Sha384 => Self::Sha384(Sha384::new()),
            Algorithm::Sha512 => Self::Sha512(Sha512::new()),
        }
    }

    fn update(&mut self, bytes: &[u8]) {
        match self {
            Self::Sha1(h) => h.update(bytes),
            Self::Sha256(h) => h.update(bytes),
            Self::Sha384(h) => h.update(bytes),
            Self::Sha512(h) => h.update(bytes),
        }
    }

    fn finish(self) -> Vec<u8> {
        match self {
            Self::Sha1(h) => h.finalize().to_vec(),
            Self::Sha256(h) => h.finalize().to_vec(),
            Self::Sha384(h) => h.finalize().to_vec(),
            Self::Sha512(h) => h.finalize().to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HELLO_SHA512: &str = "sha512-m3HSJL1i83hdltRq0+o9czGb+8KJDKra4t/3JRlnPKcjI8PZm6XBHXx6zG4UuMXaDEZjR1wuXDre9G9zvN7AQw==";
    const HELLO_SHA256: &str = "sha256-LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=";
    const HELLO_SHA1_HEX: &str = "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d";
    const HELLO_SHA1: &str = "sha1-qvTGHdzF6KLavt4PO0gs2a6pQ00=";

    fn verify(integrity: &Integrity, chunks: &[&[u8]]) -> Result<String, RegistryError> {
        let mut verifier = integrity.verifier();
        for chunk in chunks {
            verifier.update(chunk);
        }
        verifier.finish()
    }

    #[test]
    fn verifies_known_vectors_in_pieces() {
        for sri in [HELLO_SHA512, HELLO_SHA256, HELLO_SHA1] {
            let integrity = Integrity::parse(sri).unwrap();
            assert_eq!(integrity.to_string(), sri);
            assert_eq!(verify(&integrity, &[b"he", b"", b"llo"]).unwrap(), sri);
        }
        let shasum = Integrity::from_shasum(HELLO_SHA1_HEX).unwrap();
        assert_eq!(shasum.to_string(), HELLO_SHA1);
        assert_eq!(verify(&shasum, &[b"hello"]).unwrap(), HELLO_SHA1);
    }

    #[test]
    fn picks_the_strongest_supported_algorithm() {
        let mixed = format!("{HELLO_SHA1} md5-XUFAKrxLKna5cZ2REBfFkg== {HELLO_SHA512}?opt");
        let integrity = Integrity::parse(&mixed).unwrap();
        assert_eq!(integrity.to_string(), HELLO_SHA512);
        assert!(verify(&integrity, &[b"hello"]).is_ok());
    }

    #[test]
    fn mismatch_names_both_digests() {
        let integrity = Integrity::parse(HELLO_SHA512).unwrap();
        let err = verify(&integrity, &[b"hellO"]).unwrap_err();
        let message = err.to_string();
        assert!(message.contains(HELLO_SHA512), "{message}");
        assert!(matches!(
            &err,
            RegistryError::IntegrityMismatch { actual, .. }
                if actual.starts_with("sha512-") && actual != HELLO_SHA512
        ));
    }

    #[test]
    fn rejects_malformed_values() {
        for bad in [
            "",
            "md5-XUFAKrxLKna5cZ2REBfFkg==",
            "sha512",
            "sha512-!!!",
            "sha512-qvTGHdzF6KLavt4PO0gs2a6pQ00=",
        ] {
            assert!(Integrity::parse(bad).is_err(), "{bad}");
        }
        for bad in ["", "abc", &"zz".repeat(20), &"a".repeat(42)] {
            assert!(Integrity::from_shasum(bad).is_err(), "{bad}");
        }
    }
}
