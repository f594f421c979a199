//! What removed a value that a level wrote: [`cause`] looks for the first
//! higher level that knocks the path out, or that writes an ancestor of it so
//! that the path cannot survive (the rows of [`RULES`]).

use crate::compile::{Compiled, MergedDoc};
use crate::merge::{Spec, SpecOrigin, Strategy, spec_at};
use crate::syntax::prefix::{Prefix, split};
use crate::value::{Entry, Node, Value};

use super::levels::{Found, Written, deleting_value, final_at, level_item, written};
use super::{Cause, CauseKind, compact};

/// The strategies that merge lists (any other replaces a list whole).
const LIST_MERGING_KINDS: &[Strategy] = &[
    Strategy::Append,
    Strategy::Concat,
    Strategy::Unique,
    Strategy::Deep,
    Strategy::ByKey,
];

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

/// A jail's key that its shared levels wrote and the compile dropped, or
/// one below it (src/compile/jail.rs): `at` says why.
pub(super) fn dropped(c: &Compiled, path: &[String]) -> Option<Cause> {
    c.dropped
        .iter()
        .find(|d| path.starts_with(&d.path))
        .map(|d| Cause {
            kind: CauseKind::Jail,
            text: d.path.join("."),
            at: d.why.to_string(),
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
    level: &MergedDoc,
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
        Value::Null if s.spec.0.kind == Strategy::Deep => None,
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
            text: crate::syntax::path::display(s.at),
            at: s.node.span.to_string(),
        }),
        _ => None,
    }
}

/// A mapping without the key, taken whole from the highest level (`first`,
/// or below a strategy that does not recurse).
fn taken_whole(s: &Step) -> Option<Cause> {
    s.node.as_map()?;
    let whole = s.spec.0.kind == Strategy::First || matches!(s.spec.1, SpecOrigin::Whole(_));
    (whole && s.entry().is_none()).then(|| Cause {
        kind: CauseKind::Whole,
        text: crate::syntax::path::display(s.at),
        at: s.node.span.to_string(),
    })
}
