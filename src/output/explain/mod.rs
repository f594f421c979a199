//! `beryl explain`: where a value came from, and which rule put it there.
//!
//! Entry point: [`explain`]. It reads a compiled host (the effective config,
//! the chain's documents as loaded and as written, the layered table, the
//! resolved references and injected keys) and builds an [`Explanation`]: for
//! the path and each path below it, the final value, the strategy in force
//! and where that rule was set, what each level of the chain wrote there and
//! what became of it, and, for a value that is gone, what removed it.
//! Everything is derived from spans: a node keeps the place its value was
//! written, so no trace of the merge is needed.
//!
//! - `target.rs`: the path asked for, resolved (moved root keys, list items
//!   by position), or refused with a did-you-mean;
//! - `levels.rs`: what one level wrote at a path (a value, a knockout, the
//!   answer of an inventory query);
//! - `causes.rs`: what removed a value that a level wrote;
//! - `outcome.rs`: what became of the value a level wrote;
//! - `model.rs`: the explanation, as printed in JSON;
//! - `text.rs`: the text form.

mod causes;
mod levels;
mod model;
mod outcome;
mod target;
mod text;

pub(crate) use model::{
    Cause, CauseKind, Entry, Explanation, Item, LevelEntry, Query, Reference, StrategyInForce,
    Target,
};
pub(crate) use text::to_text;

use std::borrow::Cow;

use crate::compile::Compiled;
use crate::diag::Diag;
use crate::keys::Origin;
use crate::merge::{Policy, Spec, SpecOrigin, Strategy, spec_at};
use crate::refs::Resolution;
use crate::value::{Loc, Node, Span, Value};

use levels::Written;

/// Explains `path` (a prefix explains its whole subtree) for a compiled host.
pub(crate) fn explain(host: &str, c: &Compiled, path: &[String]) -> Result<Explanation, Diag> {
    let resolved = target::resolve(host, c, path)?;
    let mut entries = Vec::new();
    let mut at = resolved.path.clone();
    walk(c, &mut at, &mut entries);
    Ok(Explanation {
        host: host.to_string(),
        path: crate::syntax::path::display(&resolved.path),
        notes: resolved.notes,
        entries,
    })
}

/// Explains the path, then every path below it: in the final config, then
/// those that a level wrote and the final config lacks (deleted; what is
/// below a deleted path went with it, and is not listed).
fn walk(c: &Compiled, path: &mut Vec<String>, out: &mut Vec<Entry>) {
    let entry = entry(c, path);
    let deleted = entry.value.is_none();
    out.push(entry);
    if deleted {
        return;
    }
    for child in target::children(c, path) {
        path.push(child);
        walk(c, path, out);
        path.pop();
    }
}

fn entry(c: &Compiled, path: &[String]) -> Entry {
    let lpath = level_path(path);
    let finals = finals(c, path);
    let final_node = finals.last().copied().flatten();
    let (mut spec, origin) = spec_at(&c.policy, &lpath);
    // A dialect whose lists merged by `default` concatenate (reclass's,
    // src/merge/strategies.rs) merges this list as `concat` does: say so.
    let concatenated = spec.kind == Strategy::Default
        && c.policy.dialect().concat_lists
        && matches!(final_node.map(|n| &n.value), Some(Value::Seq(_)));
    if concatenated {
        spec.kind = Strategy::Concat;
    }
    let reference = c.references.iter().find(|r| r.path == path).map(reference);
    let written: Vec<Option<Written>> = c
        .levels
        .iter()
        .enumerate()
        .map(|(i, _)| levels::written(c, i, &lpath, &finals))
        .collect();
    let mut seen_ids: Vec<String> = Vec::new();
    let mut removed_by = None;
    let mut query = None;
    let levels = c
        .levels
        .iter()
        .zip(&written)
        .enumerate()
        .map(|(i, (l, w))| {
            // A document of a single-file inventory keeps its `#kind:name`.
            let file = match (l.node.span.file_name(), l.file.split_once('#')) {
                (Some(name), Some((_, document))) => format!("{name}#{document}"),
                (Some(name), None) => name.to_string(),
                (None, _) => l.file.clone(),
            };
            let Some(w) = w else {
                return LevelEntry {
                    file,
                    at: None,
                    value: None,
                    outcome: "not set".to_string(),
                };
            };
            let scene = outcome::Scene {
                c,
                level: i,
                path: &lpath,
                finals: &finals,
                spec: &spec,
            };
            let text = match w {
                Written::Knockout { .. } => outcome::knockout(&scene, w),
                Written::Set { prefix, .. } if final_node.is_none() => {
                    let cause =
                        causes::cause(c, i, &lpath, &finals).or_else(|| causes::dropped(c, path));
                    removed_by.clone_from(&cause);
                    outcome::deleted(*prefix, cause.as_ref())
                }
                Written::Set { node, prefix, .. } => {
                    let what = outcome::outcome(&scene, node, *prefix, &mut seen_ids);
                    if is_user_keys(path) && what == "wins" {
                        "wins; each entry resolved to its keys, the domain keys injected first"
                            .to_string()
                    } else {
                        what
                    }
                }
            };
            let text = match w.query() {
                Some(asked) => {
                    let q = asked.to_query(&lpath);
                    let note = outcome::gathered(&q, w.node());
                    query = Some(q);
                    format!("{text}; {note}")
                }
                None => text,
            };
            LevelEntry {
                file,
                at: Some(w.at()),
                value: Some(json(w.node())),
                outcome: text,
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
                note: item_note(c, path, i).or_else(|| {
                    let q = query.as_ref().filter(|_| n.span.source.is_none())?;
                    Some(format!("a host that passes the query at {}", q.at))
                }),
            })
            .collect(),
        _ => Vec::new(),
    };
    Entry {
        path: crate::syntax::path::display(path),
        value: final_node.map(json),
        at: final_node.and_then(|n| located(&n.span)),
        removed_by,
        query,
        strategy: strategy(&spec, &origin, concatenated),
        levels,
        items,
        reference,
        secrets: final_node
            .and_then(Node::as_str)
            .map_or_else(Vec::new, |t| secrets(c, t)),
    }
}

/// The secrets a value holds (its tokens), each with where it is
/// encrypted, its type and the keys that can read it: never its value.
fn secrets(c: &Compiled, text: &str) -> Vec<model::Secret> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(crate::secrets::TOKEN_OPEN) {
        let Some(len) = rest[i..].find('›').map(|e| e + '›'.len_utf8()) else {
            break;
        };
        let token = &rest[i..i + len];
        rest = &rest[i + len..];
        let found = c
            .secrets
            .iter()
            .find_map(|f| f.secrets.iter().find(|s| s.token == token).map(|s| (f, s)));
        let Some((file, secret)) = found else {
            continue;
        };
        out.push(model::Secret {
            token: token.to_string(),
            at: located(&secret.span).unwrap_or_else(|| file.file.clone()),
            kind: secret.enc.kind.name(),
            recipients: file
                .meta
                .age
                .iter()
                .map(|a| fingerprint(&a.recipient))
                .collect(),
        });
    }
    out
}

/// A recipient as `explain` names it: an age key is its own short name; an
/// SSH key its type and SHA-256 fingerprint, as `ssh-keygen -l` prints it.
fn fingerprint(recipient: &str) -> String {
    match ssh_key::PublicKey::from_openssh(recipient) {
        Ok(k) => format!(
            "{} {}",
            k.algorithm(),
            k.fingerprint(ssh_key::HashAlg::Sha256)
        ),
        Err(_) => recipient.to_string(),
    }
}

/// The path the levels write for a path of the final config: the exports,
/// rendered under `_beryl_.exports`, are written at the root `exports`.
fn level_path(path: &[String]) -> Cow<'_, [String]> {
    match path {
        [b, e, rest @ ..] if b == "_beryl_" && e == crate::exports::KEY => {
            let mut p = vec![e.clone()];
            p.extend_from_slice(rest);
            Cow::Owned(p)
        }
        _ => Cow::Borrowed(path),
    }
}

/// The spec in force at a path of the final config.
fn spec(c: &Compiled, path: &[String]) -> Spec {
    spec_at(&c.policy, &level_path(path)).0
}

/// The field that names the items of the list at a level path, when the
/// list is merged by key: [`Policy::key_field`], where its `by_key` rule is
/// in force. (Under a strategy that takes the whole value, `first` above it
/// say, it is not, and the items are named as in any other list, by value
/// or position; a reference still reads them by the rule's field.)
fn key_field<'p>(policy: &'p Policy, list: &[String]) -> Option<&'p str> {
    (spec_at(policy, list).0.kind == Strategy::ByKey).then(|| policy.key_field(list))
}

/// The index of the item of a list that a path segment names: by its key
/// field in a list merged by key (`key`), else the string item equal to it,
/// else (for items that have no name) by position.
fn item(items: &[Node], seg: &str, key: Option<&str>) -> Option<usize> {
    if let Some(key) = key {
        return items.iter().position(|i| key_of(i, key) == Some(seg));
    }
    if let Some(found) = items.iter().position(|i| i.as_str() == Some(seg)) {
        return Some(found);
    }
    let index = seg.parse::<usize>().ok()?;
    items.get(index)?.as_str().is_none().then_some(index)
}

/// The name of a by-key item: its string in the key field.
fn key_of<'n>(item: &'n Node, key: &str) -> Option<&'n str> {
    item.get(key).and_then(Node::as_str)
}

/// The node at a path of the final config.
fn navigate<'n>(c: &Compiled, root: &'n Node, path: &[String]) -> Option<&'n Node> {
    Loc::follow(root, path, |list, items, seg| {
        item(items, seg, key_field(&c.policy, &level_path(list)))
    })?
    .at(root)
}

/// The nodes of the final config along a path, one per prefix of its level
/// path (`None` from where the path leaves the config).
fn finals<'n>(c: &'n Compiled, path: &[String]) -> Vec<Option<&'n Node>> {
    let skip = path.len() - level_path(path).len();
    (skip..=path.len())
        .map(|depth| navigate(c, &c.config, &path[..depth]))
        .collect()
}

fn strategy(spec: &Spec, origin: &SpecOrigin, concatenated: bool) -> StrategyInForce {
    let mut s = StrategyInForce {
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
    if concatenated {
        // Whichever way `default` came, reclass's dialect concatenates.
        s.source = "reclass";
        s.from = None;
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

fn located(span: &Span) -> Option<String> {
    span.source.as_ref().map(|_| span.to_string())
}

fn show_path(p: &[String]) -> String {
    if p.is_empty() {
        "the root".into()
    } else {
        crate::syntax::path::display(p)
    }
}

fn json(n: &Node) -> serde_json::Value {
    serde_json::to_value(n).unwrap_or(serde_json::Value::Null)
}

/// A value on one line (JSON flow syntax, which YAML also reads).
fn compact(n: &Node) -> String {
    serde_json::to_string(n).unwrap_or_default()
}

/// `n` things in words: `1 item`, `3 items`.
fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}
