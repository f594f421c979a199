//! Go to definition: what a value names, and the file it is in. One row
//! per kind of name, matched against the path of the value under the
//! cursor (`*` is any one key or item).

use lsp_types::{GotoDefinitionParams, GotoDefinitionResponse, Location, Position, Range, Uri};

use super::world::World;
use super::{Prefs, position};
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

fn matches(pattern: &[&str], path: &[String]) -> bool {
    pattern.len() == path.len() && pattern.iter().zip(path).all(|(p, s)| *p == "*" || p == s)
}

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
    let name = file.display().to_string();
    let text = match world.level_of(&file) {
        Some(level) => world.text(&level),
        None => crate::yaml::read_text(&file, &name, setup.limits.max_file_size)
            .map(std::sync::Arc::from)
            .map_err(|d| d.message),
    };
    let Ok(text) = text else {
        return Ok(None);
    };
    let Ok(root) = crate::yaml::parse(&Source::new(name, text.clone()), &setup.limits) else {
        return Ok(None);
    };
    let at = doc.position;
    let Some(offset) = position::offset(&text, at.line, at.character) else {
        return Ok(None);
    };
    if let Some(found) = reference(world, prefs, &file, &text, offset) {
        return Ok(Some(GotoDefinitionResponse::Array(found)));
    }
    let (path, node) = position::place_at(&root, offset);
    if let Some(found) = named_path(&path).and_then(|keys| written_at(world, prefs, &file, &keys)) {
        return Ok(Some(GotoDefinitionResponse::Array(found)));
    }
    let (Some(value), Some((_, target))) = (
        node.and_then(|n| n.as_str()),
        NAMES.iter().find(|(p, _)| matches(p, &path)),
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

/// The path of the `${…}` reference around `offset` in `text` (one line,
/// not nested), as written.
fn reference_at(text: &str, offset: usize) -> Option<&str> {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = &text[line_start..line_end];
    let at = offset - line_start;
    let open = (line.match_indices("${").map(|(i, _)| i))
        .take_while(|&i| i <= at)
        .last()?;
    let close = open + line[open..].find('}')?;
    (at <= close)
        .then(|| &line[open + 2..close])
        .filter(|p| !p.contains("${"))
}

/// A `${path}` under the cursor: where its value is written on the host
/// the file is seen as (its own host, the preview host, else the first
/// host that reads it), the place that wins first, then every other level
/// that writes it. `None` when the cursor is on no reference, or the value
/// is computed (`_beryl_`) or gathered.
fn reference(
    world: &World<'_>,
    prefs: &Prefs,
    file: &std::path::Path,
    text: &str,
    offset: usize,
) -> Option<Vec<Location>> {
    let written = reference_at(text, offset)?;
    let keys = world.compiler.dialect().refs.keys(written).ok()?;
    written_at(world, prefs, file, &keys)
}

/// The config path a name names.
type NamedPath = fn(&str) -> Vec<String>;

/// Names that are paths of the config: a pattern of the path under the
/// cursor (`*` any one key or item, on a key or its value), and the path
/// it names, from its last key.
const PATHS: &[(&[&str], NamedPath)] = &[
    // A file's `notify: {nginx: reload}`: the service it notifies.
    (&["freebsd", "files", "*", "notify", "*"], |name| {
        ["freebsd", "services", name].map(str::to_string).to_vec()
    }),
];

/// The path a name under the cursor names, by [`PATHS`].
fn named_path(path: &[String]) -> Option<Vec<String>> {
    let (_, to) = PATHS.iter().find(|(p, _)| matches(p, path))?;
    Some(to(path.last()?))
}

/// Where `keys` is written on the host `file` is seen as: the place that
/// wins first, then every other level that writes it.
fn written_at(
    world: &World<'_>,
    prefs: &Prefs,
    file: &std::path::Path,
    keys: &[String],
) -> Option<Vec<Location>> {
    let host = super::hover::seen_as(world, prefs, &world.level_of(file)?)?;
    let compiled = world.compiled(host).ok()?;
    let e = crate::output::explain::explain(&host.fqdn, &compiled, keys).ok()?;
    let entry = e.entries.first()?;
    let mut places: Vec<String> = entry.at.iter().cloned().collect();
    for level in &entry.levels {
        if let Some(at) = &level.at {
            let place = format!("{}:{at}", level.file);
            if !places.contains(&place) {
                places.push(place);
            }
        }
    }
    let here = std::env::current_dir().ok()?;
    let found: Vec<Location> = places.iter().filter_map(|p| location(&here, p)).collect();
    (!found.is_empty()).then_some(found)
}

/// A `file:line:col` place (1-based, as `explain` prints it) as a location.
fn location(here: &std::path::Path, place: &str) -> Option<Location> {
    let mut parts = place.rsplitn(3, ':');
    let col: u32 = parts.next()?.parse().ok()?;
    let line: u32 = parts.next()?.parse().ok()?;
    let path = here.join(parts.next()?).canonicalize().ok()?;
    let uri: Uri = super::file_uri(&path).parse().ok()?;
    let at = Position::new(line.saturating_sub(1), col.saturating_sub(1));
    Some(Location {
        uri,
        range: Range::new(at, at),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_reference_around_the_cursor() {
        let text = "a: x\nmotd: \"${site.owner} and ${site.contact}\"\n";
        let at = |needle: &str| text.find(needle).unwrap();
        assert_eq!(
            super::reference_at(text, at("site.owner")),
            Some("site.owner")
        );
        assert_eq!(
            super::reference_at(text, at("${site.owner")),
            Some("site.owner")
        );
        assert_eq!(super::reference_at(text, at("} and")), Some("site.owner"));
        assert_eq!(super::reference_at(text, at(" and")), None);
        assert_eq!(
            super::reference_at(text, at("contact")),
            Some("site.contact")
        );
        assert_eq!(super::reference_at(text, at("motd")), None);
        assert_eq!(super::reference_at("x: ${a.${b}}", 5), None);
        assert_eq!(super::reference_at("x: ${a.${b}}", 9), Some("b"));
        assert_eq!(super::reference_at("é: ${a}", 0), None);
        assert_eq!(super::reference_at("é: ${a}", 6), Some("a"));
    }
}
