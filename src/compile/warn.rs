//! The warnings a host's chain shows beyond its merge: a YAML 1.1 spelling
//! in free-form data (`enabled: yes`), when another level of the chain gives
//! the same path a value of the type YAML 1.1 would have read.
//!
//! Free-form data may hold any string, and `no` is a fine country code, so a
//! spelling alone says nothing; a boolean (or integer) at the same path in
//! another level says what was meant. Each level file is scanned once per
//! run, whatever number of hosts share it.
//!
//! The root keys of a level that are data but look like more (a near-miss
//! of a key beryl reads, reclass's `applications`) are found in the same
//! pass: inventory/levels.rs `warnings`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::MergedDoc;
use crate::diag::{Diag, Diags};
use crate::value::{Node, Value};
use crate::yaml::spelling::{self, Meant};

crate::diag::codes! {
    /// The codes of the warnings about a host's chain, named after the stage
    /// whose input they are about.
    pub(crate) enum Code {
        /// In free-form data, a plain YAML 1.1 spelling (`yes`, `0644`) where another level gives the same path a boolean (an integer).
        Yaml11 = "beryl::yaml::yaml11", warning;
    }
}

/// A plain scalar of free-form data spelled the YAML 1.1 way.
#[derive(Debug)]
struct Spelling {
    path: Vec<String>,
    node: Node,
    meant: Meant,
    instead: String,
}

/// What a level file may warn of, found once per run.
struct Scanned {
    spellings: Vec<Spelling>,
    /// The warnings of its root keys (inventory/levels.rs), in beryl's
    /// layout only.
    roots: Diags,
}

/// The spellings and root-key warnings of each level file, found once per
/// run.
#[derive(Default)]
pub(super) struct Spelled {
    files: Mutex<HashMap<String, Arc<Scanned>>>,
}

impl Spelled {
    fn of(&self, level: &MergedDoc, layout: bool) -> Arc<Scanned> {
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        files
            .entry(level.file.clone())
            .or_insert_with(|| {
                Arc::new(Scanned {
                    spellings: scan(&level.node),
                    roots: if layout {
                        crate::inventory::levels::warnings(&level.written)
                    } else {
                        Vec::new()
                    },
                })
            })
            .clone()
    }

    /// A warning for each spelling that another level of the chain shows to
    /// be meant as a boolean or a number, and, in beryl's own layout
    /// (`layout`; not a reclass inventory, whose root keys are reclass's),
    /// each level's root keys that are data but look like more.
    pub(super) fn warnings(&self, levels: &[MergedDoc], layout: bool) -> Diags {
        let mut out = Vec::new();
        for (i, level) in levels.iter().enumerate() {
            let scanned = self.of(level, layout);
            out.extend(scanned.roots.iter().cloned());
            for s in scanned.spellings.iter() {
                let typed = levels
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .find_map(|(_, other)| lookup(&other.node, &s.path))
                    .filter(|n| s.meant.same_type(&n.value));
                if let Some(typed) = typed {
                    out.push(warning(s, typed));
                }
            }
        }
        out
    }
}

fn warning(s: &Spelling, typed: &Node) -> Diag {
    let path = crate::syntax::path::display(&s.path);
    let text = s.node.as_str().unwrap_or_default();
    let read = match s.meant {
        Meant::Bool(b) => format!("the boolean {b}"),
        Meant::Int(n) => format!("the octal number {n}"),
    };
    let kind = s.meant.type_name();
    Diag::warning(
        Code::Yaml11,
        format!(
            "`{path}: {text}` is the string \"{text}\" in YAML 1.2, where another level sets `{path}` to {kind}"
        ),
    )
    .label(
        &s.node.span,
        format!("a string (YAML 1.1 read {read})"),
    )
    .label(&typed.span, format!("{kind} here"))
    .help(format!(
        "write {}; or quote it (\"{text}\") if the string is meant",
        s.instead
    ))
}

/// Whether a root key holds free-form data: not a key beryl reads (the
/// exports are data too).
fn free_form(key: &str) -> bool {
    key == crate::exports::KEY || !crate::syntax::root::RESERVED.contains(&key)
}

/// The spellings of a document's free-form mappings (lists are not walked:
/// their items have no path another level could share).
fn scan(doc: &Node) -> Vec<Spelling> {
    let mut out = Vec::new();
    let Some(root) = doc.as_map() else {
        return out;
    };
    for (raw, entry) in root {
        let key = crate::syntax::prefix::split(raw).0;
        if free_form(key) {
            walk(&entry.node, &mut vec![key.to_string()], &mut out);
        }
    }
    out
}

fn walk(node: &Node, path: &mut Vec<String>, out: &mut Vec<Spelling>) {
    match &node.value {
        Value::Map(m) => {
            for (raw, entry) in m {
                path.push(crate::syntax::prefix::split(raw).0.to_string());
                walk(&entry.node, path, out);
                path.pop();
            }
        }
        Value::Str(_) => {
            if let Some((meant, instead)) = spelling::reading(node) {
                out.push(Spelling {
                    path: path.clone(),
                    node: node.clone(),
                    meant,
                    instead,
                });
            }
        }
        _ => {}
    }
}

/// The value at `path` of a document, its keys' prefixes aside.
fn lookup<'n>(doc: &'n Node, path: &[String]) -> Option<&'n Node> {
    path.iter().try_fold(doc, |node, seg| {
        node.as_map()?
            .iter()
            .find(|(k, _)| crate::syntax::prefix::split(k).0 == seg)
            .map(|(_, e)| &e.node)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Source;

    fn levels(texts: &[&str]) -> Vec<MergedDoc> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let node = Arc::new(
                    crate::yaml::parse(&Source::new(format!("l{i}.yml"), *t), &Default::default())
                        .unwrap(),
                );
                MergedDoc {
                    file: format!("l{i}.yml"),
                    written: node.clone(),
                    node,
                }
            })
            .collect()
    }

    fn codes(texts: &[&str]) -> Vec<String> {
        Spelled::default()
            .warnings(&levels(texts), true)
            .iter()
            .map(|d| d.span().unwrap().to_string())
            .collect()
    }

    #[test]
    fn a_spelling_is_reported_when_another_level_shows_the_type() {
        assert_eq!(
            codes(&["m: {enabled: true}", "m: {enabled: yes}"]),
            ["l1.yml:1:14"]
        );
        assert_eq!(
            codes(&["~m: {mode: 0644}", "m: {=mode: 420}"]),
            ["l0.yml:1:12"]
        );
        // No other level, another type, a quoted string, a list item, or a
        // key beryl reads: quiet.
        assert!(codes(&["m: {country: no}"]).is_empty());
        assert!(codes(&["m: {c: 'x'}", "m: {c: no}"]).is_empty());
        assert!(codes(&["m: {c: true}", "m: {c: 'no'}"]).is_empty());
        assert!(codes(&["m: [true]", "m: [yes]"]).is_empty());
        assert!(codes(&["ssh: {port: 22}", "ssh: {port: 022}"]).is_empty());
        assert_eq!(
            codes(&["exports: {web: true}", "exports: {web: on}"]),
            ["l1.yml:1:16"]
        );
    }
}
