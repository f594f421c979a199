//! `beryl explain`: where a value came from, and which rule put it there.
//!
//! Entry point: [`explain`]. It reads a compiled host (the effective config,
//! the chain's documents as loaded, the layered table, the resolved
//! references and injected keys) and builds an [`Explanation`]: for the path
//! and each path below it, the final value, the strategy in force and where
//! that rule was set, and what each level of the chain wrote there and what
//! became of it. Everything is derived from spans: a node keeps the place its
//! value was written, so no trace of the merge is needed.

use serde::Serialize;

use crate::compile::Compiled;
use crate::diag::Diag;
use crate::keys::Origin;
use crate::merge::keys::{Prefix, split};
use crate::merge::{Kind, Spec, SpecOrigin, spec_at};
use crate::refs::Resolution;
use crate::value::{Node, Span, Value};

/// The explanation of a path and its subtree. Its JSON form is documented in
/// docs/references.md and stable.
#[derive(Debug, Serialize)]
pub struct Explanation {
    pub host: String,
    pub path: String,
    pub entries: Vec<Entry>,
}

#[derive(Debug, Serialize)]
pub struct Entry {
    pub path: String,
    /// The final value; absent when the key was deleted.
    pub value: Option<serde_json::Value>,
    /// Where the final value was written (`file:line:col`); absent for
    /// computed and merged values.
    pub at: Option<String>,
    pub strategy: Strategy,
    pub levels: Vec<LevelEntry>,
    /// For lists: each item and its origin.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<Item>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<Reference>,
}

#[derive(Debug, Serialize)]
pub struct Strategy {
    /// The spec, with its options (`append`, `deep (knockout_prefix: "--")`).
    pub name: String,
    /// `rule`, `built-in`, `inherited`, `whole` (taken whole by an ancestor)
    /// or `default`.
    pub source: &'static str,
    /// The rule's pattern, for `rule` and `built-in`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// Where the rule was written (`file:line:col`), for `rule`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// The ancestor path, for `inherited` and `whole`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct LevelEntry {
    pub file: String,
    /// `line:col` of the key in that file; absent when not set.
    pub at: Option<String>,
    pub value: Option<serde_json::Value>,
    /// What happened: `not set`, `wins`, `replaced`, `merged`, `appended …`,
    /// `deleted …`, `constant …`, `deferred …`.
    pub outcome: String,
}

#[derive(Debug, Serialize)]
pub struct Item {
    pub value: serde_json::Value,
    pub at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Reference {
    /// The string as written, and where.
    pub text: String,
    pub at: String,
    pub targets: Vec<Target>,
}

#[derive(Debug, Serialize)]
pub struct Target {
    pub path: String,
    /// Where the target's value was written.
    pub at: Option<String>,
}

/// Explains `path` (a prefix explains its whole subtree) for a compiled host.
pub fn explain(host: &str, c: &Compiled, path: &[String]) -> Result<Explanation, Diag> {
    let shown = crate::path::display(path);
    let final_node = navigate(&c.config, path, &|p| key_field(c, p));
    let in_levels = c
        .levels
        .iter()
        .any(|l| level_value(&l.node, path, &|p| key_field(c, p)).is_some());
    if final_node.is_none() && !in_levels {
        return Err(Diag::new(
            "beryl::explain::unknown_path",
            format!("{host} has nothing at `{shown}`, and no level sets it"),
        )
        .help("paths are dotted keys, list items by name: freebsd.users.alice.shell"));
    }
    let mut entries = Vec::new();
    let mut at = path.to_vec();
    walk(c, &mut at, &mut entries);
    Ok(Explanation {
        host: host.to_string(),
        path: shown,
        entries,
    })
}

/// Explains the path, then every path below it in the final config.
fn walk(c: &Compiled, path: &mut Vec<String>, out: &mut Vec<Entry>) {
    out.push(entry(c, path));
    let Some(node) = navigate(&c.config, path, &|p| key_field(c, p)) else {
        return;
    };
    let (spec, _) = spec_at(&c.policy, path);
    let children: Vec<String> = match &node.value {
        Value::Map(m) => m.keys().cloned().collect(),
        Value::Seq(items) if spec.kind == Kind::ByKey => items
            .iter()
            .filter_map(|i| i.get(&spec.key).and_then(Node::as_str).map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    for child in children {
        path.push(child);
        walk(c, path, out);
        path.pop();
    }
}

fn entry(c: &Compiled, path: &[String]) -> Entry {
    let key_field = |p: &[String]| key_field(c, p);
    let final_node = navigate(&c.config, path, &key_field);
    let (spec, origin) = spec_at(&c.policy, path);
    let reference = c.references.iter().find(|r| r.path == path).map(reference);
    let mut seen_ids: Vec<String> = Vec::new();
    let levels = c
        .levels
        .iter()
        .map(|l| {
            let written = level_value(&l.node, path, &key_field);
            let outcome = match written {
                None => "not set".to_string(),
                Some((node, prefix)) => {
                    let what = outcome(&spec, final_node, node, prefix, &mut seen_ids);
                    if is_user_keys(path) && what == "wins" {
                        "wins; each entry resolved to its keys, the domain keys injected first"
                            .to_string()
                    } else {
                        what
                    }
                }
            };
            LevelEntry {
                file: l.node.span.file_name().unwrap_or(&l.file).to_string(),
                at: written.map(|(n, _)| format!("{}:{}", n.span.line, n.span.col)),
                value: written.map(|(n, _)| json(n)),
                outcome,
            }
        })
        .collect();
    let items = match final_node.map(|n| &n.value) {
        Some(Value::Seq(items)) => items
            .iter()
            .enumerate()
            .map(|(i, n)| Item {
                value: json(n),
                at: located(&n.span),
                note: item_note(c, path, i),
            })
            .collect(),
        _ => Vec::new(),
    };
    Entry {
        path: crate::path::display(path),
        value: final_node.map(json),
        at: final_node.and_then(|n| located(&n.span)),
        strategy: strategy(&spec, &origin),
        levels,
        items,
        reference,
    }
}

fn strategy(spec: &Spec, origin: &SpecOrigin) -> Strategy {
    let mut s = Strategy {
        name: spec.to_string(),
        source: "default",
        pattern: None,
        at: None,
        from: None,
    };
    match origin {
        SpecOrigin::Rule(rule) => {
            s.pattern = Some(rule.pattern.canonical());
            match located(&rule.key_span) {
                Some(at) => {
                    s.source = "rule";
                    s.at = Some(at);
                }
                None => s.source = "built-in",
            }
        }
        SpecOrigin::Inherited(p) => {
            s.source = "inherited";
            s.from = Some(show_path(p));
        }
        SpecOrigin::Whole(p) => {
            s.source = "whole";
            s.from = Some(show_path(p));
        }
        SpecOrigin::Default => {}
    }
    s
}

fn reference(r: &Resolution) -> Reference {
    Reference {
        text: r.text.clone(),
        at: r.span.to_string(),
        targets: r
            .targets
            .iter()
            .map(|(p, s)| Target {
                path: p.clone(),
                at: located(s),
            })
            .collect(),
    }
}

/// What became of the value one level wrote at the path.
fn outcome(
    spec: &Spec,
    final_node: Option<&Node>,
    written: &Node,
    prefix: Prefix,
    seen_ids: &mut Vec<String>,
) -> String {
    let knockout = spec.knockout_prefix.as_deref();
    let mut notes = Vec::new();
    match prefix {
        Prefix::Constant => {
            notes.push("constant (`=`): fixes the value, replacing the levels below")
        }
        Prefix::Override => notes.push("`~`: replaces the levels below"),
        Prefix::Plain => {}
    }
    if let Value::Str(s) = &written.value
        && crate::refs::is_whole_reference(s)
        && final_node.is_some_and(|f| !matches!(f.value, Value::Str(_)))
    {
        // A reference that met another value: kept aside while merging, and
        // merged with the strategy once resolved.
        notes.push("a reference, resolved, then merged with the values below (deferred merge)");
        return notes.join("; ");
    }
    if let Value::Str(s) = &written.value
        && crate::refs::has_reference(s)
    {
        notes.push("a reference, resolved after merging");
    }
    let what = match (final_node, &written.value) {
        (None, Value::Null) if spec.kind == Kind::Patch => {
            "deleted (a null in a patch)".to_string()
        }
        (None, Value::Str(s)) if Some(s.as_str()) == knockout => "deleted (knockout)".to_string(),
        (None, _) => "deleted by a higher level".to_string(),
        (
            Some(Node {
                value: Value::Seq(out),
                ..
            }),
            Value::Seq(items),
        ) if matches!(
            spec.kind,
            Kind::Append | Kind::Concat | Kind::Unique | Kind::Deep | Kind::ByKey
        ) =>
        {
            list_outcome(spec, out, items, seen_ids)
        }
        (
            Some(Node {
                value: Value::Map(_),
                ..
            }),
            Value::Map(_),
        ) => "merged".to_string(),
        (Some(f), _) if f.span.same_place(&written.span) => "wins".to_string(),
        _ => "replaced".to_string(),
    };
    notes.push(&what);
    notes.join("; ")
}

/// For a list merged item by item: what each of this level's items did.
fn list_outcome(spec: &Spec, out: &[Node], items: &[Node], seen_ids: &mut Vec<String>) -> String {
    let prefix = spec.knockout_prefix.as_deref();
    let mut parts: Vec<String> = Vec::new();
    if spec.kind == Kind::ByKey {
        let final_ids: Vec<&str> = out
            .iter()
            .filter_map(|n| n.get(&spec.key).and_then(Node::as_str))
            .collect();
        let mut added = Vec::new();
        let mut merged = Vec::new();
        let mut removed = Vec::new();
        let mut gone = Vec::new();
        for id in items
            .iter()
            .filter_map(|n| n.get(&spec.key).and_then(Node::as_str))
        {
            match prefix.and_then(|p| id.strip_prefix(p)) {
                Some(target) => removed.push(target.to_string()),
                None if !final_ids.contains(&id) => gone.push(id.to_string()),
                None if seen_ids.iter().any(|s| s == id) => merged.push(id.to_string()),
                None => added.push(id.to_string()),
            }
            seen_ids.push(id.to_string());
        }
        push_list(&mut parts, "adds", &added);
        push_list(&mut parts, "merges into", &merged);
        push_list(&mut parts, "removes", &removed);
        push_list(&mut parts, "later removed:", &gone);
        return if parts.is_empty() {
            "no items".into()
        } else {
            parts.join("; ")
        };
    }
    let verb = match spec.kind {
        Kind::Unique => "kept",
        Kind::Deep => "unioned",
        _ => "appended",
    };
    let mut kept = 0;
    let mut knocks = Vec::new();
    let mut duplicates = Vec::new();
    let mut dropped = Vec::new();
    for item in items {
        let text = compact(item);
        if out.iter().any(|o| o.span.same_place(&item.span)) {
            kept += 1;
        } else if let Some(target) = item.as_str().and_then(|s| s.strip_prefix(prefix?)) {
            knocks.push(if target.is_empty() {
                "everything below".to_string()
            } else {
                target.to_string()
            });
        } else if out.iter().any(|o| o.value.same(&item.value)) {
            duplicates.push(text);
        } else {
            dropped.push(text);
        }
    }
    parts.push(format!("{verb} {}", count(kept, "item")));
    push_list(&mut parts, "duplicate dropped:", &duplicates);
    push_list(&mut parts, "knocks out", &knocks);
    push_list(&mut parts, "removed later by a knockout:", &dropped);
    parts.join("; ")
}

fn push_list(parts: &mut Vec<String>, label: &str, items: &[String]) {
    if !items.is_empty() {
        parts.push(format!("{label} {}", items.join(", ")));
    }
}

/// Whether the path is a user's key list (`freebsd.users.NAME.ssh_keys`).
fn is_user_keys(path: &[String]) -> bool {
    matches!(path, [f, u, _, k] if f == "freebsd" && u == "users" && k == "ssh_keys")
}

/// Notes on a list item: injected domain keys and the key file they came from.
fn item_note(c: &Compiled, path: &[String], index: usize) -> Option<String> {
    if !is_user_keys(path) {
        return None;
    }
    let name = &path[2];
    let user = c.users.iter().find(|u| &u.name == name)?;
    let key = user.keys.get(index)?;
    let source = match &key.origin {
        Origin::File { path, line, .. } => format!("read from {path}:{line}"),
        Origin::Inline { .. } => "inline".to_string(),
    };
    Some(if index < user.from_domain {
        format!("injected from {}; {source}", key.origin.at())
    } else {
        source
    })
}

/// The field identifying items of the list at `path` (by_key lists), else `name`.
fn key_field(c: &Compiled, path: &[String]) -> String {
    let (spec, _) = spec_at(&c.policy, path);
    if spec.kind == Kind::ByKey {
        spec.key
    } else {
        "name".into()
    }
}

/// The node at a path of the final config: keys, list items by key field or index.
fn navigate<'n>(
    root: &'n Node,
    path: &[String],
    key_field: &dyn Fn(&[String]) -> String,
) -> Option<&'n Node> {
    let mut node = root;
    for (depth, seg) in path.iter().enumerate() {
        node = match &node.value {
            Value::Map(m) => &m.get(seg)?.node,
            Value::Seq(items) => {
                let field = key_field(&path[..depth]);
                match items
                    .iter()
                    .find(|i| i.get(&field).and_then(Node::as_str) == Some(seg))
                {
                    Some(n) => n,
                    None => items.get(seg.parse::<usize>().ok()?)?,
                }
            }
            _ => return None,
        };
    }
    Some(node)
}

/// What a level document wrote at a path (keys matched through `~`/`=`), and
/// the prefix of the last key.
fn level_value<'n>(
    root: &'n Node,
    path: &[String],
    key_field: &dyn Fn(&[String]) -> String,
) -> Option<(&'n Node, Prefix)> {
    let mut node = root;
    let mut prefix = Prefix::Plain;
    for (depth, seg) in path.iter().enumerate() {
        node = match &node.value {
            Value::Map(m) => {
                let (raw, entry) = m.iter().find(|(raw, _)| split(raw).0 == seg)?;
                prefix = split(raw).1;
                &entry.node
            }
            Value::Seq(items) => {
                let field = key_field(&path[..depth]);
                prefix = Prefix::Plain;
                items
                    .iter()
                    .find(|i| i.get(&field).and_then(Node::as_str) == Some(seg))?
            }
            _ => return None,
        };
    }
    Some((node, prefix))
}

fn located(span: &Span) -> Option<String> {
    span.source.as_ref().map(|_| span.to_string())
}

fn show_path(p: &[String]) -> String {
    if p.is_empty() {
        "the root".into()
    } else {
        crate::path::display(p)
    }
}

fn json(n: &Node) -> serde_json::Value {
    serde_json::to_value(n).unwrap_or(serde_json::Value::Null)
}

/// A value on one line (JSON flow syntax, which YAML also reads).
pub fn compact(n: &Node) -> String {
    serde_json::to_string(n).unwrap_or_default()
}

/// A value short enough for one line of text: scalars and short lists of
/// scalars as JSON, larger values by their size (the entries below, or the
/// JSON form, show them whole).
fn brief(v: &serde_json::Value) -> String {
    let text = v.to_string();
    let flat = match v {
        serde_json::Value::Array(items) => items.iter().all(|i| !i.is_array() && !i.is_object()),
        serde_json::Value::Object(_) => false,
        _ => true,
    };
    if flat && text.chars().count() <= 72 {
        return text;
    }
    match v {
        serde_json::Value::Array(items) => format!("[…] ({})", count(items.len(), "item")),
        serde_json::Value::Object(m) => match m.get("name").and_then(|n| n.as_str()) {
            Some(name) => format!("{{\"name\":{name:?}, …}} ({})", count(m.len(), "key")),
            None => format!("{{…}} ({})", count(m.len(), "key")),
        },
        _ => {
            let head: String = text.chars().take(60).collect();
            format!("{head}…")
        }
    }
}

fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// The text form: one block per path.
pub fn to_text(e: &Explanation) -> String {
    let mut out = String::new();
    for (i, entry) in e.entries.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let value = entry.value.as_ref().map_or("(deleted)".to_string(), brief);
        out.push_str(&format!("{} = {value}\n", entry.path));
        if let Some(at) = &entry.at {
            out.push_str(&format!("  from:     {at}\n"));
        }
        let s = &entry.strategy;
        let why = match s.source {
            "rule" => format!(
                "rule `{}` at {}",
                s.pattern.as_deref().unwrap_or_default(),
                s.at.as_deref().unwrap_or_default()
            ),
            "built-in" => format!(
                "built-in rule `{}`",
                s.pattern.as_deref().unwrap_or_default()
            ),
            "inherited" => format!("inherited from {}", s.from.as_deref().unwrap_or_default()),
            "whole" => format!("taken whole with {}", s.from.as_deref().unwrap_or_default()),
            _ => "the default".to_string(),
        };
        out.push_str(&format!("  strategy: {} ({why})\n", s.name));
        if let Some(r) = &entry.reference {
            let targets: Vec<String> = r
                .targets
                .iter()
                .map(|t| format!("{} ({})", t.path, t.at.as_deref().unwrap_or("computed")))
                .collect();
            out.push_str(&format!(
                "  reference: {:?} at {} → {}\n",
                r.text,
                r.at,
                targets.join(", ")
            ));
        }
        let width = entry
            .levels
            .iter()
            .map(|l| l.file.len() + l.at.as_ref().map_or(0, |a| a.len() + 1))
            .max()
            .unwrap_or(0);
        for l in &entry.levels {
            let place = match &l.at {
                Some(at) => format!("{}:{at}", l.file),
                None => l.file.clone(),
            };
            let value = l
                .value
                .as_ref()
                .map_or(String::new(), |v| format!("{}  ", brief(v)));
            out.push_str(&format!("  {place:width$}  {value}{}\n", l.outcome));
        }
        if !entry.items.is_empty() {
            out.push_str("  items:\n");
            for item in &entry.items {
                let at = item.at.as_deref().unwrap_or("computed");
                let value = brief(&item.value);
                match &item.note {
                    Some(note) => out.push_str(&format!("    {value} ← {at} ({note})\n")),
                    None => out.push_str(&format!("    {value} ← {at}\n")),
                }
            }
        }
    }
    out
}
