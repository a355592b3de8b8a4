//! Source map v3 lookups for `finch dev`: where in the author's sources a position of the
//! bundle comes from, so an activation error names `src/index.ts:12:5` rather than
//! `dist/index.js:48:11`. Only `sources`, `sourceRoot` and `mappings` are read; the `mappings`
//! Base64 VLQ is decoded here (the source map crates on crates.io bring far more than these
//! sixty lines: URL parsing, serde types for every field, index maps).

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// A decoded map: per generated line, its segments `(generated column, source, line, column)`,
/// all 0-based, sorted by generated column.
#[derive(Debug, Clone)]
pub struct SourceMap {
    sources: Vec<String>,
    lines: Vec<Vec<(u32, u32, u32, u32)>>,
}

/// A position in a source, 1-based as editors and stack traces count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    pub source: String,
    pub line: u32,
    pub column: u32,
}

impl SourceMap {
    /// Parses a source map's JSON text.
    pub fn parse(text: &str) -> Result<SourceMap, String> {
        let doc: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let root = doc["sourceRoot"].as_str().unwrap_or("");
        let sources = doc["sources"]
            .as_array()
            .ok_or("no \"sources\" array")?
            .iter()
            .map(|s| format!("{root}{}", s.as_str().unwrap_or("")))
            .collect();
        let mappings = doc["mappings"].as_str().ok_or("no \"mappings\" string")?;
        let mut lines = Vec::new();
        let (mut src, mut src_line, mut src_col) = (0i64, 0i64, 0i64);
        for line in mappings.split(';') {
            let mut gen_col = 0i64;
            let mut segments = Vec::new();
            for seg in line.split(',').filter(|s| !s.is_empty()) {
                let fields = decode_vlq(seg)?;
                gen_col += fields[0];
                if fields.len() >= 4 {
                    src += fields[1];
                    src_line += fields[2];
                    src_col += fields[3];
                    let as_u32 = |v: i64| u32::try_from(v).map_err(|_| "a negative position");
                    segments.push((
                        as_u32(gen_col)?,
                        as_u32(src)?,
                        as_u32(src_line)?,
                        as_u32(src_col)?,
                    ));
                }
            }
            segments.sort_unstable();
            lines.push(segments);
        }
        Ok(SourceMap { sources, lines })
    }

    /// The source position of the generated `line`:`column` (1-based): the last segment of
    /// that line at or before the column.
    pub fn lookup(&self, line: u32, column: u32) -> Option<Position> {
        let segments = self.lines.get(line.checked_sub(1)? as usize)?;
        let col = column.saturating_sub(1);
        let seg = segments.iter().rev().find(|s| s.0 <= col)?;
        Some(Position {
            source: self.sources.get(seg.1 as usize)?.clone(),
            line: seg.2 + 1,
            column: seg.3 + 1,
        })
    }
}

/// Decodes one segment of Base64 VLQ numbers.
fn decode_vlq(segment: &str) -> Result<Vec<i64>, String> {
    let mut out = Vec::new();
    let (mut value, mut shift) = (0i64, 0u32);
    for c in segment.bytes() {
        let digit = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return Err(format!("{:?} is not a Base64 VLQ digit", c as char)),
        } as i64;
        if shift > 60 {
            return Err("a VLQ number too large".into());
        }
        value += (digit & 31) << shift;
        if digit & 32 != 0 {
            shift += 5;
            continue;
        }
        out.push(if value & 1 == 1 {
            -(value >> 1)
        } else {
            value >> 1
        });
        value = 0;
        shift = 0;
    }
    if shift != 0 {
        return Err("a VLQ number that does not end".into());
    }
    if out.is_empty() {
        return Err("an empty segment".into());
    }
    Ok(out)
}

static POSITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:file://)?(/[^\s:()]+|[A-Za-z]:[^\s:()]+|[^\s:()/][^\s:()]*):(\d+):(\d+)")
        .unwrap_or_else(|e| unreachable!("static regex: {e}"))
});

/// `text` with every `<bundle>:line:column` (the bundle's path absolute, as a `file://` URL
/// or relative to `package`) followed by ` (<source>:line:column)`, the source relative to
/// `package`.
pub fn annotate(text: &str, bundle: &Path, package: &Path, map: &SourceMap) -> String {
    let bundle_rel = bundle.strip_prefix(package).unwrap_or(bundle);
    let map_dir = bundle.parent().unwrap_or(package);
    POSITION
        .replace_all(text, |caps: &regex::Captures| {
            let whole = caps[0].to_string();
            let path = Path::new(&caps[1]);
            if path != bundle && path != bundle_rel {
                return whole;
            }
            let (Ok(line), Ok(col)) = (caps[2].parse(), caps[3].parse()) else {
                return whole;
            };
            match map.lookup(line, col) {
                Some(p) => {
                    let source = map_dir.join(&p.source);
                    let source = normalize(&source);
                    let shown = source.strip_prefix(package).unwrap_or(&source);
                    format!("{whole} ({}:{}:{})", shown.display(), p.line, p.column)
                }
                None => whole,
            }
        })
        .into_owned()
}

/// `a/b/../c` → `a/c`, without touching the disk.
fn normalize(path: &Path) -> std::path::PathBuf {
    let mut out = std::path::PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_vlq() {
        assert_eq!(decode_vlq("AAAA").unwrap(), [0, 0, 0, 0]);
        assert_eq!(decode_vlq("AACA").unwrap(), [0, 0, 1, 0]);
        assert_eq!(decode_vlq("D").unwrap(), [-1]);
        assert_eq!(decode_vlq("gB").unwrap(), [16]);
        assert_eq!(decode_vlq("2HwB").unwrap(), [123, 24]);
        assert!(decode_vlq("g").is_err());
        assert!(decode_vlq("A!").is_err());
    }

    /// The map esbuild 0.28 writes for `export function activate() {` / `  throw new
    /// Error("boom");` / `}`: the bundle's third line is the source's second.
    const MAP: &str = r#"{"version":3,"sources":["../src/index.ts"],"sourcesContent":[],"mappings":";AAAO,SAAS,WAAW;AACzB,QAAM,IAAI,MAAM,MAAM;AACxB;","names":[]}"#;

    #[test]
    fn finds_the_source_line_of_a_bundle_position() {
        let map = SourceMap::parse(MAP).unwrap();
        assert_eq!(
            map.lookup(3, 9),
            Some(Position {
                source: "../src/index.ts".into(),
                line: 2,
                column: 9
            })
        );
        assert_eq!(map.lookup(1, 1), None);
        assert_eq!(map.lookup(99, 1), None);
    }

    #[test]
    fn annotates_stack_positions_of_the_bundle_only() {
        let map = SourceMap::parse(MAP).unwrap();
        let pkg = Path::new("/p");
        let text = "Error: boom\n    at activate (file:///p/dist/index.js:3:9)\n    at x (/p/other.js:3:9)";
        assert_eq!(
            annotate(text, Path::new("/p/dist/index.js"), pkg, &map),
            "Error: boom\n    at activate (file:///p/dist/index.js:3:9 (src/index.ts:2:9))\n    at x (/p/other.js:3:9)"
        );
    }

    #[test]
    fn rejects_maps_without_mappings() {
        assert!(SourceMap::parse("{}").is_err());
        assert!(SourceMap::parse("[").is_err());
    }
}
