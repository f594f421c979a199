//! The dotted path syntax shared by `merge:` patterns and references.
//!
//! A path is a list of segments joined by `.`. A segment that contains `.`,
//! `*`, `"` or `\`, starts with `^`, or is empty is written in double quotes,
//! with `\"` and `\\` as its only escapes: `sysctl."net.inet.ip.forwarding"`;
//! beryl also quotes a segment holding `/`, `[` or `]` when it writes one.
//! Entry points: [`parse`] and [`display`], the one spelling of a place of a
//! config tree in what beryl prints.

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
    let mut segments = Vec::new();
    let mut chars = text.char_indices().peekable();
    loop {
        let start = chars.peek().map_or(text.len(), |(i, _)| *i);
        let segment = if let Some((_, '"')) = chars.peek() {
            chars.next();
            let mut out = String::new();
            loop {
                match chars.next() {
                    Some((_, '"')) => break,
                    Some((i, '\\')) => match chars.next() {
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
            Segment {
                text: out,
                quoted: true,
            }
        } else {
            let mut out = String::new();
            while let Some(&(i, c)) = chars.peek() {
                match c {
                    '.' => break,
                    '"' | '\\' => {
                        return Err(error(
                            i,
                            format!("`{c}` may appear only inside a quoted segment"),
                        ));
                    }
                    _ => {
                        out.push(c);
                        chars.next();
                    }
                }
            }
            if out.is_empty() {
                return Err(error(
                    start,
                    "empty segment (write `\"\"` for an empty key)",
                ));
            }
            if out.contains('*') && out != "*" {
                return Err(error(
                    start,
                    format!("`*` must be a whole segment; quote `{out}` to mean the literal key"),
                ));
            }
            Segment {
                text: out,
                quoted: false,
            }
        };
        segments.push(segment);
        match chars.next() {
            None => return Ok(segments),
            Some((_, '.')) if chars.peek().is_none() => {
                return Err(error(text.len(), "a path cannot end with `.`"));
            }
            Some((_, '.')) => {}
            Some((i, c)) => {
                return Err(error(
                    i,
                    format!("expected `.` after a quoted segment, found `{c}`"),
                ));
            }
        }
    }
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
/// does not read as the file `/etc/motd.mode`) or `[`, `]` (which a reader
/// may take for a list item).
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

/// Writes a path of keys in the dotted syntax that [`parse`] reads back.
/// This is the one spelling of a place of a config tree in everything beryl
/// prints (messages, `explain`, `diff`, `lookup --explain`): keys dotted,
/// quoted when [`segment`] says so; a list item as one more segment, named by
/// its key field where its list has one (`freebsd.users.alice.shell`), else
/// by its position (`freebsd.packages.3`).
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
            let back: Vec<String> = parse(&shown).unwrap().into_iter().map(|s| s.text).collect();
            assert_eq!(back, keys, "{shown}");
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
}
