//! `moot backup FILE`: a consistent copy of the database while moot runs, by SQLite's online
//! backup API. It copies a few hundred pages at a time and lets the server's writer in between
//! (a write during the copy makes SQLite restart it from the changed pages, so the copy is
//! always one committed state). The copy is a plain moot database: to restore, stop moot and
//! put it where --db points.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

/// How far a backup has got.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub copied: u64,
    pub total: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("{0} does not exist")]
    NoDatabase(String),
    #[error("{0} already exists; choose a new file, so no backup is overwritten by mistake")]
    Exists(String),
    #[error("{0}")]
    Db(#[from] rusqlite::Error),
}

/// Copies the database at `db` to the new file `to`, telling `progress` as it goes.
pub fn backup(
    db: &Path,
    to: &Path,
    mut progress: impl FnMut(Progress),
) -> Result<Progress, BackupError> {
    if !db.exists() {
        return Err(BackupError::NoDatabase(db.display().to_string()));
    }
    if to.exists() {
        return Err(BackupError::Exists(to.display().to_string()));
    }
    let src = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    src.busy_timeout(Duration::from_secs(5))?;
    let mut dst = Connection::open(to)?;
    let mut last;
    {
        use rusqlite::backup::{Backup, StepResult};
        let copy = Backup::new(&src, &mut dst)?;
        loop {
            let step = copy.step(256)?;
            let p = copy.progress();
            let total = p.pagecount.max(0) as u64;
            last = Progress {
                copied: total - (p.remaining.max(0) as u64).min(total),
                total,
            };
            match step {
                StepResult::Done => break,
                StepResult::More => progress(last),
                // The server is writing: let it, then go on.
                _ => std::thread::sleep(Duration::from_millis(20)),
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    progress(last);
    // The copy must read back as a database, not merely exist.
    let ok: String = dst.query_row("PRAGMA integrity_check", [], |r| r.get(0))?;
    if ok != "ok" {
        return Err(BackupError::Db(rusqlite::Error::InvalidQuery));
    }
    Ok(last)
}
