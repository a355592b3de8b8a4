//! `Read` (SPEC §8.6): a text file as numbered lines (`cat -n` style) from a 1-based line
//! `offset`, at most `limit` lines, long lines cut and the whole answer capped; an image (PNG,
//! JPEG, GIF, WebP) as image content; a PDF as the text of its pages (`read_pdf`); every other
//! binary file, directory or special file is refused with an error that says what to do
//! instead. Text is streamed line by line, so a huge file can be read in pieces without ever
//! being held in memory.
//!
//! It also holds what the five file tools share: the symlink check on the real target, how a
//! path is shown in results, line cutting, and integer arguments.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::{Value, json};

use super::super::catalog::ToolDef;
use super::super::output::{Content, ToolOutput};
use super::super::policy::real_path;
use super::super::session::SessionState;
use super::Cx;
use super::{resolve_path, str_arg};

/// Lines returned when the call gives no `limit`.
const DEFAULT_LIMIT: u64 = 2000;
/// Characters kept of one line (Read and Grep): minified files must not flood the answer.
pub(super) const MAX_LINE_CHARS: usize = 2000;
/// The most text one Read returns; the rest is one `offset` away.
const OUTPUT_CAP: usize = 256 * 1024;
/// The largest image Read returns (the common model API limit per image).
const IMAGE_CAP: u64 = 5 * 1024 * 1024;
/// How much of a file is looked at to tell images and binary files from text.
const SNIFF_LEN: usize = 8192;

/// What people type when they want this tool (ToolSearch ranks it beside the description).
pub const KEYWORDS: &str = "open view show cat print display file contents lines source code PDF pages image picture screenshot document. 读取文件 查看文件 打开文件 显示文件内容 看代码 阅读PDF 打开PDF 查看图片 读文档 讀取檔案 查看檔案 打開檔案 顯示檔案內容 閱讀PDF 查看圖片";

pub fn def() -> ToolDef {
    super::def(
        "Read",
        "Read a file",
        "Read a file from the local filesystem. Text comes back with line numbers (`cat -n` \
         style: the number, a tab, the line), starting at line `offset` (1-based, default 1) for \
         at most `limit` lines (default 2000); lines longer than 2000 characters are cut, and one \
         answer holds at most 256 KiB of text — the answer says which `offset` continues. Images \
         (PNG, JPEG, GIF, WebP, up to 5 MiB) come back as image content. A PDF (up to 64 MiB) \
         comes back as the text of its pages, each after a `--- page N ---` line: at most 20 \
         pages or 256 KiB of text a call, chosen with `pages` (\"3\", \"1-5\", \"8-\", \
         \"1-3,7\"; default from page 1) — the answer names the `pages` that continue; a page \
         with only images (a scan) says so, and encrypted or damaged PDFs are refused with the \
         reason. Served over MCP, a PDF of up to 8 MiB also comes back whole, after its text, as \
         an embedded resource (`application/pdf`). Other binary files (archives, executables) and directories are refused: use \
         Glob to list a directory. `file_path` may be absolute, relative to the working directory, or start \
         with `~`.",
        json!({
            "type": "object",
            "properties": {
                "file_path": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The file to read: absolute, relative to the working directory, or starting with `~`"
                },
                "offset": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "The line number to start reading at (1-based; default 1)"
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "The number of lines to read (default 2000)"
                },
                "pages": {
                    "type": "string",
                    "minLength": 1,
                    "description": "PDF only: the pages to read, such as \"3\", \"1-5\", \"8-\" or \"1-3,7\" (default from page 1; at most 20 a call)"
                }
            },
            "required": ["file_path"],
            "additionalProperties": false
        }),
    )
}

pub fn call(args: &Value, cx: &Cx) -> ToolOutput {
    let Some(raw) = str_arg(args, "file_path") else {
        return ToolOutput::error("Read needs `file_path`: the file to read.");
    };
    let path = resolve_path(cx, raw);
    let shown = path.display();
    // The usual case: a regular file, opened through the path the gateway judged. Beneath the
    // working directory the kernel keeps the open from leaving it through a link; elsewhere
    // the real path is read back from the open descriptor and checked.
    if let Some(meta) = regular_file(&path) {
        let beneath = cx.session.cwd_dir().and_then(|cwd_dir| {
            let inner = path.strip_prefix(&cx.session.cwd).ok()?;
            open_beneath(cwd_dir, inner, &meta)
        });
        if let Some(mut file) = beneath {
            return read_file(args, &path, &mut file, meta.len(), cx.env.embed_resources);
        }
        if let Ok(mut file) = File::open(&path) {
            let real = opened_path(&file).unwrap_or_else(|| real_path(&path));
            if let Err(message) = check_real(cx, "Read", "file_path", &path, &real) {
                return ToolOutput::error(message);
            }
            return read_file(args, &path, &mut file, meta.len(), cx.env.embed_resources);
        }
    }
    // Everything else (missing, a directory, a special file, unreadable) takes the careful
    // order: the link check first, so nothing is said about what lies outside.
    let real = match real_target(cx, "Read", "file_path", &path) {
        Ok(real) => real,
        Err(message) => return ToolOutput::error(message),
    };
    let meta = match std::fs::metadata(&real) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return ToolOutput::error(format!(
                "`{shown}` does not exist. Check the path, or use Glob to find the file."
            ));
        }
        Err(e) => return ToolOutput::error(format!("Cannot read `{shown}`: {e}.")),
    };
    if meta.is_dir() {
        return ToolOutput::error(format!(
            "`{shown}` is a directory, not a file. Use Glob (for example pattern `*` with path \
             `{shown}`) to list what it holds, then Read one of its files."
        ));
    }
    if !meta.is_file() {
        return ToolOutput::error(format!(
            "`{shown}` is not a regular file (a device, socket or pipe); Read reads regular files."
        ));
    }
    let mut file = match File::open(&real) {
        Ok(file) => file,
        Err(e) => return ToolOutput::error(format!("Cannot read `{shown}`: {e}.")),
    };
    read_file(args, &path, &mut file, meta.len(), cx.env.embed_resources)
}

/// Files up to this size are read in place by a front end that runs jobs on other threads
/// (`Started::Brief`): reading them takes microseconds, less than a hand-off to another thread.
const BRIEF_LEN: u64 = 64 * 1024;

/// Whether this call reads a regular file of at most `BRIEF_LEN` bytes that is no PDF (looked
/// at once more by the call itself): a call sure to be brief. Anything else — a larger file, a
/// PDF (its parse may take up to `read_pdf`'s time limit), a path that is no regular file —
/// may take longer, and is not.
pub(super) fn is_brief(args: &Value, session: &SessionState) -> bool {
    let Some(raw) = str_arg(args, "file_path") else {
        return false;
    };
    let path = super::resolve_in(session, raw);
    if regular_file(&path).is_none_or(|meta| meta.len() > BRIEF_LEN) {
        return false;
    }
    let mut head = [0u8; 8];
    let Ok(read) = File::open(&path).and_then(|mut file| file.read(&mut head)) else {
        return false;
    };
    sniff(&head[..read]) != Some(Kind::Pdf)
}

/// The metadata of `path` (following links) when it is a regular file; `None` for anything
/// else, and when it cannot be looked at. Looked at before opening, so that nothing else (a
/// pipe, a device) is ever opened.
fn regular_file(path: &Path) -> Option<std::fs::Metadata> {
    std::fs::metadata(path).ok().filter(|meta| meta.is_file())
}

/// The regular file `inner` (a path relative to the directory `dir`, described by `meta`)
/// opened with `openat2(RESOLVE_BENEATH)`: the kernel refuses any link, `..` or absolute path
/// that would leave `dir`, so what opens lies inside it and needs no real-path check (this
/// spares the `/proc/self/fd` lookup, the costliest step of a Read). `None` whenever that does
/// not give the very file `meta` describes — a link leads out, the kernel lacks `openat2`,
/// `dir` is no longer what the path names — and the caller takes the general way.
#[cfg(target_os = "linux")]
fn open_beneath(dir: &File, inner: &Path, meta: &std::fs::Metadata) -> Option<File> {
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::MetadataExt;
    use std::sync::atomic::{AtomicBool, Ordering};
    /// Set once the kernel (or a seccomp filter) refused `openat2` itself.
    static UNSUPPORTED: AtomicBool = AtomicBool::new(false);

    if inner.as_os_str().is_empty() || UNSUPPORTED.load(Ordering::Relaxed) {
        return None;
    }
    let inner = std::ffi::CString::new(inner.as_os_str().as_bytes()).ok()?;
    // SAFETY: `open_how` is plain integers, for which all zeroes is a valid value.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = (libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NOCTTY) as u64;
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS;
    // SAFETY: `inner` is a NUL-terminated string and `how` an `open_how` of the size passed,
    // both alive for the call; the returned descriptor is owned by nothing else.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            dir.as_raw_fd(),
            inner.as_ptr(),
            &how as *const libc::open_how,
            std::mem::size_of::<libc::open_how>(),
        )
    };
    if fd < 0 {
        let errno = std::io::Error::last_os_error().raw_os_error();
        if matches!(errno, Some(libc::ENOSYS | libc::EPERM)) {
            UNSUPPORTED.store(true, Ordering::Relaxed);
        }
        return None;
    }
    // SAFETY: `fd` was just opened by the kernel for this process and is owned here only.
    let file = unsafe { File::from_raw_fd(fd as libc::c_int) };
    let opened = file.metadata().ok()?;
    (opened.dev() == meta.dev() && opened.ino() == meta.ino()).then_some(file)
}

#[cfg(not(target_os = "linux"))]
fn open_beneath(_dir: &File, _inner: &Path, _meta: &std::fs::Metadata) -> Option<File> {
    None
}

/// The real path of an open file, from `/proc/self/fd` (one system call, where `canonicalize`
/// reads every component's link); `None` where that is unavailable.
#[cfg(target_os = "linux")]
fn opened_path(file: &File) -> Option<PathBuf> {
    use std::os::fd::AsRawFd;
    let real = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()?;
    // A file deleted since it was opened reads back with a " (deleted)" suffix: not a path.
    let deleted = real.as_os_str().as_encoded_bytes().ends_with(b" (deleted)") && !real.exists();
    (real.is_absolute() && !deleted).then_some(real)
}

#[cfg(not(target_os = "linux"))]
fn opened_path(_file: &File) -> Option<PathBuf> {
    None
}

/// Reads the open regular file `path` whose size was `size` when it was looked at.
/// `embed`: a PDF's original comes back too, as an embedded resource (`HostEnv::embed_resources`).
fn read_file(args: &Value, path: &Path, file: &mut File, size: u64, embed: bool) -> ToolOutput {
    let shown = path.display();
    let head = match read_head(file, size) {
        Ok(head) => head,
        Err(e) => return ToolOutput::error(format!("Cannot read `{shown}`: {e}.")),
    };
    // Read whole already (the size as looked at; `/proc` files say 0 and are read to the end).
    let whole = size > 0 && head.len() as u64 >= size;
    match sniff(&head) {
        Some(Kind::Image(mime)) => read_image(&shown.to_string(), mime, size, head, file),
        Some(Kind::Pdf) => {
            let original = embed.then_some(path);
            super::read_pdf::read(args, &shown.to_string(), head, file, size, original)
        }
        Some(Kind::Binary(what)) => ToolOutput::error(format!(
            "`{shown}` is a binary file ({what}); Read returns text, and images as PNG, JPEG, \
             GIF or WebP. Use Bash with a tool made for this format to look inside it."
        )),
        None if head.is_empty() => ToolOutput::text(format!("`{shown}` is empty (0 bytes).")),
        // Sending bytes that are not the image they claim to be would make the model's API
        // reject the whole request; better to say so here.
        None if let Some(mime) = image_by_extension(path) => ToolOutput::error(format!(
            "`{shown}` is named like an image ({mime}) but its content does not start like \
             one: the file is damaged or not an image. Read returns PNG, JPEG, GIF and WebP \
             images whose content matches."
        )),
        None => {
            let offset = uint_arg(args, "offset").unwrap_or(1).max(1);
            let limit = uint_arg(args, "limit").unwrap_or(DEFAULT_LIMIT).max(1);
            let page = if whole {
                number_lines(Cursor::new(head), offset, limit, OUTPUT_CAP)
            } else {
                let reader = BufReader::new(Cursor::new(head).chain(file));
                number_lines(reader, offset, limit, OUTPUT_CAP)
            };
            match page {
                Ok(page) => page_output(&shown.to_string(), &page),
                Err(e) => ToolOutput::error(format!("Cannot read `{shown}`: {e}.")),
            }
        }
    }
}

/// The first `SNIFF_LEN` bytes (fewer when the file is shorter). A file of known `size` stops
/// being read once that much came, sparing the read that would only report its end.
fn read_head(file: &mut File, size: u64) -> std::io::Result<Vec<u8>> {
    let want = match size {
        0 => SNIFF_LEN,
        size => SNIFF_LEN.min(usize::try_from(size).unwrap_or(SNIFF_LEN)),
    };
    let mut head = vec![0; want];
    let mut filled = 0;
    while filled < want {
        match file.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    head.truncate(filled);
    Ok(head)
}

fn read_image(
    shown: &str,
    mime: &'static str,
    size: u64,
    head: Vec<u8>,
    file: &mut File,
) -> ToolOutput {
    if size > IMAGE_CAP {
        return ToolOutput::error(format!(
            "`{shown}` is an image of {}; Read returns images up to 5 MiB. Make a smaller copy \
             (for example with Bash and an image tool) and read that.",
            human_size(size)
        ));
    }
    let mut bytes = head;
    if let Err(e) = file.take(IMAGE_CAP).read_to_end(&mut bytes) {
        return ToolOutput::error(format!("Cannot read `{shown}`: {e}."));
    }
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    ToolOutput {
        content: vec![
            Content::Text(format!("Image `{shown}` ({mime}, {} bytes)", bytes.len())),
            Content::Image {
                data,
                mime_type: mime.into(),
            },
        ],
        structured: None,
        is_error: false,
    }
}

/// What the first bytes of a file say it is; `None` for text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Image(&'static str),
    /// A PDF document: its text layer is read (`read_pdf`).
    Pdf,
    /// Binary, with a short word on why it was taken for binary.
    Binary(&'static str),
}

fn sniff(head: &[u8]) -> Option<Kind> {
    const MAGIC: &[(&[u8], Kind)] = &[
        (b"\x89PNG\r\n\x1a\n", Kind::Image("image/png")),
        (b"\xff\xd8\xff", Kind::Image("image/jpeg")),
        (b"GIF87a", Kind::Image("image/gif")),
        (b"GIF89a", Kind::Image("image/gif")),
        (b"%PDF-", Kind::Pdf),
        (b"PK\x03\x04", Kind::Binary("a ZIP archive")),
        (b"\x1f\x8b", Kind::Binary("gzip data")),
        (b"\x7fELF", Kind::Binary("an ELF executable")),
    ];
    if head.len() >= 12 && &head[..4] == b"RIFF" && &head[8..12] == b"WEBP" {
        return Some(Kind::Image("image/webp"));
    }
    if let Some((_, kind)) = MAGIC.iter().find(|(magic, _)| head.starts_with(magic)) {
        return Some(*kind);
    }
    // The rule ripgrep and git use: text never holds a NUL byte.
    head.contains(&0)
        .then_some(Kind::Binary("it contains NUL bytes"))
}

/// The image type a file's extension claims.
fn image_by_extension(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    let mime = match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => return None,
    };
    Some(mime)
}

/// One answer's worth of numbered lines.
#[derive(Debug, PartialEq, Eq)]
struct Page {
    /// `cat -n` lines, each ending in a newline.
    text: String,
    first: u64,
    /// The last line shown (`first - 1` when none was).
    last: u64,
    /// The file has no line `offset`: it has only `last` lines.
    past_end: bool,
    /// More lines follow `last`.
    more: bool,
    /// The output cap, not `limit`, ended the page.
    capped: bool,
}

/// Numbers the lines `offset..offset+limit` of `reader`, stopping early when the text would
/// pass `cap` bytes (at least one line is always shown).
fn number_lines<R: BufRead>(
    mut reader: R,
    offset: u64,
    limit: u64,
    cap: usize,
) -> std::io::Result<Page> {
    let mut line = Vec::new();
    let mut number = 0u64;
    while number + 1 < offset {
        if read_line_capped(&mut reader, 0, &mut line)?.is_none() {
            return Ok(Page {
                text: String::new(),
                first: offset,
                last: number,
                past_end: true,
                more: false,
                capped: false,
            });
        }
        number += 1;
    }
    let mut text = String::new();
    let end = offset.saturating_add(limit);
    let mut capped = false;
    let mut more = false;
    while let Some(cut) = read_line_capped(&mut reader, MAX_LINE_CHARS * 4, &mut line)? {
        if number + 1 >= end {
            more = true;
            break;
        }
        let shown = cut_line(&String::from_utf8_lossy(&line), cut).into_owned();
        let entry = format!("{:>6}\t{shown}\n", number + 1);
        if !text.is_empty() && text.len() + entry.len() > cap {
            capped = true;
            more = true;
            break;
        }
        text.push_str(&entry);
        number += 1;
    }
    Ok(Page {
        past_end: number < offset && text.is_empty() && offset > 1,
        text,
        first: offset,
        last: number,
        more,
        capped,
    })
}

fn page_output(shown: &str, page: &Page) -> ToolOutput {
    if page.past_end {
        return ToolOutput::error(format!(
            "`{shown}` has {} lines; offset {} is past the end. Call Read with a smaller offset.",
            page.last, page.first
        ));
    }
    let mut text = page.text.clone();
    if page.more {
        let why = if page.capped {
            "the 256 KiB output cap was reached"
        } else {
            "the line limit was reached"
        };
        text.push_str(&format!(
            "\n(Showing lines {}–{} of `{shown}`; {why} and the file goes on. Call Read with \
             offset {} to continue.)\n",
            page.first,
            page.last,
            page.last + 1
        ));
    }
    ToolOutput::text(text)
}

/// Reads one line into `out` without its terminator (`\n` or `\r\n`), keeping at most `max`
/// bytes of it and skipping the rest, so one enormous line never fills memory. `None` at the
/// end of the input, else whether the line was cut.
fn read_line_capped<R: BufRead>(
    reader: &mut R,
    max: usize,
    out: &mut Vec<u8>,
) -> std::io::Result<Option<bool>> {
    out.clear();
    let mut any = false;
    let mut cut = false;
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            break;
        }
        any = true;
        let newline = buf.iter().position(|&b| b == b'\n');
        let chunk = &buf[..newline.unwrap_or(buf.len())];
        let room = max.saturating_sub(out.len());
        if chunk.len() > room {
            cut = true;
        }
        out.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = newline.map_or(buf.len(), |i| i + 1);
        reader.consume(used);
        if newline.is_some() {
            break;
        }
    }
    if !any {
        return Ok(None);
    }
    if !cut && out.last() == Some(&b'\r') {
        out.pop();
    }
    Ok(Some(cut))
}

/// A line cut to `MAX_LINE_CHARS` characters with a marker saying so; `cut` says the line
/// was already shortened while reading.
pub(super) fn cut_line(line: &str, cut: bool) -> Cow<'_, str> {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((at, _)) => Cow::Owned(format!(
            "{}… [line cut at {MAX_LINE_CHARS} characters]",
            &line[..at]
        )),
        None if cut => Cow::Owned(format!("{line}… [line cut at {MAX_LINE_CHARS} characters]")),
        None => Cow::Borrowed(line),
    }
}

/// A non-negative integer argument; the schema checked the type, and `5.0` counts as `5`.
pub(super) fn uint_arg(args: &Value, key: &str) -> Option<u64> {
    let value = args.get(key)?;
    value
        .as_u64()
        .or_else(|| value.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
}

/// A byte count for people: `5.2 MiB`, `812 KiB`, `12 bytes`.
pub(super) fn human_size(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b >= KIB * KIB {
        format!("{:.1} MiB", b / (KIB * KIB))
    } else if b >= KIB {
        format!("{:.0} KiB", b / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// How a file tool shows a path it found: relative to the session's cwd when inside it (so it
/// can be passed straight to Read or Edit), else absolute.
pub(super) fn display_path(cx: &Cx, path: &Path) -> String {
    match path.strip_prefix(&cx.session.cwd) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".into(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

/// The file `path` really is once symbolic links are followed (for a path that does not exist
/// yet: its nearest existing ancestor's real path plus the rest).
///
/// The gateway judged `path` as written. A link inside the session's directories that leads
/// outside them would let a fast-lane call touch a file nobody was asked about, so that case is
/// refused with the real path to call again with — the gateway then asks about the real file.
/// A path the gateway already judged as outside (a card or a rule allowed it) is followed.
pub(super) fn real_target(cx: &Cx, tool: &str, arg: &str, path: &Path) -> Result<PathBuf, String> {
    let real = real_path(path);
    check_real(cx, tool, arg, path, &real)?;
    Ok(real)
}

/// Refuses `real`, what `path` really names, when a link took a path inside the session's
/// directories outside them (see `real_target`).
fn check_real(cx: &Cx, tool: &str, arg: &str, path: &Path, real: &Path) -> Result<(), String> {
    if real == path || !cx.session.contains(path) {
        return Ok(());
    }
    let inside = std::iter::once(&cx.session.cwd)
        .chain(&cx.session.trusted)
        .any(|dir| real.starts_with(std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone())));
    if inside {
        Ok(())
    } else {
        Err(format!(
            "`{}` leads through a symbolic link to `{}`, which is outside the session's \
             directories. Call {tool} again with {arg} `{}` so permission for the real file can \
             be asked.",
            path.display(),
            real.display(),
            real.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_images_and_binary_by_content() {
        let webp = b"RIFF\x10\x00\x00\x00WEBPVP8 ";
        let cases: &[(&[u8], Option<Kind>)] = &[
            (b"\x89PNG\r\n\x1a\nrest", Some(Kind::Image("image/png"))),
            (b"\xff\xd8\xff\xe0", Some(Kind::Image("image/jpeg"))),
            (b"GIF89a...", Some(Kind::Image("image/gif"))),
            (b"GIF87a...", Some(Kind::Image("image/gif"))),
            (webp, Some(Kind::Image("image/webp"))),
            (b"%PDF-1.7\n", Some(Kind::Pdf)),
            (b"PK\x03\x04", Some(Kind::Binary("a ZIP archive"))),
            (b"\x7fELF\x02", Some(Kind::Binary("an ELF executable"))),
            (b"text\0more", Some(Kind::Binary("it contains NUL bytes"))),
            (b"plain text\n", None),
            ("caf\u{e9} \u{1F426}\n".as_bytes(), None),
            (b"latin-1 caf\xe9\n", None),
            (b"", None),
            (
                b"RIFF\x10\x00\x00\x00WAVE",
                Some(Kind::Binary("it contains NUL bytes")),
            ),
        ];
        for (head, want) in cases {
            assert_eq!(sniff(head), *want, "{head:?}");
        }
    }

    #[test]
    fn only_small_regular_files_that_are_no_pdf_are_brief() {
        let dir = tempfile::tempdir().unwrap();
        let write =
            |name: &str, bytes: &[u8]| std::fs::write(dir.path().join(name), bytes).unwrap();
        write("small.txt", b"hello\n");
        write("limit.txt", &vec![b'x'; BRIEF_LEN as usize]);
        write("large.txt", &vec![b'x'; BRIEF_LEN as usize + 1]);
        write("paper.txt", b"%PDF-1.7\n% a PDF under another name\n");
        write("empty.txt", b"");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let session = SessionState::detached(
            dir.path().to_path_buf(),
            dir.path().to_path_buf(),
            crate::host::policy::Mode::AcceptCalls,
            None,
        );
        let brief = |args: Value| is_brief(&args, &session);
        let path = |name: &str| json!({"file_path": name});
        assert!(brief(path("small.txt")));
        assert!(brief(path("empty.txt")));
        assert!(brief(json!({"file_path": dir.path().join("limit.txt")})));
        assert!(!brief(path("large.txt")), "over the size");
        assert!(!brief(path("paper.txt")), "a PDF, by its content");
        assert!(!brief(path("sub")), "a directory");
        assert!(!brief(path("missing.txt")));
        assert!(!brief(json!({})), "no path");
        #[cfg(unix)]
        {
            let fifo = dir.path().join("fifo");
            let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            assert!(!brief(path("fifo")), "a pipe is never opened");
        }
    }

    #[test]
    fn knows_image_extensions() {
        let cases = [
            ("a/x.PNG", Some("image/png")),
            ("x.jpg", Some("image/jpeg")),
            ("x.jpeg", Some("image/jpeg")),
            ("x.gif", Some("image/gif")),
            ("x.webp", Some("image/webp")),
            ("x.svg", None),
            ("png", None),
        ];
        for (path, want) in cases {
            assert_eq!(image_by_extension(Path::new(path)), want, "{path}");
        }
    }

    #[test]
    fn the_head_stops_at_the_size_looked_at_and_reads_unsized_files_to_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        std::fs::write(&path, "abcdef").unwrap();
        let mut file = File::open(&path).unwrap();
        assert_eq!(
            read_head(&mut file, 3).unwrap(),
            b"abc",
            "stops at the size given"
        );
        let mut file = File::open(&path).unwrap();
        assert_eq!(
            read_head(&mut file, 0).unwrap(),
            b"abcdef",
            "size 0: to the end"
        );
        let big = "x".repeat(SNIFF_LEN + 10);
        std::fs::write(&path, &big).unwrap();
        let mut file = File::open(&path).unwrap();
        assert_eq!(
            read_head(&mut file, big.len() as u64).unwrap().len(),
            SNIFF_LEN
        );
    }

    #[test]
    fn a_file_that_grew_since_it_was_looked_at_is_read_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.txt");
        std::fs::write(&path, "one\ntwo\n").unwrap();
        let mut file = File::open(&path).unwrap();
        let out = read_file(&json!({}), &path, &mut file, 4, false);
        assert!(!out.is_error);
        assert!(
            out.text_content().contains("     1\tone\n"),
            "{}",
            out.text_content()
        );
        assert!(
            !out.text_content().contains("two"),
            "{}",
            out.text_content()
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn files_that_report_no_size_are_read_whole() {
        // /proc files are regular files of size 0 whose reads return content.
        let path = Path::new("/proc/self/status");
        let mut file = File::open(path).unwrap();
        let out = read_file(&json!({}), path, &mut file, 0, false);
        assert!(!out.is_error);
        assert!(
            out.text_content().contains("Name:"),
            "{}",
            out.text_content()
        );
        assert!(out.text_content().contains("VmRSS") || out.text_content().contains("Pid:"));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn an_open_file_names_its_real_path() {
        let dir = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(dir.path()).unwrap().join("real.txt");
        std::fs::write(&real, "x").unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let meta = regular_file(&link).unwrap();
        assert!(meta.is_file());
        assert_eq!(opened_path(&File::open(&link).unwrap()).unwrap(), real);
        assert!(
            regular_file(dir.path()).is_none(),
            "a directory is not taken for a file"
        );
        assert!(regular_file(&dir.path().join("missing")).is_none());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn files_open_beneath_their_directory_only() {
        use std::os::unix::fs::symlink;
        let top = tempfile::tempdir().unwrap();
        let cwd = top.path().join("cwd");
        std::fs::create_dir_all(cwd.join("sub")).unwrap();
        std::fs::write(cwd.join("sub/a.txt"), "inside").unwrap();
        std::fs::write(top.path().join("outside.txt"), "outside").unwrap();
        symlink("sub/a.txt", cwd.join("near")).unwrap();
        symlink(top.path().join("outside.txt"), cwd.join("far")).unwrap();
        symlink("../outside.txt", cwd.join("up")).unwrap();
        let dir = File::open(&cwd).unwrap();
        let opens = |inner: &str| {
            let meta = regular_file(&cwd.join(inner)).unwrap();
            open_beneath(&dir, Path::new(inner), &meta).map(|mut file| {
                let mut text = String::new();
                file.read_to_string(&mut text).unwrap();
                text
            })
        };
        assert_eq!(opens("sub/a.txt").as_deref(), Some("inside"));
        assert_eq!(
            opens("near").as_deref(),
            Some("inside"),
            "a link that stays"
        );
        assert_eq!(opens("far"), None, "an absolute link out");
        assert_eq!(opens("up"), None, "a relative link out");
        assert_eq!(opens("sub/../../outside.txt"), None, "`..` out");

        // The directory renamed and another put in its place: the held one is no longer
        // what the path names, and the file there is not taken for the one asked about.
        std::fs::rename(&cwd, top.path().join("old")).unwrap();
        std::fs::create_dir_all(cwd.join("sub")).unwrap();
        std::fs::write(cwd.join("sub/a.txt"), "new").unwrap();
        assert_eq!(opens("sub/a.txt"), None);
    }

    fn page(input: &str, offset: u64, limit: u64, cap: usize) -> Page {
        number_lines(Cursor::new(input.as_bytes().to_vec()), offset, limit, cap).unwrap()
    }

    #[test]
    fn numbers_lines_like_cat_n() {
        let p = page("one\r\ntwo\nthree", 1, 10, OUTPUT_CAP);
        assert_eq!(p.text, "     1\tone\n     2\ttwo\n     3\tthree\n");
        assert_eq!((p.first, p.last, p.more, p.past_end), (1, 3, false, false));
    }

    #[test]
    fn pages_by_offset_and_limit() {
        let input = "a\nb\nc\nd\ne\n";
        let p = page(input, 2, 2, OUTPUT_CAP);
        assert_eq!(p.text, "     2\tb\n     3\tc\n");
        assert_eq!((p.last, p.more, p.capped), (3, true, false));
        let p = page(input, 4, 2, OUTPUT_CAP);
        assert_eq!(p.text, "     4\td\n     5\te\n");
        assert!(!p.more, "the limit ends exactly at the last line");
        let p = page(input, 6, 2, OUTPUT_CAP);
        assert!(p.past_end);
        assert_eq!(p.last, 5);
        let p = page(input, 5, 1, OUTPUT_CAP);
        assert_eq!((p.text.as_str(), p.past_end), ("     5\te\n", false));
    }

    #[test]
    fn the_output_cap_ends_a_page_but_shows_one_line_at_least() {
        let p = page("aaaa\nbbbb\ncccc\n", 1, 100, 25);
        assert_eq!(p.text, "     1\taaaa\n     2\tbbbb\n");
        assert!(p.capped && p.more);
        let p = page("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nb\n", 1, 100, 5);
        assert_eq!(p.last, 1);
        assert!(p.capped);
    }

    #[test]
    fn cuts_long_lines() {
        let long = "x".repeat(MAX_LINE_CHARS * 5);
        let p = page(&format!("{long}\nshort\n"), 1, 10, OUTPUT_CAP);
        let first = p.text.lines().next().unwrap();
        assert!(
            first.ends_with("… [line cut at 2000 characters]"),
            "{first}"
        );
        assert_eq!(first.matches('x').count(), MAX_LINE_CHARS);
        assert!(p.text.ends_with("     2\tshort\n"));
        let wide = "é".repeat(MAX_LINE_CHARS + 1);
        assert_eq!(
            cut_line(&wide, false),
            format!(
                "{}… [line cut at 2000 characters]",
                "é".repeat(MAX_LINE_CHARS)
            )
        );
        assert_eq!(cut_line("short", false), "short");
    }

    #[test]
    fn reads_integer_arguments() {
        let args = json!({"a": 3, "b": 4.0, "c": -1, "d": "5"});
        assert_eq!(uint_arg(&args, "a"), Some(3));
        assert_eq!(uint_arg(&args, "b"), Some(4));
        assert_eq!(uint_arg(&args, "c"), None);
        assert_eq!(uint_arg(&args, "d"), None);
        assert_eq!(uint_arg(&args, "e"), None);
    }

    #[test]
    fn sizes_for_people() {
        assert_eq!(human_size(12), "12 bytes");
        assert_eq!(human_size(2048), "2 KiB");
        assert_eq!(human_size(6 * 1024 * 1024 + 1), "6.0 MiB");
    }

    #[test]
    fn real_path_follows_links_and_keeps_missing_tails() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(base.join("real")).unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(base.join("real"), base.join("link")).unwrap();
            assert_eq!(
                real_path(&base.join("link/new/x.txt")),
                base.join("real/new/x.txt")
            );
        }
        assert_eq!(real_path(&base.join("real/a/b")), base.join("real/a/b"));
    }
}
