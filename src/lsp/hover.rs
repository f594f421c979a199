//! Hover: what the key or value under the cursor becomes. In a host's (or
//! a jail's) own file, `beryl explain` on that host. In a file many hosts
//! read (`_default.yml`, a domain, a group, a class), the hosts it reaches
//! and, for each, whether this file's line wins there, and if not what
//! does, grouped: "reaches 4 hosts; wins on 3; replaced on db01 (by …)".

use std::collections::BTreeMap;

use lsp_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};

use super::world::World;
use super::{Prefs, position};
use crate::inventory::{Host, LevelFile};
use crate::output::explain;

/// The hover at a position; `None` where there is nothing to say (a file
/// no host reads, a place on no key).
pub(crate) fn hover(
    world: &World<'_>,
    prefs: &Prefs,
    params: &HoverParams,
) -> Result<Option<Hover>, String> {
    let doc = &params.text_document_position_params;
    let Some(file) = super::file_path(doc.text_document.uri.as_str()) else {
        return Ok(None);
    };
    let Some(level) = world.level_of(&file) else {
        return Ok(None);
    };
    let (text, root) = world.parsed(&level)?;
    let at = doc.position;
    let Some(offset) = position::offset(&text, at.line, at.character) else {
        return Ok(None);
    };
    let Some(path) = world.config_path(&position::path_at(&root, offset)) else {
        return Ok(None);
    };
    if path.is_empty() {
        return Ok(None);
    }
    let shown = crate::syntax::path::display(&path);
    let body = match world.owner(&level) {
        Some(host) => format!(
            "**{shown}** on `{}` ({})\n\n```text\n{}```",
            host.fqdn,
            world.basis(),
            on_host(world, host, &path)
        ),
        None => match across(world, &level, &path) {
            Some(summary) => format!(
                "**{shown}** ({})\n\n{summary}{}",
                world.basis(),
                preview(world, prefs, &level, &path)
            ),
            None => return Ok(None),
        },
    };
    Ok(Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: body,
        }),
        range: None,
    }))
}

/// What `path` is on the preview host, when one is chosen: `explain` on
/// it, or that it does not read the file.
pub(super) fn preview(
    world: &World<'_>,
    prefs: &Prefs,
    level: &LevelFile,
    path: &[String],
) -> String {
    let Some(asked) = prefs.preview.as_deref() else {
        return String::new();
    };
    let host = match world.host_named(asked) {
        Ok(host) => host,
        Err(why) => return format!("\n\npreview host: {why}"),
    };
    if !world.reached(level).iter().any(|h| h.fqdn == host.fqdn) {
        return format!(
            "\n\n**as `{}`** (preview): it does not read this file",
            host.fqdn
        );
    }
    format!(
        "\n\n**as `{}`** (preview)\n\n```text\n{}```",
        host.fqdn,
        on_host(world, host, path)
    )
}

/// `explain` of `path` on `host`, as text.
fn on_host(world: &World<'_>, host: &Host, path: &[String]) -> String {
    match world.compiled(host) {
        Ok(c) => match explain::explain(&host.fqdn, &c, path) {
            Ok(e) => explain::to_text(&e),
            Err(d) => format!("{}\n", d.message),
        },
        Err(d) => format!(
            "{} does not compile: {}\n",
            host.fqdn,
            d.first().map_or("", |d| d.message.as_str())
        ),
    }
}

/// What `path` of the shared file `level` becomes on each host that reads
/// it, grouped by outcome; `None` when no host reads it.
fn across(world: &World<'_>, level: &LevelFile, path: &[String]) -> Option<String> {
    let reached = world.reached(level);
    if reached.is_empty() {
        return None;
    }
    let outcomes: Vec<(String, String)> = (world.compiled_many(&reached).into_iter())
        .map(|(host, compiled)| (host.fqdn.clone(), outcome(host, compiled, level, path)))
        .collect();
    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (fqdn, o) in outcomes {
        groups.entry(o).or_default().push(fqdn);
    }
    let mut out = format!(
        "reaches {} {}",
        reached.len(),
        if reached.len() == 1 { "host" } else { "hosts" }
    );
    // The hosts where this line wins first, then the others by outcome.
    let wins = groups.remove("wins");
    if let Some(hosts) = &wins {
        out.push_str(&format!("; wins on {}", hosts.len()));
    }
    out.push('\n');
    for (what, hosts) in wins
        .iter()
        .map(|h| ("wins", h))
        .chain(groups.iter().map(|(o, h)| (o.as_str(), h)))
    {
        out.push_str(&format!(
            "- {what} on {}\n",
            crate::diag::set::hosts_list(hosts, 5)
        ));
    }
    Some(out)
}

/// What this file's line does on one host: `wins`, or its outcome there
/// and the place of the value that does win.
fn outcome(
    host: &Host,
    compiled: Result<std::sync::Arc<crate::compile::Compiled>, crate::diag::Diags>,
    level: &LevelFile,
    path: &[String],
) -> String {
    let Ok(c) = compiled else {
        return "does not compile".into();
    };
    let e = match explain::explain(&host.fqdn, &c, path) {
        Ok(e) => e,
        Err(d) => return d.message,
    };
    let Some(entry) = e.entries.first() else {
        return "not in the config".into();
    };
    let mine = entry.levels.iter().find(|l| l.file.ends_with(&level.rel));
    match mine.map(|l| l.outcome.as_str()) {
        Some("wins") => "wins".into(),
        Some(what) => match &entry.at {
            Some(at) => format!("{what} (the value from {at})"),
            None => match &entry.removed_by {
                Some(cause) if !cause.at.contains(&level.rel) => {
                    format!("{what} (at {})", cause.at)
                }
                _ => what.to_string(),
            },
        },
        None => "not set here".into(),
    }
}
