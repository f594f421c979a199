//! The journal of a write (steps 2 and 3 of the module docs of
//! render_dir/mod.rs), the recovery that rolls it forward, and the test-only
//! fault hooks.

use std::collections::BTreeSet;
use std::io::ErrorKind;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::confined::Confined;
use super::manifest::{parse_manifest, read_manifest};
use super::{Code, JOURNAL, MANIFEST, Manifest, STAGE, io};
use crate::diag::Diag;

/// What the apply step does: move these files from the stage into DIR (the
/// manifest last), then remove those.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Journal {
    pub(super) version: u32,
    pub(super) moves: Vec<String>,
    pub(super) remove: Vec<String>,
}

/// Step 2: the journal, renamed into place.
pub(super) fn commit(dir: &Path, journal: &Journal) -> Result<(), Diag> {
    let tmp = dir.join(STAGE).join(JOURNAL);
    let text = serde_json::to_string(journal).unwrap_or_default();
    fault::step()
        .and_then(|()| crate::fsutil::write_private(&tmp, text))
        .map_err(|e| io(&tmp, &e))?;
    let path = dir.join(JOURNAL);
    fault::step()
        .and_then(|()| std::fs::rename(&tmp, &path))
        .map_err(|e| io(&path, &e))
}

/// Step 3, also the roll-forward of recovery: every step can be redone.
pub(super) fn apply(dir: &Path, journal: &Journal) -> Result<(), Diag> {
    apply_in(&Confined::open(dir)?, dir, journal)
}

/// [`apply`] through DIR and its stage already opened.
fn apply_in(c: &Confined, dir: &Path, journal: &Journal) -> Result<(), Diag> {
    let (manifest, hosts) = journal
        .moves
        .split_last()
        .ok_or_else(|| damaged(dir, "", "it moves no files"))?;
    let move_in = |name: &String| -> Result<(), Diag> {
        if !c.staged(name)? {
            return Ok(()); // moved before an interruption
        }
        let to = dir.join(name);
        fault::step()
            .and_then(|()| c.move_in(name))
            .map_err(|e| io(&to, &e))
    };
    for name in hosts {
        move_in(name)?;
    }
    for name in &journal.remove {
        let path = dir.join(name);
        match fault::step().and_then(|()| c.remove(name)) {
            Err(e) if e.kind() != ErrorKind::NotFound => return Err(io(&path, &e)),
            _ => {}
        }
    }
    move_in(manifest)?;
    c.finish(fault::step)
}

/// Finishes or discards an interrupted write (the caller, `render --out`,
/// holds the exclusive lock; a reader never recovers: Manifest::read).
///
/// DIR may be a directory someone else prepared (a CI artifact, a shared
/// path), so recovery acts only on what beryl wrote (issue 35), through
/// descriptors of DIR and of its stage ([`Confined`]): the journal must be
/// a regular file and the stage a directory of DIR, neither a link, the
/// stage on DIR's file system; every name the journal moves must be a
/// regular file of the stage that the staged manifest lists, and every name
/// it removes a file of a host that DIR's manifest lists and the staged one
/// no longer does ([`check`]). Anything else is refused before a file is
/// moved or deleted.
pub(super) fn recover(dir: &Path) -> Result<(), Diag> {
    let c = Confined::open(dir)?;
    let journal = match std::fs::symlink_metadata(dir.join(JOURNAL)) {
        Err(e) if e.kind() == ErrorKind::NotFound => None,
        _ => Some(read(&c, dir)?),
    };
    match journal {
        // The manifest is moved after every other step of `apply`: once it
        // has left the stage, only the clean-up remains.
        Some(journal) if c.staged(MANIFEST)? => {
            check(&c, dir, &journal)?;
            apply_in(&c, dir, &journal)
        }
        Some(_) => c.finish(fault::step),
        None if c.has_stage() => {
            let stage = dir.join(STAGE);
            fault::step()
                .and_then(|()| std::fs::remove_dir_all(&stage))
                .map_err(|e| io(&stage, &e))
        }
        None => Ok(()),
    }
}

/// The journal of DIR, parsed, its names plain file names.
fn read(c: &Confined, dir: &Path) -> Result<Journal, Diag> {
    let text = c.read(false, JOURNAL)?;
    let journal: Journal = serde_json::from_str(&text).map_err(|e| {
        let at = format!(":{}:{}", e.line(), e.column());
        damaged(dir, &at, &e.to_string())
    })?;
    let plain = |n: &String| !n.is_empty() && !n.starts_with('.') && !n.contains(['/', '\\', '\0']);
    if journal.version != 1 || !journal.moves.iter().chain(&journal.remove).all(plain) {
        return Err(damaged(dir, "", "it names files outside the directory"));
    }
    Ok(journal)
}

/// Every name the journal moves is a staged host file of the staged
/// manifest (the manifest itself last), and every name it removes is a host
/// file of DIR's manifest that the staged manifest does not keep: the
/// journal names only files beryl wrote.
fn check(c: &Confined, dir: &Path, journal: &Journal) -> Result<(), Diag> {
    let files =
        |m: &Manifest| -> BTreeSet<String> { m.hosts.keys().map(|h| m.file_name(h)).collect() };
    let staged = dir.join(STAGE).join(MANIFEST);
    let text = c.read(true, MANIFEST)?;
    let new = files(&parse_manifest(&text, &staged.display().to_string())?);
    let old = read_manifest(dir)?.as_ref().map(files).unwrap_or_default();
    let (last, hosts) = journal
        .moves
        .split_last()
        .ok_or_else(|| damaged(dir, "", "it moves no files"))?;
    if last != MANIFEST {
        return Err(damaged(dir, "", "its last move is not the manifest"));
    }
    if let Some(name) = hosts.iter().find(|n| !new.contains(*n)) {
        let why = format!("it moves `{name}`, a file the staged manifest does not list");
        return Err(damaged(dir, "", &why));
    }
    if let Some(name) = journal
        .remove
        .iter()
        .find(|n| !old.contains(*n) || new.contains(*n))
    {
        let why = format!("it removes `{name}`, not a file of a host that {MANIFEST} lists");
        return Err(damaged(dir, "", &why));
    }
    for name in hosts {
        c.staged(name)?;
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

/// The test-only fault hooks of the module docs.
pub(super) mod fault {
    /// Called before each file operation of a write or a recovery.
    #[cfg(debug_assertions)]
    pub(in crate::outdir) fn step() -> std::io::Result<()> {
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
    pub(in crate::outdir) fn step() -> std::io::Result<()> {
        Ok(())
    }
}
