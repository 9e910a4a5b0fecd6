//! Who holds a database. Two moots serving one town would each think it theirs and write over
//! each other, so the one that serves it holds a lock for as long as it runs, and the lock says
//! who has it: on PostgreSQL an advisory lock (see `Store::open`), on SQLite an exclusive lock
//! on a file beside the database. Both go with the process, however it ends.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::StoreError;

/// How this process names itself, so that another moot told the database is taken can say
/// which process has it.
pub fn this_process() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_default();
    if host.is_empty() {
        format!("moot pid {}", std::process::id())
    } else {
        format!("moot pid {} on {host}", std::process::id())
    }
}

/// `moot.db` → `moot.db.lock`.
fn lock_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Takes SQLite's serving lock: `<db>.lock`, locked (flock) and holding this process's name.
/// (Not the database file itself: SQLite's own locks are on it, and closing any handle to it
/// would drop a lock of the same kind.)
pub fn lock_file(db: &Path) -> Result<File, StoreError> {
    let path = lock_path(db);
    let io = |e: std::io::Error| StoreError::Db(format!("{}: {e}", path.display()));
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io)?;
    match file.try_lock() {
        Ok(()) => {
            file.set_len(0).map_err(io)?;
            file.write_all(this_process().as_bytes()).map_err(io)?;
            Ok(file)
        }
        Err(std::fs::TryLockError::WouldBlock) => {
            let holder = std::fs::read_to_string(&path).unwrap_or_default();
            let holder = holder.trim();
            Err(StoreError::Taken {
                holder: if holder.is_empty() {
                    "a process starting up".into()
                } else {
                    holder.to_owned()
                },
            })
        }
        Err(std::fs::TryLockError::Error(e)) => Err(io(e)),
    }
}
