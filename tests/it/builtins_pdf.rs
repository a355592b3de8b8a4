//! `Read` of PDFs through `finch tool call` (issue 18): text page by page with page markers,
//! `pages` ranges, the per-call cap and how to continue, and the messages for image-only,
//! encrypted and damaged files. The PDFs are assembled here: by hand (plain and
//! Flate-compressed content streams, Type1 WinAnsi fonts, an image-only page) and rewritten
//! by lopdf's writer (another producer's layout: renumbered objects, compressed streams).

use std::io::Write as _;

use serde_json::{Value, json};

use crate::builtins_files::{self, error_text, ok_text};
use crate::common::{Run, TestContext};

/// `finch tool call Read <args> --json --mode acceptCalls`.
fn call(ctx: &TestContext, args: Value) -> Run {
    builtins_files::call(ctx, "Read", args)
}

#[track_caller]
fn assert_has(text: &str, needle: &str) {
    assert!(text.contains(needle), "{needle:?} not in:\n{text}");
}

/// One page: its text lines, or `None` for a page that only draws an image (a scan).
type Page<'a> = Option<&'a [&'a str]>;

/// A PDF assembled by hand: a catalog, a page tree, Helvetica (WinAnsi), one content stream
/// a page (Flate-compressed when `compress`), an image XObject for image-only pages, a
/// correct cross-reference table, and `trailer_extra` inside the trailer dictionary.
fn pdf(pages: &[Page], compress: bool, trailer_extra: &str) -> Vec<u8> {
    let mut objects: Vec<Vec<u8>> = Vec::new();
    let n = pages.len();
    // 1 catalog, 2 pages, 3 font, 4 image, then (page, content) pairs.
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 5 + 2 * i)).collect();
    objects.push(b"<< /Type /Catalog /Pages 2 0 R >>".to_vec());
    objects.push(format!("<< /Type /Pages /Kids [{}] /Count {n} >>", kids.join(" ")).into_bytes());
    objects.push(
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
            .to_vec(),
    );
    objects.push(
        b"<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray \
          /BitsPerComponent 8 /Length 4 >>\nstream\n\x00\xff\xff\x00\nendstream"
            .to_vec(),
    );
    for (i, page) in pages.iter().enumerate() {
        let content = match page {
            Some(lines) => {
                let mut c = String::from("BT /F1 12 Tf 72 720 Td 14 TL\n");
                for line in *lines {
                    c.push_str(&format!("({line}) Tj T*\n"));
                }
                c.push_str("ET");
                c.into_bytes()
            }
            None => b"q 200 0 0 200 72 500 cm /Im1 Do Q".to_vec(),
        };
        objects.push(
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> /XObject << /Im1 4 0 R >> >> /Contents {} 0 R >>",
                6 + 2 * i
            )
            .into_bytes(),
        );
        let (filter, data) = if compress {
            let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
            z.write_all(&content).unwrap();
            (" /Filter /FlateDecode", z.finish().unwrap())
        } else {
            ("", content)
        };
        let mut stream = format!("<< /Length {}{filter} >>\nstream\n", data.len()).into_bytes();
        stream.extend_from_slice(&data);
        stream.extend_from_slice(b"\nendstream");
        objects.push(stream);
    }
    let mut out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for at in offsets {
        out.extend_from_slice(format!("{at:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R{trailer_extra} >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// The same document as lopdf's writer lays it out.
fn rewritten_by_lopdf(bytes: &[u8]) -> Vec<u8> {
    let mut doc = lopdf::Document::load_mem(bytes).unwrap();
    doc.renumber_objects();
    doc.compress();
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

#[test]
fn read_returns_the_text_of_pdfs_page_by_page() {
    let ctx = TestContext::new();
    let pages: [Page; 3] = [
        Some(&["Quarterly report", "Revenue grew"]),
        Some(&["Second page text"]),
        Some(&["Third page: the end"]),
    ];
    std::fs::write(ctx.work.join("plain.pdf"), pdf(&pages, false, "")).unwrap();
    std::fs::write(ctx.work.join("zipped.pdf"), pdf(&pages, true, "")).unwrap();
    std::fs::write(
        ctx.work.join("lopdf.pdf"),
        rewritten_by_lopdf(&pdf(&pages, true, "")),
    )
    .unwrap();
    for name in ["plain.pdf", "zipped.pdf", "lopdf.pdf"] {
        let text = ok_text(&call(&ctx, json!({"file_path": name})));
        assert_has(&text, "a PDF of 3 pages; the text of pages 1-3 follows");
        assert_has(&text, "--- page 1 ---\nQuarterly report");
        assert_has(&text, "Revenue grew");
        assert_has(&text, "--- page 2 ---\nSecond page text");
        assert_has(&text, "--- page 3 ---\nThird page: the end");
        assert!(!text.contains("not shown"), "{text}");

        let text = ok_text(&call(&ctx, json!({"file_path": name, "pages": "2-3"})));
        assert!(!text.contains("Quarterly"), "{text}");
        assert_has(&text, "the text of pages 2-3 follows");
        assert_has(&text, "--- page 3 ---");
        let text = ok_text(&call(&ctx, json!({"file_path": name, "pages": "3,1"})));
        assert_has(&text, "the text of pages 3, 1 follows");
    }
    let err = error_text(&call(&ctx, json!({"file_path": "plain.pdf", "pages": "7"})));
    assert_has(&err, "`pages` asks for page 7, but the PDF has 3 pages");
    let err = error_text(&call(
        &ctx,
        json!({"file_path": "plain.pdf", "pages": "two"}),
    ));
    assert_has(&err, "is not a page range");
}

#[test]
fn read_caps_pdf_pages_a_call_and_says_how_to_continue() {
    let ctx = TestContext::new();
    let texts: Vec<String> = (1..=45).map(|i| format!("Body of page {i}")).collect();
    let lines: Vec<[&str; 1]> = texts.iter().map(|t| [t.as_str()]).collect();
    let pages: Vec<Page> = lines.iter().map(|l| Some(&l[..])).collect();
    std::fs::write(ctx.work.join("long.pdf"), pdf(&pages, true, "")).unwrap();

    let text = ok_text(&call(&ctx, json!({"file_path": "long.pdf"})));
    assert_has(&text, "a PDF of 45 pages; the text of pages 1-20 follows");
    assert_has(&text, "--- page 20 ---\nBody of page 20");
    assert!(!text.contains("page 21 ---"), "{text}");
    assert_has(
        &text,
        "(pages 21-45 not shown: one answer holds at most 20 pages. Call Read again with `pages` \"21-40\" to continue.)",
    );
    let text = ok_text(&call(
        &ctx,
        json!({"file_path": "long.pdf", "pages": "41-"}),
    ));
    assert_has(&text, "the text of pages 41-45 follows");
    assert_has(&text, "Body of page 45");
    assert!(!text.contains("not shown"), "{text}");
}

#[test]
fn read_says_what_is_wrong_with_scanned_encrypted_and_broken_pdfs() {
    let ctx = TestContext::new();
    std::fs::write(ctx.work.join("scan.pdf"), pdf(&[None, None], false, "")).unwrap();
    let mixed: [Page; 2] = [Some(&["Cover letter"]), None];
    std::fs::write(ctx.work.join("mixed.pdf"), pdf(&mixed, false, "")).unwrap();
    let encrypt = " /Encrypt << /Filter /Standard /V 2 /R 3 /Length 128 /P -1028 \
        /O <2f3a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a> \
        /U <8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d00000000000000000000000000000000> >> \
        /ID [<0123456789abcdef0123456789abcdef> <0123456789abcdef0123456789abcdef>]";
    let text: [Page; 1] = [Some(&["Secret"])];
    std::fs::write(ctx.work.join("locked.pdf"), pdf(&text, false, encrypt)).unwrap();
    let whole = pdf(&text, true, "");
    std::fs::write(ctx.work.join("cut.pdf"), &whole[..whole.len() / 3]).unwrap();
    let mut garbage = b"%PDF-1.7\n".to_vec();
    garbage.extend((0..20_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    std::fs::write(ctx.work.join("garbage.pdf"), garbage).unwrap();

    let err = error_text(&call(&ctx, json!({"file_path": "scan.pdf"})));
    assert_has(
        &err,
        "has no text layer on pages 1-2 (a scanned or image-only PDF)",
    );
    let text = ok_text(&call(&ctx, json!({"file_path": "mixed.pdf"})));
    assert_has(&text, "--- page 1 ---\nCover letter");
    assert_has(
        &text,
        "--- page 2 ---\n(no text on this page: it holds only images",
    );
    let err = error_text(&call(&ctx, json!({"file_path": "locked.pdf"})));
    assert_has(
        &err,
        "is an encrypted (password-protected) PDF; Read cannot open it",
    );
    for name in ["cut.pdf", "garbage.pdf"] {
        let err = error_text(&call(&ctx, json!({"file_path": name})));
        assert_has(&err, "starts like a PDF but cannot be read");
    }
}

/// Over `finch run --serve mcp` a PDF's Read also carries the original as an embedded resource
/// (its `file://` URI, `application/pdf`, the bytes as base64), after the text; the transcript
/// keeps the resource's URI and type without the bytes. `tool call` returns the text alone.
#[test]
fn over_mcp_a_pdf_comes_back_whole_as_an_embedded_resource() {
    use base64::Engine as _;
    let ctx = TestContext::new();
    let pages: [Page; 1] = [Some(&["Invoice 42"])];
    let bytes = pdf(&pages, true, "");
    std::fs::write(ctx.work.join("invoice.pdf"), &bytes).unwrap();
    let plan = json!({"elicitation": null, "steps": [
        crate::serve_mcp::call("Read", json!({"file_path": "invoice.pdf"})),
    ]});
    let report = crate::serve_mcp::serve(&ctx, plan, &["--mode", "acceptCalls"]);
    let content = report.result(0)["content"].as_array().unwrap().clone();
    assert_eq!(content.len(), 2, "{content:?}");
    assert_has(content[0]["text"].as_str().unwrap(), "Invoice 42");
    let resource = &content[1]["resource"];
    assert_eq!(content[1]["type"], "resource", "{content:?}");
    assert_eq!(resource["mimeType"], "application/pdf");
    let uri = resource["uri"].as_str().unwrap();
    assert!(
        uri.starts_with("file:///") && uri.ends_with("/invoice.pdf"),
        "{uri}"
    );
    let blob = base64::engine::general_purpose::STANDARD
        .decode(resource["blob"].as_str().unwrap())
        .unwrap();
    assert_eq!(blob, bytes, "the original, byte for byte");

    let transcripts = ctx.transcripts();
    let calls = ctx.tool_calls(&transcripts[0]);
    let kept = &calls[0]["result"]["content"][1]["resource"];
    assert_eq!(kept["uri"], uri, "{kept}");
    assert!(
        kept.get("blob").is_none(),
        "the transcript holds no bytes: {kept}"
    );

    let text_only = call(&ctx, json!({"file_path": "invoice.pdf"}));
    let record = text_only.json();
    assert_eq!(record["content"].as_array().unwrap().len(), 1, "{record}");
}
