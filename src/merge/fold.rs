//! Layering the documents' tables onto the base policy, and running the
//! engine over the documents: [`merge_documents`] (a spec at the root, for
//! `beryl merge --strategy`), [`merge_for_lookup`] (the spec chosen for one
//! path once the tables are layered, lookup.rs).

use super::{
    Choice, DEFAULT, Lookup, Merged, Override, Policy, Spec, errors_first, prefixes, tables,
};
use crate::diag::Diags;
use crate::value::{Map, Node, Value};

/// Merges `docs` (lowest priority first). Their tables (`merge:`,
/// `lookup_options:`) are layered onto `base` in order; `root`, when given,
/// is the strategy at the root and beats any table there. Returns every
/// error found; warnings (a knockout that removes nothing, an empty value
/// that deletes under `patch`) go with the errors, or into
/// [`Merged::diags`] when there are none.
///
/// Paths where a reference (`${…}`) meets another value are not merged yet:
/// they are returned in [`Merged::deferred`], to be finished with
/// [`Merged::finish`] once the references are resolved.
pub fn merge_documents(
    docs: &[&Node],
    base: &Policy,
    root: Option<&Spec>,
) -> Result<Merged, Diags> {
    fold(docs, base, |_| {
        (root.map(|s| Override::root(s.clone())), None)
    })
}

/// Merges `docs` as [`merge_documents`] does, for a lookup of one path: the
/// spec there is chosen once the tables are layered, in Hiera's order
/// (lookup.rs), and the choice is in [`Merged::choice`].
pub(crate) fn merge_for_lookup(
    docs: &[&Node],
    base: &Policy,
    lookup: &Lookup,
) -> Result<Merged, Diags> {
    fold(docs, base, |policy| {
        let (forced, choice) = lookup.choose(policy);
        (forced, Some(choice))
    })
}

/// The fold: layers the tables, asks `decide` for the spec imposed at a
/// path (if any) given the layered table, and merges.
fn fold(
    docs: &[&Node],
    base: &Policy,
    decide: impl FnOnce(&Policy) -> (Option<Override>, Option<Choice>),
) -> Result<Merged, Diags> {
    let mut policy = base.clone();
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    for doc in docs {
        match tables::level_rules(doc, &policy) {
            Ok((rules, w)) => {
                policy.layer(rules);
                warnings.extend(w);
            }
            Err(e) => errors.extend(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let (forced, choice) = decide(&policy);
    let mut merged = Merged {
        node: Node::synthetic(Value::Null),
        deferred: Vec::new(),
        policy,
        forced,
        choice,
        constants: Vec::new(),
        constants_reported: Vec::new(),
        diags: Vec::new(),
        used: Vec::new(),
    };
    let mut engine = merged.engine(true);
    let contributions: Vec<Option<&Node>> = docs.iter().map(|d| Some(*d)).collect();
    let node = engine.merge_at(&DEFAULT, &contributions, false, false);
    let (diags, deferred, reported, used) = (
        engine.diags,
        engine.deferred,
        engine.constants_reported,
        engine.used,
    );
    merged.diags = errors_first(diags)?;
    merged.diags.splice(0..0, warnings);
    merged.used = used;
    merged.node = node.unwrap_or_else(|| Node::synthetic(Value::Map(Map::new())));
    merged.deferred = deferred;
    let table_keys = merged.policy.table_keys();
    for doc in docs {
        prefixes::constants(doc, table_keys, &mut Vec::new(), &mut merged.constants);
    }
    merged.constants_reported = reported;
    // With deferred paths the tree is not final yet: refs::resolve checks.
    if merged.deferred.is_empty() {
        let errors = merged.check_constants();
        if !errors.is_empty() {
            return Err(errors);
        }
    }
    Ok(merged)
}
