//! Comparing two states of a fleet: host lists, then manifest hashes, then
//! configs path by path, each change located at the input that caused it.
//!
//! Entry point: [`compare`]; the report forms are [`to_text`], [`to_stat`],
//! [`to_markdown`] and [`to_json`] (its schema is docs/diff.md's, and
//! stable). The value-level diff is in `walk.rs` (lists by identity or by
//! alignment), the reading of a compiled host in `input.rs`.

mod cause;
mod input;
mod markdown;
mod text;
mod walk;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

pub(crate) use input::{Files, HostConfig, Names};
#[cfg(test)]
pub(crate) use markdown::MAX_COMMENT;
pub(crate) use markdown::to_markdown;
pub(crate) use text::{to_stat, to_text};

use crate::diag::Diags;
use crate::merge::Policy;
use rayon::prelude::*;

/// The version of the JSON report (docs/diff.md). 2: changes by identity,
/// with causes, changed inputs and groups.
pub(crate) const FORMAT_VERSION: u32 = 2;

/// One side of a diff: each host's hash, and a way to get its config.
pub(crate) struct Side {
    pub hosts: BTreeMap<String, HostState>,
    /// The content of each input file, by name: known for an inventory, not
    /// for a render directory (`None`).
    pub files: Option<Files>,
}

pub(crate) struct HostState {
    pub hash: String,
    /// The config, loaded (or compiled again) only when the hashes differ,
    /// so that the configs of a fleet are never all in memory.
    pub load: Box<dyn Fn() -> Result<Arc<HostConfig>, Diags> + Send + Sync>,
    /// The install plan's text, for `--plan`, its secrets shown as their
    /// digests (`InstallerConfig::secrets`).
    pub plan: Option<String>,
    /// The files the host was compiled from: its chain's level and class
    /// files and the key files it read (empty for a render directory).
    pub inputs: Vec<Arc<str>>,
    /// Its domain in the inventory (a jail's is its host's), when known;
    /// else the FQDN after its first label.
    pub domain: Option<String>,
}

/// What happened at a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ChangeKind {
    /// The path is new.
    Added,
    /// The path is gone.
    Removed,
    /// The value at the path is another.
    Changed,
    /// An item of a list that is not merged by key was inserted.
    ItemAdded,
    /// An item of a list that is not merged by key was deleted.
    ItemRemoved,
}

impl ChangeKind {
    /// Whether the change is located on the old side (the value is gone).
    pub(crate) fn on_old_side(self) -> bool {
        matches!(self, ChangeKind::Removed | ChangeKind::ItemRemoved)
    }
}

/// A place in an input file: on the new side, or on the old side (what a
/// removal or a changed value was). The file is named relative to the
/// inventory (key files under the SSH key directory as given).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub(crate) struct Place {
    pub file: String,
    pub line: u32,
    pub col: u32,
    /// `new` or `old`.
    pub side: &'static str,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct Change {
    /// The path, in the syntax `beryl explain HOST PATH` reads.
    pub path: String,
    pub change: ChangeKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<Value>,
    /// For a list item: its position in the old list (removed) or the new
    /// list (added).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// Where the value is written: on the new side, on the old side for a
    /// removal. Null when not known (a render directory, a computed value).
    pub at: Option<Place>,
    /// For a changed value, where the old value was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub was: Option<Place>,
    /// The edit that made the change: the place, in the most specific input
    /// whose text at this path differs between the sides, of what it writes
    /// there (a knockout included); else the value's own place when its file
    /// differs. Null when not known (a render directory on either side).
    pub cause: Option<Place>,
}

#[derive(Debug, Serialize)]
pub(crate) struct HostChange {
    pub host: String,
    /// The input files of the host (either side) whose content differs
    /// between the sides; absent when a side is a render directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_inputs: Option<Vec<String>>,
    pub changes: Vec<Change>,
    /// A unified diff of the install plans (`--plan`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan_diff: Option<String>,
}

/// One change made identically on several hosts.
#[derive(Debug, Serialize)]
pub(crate) struct Group {
    #[serde(flatten)]
    pub change: Change,
    /// The hosts, sorted.
    pub hosts: Vec<String>,
    /// The changed inputs every one of these hosts shares; absent when not
    /// known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_inputs: Option<Vec<String>>,
}

#[derive(Debug, Default, Serialize)]
pub(crate) struct Summary {
    pub changed: usize,
    pub added: usize,
    pub removed: usize,
    pub unchanged: usize,
}

#[derive(Debug, Serialize)]
pub(crate) struct Report {
    pub format_version: u32,
    pub summary: Summary,
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<HostChange>,
    /// Identical changes across hosts, most hosts first.
    pub groups: Vec<Group>,
    /// Each host's domain where its side knew it (a jail `www.host01.d`
    /// is in `d`, not in `host01.d`): for the summaries' "of DOMAIN".
    #[serde(skip)]
    pub domains: BTreeMap<String, String>,
}

impl Report {
    pub(crate) fn differs(&self) -> bool {
        self.summary.changed + self.summary.added + self.summary.removed > 0
    }
}

/// Compares two sides. With `plans`, hosts are compared by their install
/// plans instead of their configs: a host is changed when its plan is, and
/// shows the config changes that made it so beside the plan's diff.
pub(crate) fn compare(old: &Side, new: &Side, plans: bool) -> Result<Report, Diags> {
    let mut report = Report {
        format_version: FORMAT_VERSION,
        summary: Summary::default(),
        added: Vec::new(),
        removed: Vec::new(),
        changed: Vec::new(),
        groups: Vec::new(),
        domains: old
            .hosts
            .iter()
            .chain(&new.hosts)
            .filter_map(|(fqdn, h)| Some((fqdn.clone(), h.domain.clone()?)))
            .collect(),
    };
    for fqdn in old.hosts.keys().filter(|h| !new.hosts.contains_key(*h)) {
        report.removed.push(fqdn.clone());
    }
    let mut both = Vec::new();
    for (fqdn, n) in &new.hosts {
        match old.hosts.get(fqdn) {
            Some(o) => both.push((fqdn, o, n)),
            None => report.added.push(fqdn.clone()),
        }
    }
    // In parallel: reading a config may compile the host again.
    let results: Vec<Result<Option<HostChange>, Diags>> = both
        .par_iter()
        .map(|(fqdn, o, n)| {
            if plans {
                // A host whose plan changed, with the config changes (and
                // their causes) that changed it.
                let Some(mut change) = plan_change(fqdn, o, n) else {
                    return Ok(None);
                };
                if o.hash != n.hash
                    && let Some(c) = config_change(fqdn, old, o, new, n)?
                {
                    change.changes = c.changes;
                    change.changed_inputs = c.changed_inputs;
                }
                Ok(Some(change))
            } else if o.hash == n.hash {
                Ok(None)
            } else {
                config_change(fqdn, old, o, new, n)
            }
        })
        .collect();
    let mut errors = Vec::new();
    for r in results {
        match r {
            Ok(Some(c)) => report.changed.push(c),
            Ok(None) => report.summary.unchanged += 1,
            Err(e) => errors.extend(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    for c in &mut report.changed {
        c.changes.iter_mut().for_each(redact);
    }
    report.summary.changed = report.changed.len();
    report.summary.added = report.added.len();
    report.summary.removed = report.removed.len();
    report.groups = groups(&report.changed);
    Ok(report)
}

/// The paths whose values are secrets: a diff says that they changed, and
/// the sha256 of each side, never the values (they reach pull-request
/// comments and CI logs). `freebsd.root_password` is a crypt(3) hash, which
/// can be cracked offline.
const SECRETS: &[&str] = &["freebsd.root_password"];

/// A change of a secret, its values replaced by their digests.
fn redact(change: &mut Change) {
    if SECRETS.contains(&change.path.as_str()) {
        digests(change);
    }
}

/// The content of a managed file that others may not read (its mode on
/// either side private) is a secret as root's hash is: a change of it
/// (`freebsd.files.PATH.content`), or of a whole entry or of the whole
/// `freebsd.files` that holds it, shows its digest.
fn redact_private_files(change: &mut Change, sides: [&crate::value::Node; 2]) {
    let Ok(segments) = crate::syntax::path::parse_place(&change.path) else {
        return;
    };
    let texts: Vec<&str> = segments.iter().map(|s| s.text.as_str()).collect();
    let private = |key: &str| {
        sides.iter().any(|cfg| {
            let mode = cfg
                .get("freebsd")
                .and_then(|f| f.get("files"))
                .and_then(|f| f.get(key))
                .and_then(|f| f.get("mode"));
            match mode.map(|m| &m.value) {
                Some(crate::value::Value::Str(s)) => crate::resource::private_mode(s),
                Some(crate::value::Value::Int(n)) => crate::resource::private_mode(&n.to_string()),
                _ => false,
            }
        })
    };
    let content = |entry: &mut Value| {
        if let Some(Value::String(c)) = entry.get("content") {
            let shown = crate::resource::digest_of(c);
            entry["content"] = Value::String(shown);
        }
    };
    match texts.as_slice() {
        ["freebsd", "files", key, "content"] if private(key) => digests(change),
        ["freebsd", "files", key] if private(key) => {
            [&mut change.old, &mut change.new]
                .into_iter()
                .flatten()
                .for_each(content);
        }
        ["freebsd", "files"] => {
            for side in [&mut change.old, &mut change.new].into_iter().flatten() {
                if let Some(map) = side.as_object_mut() {
                    map.iter_mut()
                        .filter(|(key, _)| private(key))
                        .for_each(|(_, entry)| content(entry));
                }
            }
        }
        _ => {}
    }
}

/// The values of a change replaced by their digests.
fn digests(change: &mut Change) {
    let digest = |v: &mut Option<Value>| {
        if let Some(value) = v {
            let text = match &*value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            *value = Value::String(crate::resource::digest_of(&text));
        }
    };
    digest(&mut change.old);
    digest(&mut change.new);
}

fn plan_change(fqdn: &str, o: &HostState, n: &HostState) -> Option<HostChange> {
    let (a, b) = (
        o.plan.as_deref().unwrap_or_default(),
        n.plan.as_deref().unwrap_or_default(),
    );
    if a == b {
        return None;
    }
    let (old_name, new_name) = (format!("old/{fqdn}"), format!("new/{fqdn}"));
    let diff = crate::textdiff::unified(a, b, Some((&old_name, &new_name)), 3);
    Some(HostChange {
        host: fqdn.to_string(),
        changed_inputs: None,
        changes: Vec::new(),
        plan_diff: Some(diff),
    })
}

fn config_change(
    fqdn: &str,
    old: &Side,
    o: &HostState,
    new: &Side,
    n: &HostState,
) -> Result<Option<HostChange>, Diags> {
    let (a, b) = ((o.load)()?, (n.load)()?);
    // Lists are identified by the new side's merge policy, else the old
    // side's; two render directories have neither: the built-in rules.
    let fallback;
    let policy = match (&b.policy, &a.policy) {
        (Some(p), _) | (None, Some(p)) => p,
        (None, None) => {
            fallback = Policy::beryl();
            &fallback
        }
    };
    let mut changes = walk::diff(&a, &b, policy);
    if changes.is_empty() {
        return Ok(None);
    }
    for c in changes.iter_mut() {
        redact_private_files(c, [&a.node, &b.node]);
    }
    let changed_inputs = match (&old.files, &new.files) {
        (Some(of), Some(nf)) => {
            let differs = |name: &str| of.0.get(name) != nf.0.get(name);
            // No document's text at the path changed: the value's own file
            // did (a key file, the class file of a queried host).
            for c in changes.iter_mut().filter(|c| c.cause.is_none()) {
                c.cause = c.at.clone().filter(|at| differs(&at.file));
            }
            // The host's own inputs, and the files its values come from
            // (an inventory query reads other hosts' files).
            let mut names: BTreeSet<&str> =
                o.inputs.iter().chain(&n.inputs).map(|s| &**s).collect();
            names.extend(
                changes
                    .iter()
                    .flat_map(|c| c.at.iter().chain(&c.was))
                    .map(|c| c.file.as_str()),
            );
            Some(
                names
                    .into_iter()
                    .filter(|f| differs(f))
                    .map(str::to_string)
                    .collect(),
            )
        }
        _ => None,
    };
    Ok(Some(HostChange {
        host: fqdn.to_string(),
        changed_inputs,
        changes,
        plan_diff: None,
    }))
}

/// Groups identical changes (path, kind, values and causes) across hosts,
/// most hosts first, then in the order first met.
fn groups(changed: &[HostChange]) -> Vec<Group> {
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut out: Vec<Group> = Vec::new();
    for host in changed {
        for c in &host.changes {
            let change = Change {
                index: None,
                ..c.clone()
            };
            let key = serde_json::to_string(&change).unwrap_or_default();
            let i = *index.entry(key).or_insert_with(|| {
                out.push(Group {
                    change,
                    hosts: Vec::new(),
                    changed_inputs: host.changed_inputs.clone(),
                });
                out.len() - 1
            });
            let group = &mut out[i];
            if group.hosts.last() != Some(&host.host) {
                group.hosts.push(host.host.clone());
            }
            if let (Some(common), Some(mine)) = (&mut group.changed_inputs, &host.changed_inputs) {
                common.retain(|f| mine.contains(f));
            }
        }
    }
    out.sort_by_key(|g| std::cmp::Reverse(g.hosts.len()));
    out
}

pub(crate) fn to_json(r: &Report) -> String {
    let mut text = serde_json::to_string_pretty(r).unwrap_or_default();
    text.push('\n');
    text
}

/// `1 host`, `2 hosts`.
pub(crate) fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}
