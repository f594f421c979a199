//! Find references: every file of the inventory (levels and classes) that
//! writes the path under the cursor (every override of a key, in any
//! host's chain), or, on a class name, every `classes:` list that names it.

use lsp_types::{Location, ReferenceParams, Uri};

use super::position;
use super::world::World;
use crate::inventory::LevelFile;
use crate::value::{Node, Span, Value};

/// A span of `text` in `file` as a location.
fn location(file: &LevelFile, text: &str, span: &Span) -> Option<Location> {
    let uri: Uri = super::file_uri(&file.path.canonicalize().ok()?)
        .parse()
        .ok()?;
    Some(Location {
        uri,
        range: position::range(text, span),
    })
}

/// The references of the path or class name under the cursor.
pub(crate) fn references(
    world: &World<'_>,
    params: &ReferenceParams,
) -> Result<Option<Vec<Location>>, String> {
    let doc = &params.text_document_position;
    let Some(file) = super::file_path(doc.text_document.uri.as_str()) else {
        return Ok(None);
    };
    let inventory = world.inventory;
    let Some(level) = world.level_of(&file) else {
        return Ok(None);
    };
    let Some((text, root)) = world.parsed(&level).ok() else {
        return Ok(None);
    };
    let Some(offset) = position::offset(&text, doc.position.line, doc.position.character) else {
        return Ok(None);
    };
    let (path, node) = position::place_at(&root, offset);
    if path.is_empty() {
        return Ok(None);
    }
    // A class name: the lists that name it. Anything else: where the path
    // is written.
    let class = match (path.as_slice(), node.and_then(Node::as_str)) {
        ([c, _], Some(name)) if c == crate::syntax::root::CLASSES => Some(name.to_string()),
        _ => None,
    };
    // An export (a path under a root `exports:`): the queries that read it
    // too, the path written as the dialect writes it (`$[ exports.http_port
    // … ]`, reclass's `$[ exports:address ]`).
    let export = match path.first() {
        Some(root) if root == crate::syntax::root::EXPORTS && path.len() > 1 => {
            Some(world.compiler.dialect().refs.show(&path))
        }
        _ => None,
    };
    let mut out = Vec::new();
    for f in crate::classes::files::every(inventory) {
        let Some((text, root)) = world.parsed(&f).ok() else {
            continue;
        };
        let mut spans: Vec<&Span> = match &class {
            Some(name) => (root
                .get(crate::syntax::root::CLASSES)
                .and_then(Node::as_seq))
            .unwrap_or_default()
            .iter()
            .filter(|i| i.as_str() == Some(name.as_str()))
            .map(|i| &i.span)
            .collect(),
            None => position::find(&root, &path).into_iter().collect(),
        };
        if let Some(export) = &export {
            queries_naming(&root, export, &mut spans);
        }
        out.extend(spans.into_iter().filter_map(|s| location(&f, &text, s)));
    }
    Ok(Some(out))
}

/// Every inventory query (`$[ … ]`) under `node` that names the export
/// path `export` (`exports.http_port`), as a whole word.
fn queries_naming<'n>(node: &'n Node, export: &str, out: &mut Vec<&'n Span>) {
    match &node.value {
        Value::Map(m) => m
            .iter()
            .for_each(|(_, e)| queries_naming(&e.node, export, out)),
        Value::Seq(items) => items.iter().for_each(|i| queries_naming(i, export, out)),
        Value::Str(s) if s.trim_start().starts_with("$[") && names(s, export) => {
            out.push(&node.span)
        }
        _ => {}
    }
}

/// Whether `query` holds `path` as a whole path: not `exports.ip` in
/// `exports.ipv6`; a query of a path below it (`exports.net.ip` for
/// `exports.net`) reads it too.
fn names(query: &str, path: &str) -> bool {
    query.match_indices(path).any(|(at, _)| {
        let before = query[..at].chars().next_back();
        let after = query[at + path.len()..].chars().next();
        let part = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
        !before.is_some_and(|c| part(c) || c == '.' || c == ':') && !after.is_some_and(part)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_query_names_an_export_as_a_whole_path() {
        let q = "$[ exports.http_port if exports.role == web ]";
        assert!(super::names(q, "exports.http_port"));
        assert!(super::names(q, "exports.role"));
        assert!(!super::names(q, "exports.http"));
        assert!(!super::names("$[ exports.ipv6 ]", "exports.ip"));
        assert!(!super::names("$[ myexports.ip ]", "exports.ip"));
        // A path below the export reads it too.
        assert!(super::names("$[ exports.net.ip ]", "exports.net"));
        // reclass's delimiter.
        assert!(super::names("$[ exports:address ]", "exports:address"));
        assert!(!super::names("$[ exports:address6 ]", "exports:address"));
    }
}
