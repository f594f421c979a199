//! Find references: every file of the inventory (levels and classes) that
//! writes the path under the cursor (every override of a key, in any
//! host's chain), or, on a class name, every `classes:` list that names it.

use lsp_types::{Location, ReferenceParams, Uri};

use super::position;
use super::world::World;
use crate::inventory::LevelFile;
use crate::value::{Node, Source, Span};
use std::sync::Arc;

fn parsed(world: &World<'_>, file: &LevelFile) -> Option<(Arc<str>, Node)> {
    let text = world.text(file).ok()?;
    let source = Source::new(file.display.clone(), text.clone());
    let root = crate::yaml::parse(&source, &world.setup.limits).ok()?;
    Some((text, root))
}

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
    let Some((text, root)) = parsed(world, &level) else {
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
    let mut out = Vec::new();
    for f in crate::classes::files::every(inventory) {
        let Some((text, root)) = parsed(world, &f) else {
            continue;
        };
        let spans: Vec<&Span> = match &class {
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
        out.extend(spans.into_iter().filter_map(|s| location(&f, &text, s)));
    }
    Ok(Some(out))
}
