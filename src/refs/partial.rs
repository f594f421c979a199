//! Partial resolution: one string evaluated against a merged tree (for class
//! names that hold references: src/classes/walk.rs), or one subtree resolved
//! (a host's exports), resolving only what it reads.

use super::Dialect;
use super::resolver::{Resolver, syntax_error};
use crate::diag::Diags;
use crate::limits::Limits;
use crate::merge::Merged;
use crate::syntax::template;
use crate::value::Node;
use crate::value::Span;

/// The text of `text` with its references replaced by their values in
/// `merged`, in a dialect of references. Only the paths it reads are resolved.
pub(crate) fn evaluate(
    merged: &mut Merged,
    limits: &Limits,
    text: &str,
    span: &Span,
    dialect: Dialect,
) -> Result<String, Diags> {
    let parts = template::parse_in(text, dialect.grammar())
        .map_err(|e| vec![syntax_error(text, &e, span)])?;
    let mut r = Resolver::new(merged, limits, dialect);
    let out = r.eval_text(&parts, span);
    match out {
        Ok(s) if r.errors.is_empty() => Ok(s),
        _ => Err(r.errors),
    }
}

/// The value at `path` with every reference below it resolved (and the
/// deferred merges there finished), leaving the rest of the tree as it is;
/// `None` when nothing is there. A host's exports are computed this way, so
/// a broken reference elsewhere in its config does not fail them.
pub(crate) fn resolve_subtree(
    merged: &mut Merged,
    limits: &Limits,
    path: &[String],
    dialect: Dialect,
) -> Result<Option<Node>, Diags> {
    let mut r = Resolver::new(merged, limits, dialect);
    if r.locate(path).is_none() {
        return Ok(None);
    }
    let text = dialect.show(path);
    match r.value_at(&text, &Span::synthetic()) {
        Ok(node) if r.errors.is_empty() => Ok(Some(node)),
        _ => Err(r.errors),
    }
}
