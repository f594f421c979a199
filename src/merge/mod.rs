//! The merge engine: folds a chain of documents, lowest priority first.
//!
//! Entry point: [`merge_documents`] (and [`merge_for_lookup`], one path as
//! Hiera looks it up), in `fold.rs`. Each document may carry a root `merge:`
//! or `lookup_options:` table (`tables.rs`); the tables are layered onto a
//! base [`Policy`] and never appear in the result. At every path the engine
//! asks the policy which [`Spec`] applies (unless an [`Override`] imposes
//! one, `lookup.rs`) and dispatches on its [`Strategy`]; it has no rule of
//! its own. The strategies live in `strategies.rs` (Beryl's, RFC 7396 and
//! the simple Hiera ones) and `deep.rs` (Hiera `deep`, which is the
//! deep_merge gem); key prefixes (`~`, `=`) in `prefixes.rs`; orderings in
//! `order.rs`.

mod deep;
mod dialect;
mod fold;
pub(crate) mod lookup;
mod order;
pub(crate) mod policy;
pub(crate) mod prefixes;
pub(crate) mod spec;
mod strategies;
pub(crate) mod tables;
mod warn;

use std::sync::LazyLock;

pub use dialect::{Allow, Constants, Dialect, Kinds};
pub use fold::merge_documents;
pub(crate) use fold::merge_for_lookup;
pub use lookup::{Choice, Lookup, Override};
pub use policy::{Pattern, Policy, Rule};
pub use spec::{Spec, Strategy};

use crate::diag::Diags;
use crate::value::{Node, Value};

crate::diag::codes! {
    /// The codes of the merge engine.
    pub(crate) enum Code in "merge" {
        /// A `merge:` table that is not a mapping of path pattern to spec.
        Table = "table";
        /// A `~` or `=` prefix on the `merge:` or `lookup_options:` key.
        TablePrefix = "table_prefix";
        /// One pattern given a spec by both `merge:` and `lookup_options:` of one level.
        TableConflict = "table_conflict";
        /// An option beside `merge` in a `lookup_options` entry, which Hiera ignores.
        LookupOptionIgnored = "lookup_option_ignored", warning;
        /// A path pattern of a `merge:` table that does not parse.
        Pattern = "pattern";
        /// A merge spec that is neither a strategy name nor a mapping with a `strategy`, or an option of the wrong type.
        Spec = "spec";
        /// A merge spec names no strategy beryl has.
        UnknownStrategy = "unknown_strategy";
        /// A merge spec sets an option beryl does not have.
        UnknownOption = "unknown_option";
        /// A merge spec sets an option its strategy does not take.
        OptionNotTaken = "option_not_taken";
        /// An empty `knockout_prefix`.
        KnockoutPrefix = "knockout_prefix";
        /// A `by_key` list item without a usable key field.
        ItemKey = "item_key";
        /// A `by_key` list item named twice in one level (a user listed twice in one file): the two would merge silently.
        DuplicateItem = "duplicate_item";
        /// Values a Hiera strategy cannot merge (`unique` of mappings, `hash` of non-mappings).
        Type = "type";
        /// A value of another kind over what was merged below it, under reclass's rules ("Cannot merge X over Y").
        KindChange = "kind_change";
        /// A constant (`=key`) that a higher level changes or removes.
        Constant = "constant";
        /// Two keys of one mapping set the same name (`~a` beside `a`).
        PrefixClash = "prefix_clash";
        /// A knockout that removes nothing in the levels below it.
        KnockoutUnused = "knockout_unused", warning;
        /// Under `patch`, a value written empty deletes what the lower levels merged there.
        EmptyPatch = "empty_patch", warning;
    }
}

/// The root keys that hold a document's merge table: beryl's `merge:` and
/// Hiera's `lookup_options:` (tables.rs).
pub(crate) const TABLE_KEYS: &[&str] = &[
    crate::syntax::root::MERGE,
    crate::syntax::root::LOOKUP_OPTIONS,
];

static DEFAULT: LazyLock<Spec> = LazyLock::new(|| Spec::of(Strategy::Default));

/// The diagnostics as an error when one is an error, else the warnings.
fn errors_first(diags: Diags) -> Result<Diags, Diags> {
    if diags.iter().any(crate::diag::Diag::is_error) {
        Err(diags)
    } else {
        Ok(diags)
    }
}

/// The result of a merge: the merged tree, and the paths left to finish.
#[derive(Debug)]
pub struct Merged {
    pub node: Node,
    pub deferred: Vec<Deferred>,
    pub policy: Policy,
    /// The spec imposed at a path (`beryl merge --strategy`, a lookup).
    forced: Option<Override>,
    /// For a lookup, how its spec was chosen.
    pub choice: Option<Choice>,
    /// The constants written in the documents, checked on the final tree.
    constants: Vec<prefixes::Written>,
    constants_reported: Vec<crate::value::Span>,
    /// The warnings of the merge (its errors fail it), deferred paths included.
    pub diags: Diags,
    /// For each rule of `policy`, whether it was in force at some path.
    used: Vec<bool>,
}

/// A path whose values wait for their references: a reference's type is not
/// known until it is resolved, so neither is how it merges (reclass's
/// deferred merge). The tree holds the highest value there meanwhile.
#[derive(Clone, Debug)]
pub struct Deferred {
    pub path: Vec<String>,
    /// The values written at the path, lowest first (see `Contribs`).
    pub values: Vec<Option<Node>>,
    inherited: Spec,
    member: bool,
    in_deep: bool,
    target: bool,
}

impl Merged {
    fn engine(&self, defer: bool) -> Engine<'_> {
        Engine {
            policy: &self.policy,
            forced: self.forced.as_ref(),
            path: Vec::new(),
            diags: Vec::new(),
            target: true,
            defer,
            deferred: Vec::new(),
            constants_reported: Vec::new(),
            used: vec![false; self.policy.rules().len()],
        }
    }

    /// The rules of the table that were in force at some path of the merge
    /// (a rule overridden wherever it matches, or matching no path, is not).
    pub(crate) fn rules_used(&self) -> impl Iterator<Item = &Rule> {
        self.policy
            .rules()
            .iter()
            .zip(&self.used)
            .filter(|(_, used)| **used)
            .map(|(rule, _)| rule)
    }

    /// Checks that every constant survived into the final tree (see
    /// `prefixes::check_constants`).
    pub(crate) fn check_constants(&self) -> Diags {
        // reclass's constants merge the lower values in, and are checked
        // where a later level sets them (prefixes.rs).
        if self.policy.dialect().constants != Constants::Beryl {
            return Vec::new();
        }
        prefixes::check_constants(&self.node, &self.constants, &self.constants_reported)
    }

    /// Merges a deferred path's values, now free of references, with the
    /// strategy in force there. `None` means the key is deleted. Its
    /// warnings join [`Merged::diags`].
    pub(crate) fn finish(
        &mut self,
        d: &Deferred,
        values: &[Option<Node>],
    ) -> Result<Option<Node>, Diags> {
        let (out, diags, used) = {
            let mut engine = self.engine(false);
            engine.path = d.path.clone();
            engine.target = d.target;
            let cs: Vec<Option<&Node>> = values.iter().map(Option::as_ref).collect();
            let out = engine.merge_at(&d.inherited, &cs, d.member, d.in_deep);
            (out, engine.diags, engine.used)
        };
        self.diags.extend(errors_first(diags)?);
        for (mine, theirs) in self.used.iter_mut().zip(used) {
            *mine |= theirs;
        }
        Ok(out)
    }
}

/// Where the spec in force at a path comes from.
#[derive(Clone, Debug)]
pub(crate) enum SpecOrigin {
    /// A rule of the table; a synthetic key span means a built-in rule.
    Rule(Rule),
    /// Inherited from the ancestor at this path.
    Inherited(Vec<String>),
    /// The value is taken whole by a non-recursing strategy at this ancestor.
    Whole(Vec<String>),
    /// No rule applies: the built-in default.
    Default,
}

/// The spec the engine uses at `path`, and why: the same selection as the
/// merge (rules, then inheritance from the nearest recursing ancestor; the
/// fields of `by_key` items inherit from above the list).
pub(crate) fn spec_at(policy: &Policy, path: &[String]) -> (Spec, SpecOrigin) {
    let mut inherited = (DEFAULT.clone(), SpecOrigin::Default);
    for depth in 0..=path.len() {
        let here = match policy.rule_for(&path[..depth]) {
            Some(rule) if depth > 0 => (rule.spec.clone(), SpecOrigin::Rule(rule.clone())),
            _ => inherited.clone(),
        };
        if depth == path.len() {
            return here;
        }
        let prefix = path[..depth].to_vec();
        inherited = match here.0.kind {
            Strategy::ByKey => inherited,
            kind if kind.recurses() => (here.0, SpecOrigin::Inherited(prefix)),
            _ => return (here.0, SpecOrigin::Whole(prefix)),
        };
    }
    inherited
}

/// The state of one merge: the table, the current path, and the
/// diagnostics so far (errors and warnings).
struct Engine<'p> {
    policy: &'p Policy,
    forced: Option<&'p Override>,
    path: Vec<String>,
    diags: Diags,
    /// For each rule of the table, whether it was in force at some path.
    used: Vec<bool>,
    /// Whether the first value at the current path comes from the lowest
    /// document, which `patch` treats as the target (its nulls are data).
    target: bool,
    /// Constants already reported where a mapping merged (by `=` key span).
    constants_reported: Vec<crate::value::Span>,
    /// Whether references defer a merge (off when finishing one).
    defer: bool,
    deferred: Vec<Deferred>,
}

/// The values written at one path, lowest priority first. `None` marks a level
/// whose parent mapping lacks the key; only `deep` gives that a meaning (the
/// deep_merge gem merges such a value with itself).
type Contribs<'a> = [Option<&'a Node>];

impl<'p> Engine<'p> {
    /// The spec in force at the current path.
    fn spec_here(&mut self, inherited: &'p Spec) -> &'p Spec {
        let Some(forced) = self.forced else {
            return self.table_spec(inherited);
        };
        match forced.relation(&self.path) {
            lookup::Relation::At => &forced.spec,
            lookup::Relation::Below if forced.whole => inherited,
            lookup::Relation::Above if forced.whole => {
                // The merge must reach the path: what takes a value whole
                // above it yields to `default`.
                let spec = self.table_spec(inherited);
                if spec.kind.recurses() { spec } else { &DEFAULT }
            }
            _ => self.table_spec(inherited),
        }
    }

    /// The spec the tables give the current path (else `inherited`).
    fn table_spec(&mut self, inherited: &'p Spec) -> &'p Spec {
        let policy: &'p Policy = self.policy;
        match policy.rule_index_for(&self.path) {
            Some(i) => {
                if let Some(used) = self.used.get_mut(i) {
                    *used = true;
                }
                &policy.rules()[i].spec
            }
            None => inherited,
        }
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
        if self.defer && must_defer(cs, self.policy.dialect().defers_every_reference()) {
            self.deferred.push(Deferred {
                path: self.path.clone(),
                values: cs.iter().map(|c| c.cloned()).collect(),
                inherited: inherited.clone(),
                member,
                in_deep,
                target: self.target,
            });
            return written(cs).next_back().cloned();
        }
        let only_written;
        let cs = match self.forced {
            // A lookup: a level without the path is no data there.
            Some(f) if f.written_only && f.at == self.path => {
                only_written = cs
                    .iter()
                    .filter(|c| c.is_some())
                    .copied()
                    .collect::<Vec<_>>();
                &only_written[..]
            }
            _ => cs,
        };
        let spec = self.spec_here(inherited);
        match spec.kind {
            Strategy::Default | Strategy::Append | Strategy::Concat | Strategy::ByKey => {
                self.layered(spec, inherited, cs)
            }
            Strategy::First => self.first(cs),
            Strategy::Unique => self.unique(spec, cs),
            Strategy::Hash => self.hash(cs),
            Strategy::Patch => self.patch(spec, cs, member),
            Strategy::Deep => self.deep(spec, cs, member, in_deep),
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

/// Whether the values at a path must wait for their references: a whole
/// reference meets another value, or a list holds a reference (its items are
/// deduplicated, knocked out or keyed by value). With `every`, any string
/// holding a reference that meets another value (reclass's dialect: each
/// value is resolved, then merged).
fn must_defer(cs: &Contribs<'_>, every: bool) -> bool {
    let whole = |n: &Node| {
        n.as_str().is_some_and(|s| {
            if every {
                crate::syntax::template::has_reference(s)
            } else {
                crate::syntax::template::is_whole_reference(s)
            }
        })
    };
    let mut count = 0;
    let mut any_whole = false;
    for value in written(cs) {
        count += 1;
        any_whole |= whole(value);
        if let Value::Seq(items) = &value.value
            && items.iter().any(|i| {
                i.as_str()
                    .is_some_and(crate::syntax::template::has_reference)
            })
        {
            return true;
        }
    }
    any_whole && count > 1
}

/// The values actually written (levels that hold the key).
fn written<'c, 'a>(cs: &'c Contribs<'a>) -> impl DoubleEndedIterator<Item = &'a Node> + 'c {
    cs.iter().filter_map(|c| *c)
}

#[cfg(test)]
mod tests;
