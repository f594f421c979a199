//! `yaml`: the loader on arbitrary bytes.
//!
//! Bytes that are not UTF-8 go through the file reader's check (as a file
//! would); text goes through [`beryl::yaml::parse_any`] and
//! [`beryl::yaml::parse`] with the default limits, except a smaller node
//! budget so that each run stays fast. Every error must render with its
//! snippet; every tree must hold spans inside the text, and write back (YAML
//! and JSON) to a text that reads back as the same tree.

use beryl::value::{Node, Source, Value};
use beryl::yaml::{self, Limits};

use super::common::{report, round_trip};

pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let limits = Limits {
        max_nodes: 20_000,
        ..Limits::default()
    };
    let source = Source::new("fuzz.yml", text);
    match yaml::parse_any(&source, &limits) {
        Ok(node) => {
            spans_fit(&node, text);
            round_trip(&node);
            let as_level = yaml::parse(&source, &limits);
            match (&node.value, as_level) {
                (Value::Map(_) | Value::Null, Ok(_)) => {}
                (Value::Map(_) | Value::Null, Err(d)) => panic!("a mapping refused: {}", d.message),
                (_, Ok(_)) => panic!("a non-mapping root accepted as a level"),
                (_, Err(d)) => report(&[d]),
            }
        }
        Err(d) => report(&[d]),
    }
}

fn spans_fit(node: &Node, text: &str) {
    let fits = |s: &beryl::value::Span| {
        let end = s.offset + s.len;
        end <= text.len() && text.is_char_boundary(s.offset) && text.is_char_boundary(end)
    };
    assert!(fits(&node.span), "a node's span does not fit the text");
    match &node.value {
        Value::Seq(items) => items.iter().for_each(|n| spans_fit(n, text)),
        Value::Map(m) => {
            for e in m.values() {
                assert!(fits(&e.key_span), "a key's span does not fit the text");
                spans_fit(&e.node, text);
            }
        }
        _ => {}
    }
}
