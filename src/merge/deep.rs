//! Hiera `deep`, which is the deep_merge gem (1.1.1) as Puppet drives it.
//!
//! Hiera folds from the highest level down: the highest value is the "source",
//! each lower level in turn the "destination" (`deep_merge!(source, dest)`).
//! This module follows that fold one path at a time, so the rules of the table
//! still apply below a `deep` value:
//!
//! - The highest non-null value fixes the kind. Lower values of another kind
//!   are skipped, not merged (a string between two lists does not cut them).
//! - Mappings merge key by key, keys in first-appearance order from the lowest.
//! - Lists are an ordered union, lowest first; the lower list's own duplicates
//!   drop out too. `merge_hash_arrays` merges lists of mappings by index.
//! - As in the gem, a value that is only copied (it replaces a value of another
//!   kind, or nothing lower merges with it) is not deduplicated or sorted; a
//!   key that a lower mapping lacks, or holds as null or false, is merged with
//!   itself (and so deduplicated and sorted).
//!
//! Knockouts differ from the gem on purpose (docs/merge.md, "Differences"):
//! a marker `--x` removes `x` from *every* lower level rather than from the
//! next one only; a bare `--` truncates every lower list; a mapping value equal
//! to the prefix deletes its key (the gem writes `""`); and markers are removed
//! from the result even where nothing merged (the gem leaks them).

use super::spec::Spec;
use super::{Contribs, Engine, order};
use crate::value::{Map, Node, Value};

/// What one lower level does to the value folded so far.
enum Step<'a> {
    /// A value of the same kind: merged in.
    Merge(&'a Node),
    /// The level lacks the key, or holds null/false under a merged mapping:
    /// the gem merges the value with a copy of itself.
    SelfMerge,
    /// A mapping overwrites a value of another kind. The gem's hash branch
    /// replaces the destination with the source while looping over the
    /// source's keys, so every key after the first merges with itself.
    Overwrite,
}

fn falsy(v: &Value) -> bool {
    matches!(v, Value::Null | Value::Bool(false))
}

fn is_empty_map(n: &Node) -> bool {
    matches!(&n.value, Value::Map(m) if m.is_empty())
}

fn same_kind(a: &Value, b: &Value) -> bool {
    matches!(
        (a, b),
        (Value::Map(_), Value::Map(_)) | (Value::Seq(_), Value::Seq(_))
    )
}

impl<'p> Engine<'p> {
    pub(super) fn deep(
        &mut self,
        spec: &'p Spec,
        cs: &Contribs<'_>,
        member: bool,
        nested: bool,
    ) -> Option<Node> {
        let prefix = spec.knockout_prefix.as_deref();
        let is_cut = |v: &Value| {
            prefix.is_some() && matches!(v, Value::Str(s) if Some(s.as_str()) == prefix)
        };
        // The memo: the highest value, where a null gives way to the next value
        // below it (the gem returns the destination when the source is nil).
        let mut memo: Option<&Node> = None;
        let mut steps: Vec<Step<'_>> = Vec::new();
        // An empty mapping merged so far overwrites nothing: the gem's hash
        // branch loops over the source's keys, and there are none.
        let mut empty = false;
        for c in cs.iter().rev() {
            match memo {
                None
                | Some(Node {
                    value: Value::Null, ..
                }) => {
                    match c {
                        // Under a merged mapping a false or null is absent:
                        // the null merges with itself and stays.
                        Some(v) if nested && memo.is_some() && falsy(&v.value) => {}
                        Some(v) => {
                            memo = Some(v);
                            empty = is_empty_map(v);
                        }
                        None => {}
                    }
                }
                Some(m) => match c {
                    None => steps.push(Step::SelfMerge),
                    Some(v) if is_cut(&v.value) => break,
                    Some(v) if falsy(&v.value) => {
                        if nested {
                            steps.push(Step::SelfMerge);
                        }
                    }
                    Some(v) if same_kind(&m.value, &v.value) => {
                        empty &= is_empty_map(v);
                        steps.push(Step::Merge(v));
                    }
                    Some(v) if empty => {
                        memo = Some(v);
                        steps.clear();
                        empty = false;
                    }
                    Some(_) if matches!(m.value, Value::Map(_)) => steps.push(Step::Overwrite),
                    // Another kind: the source overwrites it, unchanged.
                    Some(_) => {}
                },
            }
        }
        let memo = memo?;
        match &memo.value {
            Value::Map(_) => Some(self.deep_maps(spec, memo, &steps)),
            Value::Seq(_) => Some(self.deep_lists(spec, memo, &steps)),
            Value::Str(s) if prefix.is_some_and(|p| s.starts_with(p)) => {
                if member && is_cut(&memo.value) {
                    None
                } else {
                    Some(Node::new(Value::Str(String::new()), memo.span.clone()))
                }
            }
            _ => Some(memo.clone()),
        }
    }

    fn deep_maps(&mut self, spec: &'p Spec, memo: &Node, steps: &[Step<'_>]) -> Node {
        // Events lowest first: the steps reversed, then the memo.
        let mut events: Vec<Option<&Map>> = steps
            .iter()
            .rev()
            .map(|s| match s {
                Step::Merge(v) => v.as_map(),
                Step::SelfMerge | Step::Overwrite => None,
            })
            .collect();
        events.push(memo.as_map());
        let span = steps
            .iter()
            .rev()
            .find_map(|s| match s {
                Step::Merge(v) => Some(v.span.clone()),
                _ => None,
            })
            .unwrap_or_else(|| memo.span.clone());
        let mut children = self.children(&events);
        // An overwrite self-merges every key but the first of the mapping
        // merged so far: the first key of the lowest mapping above it.
        let overwrites = steps
            .iter()
            .rev()
            .enumerate()
            .filter(|(_, s)| matches!(s, Step::Overwrite));
        for (at, _) in overwrites {
            let first = events[at + 1..]
                .iter()
                .flatten()
                .find_map(|m| m.keys().next())
                .map(|k| crate::syntax::prefix::split(k).0);
            if let Some(child) = first.and_then(|k| children.get_mut(k)) {
                // Entries are aligned with the events from the end.
                let from_end = events.len() - at;
                if let Some(i) = child.cs.len().checked_sub(from_end) {
                    child.cs.remove(i);
                }
            }
        }
        let mut out = Map::with_capacity(children.len());
        let saved = std::mem::replace(&mut self.target, false);
        for (key, child) in children {
            if let Some(node) = self.child(&key, spec, &child.cs, true) {
                out.insert(
                    key,
                    crate::value::Entry {
                        key_span: child.key_span,
                        node,
                    },
                );
            }
        }
        self.target = saved;
        Node::new(Value::Map(out), span)
    }

    fn deep_lists(&mut self, spec: &'p Spec, memo: &Node, steps: &[Step<'_>]) -> Node {
        let prefix = spec.knockout_prefix.as_deref();
        let marker = |n: &Node| match (prefix, &n.value) {
            (Some(p), Value::Str(s)) => s.starts_with(p),
            _ => false,
        };
        let mut acc: Vec<Node> = self.elements(memo);
        let mut rest = steps;
        // The markers that removed something from a lower level, and the
        // strings of the lower levels (for a did-you-mean).
        let mut hits = Hits::default();
        if spec.merge_hash_arrays {
            rest = self.by_index(spec, &mut acc, steps, &marker, &mut hits);
        }
        let mut unioned = false;
        for step in rest {
            let (mut dest, lower): (Vec<Node>, bool) = match step {
                Step::Merge(v) => (self.elements(v), true),
                Step::SelfMerge => (acc.clone(), false),
                // Only a mapping overwrites in a loop; a list never sees this.
                Step::Overwrite => continue,
            };
            unioned = true;
            if let Some(p) = prefix {
                let hit = knock_out(&acc, &mut dest, p);
                if lower {
                    hits.record(hit, &dest);
                }
            }
            order::union(&mut dest, std::mem::take(&mut acc));
            acc = dest;
            if spec.sort_merged_arrays {
                order::sort(&mut acc);
            }
        }
        if let Some(p) = prefix {
            self.unused_markers(&acc, p, &hits);
        }
        // Markers have done their work on every level below them.
        acc.retain(|n| !marker(n));
        let items = match prefix {
            Some(p) => {
                let mut items: Vec<Node> = acc.into_iter().filter_map(|n| clean(n, p)).collect();
                // Cleaning can make distinct items equal (`{a: --}` and `{}`);
                // a union holds each item once, in order.
                if unioned {
                    order::dedup(&mut items);
                    if spec.sort_merged_arrays {
                        order::sort(&mut items);
                    }
                }
                items
            }
            None => acc,
        };
        Node::new(Value::Seq(items), memo.span.clone())
    }

    /// A list's elements as written, key prefixes stripped.
    fn elements(&mut self, list: &Node) -> Vec<Node> {
        let items = list.as_seq().unwrap_or_default();
        items.iter().map(|n| self.whole(n)).collect()
    }

    /// `merge_hash_arrays`: while both sides hold only mappings, lists merge
    /// element by element, by index, and the longer list's extra elements are
    /// kept. Returns the steps left for the ordinary union.
    fn by_index<'s, 'a>(
        &mut self,
        spec: &'p Spec,
        acc: &mut Vec<Node>,
        steps: &'s [Step<'a>],
        marker: &dyn Fn(&Node) -> bool,
        hits: &mut Hits,
    ) -> &'s [Step<'a>] {
        let all_maps = |items: &[Node]| items.iter().all(|n| matches!(n.value, Value::Map(_)));
        let (markers, elements): (Vec<Node>, Vec<Node>) =
            std::mem::take(acc).into_iter().partition(|n| marker(n));
        if !all_maps(&elements) {
            *acc = elements.into_iter().chain(markers).collect();
            return steps;
        }
        // Each element's values, lowest first; `None` is a self-merge.
        let mut columns: Vec<Vec<Option<Node>>> =
            elements.into_iter().map(|e| vec![Some(e)]).collect();
        let mut taken = 0;
        for step in steps {
            let mut dest = match step {
                Step::Merge(v) => self.elements(v),
                Step::SelfMerge => {
                    columns.iter_mut().for_each(|c| c.insert(0, None));
                    taken += 1;
                    continue;
                }
                Step::Overwrite => {
                    taken += 1;
                    continue;
                }
            };
            if let Some(p) = spec.knockout_prefix.as_deref() {
                let hit = knock_out(&markers, &mut dest, p);
                hits.record(hit, &dest);
            }
            if !all_maps(&dest) {
                break;
            }
            for (i, d) in dest.into_iter().enumerate() {
                match columns.get_mut(i) {
                    Some(col) => col.insert(0, Some(d)),
                    None => columns.push(vec![Some(d)]),
                }
            }
            taken += 1;
        }
        let mut merged = Vec::with_capacity(columns.len() + markers.len());
        for col in &columns {
            let cs: Vec<Option<&Node>> = col.iter().map(Option::as_ref).collect();
            merged.extend(self.deep(spec, &cs, false, true));
        }
        merged.extend(markers);
        *acc = merged;
        if taken > 0 && spec.sort_merged_arrays {
            order::sort(acc);
        }
        &steps[taken..]
    }
}

/// Applies the markers of `src` (the higher side) to `dest`: a bare prefix
/// empties it, `--x` removes the string `x` (and copies of the marker itself).
/// Returns the targets removed (`x`).
fn knock_out(src: &[Node], dest: &mut Vec<Node>, prefix: &str) -> Vec<String> {
    let mut targets: Vec<&str> = Vec::new();
    for s in src.iter().filter_map(Node::as_str) {
        if s == prefix {
            dest.clear();
            return Vec::new();
        }
        if let Some(t) = s.strip_prefix(prefix) {
            targets.push(t);
            targets.push(s);
        }
    }
    let mut removed = Vec::new();
    if !targets.is_empty() {
        dest.retain(|n| match n.as_str() {
            Some(s) if targets.contains(&s) => {
                removed.push(s.to_string());
                false
            }
            _ => true,
        });
    }
    removed
}

/// What the markers of one list did to the lower levels.
#[derive(Default)]
struct Hits {
    removed: std::collections::HashSet<String>,
    /// The strings left in the lower levels, with their places.
    below: Vec<(String, crate::value::Span)>,
}

impl Hits {
    fn record(&mut self, removed: Vec<String>, left: &[Node]) {
        self.removed.extend(removed);
        for n in left {
            if let Some(s) = n.as_str() {
                self.below.push((s.to_string(), n.span.clone()));
            }
        }
    }
}

impl Engine<'_> {
    /// Reports each marker `--x` of a merged list that removed nothing.
    fn unused_markers(&mut self, acc: &[Node], prefix: &str, hits: &Hits) {
        for n in acc {
            let Some(target) = n.as_str().and_then(|s| s.strip_prefix(prefix)) else {
                continue;
            };
            if target.is_empty() || target.starts_with(prefix) || hits.removed.contains(target) {
                continue;
            }
            let k = super::warn::Knockout {
                written: format!("{prefix}{target}"),
                target,
                span: &n.span,
                what: "lists",
            };
            let below = hits.below.iter().map(|(s, span)| (s.as_str(), span));
            self.knockout_unused(&k, below);
        }
    }
}

/// Removes knockout markers throughout a copied value: list markers drop out,
/// a mapping value equal to the prefix deletes its key, and a string that
/// starts with the prefix becomes `""`. `None` when the value itself is the
/// prefix.
fn clean(node: Node, prefix: &str) -> Option<Node> {
    let span = node.span;
    let value = match node.value {
        Value::Str(s) if s == prefix => return None,
        Value::Str(s) if s.starts_with(prefix) => Value::Str(String::new()),
        Value::Seq(items) => Value::Seq(
            items
                .into_iter()
                .filter(|n| !n.as_str().is_some_and(|s| s.starts_with(prefix)))
                .filter_map(|n| clean(n, prefix))
                .collect(),
        ),
        Value::Map(map) => Value::Map(
            map.into_iter()
                .filter_map(|(k, e)| {
                    let node = clean(e.node, prefix)?;
                    Some((
                        k,
                        crate::value::Entry {
                            key_span: e.key_span,
                            node,
                        },
                    ))
                })
                .collect(),
        ),
        other => other,
    };
    Some(Node::new(value, span))
}
