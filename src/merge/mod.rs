//! The merge engine: folds a chain of documents, lowest priority first.
//!
//! Entry point: [`merge_documents`]. Each document may carry a root `merge:`
//! table; the tables are layered onto a base [`Policy`] and never appear in the
//! result. At every path the engine asks the policy which [`Spec`] applies and
//! dispatches on its [`Kind`]; it has no rule of its own. The strategies live in
//! `strategies.rs` (Beryl's, RFC 7396 and the simple Hiera ones) and `deep.rs`
//! (Hiera `deep`, which is the deep_merge gem); key prefixes (`~`, `=`) in
//! `keys.rs`; orderings in `order.rs`.

mod deep;
pub mod keys;
mod order;
pub mod policy;
pub mod spec;
mod strategies;

use std::sync::LazyLock;

pub use policy::{Pattern, Policy, Rule};
pub use spec::{Kind, Spec};

use crate::diag::Diags;
use crate::value::{Map, Node, Value};

/// The name of the root key that holds a document's merge table.
pub const TABLE_KEY: &str = "merge";

static DEFAULT: LazyLock<Spec> = LazyLock::new(|| Spec::of(Kind::Default));

/// Merges `docs` (lowest priority first). Their `merge:` tables are layered onto
/// `base` in order; `root`, when given, is the strategy at the root and beats
/// any table. Returns every error found.
pub fn merge_documents(docs: &[&Node], base: &Policy, root: Option<&Spec>) -> Result<Node, Diags> {
    let mut policy = base.clone();
    let mut errors = Vec::new();
    for doc in docs {
        for (raw, entry) in doc.as_map().into_iter().flatten() {
            if raw != TABLE_KEY && keys::split(raw).0 == TABLE_KEY {
                errors.push(
                    crate::diag::Diag::new(
                        "beryl::merge::table_prefix",
                        format!("`{raw}`: the merge table takes no `~` or `=` prefix"),
                    )
                    .label(&entry.key_span, "write `merge:`")
                    .help("a level's table is always layered onto the lower ones; to change a rule, give its pattern a new spec"),
                );
            }
        }
        if let Some(table) = doc.get(TABLE_KEY) {
            match policy::parse_table(table) {
                Ok(rules) => policy.layer(rules),
                Err(e) => errors.extend(e),
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut engine = Engine {
        policy: &policy,
        root,
        path: Vec::new(),
        errors: Vec::new(),
        target: true,
        constants_reported: Vec::new(),
    };
    let contributions: Vec<Option<&Node>> = docs.iter().map(|d| Some(*d)).collect();
    let merged = engine.merge_at(&DEFAULT, &contributions, false, false);
    if let Some(root) = &merged {
        let mut written = Vec::new();
        for doc in docs {
            keys::constants(doc, &mut Vec::new(), &mut written);
        }
        let errors = keys::check_constants(root, &written, &engine.constants_reported);
        engine.errors.extend(errors);
    }
    if !engine.errors.is_empty() {
        return Err(engine.errors);
    }
    Ok(merged.unwrap_or_else(|| Node::synthetic(Value::Map(Map::new()))))
}

/// The state of one merge: the table, the current path, and the errors so far.
struct Engine<'p> {
    policy: &'p Policy,
    root: Option<&'p Spec>,
    path: Vec<String>,
    errors: Diags,
    /// Whether the first value at the current path comes from the lowest
    /// document, which `patch` treats as the target (its nulls are data).
    target: bool,
    /// Constants already reported where a mapping merged (by `=` key span).
    constants_reported: Vec<crate::value::Span>,
}

/// The values written at one path, lowest priority first. `None` marks a level
/// whose parent mapping lacks the key; only `deep` gives that a meaning (the
/// deep_merge gem merges such a value with itself).
type Contribs<'a> = [Option<&'a Node>];

impl<'p> Engine<'p> {
    /// The spec in force at the current path.
    fn spec_here(&self, inherited: &'p Spec) -> &'p Spec {
        if self.path.is_empty()
            && let Some(root) = self.root
        {
            return root;
        }
        self.policy
            .rule_for(&self.path)
            .map_or(inherited, |r| &r.spec)
    }

    /// Merges the values at the current path. `member` is false at the root
    /// only; `in_deep` tells whether the parent was merged by `deep`. `None`
    /// means the key is deleted (a `patch` null, a `deep` knockout).
    fn merge_at(
        &mut self,
        inherited: &'p Spec,
        cs: &Contribs<'_>,
        member: bool,
        in_deep: bool,
    ) -> Option<Node> {
        let spec = self.spec_here(inherited);
        match spec.kind {
            Kind::Default | Kind::Append | Kind::Concat | Kind::ByKey => {
                self.layered(spec, inherited, cs)
            }
            Kind::First => self.first(cs),
            Kind::Unique => self.unique(spec, cs),
            Kind::Hash => self.hash(cs),
            Kind::Patch => self.patch(spec, cs, member),
            Kind::Deep => self.deep(spec, cs, member, in_deep),
        }
    }

    /// Merges a child of the current path.
    fn child(
        &mut self,
        key: &str,
        inherited: &'p Spec,
        cs: &Contribs<'_>,
        in_deep: bool,
    ) -> Option<Node> {
        self.path.push(key.to_string());
        let out = self.merge_at(inherited, cs, true, in_deep);
        self.path.pop();
        out
    }
}

/// The values actually written (levels that hold the key).
fn written<'c, 'a>(cs: &'c Contribs<'a>) -> impl DoubleEndedIterator<Item = &'a Node> + 'c {
    cs.iter().filter_map(|c| *c)
}

#[cfg(test)]
mod tests;
