//! Whether a host on which beryl and reclass disagree is a listed difference
//! (tests/peers/differences.yml, `peers: [reclass]`).

use beryl::value::{Node, Value};
use serde_json::Value as J;

use super::super::differences::{Difference, ordered_eq};
use super::super::peers::Answer;

pub enum Verdict {
    /// The same answer (`both_fail`: both refused the host); `flagged` lists
    /// the inexact differences that selected it anyway.
    Agree {
        flagged: Vec<String>,
        both_fail: bool,
    },
    /// A disagreement explained by these listed differences (several may
    /// combine on one host: query order and the class list, say).
    Explained(Vec<String>),
    ExactButAgree(String),
    Unexplained,
}

/// What each predicate does: it explains an outcome (one side fails), it
/// normalises both answers before they are compared again, or it selects
/// hosts by their input.
enum Kind {
    Outcome(fn(&Answer, &Answer) -> bool),
    Normalise(fn(&mut J, &mut J, &[&String]) -> bool),
    Input(fn(&[Node]) -> bool),
}

fn kind(when: &str) -> Kind {
    match when {
        // reclass raises on a change of kind; beryl's strategies replace.
        "reclass_kind_change" => Kind::Outcome(
            |ours, theirs| matches!((ours, theirs), (Answer::Ok(_), Answer::Error(e)) if e.starts_with("TypeMergeError")),
        ),
        // A mapping or list inside a longer string: reclass writes its
        // Python repr, beryl refuses.
        "reclass_embedded_mapping" => Kind::Outcome(
            |ours, theirs| matches!((ours, theirs), (Answer::Error(e), Answer::Ok(_)) if e.starts_with("beryl::refs::embed")),
        ),
        // beryl computes a host's exports once, whole: a host whose merge or
        // exports fail fails every query; reclass evaluates lazily.
        "reclass_query_needs_failed_host" => Kind::Outcome(
            |ours, theirs| matches!((ours, theirs), (Answer::Error(e), Answer::Ok(_)) if e.starts_with("beryl::query::host_failed")),
        ),
        // reclass refuses any later setting of a constant, even to the same
        // value; beryl refuses a change only.
        "reclass_constant_repeated" => Kind::Outcome(
            |ours, theirs| matches!((ours, theirs), (Answer::Ok(_), Answer::Error(e)) if e.starts_with("ChangedConstantError")),
        ),
        // Query results: beryl sorts by FQDN, reclass lists nodes in the
        // order its directory walk meets them.
        "reclass_query_order" => Kind::Normalise(|a, b, fqdns| {
            let (ca, cb) = (canon(a, fqdns), canon(b, fqdns));
            let changed = !ordered_eq(&ca, a) || !ordered_eq(&cb, b);
            (*a, *b) = (ca, cb);
            changed
        }),
        // reclass's `classes` are the names as written (a reference left
        // unresolved, a class skipped by ignore_class_notfound still there).
        "reclass_classes_as_written" => Kind::Normalise(|a, b, _| {
            let names = |v: &J| -> Vec<String> {
                v["classes"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|c| c.as_str().map(str::to_string))
                    .collect()
            };
            let (mine, peer) = (names(a), names(b));
            // reclass's list holds every class beryl applied, by its name
            // as written or resolved, in the order its entities merged.
            let applies = mine != peer
                && mine
                    .iter()
                    .all(|c| peer.contains(c) || peer.iter().any(|p| p.contains("${")));
            if applies {
                a["classes"] = J::Null;
                b["classes"] = J::Null;
            }
            applies
        }),
        // `=key` over a mapping: reclass merges the lower values in first,
        // beryl keeps the value as written.
        "reclass_constant_mapping" => Kind::Input(|levels| levels.iter().any(constant_collection)),
        other => panic!("unknown predicate {other} for the reclass differential"),
    }
}

pub fn judge(
    differences: &[Difference],
    ours: &Answer,
    theirs: &Answer,
    levels: &[Node],
    fqdns: &[&String],
) -> Verdict {
    let inputs: Vec<&Difference> = differences
        .iter()
        .filter(|d| matches!(kind(&d.when), Kind::Input(f) if f(levels)))
        .collect();
    match (ours, theirs) {
        (Answer::Ok(a), Answer::Ok(b)) => {
            if ordered_eq(a, b) {
                return agree(&inputs, false);
            }
            let (mut a, mut b) = (a.clone(), b.clone());
            let mut used = Vec::new();
            for d in differences {
                if let Kind::Normalise(f) = kind(&d.when)
                    && f(&mut a, &mut b, fqdns)
                {
                    used.push(d.id.clone());
                }
            }
            if !ordered_eq(&a, &b) {
                match inputs.first() {
                    Some(d) => used.push(d.id.clone()),
                    None => return Verdict::Unexplained,
                }
            }
            if used.is_empty() {
                Verdict::Unexplained
            } else {
                Verdict::Explained(used)
            }
        }
        (Answer::Error(_), Answer::Error(_)) => agree(&inputs, true),
        _ => match differences
            .iter()
            .find(|d| matches!(kind(&d.when), Kind::Outcome(f) if f(ours, theirs)))
            .or(inputs.first().copied())
        {
            Some(d) => Verdict::Explained(vec![d.id.clone()]),
            None => Verdict::Unexplained,
        },
    }
}

fn agree(inputs: &[&Difference], both_fail: bool) -> Verdict {
    match inputs.iter().find(|d| d.exact) {
        Some(d) => Verdict::ExactButAgree(d.id.clone()),
        None => Verdict::Agree {
            flagged: inputs.iter().map(|d| d.id.clone()).collect(),
            both_fail,
        },
    }
}

fn constant_collection(n: &Node) -> bool {
    let Value::Map(m) = &n.value else {
        return matches!(&n.value, Value::Seq(items) if items.iter().any(constant_collection));
    };
    m.iter().any(|(k, e)| {
        (k.starts_with('=') && matches!(e.node.value, Value::Map(_) | Value::Seq(_)))
            || constant_collection(&e.node)
    })
}

/// Query results in FQDN order: mappings keyed by host names, lists of them.
fn canon(v: &J, fqdns: &[&String]) -> J {
    let is_host = |s: &str| fqdns.iter().any(|f| f.as_str() == s);
    match v {
        J::Object(m) => {
            let mut items: Vec<(String, J)> = m
                .iter()
                .map(|(k, v)| (k.clone(), canon(v, fqdns)))
                .collect();
            if !items.is_empty() && items.iter().all(|(k, _)| is_host(k)) {
                items.sort_by(|a, b| a.0.cmp(&b.0));
            }
            J::Object(items.into_iter().collect())
        }
        J::Array(items) => {
            let mut items: Vec<J> = items.iter().map(|i| canon(i, fqdns)).collect();
            // Each run of host names (a query's list, maybe after lower items).
            let host = |i: &J| i.as_str().is_some_and(is_host);
            let mut start = 0;
            while start < items.len() {
                let end = (start..items.len())
                    .find(|&i| !host(&items[i]))
                    .unwrap_or(items.len());
                items[start..end].sort_by(|a, b| a.as_str().cmp(&b.as_str()));
                start = end + 1;
            }
            J::Array(items)
        }
        other => other.clone(),
    }
}
