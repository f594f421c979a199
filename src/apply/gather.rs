//! `beryl facts --gather`: the facts script run over SSH on many hosts at
//! once (one ssh connection each), each snapshot written to `DIR/FQDN.json`
//! atomically, byte for byte as the host printed it. A host that fails gets
//! `DIR/FQDN.error` instead (and loses an older snapshot: the directory
//! holds what this run saw); the others go on.

use std::path::{Path, PathBuf};

use super::recap::Status;
use super::ssh;
use crate::desired::Login;
use crate::resource::state::{FORMAT_VERSION, FactsScript, State};

/// The facts script of a host with these steps: what it looks at is what
/// its steps query (`beryl facts HOST`).
pub(crate) fn facts_script(
    fqdn: &str,
    steps: &[super::Step],
) -> Result<FactsScript, crate::shell::QuoteError> {
    crate::resource::state::facts_script(fqdn, &super::queries(steps))
}

/// A host to gather from: how to reach it and its facts script.
#[derive(Debug, Clone)]
pub(crate) struct Target<'a> {
    pub fqdn: &'a str,
    pub login: &'a Login,
    pub script: &'a FactsScript,
}

/// What gathering one host gave: the snapshot's path and sha256, or why not.
pub(crate) type Gathered = Result<(PathBuf, String), String>;

/// The snapshot and error files of a host in `dir`; `None` for a name that
/// is not one file name (inventory FQDNs always are).
pub(crate) fn paths(dir: &Path, fqdn: &str) -> Option<(PathBuf, PathBuf)> {
    let plain = !fqdn.is_empty() && !fqdn.starts_with('.') && !fqdn.contains(['/', '\\', '\0']);
    plain.then(|| {
        (
            dir.join(format!("{fqdn}.json")),
            dir.join(format!("{fqdn}.error")),
        )
    })
}

/// Gathers every target, `parallel` at a time; results in the order given.
pub(crate) fn gather(
    targets: &[Target<'_>],
    options: &[String],
    parallel: usize,
    dir: &Path,
) -> Result<Vec<Gathered>, String> {
    use rayon::prelude::*;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(parallel.max(1))
        .build()
        .map_err(|e| e.to_string())?;
    Ok(pool.install(|| targets.par_iter().map(|t| one(t, options, dir)).collect()))
}

/// What taking one host's facts now gave: the sha256 of the bytes it
/// printed and the snapshot, or why not (the host unreachable, or its
/// facts script failed).
pub(crate) type Taken = Result<(String, State), (Status, String)>;

/// Takes every target's facts now, `parallel` at a time, written nowhere
/// (`apply --plan` compares them with the plan's); results in the order
/// given.
pub(crate) fn take_all(
    targets: &[Target<'_>],
    options: &[String],
    parallel: usize,
) -> Result<Vec<Taken>, String> {
    use rayon::prelude::*;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(parallel.max(1))
        .build()
        .map_err(|e| e.to_string())?;
    Ok(pool.install(|| {
        targets
            .par_iter()
            .map(|t| match take(t, options) {
                Ok((bytes, state)) => Ok((sha256_bytes(&bytes), state)),
                Err(Missed::Unreachable(why)) => Err((Status::Unreachable, why)),
                Err(Missed::Failed(why)) => Err((Status::Failed, why)),
            })
            .collect()
    }))
}

fn one(t: &Target<'_>, options: &[String], dir: &Path) -> Gathered {
    let Some((json, error)) = paths(dir, t.fqdn) else {
        return Err(format!("{:?} is not a file name", t.fqdn));
    };
    let result = take(t, options)
        .map_err(Missed::into_message)
        .and_then(|(bytes, _)| {
            crate::fsutil::write_atomic(&json, &bytes)
                .map_err(|(p, e)| format!("cannot write {}: {e}", p.display()))?;
            Ok((json.clone(), sha256_bytes(&bytes)))
        });
    match &result {
        Ok(_) => {
            let _ = std::fs::remove_file(&error);
        }
        Err(reason) => {
            let _ = std::fs::remove_file(&json);
            let _ = crate::fsutil::write_atomic(&error, format!("{}: {reason}\n", t.fqdn));
        }
    }
    result
}

/// Why a host's facts were not taken.
enum Missed {
    /// ssh could not reach it (ssh's own words).
    Unreachable(String),
    /// Reached, its facts script failed or printed no snapshot.
    Failed(String),
}

impl Missed {
    fn into_message(self) -> String {
        match self {
            Missed::Unreachable(why) | Missed::Failed(why) => why,
        }
    }
}

/// Runs the facts script on the host and checks that it printed a
/// snapshot.
fn take(t: &Target<'_>, options: &[String]) -> Result<(Vec<u8>, State), Missed> {
    let (code, bytes) = ssh::capture(t.login, options, &[], &t.script.text).map_err(|d| match d
        .code
        == super::Code::Ssh.as_str()
    {
        true => Missed::Unreachable(d.message),
        false => Missed::Failed(d.message),
    })?;
    if code != 0 {
        return Err(Missed::Failed(format!("the facts script exited {code}")));
    }
    let state = State::parse(&bytes)
        .map_err(|e| Missed::Failed(format!("the facts script printed no snapshot: {e}")))?;
    if state.format_version != FORMAT_VERSION {
        return Err(Missed::Failed(format!(
            "a snapshot of format {}, and this beryl reads format {FORMAT_VERSION}",
            state.format_version
        )));
    }
    // What the script prints names its host and itself: anything else came
    // from something between ssh and the script (a wrapper, a shim).
    if state.bound_to(t.fqdn, &t.script.sha256).is_err() {
        return Err(Missed::Failed(format!(
            "the host printed a snapshot of {:?}, not of this host's facts script",
            state.host
        )));
    }
    Ok((bytes, state))
}

/// The sha256 of bytes in lowercase hex.
pub(crate) fn sha256_bytes(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_names_become_files() {
        let d = Path::new("/x");
        assert_eq!(
            paths(d, "h.example.org").unwrap().0,
            Path::new("/x/h.example.org.json")
        );
        for bad in ["", "..", ".h", "a/b", "a\\b"] {
            assert!(paths(d, bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn bytes_and_text_hash_alike() {
        assert_eq!(sha256_bytes(b"{}\n"), crate::fsutil::sha256_hex("{}\n"));
    }
}
