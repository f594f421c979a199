//! One string evaluated against a merged tree, resolving only what it reads
//! (for class names that hold references: src/classes/walk.rs).

use super::{Resolver, template};
use crate::diag::{Diag, Diags};
use crate::limits::Limits;
use crate::merge::Merged;
use crate::value::Span;

/// The text of `text` with its references replaced by their (scalar) values
/// in `merged`. Only the paths it reads are resolved.
pub fn evaluate(
    merged: &mut Merged,
    limits: &Limits,
    text: &str,
    span: &Span,
) -> Result<String, Diags> {
    let parts = template::parse(text).map_err(|e| {
        vec![
            Diag::new(
                "beryl::refs::syntax",
                format!("bad reference in {text:?}: {}", e.message),
            )
            .label(span, "in this string")
            .help("write `${path}`; a literal `${` is written `\\${`"),
        ]
    })?;
    let mut r = Resolver::new(merged, limits);
    let out = r.eval_text(&parts, span);
    match out {
        Ok(s) if r.errors.is_empty() => Ok(s),
        _ => Err(r.errors),
    }
}
