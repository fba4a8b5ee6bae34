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
        match try_lock(&file) {
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

/// The lock file of `resource`: `<resource>.lock` beside the file the
/// path resolves to, so that a symbolic link to a locked file finds its
/// lock.
pub fn lock_path(resource: &Path) -> PathBuf {
    let mut name = resolved(resource).into_os_string();
    name.push(".lock");
    PathBuf::from(name)
}

/// `path` with its symbolic links resolved: the file's own when it exists,
/// else its directory's, else as given.
fn resolved(path: &Path) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match (parent.canonicalize(), path.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => path.to_path_buf(),
    }
}

/// `flock(LOCK_EX | LOCK_NB)`: `Ok(false)` when another open file holds it.
/// flock rather than fcntl locks: they belong to the open file, so a second
/// open in the same process conflicts too, and they vanish with the process.
pub(crate) fn try_lock(file: &File) -> io::Result<bool> {
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

    #[test]
    fn issue31_a_link_to_a_locked_file_finds_its_lock() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cp = dir.path().join("cp.json");
        std::fs::write(&cp, "{}").expect("checkpoint");
        std::os::unix::fs::symlink(&cp, dir.path().join("link.json")).expect("link");
        let _held = WriterLock::acquire(&cp, "checkpoint").expect("first");
        let err = WriterLock::acquire(&dir.path().join("link.json"), "checkpoint")
            .expect_err("through the link");
        assert!(matches!(err, LockError::Held { .. }), "{err}");
    }
}
