//! What one lookup answered on each side, and whether a disagreement is a
//! listed difference (tests/peers/differences.yml, `peers: [puppet-lookup]`).

use serde_json::Value as J;

use super::super::differences::{Difference, ordered_eq};
use super::Reply;

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

/// beryl: exit 1 with `not found: KEY` on stderr, 2 on error.
pub fn beryl(r: &Reply, json: bool, key: &str) -> Outcome {
    match r.exit {
        0 if json => match serde_json::from_str(&r.stdout) {
            Ok(v) => Outcome::Value(v),
            Err(e) => Outcome::Error(format!("beryl printed no JSON ({e}): {}", r.stdout)),
        },
        0 => Outcome::Text(r.stdout.clone()),
        1 if r.stderr.trim_end() == format!("not found: {key}") => Outcome::NotFound,
        1 => Outcome::Error(format!("exit 1 without `not found: {key}`: {}", r.stderr)),
        _ => Outcome::Error(r.stderr.clone()),
    }
}

pub enum Verdict {
    Agree { flagged: Vec<String> },
    Explained(String),
    ExactButAgree(String),
    Unexplained,
}

fn same(a: &Outcome, b: &Outcome) -> bool {
    match (a, b) {
        (Outcome::Value(x), Outcome::Value(y)) => ordered_eq(x, y),
        (Outcome::Error(_), Outcome::Error(_)) => true,
        _ => a == b,
    }
}

pub fn judge(differences: &[Difference], ours: &Outcome, theirs: &Outcome) -> Verdict {
    let agree = same(ours, theirs);
    let flagged: Vec<&Difference> = differences
        .iter()
        .filter(|d| d.peers.iter().any(|p| p == "puppet-lookup"))
        .filter(|d| holds(&d.when, ours, theirs))
        .collect();
    match (agree, flagged.first()) {
        (true, _) => match flagged.iter().find(|d| d.exact) {
            Some(d) => Verdict::ExactButAgree(d.id.clone()),
            None => Verdict::Agree {
                flagged: flagged.iter().map(|d| d.id.clone()).collect(),
            },
        },
        (false, Some(d)) => Verdict::Explained(d.id.clone()),
        (false, None) => Verdict::Unexplained,
    }
}

fn holds(when: &str, ours: &Outcome, theirs: &Outcome) -> bool {
    match when {
        // beryl keeps Hiera's `%{…}` as text; Puppet interpolates it.
        "lookup_interpolation" => match ours {
            Outcome::Value(v) => any_string(v, &|s| s.contains("%{")),
            Outcome::Text(t) => t.contains("%{"),
            _ => false,
        },
        // A plain yes/no/on/off… is a boolean to Psych (YAML 1.1), a string
        // to beryl (YAML 1.2): the same once beryl's spellings are read as
        // YAML 1.1 would.
        "lookup_yaml11" => match (ours, theirs) {
            (Outcome::Value(a), Outcome::Value(b)) => {
                let a11 = yaml11(a);
                !ordered_eq(a, b) && !ordered_eq(&a11, a) && ordered_eq(&a11, b)
            }
            (Outcome::Text(a), Outcome::Text(b)) => {
                bool11(a.trim_end()).is_some_and(|v| format!("{v}\n") == *b)
            }
            _ => false,
        },
        other => panic!("unknown predicate {other} for puppet lookup"),
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

fn yaml11(v: &J) -> J {
    match v {
        J::String(s) => bool11(s).map_or_else(|| v.clone(), J::Bool),
        J::Array(a) => J::Array(a.iter().map(yaml11).collect()),
        J::Object(m) => J::Object(m.iter().map(|(k, x)| (k.clone(), yaml11(x))).collect()),
        _ => v.clone(),
    }
}
