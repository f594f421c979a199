//! The dotted path syntax shared by `merge:` patterns and references.
//!
//! A path is a list of segments joined by `.`. A segment that contains `.`,
//! `*`, `"` or `\`, starts with `^`, or is empty is written in double quotes,
//! with `\"` and `\\` as its only escapes: `sysctl."net.inet.ip.forwarding"`;
//! beryl also quotes a segment holding `/`, `[` or `]` when it writes one.
//! Entry points: [`parse`] and [`display`], the one spelling of a place of a
//! config tree in what beryl prints; [`parse_place`] reads that spelling and
//! the bracketed list items of older messages (`freebsd.users[alice]`), for
//! the commands that take a place (`explain`, `lookup`).

use std::fmt;

/// One segment as written: `quoted` tells `"*"` (a literal star) from `*`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Segment {
    pub text: String,
    pub quoted: bool,
}

/// Why a path did not parse, with the byte offset in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PathError {
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at character {})", self.message, self.offset + 1)
    }
}

fn error(offset: usize, message: impl Into<String>) -> PathError {
    PathError {
        offset,
        message: message.into(),
    }
}

/// Parses a dotted path into its segments.
pub(crate) fn parse(text: &str) -> Result<Vec<Segment>, PathError> {
    Parser::new(text, false).path()
}

/// Parses a path that names a place of a config tree, as `beryl explain`
/// and `beryl lookup` read it: the dotted path of [`parse`], and also a list
/// item in brackets after a segment, by its key or position
/// (`freebsd.users[alice].shell`, `freebsd.packages[3]`,
/// `freebsd.files["/etc/pf.conf"]`), which is one more segment: every
/// spelling of a place that beryl ever printed reads as the place
/// [`display`] writes. An unquoted segment may not hold `[` or `]` here
/// ([`display`] quotes them).
pub(crate) fn parse_place(text: &str) -> Result<Vec<Segment>, PathError> {
    Parser::new(text, true).path()
}

/// A path being read; `items` reads `[…]` list items.
struct Parser<'t> {
    text: &'t str,
    chars: std::iter::Peekable<std::str::CharIndices<'t>>,
    items: bool,
}

impl<'t> Parser<'t> {
    fn new(text: &'t str, items: bool) -> Self {
        Parser {
            text,
            chars: text.char_indices().peekable(),
            items,
        }
    }

    fn at(&mut self) -> usize {
        self.chars.peek().map_or(self.text.len(), |(i, _)| *i)
    }

    fn path(mut self) -> Result<Vec<Segment>, PathError> {
        let mut segments = Vec::new();
        loop {
            let quoted = self.chars.peek().is_some_and(|(_, c)| *c == '"');
            segments.push(self.segment()?);
            let mut after = if quoted {
                "a quoted segment"
            } else {
                "a segment"
            };
            while self.items && self.chars.peek().is_some_and(|(_, c)| *c == '[') {
                self.chars.next();
                segments.push(self.item()?);
                after = "`]`";
            }
            match self.chars.next() {
                None => return Ok(segments),
                Some((_, '.')) if self.chars.peek().is_none() => {
                    return Err(error(self.text.len(), "a path cannot end with `.`"));
                }
                Some((_, '.')) => {}
                Some((i, c)) => {
                    return Err(error(i, format!("expected `.` after {after}, found `{c}`")));
                }
            }
        }
    }

    /// A segment: quoted, or bare up to the next `.` (or `[`).
    fn segment(&mut self) -> Result<Segment, PathError> {
        if let Some((_, '"')) = self.chars.peek() {
            return self.quoted();
        }
        let start = self.at();
        let stops: &[char] = if self.items { &['.', '['] } else { &['.'] };
        let text = self.bare(stops)?;
        if text.is_empty() {
            return Err(error(
                start,
                "empty segment (write `\"\"` for an empty key)",
            ));
        }
        star(&text, start)?;
        Ok(Segment {
            text,
            quoted: false,
        })
    }

    /// A list item after its `[`: quoted, or bare up to the `]`.
    fn item(&mut self) -> Result<Segment, PathError> {
        let open = self.at().saturating_sub(1);
        let item = if let Some((_, '"')) = self.chars.peek() {
            self.quoted()?
        } else {
            let start = self.at();
            let text = self.bare(&[']'])?;
            if text.is_empty() {
                return Err(error(
                    open,
                    "empty `[]`: name the list item by its key or position, such as `[alice]` or `[0]`",
                ));
            }
            star(&text, start)?;
            Segment {
                text,
                quoted: false,
            }
        };
        match self.chars.next() {
            Some((_, ']')) => Ok(item),
            _ => Err(error(open, "unclosed `[`")),
        }
    }

    /// Characters up to one of `stops`, refusing those that only a quoted
    /// segment may hold (and, where items are read, a stray `[` or `]`).
    fn bare(&mut self, stops: &[char]) -> Result<String, PathError> {
        let mut out = String::new();
        while let Some(&(i, c)) = self.chars.peek() {
            if stops.contains(&c) {
                break;
            }
            let why = match c {
                '"' | '\\' => "may appear only inside a quoted segment",
                '[' | ']' if self.items => {
                    "may appear only inside a quoted segment or around a list item"
                }
                _ => {
                    out.push(c);
                    self.chars.next();
                    continue;
                }
            };
            return Err(error(i, format!("`{c}` {why}")));
        }
        Ok(out)
    }

    /// A quoted segment, from its opening quote.
    fn quoted(&mut self) -> Result<Segment, PathError> {
        let start = self.at();
        self.chars.next();
        let mut out = String::new();
        loop {
            match self.chars.next() {
                Some((_, '"')) => break,
                Some((i, '\\')) => match self.chars.next() {
                    Some((_, c @ ('"' | '\\'))) => out.push(c),
                    _ => {
                        return Err(error(
                            i,
                            "only `\\\"` and `\\\\` may follow `\\` in a quoted segment",
                        ));
                    }
                },
                Some((_, c)) => out.push(c),
                None => return Err(error(start, "unclosed quote")),
            }
        }
        Ok(Segment {
            text: out,
            quoted: true,
        })
    }
}

/// A `*` must be a whole unquoted segment.
fn star(text: &str, start: usize) -> Result<(), PathError> {
    if text.contains('*') && text != "*" {
        return Err(error(
            start,
            format!("`*` must be a whole segment; quote `{text}` to mean the literal key"),
        ));
    }
    Ok(())
}

/// Splits a reference's path in reclass's syntax: keys joined by
/// `delimiter`, with no quoting, so `a:b.c` is the key `b.c` under `a`. A
/// delimiter right after `\\` does not split, and the `\\` stays in the key;
/// empty keys are kept (they name nothing). This is kapicorp-reclass 2.0's
/// DictPath, which splits on the delimiter not preceded by a backslash.
pub(crate) fn split(text: &str, delimiter: char) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut previous = None;
    for c in text.chars() {
        if c == delimiter && previous != Some('\\') {
            out.push(String::new());
        } else if let Some(last) = out.last_mut() {
            last.push(c);
        }
        previous = Some(c);
    }
    out
}

/// True when a key must be quoted for [`parse`] to read it as one segment.
pub(crate) fn needs_quotes(key: &str) -> bool {
    key.is_empty() || key.starts_with('^') || key.contains(['.', '*', '"', '\\'])
}

/// True when [`segment`] writes a key quoted: when it must be, and when it
/// holds `/` (a file path or a dataset: `freebsd.files."/etc/motd".mode`
/// does not read as the file `/etc/motd.mode`) or `[`, `]` (which
/// [`parse_place`] reads around a list item).
fn quoted_when_shown(key: &str) -> bool {
    needs_quotes(key) || key.contains(['/', '[', ']'])
}

/// Writes one key as a segment, quoting it when needed.
pub(crate) fn segment(key: &str) -> String {
    if !quoted_when_shown(key) {
        return key.to_string();
    }
    let mut out = String::with_capacity(key.len() + 2);
    out.push('"');
    for c in key.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// Writes a path of keys in the dotted syntax that [`parse`] and
/// [`parse_place`] read back. This is the one spelling of a place of a
/// config tree in everything beryl prints (messages, `explain`, `diff`,
/// `lookup --explain`): keys dotted, quoted when [`segment`] says so; a list
/// item as one more segment, named by its key field where its list has one
/// (`freebsd.users.alice.shell`), else by its position (`freebsd.packages.3`).
pub(crate) fn display<S: AsRef<str>>(keys: &[S]) -> String {
    keys.iter()
        .map(|k| segment(k.as_ref()))
        .collect::<Vec<_>>()
        .join(".")
}

/// The path of `key` under the place written `parent` (as [`display`]
/// wrote it): what [`display`] writes for the keys of `parent` and `key`.
pub(crate) fn child(parent: &str, key: &str) -> String {
    format!("{parent}.{}", segment(key))
}

/// The path of the item at `index` of the list written `list`, named by
/// its position: `freebsd.packages.3`.
pub(crate) fn item(list: &str, index: usize) -> String {
    format!("{list}.{index}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(p: &str) -> Vec<(String, bool)> {
        parse(p)
            .unwrap()
            .into_iter()
            .map(|s| (s.text, s.quoted))
            .collect()
    }

    #[test]
    fn plain_quoted_and_star_segments() {
        assert_eq!(
            texts(r#"sysctl."net.inet.ip.forwarding""#),
            [
                ("sysctl".into(), false),
                ("net.inet.ip.forwarding".into(), true)
            ]
        );
        assert_eq!(
            texts(r#"a.*."*"."x\"y\\z""#),
            [
                ("a".into(), false),
                ("*".into(), false),
                ("*".into(), true),
                ("x\"y\\z".into(), true)
            ]
        );
        assert_eq!(texts(r#""""#), [(String::new(), true)]);
    }

    #[test]
    fn errors_name_the_position() {
        let e = |p: &str| parse(p).unwrap_err();
        assert_eq!(e("a..b").offset, 2);
        assert_eq!(e("a.").offset, 2);
        assert_eq!(e(r#"a."b"#).message, "unclosed quote");
        assert_eq!(e("a.b*").offset, 2);
        assert_eq!(e(r#""a"b"#).offset, 3);
        assert_eq!(e(r#"a"b"#).offset, 1);
        assert!(e("").message.contains("empty segment"));
    }

    #[test]
    fn reclass_paths_split_on_the_delimiter_only() {
        // Checked against kapicorp-reclass 2.0.0: `${dotted:b.c}` reads the
        // key `b.c` under `dotted`.
        assert_eq!(split("dotted:b.c", ':'), ["dotted", "b.c"]);
        assert_eq!(split("a", ':'), ["a"]);
        assert_eq!(split(r"a\:b:c", ':'), [r"a\:b", "c"]);
        assert_eq!(split("a::b", ':'), ["a", "", "b"]);
        assert_eq!(split("a.b", '.'), ["a", "b"]);
    }

    #[test]
    fn display_round_trips() {
        for keys in [
            vec!["a", "b"],
            vec!["net.inet", "*", "", "q\"\\", "^x"],
            vec!["files", "/etc/motd", "k[1]", "]"],
        ] {
            let shown = display(&keys);
            for read in [parse, parse_place] {
                let back: Vec<String> = read(&shown).unwrap().into_iter().map(|s| s.text).collect();
                assert_eq!(back, keys, "{shown}");
            }
        }
        assert_eq!(display(&["a", "b.c"]), r#"a."b.c""#);
    }

    #[test]
    fn one_spelling_of_a_place() {
        assert_eq!(
            display(&["freebsd", "users", "alice", "shell"]),
            "freebsd.users.alice.shell"
        );
        assert_eq!(display(&["freebsd", "packages", "3"]), "freebsd.packages.3");
        // A key holding `/` is quoted, whether or not it holds a `.`.
        assert_eq!(
            display(&["freebsd", "files", "/etc/motd", "mode"]),
            r#"freebsd.files."/etc/motd".mode"#
        );
        assert_eq!(
            display(&["freebsd", "zfs", "datasets", "tank/pg"]),
            r#"freebsd.zfs.datasets."tank/pg""#
        );
        // Built a step at a time, the same text.
        let users = child("freebsd", "users");
        assert_eq!(
            child(&child(&users, "alice"), "shell"),
            "freebsd.users.alice.shell"
        );
        assert_eq!(item(&child("freebsd", "packages"), 3), "freebsd.packages.3");
        assert_eq!(
            child(&child("freebsd", "files"), "/etc/x"),
            display(&["freebsd", "files", "/etc/x"])
        );
    }

    fn place(p: &str) -> Vec<String> {
        parse_place(p)
            .unwrap()
            .into_iter()
            .map(|s| s.text)
            .collect()
    }

    #[test]
    fn a_place_reads_every_spelling_of_a_list_item() {
        let alice = ["freebsd", "users", "alice", "shell"];
        for p in [
            "freebsd.users.alice.shell",
            "freebsd.users[alice].shell",
            r#"freebsd.users["alice"].shell"#,
            r#"freebsd.users."alice".shell"#,
        ] {
            assert_eq!(place(p), alice, "{p}");
        }
        for p in ["freebsd.packages.3", "freebsd.packages[3]"] {
            assert_eq!(place(p), ["freebsd", "packages", "3"], "{p}");
        }
        let motd = ["freebsd", "files", "/etc/motd", "mode"];
        for p in [
            "freebsd.files./etc/motd.mode",
            r#"freebsd.files."/etc/motd".mode"#,
            r#"freebsd.files["/etc/motd"].mode"#,
            "freebsd.files[/etc/motd].mode",
        ] {
            assert_eq!(place(p), motd, "{p}");
        }
        // Items in a row, an item at the end, a dotted name in brackets.
        assert_eq!(place("a[0][1]"), ["a", "0", "1"]);
        assert_eq!(place("a.b[x]"), ["a", "b", "x"]);
        assert_eq!(place("a[b.c].d"), ["a", "b.c", "d"]);
        assert_eq!(place(r#""a.b"[0]"#), ["a.b", "0"]);
        // `*` stays a bare segment, for the command to refuse.
        let star = parse_place("a[*]").unwrap();
        assert!(star[1].text == "*" && !star[1].quoted);
    }

    #[test]
    fn a_place_refuses_broken_brackets() {
        let e = |p: &str| parse_place(p).unwrap_err();
        assert_eq!(e("a[0").message, "unclosed `[`");
        assert_eq!(e("a[0").offset, 1);
        assert!(e("a[]").message.contains("empty `[]`"));
        assert_eq!(e("a[0]b").offset, 4);
        assert!(e("a[0]b").message.contains("after `]`"));
        assert!(e("a]").message.contains("`]` may appear only"));
        assert!(e("a[b[c]]").message.contains("`[` may appear only"));
        assert!(e("[0]").message.contains("empty segment"));
        assert!(e("a[0].").message.contains("cannot end with `.`"));
        assert!(e("a[x*]").message.contains("whole segment"));
        assert!(e(r#"a["x"y]"#).message.contains("unclosed `[`"));
        // The grammar of `merge:` patterns and references is unchanged:
        // brackets are key characters there.
        assert_eq!(
            parse("a[0].b")
                .unwrap()
                .into_iter()
                .map(|s| s.text)
                .collect::<Vec<_>>(),
            ["a[0]", "b"]
        );
    }
}
