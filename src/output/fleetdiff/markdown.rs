//! The markdown form: a pull-request comment that is safe and bounded.
//!
//! Safe: every value sits in a code block whose fence is longer than any run
//! of backticks in it, every path and file name in a code span built the
//! same way, and any other text from the inventory (host and domain names)
//! is escaped, HTML included. Bounded: identical changes are grouped across
//! hosts, and sections, most hosts first, are kept whole while the comment
//! stays under [`MAX_COMMENT`] characters; a last line tells how many were
//! left out and the command that shows them.

use super::text::{footer, hosts, lines, why};
use super::{ChangeKind, Group, Report, count};

/// The most characters a GitHub comment holds; the comment stays under it.
pub(crate) const MAX_COMMENT: usize = 65_536;

/// Room kept for the last line that tells what was left out.
const NOTE_ROOM: usize = 1_024;

/// The most host names listed in a group, and in the added and removed lists.
const LIST_GROUP: usize = 10;
const LIST_HOSTS: usize = 50;

/// A section and what it counts as when left out (`change`, `host`).
struct Section {
    text: String,
    noun: &'static str,
}

/// The comment. `again` is the command that prints the whole diff, named
/// in the last line when sections are left out.
pub(crate) fn to_markdown(r: &Report, again: &str) -> String {
    let mut out = format!("### beryl diff\n\n**{}**\n", footer(&r.summary));
    let mut sections = Vec::new();
    for (label, list) in [("Added", &r.added), ("Removed", &r.removed)] {
        if !list.is_empty() {
            sections.push(host_list(label, list));
        }
    }
    for g in &r.groups {
        sections.push(group(g));
    }
    for c in &r.changed {
        if let Some(d) = &c.plan_diff {
            sections.push(Section {
                text: format!(
                    "\n<details><summary>{}</summary>\n\n{}\n</details>\n",
                    esc(&c.host),
                    fenced("diff", d)
                ),
                noun: "host",
            });
        }
    }
    let budget = MAX_COMMENT - 1 - NOTE_ROOM;
    let mut used = out.chars().count();
    let mut left: Vec<&Section> = Vec::new();
    for s in &sections {
        let n = s.text.chars().count();
        if left.is_empty() && used + n <= budget {
            out.push_str(&s.text);
            used += n;
        } else {
            left.push(s);
        }
    }
    if !left.is_empty() {
        out.push_str(&note(&left, again));
    }
    out
}

fn host_list(label: &str, list: &[String]) -> Section {
    let mut names: Vec<String> = list.iter().take(LIST_HOSTS).map(|h| esc(h)).collect();
    if list.len() > LIST_HOSTS {
        names.push(format!("and {} more", list.len() - LIST_HOSTS));
    }
    Section {
        text: format!(
            "\n**{label}:** {}: {}\n",
            count(list.len(), "host"),
            names.join(", ")
        ),
        noun: "host list",
    }
}

fn group(g: &Group) -> Section {
    let what = match g.change.change {
        ChangeKind::Added => "added",
        ChangeKind::Removed => "removed",
        ChangeKind::Changed => "changed",
        ChangeKind::ItemAdded => "item added",
        ChangeKind::ItemRemoved => "item removed",
    };
    let mut text = format!(
        "\n**{}** {what} {}",
        code(&g.change.path),
        hosts(&g.hosts, &|h| esc(h))
    );
    if let Some(why) = why(g, &|f| code(f)) {
        text.push_str(&format!(", {why}"));
    }
    text.push('\n');
    if (2..=LIST_GROUP).contains(&g.hosts.len()) {
        let names: Vec<String> = g.hosts.iter().map(|h| esc(h)).collect();
        text.push_str(&format!("({})\n", names.join(", ")));
    }
    text.push('\n');
    let mut body = lines(&g.change).join("\n");
    body.push('\n');
    text.push_str(&fenced("diff", &body));
    Section {
        text,
        noun: "change",
    }
}

/// The last line: what was left out, and how to see it.
fn note(left: &[&Section], again: &str) -> String {
    let parts: Vec<String> = ["host list", "change", "host"]
        .into_iter()
        .filter_map(
            |noun| match left.iter().filter(|s| s.noun == noun).count() {
                0 => None,
                1 => Some(format!("1 more {noun}")),
                n => Some(format!("{n} more {noun}s")),
            },
        )
        .collect();
    format!(
        "\n_{} not shown, to keep this comment under 65,536 characters: run {} to see the whole diff._\n",
        parts.join(" and "),
        code(again)
    )
}

/// A fenced code block longer than any run of backticks in `body` (which
/// ends with a newline).
pub(super) fn fenced(lang: &str, body: &str) -> String {
    let fence = "`".repeat(longest_run(body).max(2) + 1);
    let mut body = body.to_string();
    if !body.ends_with('\n') {
        body.push('\n');
    }
    format!("{fence}{lang}\n{body}{fence}\n")
}

/// An inline code span that its content cannot close: a delimiter longer
/// than any backtick run inside, padded when the content starts or ends
/// with a backtick; line breaks and other control characters are written
/// as escapes, so the span stays on its line.
pub(super) fn code(s: &str) -> String {
    let s: String = s
        .chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect();
    let ticks = "`".repeat(longest_run(&s) + 1);
    let pad = if s.starts_with(['`', ' ']) || s.ends_with(['`', ' ']) {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{s}{pad}{ticks}")
}

fn longest_run(s: &str) -> usize {
    s.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// Text outside code: HTML's special characters as entities, markdown's
/// punctuation backslashed, control characters dropped.
pub(super) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if c.is_control() => {}
            c if c.is_ascii_punctuation() && !matches!(c, '.' | ',' | ':' | '/' | '-') => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}
