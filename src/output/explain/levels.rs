//! What one level of a host's chain wrote at a path, and what removed a
//! value that a level wrote.
//!
//! A level writes a path with a value ([`Written::Set`], through `~`/`=` keys
//! too, and through the answer of an inventory query), or knocks it out
//! ([`Written::Knockout`]: a list item `--vim`, a by-key item `name: --bob`,
//! a `deep` value `key: --`, a `patch` null). [`cause`] finds what removed a
//! value: the first higher level that knocks the path out, or that writes an
//! ancestor so that the path cannot survive (the rows of [`RULES`]).

use crate::compile::{Compiled, Level};
use crate::exports::query::{Scan, scan};
use crate::merge::keys::{Prefix, split};
use crate::merge::{Kind, Spec, SpecOrigin, spec_at};
use crate::value::{Entry, Node, Span, Value};

use super::{Cause, CauseKind, Query, compact, key_of};

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
    /// value), the marker in it, its kind (a [`Cause`] kind) and how it is
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
    level: &'n Level,
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

fn final_at<'n>(finals: &[Option<&'n Node>], depth: usize) -> Option<&'n Node> {
    finals.get(depth).copied().flatten()
}

/// A mapping value that deletes its key: a `deep` knockout (`key: --`) or a
/// `patch` null. `spec` is the mapping's.
fn deleting_value(spec: &Spec, key: &str, node: &Node) -> Option<(CauseKind, String)> {
    match (&node.value, spec.kind) {
        (Value::Null, Kind::Patch) => Some((CauseKind::Null, format!("{key}: null"))),
        (Value::Str(s), Kind::Deep) if Some(s.as_str()) == spec.knockout_prefix.as_deref() => {
            Some((CauseKind::Knockout, format!("{key}: {s}")))
        }
        _ => None,
    }
}

/// An item of a level's list, found by the segment that names it.
enum Found<'n> {
    Item(&'n Node),
    /// A knockout of it: the item, the marker in it and how it is written.
    Knockout(&'n Node, &'n Node, String),
    Missing,
}

/// The strategies that take knockouts in lists.
const KNOCKOUT_KINDS: &[Kind] = &[Kind::Append, Kind::ByKey, Kind::Deep];

/// The strategies that merge lists (any other replaces a list whole).
const LIST_MERGING_KINDS: &[Kind] = &[
    Kind::Append,
    Kind::Concat,
    Kind::Unique,
    Kind::Deep,
    Kind::ByKey,
];

fn knockout_prefix(spec: &Spec) -> Option<&str> {
    spec.knockout_prefix
        .as_deref()
        .filter(|_| KNOCKOUT_KINDS.contains(&spec.kind))
}

/// The item a segment names in a level's list (`spec` is the list's): by key
/// or by value, else (for an item with no name) the one at the final item's
/// place; or the knockout that removes it from the levels below.
fn level_item<'n>(
    items: &'n [Node],
    seg: &str,
    spec: &Spec,
    final_item: Option<&Node>,
) -> Found<'n> {
    let prefix = knockout_prefix(spec);
    let name = |item: &'n Node| match spec.kind {
        Kind::ByKey => key_of(item, spec),
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
        let bare = spec.kind == Kind::Deep && id == p;
        if id.strip_prefix(p) == Some(seg) || bare {
            return match spec.kind {
                Kind::ByKey => Found::Knockout(
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
fn asked(c: &Compiled, level: &Level, path: &[String]) -> Option<Asked> {
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
            Value::Seq(items) => super::item(items, seg, &spec_at(&c.policy, &path[..depth]).0)?,
            _ => return None,
        };
    }
    None
}

/// What removed the value that level `from` wrote at a path: the first
/// higher level that knocks the path out, or writes an ancestor of it so
/// that it cannot survive. `None` when no such write is found.
pub(super) fn cause(
    c: &Compiled,
    from: usize,
    path: &[String],
    finals: &[Option<&Node>],
) -> Option<Cause> {
    (from + 1..c.levels.len()).find_map(|j| match written(c, j, path, finals) {
        Some(Written::Knockout {
            marker, kind, text, ..
        }) => Some(Cause {
            kind,
            text,
            at: marker.span.to_string(),
        }),
        Some(Written::Set { .. }) => None,
        None => ancestor(c, &c.levels[j], path, finals),
    })
}

/// One step down a path in a level that does not write the path itself.
struct Step<'a> {
    /// The level's node at the ancestor, the ancestor's path and its spec.
    node: &'a Node,
    at: &'a [String],
    spec: (Spec, SpecOrigin),
    /// The next segment, and whether it is the path's last.
    seg: &'a str,
    last: bool,
    final_item: Option<&'a Node>,
}

impl<'a> Step<'a> {
    /// The entry of the mapping for the next segment, and its key as written.
    fn entry(&self) -> Option<(&'a str, &'a Entry)> {
        let m = self.node.as_map()?;
        m.iter()
            .find(|(raw, _)| split(raw).0 == self.seg)
            .map(|(k, e)| (k.as_str(), e))
    }

    fn item(&self) -> Option<Found<'a>> {
        let items = self.node.as_seq()?;
        Some(level_item(items, self.seg, &self.spec.0, self.final_item))
    }

    fn next(&self) -> Option<&'a Node> {
        match self.item() {
            Some(Found::Item(n)) => Some(n),
            Some(_) => None,
            None => self.entry().map(|(_, e)| &e.node),
        }
    }
}

type Rule = fn(&Step) -> Option<Cause>;

/// How a level's write at an ancestor removes a path, one row per way.
const RULES: &[Rule] = &[
    overridden,
    knocked_out,
    deleted_key,
    replaced,
    list_replaced,
    taken_whole,
];

fn ancestor(
    c: &Compiled,
    level: &Level,
    path: &[String],
    finals: &[Option<&Node>],
) -> Option<Cause> {
    let mut node: &Node = &level.node;
    for (depth, seg) in path.iter().enumerate() {
        let step = Step {
            node,
            at: &path[..depth],
            spec: spec_at(&c.policy, &path[..depth]),
            seg,
            last: depth + 1 == path.len(),
            final_item: final_at(finals, depth + 1),
        };
        if let Some(cause) = RULES.iter().find_map(|rule| rule(&step)) {
            return Some(cause);
        }
        node = step.next()?;
    }
    None
}

/// `~key` or `=key` above the path: it replaces what the levels below wrote.
fn overridden(s: &Step) -> Option<Cause> {
    let (key, entry) = s.entry()?;
    (!s.last && split(key).1 != Prefix::Plain).then(|| Cause {
        kind: CauseKind::Override,
        text: key.to_string(),
        at: entry.key_span.to_string(),
    })
}

/// A knockout of an item above the path (`name: --bob` for
/// `freebsd.users.bob.shell`).
fn knocked_out(s: &Step) -> Option<Cause> {
    match s.item()? {
        Found::Knockout(_, marker, text) => Some(Cause {
            kind: CauseKind::Knockout,
            text,
            at: marker.span.to_string(),
        }),
        _ => None,
    }
}

/// A `deep` knockout or a `patch` null on a key above the path.
fn deleted_key(s: &Step) -> Option<Cause> {
    let (key, entry) = s.entry().filter(|_| !s.last)?;
    let (kind, text) = deleting_value(&s.spec.0, key, &entry.node)?;
    Some(Cause {
        kind,
        text,
        at: entry.node.span.to_string(),
    })
}

/// A scalar above the path: it replaces the mapping or list below (a `deep`
/// null keeps the lower value instead).
fn replaced(s: &Step) -> Option<Cause> {
    let (key, entry) = s.entry().filter(|_| !s.last)?;
    match entry.node.value {
        Value::Map(_) | Value::Seq(_) => None,
        Value::Null if s.spec.0.kind == Kind::Deep => None,
        _ => Some(Cause {
            kind: CauseKind::Replaced,
            text: format!("{key}: {}", compact(&entry.node)),
            at: entry.node.span.to_string(),
        }),
    }
}

/// A list without the item, under a strategy that replaces lists whole.
fn list_replaced(s: &Step) -> Option<Cause> {
    if LIST_MERGING_KINDS.contains(&s.spec.0.kind) {
        return None;
    }
    match s.item()? {
        Found::Missing => Some(Cause {
            kind: CauseKind::List,
            text: crate::path::display(s.at),
            at: s.node.span.to_string(),
        }),
        _ => None,
    }
}

/// A mapping without the key, taken whole from the highest level (`first`,
/// or below a strategy that does not recurse).
fn taken_whole(s: &Step) -> Option<Cause> {
    s.node.as_map()?;
    let whole = s.spec.0.kind == Kind::First || matches!(s.spec.1, SpecOrigin::Whole(_));
    (whole && s.entry().is_none()).then(|| Cause {
        kind: CauseKind::Whole,
        text: crate::path::display(s.at),
        at: s.node.span.to_string(),
    })
}
