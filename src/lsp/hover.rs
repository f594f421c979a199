//! Hover: `beryl explain` for the key or value under the cursor, in a
//! host's (or a jail's) own file, on that host.

use lsp_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};

use super::{Setup, position};
use crate::value::Source;

/// The hover at a position; `None` where there is nothing to say (a file
/// that is not a host's, a place on no key).
pub(crate) fn hover(setup: &Setup, params: &HoverParams) -> Result<Option<Hover>, String> {
    let doc = &params.text_document_position_params;
    let Some(file) = super::file_path(doc.text_document.uri.as_str()) else {
        return Ok(None);
    };
    let inventory = setup.inventory()?;
    let Ok(file) = file.canonicalize() else {
        return Ok(None);
    };
    let Some(host) = inventory
        .hosts
        .iter()
        .find(|h| h.file.path.canonicalize().is_ok_and(|p| p == file))
    else {
        return Ok(None);
    };
    let text = crate::yaml::read_text(
        &host.file.path,
        &host.file.display,
        setup.limits.max_file_size,
    )
    .map_err(|d| d.message)?;
    let root = crate::yaml::parse(
        &Source::new(host.file.display.clone(), text.clone()),
        &setup.limits,
    )
    .map_err(|d| d.message)?;
    let at = doc.position;
    let Some(offset) = position::offset(&text, at.line, at.character) else {
        return Ok(None);
    };
    let path = position::path_at(&root, offset);
    if path.is_empty() {
        return Ok(None);
    }
    let compiler = crate::compile::Compiler::new(&inventory, &setup.keys, setup.limits);
    let shown = match crate::compile::compile(&compiler, host) {
        Ok(c) => match crate::output::explain::explain(&host.fqdn, &c, &path) {
            Ok(e) => crate::output::explain::to_text(&e),
            Err(d) => d.message,
        },
        Err(d) => format!(
            "{} does not compile: {}",
            host.fqdn,
            d.first().map_or("", |d| d.message.as_str())
        ),
    };
    Ok(Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: format!(
                "**{}** on `{}` (from the files as saved)\n\n```text\n{}```",
                crate::syntax::path::display(&path),
                host.fqdn,
                shown
            ),
        }),
        range: None,
    }))
}
