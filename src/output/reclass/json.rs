//! reclass's JSON (Python's `json.dumps`, indent 2 or compact, ASCII only),
//! and `--inventory`'s document written around the nodes' texts, which the
//! threads that compiled the nodes serialised.

use super::{Body, InventoryNode};
use crate::diag::{Diag, Diags};
use crate::value::Node;

/// The text [`super::tree`]'s document would give in JSON, handed to `emit`
/// piece by piece: the nodes' texts as they are, with the document's own
/// few lines between them, so that the whole text is never in memory.
pub(super) fn streamed(
    nodes: &[InventoryNode],
    header: &Node,
    classes: &Node,
    applications: &Node,
    pretty: bool,
    emit: &mut dyn FnMut(&str) -> Result<(), Diags>,
) -> Result<(), Diags> {
    let json = |node: &Node, depth: usize| json(node, pretty, depth).map_err(Diags::from);
    let mut out = String::new();
    let mut document = Object::open(&mut out, pretty, 0);
    document.key(&mut out, "__reclass__")?;
    out.push_str(&json(header, 1)?);
    document.key(&mut out, "nodes")?;
    let mut all = Object::open(&mut out, pretty, 1);
    for n in nodes {
        all.key(&mut out, &n.name)?;
        emit(&out)?;
        out.clear();
        emit(match &n.body {
            Body::Json(text) => text,
            Body::Tree(_) => "null",
        })?;
    }
    all.close(&mut out);
    document.key(&mut out, "classes")?;
    out.push_str(&json(classes, 1)?);
    document.key(&mut out, "applications")?;
    out.push_str(&json(applications, 1)?);
    document.close(&mut out);
    out.push('\n');
    emit(&out)
}

/// A JSON object written entry by entry, as serde_json's printers write a
/// map at `depth`: pretty, one entry a line, indented two spaces a level;
/// or compact.
struct Object {
    pretty: bool,
    depth: usize,
    empty: bool,
}

impl Object {
    fn open(out: &mut String, pretty: bool, depth: usize) -> Self {
        out.push('{');
        Self {
            pretty,
            depth,
            empty: true,
        }
    }

    /// Starts an entry: its separator and key; its value follows.
    fn key(&mut self, out: &mut String, key: &str) -> Result<(), Diags> {
        if !self.empty {
            out.push(',');
        }
        self.empty = false;
        if self.pretty {
            out.push('\n');
            indent(out, self.depth + 1);
        }
        let key = json(&Node::str(key.to_string()), self.pretty, 0)?;
        out.push_str(&key);
        out.push_str(if self.pretty { ": " } else { ":" });
        Ok(())
    }

    fn close(self, out: &mut String) {
        if self.pretty && !self.empty {
            out.push('\n');
            indent(out, self.depth);
        }
        out.push('}');
    }
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// `node` as reclass's JSON, pretty or compact, ASCII only; pretty, its
/// lines after the first indented for a value at `depth` of a document.
pub(super) fn json(node: &Node, pretty: bool, depth: usize) -> Result<String, Diag> {
    let text = if pretty {
        crate::output::json::to_string(node)
    } else {
        serde_json::to_string(node)
    };
    let text = text.map_err(|e| {
        Diag::new(
            crate::output::Code::Serialise,
            format!("cannot serialise the output: {e}"),
        )
    })?;
    Ok(ascii(&text, if pretty { depth } else { 0 }))
}

/// Python's `ensure_ascii`: every character past ASCII as `\uXXXX` (UTF-16).
/// Outside strings JSON holds only ASCII, so the whole text can be mapped.
/// Each line break is followed by `depth` levels of indent (JSON strings
/// hold none: theirs are escaped).
fn ascii(text: &str, depth: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4 * depth);
    let mut rest = text;
    while let Some(i) = rest.find(|c: char| !c.is_ascii() || c == '\n') {
        out.push_str(&rest[..i]);
        let c = rest[i..].chars().next().unwrap_or('\n');
        if c == '\n' {
            out.push('\n');
            indent(&mut out, depth);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        }
        rest = &rest[i + c.len_utf8()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_ascii_only() {
        assert_eq!(ascii("\"é😀\"", 0), "\"\\u00e9\\ud83d\\ude00\"");
    }
}
