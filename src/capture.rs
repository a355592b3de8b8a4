//! Keeping a child process's output within bounds: the last bytes of a stream (`OutputTail`,
//! used by schedule run records and the Bash tool), and reading a pipe to its end chunk by chunk
//! (`pump`).

use std::collections::VecDeque;
use std::io::Read;

/// The last `capacity` bytes of a stream, and how many bytes it had in all.
#[derive(Debug)]
pub struct OutputTail {
    bytes: VecDeque<u8>,
    capacity: usize,
    total: u64,
}

impl OutputTail {
    pub fn new(capacity: usize) -> OutputTail {
        OutputTail {
            bytes: VecDeque::with_capacity(capacity.min(8192)),
            capacity,
            total: 0,
        }
    }

    pub fn push(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let chunk = &chunk[chunk.len().saturating_sub(self.capacity)..];
        let overflow = (self.bytes.len() + chunk.len()).saturating_sub(self.capacity);
        self.bytes.drain(..overflow);
        self.bytes.extend(chunk);
    }

    /// Total bytes seen, kept or not.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Whether bytes before the kept ones were dropped.
    pub fn is_cut(&self) -> bool {
        self.total > self.bytes.len() as u64
    }

    /// The kept bytes, as they came.
    pub fn bytes(&self) -> Vec<u8> {
        let (a, b) = self.bytes.as_slices();
        [a, b].concat()
    }

    /// The kept bytes as text; a character cut at the start is dropped, invalid UTF-8 is
    /// replaced.
    pub fn text(&self) -> String {
        let all = self.bytes();
        let cut = if self.is_cut() {
            all.iter()
                .take(3)
                .take_while(|b| (**b & 0xC0) == 0x80)
                .count()
        } else {
            0
        };
        String::from_utf8_lossy(&all[cut..]).into_owned()
    }
}

/// Reads `reader` to its end, handing each chunk to `each`; a read error ends it like the end
/// of the stream (a child's pipe has nothing more to give either way).
pub fn pump(mut reader: impl Read, mut each: impl FnMut(&[u8])) {
    let mut buf = [0u8; 8192];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => each(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_last_bytes_and_whole_characters() {
        let tail = |capacity: usize| {
            let mut tail = OutputTail::new(capacity);
            tail.push(b"hello ");
            tail.push("w\u{f6}rld!".as_bytes());
            assert_eq!(tail.total(), 13);
            assert_eq!(tail.is_cut(), capacity < 13);
            tail.text()
        };
        assert_eq!(tail(64), "hello w\u{f6}rld!");
        assert_eq!(tail(6), "\u{f6}rld!");
        // The cut falls inside "ö": the half character is dropped.
        assert_eq!(tail(5), "rld!");
        let mut big = OutputTail::new(4);
        big.push(b"0123456789");
        assert_eq!(big.text(), "6789");
        assert_eq!(big.bytes(), b"6789");
    }

    #[test]
    fn pump_hands_over_every_chunk_to_the_end() {
        let input = vec![7u8; 20_000];
        let mut seen = Vec::new();
        pump(&input[..], |chunk| {
            assert!(chunk.len() <= 8192);
            seen.extend_from_slice(chunk);
        });
        assert_eq!(seen, input);
    }
}
