//! The journal of a write (steps 2 and 3 of the module docs of
//! render_dir/mod.rs), the recovery that rolls it forward, and the test-only
//! fault hooks.

use std::io::ErrorKind;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{Code, JOURNAL, STAGE, io};
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
pub(super) fn recover(dir: &Path, for_reading: bool) -> Result<(), Diag> {
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
