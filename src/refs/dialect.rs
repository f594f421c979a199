//! How references are written and rendered: beryl's way, or reclass's
//! (kapicorp-reclass 2.0). The compile stage picks one [`Dialect`] for the
//! whole run (`compile::Dialect`, from the inventory's flavor); beryl's is the
//! default, and nothing else in refs asks which one is in force.
//!
//! | | beryl | reclass |
//! |---|---|---|
//! | path | dotted, quoted segments (`${a."b.c"}`) | keys joined by `:` (`${a:b.c}`) |
//! | escapes | `\${`, `\\${` | also `\}` and `\\}` inside a reference |
//! | a value inside a longer string | scalars only (`refs::embed`) | Python's `str()` |
//! | a missing reference in an overwritten value | an error where it is resolved | a warning (`refs::missing_overwritten`) |

use crate::syntax::template::Grammar;
use crate::value::{Node, Value};

/// How the paths of references are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Paths {
    /// beryl's dotted paths (crate::syntax::path::parse).
    #[default]
    Dotted,
    /// reclass's: keys joined by `delimiter`, dots plain, no quoting.
    Delimited { delimiter: char },
}

/// How a referenced value is written inside a longer string.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Render {
    /// Strings, numbers and booleans as beryl writes them (`true`); a
    /// mapping, list or null is an error (`refs::embed`).
    #[default]
    Scalars,
    /// Python's `str()`, as reclass writes every value: `True`, `None`,
    /// `1e+16`, `{'a': [1, 'x']}`.
    Python,
}

/// The dialect of references.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dialect {
    pub paths: Paths,
    pub render: Render,
    /// reclass's `ignore_overwritten_missing_references`: a value whose
    /// reference is missing is skipped (a warning) when a higher value
    /// overwrites it and the lower values merged so far are not a mapping
    /// or list; the error stands if the final value is a mapping or list.
    pub missing_overwritten: bool,
}

impl Default for Dialect {
    fn default() -> Self {
        Self::beryl()
    }
}

impl Dialect {
    /// beryl's references.
    pub const fn beryl() -> Self {
        Dialect {
            paths: Paths::Dotted,
            render: Render::Scalars,
            missing_overwritten: false,
        }
    }

    /// kapicorp-reclass 2.0's, with its defaults (`delimiter: ':'`,
    /// `ignore_overwritten_missing_references: true`).
    pub const fn reclass() -> Self {
        Dialect {
            paths: Paths::Delimited { delimiter: ':' },
            render: Render::Python,
            missing_overwritten: true,
        }
    }

    pub(crate) fn grammar(&self) -> Grammar {
        match self.paths {
            Paths::Dotted => Grammar::Beryl,
            Paths::Delimited { .. } => Grammar::Reclass,
        }
    }

    /// A path as written in a reference, split into keys; `Err` with the
    /// message when it does not parse.
    pub(crate) fn keys(&self, text: &str) -> Result<Vec<String>, String> {
        match self.paths {
            Paths::Dotted => crate::syntax::path::parse(text)
                .map(|segs| segs.into_iter().map(|s| s.text).collect())
                .map_err(|e| e.to_string()),
            Paths::Delimited { delimiter } => Ok(crate::syntax::path::split(text, delimiter)),
        }
    }

    /// A path of keys as this dialect writes it, for messages.
    pub(crate) fn show(&self, keys: &[String]) -> String {
        match self.paths {
            Paths::Dotted => crate::syntax::path::display(keys),
            Paths::Delimited { delimiter } => keys.join(&delimiter.to_string()),
        }
    }
}

/// Python's `str()` of a value: a string as it is, anything else as
/// [`python_repr`].
pub(crate) fn python_str(node: &Node) -> String {
    match &node.value {
        Value::Str(s) => s.clone(),
        _ => {
            let mut out = String::new();
            python_repr(node, &mut out);
            out
        }
    }
}

/// Python's `repr()` of a value, as `str()` writes lists and dicts.
pub(crate) fn python_repr(node: &Node, out: &mut String) {
    crate::value::repr::write(node, &PYTHON, out);
}

/// Python's spellings.
const PYTHON: crate::value::repr::Style = crate::value::repr::Style {
    null: "None",
    bools: ["False", "True"],
    pair: ": ",
    string: python_string,
    number: |node, out| match node.value {
        Value::Float(f) => out.push_str(&python_float(f)),
        Value::Int(i) => out.push_str(&i.to_string()),
        _ => {}
    },
};

/// Python's `repr()` of a float: the shortest digits that read back, in
/// positional notation when the decimal exponent is from -4 to 15, else in
/// scientific notation with a signed exponent of at least two digits
/// ([`crate::yaml::python_float`], which names the infinities and NaN as
/// JSON does; Python's own names are these).
pub(crate) fn python_float(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    crate::yaml::python_float(f)
}

/// Python's `repr()` of a string: single quotes, unless the string holds
/// a `'` and no `"`; `\\`, `\n`, `\r`, `\t` and the quote escaped; other
/// characters Python does not print as `\xNN`, `\uNNNN` or `\UNNNNNNNN`.
fn python_string(s: &str, out: &mut String) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !printable(c) => {
                let n = c as u32;
                let escaped = if n < 0x100 {
                    format!("\\x{n:02x}")
                } else if n < 0x10000 {
                    format!("\\u{n:04x}")
                } else {
                    format!("\\U{n:08x}")
                };
                out.push_str(&escaped);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

/// Python's `str.isprintable()`, for the characters that matter in
/// configuration: control characters and separators other than the space
/// are not printable. (Unassigned and private-use code points, which
/// Python also escapes, are printed as they are.)
fn printable(c: char) -> bool {
    !(c.is_control()
        || (c.is_whitespace() && c != ' ')
        || matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}' | '\u{feff}'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Entry, Map, Span};

    fn n(v: Value) -> Node {
        Node::new(v, Span::synthetic())
    }
    fn s(x: &str) -> Node {
        n(Value::Str(x.into()))
    }

    // Every expected value below was checked against kapicorp-reclass 2.0.0
    // (`"${x}"` inside a longer string, under Python 3.11).
    #[test]
    fn floats_as_python_writes_them() {
        let cases = [
            (1.0, "1.0"),
            (1.5e16, "1.5e+16"),
            (0.00001, "1e-05"),
            (100000000000000.0, "100000000000000.0"),
            (1e16, "1e+16"),
            (f64::INFINITY, "inf"),
            (-0.0, "-0.0"),
            (0.0001, "0.0001"),
            (-2.5, "-2.5"),
            (123.456, "123.456"),
            (1e-300, "1e-300"),
            (f64::NAN, "nan"),
        ];
        for (f, want) in cases {
            assert_eq!(python_float(f), want, "{f}");
        }
    }

    #[test]
    fn scalars_lists_and_mappings_as_python_str() {
        assert_eq!(python_str(&n(Value::Bool(true))), "True");
        assert_eq!(python_str(&n(Value::Null)), "None");
        assert_eq!(python_str(&n(Value::Int(360))), "360");
        assert_eq!(python_str(&s("it's")), "it's");
        let list = n(Value::Seq(vec![n(Value::Int(1)), s("a")]));
        assert_eq!(python_str(&list), "[1, 'a']");
        let mut m = Map::new();
        let mut put = |k: &str, v: Node| {
            m.insert(
                k.into(),
                Entry {
                    key_span: Span::synthetic(),
                    node: v,
                },
            );
        };
        put("a", n(Value::Int(1)));
        put("b", n(Value::Seq(vec![n(Value::Int(1)), s("x")])));
        put("c", n(Value::Map(Map::new())));
        put("e", n(Value::Seq(vec![])));
        put("n", n(Value::Null));
        put("t", n(Value::Bool(true)));
        assert_eq!(
            python_str(&n(Value::Map(m))),
            "{'a': 1, 'b': [1, 'x'], 'c': {}, 'e': [], 'n': None, 't': True}"
        );
    }

    #[test]
    fn strings_quoted_and_escaped_as_python_repr() {
        let list = n(Value::Seq(vec![s("it's"), s("say \"hi\""), s("a\tb")]));
        assert_eq!(python_str(&list), r#"["it's", 'say "hi"', 'a\tb']"#);
        let list = n(Value::Seq(vec![
            s("it's \"x\""),
            s("\u{1}é\u{a0}\n\u{7f}\u{2028}"),
        ]));
        assert_eq!(
            python_str(&list),
            r#"['it\'s "x"', '\x01é\xa0\n\x7f\u2028']"#
        );
        let mut out = String::new();
        python_repr(&s("back\\slash"), &mut out);
        assert_eq!(out, r"'back\\slash'");
    }

    #[test]
    fn paths_in_each_dialect() {
        let r = Dialect::reclass();
        assert_eq!(r.keys("a:b.c").unwrap(), ["a", "b.c"]);
        assert_eq!(r.show(&["a".into(), "b.c".into()]), "a:b.c");
        let b = Dialect::beryl();
        assert_eq!(b.keys(r#"a."b.c""#).unwrap(), ["a", "b.c"]);
        assert!(b.keys("a..b").is_err());
    }
}
