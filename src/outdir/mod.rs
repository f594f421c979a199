//! The render directory (`render --out DIR`, a side of `beryl diff`): every
//! host rendered into a directory with a hash manifest, written as one
//! transaction. The texts come from `output`; this module owns how they reach
//! the disk (staging, journal, recovery, lock) and which hosts a write may
//! reuse.
//!
//! Entry points: [`write_dir`] and [`Manifest::read`]. A directory holds
//! `<fqdn>.yml` (or `.json`) per host and `beryl-manifest.json`:
//! `{"version": 2, "format": "yaml", "options": …, "hosts": {fqdn:
//! "sha256:<hex>"}, "inputs": …, "records": …}`, hosts sorted; `options`,
//! `inputs` and `records` say what each host read, so that the next write
//! compiles only the hosts whose inputs changed (reuse.rs). Files of hosts
//! that the previous manifest listed and that are gone are removed; nothing
//! else in the directory is touched.
//!
//! # Writing is a transaction
//!
//! A POSIX directory cannot replace many files at once, so a write goes
//! through a journal:
//!
//! 1. **Stage.** Every host file and the new manifest are written into
//!    `DIR/.beryl-stage/`. DIR's own files are not touched yet.
//! 2. **Commit.** `DIR/.beryl-journal.json` (the files to move in, the stale
//!    files to remove) is written under a temporary name and renamed into
//!    place: this one rename decides between the old and the new output.
//! 3. **Apply.** The staged host files are renamed over DIR's, the stale
//!    files removed, the manifest renamed last, then the stage and the
//!    journal removed. Each step can be redone, so it can be interrupted.
//!
//! `render --out` first **recovers** DIR, under the lock below: a journal is
//! rolled forward (step 3 again), a stage without a journal (an interruption
//! before the commit) deleted; DIR's own files do not depend on it. DIR may
//! be someone else's (a CI artifact, a shared path), so recovery acts only
//! on what beryl wrote and follows no link (journal.rs `recover`). A reader
//! (`beryl diff` on DIR) recovers nothing and moves or deletes nothing: it
//! ignores a stage and refuses a journal (`Manifest::read`).
//!
//! The guarantee, for an interruption at any point (the process killed, a
//! crash, a full disk, a read-only file system): once recovered, DIR holds
//! either the complete previous output or the complete new one, its manifest
//! matching its files, and files beryl did not write are untouched. Before
//! recovery, DIR's own files are still the complete previous output unless a
//! journal is present; a program that reads DIR directly (not through beryl)
//! in that state can see a mix, and should treat `.beryl-journal.json` as
//! "not ready" (or run `render --out` on DIR first).
//!
//! Not covered: power failures. beryl does not fsync (an fsync per file made
//! writing 10,000 files about 20 times slower); after a power failure the
//! files may lack what the kernel had not yet written.
//!
//! Concurrent beryl runs on one DIR are serialised by an advisory lock
//! (`flock`) on the directory itself: exclusive to write or recover, shared
//! to read. Writing and recovering need write access to DIR.
//!
//! In debug builds, `BERYL_FAULT_ABORT_AFTER=K` aborts the process before
//! the step after K completed file operations (stage writes, the commit,
//! renames, removals), and `BERYL_FAULT_ENOSPC_AFTER=K` makes that step fail
//! with "No space left on device": the fault tests (tests/integration/
//! faults.rs) use them. Release builds ignore both.

//!
//! The parts: [`Manifest`] (manifest.rs), [`DirWriter`] (writer.rs), the
//! journal and recovery (journal.rs), their file operations relative to
//! descriptors of DIR and its stage (confined.rs), [`DirLock`] (lock.rs),
//! and what a manifest records to reuse hosts (reuse.rs).

use std::path::Path;

use crate::diag::{Common, Diag};
use crate::output::Format;

crate::diag::codes! {
    /// The codes of render directories.
    pub(crate) enum Code in "fleet" {
        /// A `beryl-manifest.json` that is not a beryl manifest.
        Manifest = "manifest";
        /// A `.beryl-journal.json` that beryl cannot use to finish or undo an interrupted write.
        Journal = "journal";
        /// A render directory that a reader (`beryl diff`) finds with a journal: a write interrupted after its commit, which only `render --out` finishes.
        Interrupted = "interrupted";
    }
}

pub(crate) const MANIFEST: &str = "beryl-manifest.json";
/// The staging directory of a write in progress (a reserved name in DIR).
pub(crate) const STAGE: &str = ".beryl-stage";
/// The commit record of a write (a reserved name in DIR).
pub(crate) const JOURNAL: &str = ".beryl-journal.json";

/// One host's rendered text.
#[cfg(test)]
pub(crate) struct Rendered {
    pub fqdn: String,
    pub text: String,
}

/// `sha256:<hex>` of a rendered text.
pub(crate) fn hash(text: &str) -> String {
    format!("sha256:{}", crate::fsutil::sha256_hex(text))
}

pub(crate) fn extension(format: Format) -> &'static str {
    match format {
        Format::Yaml => "yml",
        Format::Json => "json",
    }
}

pub(super) fn format_name(format: Format) -> &'static str {
    match format {
        Format::Yaml => "yaml",
        Format::Json => "json",
    }
}

/// Whether DIR looks like a render directory (a manifest, or a write that
/// was interrupted before its first manifest).
pub(crate) fn is_render_dir(dir: &Path) -> bool {
    dir.join(MANIFEST).exists() || dir.join(JOURNAL).exists()
}

/// Writes every host's text and the manifest into `dir` as one transaction
/// (the module docs): [`DirWriter`] for texts already in memory.
#[cfg(test)]
pub(crate) fn write_dir(dir: &Path, hosts: &[Rendered], format: Format) -> Result<(), Diag> {
    use std::collections::{BTreeMap, BTreeSet};
    let writer = DirWriter::begin(dir, format)?;
    let mut hashes = BTreeMap::new();
    for h in hosts {
        if let Some(hash) = writer.stage(&h.fqdn, &h.text)? {
            hashes.insert(h.fqdn.clone(), hash);
        }
    }
    let manifest = Manifest::new(format, BTreeMap::new(), hashes, Default::default());
    writer.commit(manifest, &BTreeSet::new()).map(drop)
}

/// Reads a file of a render directory, one that beryl wrote there: a
/// regular file within the output cap, never a link (a link someone planted
/// in DIR would make beryl read, and quote, a file elsewhere).
pub(crate) fn read_own(path: &Path) -> Result<String, Diag> {
    let name = path.display().to_string();
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(Diag::new(
            Common::Io,
            format!("{name} is a symbolic link: beryl writes none in a render directory"),
        )
        .help("beryl does not follow links in a render directory; render it again"));
    }
    crate::yaml::read_output(path, &name)
}

pub(super) fn io(path: &Path, e: &std::io::Error) -> Diag {
    Diag::new(Common::Io, format!("{}: {e}", path.display()))
}

mod confined;
mod journal;
mod lock;
mod manifest;
pub(crate) mod reuse;
mod writer;

pub(crate) use lock::DirLock;
pub(crate) use manifest::Manifest;
pub(crate) use writer::DirWriter;

#[cfg(test)]
mod tests;
