//! References: `${path}` in string values, resolved against the merged config.
//!
//! Entry point: [`resolve`], run after merging and before SSH keys and
//! validation. A string that is exactly one reference takes the referenced
//! value with its type; references inside a longer string are joined as text.
//! Paths use the dotted syntax of `merge:` patterns (crate::syntax::path); a segment
//! under a list picks the item by index or by its key field (`name`, or the
//! key of the list's `by_key` rule: `merge::Policy::key_field`).
//! Deferred merges (a reference meeting another value) are finished here, on
//! demand, once their references are resolved.
//!
//! Resolution is bounded (crate::limits): references nest at most
//! `max_ref_depth` deep; for one host they copy at most `max_nodes` values
//! and build or copy at most `max_string_bytes` of strings (so an exponential
//! "reference bomb" stops early); and a reference may not nest the config
//! deeper than `max_depth`. The first breach stops the resolution with one
//! error at the reference that crossed the line.
//!
//! - `resolver.rs`: the resolver: strings resolved on demand, in place, with
//!   cycle detection;
//! - `deferred.rs`: finishing a deferred merge once its values are resolved;
//! - `budget.rs`: the limits on depth and on what references copy;
//! - `size.rs`: the size of a value, as the limits count it;
//! - `suggest.rs`: a missing reference, with the closest existing paths;
//! - `partial.rs`: resolving only what one string or one subtree reads.
//! - `dialect.rs`: beryl's references or reclass's ([`Dialect`]): the path
//!   syntax, how a value is written inside a longer string, and whether a
//!   missing reference in an overwritten value is an error.
//! - `code.rs`: the error codes.

mod budget;
mod code;
mod deferred;
mod dialect;
mod partial;
mod resolver;
mod size;
mod suggest;

pub(crate) use code::Code;
pub use dialect::{Dialect, Paths, Render};
pub(crate) use partial::{evaluate, resolve_subtree};

use crate::diag::Diags;
use crate::limits::Limits;
use crate::merge::Merged;
use crate::value::{Loc, Span};

use resolver::Resolver;

/// One string whose references were resolved: for `explain` and `--annotate`.
#[derive(Clone, Debug)]
pub struct Resolution {
    /// Where the string ended up, exactly: the place its value was written
    /// in the merged config.
    pub loc: Loc,
    /// The same place as a path of names, list items by key field or index
    /// ([`Loc::names`] with `merge::Policy::key_field`); `explain` finds
    /// the resolution of a path by it.
    pub path: Vec<String>,
    /// The string as written, and where.
    pub text: String,
    pub span: Span,
    /// Each referenced path and where its value was written.
    pub targets: Vec<(String, Span)>,
}

/// Resolves every reference of the merged tree in place and finishes the
/// deferred merges. Returns every error found.
pub fn resolve(merged: &mut Merged, limits: &Limits) -> Result<Vec<Resolution>, Diags> {
    resolve_in(merged, limits, Dialect::beryl())
}

/// [`resolve`] in a dialect of references.
pub fn resolve_in(
    merged: &mut Merged,
    limits: &Limits,
    dialect: Dialect,
) -> Result<Vec<Resolution>, Diags> {
    resolve_with(merged, limits, dialect, None)
}

/// A tree that references may read beside the host's own: `${NAME.…}`
/// reads the tree `node` gives (issue 36: a jail's `${parent.…}`, its
/// host's effective config). The tree is final: nothing in it is resolved
/// again. `node` runs at the first such reference, never otherwise.
pub struct Outer<'a> {
    pub name: &'static str,
    pub node: &'a (dyn Fn() -> Result<std::sync::Arc<crate::value::Node>, Diags> + Sync),
}

/// [`resolve_in`], with an [`Outer`] tree.
pub fn resolve_with(
    merged: &mut Merged,
    limits: &Limits,
    dialect: Dialect,
    outer: Option<Outer<'_>>,
) -> Result<Vec<Resolution>, Diags> {
    let check_constants = !merged.deferred.is_empty();
    let mut r = Resolver::new(merged, limits, dialect);
    r.outer = outer.map(|o| (o, None));
    for i in 0..r.deferred.len() {
        if r.stopped {
            break;
        }
        let _ = r.finish(i);
    }
    for i in 0..r.pending.len() {
        if r.stopped {
            break;
        }
        let loc = r.pending[i].clone();
        let _ = r.resolve_loc(&loc);
    }
    if check_constants && r.errors.is_empty() {
        let errors = r.merged.check_constants();
        r.errors.extend(errors);
    }
    if r.errors.is_empty() {
        // Named once the tree is final: a list item's key field may itself
        // have been a reference.
        let mut out = std::mem::take(&mut r.resolutions);
        for done in &mut out {
            done.path = r.names(&done.loc);
        }
        Ok(out)
    } else {
        Err(r.errors)
    }
}

#[cfg(test)]
mod tests;
