//! Orderings and set operations on lists: typed deduplication and the sort of
//! `sort_merged_arrays`.

use std::cmp::Ordering;
use std::collections::HashSet;

use crate::value::{Node, SameKey, Value};

/// Drops later duplicates (typed deep equality: `1`, `1.0` and `"1"` differ).
pub(super) fn dedup(items: &mut Vec<Node>) {
    let mut seen = HashSet::with_capacity(items.len());
    let keep: Vec<bool> = items
        .iter()
        .map(|n| seen.insert(SameKey(&n.value)))
        .collect();
    let mut keep = keep.into_iter();
    items.retain(|_| keep.next().unwrap_or(true));
}

/// Appends the items of `more` that `into` does not hold yet (an ordered union,
/// as Ruby's `Array#|`, which also drops `into`'s own duplicates).
pub(super) fn union(into: &mut Vec<Node>, more: Vec<Node>) {
    into.extend(more);
    dedup(into);
}

/// Sorts as Ruby's `Array#sort` does where Ruby can compare (numbers by value,
/// strings byte-wise, lists element by element), and deterministically where
/// it cannot: by kind (null, booleans, numbers, strings, lists, mappings), then
/// booleans false first and mappings by their JSON text.
pub(super) fn sort(items: &mut [Node]) {
    items.sort_by(|a, b| compare(&a.value, &b.value));
}

fn rank(v: &Value) -> u8 {
    match v {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Int(_) | Value::Float(_) => 2,
        Value::Str(_) => 3,
        Value::Seq(_) => 4,
        Value::Map(_) => 5,
    }
}

pub(super) fn compare(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Int(x), Value::Float(y)) => (*x as f64).total_cmp(y),
        (Value::Float(x), Value::Int(y)) => x.total_cmp(&(*y as f64)),
        (Value::Float(x), Value::Float(y)) => x.total_cmp(y),
        (Value::Str(x), Value::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Seq(x), Value::Seq(y)) => x
            .iter()
            .zip(y)
            .map(|(p, q)| compare(&p.value, &q.value))
            .find(|o| o.is_ne())
            .unwrap_or_else(|| x.len().cmp(&y.len())),
        (Value::Map(_), Value::Map(_)) => json(a).cmp(&json(b)),
        _ => rank(a).cmp(&rank(b)),
    }
}

fn json(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// Flattens nested lists into `out`, in order (Ruby's `Array#flatten`).
pub(super) fn flatten_into(node: &Node, out: &mut Vec<Node>) {
    match &node.value {
        Value::Seq(items) => items.iter().for_each(|n| flatten_into(n, out)),
        _ => out.push(node.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes(json: &str) -> Vec<Node> {
        let n = crate::yaml::parse_any(&crate::value::Source::new("t", json), &Default::default())
            .unwrap();
        n.as_seq().unwrap().to_vec()
    }

    fn text(items: &[Node]) -> String {
        serde_json::to_string(items).unwrap()
    }

    #[test]
    fn union_is_ordered_and_typed() {
        let mut a = nodes("[3, 2, 3, '1']");
        union(&mut a, nodes("[1, 2, 1.0, '1']"));
        assert_eq!(text(&a), r#"[3,2,"1",1,1.0]"#);
    }

    #[test]
    fn sort_numbers_by_value_then_kinds() {
        let mut a = nodes("[10, 9, 1.5, b, a, [2], [1, 0], true, false, null, {b: 1}, {a: 1}]");
        sort(&mut a);
        assert_eq!(
            text(&a),
            r#"[null,false,true,1.5,9,10,"a","b",[1,0],[2],{"a":1},{"b":1}]"#
        );
    }

    #[test]
    fn flatten_is_recursive() {
        let mut out = Vec::new();
        for n in nodes("[[1, [2, [3]]], 4]") {
            flatten_into(&n, &mut out);
        }
        assert_eq!(text(&out), "[1,2,3,4]");
    }
}
