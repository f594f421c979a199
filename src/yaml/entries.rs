//! The top-level entries of a plain block-mapping document, found from its
//! lines without parsing, so that a caller can parse only the entries it
//! needs: a host file read for its exports (src/compile/partial.rs) needs
//! `exports` and the few root keys they read, not the whole file.
//!
//! A document qualifies only when its shape leaves no doubt (else
//! [`entries`] says `None` and the caller parses the whole text):
//!
//! - every line that does not start with a space is blank, a comment, or
//!   `KEY:` followed by a space or the end of the line, where KEY is made of
//!   `[A-Za-z0-9_.+=~/-]` (beryl's root keys and their merge prefixes);
//! - no `&` or `*` anywhere (an alias could name an anchor in an entry that
//!   is left out);
//! - no quoted scalar or flow collection is still open where a line starts
//!   at column 0 (a quote that does not start a scalar counts as one: that
//!   only makes the check stricter).
//!
//! In YAML 1.2 (§8.2.2, `ns-l-block-map-implicit-entry(0)`) everything that
//! belongs to a root entry but its key line is indented by at least one
//! space (`s-indent(1)`), multi-line flow scalars and collections included,
//! so an entry runs from its key line to the next line that starts with a
//! key. The parser beryl uses is more lenient: it reads `a: "x` then
//! `b: y"` at column 0 as one string, hence the third rule.
//! [`Entries::keep`] blanks the other entries byte for byte (line breaks
//! stay), so the kept entries parse at their own lines and columns and
//! their spans point into the real file.

/// A document's top-level entries: each key as written and the byte range
/// of its lines.
pub(crate) struct Entries<'t> {
    text: &'t str,
    entries: Vec<(&'t str, std::ops::Range<usize>)>,
}

/// The entries of `text`, or `None` when its shape is not the plain one
/// described above.
pub(crate) fn entries(text: &str) -> Option<Entries<'_>> {
    if text.bytes().any(|b| b == b'&' || b == b'*') {
        return None;
    }
    let mut entries: Vec<(&str, std::ops::Range<usize>)> = Vec::new();
    let mut at = 0;
    let mut open = Open::default();
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        let column0 = !matches!(body.bytes().next(), None | Some(b' ' | b'#'));
        if column0 && open.any() {
            return None;
        }
        open.scan(body);
        if column0 {
            let key = root_key(body)?;
            if let Some(last) = entries.last_mut() {
                last.1.end = start;
            }
            entries.push((key, start..text.len()));
        }
    }
    Some(Entries { text, entries })
}

/// What is still open at the end of a line: a double- or single-quoted
/// scalar, or flow collections.
#[derive(Default)]
struct Open {
    double: bool,
    single: bool,
    depth: i64,
}

impl Open {
    fn any(&self) -> bool {
        self.double || self.single || self.depth != 0
    }

    /// Goes over one line: quotes, escapes in double quotes, brackets and
    /// braces outside quotes, and a comment (`#` after a blank, outside
    /// quotes) ending the line. A quote opens a scalar only where a token
    /// can start (after a blank, `[`, `{`, `,` or `:`, or at the start of
    /// the line), as in YAML: `it's` is plain. Every bracket counts, even
    /// one inside a plain scalar: an unbalanced one only refuses the file.
    fn scan(&mut self, line: &str) {
        let mut escaped = false;
        let mut before = b' ';
        for b in line.bytes() {
            let token_start = b" \t[{,:".contains(&before);
            match (self.double, self.single) {
                (true, _) => match b {
                    _ if escaped => escaped = false,
                    b'\\' => escaped = true,
                    b'"' => self.double = false,
                    _ => {}
                },
                (_, true) => self.single = b != b'\'',
                _ => match b {
                    b'#' if before == b' ' || before == b'\t' => return,
                    b'"' if token_start => self.double = true,
                    b'\'' if token_start => self.single = true,
                    b'[' | b'{' => self.depth += 1,
                    b']' | b'}' => self.depth -= 1,
                    _ => {}
                },
            }
            before = b;
        }
    }
}

/// The key of a line that starts a root entry: `KEY:` then a space or the
/// end of the line.
fn root_key(line: &str) -> Option<&str> {
    let (key, rest) = line.split_once(':')?;
    let plain = |b: u8| b.is_ascii_alphanumeric() || b"_.+=~/-".contains(&b);
    let ends = rest.is_empty() || rest.starts_with(' ');
    (!key.is_empty() && key.bytes().all(plain) && ends).then_some(key)
}

impl Entries<'_> {
    /// The keys, as written, in order.
    #[cfg(test)]
    pub(crate) fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| *k)
    }

    /// The text with every entry whose key `wanted` refuses blanked: its
    /// bytes become spaces, its line breaks stay.
    pub(crate) fn keep(&self, wanted: impl Fn(&str) -> bool) -> String {
        let mut out = self.text.as_bytes().to_vec();
        for (key, range) in &self.entries {
            if !wanted(key) {
                for b in &mut out[range.clone()] {
                    if *b != b'\n' && *b != b'\r' {
                        *b = b' ';
                    }
                }
            }
        }
        // Only whole entries were blanked, each made of whole UTF-8 lines.
        String::from_utf8(out).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: &str = "# host01\nfreebsd:\n  hostname: h\n  packages: [a,\n    b]\nnet:\n  ip: 10.0.0.1 # é\n\nmotd: \"a\n  b\"\n+site: {rack: r1}\n";

    #[test]
    fn finds_each_root_entry_and_blanks_the_others_in_place() {
        let e = entries(HOST).unwrap();
        assert_eq!(
            e.keys().collect::<Vec<_>>(),
            ["freebsd", "net", "motd", "+site"]
        );
        let kept = e.keep(|k| k == "net" || k == "+site");
        assert_eq!(kept.len(), HOST.len());
        assert_eq!(kept.lines().count(), HOST.lines().count());
        let want = "# host01\n\n\n\n\nnet:\n  ip: 10.0.0.1 # é\n\n\n\n+site: {rack: r1}\n";
        let squeezed: String = kept
            .lines()
            .map(|l| l.trim_end())
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(squeezed + "\n", want);
    }

    #[test]
    fn the_kept_entries_parse_as_in_the_whole_file_at_the_same_lines() {
        let whole =
            crate::yaml::parse(&crate::value::Source::new("h", HOST), &Default::default()).unwrap();
        let kept = entries(HOST).unwrap().keep(|k| k == "net");
        let part =
            crate::yaml::parse(&crate::value::Source::new("h", kept), &Default::default()).unwrap();
        let (a, b) = (whole.get("net").unwrap(), part.get("net").unwrap());
        assert!(a.value.same_ordered(&b.value));
        assert_eq!((a.span.line, a.span.offset), (b.span.line, b.span.offset));
        assert!(part.get("freebsd").is_none() && part.get("motd").is_none());
    }

    #[test]
    fn refuses_what_it_cannot_split_for_sure() {
        for text in [
            "a: &x 1\nb: *x\n",
            "---\na: 1\n",
            "- a\n",
            "\"a b\": 1\n",
            "a: \"x\nb: y\"\n",
            "? a\n: 1\n",
            "a:b\n",
            "{a: 1}\n",
            "\u{feff}a: 1\n",
            "%YAML 1.2\n---\na: 1\n",
            "\ta: 1\n",
            "a: 'x\nb: y'\n",
            "a: [1,\nb: 2]\n",
            "a:\n  b: {c: \"x\nd: y\"}\n",
            "a: x]\nb: 1\n",
        ] {
            assert!(entries(text).is_none(), "{text:?}");
        }
        // Quotes inside plain scalars and comments, escaped quotes.
        let fine = "a: it's\nb: \"say \\\"hi\\\"\" # don't\nc: 'it''s'\nd: x[0]\n";
        assert_eq!(
            entries(fine).unwrap().keys().collect::<Vec<_>>(),
            ["a", "b", "c", "d"]
        );
        assert!(entries("").unwrap().keys().next().is_none());
        assert!(entries("# only\n\n").unwrap().keys().next().is_none());
    }
}
