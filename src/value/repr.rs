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
        let hidden = c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}');
        if hidden && !keep.contains(&c) {
            out.extend(c.escape_default());
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
