//! The report of `beryl check` in its three forms, from one grouped
//! [`Set`]: for people (miette's reports on stderr, through the CLI's
//! reporter), as JSON (`json.rs`, a stable, versioned document), and as
//! GitHub workflow commands (`github.rs`, annotations on the pull request's
//! files). docs/check.md describes each.

mod github;
mod json;

pub(crate) use github::{github, workspace_path};
pub(crate) use json::json;

use serde::Serialize;

use crate::diag::Diag;
use crate::diag::set::{Set, hosts_list, plural};
use crate::value::Span;

/// The version of the JSON document; it changes only when a field changes
/// meaning or goes away (new fields may appear without a change).
pub(crate) const FORMAT_VERSION: u32 = 1;

/// What was checked.
pub(crate) struct Scope<'a> {
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
pub(crate) fn for_people(set: &Set, scope: &Scope<'_>) -> Vec<Diag> {
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

#[derive(Serialize)]
struct Summary {
    hosts: usize,
    failed_hosts: usize,
    errors: usize,
    consequences: usize,
    warnings: usize,
}

fn summary(set: &Set, scope: &Scope<'_>) -> Summary {
    // Of the hosts checked: a jail's finding also names its host, which
    // may not be one of them (`check www.host01…`: 1 of 1 failed, not 2).
    let mut failed: Vec<&String> = set
        .items
        .iter()
        .filter(|i| i.diag.is_error())
        .flat_map(|i| i.diag.hosts())
        .filter(|h| scope.hosts.contains(h))
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
pub(crate) fn summary_line(set: &Set, scope: &Scope<'_>) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_failed_hosts_are_of_those_checked() {
        let mut d = Diag::new(crate::diag::Common::Io, "x");
        d.found_on("www.host01");
        d.found_on("host01");
        let set = Set::new(vec![d]);
        let hosts = ["www.host01".to_string()];
        let scope = Scope {
            hosts: &hosts,
            fleet: false,
            own_file: &|_| None,
        };
        assert_eq!(
            summary_line(&set, &scope),
            "checked 1 host: 1 error, 1 of 1 host failed\n"
        );
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
