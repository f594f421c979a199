//! [`DirWriter`]: one write of a render directory, staged, then committed
//! through the journal (the module docs of render_dir/mod.rs).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use super::journal::{Journal, apply, commit, fault, recover};
use super::manifest::read_manifest;
use super::{DirLock, Format, MANIFEST, Manifest, STAGE, extension, format_name, hash, io};
use crate::diag::{Common, Diag};

/// A write of a render directory in progress. [`DirWriter::begin`] locks and
/// recovers DIR and creates the stage; [`DirWriter::stage`] writes one host's
/// file into it, from any thread, so that files are written while other hosts
/// still compile; [`DirWriter::commit`] writes the manifest and commits.
/// Dropped without a commit, it removes the stage (and DIR, if it created
/// DIR and DIR is empty): DIR is as it was.
pub(crate) struct DirWriter {
    dir: PathBuf,
    format: Format,
    old: Option<Manifest>,
    /// DIR did not exist before `begin`.
    created: bool,
    committed: bool,
    /// This write created the stage (a stage found in DIR and refused by
    /// recovery is not this write's to remove).
    staged: bool,
    /// A stage write failed: the later ones are skipped.
    failed: AtomicBool,
    _lock: DirLock,
}

impl DirWriter {
    pub(crate) fn begin(dir: &Path, format: Format) -> Result<DirWriter, Diag> {
        if dir.exists() && !dir.is_dir() {
            return Err(Diag::new(
                Common::Io,
                format!("{} exists and is not a directory", dir.display()),
            )
            .help("--out names a directory, created if needed"));
        }
        let created = !dir.exists();
        crate::fsutil::create_private_dir_all(dir).map_err(|e| io(dir, &e))?;
        let lock = DirLock::exclusive(dir)?;
        let mut writer = DirWriter {
            dir: dir.to_path_buf(),
            format,
            old: None,
            created,
            committed: false,
            staged: false,
            failed: AtomicBool::new(false),
            _lock: lock,
        };
        recover(dir)?;
        writer.old = read_manifest(dir)?;
        let stage = dir.join(STAGE);
        // Not recursive: a stage left here is an error, not a directory to reuse.
        std::os::unix::fs::DirBuilderExt::mode(&mut std::fs::DirBuilder::new(), 0o700)
            .create(&stage)
            .map_err(|e| io(&stage, &e))?;
        writer.staged = true;
        Ok(writer)
    }

    /// Writes one host's file into the stage and returns its hash; `None`
    /// when an earlier stage write failed (that error is the one to report).
    pub(crate) fn stage(&self, fqdn: &str, text: &str) -> Result<Option<String>, Diag> {
        if self.failed.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let path = self
            .dir
            .join(STAGE)
            .join(format!("{fqdn}.{}", extension(self.format)));
        match fault::step().and_then(|()| crate::fsutil::write_private(&path, text)) {
            Ok(()) => Ok(Some(hash(text))),
            Err(e) => {
                self.failed.store(true, Ordering::Relaxed);
                Err(io(&path, &e))
            }
        }
    }

    /// Whether DIR already holds `fqdn`'s file with this hash, as its
    /// manifest says, in this write's format: that host need not be staged.
    pub(crate) fn unchanged(&self, fqdn: &str, hash: &str) -> bool {
        let Some(old) = &self.old else {
            return false;
        };
        old.format.as_deref() == Some(format_name(self.format))
            && old.hosts.get(fqdn).is_some_and(|h| h == hash)
            && old.file(&self.dir, fqdn).is_file()
    }

    /// The manifest DIR had when the write began.
    pub(crate) fn old(&self) -> Option<&Manifest> {
        self.old.as_ref()
    }

    /// Commits the staged files and `manifest`, which lists every host: the
    /// hosts in `kept` were not staged, and their files stay as they are.
    /// Returns whether anything was written: nothing is when no host was
    /// staged and the manifest is the one DIR has.
    pub(crate) fn commit(
        mut self,
        manifest: Manifest,
        kept: &BTreeSet<String>,
    ) -> Result<bool, Diag> {
        let dir = self.dir.clone();
        let text = manifest.text();
        if kept.len() == manifest.hosts.len()
            && std::fs::read(dir.join(MANIFEST)).is_ok_and(|old| old == text.as_bytes())
        {
            return Ok(false);
        }
        let mut moves: Vec<String> = manifest
            .hosts
            .keys()
            .filter(|fqdn| !kept.contains(*fqdn))
            .map(|fqdn| manifest.file_name(fqdn))
            .collect();
        // Remove what beryl wrote before and no longer writes.
        let mut remove = Vec::new();
        if let Some(old) = &self.old {
            for fqdn in old.hosts.keys() {
                let file = old.file_name(fqdn);
                let kept = manifest.hosts.contains_key(fqdn) && file == manifest.file_name(fqdn);
                if !kept && dir.join(&file).exists() {
                    remove.push(file);
                }
            }
        }
        moves.push(MANIFEST.to_string());
        let journal = Journal {
            version: 1,
            moves,
            remove,
        };
        let path = dir.join(STAGE).join(MANIFEST);
        fault::step()
            .and_then(|()| crate::fsutil::write_private(&path, &text))
            .map_err(|e| io(&path, &e))?;
        commit(&dir, &journal)?;
        self.committed = true;
        apply(&dir, &journal).map_err(|d| {
            let mut d = d;
            d.message = format!(
                "{} (the new output is committed; the next beryl run on {} finishes putting it in place)",
                d.message,
                dir.display()
            );
            d
        })?;
        Ok(true)
    }
}

impl Drop for DirWriter {
    fn drop(&mut self) {
        if !self.committed {
            // Not committed: DIR is as it was; leave no partial files.
            if self.staged {
                let _ = std::fs::remove_dir_all(self.dir.join(STAGE));
            }
            if self.created {
                let _ = std::fs::remove_dir(&self.dir);
            }
        }
    }
}
