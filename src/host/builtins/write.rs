//! `Write` (SPEC §8.6): replaces a whole file with the given text, creating missing parent
//! directories. The write is atomic (temp file, fsync, rename), so a reader never sees half a
//! file, and an existing file keeps its permissions. Through a symbolic link the link's target
//! is written and the link stays a link.

use std::path::Path;

use serde_json::{Value, json};

use super::super::catalog::ToolDef;
use super::super::output::{Content, ToolOutput};
use super::Cx;
use super::read::real_target;
use super::{resolve_path, str_arg};

/// What people type when they want this tool (ToolSearch ranks it beside the description).
pub const KEYWORDS: &str = "create new file save write content overwrite output generate file. 新建文件 创建文件 写入文件 保存文件 写文件 覆盖文件 生成文件 新增檔案 建立檔案 寫入檔案 儲存檔案";

pub fn def() -> ToolDef {
    super::def(
        "Write",
        "Write a file",
        "Write a file to the local filesystem: creates `file_path` with `content`, or replaces \
         everything in it when it exists. Missing parent directories are created. The file is \
         replaced atomically and keeps its permissions. To change part of an existing file, \
         prefer Edit, which only needs the text that changes. `file_path` may be absolute, \
         relative to the working directory, or start with `~`.",
        json!({
            "type": "object",
            "properties": {
                "file_path": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The file to write: absolute, relative to the working directory, or starting with `~`"
                },
                "content": {
                    "type": "string",
                    "description": "The complete new content of the file"
                }
            },
            "required": ["file_path", "content"],
            "additionalProperties": false
        }),
    )
}

pub fn call(args: &Value, cx: &Cx) -> ToolOutput {
    let (Some(raw), Some(content)) = (str_arg(args, "file_path"), str_arg(args, "content")) else {
        return ToolOutput::error("Write needs `file_path` and `content`.");
    };
    let path = resolve_path(cx, raw);
    let real = match real_target(cx, "Write", "file_path", &path) {
        Ok(real) => real,
        Err(message) => return ToolOutput::error(message),
    };
    let shown = path.display();
    let before = match std::fs::metadata(&real) {
        Ok(meta) if meta.is_dir() => {
            return ToolOutput::error(format!(
                "`{shown}` is a directory; Write writes files. Give a file path inside it."
            ));
        }
        Ok(meta) => Some(meta.len()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return ToolOutput::error(format!("Cannot write `{shown}`: {e}.")),
    };
    let new_dirs = real.parent().is_some_and(|p| !p.is_dir());
    if let Err(e) = crate::store::write_atomic(&real, content.as_bytes()) {
        return ToolOutput::error(format!("Cannot write `{shown}`: {e}."));
    }
    written(&path, content.len(), before, new_dirs)
}

/// What the model is told: created or overwritten, and how big the file is now.
fn written(path: &Path, bytes: usize, before: Option<u64>, new_dirs: bool) -> ToolOutput {
    let shown = path.display();
    let mut text = match before {
        None => format!("Created `{shown}` ({bytes} bytes)."),
        Some(old) => format!("Overwrote `{shown}` ({bytes} bytes; it had {old})."),
    };
    if new_dirs {
        text.push_str(" Missing parent directories were created.");
    }
    ToolOutput {
        content: vec![Content::Text(text)],
        structured: Some(json!({
            "path": path,
            "bytes": bytes,
            "created": before.is_none(),
        })),
        is_error: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_created_or_overwritten() {
        let path = Path::new("/w/a.txt");
        let out = written(path, 5, None, true);
        assert_eq!(
            out.text_content(),
            "Created `/w/a.txt` (5 bytes). Missing parent directories were created."
        );
        assert_eq!(
            out.structured,
            Some(json!({"path": "/w/a.txt", "bytes": 5, "created": true}))
        );
        let out = written(path, 0, Some(12), false);
        assert_eq!(
            out.text_content(),
            "Overwrote `/w/a.txt` (0 bytes; it had 12)."
        );
        assert_eq!(out.structured.unwrap()["created"], false);
    }
}
