//! Credentials out of printed text: the user info of every URL (`http://user:TOKEN@host/` →
//! `http://***@host/`). A registry URL from `--registry`, finch.toml or an `.npmrc` may carry a
//! token, and finch prints registry URLs in `doctor`, `-v` detail, warnings and errors. Redaction
//! is applied where text leaves for a person (the `ui` printer's stderr lines, `Network::registry`);
//! tool results are data and pass unchanged.

use std::borrow::Cow;

/// `text` with the user info of every `scheme://user[:password]@host` replaced by `***`.
pub fn userinfo(text: &str) -> Cow<'_, str> {
    if !text.contains("://") || !text.contains('@') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        // The authority ends at the first `/`, `?`, `#` or whitespace; its user info at the
        // last `@` inside it.
        let end = tail
            .find(|c: char| matches!(c, '/' | '?' | '#') || c.is_whitespace())
            .unwrap_or(tail.len());
        match tail[..end].rfind('@') {
            Some(user_end) if user_end > 0 => {
                out.push_str("***");
                rest = &tail[user_end..];
            }
            _ => rest = tail,
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::userinfo;

    #[test]
    fn redacts_user_info_and_nothing_else() {
        for (text, want) in [
            ("http://user:TOKEN@host/", "http://***@host/"),
            (
                "registry https://u:p@r.example:8080/npm/ unreachable",
                "registry https://***@r.example:8080/npm/ unreachable",
            ),
            (
                "https://tok@h/a https://x:y@g",
                "https://***@h/a https://***@g",
            ),
            ("https://h.example/a@b", "https://h.example/a@b"),
            ("mail me@example.com", "mail me@example.com"),
            ("http://host/", "http://host/"),
            ("http://@host/", "http://@host/"),
            ("ftp://a:b@c", "ftp://***@c"),
            ("é://ü@x", "é://***@x"),
        ] {
            assert_eq!(userinfo(text), want, "{text}");
        }
    }
}
