//! The merge engine: folds the levels of a chain, most general first.
//!
//! Entry point: [`merge_levels`]. At each path the engine asks the [`Policy`]
//! which [`Strategy`] applies; it has no rule of its own. Key order is first
//! appearance: inherited keys keep their place, new keys follow in the order
//! the higher level wrote them.

pub mod policy;

use std::collections::HashSet;

pub use policy::{Policy, Strategy};

use crate::diag::{Diag, Diags};
use crate::value::{Entry, Map, Node, SameKey, Value};
use policy::KNOCKOUT;

/// Folds `levels` (most general first) onto an empty mapping. Every level is an
/// overlay, the first one included, so its lists are deduplicated and its
/// knockouts dropped like any other's. Returns every error found.
pub fn merge_levels<'a>(
    levels: impl IntoIterator<Item = &'a Node>,
    policy: &Policy,
) -> Result<Node, Diags> {
    let mut engine = Engine {
        policy,
        path: Vec::new(),
        errors: Vec::new(),
    };
    let mut acc: Option<Node> = None;
    for level in levels {
        acc = Some(engine.fold(acc, level));
    }
    if !engine.errors.is_empty() {
        return Err(engine.errors);
    }
    Ok(acc.unwrap_or_else(|| Node::synthetic(Value::Map(Map::new()))))
}

struct Engine<'p> {
    policy: &'p Policy,
    path: Vec<String>,
    errors: Diags,
}

impl Engine<'_> {
    /// The value at the current path: `over` folded onto `base`.
    fn fold(&mut self, base: Option<Node>, over: &Node) -> Node {
        match (self.policy.strategy_for(&self.path), &over.value) {
            (Strategy::Replace, _) => over.clone(),
            (Strategy::Append { dedup, knockout }, Value::Seq(items)) => {
                let (dedup, knockout) = (*dedup, *knockout);
                self.append(base, over, items, dedup, knockout)
            }
            (Strategy::ByKey { key, knockout }, Value::Seq(items)) => {
                let (key, knockout) = (key.clone(), *knockout);
                self.by_key(base, over, items, &key, knockout)
            }
            (_, Value::Map(over_map)) => self.deep(base, over, over_map),
            _ => over.clone(),
        }
    }

    fn deep(&mut self, base: Option<Node>, over: &Node, over_map: &Map) -> Node {
        let (mut map, span) = match base {
            Some(Node {
                value: Value::Map(m),
                span,
            }) => (m, span),
            _ => (Map::with_capacity(over_map.len()), over.span.clone()),
        };
        for (key, entry) in over_map {
            self.path.push(key.clone());
            match map.get_mut(key) {
                Some(existing) => {
                    let old = std::mem::replace(&mut existing.node, Node::synthetic(Value::Null));
                    existing.node = self.fold(Some(old), &entry.node);
                    existing.key_span = entry.key_span.clone();
                }
                None => {
                    let node = self.fold(None, &entry.node);
                    map.insert(
                        key.clone(),
                        Entry {
                            key_span: entry.key_span.clone(),
                            node,
                        },
                    );
                }
            }
            self.path.pop();
        }
        Node::new(Value::Map(map), span)
    }

    fn append<'a>(
        &mut self,
        base: Option<Node>,
        over: &Node,
        items: &'a [Node],
        dedup: bool,
        knockout: bool,
    ) -> Node {
        let mut out = inherited_list(base, items.len());
        // Knockouts remove items from the inherited list only; the level's
        // own items are appended after them whatever their position.
        let knocked = |item: &'a Node| -> Option<&'a str> {
            item.as_str()
                .and_then(|s| s.strip_prefix(KNOCKOUT))
                .filter(|_| knockout)
        };
        for target in items.iter().filter_map(knocked) {
            out.retain(|n| n.as_str() != Some(target));
        }
        out.extend(items.iter().filter(|item| knocked(item).is_none()).cloned());
        if dedup {
            let mut seen = HashSet::with_capacity(out.len());
            let keep: Vec<bool> = out.iter().map(|n| seen.insert(SameKey(&n.value))).collect();
            let mut keep = keep.into_iter();
            out.retain(|_| keep.next().unwrap_or(true));
        }
        Node::new(Value::Seq(out), over.span.clone())
    }

    fn by_key(
        &mut self,
        base: Option<Node>,
        over: &Node,
        items: &[Node],
        key: &str,
        knockout: bool,
    ) -> Node {
        let mut out = inherited_list(base, items.len());
        // As for lists, knockouts remove inherited items only: the level's
        // own items are merged after them whatever their position.
        let mut own = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            let Some(id) = self.item_key(item, key, index) else {
                continue;
            };
            match id.strip_prefix(KNOCKOUT).filter(|_| knockout) {
                Some(target) => out.retain(|n| item_id(n, key) != Some(target)),
                None => own.push((id, item)),
            }
        }
        for (id, item) in own {
            self.path.push(id.to_string());
            match out.iter().position(|n| item_id(n, key) == Some(id)) {
                Some(pos) => {
                    let old = std::mem::replace(&mut out[pos], Node::synthetic(Value::Null));
                    out[pos] = self.fold(Some(old), item);
                }
                None => {
                    let node = self.fold(None, item);
                    out.push(node);
                }
            }
            self.path.pop();
        }
        Node::new(Value::Seq(out), over.span.clone())
    }

    /// The identifying field of a by-key item, or an error at the item.
    fn item_key<'n>(&mut self, item: &'n Node, key: &str, index: usize) -> Option<&'n str> {
        let path = format!("{}[{index}]", self.path.join("."));
        let problem = match &item.value {
            Value::Map(m) => match m.get(key).map(|e| &e.node) {
                Some(Node {
                    value: Value::Str(s),
                    ..
                }) if !s.is_empty() => return Some(s),
                Some(n) => {
                    let found = n.value.type_name();
                    let d = Diag::new(
                        "beryl::merge::item_key",
                        format!("{path}: `{key}` must be a non-empty string, found {found}"),
                    )
                    .label(&n.span, format!("`{key}` must be a string"));
                    self.errors.push(d);
                    return None;
                }
                None => format!("{path} has no `{key}`"),
            },
            other => format!(
                "{path} must be a mapping with a `{key}`, found {}",
                other.type_name()
            ),
        };
        let d = Diag::new("beryl::merge::item_key", problem)
            .label(&item.span, format!("this item needs a `{key}`"))
            .help(format!(
                "items of this list are merged by their `{key}` field"
            ));
        self.errors.push(d);
        None
    }
}

/// The inherited value as a list to extend (anything else counts as empty).
fn inherited_list(base: Option<Node>, capacity: usize) -> Vec<Node> {
    match base {
        Some(Node {
            value: Value::Seq(v),
            ..
        }) => v,
        _ => Vec::with_capacity(capacity),
    }
}

fn item_id<'n>(n: &'n Node, key: &str) -> Option<&'n str> {
    n.get(key).and_then(Node::as_str)
}

#[cfg(test)]
mod tests;
