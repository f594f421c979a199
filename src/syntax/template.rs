//! The `${…}` syntax inside a string: literal text and references, which nest.
//!
//! `\${` is a literal `${`; `\\${x}` is a backslash followed by the value of
//! `x`. Any other backslash is kept as written. Entry point: [`parse`], or
//! [`parse_in`] for reclass's grammar ([`Grammar::Reclass`]), which also
//! reads `\}` inside a reference as a literal `}` (and `\\}` as a backslash
//! before the closing `}`), as kapicorp-reclass 2.0 does.

/// The most `${` one string may nest (`${a.${b}}` nests two). Parsing is
/// recursive, so the limit keeps a hostile string (200,000 nested `${` fit in
/// a 600 kB file) from overflowing the stack. It is the default reference
/// depth, a fixed cap: no real path is built from 64 nested references.
pub(crate) const MAX_NESTING: usize = 64;

/// Which escapes a string's references take.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Grammar {
    /// beryl's: `\${` and `\\${`.
    #[default]
    Beryl,
    /// kapicorp-reclass 2.0's: beryl's, and inside a reference `\}` (a
    /// literal `}`) and `\\}` (a backslash, then the closing `}`).
    Reclass,
}

/// One piece of a string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    Text(String),
    /// A reference; its path may itself hold references (`${a.${b}}`).
    Ref(Vec<Part>),
}

/// A parse error, with the byte offset of the offending `${`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TemplateError {
    pub offset: usize,
    pub message: String,
}

/// True when the string may hold a reference (the cheap test before parsing).
pub(crate) fn has_reference(s: &str) -> bool {
    s.contains("${")
}

/// Parses a string into text and references. A string without `${` is one
/// text part (escapes are only undone where a `${` follows).
pub(crate) fn parse(s: &str) -> Result<Vec<Part>, TemplateError> {
    parse_in(s, Grammar::Beryl)
}

/// Parses a string with the escapes of `grammar`.
pub(crate) fn parse_in(s: &str, grammar: Grammar) -> Result<Vec<Part>, TemplateError> {
    let mut p = Parser {
        s,
        bytes: s.as_bytes(),
        i: 0,
        depth: 0,
        grammar,
    };
    let parts = p.parts(false)?;
    Ok(parts)
}

/// True when the parts are exactly one reference: the value keeps its type.
pub(crate) fn is_whole(parts: &[Part]) -> bool {
    matches!(parts, [Part::Ref(_)])
}

/// True when the string is exactly one reference (its value keeps its type).
pub(crate) fn is_whole_reference(s: &str) -> bool {
    has_reference(s) && parse(s).is_ok_and(|p| is_whole(&p))
}

struct Parser<'a> {
    s: &'a str,
    bytes: &'a [u8],
    i: usize,
    /// How many `${` enclose the current position.
    depth: usize,
    grammar: Grammar,
}

impl Parser<'_> {
    /// Reads parts up to the end, or up to the `}` closing a reference.
    fn parts(&mut self, inside: bool) -> Result<Vec<Part>, TemplateError> {
        let mut parts = Vec::new();
        let mut text = String::new();
        let start = self.i;
        while self.i < self.bytes.len() {
            let rest = &self.bytes[self.i..];
            if rest.starts_with(b"\\\\${") {
                text.push('\\');
                self.i += 2;
            } else if rest.starts_with(b"\\${") {
                text.push_str("${");
                self.i += 3;
            } else if inside && self.grammar == Grammar::Reclass && rest.starts_with(b"\\\\}") {
                text.push('\\');
                self.i += 2;
            } else if inside && self.grammar == Grammar::Reclass && rest.starts_with(b"\\}") {
                text.push('}');
                self.i += 2;
            } else if rest.starts_with(b"${") {
                if !text.is_empty() {
                    parts.push(Part::Text(std::mem::take(&mut text)));
                }
                let open = self.i;
                if self.depth >= MAX_NESTING {
                    return Err(TemplateError {
                        offset: open,
                        message: format!("references nest more than {} deep", MAX_NESTING),
                    });
                }
                self.i += 2;
                self.depth += 1;
                let inner = self.parts(true)?;
                self.depth -= 1;
                if self.bytes.get(self.i) != Some(&b'}') {
                    return Err(TemplateError {
                        offset: open,
                        message: "`${` is never closed by `}`".into(),
                    });
                }
                self.i += 1;
                if inner.is_empty() {
                    return Err(TemplateError {
                        offset: open,
                        message: "empty reference `${}`".into(),
                    });
                }
                parts.push(Part::Ref(inner));
            } else if inside && rest[0] == b'}' {
                break;
            } else {
                let c = self.s[self.i..].chars().next().unwrap_or_default();
                text.push(c);
                self.i += c.len_utf8().max(1);
            }
        }
        let _ = start;
        if !text.is_empty() {
            parts.push(Part::Text(text));
        }
        Ok(parts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Part {
        Part::Text(s.into())
    }

    #[test]
    fn text_refs_and_nesting() {
        assert_eq!(parse("plain").unwrap(), [t("plain")]);
        assert_eq!(parse("${a.b}").unwrap(), [Part::Ref(vec![t("a.b")])]);
        assert_eq!(
            parse("host-${n}.lan").unwrap(),
            [t("host-"), Part::Ref(vec![t("n")]), t(".lan")]
        );
        assert_eq!(
            parse("${a.${b}}").unwrap(),
            [Part::Ref(vec![t("a."), Part::Ref(vec![t("b")])])]
        );
        assert!(is_whole(&parse("${x}").unwrap()));
        assert!(!is_whole(&parse(" ${x}").unwrap()));
    }

    #[test]
    fn escapes() {
        assert_eq!(parse(r"\${x}").unwrap(), [t("${x}")]);
        assert_eq!(
            parse(r"\\${x}").unwrap(),
            [t("\\"), Part::Ref(vec![t("x")])]
        );
        assert_eq!(parse(r"a\b").unwrap(), [t(r"a\b")]);
        assert_eq!(parse("{x}}").unwrap(), [t("{x}}")]);
    }

    #[test]
    fn reclass_escapes_a_closing_brace_inside_a_reference() {
        let r = |s: &str| parse_in(s, Grammar::Reclass).unwrap();
        assert_eq!(r(r"${a\}b}"), [Part::Ref(vec![t("a}b")])]);
        assert_eq!(r(r"${a\\}b"), [Part::Ref(vec![t("a\\")]), t("b")]);
        assert_eq!(r(r"\${x} \\${y}"), [t("${x} \\"), Part::Ref(vec![t("y")])]);
        // Outside a reference, and in beryl's grammar, `\}` is as written.
        assert_eq!(r(r"a\}"), [t(r"a\}")]);
        assert_eq!(
            parse(r"${a\}b}").unwrap(),
            [Part::Ref(vec![t(r"a\")]), t("b}")]
        );
    }

    #[test]
    fn errors() {
        assert_eq!(parse("a ${x").unwrap_err().offset, 2);
        assert_eq!(parse("${}").unwrap_err().message, "empty reference `${}`");
        assert_eq!(parse("${a.${b}").unwrap_err().offset, 0);
    }
}
