//! Comparing the steps with a state snapshot, and the dry-run report.

use serde::Serialize;

use super::Step;
use crate::resource::state::State;
use crate::resource::verdict::{Action, Change, Verdict, change};
use crate::resource::{Notify, Record};
use crate::value::repr::visible;

/// The lines of a file's diff the text report shows.
const MAX_DIFF_LINES: usize = 200;

/// How the text report marks an action.
fn symbol(action: Action) -> char {
    match action {
        Action::Create => '+',
        Action::Update => '~',
        Action::Delete => '-',
        Action::Noop => '=',
        Action::Unknown => '?',
        Action::Refuse => '!',
    }
}

/// What applying one step would do.
#[derive(Debug, Serialize)]
pub(crate) struct Outcome {
    pub id: String,
    /// The step's kind, as [`Step::kind`] names it.
    pub kind: &'static str,
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
    pub notify: Vec<Notify>,
}

/// Compares each step with the snapshot (`None`: state unknown); with
/// `prune`, each recorded item that left the config is a removal.
pub(crate) fn compare(steps: &[Step], state: Option<&State>, prune: bool) -> Vec<Outcome> {
    let mut out: Vec<Outcome> = steps
        .iter()
        .map(|step| {
            let Verdict {
                action,
                changes,
                diff,
                note,
            } = match state {
                None => Verdict::new(Action::Unknown, Vec::new(), None),
                Some(s) => step.desired.judge(s),
            };
            // The kind's note when the step changes (a reboot, a reload),
            // else what the host's state adds to say.
            let note = match action {
                Action::Noop => note,
                _ => step.desired.note().or(note),
            };
            let (check, change) = step.shown();
            Outcome {
                id: step.id.clone(),
                kind: step.kind(),
                action,
                changes,
                diff,
                note,
                check,
                change,
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
            let kind = crate::resource::pruned(kind)?;
            let r = Record::new(kind.kind, id.clone());
            // Kept while desired; forgotten by the script once gone; a
            // step of the same id (a dataset to destroy) says it itself.
            let step_id = super::prune::step_id(&r);
            if desired.contains(&r.line())
                || !(kind.present)(s, &r.id)
                || steps.iter().any(|st| st.id == step_id)
            {
                return None;
            }
            let id = crate::shell::word(&r.id).ok()?;
            if let Some(why) = kind.kept {
                return Some(Outcome {
                    id: step_id,
                    kind: kind.step_kind,
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
                id: step_id,
                kind: kind.step_kind,
                action: Action::Delete,
                changes: Vec::new(),
                diff: None,
                note: kind.removal_note,
                check: format!("! exists_{} {id}", kind.kind),
                change: format!("remove_{} {id}", kind.kind),
                notify: kind
                    .removal_notify
                    .iter()
                    .filter(|n| n.covers(&r.id))
                    .map(|n| Notify {
                        service: n.service.into(),
                        action: n.action.into(),
                    })
                    .collect(),
            })
        })
        .collect()
}

/// What the report says of a jail beryl did not make (issue 36), as the
/// apply script's `foreign_jails` prints it.
pub(crate) const FOREIGN_JAIL: &str = "kept: not made by beryl (not in its record); left alone";

/// The jails of the snapshot that run or have a conf and that neither the
/// steps lay out nor the record holds: each one unchanged, with
/// [`FOREIGN_JAIL`] (src/apply/script.rs `foreign_jails`, which apply runs
/// after its pruning, on a host whose own steps run).
pub(crate) fn foreign_jails(steps: &[Step], s: &State) -> Vec<Outcome> {
    let name = |id: &str| id.split(' ').next().unwrap_or_default().to_string();
    let ours: std::collections::BTreeSet<String> = steps
        .iter()
        .filter_map(|st| st.record.as_ref())
        .filter(|r| r.kind == "jail")
        .map(|r| name(&r.id))
        .chain(
            s.managed
                .iter()
                .filter(|(k, _)| k == "jail")
                .map(|(_, id)| name(id)),
        )
        .collect();
    s.jails
        .iter()
        .filter(|(n, j)| (j.running || j.conf.is_some()) && !n.contains('.') && !ours.contains(*n))
        .map(|(n, _)| {
            let shown: String = n
                .chars()
                .map(|c| match c {
                    'A'..='Z' | 'a'..='z' | '0'..='9' | '_' | '.' | '-' => c,
                    _ => '?',
                })
                .collect();
            Outcome {
                id: format!("jail:{shown}"),
                kind: "jail",
                action: Action::Noop,
                changes: Vec::new(),
                diff: None,
                note: Some(FOREIGN_JAIL),
                check: "foreign_jails".into(),
                change: String::new(),
                notify: Vec::new(),
            }
        })
        .collect()
}

/// A value as the text report shows it: a string quoted, a list bracketed.
fn shown(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => format!("{s:?}"),
        serde_json::Value::Array(items) => {
            let items: Vec<String> = items
                .iter()
                .map(|i| {
                    i.as_str()
                        .map_or_else(|| i.to_string(), |s| visible(s, &[]))
                })
                .collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

/// The counts of a report.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Summary {
    pub add: usize,
    pub change: usize,
    pub remove: usize,
    pub unchanged: usize,
    pub unknown: usize,
    /// Steps that apply would refuse (a link where a file should be).
    #[serde(skip_serializing_if = "is_zero")]
    pub refused: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Summary {
    /// Steps that would do something, or fail: anything but unchanged.
    pub(crate) fn pending(&self) -> usize {
        self.add + self.change + self.remove + self.unknown + self.refused
    }
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
            Action::Refuse => s.refused += 1,
        }
    }
    s
}

/// The fields that differ, and a file's diff, bounded: a reviewer reads
/// the start of a long file here, and the whole of it in --format json.
fn changes(out: &mut String, o: &Outcome) {
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
    // A file's lines come from the host: their control characters are
    // shown, never sent to the terminal.
    if let Some(d) = &o.diff {
        let total = d.lines().count();
        for line in d.lines().take(MAX_DIFF_LINES) {
            out.push_str(&format!("    {}\n", visible(line, &['\t'])));
        }
        if total > MAX_DIFF_LINES {
            out.push_str(&format!(
                "    … {} more lines of diff (the whole diff is in --format json)\n",
                total - MAX_DIFF_LINES
            ));
        }
    }
}

/// The dry-run report as text: one line per step, details indented, a footer.
pub(crate) fn to_text(host: &str, outcomes: &[Outcome], known: bool) -> String {
    let mut out = format!("apply {host}\n");
    for o in outcomes {
        out.push_str(&format!("{} {}\n", symbol(o.action), o.id));
        if known {
            changes(&mut out, o);
        } else {
            // A command that writes a file holds its lines: indent them
            // under the command, so that every report line starts in place.
            let indent = |cmd: &str| cmd.replace('\n', "\n            ");
            out.push_str(&format!(
                "    check:  {}\n    change: {}\n",
                indent(&o.check),
                indent(&o.change)
            ));
        }
        // What a change would leave to be done, and the services it would
        // notify: said with or without a snapshot.
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
        if s.refused > 0 {
            out.push_str(&format!(
                "Refused: {} steps would fail: apply follows no link on the host.\n",
                s.refused
            ));
        }
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
        .filter(|o| !matches!(o.action, Action::Noop | Action::Unknown | Action::Refuse));
    for n in changing.flat_map(|o| &o.notify) {
        match out.iter_mut().find(|(s, _)| *s == n.service) {
            Some((_, action)) if n.action == "restart" => *action = n.action.clone(),
            Some(_) => {}
            None => out.push((n.service.clone(), n.action.clone())),
        }
    }
    out
}
