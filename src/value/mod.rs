//! The spanned value: every node of every loaded file knows where it was written.
//!
//! `Node` is what the loader produces, what the merge engine folds and what the
//! validator reads. Spans travel with values, so any later stage can point at the
//! source without re-reading it. A place in a tree of nodes is a [`Loc`]
//! (loc.rs).

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use indexmap::IndexMap;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

mod loc;
pub(crate) mod repr;

pub(crate) use loc::{Loc, Step};

/// One source file: its display name (as the user would type it) and its text.
#[derive(Debug)]
pub struct Source {
    pub name: String,
    pub text: Arc<str>,
    /// The byte offset of each line start, so that quoting many errors of
    /// one file stays linear. (Built up front: a lazy cell would make every
    /// value, which holds its source, interior-mutable.)
    line_starts: Vec<usize>,
}

impl Source {
    pub fn new(name: impl Into<String>, text: impl Into<Arc<str>>) -> Arc<Self> {
        let text: Arc<str> = text.into();
        let bytes = text.as_bytes();
        let line_starts = std::iter::once(0)
            .chain(
                (0..bytes.len())
                    .filter(|&i| ends_line(bytes, i))
                    .map(|i| i + 1),
            )
            .collect();
        Arc::new(Self {
            name: name.into(),
            text,
            line_starts,
        })
    }

    /// The 0-based line holding byte `offset`.
    pub fn line_index(&self, offset: usize) -> usize {
        self.line_starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }
}

/// Whether byte `i` ends a line: `\n`, or a `\r` not followed by `\n`, as
/// YAML and miette count lines.
pub(crate) fn ends_line(bytes: &[u8], i: usize) -> bool {
    match bytes.get(i) {
        Some(b'\n') => true,
        Some(b'\r') => bytes.get(i + 1) != Some(&b'\n'),
        _ => false,
    }
}

/// A location in a source file. `line` and `col` are 1-based; `offset` and `len`
/// are byte positions. A span without a source marks a value that beryl made.
#[derive(Clone, Default)]
pub struct Span {
    pub source: Option<Arc<Source>>,
    pub offset: usize,
    pub len: usize,
    pub line: u32,
    pub col: u32,
}

impl Span {
    /// This span moved into `to`, a file whose bytes from `at` on hold the
    /// text this span was read from (one document of a multi-document file,
    /// read alone): the same bytes, `lines` lines further down. A computed
    /// span stays computed.
    pub(crate) fn rebase(&mut self, to: &Arc<Source>, at: usize, lines: u32) {
        if self.source.is_some() {
            self.source = Some(to.clone());
            self.offset += at;
            self.line += lines;
        }
    }

    /// Whether two spans start at the same place of the same file. Computed
    /// values (no file) are never at the same place as anything.
    pub fn same_place(&self, other: &Span) -> bool {
        self.source.is_some()
            && self.offset == other.offset
            && self.file_name() == other.file_name()
    }

    /// Whether two spans are the very same span: the same bytes of the same
    /// loaded file, or both computed (nothing tells computed spans apart).
    /// [`Span::same_place`] instead matches a place across loads of a file
    /// by its name and start, and never matches a computed value.
    pub fn identical(&self, other: &Span) -> bool {
        let same_source = match (&self.source, &other.source) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        same_source && self.offset == other.offset && self.len == other.len
    }

    /// A span for values that beryl computes (such as `_beryl_`).
    pub fn synthetic() -> Self {
        Self::default()
    }

    /// A span covering the whole of a file (for errors about a file as a whole).
    pub fn file(source: &Arc<Source>) -> Self {
        Self {
            source: Some(source.clone()),
            offset: 0,
            len: 0,
            line: 1,
            col: 1,
        }
    }

    pub fn file_name(&self) -> Option<&str> {
        self.source.as_deref().map(|s| s.name.as_str())
    }

    /// Whether two spans are in the same file: the same load of it, or two
    /// loads with the same name and bytes (a host file read for the fleet's
    /// exports, released, then read again for its own compile:
    /// `Compiler::release` in src/compile/mod.rs).
    pub fn same_source(&self, other: &Span) -> bool {
        match (&self.source, &other.source) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b) || (a.name == b.name && a.text == b.text),
            _ => false,
        }
    }
}

impl fmt::Display for Span {
    /// `file:line:col`, or `<beryl>` for computed values.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            Some(s) => write!(f, "{}:{}:{}", s.name, self.line, self.col),
            None => f.write_str("<beryl>"),
        }
    }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A value with the place it was written.
#[derive(Clone, Debug)]
pub struct Node {
    pub value: Value,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Map),
}

/// A mapping entry: the key's own span and the value node.
#[derive(Clone, Debug)]
pub struct Entry {
    pub key_span: Span,
    pub node: Node,
}

/// An insertion-ordered mapping with string keys.
pub type Map = IndexMap<String, Entry>;

impl Node {
    pub fn new(value: Value, span: Span) -> Self {
        Self { value, span }
    }

    /// Every span of this tree (keys included) moved by [`Span::rebase`].
    pub(crate) fn rebase(&mut self, to: &Arc<Source>, at: usize, lines: u32) {
        self.span.rebase(to, at, lines);
        match &mut self.value {
            Value::Seq(items) => items.iter_mut().for_each(|n| n.rebase(to, at, lines)),
            Value::Map(map) => map.values_mut().for_each(|e| {
                e.key_span.rebase(to, at, lines);
                e.node.rebase(to, at, lines);
            }),
            _ => {}
        }
    }

    pub(crate) fn synthetic(value: Value) -> Self {
        Self::new(value, Span::synthetic())
    }

    pub(crate) fn str(s: impl Into<String>) -> Self {
        Self::synthetic(Value::Str(s.into()))
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&Map> {
        match &self.value {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// The node at a key of a mapping node.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?.get(key).map(|e| &e.node)
    }
}

impl Value {
    /// The YAML name of this value's type, for messages.
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }

    /// Deep equality by type, ignoring spans and mapping order: integer 1 is
    /// neither the float 1.0 nor the string "1".
    pub fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Seq(a), Value::Seq(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.value.same(&y.value))
            }
            (Value::Map(a), Value::Map(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(k, e)| b.get(k).is_some_and(|o| e.node.value.same(&o.node.value)))
            }
            _ => false,
        }
    }

    /// [`Value::same`] that also holds mapping keys to the same order, at
    /// every depth: what writing a tree out and reading it back must keep
    /// (the round-trip property tests and fuzz targets ask this).
    pub fn same_ordered(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Seq(a), Value::Seq(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.value.same_ordered(&y.value))
            }
            (Value::Map(a), Value::Map(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|((k, e), (l, f))| k == l && e.node.value.same_ordered(&f.node.value))
            }
            _ => self.same(other),
        }
    }
}

/// A borrowed value compared with [`Value::same`], usable as a hash-set key.
pub(crate) struct SameKey<'a>(pub &'a Value);

impl PartialEq for SameKey<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0.same(other.0)
    }
}

impl Eq for SameKey<'_> {}

impl Hash for SameKey<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_value(self.0, state);
    }
}

fn hash_value<H: Hasher>(v: &Value, state: &mut H) {
    std::mem::discriminant(v).hash(state);
    match v {
        Value::Null => {}
        Value::Bool(b) => b.hash(state),
        Value::Int(i) => i.hash(state),
        Value::Float(f) => f.to_bits().hash(state),
        Value::Str(s) => s.hash(state),
        Value::Seq(items) => {
            items.len().hash(state);
            for item in items {
                hash_value(&item.value, state);
            }
        }
        // Order-insensitive, like `same`: only the size and the key set.
        Value::Map(m) => {
            m.len().hash(state);
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            keys.hash(state);
        }
    }
}

impl Serialize for Node {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(s)
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(i) => s.serialize_i64(*i),
            Value::Float(f) => s.serialize_f64(*f),
            Value::Str(v) => s.serialize_str(v),
            Value::Seq(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Map(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, e) in m {
                    map.serialize_entry(k, &e.node)?;
                }
                map.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn int(i: i64) -> Node {
        Node::synthetic(Value::Int(i))
    }

    fn map(pairs: &[(&str, Node)]) -> Node {
        let m = pairs
            .iter()
            .map(|(k, n)| {
                (
                    k.to_string(),
                    Entry {
                        key_span: Span::synthetic(),
                        node: n.clone(),
                    },
                )
            })
            .collect();
        Node::synthetic(Value::Map(m))
    }

    #[test]
    fn same_is_typed() {
        assert!(!int(1).value.same(&Node::str("1").value));
        assert!(!int(1).value.same(&Value::Float(1.0)));
        assert!(int(1).value.same(&int(1).value));
    }

    #[test]
    fn same_ignores_map_order() {
        let a = map(&[("x", int(1)), ("y", int(2))]);
        let b = map(&[("y", int(2)), ("x", int(1))]);
        let c = map(&[("y", int(2)), ("x", int(3))]);
        assert!(a.value.same(&b.value));
        assert!(!a.value.same(&c.value));
        let mut set = HashSet::new();
        assert!(set.insert(SameKey(&a.value)));
        assert!(!set.insert(SameKey(&b.value)));
        assert!(set.insert(SameKey(&c.value)));
    }

    #[test]
    fn same_ordered_keeps_map_order() {
        let a = map(&[("x", int(1)), ("y", map(&[("p", int(1)), ("q", int(2))]))]);
        let b = map(&[("y", map(&[("p", int(1)), ("q", int(2))])), ("x", int(1))]);
        let inner = map(&[("x", int(1)), ("y", map(&[("q", int(2)), ("p", int(1))]))]);
        assert!(a.value.same_ordered(&a.clone().value));
        assert!(a.value.same(&b.value) && !a.value.same_ordered(&b.value));
        assert!(a.value.same(&inner.value) && !a.value.same_ordered(&inner.value));
        assert!(!int(1).value.same_ordered(&Value::Float(1.0)));
    }
}
