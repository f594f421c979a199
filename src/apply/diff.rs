//! Comparing the steps with a state snapshot, and the dry-run report.

use serde::Serialize;

use super::state::State;
use super::{Desired, Step};
use crate::desired::Record;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Action {
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
pub(crate) struct Change {
    pub field: String,
    pub before: serde_json::Value,
    pub after: serde_json::Value,
}

/// What applying one step would do.
#[derive(Debug, Serialize)]
pub(crate) struct Outcome {
    pub id: String,
    pub kind: super::StepKind,
    pub action: Action,
    pub changes: Vec<Change>,
    /// A unified diff of a file's content, when it changes.
    pub diff: Option<String>,
    /// What the change leaves to be done (a loader.conf change needs a
    /// reboot), when it changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<&'static str>,
    pub check: String,
    pub change: String,
    /// The services this step's change reloads or restarts (handlers).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notify: Vec<crate::desired::Notify>,
}

/// Compares each step with the snapshot (`None`: state unknown); with
/// `prune`, each recorded item that left the config is a removal.
pub(crate) fn compare(steps: &[Step], state: Option<&State>, prune: bool) -> Vec<Outcome> {
    let mut out: Vec<Outcome> = steps
        .iter()
        .map(|step| {
            let (action, changes, diff) = match state {
                None => (Action::Unknown, Vec::new(), None),
                Some(s) => judge(&step.desired, s),
            };
            let note = match action {
                Action::Noop => None,
                _ => super::system::note(step.kind),
            };
            Outcome {
                id: step.id.clone(),
                kind: step.kind,
                action,
                changes,
                diff,
                note,
                check: step.check.clone(),
                change: step.change.clone(),
                notify: step.notify.clone(),
            }
        })
        .collect();
    if let Some(s) = state
        && prune
    {
        out.extend(removals(steps, s));
    }
    out
}

/// The recorded items the steps no longer hold, as removals (an item of a
/// kind this beryl does not know is kept by the script, and left out here).
fn removals(steps: &[Step], s: &State) -> Vec<Outcome> {
    let desired: std::collections::BTreeSet<String> = steps
        .iter()
        .filter_map(|st| st.record.as_ref().map(|r| r.line()))
        .collect();
    s.managed
        .iter()
        .filter_map(|(kind, id)| {
            let kind = super::prune::kind(kind)?;
            let r = Record::new(kind.kind, id.clone());
            // Kept while desired; forgotten by the script once gone; a
            // step of the same id (a dataset to destroy) says it itself.
            let step_id = super::prune::step_id(&r);
            if desired.contains(&r.line())
                || !s.has(r.kind, &r.id)
                || steps.iter().any(|st| st.id == step_id)
            {
                return None;
            }
            let id = crate::shell::word(&r.id).ok()?;
            if let Some(why) = kind.kept {
                return Some(Outcome {
                    id: step_id,
                    kind: kind.step,
                    action: Action::Noop,
                    changes: vec![change("pruning", "recorded", why)],
                    diff: None,
                    note: None,
                    check: format!("exists_{} {id}", kind.kind),
                    change: format!("keep_{} {id}", kind.kind),
                    notify: Vec::new(),
                });
            }
            Some(Outcome {
                id: super::prune::step_id(&r),
                kind: kind.step,
                action: Action::Delete,
                changes: Vec::new(),
                diff: None,
                note: super::system::removal_note(kind.step),
                check: format!("! exists_{} {id}", kind.kind),
                change: format!("remove_{} {id}", kind.kind),
                notify: Vec::new(),
            })
        })
        .collect()
}

pub(super) fn change(field: &str, before: &str, after: &str) -> Change {
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
    let create = (Action::Create, Vec::new(), None);
    match d {
        Desired::Bootstrap => {
            if s.pkg_bootstrapped() {
                noop
            } else {
                create
            }
        }
        Desired::Package { name } => {
            if s.has_package(name) {
                noop
            } else {
                create
            }
        }
        Desired::Group { name } => {
            if s.groups.contains_key(name) {
                noop
            } else {
                create
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
                return create;
            };
            let mut changes = Vec::new();
            if let Some(uid) = u.uid
                && have.uid != uid.to_string()
            {
                changes.push(change("uid", &have.uid, &uid.to_string()));
            }
            if let Some(g) = &u.primary_group
                && let Some(gid) = s.groups.get(g).map(|g| &g.gid)
                && &have.gid != gid
            {
                changes.push(change("primary_group", &have.gid, gid));
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
            let mut want = u.groups.clone();
            want.sort();
            want.dedup();
            if groups != want {
                changes.push(Change {
                    field: "groups".into(),
                    before: groups.into(),
                    after: want.into(),
                });
            }
            verdict(changes, None)
        }
        Desired::RootPassword { hash } => {
            let want = hash.as_ref().map_or("*".to_string(), |h| {
                format!("sha256:{}", super::sha256_hex(h))
            });
            let empty = format!("sha256:{}", super::sha256_hex(""));
            let shown = |v: &str| {
                match v {
                    "*" => "locked",
                    v if v == empty => "empty",
                    _ => "a hash",
                }
                .to_string()
            };
            if s.root_password == want {
                noop
            } else {
                (
                    Action::Update,
                    vec![change("password", &shown(&s.root_password), &shown(&want))],
                    None,
                )
            }
        }
        Desired::Keys {
            user,
            group,
            content,
        } => {
            let Some(have) = s.users.get(user) else {
                return create;
            };
            let mut changes = Vec::new();
            if let Some(dir) = &have.ssh_dir {
                let (hd, wd) = (format!("{} {}", dir.mode, dir.owner), format!("700 {user}"));
                if hd != wd {
                    changes.push(change("directory", &hd, &wd));
                }
            }
            let Some(file) = &have.authorized_keys else {
                return create;
            };
            let diff = compare_file(file, content, "600", user, group, &mut changes);
            verdict(changes, diff)
        }
        Desired::File(f) => {
            let Some(have) = s.files.get(&f.path).and_then(|f| f.as_ref()) else {
                return create;
            };
            let mut changes = Vec::new();
            let diff = compare_file(have, &f.content, &f.mode, &f.owner, &f.group, &mut changes);
            verdict(changes, diff)
        }
        Desired::Sshd { settings } => {
            let have = s
                .files
                .get(crate::desired::SSHD_CONFIG)
                .and_then(|f| f.as_ref())
                .map_or("", |f| f.content.as_str());
            let want = crate::desired::sshd::edit(have, settings);
            if want == have {
                noop
            } else {
                (Action::Update, Vec::new(), Some(unified(have, &want)))
            }
        }
        Desired::Rc(v) => match s.rc_value(&v.name, &v.owners) {
            Some(have) if have == v.value => noop,
            Some(have) => (Action::Update, vec![change(&v.name, &have, &v.value)], None),
            None => (Action::Create, vec![change(&v.name, "", &v.value)], None),
        },
        Desired::Service(svc) => {
            let want = if svc.enable { "YES" } else { "NO" };
            let have = s.rc_value(&svc.rcvar, &svc.owners);
            let mut changes = Vec::new();
            if have.as_deref() != Some(want) {
                changes.push(change(&svc.rcvar, have.as_deref().unwrap_or(""), want));
            }
            // Unknown when the snapshot did not look (an older facts
            // script): judged by the variable alone.
            if let Some(running) = s.services.get(&svc.name).map(|x| x.running)
                && running != svc.enable
            {
                changes.push(change(
                    "running",
                    &running.to_string(),
                    &svc.enable.to_string(),
                ));
            }
            match (changes.is_empty(), have.is_none()) {
                (true, _) => noop,
                (false, true) => (Action::Create, changes, None),
                (false, false) => (Action::Update, changes, None),
            }
        }
        Desired::Zpool(p) => super::zfs::judge_pool(p, s),
        Desired::Dataset(d) => super::zfs::judge_dataset(d, s),
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
        Desired::Sysctl { name, value } => super::system::judge_sysctl(s, name, value),
        Desired::Loader { name, value } => super::system::judge_loader(s, name, value),
        Desired::Cron(e) => super::system::judge_cron(s, e),
    }
}

pub(super) fn verdict(
    changes: Vec<Change>,
    diff: Option<String>,
) -> (Action, Vec<Change>, Option<String>) {
    if changes.is_empty() {
        (Action::Noop, Vec::new(), None)
    } else {
        (Action::Update, changes, diff)
    }
}

/// Mode, owner and content of a file; the unified diff when the content
/// differs.
pub(super) fn compare_file(
    have: &super::state::File,
    content: &str,
    mode: &str,
    owner: &str,
    group: &str,
    changes: &mut Vec<Change>,
) -> Option<String> {
    if have.mode != mode {
        changes.push(change("mode", &have.mode, mode));
    }
    let (ho, wo) = (
        format!("{}:{}", have.owner, have.group),
        format!("{owner}:{group}"),
    );
    if ho != wo {
        changes.push(change("owner", &ho, &wo));
    }
    let want = super::sha256_hex(content);
    if have.sha256 == want {
        return None;
    }
    changes.push(change("sha256", &have.sha256, &want));
    Some(unified(&have.content, content))
}

pub(super) fn unified(have: &str, want: &str) -> String {
    similar::TextDiff::from_lines(have, want)
        .unified_diff()
        .header("current", "desired")
        .to_string()
}

/// The counts of a report.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Summary {
    pub add: usize,
    pub change: usize,
    pub remove: usize,
    pub unchanged: usize,
    pub unknown: usize,
}

pub(crate) fn summary(outcomes: &[Outcome]) -> Summary {
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
pub(crate) fn to_text(host: &str, outcomes: &[Outcome], known: bool) -> String {
    let mut out = format!("apply {host}\n");
    for o in outcomes {
        out.push_str(&format!("{} {}\n", o.action.symbol(), o.id));
        if !known {
            // A command that writes a file holds its lines: indent them
            // under the command, so that every report line starts in place.
            let indent = |cmd: &str| cmd.replace('\n', "\n            ");
            out.push_str(&format!(
                "    check:  {}\n    change: {}\n",
                indent(&o.check),
                indent(&o.change)
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
        if let Some(note) = o.note {
            out.push_str(&format!("    note: {note}\n"));
        }
        if o.action != Action::Noop {
            for n in &o.notify {
                out.push_str(&format!("    notify: {} {}\n", n.service, n.action));
            }
        }
    }
    if known {
        for (service, action) in handlers(outcomes) {
            out.push_str(&format!("~ notify:{service} {action}\n"));
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

/// The services the changing steps notify, as the apply script runs them
/// after its last step: each once, in the order first notified, a restart
/// covering a reload.
pub(crate) fn handlers(outcomes: &[Outcome]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let changing = outcomes
        .iter()
        .filter(|o| !matches!(o.action, Action::Noop | Action::Unknown));
    for n in changing.flat_map(|o| &o.notify) {
        match out.iter_mut().find(|(s, _)| *s == n.service) {
            Some((_, action)) if n.action == "restart" => *action = n.action.clone(),
            Some(_) => {}
            None => out.push((n.service.clone(), n.action.clone())),
        }
    }
    out
}
