//! Small random documents for the merge properties.
//!
//! The shape is the differential suite's (tests/integration/differential/
//! cases.rs): a few keys from a tiny alphabet, so that levels collide on keys
//! and list items, nested lists and lists of mappings, mixed types. Each
//! property says which ingredients it admits through a [`Shape`].

use proptest::prelude::*;
use serde_json::{Map, Value as J};

use crate::syntax::prefix::split;

/// What the generated documents may hold.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Shape {
    /// `null` leaves.
    pub nulls: bool,
    /// Knockout markers (`--a`, a bare `--`) among the strings.
    pub markers: bool,
    /// `~key` overrides among the keys.
    pub overrides: bool,
    /// `=key` constants among the keys.
    pub constants: bool,
}

impl Shape {
    pub(super) const PLAIN: Shape = Shape {
        nulls: false,
        markers: false,
        overrides: false,
        constants: false,
    };
    pub(super) const NULLS: Shape = Shape {
        nulls: true,
        ..Shape::PLAIN
    };
    pub(super) const ALL: Shape = Shape {
        nulls: true,
        markers: true,
        overrides: true,
        constants: true,
    };
}

fn leaf(s: Shape) -> BoxedStrategy<J> {
    let mut strings = vec!["a", "b", "c", "x", "1", ""];
    if s.markers {
        strings.extend(["--a", "--b", "--x", "--"]);
    }
    let null = if s.nulls { 1 } else { 0 };
    prop_oneof![
        null => Just(J::Null),
        1 => any::<bool>().prop_map(J::Bool),
        3 => (0i64..4).prop_map(J::from),
        1 => prop::sample::select(vec![0.5f64, 1.0, 1.5]).prop_map(J::from),
        5 => prop::sample::select(strings).prop_map(J::from),
    ]
    .boxed()
}

fn key(s: Shape) -> BoxedStrategy<String> {
    let mut keys = vec!["a", "b", "c", "k"];
    if s.overrides {
        keys.extend(["~a", "~k"]);
    }
    if s.constants {
        keys.extend(["=b", "=k"]);
    }
    prop::sample::select(keys).prop_map(str::to_string).boxed()
}

/// A mapping of up to `max - 1` keys. A key whose name (prefix stripped) is
/// already set is skipped: `a` and `~a` in one mapping is an error of its own.
pub(super) fn object(inner: BoxedStrategy<J>, s: Shape, max: usize) -> BoxedStrategy<J> {
    prop::collection::vec((key(s), inner), 0..max)
        .prop_map(|pairs| {
            let mut m = Map::new();
            for (k, v) in pairs {
                if !m.keys().any(|have| split(have).0 == split(&k).0) {
                    m.insert(k, v);
                }
            }
            J::Object(m)
        })
        .boxed()
}

/// Any value: leaves, lists, mappings and lists of mappings, three deep.
pub(super) fn value(s: Shape) -> BoxedStrategy<J> {
    leaf(s)
        .prop_recursive(3, 32, 4, move |inner| {
            prop_oneof![
                2 => prop::collection::vec(inner.clone(), 0..4).prop_map(J::Array),
                2 => object(inner.clone(), s, 4),
                1 => prop::collection::vec(object(inner, s, 3), 0..3).prop_map(J::Array),
            ]
        })
        .boxed()
}

/// A level: a mapping at the root, anything below.
pub(super) fn doc(s: Shape) -> BoxedStrategy<J> {
    object(value(s), s, 5)
}

/// A list of `by_key` items: mappings with a `name` (u1, u2, u3, or a
/// knockout of one), and a field or two.
pub(super) fn items(s: Shape) -> BoxedStrategy<J> {
    let mut names = vec!["u1", "u2", "u3"];
    if s.markers {
        names.push("--u1");
    }
    let item = (
        prop::sample::select(names),
        object(
            value(s),
            Shape {
                constants: false,
                ..s
            },
            3,
        ),
    )
        .prop_map(|(name, mut fields)| {
            if let J::Object(m) = &mut fields {
                m.shift_insert(0, "name".into(), J::from(name));
            }
            fields
        });
    prop::collection::vec(item, 0..4).prop_map(J::Array).boxed()
}

/// The document with its lists deduplicated (typed, as `deep` compares) and,
/// with `sort`, sorted as `sort_merged_arrays` sorts: the form the deep_merge
/// gem gives a value it merges with itself.
pub(super) fn normal(doc: &J, sort: bool) -> J {
    fn walk(n: &mut crate::value::Node, sort: bool) {
        match &mut n.value {
            crate::value::Value::Seq(items) => {
                items.iter_mut().for_each(|i| walk(i, sort));
                crate::merge::order::dedup(items);
                if sort {
                    crate::merge::order::sort(items);
                }
            }
            crate::value::Value::Map(m) => m.values_mut().for_each(|e| walk(&mut e.node, sort)),
            _ => {}
        }
    }
    let mut node = super::node(doc, "normal.json");
    walk(&mut node, sort);
    serde_json::to_value(&node).expect("serialise")
}

/// The document without null members of mappings (inside lists, nulls are
/// items and stay): what RFC 7396 makes of a patch applied to nothing.
pub(super) fn without_null_members(v: &J) -> Option<J> {
    match v {
        J::Null => None,
        J::Object(m) => Some(J::Object(
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), without_null_members(v)?)))
                .collect(),
        )),
        other => Some(other.clone()),
    }
}

/// The document with `~` and `=` taken off its keys.
pub(super) fn plain_keys(v: &J) -> J {
    match v {
        J::Object(m) => {
            let mut out = Map::new();
            for (k, v) in m {
                out.entry(split(k).0.to_string())
                    .or_insert_with(|| plain_keys(v));
            }
            J::Object(out)
        }
        J::Array(items) => J::Array(items.iter().map(plain_keys).collect()),
        other => other.clone(),
    }
}

/// Whether a mapping (not inside a list) holds a constant set to null.
pub(super) fn null_constant(v: &J) -> bool {
    v.as_object().is_some_and(|m| {
        m.iter().any(|(k, v)| {
            (split(k).1 == crate::syntax::prefix::Prefix::Constant && v.is_null())
                || null_constant(v)
        })
    })
}

/// Whether a string anywhere in the document starts with `--`.
pub(super) fn has_marker(v: &J) -> bool {
    match v {
        J::String(s) => s.starts_with("--"),
        J::Array(items) => items.iter().any(has_marker),
        J::Object(m) => m.values().any(has_marker),
        _ => false,
    }
}
