//! The markdown form: a pull-request comment that is safe and bounded.
//!
//! Safe: every value sits in a code block whose fence is longer than any run
//! of backticks in it, every path and file name in a code span built the
//! same way, and any other text from the inventory (host and domain names)
//! is escaped, HTML included. Bounded, and never hiding what changed:
//! identical changes are grouped across hosts, and changes of one path by
//! one cause whatever their values (a value of each host's own) into one
//! section; every section's header (path, hosts, cause) is kept while the
//! comment stays under [`MAX_COMMENT`] characters, and a value that does not
//! fit is dropped alone (`_value not shown: N characters_`); a last line
//! tells what was left out and the command that shows it.

use super::text::{footer, hosts, lines, why};
use super::{ChangeKind, Group, Report, count};
use crate::textdiff::thousands;

/// The most characters a GitHub comment holds; the comment stays under it.
pub(crate) const MAX_COMMENT: usize = 65_536;

/// Room kept for the last line that tells what was left out.
const NOTE_ROOM: usize = 1_024;

/// The most host names listed in a group, and in the added and removed lists.
const LIST_GROUP: usize = 10;
const LIST_HOSTS: usize = 50;

/// A section: its header (what changed, where, why), the value it shows,
/// which is dropped alone when it does not fit, and what closes it. `noun`
/// is what it counts as when left out (`change`, `host`).
struct Section {
    head: String,
    /// The value, as long as it fits, else shorter forms of it, longest
    /// first (a family's every value, then the first half of them, …).
    body: Vec<String>,
    /// How many of a family's values each form of `body` leaves out.
    omitted: Vec<usize>,
    tail: &'static str,
    noun: &'static str,
}

impl Section {
    /// What stands for the value when it is left out.
    fn stand_in(&self) -> String {
        match self.body.first() {
            Some(body) => format!(
                "_value not shown: {} characters_\n",
                thousands(body.chars().count() as u64)
            ),
            None => String::new(),
        }
    }
}

/// The comment. `again` is the command that prints the whole diff, named
/// in the last line when sections or values are left out.
pub(crate) fn to_markdown(r: &Report, again: &str) -> String {
    let mut out = format!("### beryl diff\n\n**{}**\n", footer(&r.summary));
    let mut sections = Vec::new();
    for (label, list) in [("Added", &r.added), ("Removed", &r.removed)] {
        if !list.is_empty() {
            sections.push(host_list(label, list));
        }
    }
    for f in families(&r.groups) {
        sections.push(family(&f, &r.domains));
    }
    for c in &r.changed {
        if let Some(d) = &c.plan_diff {
            sections.push(Section {
                head: format!("\n<details><summary>{}</summary>\n\n", esc(&c.host)),
                body: vec![fenced("diff", d)],
                omitted: vec![0],
                tail: "</details>\n",
                noun: "host",
            });
        }
    }
    let fit = fit(&sections, MAX_COMMENT - 1 - NOTE_ROOM - out.chars().count());
    let mut left: Vec<&Section> = Vec::new();
    // Values left out: of changes, of hosts' plans; of families.
    let (mut values_left, mut plans_left, mut other_values) = (0, 0, 0);
    for (s, fit) in sections.iter().zip(fit) {
        match fit {
            Fit::Whole(_) | Fit::Head => {
                out.push_str(&s.head);
                match fit {
                    Fit::Whole(i) if i < s.body.len() => {
                        out.push_str(&s.body[i]);
                        // A family shown by some of its values.
                        other_values += s.omitted[i];
                    }
                    Fit::Whole(_) => {}
                    _ => {
                        out.push_str(&s.stand_in());
                        if s.noun == "host" {
                            plans_left += 1;
                        } else {
                            values_left += 1;
                        }
                    }
                }
                out.push_str(s.tail);
            }
            Fit::Out => left.push(s),
        }
    }
    if !left.is_empty() || values_left + plans_left + other_values > 0 {
        let counts = [values_left, plans_left, other_values];
        out.push_str(&note(&left, counts, again));
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Fit {
    /// The header and the value, in its `i`th form.
    Whole(usize),
    /// The header and a stand-in for the value.
    Head,
    Out,
}

/// Which sections fit in `budget` characters, and how: first every header
/// that fits, in order, each with the stand-in of its value (a section that
/// does not fit is left out, and the next ones are still tried); then, in
/// the same order, each value that fits in what is left in place of its
/// stand-in. So one oversize value costs its own place only.
fn fit(sections: &[Section], budget: usize) -> Vec<Fit> {
    let len = |s: &str| s.chars().count();
    let mut used = 0;
    let mut fits: Vec<Fit> = sections
        .iter()
        .map(|s| {
            // A value no longer than its stand-in is kept with its header.
            let shortest = s.body.iter().map(|b| len(b)).enumerate().next_back();
            let (fit, value) = match shortest {
                Some((i, n)) if n <= len(&s.stand_in()) => (Fit::Whole(i), n),
                Some(_) => (Fit::Head, len(&s.stand_in())),
                None => (Fit::Whole(0), 0),
            };
            let n = len(&s.head) + len(s.tail) + value;
            if used + n <= budget {
                used += n;
                fit
            } else {
                Fit::Out
            }
        })
        .collect();
    for (s, f) in sections.iter().zip(fits.iter_mut()) {
        if *f != Fit::Head {
            continue;
        }
        let less = len(&s.stand_in());
        let form = s.body.iter().position(|body| {
            let more = len(body);
            used + more <= budget + less
        });
        if let Some(i) = form {
            used = (used + len(&s.body[i])).saturating_sub(less);
            *f = Fit::Whole(i);
        }
    }
    fits
}

fn host_list(label: &str, list: &[String]) -> Section {
    let mut names: Vec<String> = list.iter().take(LIST_HOSTS).map(|h| esc(h)).collect();
    if list.len() > LIST_HOSTS {
        names.push(format!("and {} more", list.len() - LIST_HOSTS));
    }
    Section {
        head: format!(
            "\n**{label}:** {}: {}\n",
            count(list.len(), "host"),
            names.join(", ")
        ),
        body: Vec::new(),
        omitted: Vec::new(),
        tail: "",
        noun: "host list",
    }
}

/// The groups of a report that change the same path the same way for the
/// same cause, whatever the value: a value of each host's own
/// (`${_beryl_.fqdn}` in `_default.yml`) is one section, not one per host,
/// with as many of its values as fit.
/// Most hosts first; otherwise in the report's order.
struct Family<'r> {
    /// The first group's change, the union of the hosts, the changed inputs
    /// they all share.
    merged: Group,
    /// The groups, each with a value of its own.
    groups: Vec<&'r Group>,
}

fn families(groups: &[Group]) -> Vec<Family<'_>> {
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut out: Vec<Family> = Vec::new();
    for g in groups {
        let c = &g.change;
        let key = serde_json::to_string(&(&c.path, c.change, &c.cause, &c.at, &c.was))
            .unwrap_or_default();
        let i = *index.entry(key).or_insert_with(|| {
            out.push(Family {
                merged: Group {
                    change: g.change.clone(),
                    hosts: Vec::new(),
                    changed_inputs: g.changed_inputs.clone(),
                },
                groups: Vec::new(),
            });
            out.len() - 1
        });
        let f = &mut out[i];
        f.merged.hosts.extend(g.hosts.iter().cloned());
        if let (Some(common), Some(mine)) = (&mut f.merged.changed_inputs, &g.changed_inputs) {
            common.retain(|x| mine.contains(x));
        }
        f.groups.push(g);
    }
    for f in &mut out {
        f.merged.hosts.sort();
        f.merged.hosts.dedup();
    }
    out.sort_by_key(|f| std::cmp::Reverse(f.merged.hosts.len()));
    out
}

fn family(f: &Family, domains: &std::collections::BTreeMap<String, String>) -> Section {
    let g = &f.merged;
    let what = match g.change.change {
        ChangeKind::Added => "added",
        ChangeKind::Removed => "removed",
        ChangeKind::Changed => "changed",
        ChangeKind::ItemAdded => "item added",
        ChangeKind::ItemRemoved => "item removed",
    };
    let mut head = format!(
        "\n**{}** {what} {}",
        code(&g.change.path),
        hosts(&g.hosts, domains, &|h| esc(h))
    );
    match f.groups.len() {
        1 => {}
        n if n == g.hosts.len() => head.push_str(", the value differs per host"),
        n => head.push_str(&format!(", {} values", thousands(n as u64))),
    }
    if let Some(why) = why(g, &|f| code(f)) {
        head.push_str(&format!(", {why}"));
    }
    head.push('\n');
    if (2..=LIST_GROUP).contains(&g.hosts.len()) {
        let names: Vec<String> = g.hosts.iter().map(|h| esc(h)).collect();
        head.push_str(&format!("({})\n", names.join(", ")));
    }
    head.push('\n');
    // Every value, each named by its hosts when there are others; when
    // that does not fit, the first half of them, and so on down to one.
    let value = |g: &Group| {
        let mut lines = lines(&g.change).join("\n");
        lines.push('\n');
        let block = fenced("diff", &lines);
        match f.groups.len() {
            1 => block,
            _ => format!(
                "The value {}:\n\n{block}",
                hosts(&g.hosts, domains, &|h| esc(h))
            ),
        }
    };
    // The first n values, then half as many, down to one.
    let values: Vec<String> = f.groups.iter().map(|g| value(g)).collect();
    let (mut body, mut omitted) = (Vec::new(), Vec::new());
    let mut k = values.len();
    while k > 0 {
        let mut form = values[..k].join("\n");
        let others = values.len() - k;
        if others > 0 {
            form.push_str(&format!(
                "\n_and {} other {}, in the whole diff_\n",
                thousands(others as u64),
                if others == 1 { "value" } else { "values" }
            ));
        }
        body.push(form);
        omitted.push(others);
        k /= 2;
    }
    Section {
        head,
        body,
        omitted,
        tail: "",
        noun: "change",
    }
}

/// The last line: what was left out, and how to see it.
fn note(left: &[&Section], counts: [usize; 3], again: &str) -> String {
    let [values_left, plans_left, other_values] = counts;
    let mut parts: Vec<String> = Vec::new();
    match values_left {
        0 => {}
        1 => parts.push("the value of 1 change".into()),
        n => parts.push(format!("the values of {} changes", thousands(n as u64))),
    }
    match plans_left {
        0 => {}
        1 => parts.push("the plan diff of 1 host".into()),
        n => parts.push(format!("the plan diffs of {} hosts", thousands(n as u64))),
    }
    match other_values {
        0 => {}
        1 => parts.push("1 value of a change that differs per host".into()),
        n => parts.push(format!(
            "{} values of changes that differ per host",
            thousands(n as u64)
        )),
    }
    parts.extend(
        ["host list", "change", "host"]
            .into_iter()
            .filter_map(
                |noun| match left.iter().filter(|s| s.noun == noun).count() {
                    0 => None,
                    1 => Some(format!("1 more {noun}")),
                    n => Some(format!("{} more {noun}s", thousands(n as u64))),
                },
            ),
    );
    format!(
        "\n_{} not shown, to keep this comment under 65,536 characters: run {} to see the whole diff._\n",
        and_list(&parts),
        code(again)
    )
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
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
