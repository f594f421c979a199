//! What one level of a host's chain wrote at a path.
//!
//! A level writes a path with a value ([`Written::Set`], through `~`/`=` keys
//! too, and through the answer of an inventory query), or knocks it out
//! ([`Written::Knockout`]: a list item `--vim`, a by-key item `name: --bob`,
//! a `deep` value `key: --`, a `patch` null). `causes.rs` finds, from these,
//! what removed a value.

use crate::compile::{Compiled, MergedDoc};
use crate::merge::{Spec, Strategy, spec_at};
use crate::syntax::prefix::{Prefix, split};
use crate::syntax::query::{Scan, scan};
use crate::value::{Node, Span, Value};

use super::{CauseKind, Query, key_field, key_of};

/// What a level wrote at a path.
#[derive(Debug)]
pub(super) enum Written<'n> {
    /// A value: the node as merged, the prefix of its key, and the query it
    /// is (part of) the answer of.
    Set {
        node: &'n Node,
        prefix: Prefix,
        query: Option<Asked>,
    },
    /// A knockout of the path: what the level wrote (the list item, the
    /// value), the marker in it, its kind and how it is
    /// written.
    Knockout {
        item: &'n Node,
        marker: &'n Node,
        kind: CauseKind,
        text: String,
    },
}

/// An inventory query on the way to a path, as written in a level.
#[derive(Debug)]
pub(super) struct Asked {
    text: String,
    span: Span,
    /// The length of the path at which the query is written.
    depth: usize,
}

impl Asked {
    /// The query, for a path (the segment after the query is the FQDN of
    /// the host whose exports gave the value).
    pub(super) fn to_query(&self, path: &[String]) -> Query {
        Query {
            text: self.text.clone(),
            at: self.span.to_string(),
            host: path.get(self.depth).cloned(),
        }
    }
}

impl Written<'_> {
    pub(super) fn node(&self) -> &Node {
        match self {
            Written::Set { node, .. } => node,
            Written::Knockout { item, .. } => item,
        }
    }

    /// `line:col` in the level's file: of the value, the knockout, or the
    /// query whose answer holds the value (which was written elsewhere).
    pub(super) fn at(&self) -> String {
        let span = match self {
            Written::Set { query: Some(q), .. } => &q.span,
            Written::Set { node, .. } => &node.span,
            Written::Knockout { marker, .. } => &marker.span,
        };
        format!("{}:{}", span.line, span.col)
    }

    pub(super) fn query(&self) -> Option<&Asked> {
        match self {
            Written::Set { query, .. } => query.as_ref(),
            Written::Knockout { .. } => None,
        }
    }
}

/// What level `i` wrote at a level path. `finals` are the final config's
/// nodes along the path (they name list items that have no name).
pub(super) fn written<'n>(
    c: &'n Compiled,
    i: usize,
    path: &[String],
    finals: &[Option<&Node>],
) -> Option<Written<'n>> {
    let w = raw(c, &c.levels[i], path, finals)?;
    // A patch's null deletes what the levels below wrote; over nothing, it
    // is data (RFC 7396: the target's nulls stay).
    if let Written::Knockout {
        kind: CauseKind::Null,
        marker,
        ..
    } = &w
        && !(0..i).any(|j| {
            matches!(
                raw(c, &c.levels[j], path, finals),
                Some(Written::Set { .. })
            )
        })
    {
        return Some(Written::Set {
            node: marker,
            prefix: Prefix::Plain,
            query: None,
        });
    }
    Some(w)
}

/// Where the levels below level `i` wrote a path (`file:line:col` each).
pub(super) fn written_below(
    c: &Compiled,
    i: usize,
    path: &[String],
    finals: &[Option<&Node>],
) -> Vec<String> {
    (0..i)
        .filter_map(|j| match raw(c, &c.levels[j], path, finals)? {
            Written::Set { node, .. } => Some(node.span.to_string()),
            Written::Knockout { .. } => None,
        })
        .collect()
}

fn raw<'n>(
    c: &Compiled,
    level: &'n MergedDoc,
    path: &[String],
    finals: &[Option<&Node>],
) -> Option<Written<'n>> {
    let mut node: &Node = &level.node;
    let mut prefix = Prefix::Plain;
    for (depth, seg) in path.iter().enumerate() {
        let last = depth + 1 == path.len();
        let spec = spec_at(&c.policy, &path[..depth]).0;
        match &node.value {
            Value::Map(m) => {
                let (key, entry) = m.iter().find(|(raw, _)| split(raw).0 == seg)?;
                prefix = split(key).1;
                node = &entry.node;
                if last && let Some((kind, text)) = deleting_value(&spec, key, node) {
                    return Some(Written::Knockout {
                        item: node,
                        marker: node,
                        kind,
                        text,
                    });
                }
            }
            Value::Seq(items) => {
                prefix = Prefix::Plain;
                match level_item(items, seg, &spec, final_at(finals, depth + 1)) {
                    Found::Item(n) => node = n,
                    Found::Knockout(item, marker, text) if last => {
                        return Some(Written::Knockout {
                            item,
                            marker,
                            kind: CauseKind::Knockout,
                            text,
                        });
                    }
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
    Some(Written::Set {
        node,
        prefix,
        query: asked(c, level, path),
    })
}

pub(super) fn final_at<'n>(finals: &[Option<&'n Node>], depth: usize) -> Option<&'n Node> {
    finals.get(depth).copied().flatten()
}

/// A mapping value that deletes its key: a `deep` knockout (`key: --`) or a
/// `patch` null. `spec` is the mapping's.
pub(super) fn deleting_value(spec: &Spec, key: &str, node: &Node) -> Option<(CauseKind, String)> {
    match (&node.value, spec.kind) {
        (Value::Null, Strategy::Patch) => Some((CauseKind::Null, format!("{key}: null"))),
        (Value::Str(s), Strategy::Deep) if Some(s.as_str()) == spec.knockout_prefix.as_deref() => {
            Some((CauseKind::Knockout, format!("{key}: {s}")))
        }
        _ => None,
    }
}

/// An item of a level's list, found by the segment that names it.
pub(super) enum Found<'n> {
    Item(&'n Node),
    /// A knockout of it: the item, the marker in it and how it is written.
    Knockout(&'n Node, &'n Node, String),
    Missing,
}

/// The strategies that take knockouts in lists.
const KNOCKOUT_KINDS: &[Strategy] = &[Strategy::Append, Strategy::ByKey, Strategy::Deep];

fn knockout_prefix(spec: &Spec) -> Option<&str> {
    spec.knockout_prefix
        .as_deref()
        .filter(|_| KNOCKOUT_KINDS.contains(&spec.kind))
}

/// The item a segment names in a level's list (`spec` is the list's): by key
/// or by value, else (for an item with no name) the one at the final item's
/// place; or the knockout that removes it from the levels below.
pub(super) fn level_item<'n>(
    items: &'n [Node],
    seg: &str,
    spec: &Spec,
    final_item: Option<&Node>,
) -> Found<'n> {
    let prefix = knockout_prefix(spec);
    let name = |item: &'n Node| match spec.kind {
        Strategy::ByKey => key_of(item, &spec.key),
        _ => item.as_str(),
    };
    if let Some(item) = items.iter().find(|i| name(i) == Some(seg)) {
        return Found::Item(item);
    }
    for item in items {
        let (Some(p), Some(id)) = (prefix, name(item)) else {
            continue;
        };
        // A bare prefix empties the lists below, in `deep` only.
        let bare = spec.kind == Strategy::Deep && id == p;
        if id.strip_prefix(p) == Some(seg) || bare {
            return match spec.kind {
                Strategy::ByKey => Found::Knockout(
                    item,
                    item.get(&spec.key).unwrap_or(item),
                    format!("{}: {id}", spec.key),
                ),
                _ => Found::Knockout(item, item, id.to_string()),
            };
        }
    }
    match final_item {
        Some(f) if f.as_str().is_none() => items
            .iter()
            .find(|i| i.span.same_place(&f.span))
            .map_or(Found::Missing, Found::Item),
        _ => Found::Missing,
    }
}

/// The inventory query on the way to a path in a level as written, if any.
fn asked(c: &Compiled, level: &MergedDoc, path: &[String]) -> Option<Asked> {
    if std::sync::Arc::ptr_eq(&level.node, &level.written) {
        return None;
    }
    let mut node: &Node = &level.written;
    for depth in 0..=path.len() {
        if let Value::Str(s) = &node.value
            && s.contains("$[")
            && matches!(scan(s), Scan::Query(_))
        {
            return Some(Asked {
                text: s.clone(),
                span: node.span.clone(),
                depth,
            });
        }
        let seg = path.get(depth)?;
        node = match &node.value {
            Value::Map(m) => &m.iter().find(|(raw, _)| split(raw).0 == seg)?.1.node,
            Value::Seq(items) => {
                &items[super::item(items, seg, key_field(&c.policy, &path[..depth]))?]
            }
            _ => return None,
        };
    }
    None
}
