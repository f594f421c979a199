//! A place in a tree of nodes, and the names a path gives it.
//!
//! A [`Loc`] is exact: the keys and list indexes from the root. A path as a
//! user writes it (`freebsd.users.alice.shell`) names list items instead, by
//! a field of theirs or by position; [`Loc::locate`] reads such a path and
//! [`Loc::names`] writes one. Which field names a list's items is the merge
//! policy's to say (`merge::Policy::key_field`), so both take it as a
//! function of the list's own path: this layer knows nodes, not merge rules.
//! A path of names is written for a user by `syntax::path::display`, the one
//! spelling of a place in everything beryl prints.

use std::ops::Deref;

use super::{Node, Value};

/// One step into a tree: a mapping's key or a list's index.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// A place in a tree: the steps from its root. Ordered so that the places at
/// or below one form a contiguous range (a place sorts before those below it).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc(Vec<Step>);

impl From<Vec<Step>> for Loc {
    fn from(steps: Vec<Step>) -> Self {
        Loc(steps)
    }
}

impl Deref for Loc {
    type Target = [Step];

    fn deref(&self) -> &[Step] {
        &self.0
    }
}

impl Loc {
    /// The root of a tree.
    pub(crate) fn root() -> Self {
        Loc(Vec::new())
    }

    pub(crate) fn push(&mut self, step: Step) {
        self.0.push(step);
    }

    pub(crate) fn pop(&mut self) -> Option<Step> {
        self.0.pop()
    }

    /// The place of the value holding this one; `None` at the root.
    pub(crate) fn parent(&self) -> Option<Loc> {
        self.0.split_last().map(|(_, up)| Loc(up.to_vec()))
    }

    /// Whether this place is `outer` or below it.
    pub(crate) fn within(&self, outer: &Loc) -> bool {
        self.0.starts_with(&outer.0)
    }

    /// The node at this place of a tree.
    pub(crate) fn at<'n>(&self, root: &'n Node) -> Option<&'n Node> {
        let mut node = root;
        for step in &self.0 {
            node = match (step, &node.value) {
                (Step::Key(k), Value::Map(m)) => &m.get(k)?.node,
                (Step::Index(i), Value::Seq(items)) => items.get(*i)?,
                _ => return None,
            };
        }
        Some(node)
    }

    /// The node at this place of a tree, to change in place.
    pub(crate) fn at_mut<'n>(&self, root: &'n mut Node) -> Option<&'n mut Node> {
        let mut node = root;
        for step in &self.0 {
            node = match (step, &mut node.value) {
                (Step::Key(k), Value::Map(m)) => &mut m.get_mut(k)?.node,
                (Step::Index(i), Value::Seq(items)) => items.get_mut(*i)?,
                _ => return None,
            };
        }
        Some(node)
    }

    /// The place a path of names leads to in a tree: a mapping's entry by
    /// its key, a list's item by `pick(list, items, name)`, which returns the
    /// item's index (`list` is the path of names up to the list).
    pub(crate) fn follow(
        root: &Node,
        path: &[String],
        mut pick: impl FnMut(&[String], &[Node], &str) -> Option<usize>,
    ) -> Option<Loc> {
        let mut loc = Loc(Vec::with_capacity(path.len()));
        let mut node = root;
        for (depth, name) in path.iter().enumerate() {
            let (step, next) = match &node.value {
                Value::Map(m) => (Step::Key(name.clone()), &m.get(name)?.node),
                Value::Seq(items) => {
                    let i = pick(&path[..depth], items, name)?;
                    (Step::Index(i), items.get(i)?)
                }
                _ => return None,
            };
            loc.push(step);
            node = next;
        }
        Some(loc)
    }

    /// The place a path of names leads to, a list's item named by its
    /// position (when that is an index of the list) or else by its key
    /// field: `key_field(list)` is the field that names the items of the
    /// list at that path, if any.
    pub(crate) fn locate<'k>(
        root: &Node,
        path: &[String],
        key_field: impl Fn(&[String]) -> Option<&'k str>,
    ) -> Option<Loc> {
        Self::follow(root, path, |list, items, name| {
            match name.parse::<usize>() {
                Ok(i) if i < items.len() => Some(i),
                _ => {
                    let field = key_field(list)?;
                    items.iter().position(|n| key_of(n, field) == Some(name))
                }
            }
        })
    }

    /// This place as a path of names: keys as they are, a list's item by
    /// its key field when it has a string there (`key_field` as for
    /// [`Loc::locate`]), else by its index.
    pub(crate) fn names<'k>(
        &self,
        root: &Node,
        key_field: impl Fn(&[String]) -> Option<&'k str>,
    ) -> Vec<String> {
        let mut out: Vec<String> = Vec::with_capacity(self.0.len());
        let mut node = Some(root);
        for step in &self.0 {
            let next = node.and_then(|n| Loc::step(n, step));
            out.push(match step {
                Step::Key(k) => k.clone(),
                Step::Index(i) => key_field(&out)
                    .and_then(|field| key_of(next?, field))
                    .map_or_else(|| i.to_string(), str::to_string),
            });
            node = next;
        }
        out
    }

    /// The steps as text, without reading a tree: keys as they are, list
    /// indexes as numbers (for messages about a place).
    pub(crate) fn plain(&self) -> Vec<String> {
        self.0
            .iter()
            .map(|s| match s {
                Step::Key(k) => k.clone(),
                Step::Index(i) => i.to_string(),
            })
            .collect()
    }

    fn step<'n>(node: &'n Node, step: &Step) -> Option<&'n Node> {
        match (step, &node.value) {
            (Step::Key(k), Value::Map(m)) => m.get(k).map(|e| &e.node),
            (Step::Index(i), Value::Seq(items)) => items.get(*i),
            _ => None,
        }
    }
}

/// The string a list item holds in its key field.
fn key_of<'n>(item: &'n Node, field: &str) -> Option<&'n str> {
    item.get(field).and_then(Node::as_str)
}

impl Node {
    /// Visits this node, at `at`, then (when `visit` returns true) every node
    /// below it, depth first in document order; `at` is each one's place.
    /// `at` is as it was on return.
    pub(crate) fn walk(&self, at: &mut Loc, visit: &mut impl FnMut(&Loc, &Node) -> bool) {
        if !visit(at, self) {
            return;
        }
        match &self.value {
            Value::Map(m) => {
                for (k, e) in m {
                    at.push(Step::Key(k.clone()));
                    e.node.walk(at, visit);
                    at.pop();
                }
            }
            Value::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    at.push(Step::Index(i));
                    item.walk(at, visit);
                    at.pop();
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Entry, Map, Span};

    fn map(pairs: Vec<(&str, Node)>) -> Node {
        let m: Map = pairs
            .into_iter()
            .map(|(k, node)| {
                let key_span = Span::synthetic();
                (k.to_string(), Entry { key_span, node })
            })
            .collect();
        Node::synthetic(Value::Map(m))
    }

    fn seq(items: Vec<Node>) -> Node {
        Node::synthetic(Value::Seq(items))
    }

    /// `users: [{name: alice, shell: sh}, {id: x}, "3"]`.
    fn tree() -> Node {
        map(vec![(
            "users",
            seq(vec![
                map(vec![
                    ("name", Node::str("alice")),
                    ("shell", Node::str("sh")),
                ]),
                map(vec![("id", Node::str("x"))]),
                Node::str("3"),
            ]),
        )])
    }

    fn path(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    fn by_name(_: &[String]) -> Option<&'static str> {
        Some("name")
    }

    #[test]
    fn locate_reads_positions_then_key_fields() {
        let t = tree();
        let alice = Loc::locate(&t, &path(&["users", "alice", "shell"]), by_name).unwrap();
        assert_eq!(
            *alice,
            [
                Step::Key("users".into()),
                Step::Index(0),
                Step::Key("shell".into())
            ]
        );
        assert_eq!(alice.at(&t).and_then(Node::as_str), Some("sh"));
        let second = Loc::locate(&t, &path(&["users", "1", "id"]), by_name).unwrap();
        assert_eq!(second.at(&t).and_then(Node::as_str), Some("x"));
        assert!(Loc::locate(&t, &path(&["users", "x"]), by_name).is_none());
        assert!(Loc::locate(&t, &path(&["users", "x"]), |_| None).is_none());
        let by_id = Loc::locate(&t, &path(&["users", "x"]), |_| Some("id")).unwrap();
        assert_eq!(*by_id, [Step::Key("users".into()), Step::Index(1)]);
    }

    #[test]
    fn names_use_the_key_field_or_the_index() {
        let t = tree();
        let names = |steps: Vec<Step>| Loc::from(steps).names(&t, by_name);
        let users = || Step::Key("users".into());
        assert_eq!(
            names(vec![users(), Step::Index(0), Step::Key("shell".into())]),
            path(&["users", "alice", "shell"])
        );
        assert_eq!(names(vec![users(), Step::Index(1)]), path(&["users", "1"]));
        assert_eq!(names(vec![users(), Step::Index(2)]), path(&["users", "2"]));
        // Off the tree, indexes stay numbers.
        assert_eq!(
            names(vec![users(), Step::Index(7), Step::Key("k".into())]),
            path(&["users", "7", "k"])
        );
        let loc = Loc::locate(&t, &path(&["users", "alice"]), by_name).unwrap();
        assert_eq!(loc.names(&t, by_name), path(&["users", "alice"]));
    }

    #[test]
    fn at_mut_changes_the_node_in_place() {
        let mut t = tree();
        let loc = Loc::from(vec![Step::Key("users".into()), Step::Index(2)]);
        *loc.at_mut(&mut t).unwrap() = Node::str("4");
        assert_eq!(loc.at(&t).and_then(Node::as_str), Some("4"));
        assert!(Loc::from(vec![Step::Index(0)]).at_mut(&mut t).is_none());
    }

    #[test]
    fn places_below_one_sort_together() {
        let a = Loc::from(vec![Step::Key("a".into())]);
        let below = Loc::from(vec![Step::Key("a".into()), Step::Index(3)]);
        let after = Loc::from(vec![Step::Key("b".into())]);
        assert!(a < below && below < after);
        assert!(below.within(&a) && a.within(&a) && !after.within(&a));
        assert_eq!(below.parent(), Some(a.clone()));
        assert_eq!(Loc::root().parent(), None);
        assert_eq!(below.plain(), path(&["a", "3"]));
    }

    #[test]
    fn walk_visits_in_document_order_and_prunes() {
        let t = tree();
        let mut seen = Vec::new();
        t.walk(&mut Loc::root(), &mut |loc, n| {
            seen.push(loc.plain().join("."));
            !matches!(n.value, Value::Map(_)) || loc.is_empty()
        });
        assert_eq!(seen, ["", "users", "users.0", "users.1", "users.2"]);
    }
}
