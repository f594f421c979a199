//! Reading state snapshots: `--state FILE` for one host, `--state-dir DIR`
//! (DIR/FQDN.json, as `beryl facts --gather` writes them) for many.

use std::path::Path;

use super::Code;
use crate::apply::gather;
use crate::cli::Failure;
use crate::diag::Diag;
use crate::resource::state::{FORMAT_VERSION, State};

/// A host's snapshot as read: the state, the file it came from, and the
/// sha256 of its bytes (what a saved plan is stamped with).
pub(super) struct Snapshot {
    pub state: State,
    pub path: String,
    pub sha256: String,
    /// Its bytes, which a saved plan keeps.
    pub text: String,
}

/// `--state-dir` must be a directory: a mistyped one would leave every
/// host's state unknown, which a dry run reports as exit 0.
pub(super) fn exists(dir: &Path) -> Result<(), Failure> {
    if dir.is_dir() {
        return Ok(());
    }
    Err(vec![
        Diag::new(
            Code::State,
            format!("--state-dir {}: no such directory", dir.display()),
        )
        .help("gather the snapshots into it first: beryl facts --gather SELECTION --out DIR"),
    ])
}

/// The snapshot of `fqdn` in `dir`; `None` when there is none (its state is
/// unknown). A file that is there but is not a snapshot is an error.
pub(super) fn from_dir(dir: &Path, fqdn: &str) -> Result<Option<Snapshot>, Failure> {
    let Some((json, _)) = gather::paths(dir, fqdn) else {
        return Ok(None);
    };
    if !json.exists() {
        return Ok(None);
    }
    load(&json).map(Some)
}

/// Reads and checks a snapshot file.
pub(super) fn load(path: &Path) -> Result<Snapshot, Failure> {
    let name = path.display().to_string();
    let text = crate::yaml::read_output(path, &name)?;
    let help = "take one with: beryl facts --gather HOST --out DIR";
    let state: State = serde_json::from_str(&text).map_err(|e| {
        vec![
            Diag::new(
                Code::State,
                format!(
                    "{name}:{}:{}: not a beryl state snapshot: {e}",
                    e.line(),
                    e.column()
                ),
            )
            .help(help),
        ]
    })?;
    if state.format_version != FORMAT_VERSION {
        return Err(vec![
            Diag::new(
                Code::State,
                format!(
                    "{name}: a snapshot of format {}, and this beryl reads format {FORMAT_VERSION}",
                    state.format_version,
                ),
            )
            .help(help),
        ]);
    }
    Ok(Snapshot {
        state,
        sha256: crate::apply::sha256_hex(&text),
        text,
        path: name,
    })
}
