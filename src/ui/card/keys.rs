//! Bytes from the terminal → keys: arrows and other escape sequences, UTF-8 characters, and
//! what is left of a sequence whose rest never came. Pure.

use super::menu::Key;

/// The result of decoding the start of a byte buffer.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Parsed {
    /// A key and how many bytes it took.
    Key(Key, usize),
    /// The start of an escape sequence or a UTF-8 character whose rest has not arrived.
    Incomplete,
    Empty,
}

pub(super) const ESC: u8 = 0x1b;

/// Decodes one key from the start of `buf`.
pub(super) fn parse_key(buf: &[u8]) -> Parsed {
    let Some(&first) = buf.first() else {
        return Parsed::Empty;
    };
    match first {
        ESC => parse_escape(buf),
        b'\r' | b'\n' => Parsed::Key(Key::Enter, 1),
        0x7f | 0x08 => Parsed::Key(Key::Backspace, 1),
        0x03 | 0x04 => Parsed::Key(Key::Cancel, 1),
        0x00..=0x1f => Parsed::Key(Key::Other, 1),
        0x20..=0x7e => Parsed::Key(Key::Char(char::from(first)), 1),
        _ => parse_utf8(buf),
    }
}

/// `ESC [ … final` and `ESC O final` are keys (arrows, function keys); ESC followed by
/// anything else is the Esc key on its own.
pub(super) fn parse_escape(buf: &[u8]) -> Parsed {
    match buf.get(1) {
        None => Parsed::Incomplete,
        Some(b'[' | b'O') => {
            let Some(end) = buf[2..].iter().position(|b| (0x40..=0x7e).contains(b)) else {
                // A sequence this long without its final byte is noise, not a key.
                return if buf.len() > 16 {
                    Parsed::Key(Key::Other, buf.len())
                } else {
                    Parsed::Incomplete
                };
            };
            let key = match buf[2 + end] {
                b'A' => Key::Up,
                b'B' => Key::Down,
                _ => Key::Other,
            };
            Parsed::Key(key, end + 3)
        }
        Some(_) => Parsed::Key(Key::Cancel, 1),
    }
}

pub(super) fn parse_utf8(buf: &[u8]) -> Parsed {
    let len = match buf[0] {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return Parsed::Key(Key::Other, 1),
    };
    if buf.len() < len {
        // A stray continuation byte in what arrived already makes it invalid, not incomplete.
        return if buf[1..].iter().all(|b| b & 0xc0 == 0x80) {
            Parsed::Incomplete
        } else {
            Parsed::Key(Key::Other, 1)
        };
    }
    match std::str::from_utf8(&buf[..len])
        .ok()
        .and_then(|s| s.chars().next())
    {
        Some(c) => Parsed::Key(Key::Char(c), len),
        None => Parsed::Key(Key::Other, 1),
    }
}

/// Decodes bytes whose rest never came: a lone ESC is the Esc key, anything else is noise.
pub(super) fn parse_stale(buf: &[u8]) -> (Key, usize) {
    match buf {
        [ESC] => (Key::Cancel, 1),
        _ => (Key::Other, buf.len().max(1)),
    }
}
