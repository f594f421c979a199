//! A host's config as the diff reads it: the effective config with the spans
//! of its values, the merge policy that says how its lists are identified,
//! and the names of the files it was compiled from.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use super::Place;
use crate::compile::Compiled;
use crate::keys::{Key, Origin};
use crate::merge::Policy;
use crate::value::{Node, Source, Span, Value};

/// One host's config, on one side.
pub(crate) struct HostConfig {
    pub node: Node,
    /// The host's merge policy; `None` for a render directory, which keeps
    /// no policy (`compare` then takes the other side's, or the built-in
    /// rules).
    pub policy: Option<Policy>,
    /// How the spans' files are named; `None` when the spans are not in
    /// inputs (a render directory's spans are lines of its own files).
    pub names: Option<Arc<Names>>,
    /// The documents of the host's chain as merged (level and class files),
    /// most general first, by shown name; empty for a render directory.
    pub levels: Vec<(Arc<str>, Arc<Node>)>,
}

/// How the files of a side are shown: each row maps the prefix a file is
/// named with on this side (a temporary tree's, say) to the prefix shown.
/// The longest matching prefix wins; a file under none is shown as it is.
#[derive(Debug, Default)]
pub(crate) struct Names {
    rows: Vec<(String, String)>,
}

impl Names {
    /// `inventory` is the root as the side's files are named (they are
    /// shown relative to it); `ssh` the key directory as named, shown as
    /// `ssh_shown` (the directory given on the command line).
    pub(crate) fn new(inventory: &str, ssh: &str, ssh_shown: &str) -> Names {
        let dir = |s: &str| {
            let s = s.trim_end_matches('/');
            if s.is_empty() || s == "." {
                String::new()
            } else {
                format!("{s}/")
            }
        };
        let mut rows = vec![(dir(inventory), String::new()), (dir(ssh), dir(ssh_shown))];
        rows.retain(|(from, to)| from != to);
        rows.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
        Names { rows }
    }

    pub(crate) fn show(&self, file: &str) -> String {
        for (from, to) in &self.rows {
            if let Some(rest) = file.strip_prefix(from.as_str()) {
                return format!("{to}{rest}");
            }
        }
        file.to_string()
    }

    /// Where a span is, if it is in a file.
    pub(crate) fn place(&self, span: &Span, side: &'static str) -> Option<Place> {
        let file = span.file_name()?;
        Some(Place {
            file: self.show(file),
            line: span.line,
            col: span.col,
            side,
        })
    }
}

impl HostConfig {
    /// Reads a compiled host. An injected key is located in its key file
    /// (`ssh/alice.pub:1`), not at the YAML entry that named it, so a key
    /// rotation names the file that changed.
    pub(crate) fn from_compiled(c: Compiled, names: &Arc<Names>) -> HostConfig {
        let levels = c
            .levels
            .iter()
            .map(|l| (Arc::from(l.file.as_str()), l.node.clone()))
            .collect();
        let mut sources = HashMap::new();
        let mut node = c.config;
        if let Value::Map(root) = &mut node.value {
            if let Some(e) = root.get_mut("ssh_keys") {
                locate(&mut sources, &mut e.node, &c.domain_keys);
            }
            let users = crate::compile::users_mut(root);
            for item in users.into_iter().flatten() {
                let name = item.get("name").and_then(Node::as_str).unwrap_or_default();
                let Some(user) = c.users.iter().find(|u| u.name == name) else {
                    continue;
                };
                if let Value::Map(fields) = &mut item.value
                    && let Some(e) = fields.get_mut("ssh_keys")
                {
                    locate(&mut sources, &mut e.node, &user.keys);
                }
            }
        }
        HostConfig {
            node,
            policy: Some(c.policy),
            names: Some(names.clone()),
            levels,
        }
    }

    /// The inputs of a compiled host, each with its content (shown name →
    /// content): the chain's level and class files, and the key files it
    /// read.
    pub(crate) fn inputs(
        c: &Compiled,
        names: &Names,
        store: &crate::keys::KeyStore,
    ) -> Vec<(Arc<str>, Content)> {
        let mut inputs: Vec<(Arc<str>, Content)> = c
            .levels
            .iter()
            .map(|l| {
                let text = l
                    .node
                    .span
                    .source
                    .as_ref()
                    .map_or_else(|| Arc::from(""), |s| s.text.clone());
                (Arc::from(l.file.as_str()), Content::Text(text))
            })
            .collect();
        let mut keys: BTreeMap<&str, BTreeSet<(usize, String)>> = BTreeMap::new();
        for key in c
            .domain_keys
            .iter()
            .chain(c.users.iter().flat_map(|u| &u.keys))
        {
            if let Origin::File { path, line, .. } = &key.origin {
                keys.entry(path).or_default().insert((*line, key.line()));
            }
        }
        for (file, keys) in keys {
            let keys = store.file_keys(file).unwrap_or(keys);
            inputs.push((Arc::from(names.show(file)), Content::Keys(keys)));
        }
        inputs
    }
}

/// What an input file holds, to tell whether it changed between the sides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Content {
    /// A level or class file: its text.
    Text(Arc<str>),
    /// A key file: its keys, by line (every key of the file, not only those
    /// a host kept, so that whether it changed does not depend on which
    /// hosts were compiled).
    Keys(BTreeSet<(usize, String)>),
}

/// Every input file of a side, with its content.
#[derive(Debug, Default)]
pub(crate) struct Files(pub HashMap<Arc<str>, Content>);

impl Files {
    /// Adds one host's inputs; returns their names.
    pub(crate) fn add(&mut self, inputs: Vec<(Arc<str>, Content)>) -> Vec<Arc<str>> {
        let mut names = Vec::with_capacity(inputs.len());
        for (name, content) in inputs {
            match (self.0.get_mut(&name), content) {
                (Some(Content::Keys(all)), Content::Keys(mine)) => all.extend(mine),
                (Some(_), _) => {}
                (None, content) => {
                    self.0.insert(name.clone(), content);
                }
            }
            names.push(name);
        }
        names
    }
}

/// Gives each item of a resolved key list the place of its key: the line of
/// its key file (inline keys keep their YAML span). One source per key file.
fn locate(sources: &mut HashMap<String, Arc<Source>>, list: &mut Node, keys: &[Key]) {
    let Value::Seq(items) = &mut list.value else {
        return;
    };
    for (item, key) in items.iter_mut().zip(keys) {
        let Origin::File { path, line, .. } = &key.origin else {
            continue;
        };
        let source = sources
            .entry(path.clone())
            .or_insert_with(|| Source::new(path.clone(), ""))
            .clone();
        item.span = Span {
            source: Some(source),
            offset: 0,
            len: 0,
            line: u32::try_from(*line).unwrap_or(u32::MAX),
            col: 1,
        };
    }
}
