//! What one lookup answered on each side, and whether a disagreement is a
//! listed difference (tests/peers/differences.yml, `peers: [puppet-lookup]`).

use serde_json::Value as J;

use super::super::differences::{Difference, Verdict, ordered_eq, verdict};
use super::{Lookup, Reply};

/// What the predicates may read about a lookup besides the answers.
pub struct Case<'a> {
    pub lookup: &'a Lookup,
    /// The node's hierarchy names one data file twice (os/Debian.yaml as
    /// the family's and the name's file).
    pub twice: bool,
}

/// One side's answer to one lookup.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// `--render-as json`, parsed.
    Value(J),
    /// `--render-as s`: the bytes printed.
    Text(String),
    NotFound,
    /// The lookup failed (a merge of the wrong kinds, a dig into a scalar).
    Error(String),
}

/// Puppet: exit 1 is both "not found" and a failed lookup; the driver's
/// `lookup_error` tells them apart.
pub fn puppet(r: &Reply, json: bool) -> Outcome {
    match r.exit {
        0 if json => Outcome::Value(serde_json::from_str(&r.stdout).expect("puppet's JSON")),
        0 => Outcome::Text(r.stdout.clone()),
        _ if r.stderr.contains("did not find a value") => Outcome::NotFound,
        _ => Outcome::Error(r.stderr.clone()),
    }
}

/// beryl: exit 1 with the line `not found: KEY` on stderr, 2 on error.
pub fn beryl(r: &Reply, json: bool, key: &str) -> Outcome {
    match r.exit {
        0 if json => match serde_json::from_str(&r.stdout) {
            Ok(v) => Outcome::Value(v),
            Err(e) => Outcome::Error(format!("beryl printed no JSON ({e}): {}", r.stdout)),
        },
        0 => Outcome::Text(r.stdout.clone()),
        // Warnings may come before it.
        1 if r.stderr.lines().any(|l| l == format!("not found: {key}")) => Outcome::NotFound,
        1 => Outcome::Error(format!("exit 1 without `not found: {key}`: {}", r.stderr)),
        _ => Outcome::Error(r.stderr.clone()),
    }
}

fn same(a: &Outcome, b: &Outcome) -> bool {
    match (a, b) {
        (Outcome::Value(x), Outcome::Value(y)) => ordered_eq(x, y),
        (Outcome::Error(_), Outcome::Error(_)) => true,
        _ => a == b,
    }
}

pub fn judge(differences: &[Difference], case: &Case, ours: &Outcome, theirs: &Outcome) -> Verdict {
    let agree = same(ours, theirs);
    let flagged: Vec<&Difference> = differences
        .iter()
        .filter(|d| d.peers.iter().any(|p| p == "puppet-lookup"))
        .filter(|d| holds(&d.when, case, ours, theirs))
        .collect();
    verdict(agree, &flagged)
}

fn holds(when: &str, case: &Case, ours: &Outcome, theirs: &Outcome) -> bool {
    let l = case.lookup;
    let merge = l.merge.as_deref().unwrap_or("first");
    match when {
        // beryl keeps Hiera's `%{…}` as text; Puppet interpolates it.
        "lookup_interpolation" => match ours {
            Outcome::Value(v) => any_string(v, &|s| s.contains("%{")),
            Outcome::Text(t) => t.contains("%{"),
            _ => false,
        },
        // A plain yes/no/on/off… is a boolean to Psych (YAML 1.1), a string
        // to beryl (YAML 1.2): the answers agree where each such string of
        // beryl's stands for Puppet's boolean.
        "lookup_yaml11" => match (ours, theirs) {
            (Outcome::Value(a), Outcome::Value(b)) => !ordered_eq(a, b) && eq11(a, b),
            (Outcome::Text(a), Outcome::Text(b)) => {
                bool11(a.trim_end()).is_some_and(|v| format!("{v}\n") == *b)
            }
            _ => false,
        },
        // Puppet merges the root key, then digs; beryl folds the values
        // written at the key. They agree under `deep`.
        "lookup_dotted_key" => {
            l.dotted
                && merge != "deep"
                && match ours {
                    // `hash` at a scalar or a list.
                    Outcome::Error(e) => merge == "hash" && e.contains("beryl::merge::type"),
                    _ => !matches!(theirs, Outcome::Error(_)),
                }
        }
        // Puppet leaves knockout markers where nothing merged them away.
        "lookup_knockout_leak" => match (&l.knockout_prefix, theirs) {
            (Some(p), Outcome::Value(v)) => any_string(v, &|s| s.starts_with(p.as_str())),
            _ => false,
        },
        // Puppet merges a file its hierarchy names twice twice (a deep merge
        // of a list with itself drops the list's own duplicates); beryl
        // merges a class once per host.
        "lookup_level_twice" => {
            case.twice
                && merge == "deep"
                && matches!((ours, theirs), (Outcome::Value(_), Outcome::Value(_)))
        }
        // Ruby cannot order two hashes; beryl sorts by kind.
        "lookup_sort_incomparable" => {
            l.sort
                && matches!((ours, theirs), (Outcome::Value(_), Outcome::Error(e)) if e.contains("comparison of"))
        }
        other => panic!("unknown predicate {other} for puppet lookup"),
    }
}

/// Equal, but for beryl strings that YAML 1.1 reads as Puppet's boolean.
fn eq11(ours: &J, theirs: &J) -> bool {
    match (ours, theirs) {
        (J::String(s), J::Bool(b)) => bool11(s) == Some(*b),
        (J::Array(x), J::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| eq11(p, q))
        }
        (J::Object(x), J::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && eq11(v1, v2))
        }
        _ => ordered_eq(ours, theirs),
    }
}

fn any_string(v: &J, f: &dyn Fn(&str) -> bool) -> bool {
    match v {
        J::String(s) => f(s),
        J::Array(a) => a.iter().any(|x| any_string(x, f)),
        J::Object(m) => m.values().any(|x| any_string(x, f)),
        _ => false,
    }
}

/// What YAML 1.1 reads for a plain scalar that YAML 1.2 keeps as a string.
fn bool11(s: &str) -> Option<bool> {
    match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => Some(true),
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => Some(false),
        _ => None,
    }
}
