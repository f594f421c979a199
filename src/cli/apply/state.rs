//! Reading state snapshots: `--state FILE` for one host, `--state-dir DIR`
//! (DIR/FQDN.json, as `beryl facts --gather` writes them) for many.

use std::path::Path;

use super::Code;
use crate::apply::gather;
use crate::cli::Failure;
use crate::diag::Diag;
use crate::resource::state::{FORMAT_VERSION, FactsScript, State, Unbound};

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
/// unknown). A file that is there but is not the host's snapshot, taken by
/// its facts script, is an error.
pub(super) fn from_dir(
    dir: &Path,
    fqdn: &str,
    script: &FactsScript,
) -> Result<Option<Snapshot>, Failure> {
    let Some((json, _)) = gather::paths(dir, fqdn) else {
        return Ok(None);
    };
    if !json.exists() {
        return Ok(None);
    }
    load_for(&json, fqdn, script).map(Some)
}

/// Reads `path`, which must be the snapshot of `fqdn` taken by `script`.
pub(super) fn load_for(path: &Path, fqdn: &str, script: &FactsScript) -> Result<Snapshot, Failure> {
    let snapshot = load(path)?;
    bound(&snapshot.state, &snapshot.path, fqdn, script)?;
    Ok(snapshot)
}

/// Refuses a snapshot (from `what`) of another host than `fqdn`, or taken
/// by another script than the one its config generates now: the dry run
/// would compare the host with what it does not look at.
pub(super) fn bound(
    state: &State,
    what: &str,
    fqdn: &str,
    script: &FactsScript,
) -> Result<(), Failure> {
    let message = match state.bound_to(fqdn, &script.sha256) {
        Ok(()) => return Ok(()),
        Err(u @ Unbound::Host(_)) => format!("{what}: {}, and the host is {fqdn}", u.what()),
        Err(u @ Unbound::Script) => format!(
            "{what}: {} than {fqdn}'s config generates now (the config or beryl changed since): it may not look at what the config manages",
            u.what()
        ),
    };
    Err(vec![Diag::new(Code::State, message).help(format!(
        "take {fqdn}'s snapshot again: beryl facts --gather {fqdn} --out DIR, or beryl facts {fqdn} | ssh … sudo -n sh -s > FILE"
    ))])
}

/// Reads and checks a snapshot file.
fn load(path: &Path) -> Result<Snapshot, Failure> {
    let name = path.display().to_string();
    let text = crate::yaml::read_output(path, &name)?;
    let help = "take one with: beryl facts --gather HOST --out DIR";
    // Read as JSON first: a snapshot of another format names its version
    // rather than a field it lacks.
    let state = State::parse(text.as_bytes()).map_err(|e| {
        vec![
            Diag::new(
                Code::State,
                // serde's words quote the snapshot's (a host's, a jail's).
                format!(
                    "{name}:{}:{}: not a beryl state snapshot: {}",
                    e.line(),
                    e.column(),
                    crate::value::repr::visible(&e.to_string(), &[])
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
