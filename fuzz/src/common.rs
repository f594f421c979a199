//! Checks shared by the targets.

use beryl::diag::Diag;
use beryl::output::{self, Format};
use beryl::value::{Node, Source, Value};

/// Renders diagnostics as the command line does (miette, with snippets):
/// a span that does not fit its file would panic or fail here.
pub fn report(diags: &[Diag]) {
    let reporter = beryl::cli::Reporter::new(beryl::cli::ColorChoice::Never);
    let text = reporter.render(diags);
    assert!(diags.is_empty() || !text.is_empty());
    for d in diags {
        if let Some(span) = d.span()
            && let Some(source) = &span.source
        {
            let end = span.offset + span.len;
            assert!(end <= source.text.len(), "{}: span past the end", d.code);
            assert!(
                source.text.is_char_boundary(span.offset) && source.text.is_char_boundary(end),
                "{}: span inside a character",
                d.code
            );
        }
    }
}

fn finite(v: &Value) -> bool {
    match v {
        Value::Float(f) => f.is_finite(),
        Value::Seq(items) => items.iter().all(|n| finite(&n.value)),
        Value::Map(m) => m.values().all(|e| finite(&e.node.value)),
        _ => true,
    }
}

/// The length of a key as JSON writes it, quotes and escapes included.
fn json_key_len(k: &str) -> usize {
    let escaped = |c: char| match c {
        '"' | '\\' => 2,
        c if c < ' ' || matches!(c, '\u{7f}'..='\u{9f}' | '\u{fffe}' | '\u{ffff}') => 6,
        _ => 1,
    };
    k.chars().map(escaped).sum::<usize>() + 2
}

/// Whether a key is longer than YAML allows an implicit key (1024
/// characters, quotes included): JSON has no other kind, so such a tree
/// cannot be read back from JSON by a YAML loader (docs/merge.md, §6).
fn long_key(v: &Value) -> bool {
    match v {
        Value::Seq(items) => items.iter().any(|n| long_key(&n.value)),
        Value::Map(m) => m
            .iter()
            .any(|(k, e)| json_key_len(k) > 1024 || long_key(&e.node.value)),
        _ => false,
    }
}

/// A tree written as YAML and as JSON reads back the same through beryl's
/// loader (JSON only when every float is finite, otherwise it must refuse;
/// and when no key is longer than YAML's limit).
pub fn round_trip(node: &Node) {
    for format in [Format::Yaml, Format::Json] {
        if format == Format::Json && long_key(&node.value) {
            continue;
        }
        let text = match output::to_string(node, format) {
            Ok(text) => text,
            Err(d) => {
                assert!(
                    format == Format::Json && !finite(&node.value),
                    "{format:?} refused a tree: {}",
                    d.message
                );
                continue;
            }
        };
        assert!(
            format == Format::Yaml || finite(&node.value),
            "JSON wrote a non-finite float"
        );
        // As beryl reads back what it wrote itself (a render directory).
        let limits = beryl::limits::Limits::for_output(u64::MAX);
        let back = beryl::yaml::parse_any(&Source::new("out", text.clone()), &limits)
            .unwrap_or_else(|d| {
                panic!(
                    "{format:?} output does not read back: {}\n{text}",
                    d.message
                )
            });
        assert!(
            node.value.same_ordered(&back.value),
            "{format:?} output reads back otherwise:\n{text}"
        );
    }
}
