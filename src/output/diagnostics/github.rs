//! `check --format github`: GitHub workflow commands, one per diagnostic.

use std::path::{Component, Path, PathBuf};

use super::{Scope, end, follows, summary_line};
use crate::diag::Severity;
use crate::diag::set::{Item, Set};
use crate::value::Span;

/// GitHub workflow commands, one line per diagnostic, then the summary
/// line. Consequences are folded into the error they follow from, as for
/// people. `path` turns a file as displayed into the path GitHub expects
/// (see [`workspace_path`]).
pub(crate) fn github(set: &Set, scope: &Scope<'_>, path: &dyn Fn(&str) -> String) -> String {
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
pub(crate) fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value of a workflow command.
pub(crate) fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// A file as GitHub wants it in an annotation: relative to the workspace
/// (the repository's checkout, `$GITHUB_WORKSPACE`) when the file is in
/// it, else relative to the working directory; `/`-separated, without `.`
/// or `..` steps.
pub(crate) fn workspace_path(shown: &str, cwd: &Path, workspace: Option<&Path>) -> String {
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
}
