//! Diagnostics: `beryl check`'s errors and warnings for the hosts that
//! read a file, each at the place it names, in every file it names, as LSP
//! diagnostics. Worked out when a file is opened or saved (from the files
//! as saved), for the hosts that read it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use lsp_types::{Diagnostic, DiagnosticSeverity, NumberOrString, Position, Range};

use super::world::World;
use crate::diag::Diag;
use crate::value::Span;

/// The diagnostics of the hosts that read `file`, by the file each is in
/// (a path as the inventory shows it, relative to the server's directory);
/// `None` when `file` is no level or class file of the inventory.
pub(crate) fn of(
    world: &World<'_>,
    file: &std::path::Path,
) -> Result<Option<BTreeMap<PathBuf, Vec<Diagnostic>>>, String> {
    let Some(level) = world.level_of(file) else {
        return Ok(None);
    };
    let hosts = world.reached(&level);
    let no_reader = hosts.is_empty();
    // `beryl check` of those hosts: each compiled once per world, checked
    // on the worker threads.
    let checked: Vec<_> = {
        use rayon::prelude::*;
        (world.compiled_many(&hosts).into_par_iter())
            .map(|(host, c)| (host, crate::check::host(host, c.as_deref())))
            .collect()
    };
    let mut check =
        crate::check::Check::new(&world.compiler, &world.setup.keys, world.setup.limits);
    for (host, checked) in checked {
        check.add(host, checked);
    }
    let found = check.finish(|extra| {
        (world.compiled_many(extra).into_iter())
            .filter_map(|(host, c)| Some(crate::lint::Side::of(&host.fqdn, c.ok()?.as_ref())))
            .collect()
    });
    // A rule in force for none of these hosts is news only in the file
    // being edited: elsewhere (`_default.yml`) other hosts may use it.
    let unused = crate::lint::Code::RuleUnused.as_str();
    let found = found.into_iter().filter(|d| {
        d.code != unused
            || places(d)
                .iter()
                .any(|(p, _)| p.as_path() == std::path::Path::new(&level.display))
    });
    // Each diagnostic once, with the hosts it was found on.
    type Key = (PathBuf, (u32, u32, u32, u32), String, bool, String);
    let mut seen: BTreeMap<Key, BTreeSet<String>> = BTreeMap::new();
    for d in found {
        for (path, range) in places(&d) {
            let key = (path, range, d.code.to_string(), d.is_error(), text(&d));
            seen.entry(key)
                .or_default()
                .extend(d.hosts().iter().cloned());
        }
    }
    let mut out: BTreeMap<PathBuf, Vec<Diagnostic>> = BTreeMap::new();
    for ((path, (l0, c0, l1, c1), code, error, message), on) in seen {
        let severity = match error {
            true => DiagnosticSeverity::ERROR,
            false => DiagnosticSeverity::WARNING,
        };
        let on: Vec<String> = on.into_iter().collect();
        out.entry(path).or_default().push(Diagnostic {
            range: Range::new(Position::new(l0, c0), Position::new(l1, c1)),
            severity: Some(severity),
            code: Some(NumberOrString::String(code)),
            source: Some("beryl".into()),
            message: match on.is_empty() {
                true => message,
                false => format!("{message}\n(on {})", crate::diag::set::hosts_list(&on, 3)),
            },
            ..Default::default()
        });
    }
    // A file with none gets an empty list: what was there is gone. A file
    // no host reads checked nothing, and clears nothing (an unused class
    // keeps the warning a check of the whole fleet put there).
    if !no_reader {
        out.entry(PathBuf::from(&level.display)).or_default();
    }
    Ok(Some(out))
}

/// The message of a diagnostic with its labels and help, as one text.
fn text(d: &Diag) -> String {
    let mut t = d.message.clone();
    for (_, label) in d.labels() {
        if !label.is_empty() {
            t.push_str(&format!("\n  {label}"));
        }
    }
    if let Some(help) = &d.help {
        t.push_str(&format!("\nhelp: {help}"));
    }
    t
}

/// Each file a diagnostic points at, and where: `(line, character)` from
/// and to, in UTF-16 units.
fn places(d: &Diag) -> Vec<(PathBuf, (u32, u32, u32, u32))> {
    d.labels()
        .iter()
        .filter_map(|(span, _)| {
            let source = span.source.as_ref()?;
            Some((PathBuf::from(&source.name), range(&source.text, span)))
        })
        .collect()
}

/// A span as an LSP range, as a sortable key.
fn range(text: &str, span: &Span) -> (u32, u32, u32, u32) {
    let r = super::position::range(text, span);
    (r.start.line, r.start.character, r.end.line, r.end.character)
}
