//! Places in a buffer: an LSP position (a line and a UTF-16 column) as a
//! byte offset, and the path of the key or value written at an offset.

use crate::value::{Node, Value};

/// The byte offset of an LSP position in `text`: its line's start, plus
/// the bytes of the line's first `character` UTF-16 code units (clamped to
/// the line's end). `None` past the last line.
pub(crate) fn offset(text: &str, line: u32, character: u32) -> Option<usize> {
    let mut start = 0;
    for _ in 0..line {
        start += text[start..].find('\n')? + 1;
    }
    let end = text[start..].find('\n').map_or(text.len(), |p| start + p);
    let mut units = 0u32;
    for (i, c) in text[start..end].char_indices() {
        if units >= character {
            return Some(start + i);
        }
        units += c.len_utf16() as u32;
    }
    Some(end)
}

/// A list item's value without the default knockout prefix (`--vim` is
/// about `vim`).
fn knocked(value: &str) -> &str {
    value
        .strip_prefix(crate::merge::spec::DEFAULT_KNOCKOUT)
        .filter(|v| !v.is_empty())
        .unwrap_or(value)
}

/// The LSP range of a span of `text`: lines, and columns in UTF-16 units.
pub(crate) fn range(text: &str, span: &crate::value::Span) -> lsp_types::Range {
    let at = |offset: usize| {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &text[..offset];
        let line = before.matches('\n').count() as u32;
        let start = before.rfind('\n').map_or(0, |p| p + 1);
        let character: usize = before[start..].chars().map(char::len_utf16).sum();
        lsp_types::Position::new(line, character as u32)
    };
    lsp_types::Range::new(at(span.offset), at(span.offset + span.len))
}

/// The byte range a node's text covers, its children's included.
fn extent(node: &Node) -> (usize, usize) {
    let mut lo = node.span.offset;
    let mut hi = node.span.offset + node.span.len;
    let mut widen = |(a, b): (usize, usize)| {
        lo = lo.min(a);
        hi = hi.max(b);
    };
    match &node.value {
        Value::Map(m) => m.values().for_each(|e| {
            widen((e.key_span.offset, e.key_span.offset));
            widen(extent(&e.node));
        }),
        Value::Seq(items) => items.iter().for_each(|i| widen(extent(i))),
        _ => {}
    }
    (lo, hi)
}

/// Whether `path` (as [`path_at`] names it) matches `pattern`, where `*`
/// is any one key or item.
pub(crate) fn matches(pattern: &[&str], path: &[String]) -> bool {
    pattern.len() == path.len() && pattern.iter().zip(path).all(|(p, s)| *p == "*" || p == s)
}

/// The path of the key or value at `at` in a document, as `explain` reads
/// it: keys without their `~`/`=` prefix, a list item by its `name` when it
/// has one, a string item by its value (a knockout `--vim` by `vim`), else
/// by its position. Empty when `at` is on no key or value.
pub(crate) fn path_at(root: &Node, at: usize) -> Vec<String> {
    place_at(root, at).0
}

/// [`path_at`], with the scalar written at `at` when the cursor is on a
/// value rather than a key.
pub(crate) fn place_at(root: &Node, at: usize) -> (Vec<String>, Option<&Node>) {
    let mut path = Vec::new();
    let mut node = root;
    loop {
        let next = match &node.value {
            Value::Map(m) => m.iter().find_map(|(k, e)| {
                let key_end = e.key_span.offset + e.key_span.len;
                let (_, end) = extent(&e.node);
                let within = at >= e.key_span.offset && at < end.max(key_end);
                within.then(|| {
                    let key = crate::syntax::prefix::split(k).0.to_string();
                    (key, (at >= key_end).then_some(&e.node))
                })
            }),
            Value::Seq(items) => items.iter().enumerate().find_map(|(i, item)| {
                let (start, end) = extent(item);
                (at >= start && at < end).then(|| {
                    // An item by its name, a scalar by its value (a
                    // knockout by the value it knocks out), else by position.
                    let name = (item.get("name").and_then(Node::as_str))
                        .or_else(|| item.as_str().map(knocked));
                    (
                        name.map_or_else(|| i.to_string(), str::to_string),
                        Some(item),
                    )
                })
            }),
            _ => return (path, Some(node)),
        };
        match next {
            Some((seg, Some(child))) => {
                path.push(seg);
                node = child;
            }
            Some((seg, None)) => {
                path.push(seg);
                return (path, None);
            }
            None => return (path, None),
        }
    }
}

/// Where `path` (as [`path_at`] names it) is written in a document: the
/// span of its key, or of its list item. `None` when the document does not
/// write it.
pub(crate) fn find<'a>(root: &'a Node, path: &[String]) -> Option<&'a crate::value::Span> {
    let (first, rest) = path.split_first()?;
    let (span, node) = match &root.value {
        Value::Map(m) => m
            .iter()
            .find(|(k, _)| crate::syntax::prefix::split(k).0 == first)
            .map(|(_, e)| (&e.key_span, &e.node))?,
        Value::Seq(items) => items
            .iter()
            .enumerate()
            .find(|(i, item)| {
                let name = (item.get("name").and_then(Node::as_str))
                    .or_else(|| item.as_str().map(knocked));
                name.map_or_else(|| i.to_string() == *first, |n| n == first)
            })
            .map(|(_, item)| (&item.span, item))?,
        _ => return None,
    };
    match rest.is_empty() {
        true => Some(span),
        false => find(node, rest),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Source;

    fn doc(text: &str) -> Node {
        crate::yaml::parse(&Source::new("f.yml", text.to_string()), &Default::default()).unwrap()
    }

    #[test]
    fn a_position_is_a_byte_offset_counted_in_utf16() {
        let text = "a: é😀x\nb: 2\n";
        assert_eq!(offset(text, 0, 0), Some(0));
        // `é` is one UTF-16 unit and two bytes, `😀` two units and four bytes.
        assert_eq!(offset(text, 0, 4), Some(5));
        assert_eq!(offset(text, 0, 6), Some(9));
        assert_eq!(offset(text, 0, 99), Some(10));
        assert_eq!(offset(text, 1, 3), Some(14));
        assert_eq!(offset(text, 5, 0), None);
    }

    #[test]
    fn the_path_at_a_key_a_value_and_a_named_item() {
        let text = "freebsd:\n  ~users:\n    - name: alice\n      shell: /bin/sh\n    - uid: 7\n  hostname: db01\n  packages: [--vim, curl, 7]\n";
        let root = doc(text);
        let at = |needle: &str| text.find(needle).unwrap() + 1;
        assert_eq!(path_at(&root, at("hostname")), ["freebsd", "hostname"]);
        assert_eq!(path_at(&root, at("db01")), ["freebsd", "hostname"]);
        assert_eq!(
            path_at(&root, at("/bin/sh")),
            ["freebsd", "users", "alice", "shell"]
        );
        assert_eq!(path_at(&root, at("users")), ["freebsd", "users"]);
        assert_eq!(path_at(&root, at("uid")), ["freebsd", "users", "1", "uid"]);
        assert_eq!(path_at(&root, at("-vim")), ["freebsd", "packages", "vim"]);
        assert_eq!(path_at(&root, at("url")), ["freebsd", "packages", "curl"]);
        let seven = text.find("7]").unwrap();
        assert_eq!(path_at(&root, seven), ["freebsd", "packages", "2"]);
        assert!(path_at(&root, text.len() + 5).is_empty());
        // And back: where each path is written.
        for needle in ["hostname", "shell", "--vim", "uid"] {
            let path = path_at(&root, at(needle));
            let span = find(&root, &path).unwrap();
            assert!(
                text[span.offset..].starts_with(needle.trim_start_matches('-'))
                    || text[span.offset..].starts_with(needle),
                "{needle}: {path:?}"
            );
        }
        let missing: Vec<String> = ["freebsd", "users", "bob"].map(String::from).to_vec();
        assert!(find(&root, &missing).is_none());
    }
}
