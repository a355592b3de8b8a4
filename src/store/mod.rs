//! How finch changes files it shares with the app and with other finch processes: one exclusive
//! lock per state directory, writes to a temp file in the same directory that is fsynced and then
//! renamed over the old file, and JSON that keeps every key it does not understand. Nothing here
//! knows what the files mean.

mod atomic;
mod json;
mod list;
mod lock;
mod read;

pub use atomic::{fsync_dir, write_atomic, write_atomic_meta};
pub use json::{JsonError, read_json_as, read_json_object, to_pretty_json, write_json};
pub use list::{Changes, change_list};
pub use lock::{DirLock, HeldOpen, Hold, LockError, PidLock, TryLock};
pub use read::{read_regular, read_regular_text};
