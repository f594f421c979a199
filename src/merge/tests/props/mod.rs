//! Properties of the merge algebra (issue 8), checked with proptest on small
//! random documents (`docs`). Each property states its case count; the
//! restrictions of the generator, and why each is needed, are in the
//! property's comments and in docs/merge.md, "Algebra".
//!
//! - `laws`: identity (every strategy), idempotence (`unique`, `append`,
//!   `deep`), and a host-level scalar winning under `default`;
//! - `assoc`: associativity of folding for `default`, `deep`, `append`,
//!   `concat` and `patch`, with the counterexamples that fix each restriction.

mod assoc;
mod docs;
mod laws;

use serde_json::Value as J;

use super::{Pattern, Policy, Rule, Spec, Strategy, merge_documents};
use std::sync::Arc;

use crate::value::{Entry, Node, Source, Span, Value};

/// A generated value as a node. Like the loader's, every node and key has a
/// place of its own in a named source (constants are checked by place), but
/// without the cost of writing and parsing text.
fn node(value: &J, name: &str) -> Node {
    fn build(v: &J, source: &Arc<Source>, next: &mut usize) -> Node {
        let span = |next: &mut usize| {
            *next += 1;
            Span {
                source: Some(source.clone()),
                offset: *next,
                len: 0,
                line: 1,
                col: 1,
            }
        };
        let at = span(next);
        let value = match v {
            J::Null => Value::Null,
            J::Bool(b) => Value::Bool(*b),
            J::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64().expect("a finite number")),
            },
            J::String(s) => Value::Str(s.clone()),
            J::Array(items) => Value::Seq(items.iter().map(|i| build(i, source, next)).collect()),
            J::Object(m) => Value::Map(
                m.iter()
                    .map(|(k, v)| {
                        let key_span = span(next);
                        let node = build(v, source, next);
                        (k.clone(), Entry { key_span, node })
                    })
                    .collect(),
            ),
        };
        Node::new(value, at)
    }
    build(value, &Source::new(name, ""), &mut 0)
}

/// Merges nodes, lowest first: the merged tree, or the first error's code.
fn fold(docs: &[&Node], policy: &Policy, root: Option<&Spec>) -> Result<Node, String> {
    merge_documents(docs, policy, root)
        .map(|m| m.node)
        .map_err(|e| e[0].code.to_string())
}

/// The comparable text of a result: JSON with key order kept.
fn text(r: &Result<Node, String>) -> String {
    match r {
        Ok(n) => serde_json::to_string(n).expect("serialise"),
        Err(code) => format!("error {code}"),
    }
}

/// Merges generated values.
fn fold_json(levels: &[&J], policy: &Policy, root: Option<&Spec>) -> Result<Node, String> {
    let nodes: Vec<Node> = levels
        .iter()
        .enumerate()
        .map(|(i, l)| node(l, &format!("l{i}.json")))
        .collect();
    fold(&nodes.iter().collect::<Vec<_>>(), policy, root)
}

/// A table with one rule, `k: spec`.
fn rule_at_k(spec: &Spec) -> Policy {
    Policy::new(vec![Rule {
        pattern: Pattern::parse("k").expect("pattern"),
        spec: spec.clone(),
        key_span: Span::synthetic(),
    }])
}

/// A spec with options set as a `merge:` table would.
fn spec(kind: Strategy, knockout: Option<Option<&str>>, mha: bool, sort: bool) -> Spec {
    let mut s = Spec::of(kind);
    if let Some(k) = knockout {
        s.knockout_prefix = k.map(str::to_string);
    }
    s.merge_hash_arrays = mha;
    s.sort_merged_arrays = sort;
    s
}

/// Every strategy, and `deep`, `append` and `by_key` with each option.
fn every_spec() -> Vec<Spec> {
    use Strategy::*;
    vec![
        spec(Default, None, false, false),
        spec(First, None, false, false),
        spec(Unique, None, false, false),
        spec(Unique, None, false, true),
        spec(Hash, None, false, false),
        spec(Deep, None, false, false),
        spec(Deep, Some(Some("--")), false, false),
        spec(Deep, None, true, false),
        spec(Deep, None, false, true),
        spec(Deep, Some(Some("--")), true, true),
        spec(Append, None, false, false),
        spec(Append, Some(None), false, false),
        spec(Concat, None, false, false),
        spec(ByKey, None, false, false),
        spec(ByKey, Some(None), false, false),
        spec(Patch, None, false, false),
    ]
}
