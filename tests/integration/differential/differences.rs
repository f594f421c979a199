//! The deliberate differences (tests/peers/differences.yml) and the judge that
//! decides whether a disagreement is one of them.

use std::collections::BTreeMap;

use beryl::value::{Node, Source, Value};
use serde_json::Value as J;

use super::peers::Answer;
use crate::support::repo;

pub struct Difference {
    pub id: String,
    pub peers: Vec<String>,
    pub when: String,
    pub exact: bool,
    /// `dialect: beryl`: the difference comes from beryl's semantics and is
    /// gone under the reclass dialect (issue 19), which the reclass
    /// differential also runs.
    pub beryl_only: bool,
}

/// Reads the list with beryl's own YAML loader.
pub fn load() -> Vec<Difference> {
    let path = repo().join("tests/peers/differences.yml");
    let text = std::fs::read_to_string(&path).expect("differences.yml");
    let root = beryl::yaml::parse_any(&Source::new("differences.yml", text), &Default::default())
        .expect("differences.yml parses");
    let str_of = |n: &Node, k: &str| {
        n.get(k)
            .and_then(Node::as_str)
            .unwrap_or_else(|| panic!("differences.yml: an entry lacks `{k}`"))
            .to_string()
    };
    let list = root.as_seq().expect("differences.yml is a list");
    let out: Vec<Difference> = list
        .iter()
        .map(|d| {
            let when = str_of(d, "when");
            assert!(
                PREDICATES.contains(&when.as_str()),
                "unknown predicate `{when}`"
            );
            assert!(!str_of(d, "reason").trim().is_empty());
            Difference {
                id: str_of(d, "id"),
                peers: d
                    .get("peers")
                    .and_then(Node::as_seq)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|p| p.as_str().map(str::to_string))
                    .collect(),
                when,
                exact: matches!(d.get("exact").map(|n| &n.value), Some(Value::Bool(true))),
                beryl_only: match d.get("dialect").map(|n| n.as_str()) {
                    None => false,
                    Some(Some("beryl")) => true,
                    Some(other) => panic!("differences.yml: unknown dialect {other:?}"),
                },
            }
        })
        .collect();
    assert!(!out.is_empty());
    out
}

const PREDICATES: &[&str] = &[
    "knockout_marker",
    "sort_incomparable",
    "unique_lower_null",
    "unique_top_mapping",
    "patch_key_order",
    // The reclass differential's (reclass/judge.rs).
    "reclass_kind_change",
    "reclass_embedded_mapping",
    "reclass_constant_mapping",
    "reclass_query_order",
    "reclass_classes_as_written",
    "reclass_constant_repeated",
    "reclass_query_needs_failed_host",
    // The lookup differential's (lookup/judge.rs).
    "lookup_interpolation",
    "lookup_yaml11",
    "lookup_dotted_key",
    "lookup_knockout_leak",
    "lookup_level_twice",
    "lookup_sort_incomparable",
];

pub enum Verdict {
    /// Same answer; `flagged` lists the (inexact) differences that selected it.
    Agree {
        flagged: Vec<String>,
    },
    /// A disagreement explained by the listed difference.
    Explained(String),
    /// An exact difference selected a case that agrees: the list is wrong.
    ExactButAgree(String),
    Unexplained,
}

pub fn judge(
    differences: &[Difference],
    peer: &str,
    spec: &J,
    levels: &[J],
    ours: &Answer,
    theirs: &Answer,
) -> Verdict {
    let agree = match (ours, theirs) {
        (Answer::Ok(a), Answer::Ok(b)) => ordered_eq(a, b),
        (Answer::Error(_), Answer::Error(_)) => true,
        _ => false,
    };
    let flagged: Vec<&Difference> = differences
        .iter()
        .filter(|d| d.peers.iter().any(|p| p == peer))
        .filter(|d| holds(&d.when, spec, levels, ours, theirs))
        .collect();
    verdict(agree, &flagged)
}

/// The verdict on one case: whether both sides gave the same answer, and
/// the listed differences whose conditions hold for it (in list order).
pub fn verdict(agree: bool, flagged: &[&Difference]) -> Verdict {
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

/// The counts of one row of a differential's table.
#[derive(Default)]
pub struct Tally {
    pub cases: usize,
    pub agree: usize,
    pub explained: BTreeMap<String, usize>,
    pub flagged_but_agree: BTreeMap<String, usize>,
}

impl Tally {
    /// Counts one case's verdict, and each explained difference in `seen`
    /// too. Returns why the case fails the test, if it does.
    pub fn count(&mut self, v: Verdict, seen: &mut BTreeMap<String, usize>) -> Option<Failed> {
        self.cases += 1;
        match v {
            Verdict::Agree { flagged } => {
                self.agree += 1;
                for id in flagged {
                    *self.flagged_but_agree.entry(id).or_default() += 1;
                }
                None
            }
            Verdict::Explained(id) => {
                *seen.entry(id.clone()).or_default() += 1;
                *self.explained.entry(id).or_default() += 1;
                None
            }
            Verdict::ExactButAgree(id) => Some(Failed::ExactButAgree(id)),
            Verdict::Unexplained => Some(Failed::Unexplained),
        }
    }
}

/// Why a case fails a differential test.
pub enum Failed {
    /// An exact difference selected a case that agrees: the list is wrong.
    ExactButAgree(String),
    /// A disagreement no listed difference explains.
    Unexplained,
}

/// `id: count, …` of a map of counts, or `0`.
pub fn list(m: &BTreeMap<String, usize>) -> String {
    if m.is_empty() {
        return "0".into();
    }
    m.iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn holds(when: &str, spec: &J, levels: &[J], ours: &Answer, theirs: &Answer) -> bool {
    let strategy = spec["strategy"].as_str().unwrap_or_default();
    let (lower, top) = levels.split_at(levels.len() - 1);
    match when {
        "knockout_marker" => spec["knockout_prefix"]
            .as_str()
            .is_some_and(|p| levels.iter().any(|l| has_marker(l, p))),
        "sort_incomparable" => {
            spec["sort_merged_arrays"] == J::Bool(true)
                && matches!(theirs, Answer::Error(e) if e.contains("comparison of"))
        }
        "unique_lower_null" => {
            strategy == "unique" && lower.iter().any(J::is_null) && !levels.iter().any(J::is_object)
        }
        "unique_top_mapping" => {
            strategy == "unique"
                && top[0].is_object()
                && !lower.iter().any(|l| l.is_object() || l.is_null())
        }
        "patch_key_order" => match (ours, theirs) {
            (Answer::Ok(a), Answer::Ok(b)) => !ordered_eq(a, b) && a == b,
            _ => false,
        },
        other => panic!("unknown predicate {other} for the merge strategies"),
    }
}

fn has_marker(v: &J, prefix: &str) -> bool {
    match v {
        J::String(s) => s.starts_with(prefix),
        J::Array(items) => items.iter().any(|i| has_marker(i, prefix)),
        J::Object(m) => m.values().any(|i| has_marker(i, prefix)),
        _ => false,
    }
}

/// Equality that also compares key order, and tells 1 from 1.0.
pub fn ordered_eq(a: &J, b: &J) -> bool {
    match (a, b) {
        (J::Object(x), J::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && ordered_eq(v1, v2))
        }
        (J::Array(x), J::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| ordered_eq(p, q))
        }
        (J::Number(x), J::Number(y)) => x.is_f64() == y.is_f64() && x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}
