//! Fleet output: every host rendered into a directory, with a hash manifest.
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
//! Every command that writes or reads DIR (`render --out`, and `beryl diff`
//! on a render directory) first **recovers** it, under the lock below: a
//! journal is rolled forward (step 3 again). A stage without a journal (an
//! interruption before the commit) is deleted by the next write, and by a
//! reader that can; DIR's own files do not depend on it.
//!
//! The guarantee, for an interruption at any point (the process killed, a
//! crash, a full disk, a read-only file system): once recovered, DIR holds
//! either the complete previous output or the complete new one, its manifest
//! matching its files, and files beryl did not write are untouched. Before
//! recovery, DIR's own files are still the complete previous output unless a
//! journal is present; a program that reads DIR directly (not through beryl)
//! in that state can see a mix, and should treat `.beryl-journal.json` as
//! "not ready" (or run any beryl command on DIR first).
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

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use super::Format;
use crate::diag::{Common, Diag};

crate::diag::codes! {
    /// The codes of render directories.
    pub(crate) enum Code in "fleet" {
        /// A `beryl-manifest.json` that is not a beryl manifest.
        Manifest = "manifest";
        /// A `.beryl-journal.json` that beryl cannot use to finish or undo an interrupted write.
        Journal = "journal";
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

/// A render directory's manifest; version 1 has only `format` and `hosts`,
/// version 2 adds the records of reuse.rs.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Manifest {
    pub version: u32,
    #[serde(default)]
    pub format: Option<String>,
    /// What the output depends on besides each host's inputs (reuse.rs).
    #[serde(default)]
    pub options: BTreeMap<String, String>,
    pub hosts: BTreeMap<String, String>,
    /// Every host's inputs: their digests, `None` for a path probed empty.
    #[serde(default)]
    pub inputs: BTreeMap<String, Option<String>>,
    /// Each host's inputs, as indices into `inputs`.
    #[serde(default)]
    pub records: BTreeMap<String, reuse::Entry>,
}

/// What the apply step does: move these files from the stage into DIR (the
/// manifest last), then remove those.
#[derive(Debug, Serialize, Deserialize)]
struct Journal {
    version: u32,
    moves: Vec<String>,
    remove: Vec<String>,
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

fn format_name(format: Format) -> &'static str {
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

impl Manifest {
    /// The manifest of a render directory (recovered first, see the module
    /// docs); `None` when it has none. The returned lock keeps writers out
    /// while the caller reads the host files.
    pub(crate) fn read(dir: &Path) -> Result<(Option<Manifest>, DirLock), Diag> {
        let lock = DirLock::shared(dir)?;
        let lock = if dir.join(JOURNAL).exists() {
            // A committed write to finish: wait for the directory.
            drop(lock);
            let lock = DirLock::exclusive(dir)?;
            recover(dir, true)?;
            lock.downgrade()?
        } else if dir.join(STAGE).exists() {
            // An uncommitted stage, which DIR's files do not depend on:
            // deleted if nobody else holds the directory (the other side of
            // `beryl diff out out` does), else left for the next write.
            drop(lock);
            match DirLock::try_exclusive(dir)? {
                Some(lock) => {
                    recover(dir, true)?;
                    lock.downgrade()?
                }
                None => DirLock::shared(dir)?,
            }
        } else {
            lock
        };
        Ok((read_manifest(dir)?, lock))
    }

    /// A version-2 manifest in `format` with these hosts and records.
    pub(crate) fn new(
        format: Format,
        options: BTreeMap<String, String>,
        hosts: BTreeMap<String, String>,
        (inputs, records): (
            BTreeMap<String, Option<String>>,
            BTreeMap<String, reuse::Entry>,
        ),
    ) -> Manifest {
        Manifest {
            version: reuse::VERSION,
            format: Some(format_name(format).to_string()),
            options,
            hosts,
            inputs,
            records,
        }
    }

    /// The manifest as written: JSON, one line per host, input and record,
    /// so that 10,000 hosts stay a few megabytes and `diff` shows a change
    /// as the lines it touches.
    fn text(&self) -> String {
        fn json<T: Serialize + ?Sized>(v: &T) -> String {
            serde_json::to_string(v).unwrap_or_default()
        }
        fn map<V: Serialize>(out: &mut String, key: &str, map: &BTreeMap<String, V>) {
            out.push_str(&format!(",\n  \"{key}\": {{"));
            for (i, (k, v)) in map.iter().enumerate() {
                out.push_str(if i == 0 { "\n    " } else { ",\n    " });
                out.push_str(&format!("{}: {}", json(k), json(v)));
            }
            out.push_str(if map.is_empty() { "}" } else { "\n  }" });
        }
        let mut out = format!(
            "{{\n  \"version\": {},\n  \"format\": {}",
            self.version,
            json(&self.format)
        );
        map(&mut out, "options", &self.options);
        map(&mut out, "hosts", &self.hosts);
        map(&mut out, "inputs", &self.inputs);
        map(&mut out, "records", &self.records);
        out.push_str("\n}\n");
        out
    }

    /// The file of a host in a directory with this manifest.
    pub(crate) fn file(&self, dir: &Path, fqdn: &str) -> PathBuf {
        dir.join(self.file_name(fqdn))
    }

    fn file_name(&self, fqdn: &str) -> String {
        let ext = match self.format.as_deref() {
            Some("json") => "json",
            _ => "yml",
        };
        format!("{fqdn}.{ext}")
    }
}

/// Reads and checks `DIR/beryl-manifest.json`: a regular file within the
/// output size cap, whose host names are host names (a manifest naming
/// `../../x` would make beryl remove or read files outside DIR).
fn read_manifest(dir: &Path) -> Result<Option<Manifest>, Diag> {
    let path = dir.join(MANIFEST);
    let name = path.display().to_string();
    if !path.exists() {
        return Ok(None);
    }
    let text = crate::yaml::read_output(&path, &name)?;
    let manifest: Manifest = serde_json::from_str(&text).map_err(|e| {
        Diag::new(
            Code::Manifest,
            format!(
                "{name}:{}:{}: not a beryl manifest: {e}",
                e.line(),
                e.column()
            ),
        )
    })?;
    if let Some(bad) = manifest
        .hosts
        .keys()
        .find(|h| crate::freebsd::names::hostname(h).is_err())
    {
        // Where the name is written (serde_json keeps no positions).
        let quoted = serde_json::to_string(bad).unwrap_or_default();
        let line = text.find(&quoted).map_or(1, |at| {
            text[..at].bytes().filter(|&b| b == b'\n').count() + 1
        });
        return Err(Diag::new(
            Code::Manifest,
            format!("{name}:{line}: `{bad}` is not a host name; is this a beryl manifest?"),
        )
        .help("render the directory again after removing the manifest"));
    }
    Ok(Some(manifest))
}

/// Writes every host's text and the manifest into `dir` as one transaction
/// (the module docs): [`DirWriter`] for texts already in memory.
#[cfg(test)]
pub(crate) fn write_dir(dir: &Path, hosts: &[Rendered], format: Format) -> Result<(), Diag> {
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
        std::fs::create_dir_all(dir).map_err(|e| io(dir, &e))?;
        let lock = DirLock::exclusive(dir)?;
        let mut writer = DirWriter {
            dir: dir.to_path_buf(),
            format,
            old: None,
            created,
            committed: false,
            failed: AtomicBool::new(false),
            _lock: lock,
        };
        recover(dir, false)?;
        writer.old = read_manifest(dir)?;
        let stage = dir.join(STAGE);
        std::fs::create_dir(&stage).map_err(|e| io(&stage, &e))?;
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
        match fault::step().and_then(|()| std::fs::write(&path, text)) {
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
            .and_then(|()| std::fs::write(&path, &text))
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
            let _ = std::fs::remove_dir_all(self.dir.join(STAGE));
            if self.created {
                let _ = std::fs::remove_dir(&self.dir);
            }
        }
    }
}

/// Step 2: the journal, renamed into place.
fn commit(dir: &Path, journal: &Journal) -> Result<(), Diag> {
    let tmp = dir.join(STAGE).join(JOURNAL);
    let text = serde_json::to_string(journal).unwrap_or_default();
    fault::step()
        .and_then(|()| std::fs::write(&tmp, text))
        .map_err(|e| io(&tmp, &e))?;
    let path = dir.join(JOURNAL);
    fault::step()
        .and_then(|()| std::fs::rename(&tmp, &path))
        .map_err(|e| io(&path, &e))
}

/// Step 3, also the roll-forward of recovery: every step can be redone.
fn apply(dir: &Path, journal: &Journal) -> Result<(), Diag> {
    let stage = dir.join(STAGE);
    let (manifest, hosts) = journal
        .moves
        .split_last()
        .ok_or_else(|| damaged(dir, "", "it moves no files"))?;
    let move_in = |name: &String| -> Result<(), Diag> {
        let from = stage.join(name);
        if !from.exists() {
            return Ok(()); // moved before an interruption
        }
        let to = dir.join(name);
        fault::step()
            .and_then(|()| std::fs::rename(&from, &to))
            .map_err(|e| io(&to, &e))
    };
    for name in hosts {
        move_in(name)?;
    }
    for name in &journal.remove {
        let path = dir.join(name);
        match fault::step().and_then(|()| std::fs::remove_file(&path)) {
            Err(e) if e.kind() != ErrorKind::NotFound => return Err(io(&path, &e)),
            _ => {}
        }
    }
    move_in(manifest)?;
    if stage.exists() {
        fault::step()
            .and_then(|()| std::fs::remove_dir_all(&stage))
            .map_err(|e| io(&stage, &e))?;
    }
    let path = dir.join(JOURNAL);
    fault::step()
        .and_then(|()| std::fs::remove_file(&path))
        .map_err(|e| io(&path, &e))
}

/// Finishes or discards an interrupted write (the caller holds the
/// exclusive lock). A reader (`for_reading`) that cannot delete an
/// uncommitted stage, on a read-only DIR say, leaves it: DIR's own files
/// are the previous output, whole.
fn recover(dir: &Path, for_reading: bool) -> Result<(), Diag> {
    let path = dir.join(JOURNAL);
    if path.exists() {
        let name = path.display().to_string();
        let text = crate::yaml::read_output(&path, &name)?;
        let journal: Journal = serde_json::from_str(&text).map_err(|e| {
            let at = format!(":{}:{}", e.line(), e.column());
            damaged(dir, &at, &e.to_string())
        })?;
        let plain =
            |n: &String| !n.is_empty() && !n.starts_with('.') && !n.contains(['/', '\\', '\0']);
        if journal.version != 1 || !journal.moves.iter().chain(&journal.remove).all(plain) {
            return Err(damaged(dir, "", "it names files outside the directory"));
        }
        return apply(dir, &journal);
    }
    let stage = dir.join(STAGE);
    if stage.exists() {
        let removed = fault::step().and_then(|()| std::fs::remove_dir_all(&stage));
        if let Err(e) = removed
            && !for_reading
        {
            return Err(io(&stage, &e));
        }
    }
    Ok(())
}

/// A journal beryl cannot use; `at` is `:line:col` when known.
fn damaged(dir: &Path, at: &str, why: &str) -> Diag {
    Diag::new(
        Code::Journal,
        format!(
            "{}{at}: not a beryl journal: {why}",
            dir.join(JOURNAL).display()
        ),
    )
    .help(format!(
        "remove {JOURNAL} and {STAGE} from the directory, then render it again"
    ))
}

/// An advisory lock on a render directory, held until dropped.
pub(crate) struct DirLock {
    file: Option<File>,
    dir: PathBuf,
}

impl DirLock {
    fn open(dir: &Path) -> Result<Option<File>, Diag> {
        File::open(dir).map(Some).map_err(|e| io(dir, &e))
    }

    fn exclusive(dir: &Path) -> Result<DirLock, Diag> {
        let file = Self::open(dir)?;
        Self::locked(dir, file, File::lock)
    }

    /// The exclusive lock if nobody holds the directory, else `None`.
    fn try_exclusive(dir: &Path) -> Result<Option<DirLock>, Diag> {
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

    fn shared(dir: &Path) -> Result<DirLock, Diag> {
        let file = Self::open(dir)?;
        Self::locked(dir, file, File::lock_shared)
    }

    /// From exclusive to shared, on the same descriptor.
    fn downgrade(mut self) -> Result<DirLock, Diag> {
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

fn io(path: &Path, e: &std::io::Error) -> Diag {
    Diag::new(Common::Io, format!("{}: {e}", path.display()))
}

/// The test-only fault hooks of the module docs.
mod fault {
    /// Called before each file operation of a write or a recovery.
    #[cfg(debug_assertions)]
    pub(super) fn step() -> std::io::Result<()> {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static DONE: AtomicUsize = AtomicUsize::new(0);
        let done = DONE.fetch_add(1, Ordering::SeqCst);
        let after = |var: &str| {
            std::env::var(var)
                .ok()
                .and_then(|v| v.parse::<usize>().ok())
        };
        if after("BERYL_FAULT_ABORT_AFTER") == Some(done) {
            eprintln!("beryl: BERYL_FAULT_ABORT_AFTER={done}: aborting");
            std::process::abort();
        }
        if after("BERYL_FAULT_ENOSPC_AFTER") == Some(done) {
            return Err(std::io::Error::from_raw_os_error(28)); // ENOSPC
        }
        Ok(())
    }

    #[cfg(not(debug_assertions))]
    #[inline(always)]
    pub(super) fn step() -> std::io::Result<()> {
        Ok(())
    }
}

pub(crate) mod reuse;

#[cfg(test)]
mod tests;
