//! Go to definition: what a value names, and the file it is in. One row
//! per kind of name, matched against the path of the value under the
//! cursor (`*` is any one key or item).

use lsp_types::{GotoDefinitionParams, GotoDefinitionResponse, Location, Position, Range, Uri};

use super::world::World;
use super::{Prefs, places, position};
use crate::value::Source;

/// What a name leads to.
#[derive(Clone, Copy)]
enum Target {
    /// A class, by its name: its file under `_classes/`.
    Class,
    /// An SSH key, by its name: `<ssh dir>/NAME.pub`, else `NAME`.
    Key,
    /// A file of one of the inventory's data folders (`templates/`, `files/`).
    Data(&'static str),
}

/// The rows: a path pattern, and what the value there names.
const NAMES: &[(&[&str], Target)] = &[
    (&["classes", "*"], Target::Class),
    (&["ssh_keys", "*"], Target::Key),
    (&["freebsd", "users", "*", "ssh_keys", "*"], Target::Key),
    (
        &["freebsd", "files", "*", "template"],
        Target::Data("templates"),
    ),
    (&["freebsd", "files", "*", "source"], Target::Data("files")),
];

/// The definition of the name under the cursor, when it names a file.
pub(crate) fn definition(
    world: &World<'_>,
    prefs: &Prefs,
    params: &GotoDefinitionParams,
) -> Result<Option<GotoDefinitionResponse>, String> {
    let setup = world.setup;
    let doc = &params.text_document_position_params;
    let Some(file) = super::file_path(doc.text_document.uri.as_str()) else {
        return Ok(None);
    };
    let parsed = match world.level_of(&file) {
        Some(level) => world.parsed(&level).ok(),
        None => {
            let name = file.display().to_string();
            let text = crate::yaml::read_text(&file, &name, setup.limits.max_file_size).ok();
            text.and_then(|text| {
                let root = crate::yaml::parse(&Source::new(name, text.clone()), &setup.limits);
                Some((std::sync::Arc::from(text), root.ok()?))
            })
        }
    };
    let Some((text, root)) = parsed else {
        return Ok(None);
    };
    let at = doc.position;
    let Some(offset) = position::offset(&text, at.line, at.character) else {
        return Ok(None);
    };
    let (path, node) = position::place_at(&root, offset);
    let cursor = places::Cursor {
        file: &file,
        text: &text,
        offset,
        path: &path,
        config: world.config_path(&path),
        node,
    };
    if let Some(found) = places::of(world, prefs, &cursor) {
        return Ok(Some(GotoDefinitionResponse::Array(found)));
    }
    let (Some(value), Some((_, target))) = (
        node.and_then(|n| n.as_str()),
        NAMES.iter().find(|(p, _)| position::matches(p, &path)),
    ) else {
        return Ok(None);
    };
    let found = match target {
        Target::Class => crate::classes::files::list(world.inventory)
            .into_iter()
            .find(|(n, _)| n == value)
            .map(|(_, f)| f.path),
        Target::Key => crate::keys::key_files(value)
            .into_iter()
            .map(|f| setup.ssh_dir.join(f))
            .find(|p| p.is_file()),
        Target::Data(dir) => Some(setup.inventory.join(dir).join(value)).filter(|p| p.is_file()),
    };
    // A name leads only into its own folder: `../` or a link out of it
    // leads nowhere, as the compile refuses it.
    let within = match target {
        Target::Class => setup.inventory.clone(),
        Target::Key => setup.ssh_dir.clone(),
        Target::Data(dir) => setup.inventory.join(dir),
    };
    let Some(found) = found
        .and_then(|p| p.canonicalize().ok())
        .filter(|p| within.canonicalize().is_ok_and(|w| p.starts_with(w)))
    else {
        return Ok(None);
    };
    let uri: Uri = super::file_uri(&found)
        .parse()
        .map_err(|e| format!("{}: {e}", found.display()))?;
    let start = Position::new(0, 0);
    Ok(Some(GotoDefinitionResponse::Scalar(Location {
        uri,
        range: Range::new(start, start),
    })))
}
