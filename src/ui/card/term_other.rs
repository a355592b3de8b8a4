//! Without termios there is no terminal to ask on: `TtyPrompter::open` finds none.

use std::fs::File;
use std::io;
use std::time::Instant;

use super::menu::Key;

pub fn is_terminal(_tty: &File) -> bool {
    false
}

pub fn in_background(_tty: &File) -> bool {
    true
}

pub fn width(_tty: &File) -> usize {
    super::DEFAULT_WIDTH
}

pub struct RawMode;

impl RawMode {
    pub fn enter(_tty: &File) -> io::Result<RawMode> {
        Err(io::Error::other("no terminal"))
    }
}

#[derive(Debug, Default)]
pub struct Keys;

impl Keys {
    pub fn waking_on(_wake: io::PipeReader) -> Keys {
        Keys
    }

    pub fn next(&mut self, _tty: &File, _deadline: Instant) -> io::Result<Option<Key>> {
        Ok(None)
    }
}
