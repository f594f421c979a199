//! The path asked for, resolved before it is explained: a root key that the
//! levels write but the config does not hold ([`MOVED`]), a list item named
//! by its position (named by its key or value instead, with a note), or a
//! path that exists nowhere, refused with the closest existing paths.

use crate::compile::Compiled;
use crate::diag::Diag;
use crate::syntax::prefix::split;
use crate::value::{Node, Value};

use super::levels::{self, Written};
use super::{finals, item, key_field, key_of, level_path, navigate, spec};

/// The path to explain, and how it was read from the one asked for.
pub(super) struct Resolved {
    pub path: Vec<String>,
    pub notes: Vec<String>,
}

/// What became of a root key that the levels write and the effective
/// config does not hold.
enum Moved {
    /// Rendered under another path, which is explained instead (the note).
    To(&'static [&'static str], &'static str),
    /// Read by beryl and dropped: refused (the message and the help; `{host}`
    /// is the host as asked).
    Consumed(&'static str, &'static str),
}

const MOVED: &[(&str, Moved)] = &[
    (
        "exports",
        Moved::To(
            &["_beryl_", "exports"],
            "a host's exports are not part of its config: they are rendered under `_beryl_.exports`, explained here",
        ),
    ),
    (
        "classes",
        Moved::Consumed(
            "`classes` names the classes a level merges, and is not part of the config",
            "`_beryl_.classes` lists the classes applied to the host: beryl explain {host} _beryl_.classes",
        ),
    ),
    (
        "merge",
        Moved::Consumed(
            "`merge` is a level's merge table, and is not part of the config",
            "the strategy in force at a path, and the rule that set it, are under `strategy:` in `beryl explain {host} PATH`",
        ),
    ),
];

/// How many names a help lists at most.
const LISTED: usize = 20;

pub(super) fn resolve(host: &str, c: &Compiled, asked: &[String]) -> Result<Resolved, Diag> {
    let mut path = asked.to_vec();
    let mut notes = Vec::new();
    let moved = path
        .first()
        .filter(|k| c.config.get(k).is_none())
        .and_then(|k| MOVED.iter().find(|(name, _)| name == k));
    match moved {
        Some((_, Moved::To(to, note))) => {
            path.splice(0..1, to.iter().map(|s| s.to_string()));
            notes.push(note.to_string());
            if !exists(c, &path[..to.len()]) {
                return Err(Diag::new(
                    crate::output::Code::ExplainUnknownPath,
                    format!("{host} has no `{}`: no level of its chain writes it", asked[0]),
                )
                .help("a host's exports are written at the root `exports` of a level or class, and rendered under `_beryl_.exports` (docs/classes.md)"));
            }
        }
        Some((_, Moved::Consumed(what, help))) => {
            return Err(
                Diag::new(crate::output::Code::ExplainNotInConfig, what.to_string())
                    .help(help.replace("{host}", host)),
            );
        }
        None => {}
    }
    for depth in 0..path.len() {
        if let Some(note) = by_name(c, &mut path, depth) {
            notes.push(note);
        }
    }
    if exists(c, &path) {
        Ok(Resolved { path, notes })
    } else {
        Err(unknown(host, c, &path))
    }
}

/// Names the list item at `path[depth]` by its key or value when the
/// segment is its position, and says so.
fn by_name(c: &Compiled, path: &mut [String], depth: usize) -> Option<String> {
    let items = navigate(c, &c.config, &path[..depth])?.as_seq()?;
    let key = key_field(&c.policy, &level_path(&path[..depth]));
    if item(items, &path[depth], key).is_some() {
        return None;
    }
    let found = items.get(path[depth].parse::<usize>().ok()?)?;
    let name = match key {
        Some(key) => key_of(found, key),
        None => found.as_str(),
    }?
    .to_string();
    let list = crate::syntax::path::display(&path[..depth]);
    let before = crate::syntax::path::display(&path[..=depth]);
    path[depth] = name;
    let after = crate::syntax::path::display(&path[..=depth]);
    Some(match key {
        Some(key) => format!(
            "`{before}` is `{after}`: {list} is merged by `{key}`, so a path names its items by {key}, not by position"
        ),
        None => format!(
            "`{before}` is `{after}`: a path names the items of {list} by value, not by position"
        ),
    })
}

/// Whether the final config holds the path, or a level writes or knocks
/// it out.
fn exists(c: &Compiled, path: &[String]) -> bool {
    if navigate(c, &c.config, path).is_some() {
        return true;
    }
    let lpath = level_path(path);
    let finals = finals(c, path);
    (0..c.levels.len()).any(|i| levels::written(c, i, &lpath, &finals).is_some())
}

/// A path that exists nowhere: the closest names where it leaves the
/// config and the levels, or the names there.
fn unknown(host: &str, c: &Compiled, path: &[String]) -> Diag {
    let depth = (0..path.len())
        .rev()
        .find(|&d| exists(c, &path[..d]))
        .unwrap_or(0);
    let at = &path[..depth];
    let names = names(c, at, true);
    let wanted = &path[depth];
    let mut close: Vec<(f64, &String)> = names
        .iter()
        .map(|n| (strsim::jaro_winkler(wanted, n), n))
        .filter(|(score, n)| *score >= 0.8 || strsim::damerau_levenshtein(wanted, n) <= 1)
        .collect();
    close.sort_by(|a, b| b.0.total_cmp(&a.0));
    let full = |name: &str| {
        let mut p = at.to_vec();
        p.push(name.to_string());
        format!("`{}`", crate::syntax::path::display(&p))
    };
    let place = if at.is_empty() {
        "the root".to_string()
    } else {
        format!("`{}`", crate::syntax::path::display(at))
    };
    let help = if !close.is_empty() {
        let names: Vec<String> = close.iter().take(3).map(|(_, n)| full(n)).collect();
        format!("did you mean {}?", names.join(" or "))
    } else if !names.is_empty() {
        let more = if names.len() > LISTED { ", …" } else { "" };
        let shown: Vec<&str> = names.iter().take(LISTED).map(String::as_str).collect();
        format!(
            "under {place}: {}{more} (a path is dotted keys, list items by name: freebsd.users.alice.shell)",
            shown.join(", ")
        )
    } else {
        match navigate(c, &c.config, at) {
            Some(n) => format!(
                "{place} holds {}, with nothing below it",
                n.value.type_name()
            ),
            None => format!("nothing is below {place}"),
        }
    };
    Diag::new(
        crate::output::Code::ExplainUnknownPath,
        format!(
            "{host} has nothing at `{}`, and no level sets it",
            crate::syntax::path::display(path)
        ),
    )
    .help(help)
}

/// The names below a path: keys of mappings, and items of lists merged by
/// key (or, with `values`, list items by value), in the final config first,
/// then in what each level wrote. Root keys that leave the config
/// ([`MOVED`]) are not among them.
pub(super) fn children(c: &Compiled, at: &[String]) -> Vec<String> {
    names(c, at, false)
}

fn names(c: &Compiled, at: &[String], values: bool) -> Vec<String> {
    let prefix = spec(c, at).knockout_prefix;
    let key = key_field(&c.policy, &level_path(at));
    let mut names: Vec<String> = Vec::new();
    let mut add = |node: &Node| {
        let found: Vec<&str> = match &node.value {
            Value::Map(m) => m.keys().map(|k| split(k).0).collect(),
            Value::Seq(items) => items
                .iter()
                .filter_map(|i| match key {
                    Some(key) => key_of(i, key),
                    None if values => i.as_str(),
                    None => None,
                })
                .filter(|n| !prefix.as_deref().is_some_and(|p| n.starts_with(p)))
                .collect(),
            _ => Vec::new(),
        };
        for name in found {
            let moved = at.is_empty() && MOVED.iter().any(|(k, _)| *k == name);
            if !moved && !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    };
    if let Some(node) = navigate(c, &c.config, at) {
        add(node);
    }
    let lpath = level_path(at);
    let finals = finals(c, at);
    for i in 0..c.levels.len() {
        if let Some(Written::Set { node, .. }) = levels::written(c, i, &lpath, &finals) {
            add(node);
        }
    }
    names
}
