//! The text forms of a report, and the wording the markdown form shares:
//! how a value, a change, its cause and a group of hosts are written.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Change, ChangeKind, Group, HostChange, Place, Report, Summary, count};

/// A value on one line, never folded. A string is written bare unless it
/// could be misread (as another type, as blank, across lines, as the `→`
/// of a change); then, like lists and mappings, as JSON.
pub(super) fn show(v: &Value) -> String {
    match v {
        Value::String(s) if bare(s) => s.clone(),
        other => other.to_string(),
    }
}

/// What a bare string must not look like, each row a reason to quote it.
const MISREAD: &[fn(&str) -> bool] = &[
    |s| s.is_empty(),
    |s| s.trim() != s,
    |s| s.chars().any(char::is_control),
    |s| s.contains(" → "),
    // JSON reads it as something else: a number, true, null, "…", […].
    |s| serde_json::from_str::<Value>(s).is_ok(),
    |s| s.starts_with(['"', '[', '{']),
    // YAML 1.1 readers take these for booleans or null.
    |s| {
        matches!(
            s.to_ascii_lowercase().as_str(),
            "yes" | "no" | "on" | "off" | "y" | "n" | "~" | "null" | "true" | "false"
        )
    },
];

fn bare(s: &str) -> bool {
    !MISREAD.iter().any(|misread| misread(s))
}

fn multiline(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::String(s)) if s.contains('\n'))
}

/// The `-`/`+` lines of a change: the old then the new value, each on one
/// line; a multi-line string line by line, as a unified diff when it
/// changed.
pub(super) fn lines(c: &Change) -> Vec<String> {
    if c.change == ChangeKind::Changed
        && let (Some(Value::String(a)), Some(Value::String(b))) = (&c.old, &c.new)
        && (a.contains('\n') || b.contains('\n'))
    {
        return crate::textdiff::unified(a, b, None, 2)
            .lines()
            .map(str::to_string)
            .collect();
    }
    let mut out = Vec::new();
    for (sign, v) in [("-", &c.old), ("+", &c.new)] {
        match v {
            Some(Value::String(s)) if s.contains('\n') => {
                out.extend(s.lines().map(|l| format!("{sign}{l}")));
            }
            Some(v) => out.push(format!("{sign} {}", show(v))),
            None => {}
        }
    }
    out
}

/// What happened, after the path: `UTC → Europe/Paris`, `removed`, `+ nginx`.
/// The flag tells whether that shows the values in full (no lines needed).
pub(super) fn what(c: &Change) -> (String, bool) {
    let one_line = |v: &Option<Value>| !multiline(v.as_ref()) && !collection(v.as_ref());
    match c.change {
        ChangeKind::Changed if one_line(&c.old) && one_line(&c.new) => {
            let (a, b) = (c.old.as_ref(), c.new.as_ref());
            let (a, b) = (
                a.map(show).unwrap_or_default(),
                b.map(show).unwrap_or_default(),
            );
            (format!("{a} → {b}"), true)
        }
        ChangeKind::Changed => ("changed".into(), false),
        ChangeKind::Added => ("added".into(), false),
        ChangeKind::Removed => ("removed".into(), false),
        ChangeKind::ItemAdded => (
            format!("+ {}", c.new.as_ref().map(show).unwrap_or_default()),
            true,
        ),
        ChangeKind::ItemRemoved => (
            format!("- {}", c.old.as_ref().map(show).unwrap_or_default()),
            true,
        ),
    }
}

fn collection(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::Array(_) | Value::Object(_)))
}

/// Why the changes of a group happened, with each file passed through
/// `file` (code spans, in markdown): the cause when it is known, else the
/// changed inputs the hosts share; then where the value is set (or was),
/// when that is another place. `None` when nothing is known (render
/// directories).
pub(super) fn why(g: &Group, file: &dyn Fn(&str) -> String) -> Option<String> {
    let c = &g.change;
    let mut parts: Vec<String> = Vec::new();
    match &c.cause {
        Some(cause) => parts.push(format!("caused by {}", place(cause, file))),
        None => {
            let inputs: Vec<String> = g.changed_inputs.iter().flatten().map(|f| file(f)).collect();
            match inputs.as_slice() {
                [] => {}
                [one] => parts.push(format!("caused by a change to {one}")),
                _ => parts.push(format!(
                    "caused by a change to one of {}",
                    inputs.join(", ")
                )),
            }
        }
    }
    if let Some(at) = c.at.as_ref().filter(|at| c.cause.as_ref() != Some(*at)) {
        let verb = if at.side == "old" { "was" } else { "is now" };
        parts.push(format!("it {verb} set at {}", file(&at.to_string())));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// A place, told to be in the old version of its file when it is.
fn place(p: &Place, file: &dyn Fn(&str) -> String) -> String {
    let old = if p.side == "old" {
        " (old version)"
    } else {
        ""
    };
    format!("{}{old}", file(&p.to_string()))
}

/// Which hosts: `on host01.example.org`, `on 412 hosts of example.org`,
/// `on 9 hosts in 2 domains`, each name passed through `name`.
pub(super) fn hosts(
    hosts: &[String],
    domains: &BTreeMap<String, String>,
    name: &dyn Fn(&str) -> String,
) -> String {
    if let [one] = hosts {
        return format!("on {}", name(one));
    }
    let mut domains: Vec<&str> = hosts
        .iter()
        .map(|h| domains.get(h).map_or_else(|| domain(h), String::as_str))
        .collect();
    domains.sort_unstable();
    domains.dedup();
    match domains.as_slice() {
        [d] => format!("on {} of {}", count(hosts.len(), "host"), name(d)),
        _ => format!(
            "on {} in {}",
            count(hosts.len(), "host"),
            count(domains.len(), "domain")
        ),
    }
}

/// The FQDN after its first label: a host's domain when the side did not
/// say (a render directory).
fn domain(fqdn: &str) -> &str {
    fqdn.split_once('.').map_or(fqdn, |(_, d)| d)
}

pub(super) fn footer(s: &Summary) -> String {
    format!(
        "{} changed, {} added, {} removed, {} unchanged",
        count(s.changed, "host"),
        s.added,
        s.removed,
        s.unchanged
    )
}

pub(crate) fn to_text(r: &Report) -> String {
    let mut out = String::new();
    for h in &r.added {
        out.push_str(&format!("+ {h} (added)\n"));
    }
    for h in &r.removed {
        out.push_str(&format!("- {h} (removed)\n"));
    }
    for c in &r.changed {
        host_text(c, &mut out);
    }
    if !r.groups.is_empty() {
        out.push_str("Summary:\n");
        for g in &r.groups {
            let (what, _) = what(&g.change);
            let mut line = format!(
                "  {}: {what} {}",
                g.change.path,
                hosts(&g.hosts, &r.domains, &|h| h.into())
            );
            if let Some(why) = why(g, &|f| f.into()) {
                line.push_str(&format!(", {why}"));
            }
            out.push_str(&line);
            out.push('\n');
        }
    }
    out.push_str(&footer(&r.summary));
    out.push('\n');
    out
}

/// A changed host: its changed inputs and config changes with their
/// causes, then (`--plan`) the plan's diff they made.
fn host_text(c: &HostChange, out: &mut String) {
    out.push_str(&format!("~ {}\n", c.host));
    if let Some(inputs) = c.changed_inputs.as_ref().filter(|i| !i.is_empty()) {
        out.push_str(&format!("  changed inputs: {}\n", inputs.join(", ")));
    }
    for p in &c.changes {
        let (what, complete) = what(p);
        let mut at = match &p.cause {
            Some(cause) => format!("  ← {}", place(cause, &|f| f.into())),
            None => String::new(),
        };
        if let Some(place) = p.at.as_ref().filter(|at| p.cause.as_ref() != Some(*at)) {
            let verb = if place.side == "old" { "was" } else { "now" };
            if at.is_empty() {
                at = format!("  ({verb} at {place})");
            } else {
                at.push_str(&format!("; {verb} at {place}"));
            }
        }
        out.push_str(&format!("  {}: {what}{at}\n", p.path));
        if !complete {
            for line in lines(p) {
                out.push_str(&format!("    {line}\n"));
            }
        }
    }
    if let Some(d) = &c.plan_diff {
        for line in d.lines() {
            out.push_str(&format!("    {line}\n"));
        }
    }
}

pub(crate) fn to_stat(r: &Report) -> String {
    let mut rows: Vec<(String, String)> = Vec::new();
    for h in &r.added {
        rows.push((h.clone(), "added".into()));
    }
    for h in &r.removed {
        rows.push((h.clone(), "removed".into()));
    }
    for c in &r.changed {
        let what = match &c.plan_diff {
            Some(d) => {
                let plus = d
                    .lines()
                    .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
                    .count();
                let minus = d
                    .lines()
                    .filter(|l| l.starts_with('-') && !l.starts_with("---"))
                    .count();
                format!("+{plus} -{minus} lines")
            }
            None => count(c.changes.len(), "change"),
        };
        rows.push((c.host.clone(), what));
    }
    rows.sort();
    let width = rows.iter().map(|(h, _)| h.len()).max().unwrap_or(0);
    let mut out: String = rows
        .iter()
        .map(|(h, w)| format!("{h:width$} | {w}\n"))
        .collect();
    out.push_str(&footer(&r.summary));
    out.push('\n');
    out
}
