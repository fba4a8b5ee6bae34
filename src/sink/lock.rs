//! One writer per checkpoint and per output: an exclusive OS lock on a
//! `<path>.lock` side file holding the owner's PID. The kernel drops the
//! lock when the process dies, however it dies, so a stale side file never
//! blocks a restart.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Why a lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(
        "{what} {path} is in use by another cdcctl (PID {pid}); stop it first, or use another file"
    )]
    Held {
        what: &'static str,
        path: String,
        /// The holder's PID as it wrote it, or `unknown` while it is still
        /// writing it.
        pid: String,
    },
    #[error("cannot lock {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
}

/// A held lock; released when dropped or when the process ends.
#[derive(Debug)]
pub struct WriterLock {
    _file: File,
    path: PathBuf,
}

impl WriterLock {
    /// Locks `<resource>.lock` for `what` (e.g. "checkpoint") without waiting.
    pub fn acquire(resource: &Path, what: &'static str) -> Result<Self, LockError> {
        let path = lock_path(resource);
        let io_err = |source| LockError::Io {
            path: path.display().to_string(),
            source,
        };
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(io_err)?;
        match try_lock_exclusive(&file) {
            Ok(true) => {}
            Ok(false) => {
                let mut pid = String::new();
                // The holder may not have written its PID yet.
                let _ = file.take(32).read_to_string(&mut pid);
                let pid = pid.trim();
                return Err(LockError::Held {
                    what,
                    path: resource.display().to_string(),
                    pid: if pid.is_empty() {
                        "unknown".into()
                    } else {
                        pid.to_string()
                    },
                });
            }
            Err(e) => return Err(io_err(e)),
        }
        file.set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| writeln!(file, "{}", std::process::id()))
            .and_then(|()| file.flush())
            .map_err(io_err)?;
        Ok(Self { _file: file, path })
    }

    /// The side file holding the lock.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// `flock(LOCK_EX | LOCK_NB)`: `Ok(false)` when another open file holds it.
/// flock rather than fcntl locks: they belong to the open file, so a second
/// open in the same process conflicts too, and they vanish with the process.
/// The lock file of `resource`: `<resource>.lock`, next to it.
pub fn lock_path(resource: &Path) -> PathBuf {
    let mut name = resource.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

fn try_lock_exclusive(file: &File) -> io::Result<bool> {
    use std::os::fd::AsRawFd;
    // SAFETY: the descriptor is valid for the duration of the call (borrowed
    // from `file`), and flock touches no memory.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc == 0 {
        return Ok(true);
    }
    let err = io::Error::last_os_error();
    if err.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_lock_on_the_same_resource_names_the_holder() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cp = dir.path().join("cp.json");
        let held = WriterLock::acquire(&cp, "checkpoint").expect("first");
        let err = WriterLock::acquire(&cp, "checkpoint").expect_err("second");
        let pid = std::process::id().to_string();
        assert!(
            matches!(&err, LockError::Held { pid: p, .. } if *p == pid),
            "{err}"
        );
        drop(held);
        WriterLock::acquire(&cp, "checkpoint").expect("free again");
    }
}
