//! `beryl facts --gather`: the facts script run over SSH on many hosts at
//! once (one ssh connection each), each snapshot written to `DIR/FQDN.json`
//! atomically, byte for byte as the host printed it. A host that fails gets
//! `DIR/FQDN.error` instead (and loses an older snapshot: the directory
//! holds what this run saw); the others go on.
//!
//! A host's jails (issue 36) are gathered over the host's connection: one
//! script runs the host's facts script, then each jail's inside the jail
//! (src/apply/script.rs, `facts_unit`); the host's snapshot is the lines it
//! printed as they are, each jail's the lines prefixed `|ID `, unprefixed,
//! byte for byte (every snapshot ends its lines with a newline), so that
//! its sha256 is the one the jail's own saved-plan guard computes in it.

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

/// A host to gather from: how to reach it and its facts script, and the
/// jails whose facts are taken over the same connection.
#[derive(Debug, Clone)]
pub(crate) struct Target<'a> {
    pub fqdn: &'a str,
    pub login: &'a Login,
    pub script: &'a FactsScript,
    /// Whether the host's own snapshot is wanted (else only its jails').
    pub own: bool,
    pub jails: Vec<JailTarget<'a>>,
}

impl<'a> Target<'a> {
    /// The units whose snapshots the target gives, in order: the host
    /// (when its own is wanted), then its jails.
    pub(crate) fn units(&self) -> Vec<&'a str> {
        let host = self.own.then_some(self.fqdn);
        host.into_iter()
            .chain(self.jails.iter().map(|j| j.fqdn))
            .collect()
    }
}

/// A jail of a target: its jail(8) name, its identity and its facts script
/// (run inside it).
#[derive(Debug, Clone)]
pub(crate) struct JailTarget<'a> {
    pub name: &'a str,
    pub fqdn: &'a str,
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

/// Gathers every target, `parallel` at a time; results in the order given,
/// one per unit of each target ([`Target::units`]).
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
    let per: Vec<Vec<Gathered>> =
        pool.install(|| targets.par_iter().map(|t| one(t, options, dir)).collect());
    Ok(per.into_iter().flatten().collect())
}

/// What taking one host's facts now gave: the sha256 of the bytes it
/// printed and the snapshot, or why not (the host unreachable, or its
/// facts script failed).
pub(crate) type Taken = Result<(String, State), (Status, String)>;

/// Takes every target's facts now, `parallel` at a time, written nowhere
/// (`apply --plan` compares them with the plan's); results in the order
/// given, one per unit of each target ([`Target::units`]).
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
    let per: Vec<Vec<Taken>> = pool.install(|| {
        targets
            .par_iter()
            .map(|t| {
                take_units(t, options)
                    .into_iter()
                    .map(|r| match r {
                        Ok((bytes, state)) => Ok((sha256_bytes(&bytes), state)),
                        Err(m) => Err(m.status_and_message()),
                    })
                    .collect()
            })
            .collect()
    });
    Ok(per.into_iter().flatten().collect())
}

fn one(t: &Target<'_>, options: &[String], dir: &Path) -> Vec<Gathered> {
    t.units()
        .into_iter()
        .zip(take_units(t, options))
        .map(|(fqdn, r)| write(dir, fqdn, r))
        .collect()
}

/// Writes a unit's snapshot, or its error file.
fn write(dir: &Path, fqdn: &str, taken: Result<(Vec<u8>, State), Missed>) -> Gathered {
    let Some((json, error)) = paths(dir, fqdn) else {
        return Err(format!("{fqdn:?} is not a file name"));
    };
    let result = taken.map_err(Missed::into_message).and_then(|(bytes, _)| {
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
            let _ = crate::fsutil::write_atomic(&error, format!("{fqdn}: {reason}\n"));
        }
    }
    result
}

/// Why a host's facts were not taken.
#[derive(Clone)]
enum Missed {
    /// ssh could not reach it (ssh's own words).
    Unreachable(String),
    /// Reached, its facts script failed or printed no snapshot.
    Failed(String),
}

impl Missed {
    fn into_message(self) -> String {
        self.status_and_message().1
    }

    /// Its status and message. The message may hold the remote's words (a
    /// jail's JSON string in serde's `unknown variant …`, ssh's stderr): its
    /// control characters are shown, never obeyed, wherever it goes (the
    /// error file, `beryl facts`' lines and diagnostics, a stale plan's).
    fn status_and_message(self) -> (Status, String) {
        let (status, why) = match self {
            Missed::Unreachable(why) => (Status::Unreachable, why),
            Missed::Failed(why) => (Status::Failed, why),
        };
        (status, crate::value::repr::visible(&why, &[]))
    }
}

/// Runs the facts script on the host and checks that it printed a
/// snapshot.
fn take(t: &Target<'_>, options: &[String]) -> Result<(Vec<u8>, State), Missed> {
    let (code, bytes) = capture(t, options, &t.script.text)?;
    if code != 0 {
        return Err(Missed::Failed(format!("the facts script exited {code}")));
    }
    let state = check(t.fqdn, t.script, &bytes)?;
    Ok((bytes, state))
}

/// Runs `script` over the target's connection: its status and output.
fn capture(t: &Target<'_>, options: &[String], script: &str) -> Result<(i32, Vec<u8>), Missed> {
    ssh::capture(t.login, options, &[], script).map_err(|d| {
        match d.code == super::Code::Ssh.as_str() {
            true => Missed::Unreachable(d.message),
            false => Missed::Failed(d.message),
        }
    })
}

/// The snapshots of a target's units ([`Target::units`]): a host alone by
/// its facts script, a host with jails by one script over the same
/// connection, its output split back into units.
fn take_units(t: &Target<'_>, options: &[String]) -> Vec<Result<(Vec<u8>, State), Missed>> {
    if t.jails.is_empty() {
        return t.own.then(|| take(t, options)).into_iter().collect();
    }
    let n = t.units().len();
    let jails: Vec<super::script::JailScript<'_>> = t
        .jails
        .iter()
        .map(|j| super::script::JailScript {
            name: j.name,
            id: j.fqdn,
            text: &j.script.text,
            dataset: None,
        })
        .collect();
    let script = match super::script::facts_unit(t.own.then_some(&*t.script.text), &jails) {
        Ok(s) => s,
        Err(e) => return (0..n).map(|_| Err(Missed::Failed(e.to_string()))).collect(),
    };
    let (code, bytes) = match capture(t, options, &script) {
        Ok(r) => r,
        Err(m) => return (0..n).map(|_| Err(m.clone())).collect(),
    };
    let split = split(&bytes, &t.jails);
    let mut out = Vec::with_capacity(n);
    if t.own {
        out.push(match code {
            0 => check(t.fqdn, t.script, &split.host).map(|s| (split.host.clone(), s)),
            _ => Err(Missed::Failed(format!("the facts script exited {code}"))),
        });
    }
    for (j, (text, end)) in t.jails.iter().zip(split.jails) {
        out.push(match end {
            Some(End::Exit(0)) => check(j.fqdn, j.script, &text).map(|s| (text, s)),
            Some(End::Exit(n)) => Err(Missed::Failed(format!(
                "the jail's facts script exited {n}"
            ))),
            Some(End::Absent) => Err(Missed::Failed(
                "the jail is not running (jls -j found none)".into(),
            )),
            None => Err(Missed::Failed(
                "its facts did not end (no `jail:` line from its host)".into(),
            )),
        });
    }
    out
}

/// How a jail's run ended, as its host wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Exit(i32),
    Absent,
}

/// A connection's output split into units.
#[derive(Debug)]
struct Split {
    host: Vec<u8>,
    /// Each jail's bytes and end, in the order of the target's jails.
    jails: Vec<(Vec<u8>, Option<End>)>,
}

/// Splits a connection's output: a `|ID ` line of a jail whose run has not
/// ended is that jail's (the prefix dropped), the host's `jail: ID …` line
/// ends it, every other line is the host's, byte for byte.
fn split(bytes: &[u8], jails: &[JailTarget<'_>]) -> Split {
    let mut out = Split {
        host: Vec::new(),
        jails: vec![(Vec::new(), None); jails.len()],
    };
    let running = |out: &Split, id: &[u8]| {
        jails
            .iter()
            .position(|j| j.fqdn.as_bytes() == id)
            .filter(|&i| out.jails[i].1.is_none())
    };
    for line in bytes.split_inclusive(|b| *b == b'\n') {
        if let Some(rest) = line.strip_prefix(b"|")
            && let Some(sp) = rest.iter().position(|b| *b == b' ')
            && let Some(i) = running(&out, &rest[..sp])
        {
            out.jails[i].0.extend_from_slice(&rest[sp + 1..]);
            continue;
        }
        if let Some(rest) = line.strip_prefix(b"jail: ") {
            let text = String::from_utf8_lossy(rest);
            let text = text.trim_end_matches('\n');
            let (id, end) = match (text.split_once(" exit "), text.strip_suffix(" absent")) {
                (Some((id, n)), _) => (id, n.parse().ok().map(End::Exit)),
                (None, Some(id)) => (id, Some(End::Absent)),
                (None, None) => (text, None),
            };
            if let (Some(i), Some(end)) = (running(&out, id.as_bytes()), end) {
                out.jails[i].1 = Some(end);
                continue;
            }
        }
        out.host.extend_from_slice(line);
    }
    out
}

/// The snapshot a unit's facts script printed, which must name the unit
/// and the script.
fn check(fqdn: &str, script: &FactsScript, bytes: &[u8]) -> Result<State, Missed> {
    let state = State::parse(bytes)
        .map_err(|e| Missed::Failed(format!("the facts script printed no snapshot: {e}")))?;
    if state.format_version != FORMAT_VERSION {
        return Err(Missed::Failed(format!(
            "a snapshot of format {}, and this beryl reads format {FORMAT_VERSION}",
            state.format_version
        )));
    }
    // What the script prints names its host and itself: anything else came
    // from something between ssh and the script (a wrapper, a shim).
    if state.bound_to(fqdn, &script.sha256).is_err() {
        return Err(Missed::Failed(format!(
            "the host printed a snapshot of {:?}, not of this host's facts script",
            state.host
        )));
    }
    Ok(state)
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

    /// A connection's facts split byte for byte: the host's lines as they
    /// are, each jail's without its prefix, a jail's forged lines its own.
    #[test]
    fn a_connections_facts_split_by_unit() {
        let script = FactsScript {
            text: String::new(),
            sha256: String::new(),
        };
        let jails = [
            JailTarget {
                name: "a",
                fqdn: "a.h",
                script: &script,
            },
            JailTarget {
                name: "b",
                fqdn: "b.h",
                script: &script,
            },
        ];
        let out = b"{\"host\":\"h\"}\n|a.h {\"host\":\n|a.h \"a.h\"}\n|a.h jail: b.h exit 0\njail: a.h exit 0\n|a.h late\njail: b.h absent\n";
        let s = split(out, &jails);
        assert_eq!(s.host, b"{\"host\":\"h\"}\n|a.h late\n");
        assert_eq!(
            s.jails[0],
            (
                b"{\"host\":\n\"a.h\"}\njail: b.h exit 0\n".to_vec(),
                Some(End::Exit(0))
            )
        );
        assert_eq!(s.jails[1], (Vec::new(), Some(End::Absent)));
    }

    /// A jail's snapshot whose enum field holds escapes fails serde with a
    /// message that quotes the string: its error file, `beryl facts`' line
    /// and diagnostic, and a saved plan's refusal show them, never obey.
    #[test]
    fn a_snapshots_escapes_are_shown_in_its_failure() {
        let script = FactsScript {
            text: String::new(),
            sha256: String::new(),
        };
        let bad = b"{\"format_version\":1,\"files\":{\"/x\":{\"mode\":\"0644\",\"owner\":\"root\",\"group\":\"wheel\",\"type\":\"\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m\"}}}\n";
        let Err(missed) = check("j.h", &script, bad) else {
            panic!("a bad snapshot was taken");
        };
        let (status, why) = missed.clone().status_and_message();
        assert_eq!(status, Status::Failed);
        assert!(why.contains("unknown variant"), "{why}");
        assert!(
            why.contains("\\u{1b}]0;pwned\\u{7}\\u{1b}[2J\\u{9b}31m"),
            "{why}"
        );
        assert!(!why.chars().any(char::is_control), "{why}");
        // The error file holds the same words.
        let dir = tempfile::tempdir().unwrap();
        let Err(why) = write(dir.path(), "j.h", Err(missed)) else {
            panic!("written");
        };
        let file = std::fs::read_to_string(dir.path().join("j.h.error")).unwrap();
        assert_eq!(file, format!("j.h: {why}\n"));
        assert!(!why.chars().any(char::is_control), "{why}");
        // ssh's words, too.
        let (_, why) = Missed::Unreachable("ssh: \u{1b}[2J".into()).status_and_message();
        assert_eq!(why, "ssh: \\u{1b}[2J");
    }

    #[test]
    fn bytes_and_text_hash_alike() {
        assert_eq!(sha256_bytes(b"{}\n"), crate::fsutil::sha256_hex("{}\n"));
    }
}
