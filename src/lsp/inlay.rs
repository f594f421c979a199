//! Inlay hints, off unless the editor asks (`initializationOptions`
//! `{"inlayHints": true}`): at the end of each value a file writes, what
//! it becomes on the host, where that is not what the line says. A host's
//! (or a jail's) file is seen as its host; a shared file only as the
//! preview host (`beryl.preview`), since it is something else on each host
//! that reads it. A value that wins as written gets no hint: only what
//! the line alone does not tell (a merged list, a resolved reference, a
//! value replaced or removed) does.

use lsp_types::{InlayHint, InlayHintLabel, InlayHintParams, InlayHintTooltip};

use super::world::World;
use super::{Prefs, position};
use crate::output::explain;
use crate::value::{Node, Source, Value};

/// The longest value a hint shows, in characters.
const SHOWN: usize = 60;

/// The hints of a document, in the range asked.
pub(crate) fn hints(
    world: &World<'_>,
    prefs: &Prefs,
    params: &InlayHintParams,
) -> Result<Option<Vec<InlayHint>>, String> {
    let Some(file) = super::file_path(params.text_document.uri.as_str()) else {
        return Ok(None);
    };
    let Some(level) = world.level_of(&file) else {
        return Ok(None);
    };
    let Some(host) = world.seen_as(prefs.preview.as_deref(), &level, false) else {
        return Ok(None);
    };
    let text = world.text(&level)?;
    let Ok(root) = crate::yaml::parse(
        &Source::new(level.display.clone(), text.clone()),
        &world.setup.limits,
    ) else {
        return Ok(None);
    };
    let Ok(compiled) = world.compiled(host) else {
        return Ok(None);
    };
    let mut found = Vec::new();
    leaves(&root, &mut Vec::new(), 0, &mut found);
    let mut out = Vec::new();
    for (written, offset) in found {
        let Some(path) = world.config_path(&written) else {
            continue;
        };
        let end = line_end(&text, offset);
        if end.line < params.range.start.line || end.line > params.range.end.line {
            continue;
        }
        let Ok(e) = explain::explain(&host.fqdn, &compiled, &path) else {
            continue;
        };
        let Some(entry) = e.entries.first() else {
            continue;
        };
        let Some(mine) = entry.levels.iter().find(|l| l.file.ends_with(&level.rel)) else {
            continue;
        };
        let label = match &entry.value {
            None => format!(
                "→ removed{}",
                (entry.removed_by.as_ref()).map_or(String::new(), |c| format!(" ({})", c.text))
            ),
            Some(v) if mine.value.as_ref() == Some(v) && mine.outcome == "wins" => continue,
            Some(v) => {
                let mut label = format!("→ {}", shorten(&v.to_string()));
                if mine.outcome != "wins" {
                    label.push_str(&format!(" ({})", mine.outcome));
                }
                label
            }
        };
        let tooltip = match &entry.at {
            Some(at) => format!("on {}: the value from {at}", host.fqdn),
            None => format!("on {} (`beryl explain` tells how)", host.fqdn),
        };
        out.push(InlayHint {
            position: end,
            label: InlayHintLabel::String(label),
            kind: None,
            text_edits: None,
            tooltip: Some(InlayHintTooltip::String(tooltip)),
            padding_left: Some(true),
            padding_right: None,
            data: None,
        });
    }
    Ok(Some(out))
}

/// Every value a document writes, by the path `explain` reads, with the
/// offset of its key: a scalar, or a list of scalars as one value; a list
/// of mappings item by item (by `name`, else by position).
fn leaves(node: &Node, path: &mut Vec<String>, at: usize, out: &mut Vec<(Vec<String>, usize)>) {
    match &node.value {
        Value::Map(m) => {
            for (k, e) in m.iter() {
                path.push(crate::syntax::prefix::split(k).0.to_string());
                leaves(&e.node, path, e.key_span.offset, out);
                path.pop();
            }
        }
        Value::Seq(items) if items.iter().any(|i| i.as_map().is_some()) => {
            for (i, item) in items.iter().enumerate() {
                let name = item.get("name").and_then(Node::as_str);
                path.push(name.map_or_else(|| i.to_string(), str::to_string));
                leaves(item, path, item.span.offset, out);
                path.pop();
            }
        }
        _ if !path.is_empty() => out.push((path.clone(), at)),
        _ => {}
    }
}

/// The end of the line that holds `offset`, as an LSP position.
fn line_end(text: &str, offset: usize) -> lsp_types::Position {
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let end = text[..end].trim_end_matches('\r').len();
    let span = crate::value::Span {
        offset: end,
        ..Default::default()
    };
    position::range(text, &span).start
}

/// `text` cut to [`SHOWN`] characters.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(SHOWN) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_long_value_is_cut_on_a_character() {
        assert_eq!(super::shorten("abc"), "abc");
        let long = "é".repeat(70);
        assert_eq!(super::shorten(&long), format!("{}…", "é".repeat(60)));
    }
}
