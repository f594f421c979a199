//! Comparing the steps with a state snapshot, and the dry-run report.

use serde::Serialize;

use super::state::State;
use super::{Desired, Step};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Create,
    Update,
    Delete,
    Noop,
    /// No snapshot: decided on the host.
    Unknown,
}

impl Action {
    fn symbol(self) -> char {
        match self {
            Action::Create => '+',
            Action::Update => '~',
            Action::Delete => '-',
            Action::Noop => '=',
            Action::Unknown => '?',
        }
    }
}

/// One field that differs. `before` and `after` are strings, except for a
/// user's `groups`: lists of names.
#[derive(Debug, Serialize)]
pub struct Change {
    pub field: String,
    pub before: serde_json::Value,
    pub after: serde_json::Value,
}

/// What applying one step would do.
#[derive(Debug, Serialize)]
pub struct Outcome {
    pub id: String,
    pub kind: super::Kind,
    pub action: Action,
    pub changes: Vec<Change>,
    /// A unified diff of a file's content, when it changes.
    pub diff: Option<String>,
    pub check: String,
    pub change: String,
}

/// Compares each step with the snapshot (`None`: state unknown).
pub fn compare(steps: &[Step], state: Option<&State>) -> Vec<Outcome> {
    steps
        .iter()
        .map(|step| {
            let (action, changes, diff) = match state {
                None => (Action::Unknown, Vec::new(), None),
                Some(s) => judge(&step.desired, s),
            };
            Outcome {
                id: step.id.clone(),
                kind: step.kind,
                action,
                changes,
                diff,
                check: step.check.clone(),
                change: step.change.clone(),
            }
        })
        .collect()
}

fn change(field: &str, before: &str, after: &str) -> Change {
    Change {
        field: field.into(),
        before: before.into(),
        after: after.into(),
    }
}

/// A value as the text report shows it: a string quoted, a list bracketed.
fn shown(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => format!("{s:?}"),
        serde_json::Value::Array(items) => {
            let items: Vec<String> = items
                .iter()
                .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                .collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

fn judge(d: &Desired, s: &State) -> (Action, Vec<Change>, Option<String>) {
    let noop = (Action::Noop, Vec::new(), None);
    match d {
        Desired::Package { name } => {
            // By origin as `pkg info -e -O` checks it; a snapshot without
            // origins falls back on the origin's last part as the name.
            let have = match name.split_once('/') {
                Some(_) if !s.origins.is_empty() => s.origins.contains(name),
                Some((_, base)) => s.packages.iter().any(|p| p == base),
                None => s.packages.contains(name),
            };
            if have {
                noop
            } else {
                (Action::Create, Vec::new(), None)
            }
        }
        Desired::Group { name } => {
            if s.groups.contains_key(name) {
                noop
            } else {
                (Action::Create, Vec::new(), None)
            }
        }
        Desired::Absent { name } => {
            if s.users.contains_key(name) {
                (Action::Delete, Vec::new(), None)
            } else {
                noop
            }
        }
        Desired::User(u) => {
            let Some(have) = s.users.get(&u.name) else {
                return (Action::Create, Vec::new(), None);
            };
            let mut changes = Vec::new();
            if let Some(uid) = u.uid
                && have.uid != uid.to_string()
            {
                changes.push(change("uid", &have.uid, &uid.to_string()));
            }
            if let Some(c) = &u.comment
                && &have.comment != c
            {
                changes.push(change("comment", &have.comment, c));
            }
            if let Some(sh) = &u.shell
                && &have.shell != sh
            {
                changes.push(change("shell", &have.shell, sh));
            }
            let groups = s.groups_of(&u.name);
            if groups != u.groups {
                changes.push(Change {
                    field: "groups".into(),
                    before: groups.into(),
                    after: u.groups.clone().into(),
                });
            }
            if changes.is_empty() {
                noop
            } else {
                (Action::Update, changes, None)
            }
        }
        Desired::File {
            path,
            content,
            mode,
            owner,
            group,
            dir_mode,
        } => {
            let Some(have) = s.file(path) else {
                return (Action::Create, Vec::new(), None);
            };
            let mut changes = Vec::new();
            if let (Some(want), Some(dir)) = (dir_mode, s.dir(path)) {
                let (hd, wd) = (
                    format!("{} {}", dir.mode, dir.owner),
                    format!("{want} {owner}"),
                );
                if hd != wd {
                    changes.push(change("directory", &hd, &wd));
                }
            }
            if &have.mode != mode {
                changes.push(change("mode", &have.mode, mode));
            }
            let (ho, wo) = (
                format!("{}:{}", have.owner, have.group),
                format!("{owner}:{group}"),
            );
            if ho != wo {
                changes.push(change("owner", &ho, &wo));
            }
            let mut diff = None;
            if have.sha256 != super::sha256_hex(content) {
                changes.push(change("sha256", &have.sha256, &super::sha256_hex(content)));
                let text = similar::TextDiff::from_lines(have.content.as_str(), content.as_str())
                    .unified_diff()
                    .header("current", "desired")
                    .to_string();
                diff = Some(text);
            }
            if changes.is_empty() {
                noop
            } else {
                (Action::Update, changes, diff)
            }
        }
        Desired::Sysrc { name, value } => match s.rc_conf.get(name) {
            Some(v) if v == value => noop,
            Some(v) => (Action::Update, vec![change(name, v, value)], None),
            None => (Action::Create, vec![change(name, "", value)], None),
        },
        Desired::Timezone { zone } => {
            if &s.timezone == zone {
                noop
            } else {
                (
                    Action::Update,
                    vec![change("timezone", &s.timezone, zone)],
                    None,
                )
            }
        }
        Desired::Hostname { name } => {
            if &s.hostname == name {
                noop
            } else {
                (
                    Action::Update,
                    vec![change("hostname", &s.hostname, name)],
                    None,
                )
            }
        }
        Desired::Service { name } => {
            let var = format!("{name}_enable");
            match s.rc_conf.get(&var) {
                Some(v) if v.eq_ignore_ascii_case("yes") => noop,
                Some(v) => (Action::Update, vec![change(&var, v, "YES")], None),
                None => (Action::Create, vec![change(&var, "", "YES")], None),
            }
        }
    }
}

/// The counts of a report.
#[derive(Debug, Default, Serialize)]
pub struct Summary {
    pub add: usize,
    pub change: usize,
    pub remove: usize,
    pub unchanged: usize,
    pub unknown: usize,
}

pub fn summary(outcomes: &[Outcome]) -> Summary {
    let mut s = Summary::default();
    for o in outcomes {
        match o.action {
            Action::Create => s.add += 1,
            Action::Update => s.change += 1,
            Action::Delete => s.remove += 1,
            Action::Noop => s.unchanged += 1,
            Action::Unknown => s.unknown += 1,
        }
    }
    s
}

/// The dry-run report as text: one line per step, details indented, a footer.
pub fn to_text(host: &str, outcomes: &[Outcome], known: bool) -> String {
    let mut out = format!("apply {host}\n");
    for o in outcomes {
        out.push_str(&format!("{} {}\n", o.action.symbol(), o.id));
        if !known {
            out.push_str(&format!(
                "    check:  {}\n    change: {}\n",
                o.check, o.change
            ));
            continue;
        }
        for c in &o.changes {
            if c.field == "sha256" {
                continue;
            }
            out.push_str(&format!(
                "    {}: {} -> {}\n",
                c.field,
                shown(&c.before),
                shown(&c.after)
            ));
        }
        if let Some(d) = &o.diff {
            for line in d.lines() {
                out.push_str(&format!("    {line}\n"));
            }
        }
    }
    let s = summary(outcomes);
    if known {
        out.push_str(&format!(
            "Plan: {} to add, {} to change, {} to remove, {} unchanged.\n",
            s.add, s.change, s.remove, s.unchanged
        ));
    } else {
        out.push_str(&format!("Plan: {} steps, state unknown.\n", outcomes.len()));
    }
    out
}

/// The dry-run report as data (docs/apply.md).
#[derive(Debug, Serialize)]
pub struct Report<'a> {
    pub format_version: u32,
    pub host: &'a str,
    pub state: &'static str,
    pub summary: Summary,
    pub steps: &'a [Outcome],
}

pub fn to_json(host: &str, outcomes: &[Outcome], known: bool) -> String {
    let report = Report {
        format_version: 1,
        host,
        state: if known { "known" } else { "unknown" },
        summary: summary(outcomes),
        steps: outcomes,
    };
    let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
    text.push('\n');
    text
}
