//! The scratch tree: a private temporary directory, the files written into
//! it at confined paths, and links that must resolve inside it.

use std::ffi::OsStr;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use super::RevisionError;
use super::git::{Entry, Kind};

/// Writes files into the scratch tree as they stream in, and links last.
pub(super) struct Writer<'a> {
    pub root: &'a Path,
    pub rev: &'a str,
    pub links: Vec<(PathBuf, String, Vec<u8>)>,
}

impl Writer<'_> {
    pub(super) fn write(&mut self, entry: &Entry, bytes: &[u8]) -> Result<(), RevisionError> {
        let path = self.confined(&entry.path)?;
        match entry.kind {
            Kind::Link => {
                self.links.push((path, entry.path.clone(), bytes.to_vec()));
                Ok(())
            }
            Kind::File => {
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| scratch_error(parent, e))?;
                }
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&path)
                    .and_then(|mut f| f.write_all(bytes))
                    .map_err(|e| scratch_error(&path, e))
            }
            Kind::Other => Ok(()),
        }
    }

    /// The scratch path of a repository path, which must be plain.
    fn confined(&self, rel: &str) -> Result<PathBuf, RevisionError> {
        let plain = !rel.is_empty()
            && rel
                .split('/')
                .all(|c| !c.is_empty() && c != "." && c != "..")
            && Path::new(rel)
                .components()
                .all(|c| matches!(c, Component::Normal(_)));
        if plain {
            Ok(self.root.join(rel))
        } else {
            Err(RevisionError::UnsafePath {
                rev: self.rev.into(),
                path: rel.into(),
            })
        }
    }

    /// Makes the links, each of which must resolve inside the scratch tree:
    /// lexically first (a relative target that stays inside), then, once
    /// they all exist, through the file system (a chain of links).
    pub(super) fn finish(self) -> Result<(), RevisionError> {
        let escapes = |rel: &str, target: &[u8]| RevisionError::LinkEscapes {
            rev: self.rev.into(),
            path: rel.into(),
            target: String::from_utf8_lossy(target).into_owned(),
        };
        for (path, rel, target) in &self.links {
            if !stays_inside(rel, target) {
                return Err(escapes(rel, target));
            }
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| scratch_error(parent, e))?;
            }
            std::os::unix::fs::symlink(OsStr::from_bytes(target), path)
                .map_err(|e| scratch_error(path, e))?;
        }
        let root = std::fs::canonicalize(self.root).map_err(|e| scratch_error(self.root, e))?;
        for (path, rel, target) in &self.links {
            if let Ok(real) = std::fs::canonicalize(path)
                && !real.starts_with(&root)
            {
                return Err(escapes(rel, target));
            }
        }
        Ok(())
    }
}

/// Whether the relative link target `target`, read from the directory of
/// the repository path `rel`, names a path inside the repository.
pub(super) fn stays_inside(rel: &str, target: &[u8]) -> bool {
    let target = Path::new(OsStr::from_bytes(target));
    let mut depth = rel.split('/').count() - 1;
    for c in target.components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir if depth > 0 => depth -= 1,
            _ => return false,
        }
    }
    true
}

fn scratch_error(path: &Path, e: std::io::Error) -> RevisionError {
    RevisionError::Scratch {
        path: path.display().to_string(),
        source: e,
    }
}

/// A private directory under the system's temporary directory, created
/// afresh (never one that already exists) and removed on drop.
#[derive(Debug)]
pub(super) struct Scratch {
    pub root: PathBuf,
}

impl Scratch {
    pub(super) fn new() -> Result<Self, RevisionError> {
        use std::os::unix::fs::DirBuilderExt;
        use std::sync::atomic::{AtomicU64, Ordering};
        static N: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        loop {
            let n = N.fetch_add(1, Ordering::Relaxed);
            let root = base.join(format!("beryl-rev-{}-{n}", std::process::id()));
            match std::fs::DirBuilder::new().mode(0o700).create(&root) {
                Ok(()) => return Ok(Self { root }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(scratch_error(&root, e)),
            }
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
