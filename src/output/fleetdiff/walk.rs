//! The value-level diff of one host: mappings key by key; lists merged
//! `by_key` item by item through their key, so that removing one item reads
//! as one removal; other lists aligned as sequences (Myers), so that one
//! inserted item reads as one insertion. Every path is written in the
//! syntax `beryl explain` reads: list items by key, never by position.

use std::collections::HashMap;

use super::{Change, ChangeKind, HostConfig};
use crate::merge::{Policy, Strategy, spec_at};
use crate::value::{Node, SameKey, Value};

/// The changes from `old` to `new`, in the order of the old config, then
/// what the new one adds.
pub(super) fn diff(old: &HostConfig, new: &HostConfig, policy: &Policy) -> Vec<Change> {
    let mut w = Walker {
        old,
        new,
        policy,
        path: Vec::new(),
        out: Vec::new(),
    };
    w.node(Some(&old.node), Some(&new.node));
    w.out
}

struct Walker<'a> {
    old: &'a HostConfig,
    new: &'a HostConfig,
    policy: &'a Policy,
    path: Vec<String>,
    out: Vec<Change>,
}

impl Walker<'_> {
    fn node(&mut self, a: Option<&Node>, b: Option<&Node>) {
        match (a, b) {
            (None, None) => {}
            (Some(a), None) => self.emit(ChangeKind::Removed, Some(a), None, None),
            (None, Some(b)) => self.emit(ChangeKind::Added, None, Some(b), None),
            (Some(a), Some(b)) if a.value.same(&b.value) => {}
            (Some(a), Some(b)) => match (&a.value, &b.value) {
                (Value::Map(x), Value::Map(y)) => {
                    for (k, e) in x {
                        self.child(k, Some(&e.node), y.get(k).map(|e| &e.node));
                    }
                    for (k, e) in y.iter().filter(|(k, _)| !x.contains_key(*k)) {
                        self.child(k, None, Some(&e.node));
                    }
                }
                (Value::Seq(x), Value::Seq(y)) => self.list([a, b], x, y),
                _ => self.emit(ChangeKind::Changed, Some(a), Some(b), None),
            },
        }
    }

    fn child(&mut self, key: &str, a: Option<&Node>, b: Option<&Node>) {
        self.path.push(key.to_string());
        self.node(a, b);
        self.path.pop();
    }

    /// A list: by key when the policy merges it `by_key` and every item on
    /// both sides has a distinct string key; aligned otherwise.
    fn list(&mut self, lists: [&Node; 2], x: &[Node], y: &[Node]) {
        let (spec, _) = spec_at(self.policy, &self.path);
        if spec.kind == Strategy::ByKey
            && let (Some(kx), Some(ky)) = (keyed(x, &spec.key), keyed(y, &spec.key))
        {
            let by_id: HashMap<&str, &Node> = ky.iter().copied().collect();
            for (id, item) in &kx {
                self.child(id, Some(item), by_id.get(id).copied());
            }
            let old_ids: HashMap<&str, &Node> = kx.iter().copied().collect();
            for (id, item) in ky.iter().filter(|(id, _)| !old_ids.contains_key(id)) {
                self.child(id, None, Some(item));
            }
            return;
        }
        self.aligned(lists, x, y);
    }

    /// Items inserted and deleted, by a shortest edit script over the items'
    /// values (each distinct value interned to a number).
    fn aligned(&mut self, [a, b]: [&Node; 2], x: &[Node], y: &[Node]) {
        let mut ids = HashMap::new();
        let xs = intern(&mut ids, x);
        let ys = intern(&mut ids, y);
        // Past the bound of a text diff (src/textdiff.rs: 10,000 items
        // inserted or deleted, or the work to find that out), the list is
        // one change, its old and new values whole: Myers costs
        // O((N+M)·D).
        if !crate::textdiff::within_bound(&xs, &ys) {
            self.emit(ChangeKind::Changed, Some(a), Some(b), None);
            return;
        }
        for op in similar::capture_diff_slices(similar::Algorithm::Myers, &xs, &ys) {
            let (tag, old, new) = op.as_tag_tuple();
            if tag == similar::DiffTag::Equal {
                continue;
            }
            for i in old {
                self.emit(ChangeKind::ItemRemoved, Some(&x[i]), None, Some(i));
            }
            for i in new {
                self.emit(ChangeKind::ItemAdded, None, Some(&y[i]), Some(i));
            }
        }
    }

    fn emit(
        &mut self,
        change: ChangeKind,
        a: Option<&Node>,
        b: Option<&Node>,
        index: Option<usize>,
    ) {
        let (side, config, node) = if change.on_old_side() {
            ("old", self.old, a)
        } else {
            ("new", self.new, b)
        };
        let at = match (&config.names, node) {
            (Some(names), Some(n)) => names.place(&n.span, side),
            _ => None,
        };
        let was = match (change, &self.old.names, a) {
            (ChangeKind::Changed, Some(names), Some(n)) => names.place(&n.span, "old"),
            _ => None,
        };
        // Within the edited file, the value's own place is the finer one (an
        // item of a list, rather than the list; the line a removal took out).
        let cause =
            super::cause::edit(self.old, self.new, self.policy, &self.path).map(|c| match &at {
                Some(at) if at.file == c.file => at.clone(),
                _ => c,
            });
        self.out.push(Change {
            path: crate::syntax::path::display(&self.path),
            change,
            old: a.map(json),
            new: b.map(json),
            index,
            at,
            was,
            cause,
        });
    }
}

/// Each item's number: equal values (`Value::same`) get the same one.
fn intern<'n>(ids: &mut HashMap<SameKey<'n>, u32>, items: &'n [Node]) -> Vec<u32> {
    items
        .iter()
        .map(|n| {
            let next = u32::try_from(ids.len()).unwrap_or(u32::MAX);
            *ids.entry(SameKey(&n.value)).or_insert(next)
        })
        .collect()
}

/// The items of a list by their key, when each is a mapping with a string
/// key, no two alike.
fn keyed<'n>(items: &'n [Node], key: &str) -> Option<Vec<(&'n str, &'n Node)>> {
    let mut out = Vec::with_capacity(items.len());
    let mut seen = std::collections::HashSet::new();
    for item in items {
        let id = item.get(key).and_then(Node::as_str)?;
        if !seen.insert(id) {
            return None;
        }
        out.push((id, item));
    }
    Some(out)
}

fn json(n: &Node) -> serde_json::Value {
    serde_json::to_value(n).unwrap_or(serde_json::Value::Null)
}
