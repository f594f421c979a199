//! [`DirLock`]: the advisory lock (`flock`) on a render directory that
//! serialises beryl runs on it: exclusive to write or recover, shared to read.

use std::fs::File;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::io;
use crate::diag::Diag;

/// An advisory lock on a render directory, held until dropped.
pub(crate) struct DirLock {
    file: Option<File>,
    dir: PathBuf,
}

impl DirLock {
    fn open(dir: &Path) -> Result<Option<File>, Diag> {
        File::open(dir).map(Some).map_err(|e| io(dir, &e))
    }

    pub(super) fn exclusive(dir: &Path) -> Result<DirLock, Diag> {
        let file = Self::open(dir)?;
        Self::locked(dir, file, File::lock)
    }

    /// The exclusive lock if nobody holds the directory, else `None`.
    pub(super) fn try_exclusive(dir: &Path) -> Result<Option<DirLock>, Diag> {
        let file = Self::open(dir)?;
        if let Some(f) = &file {
            match f.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
                Err(std::fs::TryLockError::Error(e)) if e.kind() == ErrorKind::Unsupported => {}
                Err(std::fs::TryLockError::Error(e)) => return Err(io(dir, &e)),
            }
        }
        Ok(Some(DirLock {
            file,
            dir: dir.to_path_buf(),
        }))
    }

    pub(super) fn shared(dir: &Path) -> Result<DirLock, Diag> {
        let file = Self::open(dir)?;
        Self::locked(dir, file, File::lock_shared)
    }

    /// From exclusive to shared, on the same descriptor.
    pub(super) fn downgrade(mut self) -> Result<DirLock, Diag> {
        let (file, dir) = (self.file.take(), std::mem::take(&mut self.dir));
        Self::locked(&dir, file, File::lock_shared)
    }

    fn locked(
        dir: &Path,
        file: Option<File>,
        lock: fn(&File) -> std::io::Result<()>,
    ) -> Result<DirLock, Diag> {
        if let Some(f) = &file {
            match lock(f) {
                // Some file systems cannot lock; serialising runs is then
                // up to the user.
                Err(e) if e.kind() == ErrorKind::Unsupported => {}
                Err(e) => return Err(io(dir, &e)),
                Ok(()) => {}
            }
        }
        Ok(DirLock {
            file,
            dir: dir.to_path_buf(),
        })
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        if let Some(f) = &self.file {
            let _ = f.unlock();
        }
    }
}
