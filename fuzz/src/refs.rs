//! `refs`: the reference resolver on arbitrary `${…}` strings.
//!
//! The input is one string (the first byte chooses where it goes, the rest is
//! the text). It is placed in a small two-level inventory that has every
//! shape the resolver handles: plain values, nested mappings, a `by_key`
//! list addressed by name and by index, a deferred merge (a whole reference
//! meeting a value of another level), a list holding references under
//! `append`, and `_beryl_`-like data. The merged tree is resolved; errors
//! must render, results must write back and read back, and a string without
//! `${` must come out as written.

use beryl::merge::{Policy, merge_documents};
use beryl::value::{Entry, Map, Node, Value};

use super::common::{report, round_trip};
use super::value::Places;

/// Where the string goes: (level, path). A path segment that parses as a
/// number indexes a list.
const SLOTS: &[(usize, &[&str])] = &[
    (0, &["a"]),
    (1, &["a"]),
    (0, &["b", "c"]),
    (1, &["b", "d", "1"]),
    (0, &["k", "0", "v"]),
    (1, &["k", "0", "w"]),
    (1, &["m"]),
    (1, &["l", "0"]),
    (0, &["name"]),
];

pub fn run(data: &[u8]) {
    let Some((&slot, text)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let (level, path) = SLOTS[usize::from(slot) % SLOTS.len()];
    let mut docs = bases().clone();
    place(&mut docs[level], path, text);
    let policy = Policy::beryl();
    let refs: Vec<&Node> = docs.iter().collect();
    let mut merged = match merge_documents(&refs, &policy, None) {
        Ok(m) => m,
        Err(d) => return report(&d),
    };
    match beryl::refs::resolve(&mut merged, &Default::default()) {
        Ok(_) => {
            round_trip(&merged.node);
            if !text.contains("${") && level == 1 && path == ["a"] {
                let got = merged.node.get("a").and_then(Node::as_str);
                assert_eq!(got, Some(text), "a string without a reference changed");
            }
        }
        Err(d) => report(&d),
    }
}

/// The two levels, parsed once.
fn bases() -> &'static [Node; 2] {
    static BASES: std::sync::OnceLock<[Node; 2]> = std::sync::OnceLock::new();
    BASES.get_or_init(|| [base(0), base(1)])
}

/// The two levels, before the string is placed.
fn base(level: usize) -> Node {
    let text = if level == 0 {
        r#"{"merge": {"k": "by_key", "l": "append", "b.d": "append"},
            "a": "x", "b": {"c": 1, "d": ["p", "q"]}, "n": 2, "s": "t",
            "k": [{"name": "u1", "v": "${n}"}, {"name": "u2", "v": 3}],
            "l": ["${s}", "y"], "m": {"x": 1}, "name": "z"}"#
    } else {
        r#"{"a": "${b.c}", "b": {"d": ["${k.u1.v}", "r"]},
            "k": [{"name": "u1", "w": "${k.1.v}"}], "l": ["${a}"],
            "m": "${b}", "o": "${k.u2}-${n}"}"#
    };
    let source = beryl::value::Source::new(format!("level{level}.yml"), text);
    beryl::yaml::parse_any(&source, &Default::default()).expect("the base levels parse")
}

/// Puts `text` at `path` of `doc`, creating mappings (and list items) on the
/// way.
fn place(doc: &mut Node, path: &[&str], text: &str) {
    let mut at = Places::new("placed");
    let mut node = doc;
    for seg in path {
        node = match (&mut node.value, seg.parse::<usize>()) {
            (Value::Seq(items), Ok(i)) => {
                while items.len() <= i {
                    items.push(Node::new(Value::Map(Map::new()), at.span()));
                }
                &mut items[i]
            }
            (Value::Map(m), _) => {
                let key_span = at.span();
                &mut m
                    .entry(seg.to_string())
                    .or_insert(Entry {
                        key_span,
                        node: Node::new(Value::Map(Map::new()), at.span()),
                    })
                    .node
            }
            _ => return,
        };
    }
    *node = Node::new(Value::Str(text.to_string()), at.span());
}
