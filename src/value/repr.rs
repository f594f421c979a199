//! A value written as a scripting language's `repr` writes it: lists in
//! brackets, mappings in braces, scalars in the language's spelling. One
//! [`Style`] row per language: Python's `repr()` (reclass's values inside
//! strings, refs::dialect) and Ruby's `inspect` (`beryl lookup --render-as
//! s`, output::lookup).

use super::{Node, Value};

/// Text fit for a terminal or a one-line comment: control characters
/// (escape sequences move the cursor, set the title or the clipboard) and
/// Unicode line breaks are written as escapes (`\u{1b}`), except those of
/// `keep` (a tab in a file's line, a newline between lines).
pub(crate) fn visible(text: &str, keep: &[char]) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if hidden(c) && !keep.contains(&c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A character [`visible`] writes as an escape.
fn hidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
}

/// JSON text as serde_json writes it, fit for a terminal: the characters
/// [`visible`] hides that serde_json leaves raw in strings (DEL, the C1
/// controls such as U+009B, a CSI; U+2028, U+2029, U+FEFF) written as
/// `\uXXXX`, which reads back the same. serde_json escapes the other
/// controls itself, so a raw newline is the document's own layout, kept.
pub(crate) fn visible_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if hidden(c) && c != '\n' {
            // All of them are in the Basic Multilingual Plane.
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// A language's spellings.
pub(crate) struct Style {
    pub null: &'static str,
    /// `false`, then `true`.
    pub bools: [&'static str; 2],
    /// Between a mapping's key and its value.
    pub pair: &'static str,
    /// A string, quoted and escaped (keys too).
    pub string: fn(&str, &mut String),
    /// An integer or a float.
    pub number: fn(&Node, &mut String),
}

/// Writes `node` in `style` to `out`.
pub(crate) fn write(node: &Node, style: &Style, out: &mut String) {
    let sep = |i: usize, out: &mut String| {
        if i > 0 {
            out.push_str(", ");
        }
    };
    match &node.value {
        Value::Null => out.push_str(style.null),
        Value::Bool(b) => out.push_str(style.bools[usize::from(*b)]),
        Value::Int(_) | Value::Float(_) => (style.number)(node, out),
        Value::Str(s) => (style.string)(s, out),
        Value::Seq(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                sep(i, out);
                write(item, style, out);
            }
            out.push(']');
        }
        Value::Map(map) => {
            out.push('{');
            for (i, (k, e)) in map.iter().enumerate() {
                sep(i, out);
                (style.string)(k, out);
                out.push_str(style.pair);
                write(&e.node, style, out);
            }
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_shown_never_obeyed() {
        assert_eq!(
            visible("a\u{1b}]0;t\u{7}\u{1b}[2J\u{9b}1m\tb\n", &['\t']),
            "a\\u{1b}]0;t\\u{7}\\u{1b}[2J\\u{9b}1m\tb\\n"
        );
    }

    /// What serde_json leaves raw (DEL, C1, U+2028) becomes `\uXXXX`: the
    /// JSON reads back the same value and holds no control character.
    #[test]
    fn json_keeps_its_value_and_shows_no_control() {
        let value = serde_json::json!({"m": "a\u{1b}[2J\u{7f}\u{9b}31m\u{2028}\u{feff}b"});
        let json = serde_json::to_string_pretty(&value).unwrap();
        let shown = visible_json(&json);
        assert!(!shown.chars().any(|c| hidden(c) && c != '\n'), "{shown}");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&shown).unwrap(),
            value
        );
    }
}
