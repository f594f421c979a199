//! The report of `beryl check` in its three forms, from one grouped
//! [`Set`]: for people (miette's reports on stderr, through the CLI's
//! reporter), as JSON (a stable, versioned document), and as GitHub
//! workflow commands (annotations on the pull request's files).
//! docs/inventory.md describes each.

use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use crate::diag::set::{Item, Set, hosts_list, plural};
use crate::diag::{Diag, Severity};
use crate::value::Span;

/// The version of the JSON document; it changes only when a field changes
/// meaning or goes away (new fields may appear without a change).
pub const FORMAT_VERSION: u32 = 1;

/// What was checked.
pub struct Scope<'a> {
    /// The hosts checked, in the order checked.
    pub hosts: &'a [String],
    /// Whether they are every host of the inventory.
    pub fleet: bool,
    /// A host's own file, as diagnostics show it.
    pub own_file: &'a dyn Fn(&str) -> Option<String>,
}

impl Scope<'_> {
    /// The hosts worth naming for a diagnostic, when several hosts were
    /// checked: those that found it, unless it is one host's error in
    /// that host's own file.
    fn hosts_note(&self, d: &Diag) -> Option<String> {
        let mine = match d.hosts() {
            [one] => (self.own_file)(one) == d.span().and_then(Span::file_name).map(str::to_string),
            _ => false,
        };
        (self.hosts.len() > 1 && !d.hosts().is_empty() && !mine)
            .then(|| format!("on {}", on_hosts(d.hosts())))
    }
}

/// The hosts shown in a note before "and N more".
const SHOWN_HOSTS: usize = 5;

/// The diagnostics to print for people: each consequence folded into a
/// note of the error it follows from, and a note naming the hosts of a
/// diagnostic that more than one host found, or that sits outside the one
/// host's own file.
pub fn for_people(set: &Set, scope: &Scope<'_>) -> Vec<Diag> {
    let mut out = Vec::new();
    for (i, item) in set.items.iter().enumerate() {
        if item.consequence_of.is_some() {
            continue;
        }
        let mut d = item.diag.clone();
        if let Some(note) = scope.hosts_note(&item.diag) {
            d = d.note(None, note);
        }
        for c in set.consequences_of(i) {
            d = d.note(c.diag.span(), follows(&c.diag));
        }
        out.push(d);
    }
    out
}

fn on_hosts(hosts: &[String]) -> String {
    if hosts.len() == 1 {
        hosts[0].clone()
    } else {
        format!(
            "{}: {}",
            plural(hosts.len(), "host", "hosts"),
            hosts_list(hosts, SHOWN_HOSTS)
        )
    }
}

/// The note for a consequence: what else fails because of this one (its
/// place shown with the note).
fn follows(c: &Diag) -> String {
    let on = if c.hosts().is_empty() {
        String::new()
    } else {
        format!(" on {}", on_hosts(c.hosts()))
    };
    format!(
        "and so {}{on} ({})",
        c.labels()
            .first()
            .map_or("this", |(_, l)| l.as_str())
            .to_string()
            + " fails",
        c.code
    )
}

// ---------------------------------------------------------------- JSON

#[derive(Serialize)]
struct Report<'a> {
    format_version: u32,
    hosts: &'a [String],
    fleet: bool,
    summary: Summary,
    diagnostics: Vec<Entry<'a>>,
}

#[derive(Serialize)]
struct Summary {
    hosts: usize,
    failed_hosts: usize,
    errors: usize,
    consequences: usize,
    warnings: usize,
}

#[derive(Serialize)]
struct Entry<'a> {
    severity: &'static str,
    code: &'static str,
    message: &'a str,
    help: Option<&'a str>,
    #[serde(flatten)]
    at: Place,
    label: Option<&'a str>,
    related: Vec<Related>,
    hosts: &'a [String],
    consequence_of: Option<usize>,
}

#[derive(Serialize)]
struct Related {
    message: String,
    #[serde(flatten)]
    at: Place,
}

/// A place in a file; every field null for a diagnostic without one.
#[derive(Serialize, Default)]
struct Place {
    file: Option<String>,
    line: Option<u32>,
    column: Option<u32>,
    end: Option<Position>,
}

#[derive(Serialize, Clone, Copy, PartialEq, Eq, Debug)]
struct Position {
    line: u32,
    column: u32,
}

impl Place {
    fn of(span: Option<&Span>) -> Place {
        let Some(span) = span.filter(|s| s.source.is_some()) else {
            return Place::default();
        };
        Place {
            file: span.file_name().map(str::to_string),
            line: Some(span.line),
            column: Some(span.col),
            end: Some(end(span)),
        }
    }
}

/// The line and column just past the span (where it starts, when empty).
fn end(span: &Span) -> Position {
    let start = Position {
        line: span.line,
        column: span.col,
    };
    let Some(source) = span.source.as_deref() else {
        return start;
    };
    let text = source.text.as_ref();
    let (from, to) = (
        span.offset.min(text.len()),
        (span.offset + span.len).min(text.len()),
    );
    if to <= from || !text.is_char_boundary(from) || !text.is_char_boundary(to) {
        return start;
    }
    let piece = &text[from..to];
    let breaks = piece.matches('\n').count() as u32;
    match piece.rfind('\n') {
        None => Position {
            line: span.line,
            column: span.col + piece.chars().count() as u32,
        },
        Some(i) => Position {
            line: span.line + breaks,
            column: piece[i + 1..].chars().count() as u32 + 1,
        },
    }
}

/// The JSON report (docs/inventory.md, "check --format json").
pub fn json(set: &Set, scope: &Scope<'_>) -> Result<String, Diag> {
    let diagnostics = set
        .items
        .iter()
        .map(|item| {
            let d = &item.diag;
            let mut related: Vec<Related> = d
                .labels()
                .iter()
                .skip(1)
                .map(|(span, text)| Related {
                    message: text.clone(),
                    at: Place::of(Some(span)),
                })
                .collect();
            related.extend(d.related().iter().map(|r| Related {
                message: r.message.clone(),
                at: Place::of(r.span()),
            }));
            Entry {
                severity: d.severity.name(),
                code: d.code,
                message: &d.message,
                help: d.help.as_deref(),
                at: Place::of(d.span()),
                label: d.labels().first().map(|(_, t)| t.as_str()),
                related,
                hosts: d.hosts(),
                consequence_of: item.consequence_of,
            }
        })
        .collect();
    let report = Report {
        format_version: FORMAT_VERSION,
        hosts: scope.hosts,
        fleet: scope.fleet,
        summary: summary(set, scope),
        diagnostics,
    };
    let mut text = super::json::to_string(&report)
        .map_err(|e| Diag::new("beryl::output", format!("cannot serialise the report: {e}")))?;
    text.push('\n');
    Ok(text)
}

fn summary(set: &Set, scope: &Scope<'_>) -> Summary {
    let mut failed: Vec<&String> = set
        .items
        .iter()
        .filter(|i| i.diag.is_error())
        .flat_map(|i| i.diag.hosts())
        .collect();
    failed.sort();
    failed.dedup();
    Summary {
        hosts: scope.hosts.len(),
        failed_hosts: failed.len(),
        errors: set.errors(),
        consequences: set.consequences(),
        warnings: set.warnings(),
    }
}

/// The closing line of the text and GitHub forms: `checked 8 hosts: ok`,
/// or the counts.
pub fn summary_line(set: &Set, scope: &Scope<'_>) -> String {
    let s = summary(set, scope);
    let mut parts = Vec::new();
    if s.errors > 0 {
        parts.push(plural(s.errors, "error", "errors"));
    }
    if s.consequences > 0 {
        parts.push(format!(
            "{} that {} from them",
            plural(s.consequences, "error", "errors"),
            if s.consequences == 1 {
                "follows"
            } else {
                "follow"
            }
        ));
    }
    if s.errors > 0 {
        parts.push(format!(
            "{} of {} failed",
            s.failed_hosts,
            plural(s.hosts, "host", "hosts")
        ));
    } else {
        parts.insert(0, "ok".into());
    }
    if s.warnings > 0 {
        parts.push(plural(s.warnings, "warning", "warnings"));
    }
    format!(
        "checked {}: {}\n",
        plural(s.hosts, "host", "hosts"),
        parts.join(", ")
    )
}

// ---------------------------------------------------------------- GitHub

/// GitHub workflow commands, one line per diagnostic, then the summary
/// line. Consequences are folded into the error they follow from, as for
/// people. `path` turns a file as displayed into the path GitHub expects
/// (see [`workspace_path`]).
pub fn github(set: &Set, scope: &Scope<'_>, path: &dyn Fn(&str) -> String) -> String {
    let mut out = String::new();
    for (i, item) in set.items.iter().enumerate() {
        if item.consequence_of.is_none() {
            out.push_str(&annotation(set, i, item, scope, path));
            out.push('\n');
        }
    }
    out.push_str(&summary_line(set, scope));
    out
}

fn annotation(
    set: &Set,
    i: usize,
    item: &Item,
    scope: &Scope<'_>,
    path: &dyn Fn(&str) -> String,
) -> String {
    let d = &item.diag;
    let command = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut props: Vec<(&str, String)> = Vec::new();
    if let Some(span) = d.span().filter(|s| s.source.is_some()) {
        let end = end(span);
        props.push(("file", path(span.file_name().unwrap_or_default())));
        props.push(("line", span.line.to_string()));
        if end.line == span.line {
            props.push(("col", span.col.to_string()));
            props.push(("endColumn", end.column.to_string()));
        } else {
            props.push(("endLine", end.line.to_string()));
        }
    }
    props.push(("title", d.code.to_string()));
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str(&format!("\nhelp: {help}"));
    }
    for r in d.related() {
        let at = r
            .span()
            .map(|s| format!(" ({})", located(s, path)))
            .unwrap_or_default();
        message.push_str(&format!("\nnote: {}{at}", r.message));
    }
    if let Some(note) = scope.hosts_note(d) {
        message.push_str(&format!("\n{note}"));
    }
    for c in set.consequences_of(i) {
        let at = c
            .diag
            .span()
            .map(|s| format!(" at {}", located(s, path)))
            .unwrap_or_default();
        message.push_str(&format!("\n{}{at}", follows(&c.diag)));
    }
    let props: Vec<String> = props
        .iter()
        .map(|(k, v)| format!("{k}={}", escape_property(v)))
        .collect();
    format!("::{command} {}::{}", props.join(","), escape_data(&message))
}

fn located(span: &Span, path: &dyn Fn(&str) -> String) -> String {
    format!(
        "{}:{}:{}",
        path(span.file_name().unwrap_or_default()),
        span.line,
        span.col
    )
}

// The escapes of a workflow command, as GitHub's own toolkit writes them
// (actions/toolkit, packages/core/src/command.ts: `escapeData` and
// `escapeProperty`; the runner undoes them): the message escapes `%`, CR
// and LF; a property value also escapes `:` and `,`, which delimit the
// properties. `%` goes first, so that the escapes are not escaped again.

/// Escapes the message of a workflow command.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value of a workflow command.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// A file as GitHub wants it in an annotation: relative to the workspace
/// (the repository's checkout, `$GITHUB_WORKSPACE`) when the file is in
/// it, else relative to the working directory; `/`-separated, without `.`
/// or `..` steps.
pub fn workspace_path(shown: &str, cwd: &Path, workspace: Option<&Path>) -> String {
    let full = normal(&cwd.join(shown));
    let base = workspace.map(|w| normal(&cwd.join(w)));
    let rel = base
        .as_deref()
        .and_then(|b| full.strip_prefix(b).ok())
        .or_else(|| {
            full.strip_prefix(normal(cwd))
                .ok()
                .filter(|_| base.is_none())
        });
    match rel {
        Some(r) => r
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        None => full.to_string_lossy().into_owned(),
    }
}

/// A path with its `.` and `..` steps resolved by name (no links followed).
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The escapes of actions/toolkit's `escapeData` and `escapeProperty`.
    #[test]
    fn workflow_command_escapes() {
        assert_eq!(
            escape_data("50% done\r\nnext: a, b"),
            "50%25 done%0D%0Anext: a, b"
        );
        assert_eq!(
            escape_property("beryl::schema::type, 100%\n"),
            "beryl%3A%3Aschema%3A%3Atype%2C 100%25%0A"
        );
        // A literal escape sequence stays literal once unescaped.
        assert_eq!(escape_data("%0A"), "%250A");
        assert_eq!(escape_property("a%3Ab"), "a%253Ab");
    }

    #[test]
    fn paths_relative_to_the_workspace() {
        let cwd = Path::new("/repo/fleet");
        assert_eq!(
            workspace_path("inventory/a.yml", cwd, None),
            "inventory/a.yml"
        );
        assert_eq!(
            workspace_path("./inventory/../inventory/a.yml", cwd, None),
            "inventory/a.yml"
        );
        assert_eq!(
            workspace_path("inventory/a.yml", cwd, Some(Path::new("/repo"))),
            "fleet/inventory/a.yml"
        );
        assert_eq!(
            workspace_path("/elsewhere/a.yml", cwd, Some(Path::new("/repo"))),
            "/elsewhere/a.yml"
        );
        assert_eq!(workspace_path("/repo/fleet/x/a.yml", cwd, None), "x/a.yml");
    }

    #[test]
    fn the_end_of_a_span() {
        let source = crate::value::Source::new("f", "ab\ncdé f\nx");
        let span = |offset, len, line, col| Span {
            source: Some(source.clone()),
            offset,
            len,
            line,
            col,
        };
        assert_eq!(end(&span(3, 4, 2, 1)), Position { line: 2, column: 4 });
        assert_eq!(end(&span(1, 4, 1, 2)), Position { line: 2, column: 3 });
        assert_eq!(end(&span(3, 0, 2, 1)), Position { line: 2, column: 1 });
    }
}
