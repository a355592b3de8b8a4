//! One line typed on the terminal without echo (a secret's value): the prompt on stderr, the
//! terminal's echo turned off while it is typed and restored after, whatever happens.

use std::io::{BufRead, Write};

/// Echo off on standard input until dropped.
#[cfg(unix)]
struct NoEcho(libc::termios);

#[cfg(unix)]
impl NoEcho {
    fn new() -> std::io::Result<NoEcho> {
        // SAFETY: tcgetattr/tcsetattr only read and write the termios struct given.
        unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(0, &mut t) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            let saved = t;
            t.c_lflag &= !libc::ECHO;
            t.c_lflag |= libc::ECHONL;
            if libc::tcsetattr(0, libc::TCSANOW, &t) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(NoEcho(saved))
        }
    }
}

#[cfg(unix)]
impl Drop for NoEcho {
    fn drop(&mut self) {
        // SAFETY: restores the settings read in `new`.
        unsafe {
            libc::tcsetattr(0, libc::TCSANOW, &self.0);
        }
    }
}

/// Shows `prompt` on stderr and reads one line from the terminal on standard input, not
/// echoed; the line comes back with its newline.
pub fn read_hidden(prompt: &str) -> std::io::Result<String> {
    let mut err = std::io::stderr().lock();
    err.write_all(prompt.as_bytes())?;
    err.flush()?;
    #[cfg(unix)]
    let _echo = NoEcho::new()?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(line)
}
