//! [`DirLock`]: the advisory lock (`flock`) on a render directory that
//! serialises beryl runs on it: exclusive to write or recover, shared to read.

use std::fs::File;
use std::io::ErrorKind;
use std::path::Path;

use super::io;
use crate::diag::Diag;

/// An advisory lock on a render directory, held until dropped.
pub(crate) struct DirLock {
    file: Option<File>,
}

impl DirLock {
    fn open(dir: &Path) -> Result<Option<File>, Diag> {
        File::open(dir).map(Some).map_err(|e| io(dir, &e))
    }

    pub(super) fn exclusive(dir: &Path) -> Result<DirLock, Diag> {
        let file = Self::open(dir)?;
        Self::locked(dir, file, File::lock)
    }

    pub(super) fn shared(dir: &Path) -> Result<DirLock, Diag> {
        let file = Self::open(dir)?;
        Self::locked(dir, file, File::lock_shared)
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
        Ok(DirLock { file })
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        if let Some(f) = &self.file {
            let _ = f.unlock();
        }
    }
}
