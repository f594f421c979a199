//! What became of the value one level wrote at a path: the `outcome` of a
//! level entry.

use crate::compile::Compiled;
use crate::merge::{Spec, Strategy};
use crate::syntax::prefix::Prefix;
use crate::value::{Node, Value};

use super::causes;
use super::levels::{self, Written};
use super::{Cause, CauseKind, Query, compact, count, key_of};

/// The level and path an outcome is about.
pub(super) struct Scene<'a> {
    pub c: &'a Compiled,
    pub level: usize,
    /// The level path.
    pub path: &'a [String],
    /// The final config's nodes along the path (see `levels::written`).
    pub finals: &'a [Option<&'a Node>],
    pub spec: &'a Spec,
}

impl Scene<'_> {
    fn final_node(&self) -> Option<&Node> {
        self.finals.last().copied().flatten()
    }

    /// The path of an item of the list at the path, and its final nodes.
    fn child<'n>(&'n self, seg: &str) -> (Vec<String>, Vec<Option<&'n Node>>) {
        let mut path = self.path.to_vec();
        path.push(seg.to_string());
        let mut finals = self.finals.to_vec();
        finals.push(None);
        (path, finals)
    }

    /// Where the levels below wrote an item of the list at the path.
    fn origin(&self, seg: &str) -> String {
        let (path, finals) = self.child(seg);
        match levels::written_below(self.c, self.level, &path, &finals).as_slice() {
            [] => format!("{seg}, which no lower level writes"),
            at => format!("{seg} (written at {})", at.join(", ")),
        }
    }

    /// What removed, after this level, an item of the list at the path.
    fn removed(&self, seg: &str, shown: &str) -> String {
        let (path, finals) = self.child(seg);
        match causes::cause(self.c, self.level, &path, &finals) {
            Some(cause) => format!("{shown} (by {})", describe(&cause)),
            None => shown.to_string(),
        }
    }
}

/// How each kind of [`Cause`] reads, `{text}` and `{at}` filled in.
fn template(kind: CauseKind) -> &'static str {
    match kind {
        CauseKind::Knockout => "the knockout `{text}` at {at}",
        CauseKind::Override => "`{text}` at {at}, which replaces what the levels below wrote",
        CauseKind::Null => "`{text}` at {at} (a patch's null deletes its key)",
        CauseKind::Replaced => "`{text}` at {at}, which replaces what the levels below wrote",
        CauseKind::List => "the list `{text}` at {at}, which replaces the lists below",
        CauseKind::Whole => "`{text}` at {at}, taken whole from the highest level that writes it",
        CauseKind::Jail => "beryl, for a jail: a jail does not take `{text}`; {at}",
    }
}

/// A cause in words: `the knockout `name: --bob` at FILE:LINE:COL`.
pub(super) fn describe(cause: &Cause) -> String {
    template(cause.kind)
        .replace("{text}", &cause.text)
        .replace("{at}", &cause.at)
}

/// A level's value where the final config has nothing.
pub(super) fn deleted(prefix: Prefix, cause: Option<&Cause>) -> String {
    let mut notes = prefix_notes(prefix);
    notes.push(match cause {
        Some(cause) => format!("deleted by {}", describe(cause)),
        None => "deleted by a higher level".to_string(),
    });
    notes.join("; ")
}

/// A level's knockout of the path.
pub(super) fn knockout(scene: &Scene, w: &Written) -> String {
    let Written::Knockout { kind, text, .. } = w else {
        return String::new();
    };
    let name = scene.path.last().map(String::as_str).unwrap_or_default();
    let verb = if *kind == CauseKind::Null {
        "deletes"
    } else {
        "knocks out"
    };
    let below = levels::written_below(scene.c, scene.level, scene.path, scene.finals);
    let bare = scene.spec.knockout_prefix.as_deref() == Some(text.as_str());
    match (below.as_slice(), bare) {
        ([], _) => format!("{verb} {name}, which no lower level writes"),
        (at, false) => format!("{verb} {name} (written at {})", at.join(", ")),
        (at, true) => format!(
            "{verb} {name} (written at {}): the bare `{text}` empties the lists below",
            at.join(", ")
        ),
    }
}

/// A value gathered by an inventory query, in words.
pub(super) fn gathered(q: &Query, node: &Node) -> String {
    match (&q.host, &node.span.source) {
        (None, _) => "the answer of the query".to_string(),
        (Some(host), None) => format!("{host} passes the query"),
        (Some(host), Some(_)) => format!(
            "gathered by the query from the exports of {host} ({})",
            node.span
        ),
    }
}

fn prefix_notes(prefix: Prefix) -> Vec<String> {
    match prefix {
        Prefix::Constant => {
            vec!["constant (`=`): fixes the value, replacing the levels below".to_string()]
        }
        Prefix::Override => vec!["`~`: replaces the levels below".to_string()],
        Prefix::Plain => Vec::new(),
    }
}

/// What became of a value one level wrote, where the final config has one.
pub(super) fn outcome(
    scene: &Scene,
    written: &Node,
    prefix: Prefix,
    seen_ids: &mut Vec<String>,
) -> String {
    let mut notes = prefix_notes(prefix);
    let Some(final_node) = scene.final_node() else {
        return deleted(prefix, None);
    };
    if let Value::Str(s) = &written.value
        && crate::syntax::template::is_whole_reference(s)
        && !matches!(final_node.value, Value::Str(_))
    {
        // A reference that met another value: kept aside while merging, and
        // merged with the strategy once resolved.
        notes.push(
            "a reference, resolved, then merged with the values below (deferred merge)".into(),
        );
        return notes.join("; ");
    }
    if let Value::Str(s) = &written.value
        && crate::syntax::template::has_reference(s)
    {
        notes.push("a reference, resolved after merging".into());
    }
    let what = match (&final_node.value, &written.value) {
        (Value::Seq(out), Value::Seq(items))
            if matches!(
                scene.spec.kind,
                Strategy::Append
                    | Strategy::Concat
                    | Strategy::Unique
                    | Strategy::Deep
                    | Strategy::ByKey
            ) =>
        {
            list_outcome(scene, out, items, seen_ids)
        }
        (Value::Map(_), Value::Map(_)) => "merged".to_string(),
        _ if final_node.span.same_place(&written.span) => "wins".to_string(),
        _ => "replaced".to_string(),
    };
    notes.push(what);
    notes.join("; ")
}

/// For a list merged item by item: what each of this level's items did.
fn list_outcome(scene: &Scene, out: &[Node], items: &[Node], seen_ids: &mut Vec<String>) -> String {
    let spec = scene.spec;
    let prefix = spec.knockout_prefix.as_deref();
    let mut parts: Vec<String> = Vec::new();
    if spec.kind == Strategy::ByKey {
        let final_ids: Vec<&str> = out.iter().filter_map(|n| key_of(n, &spec.key)).collect();
        let mut added = Vec::new();
        let mut merged = Vec::new();
        let mut removed = Vec::new();
        let mut gone = Vec::new();
        for id in items.iter().filter_map(|n| key_of(n, &spec.key)) {
            match prefix.and_then(|p| id.strip_prefix(p)) {
                Some(target) => removed.push(scene.origin(target)),
                None if !final_ids.contains(&id) => gone.push(scene.removed(id, id)),
                None if seen_ids.iter().any(|s| s == id) => merged.push(id.to_string()),
                None => added.push(id.to_string()),
            }
            seen_ids.push(id.to_string());
        }
        push_list(&mut parts, "adds", &added);
        push_list(&mut parts, "merges into", &merged);
        push_list(&mut parts, "removes", &removed);
        push_list(&mut parts, "removed later:", &gone);
        return if parts.is_empty() {
            "no items".into()
        } else {
            parts.join("; ")
        };
    }
    let verb = match spec.kind {
        Strategy::Unique => "kept",
        Strategy::Deep => "unioned",
        _ => "appended",
    };
    let knocks_out = matches!(spec.kind, Strategy::Append | Strategy::Deep);
    let mut kept = 0;
    let mut knocks = Vec::new();
    let mut duplicates = Vec::new();
    let mut dropped = Vec::new();
    for item in items {
        let text = compact(item);
        let knocked = item
            .as_str()
            .and_then(|s| s.strip_prefix(prefix.filter(|_| knocks_out)?));
        if out.iter().any(|o| o.span.same_place(&item.span)) {
            kept += 1;
        } else if let Some(target) = knocked {
            knocks.push(if target.is_empty() {
                "everything below".to_string()
            } else {
                scene.origin(target)
            });
        } else if out.iter().any(|o| o.value.same(&item.value)) {
            duplicates.push(text);
        } else {
            dropped.push(match item.as_str() {
                Some(s) => scene.removed(s, &text),
                None => text,
            });
        }
    }
    parts.push(format!("{verb} {}", count(kept, "item")));
    push_list(&mut parts, "duplicate dropped:", &duplicates);
    push_list(&mut parts, "knocks out", &knocks);
    push_list(&mut parts, "removed later:", &dropped);
    parts.join("; ")
}

fn push_list(parts: &mut Vec<String>, label: &str, items: &[String]) {
    if !items.is_empty() {
        parts.push(format!("{label} {}", items.join(", ")));
    }
}
