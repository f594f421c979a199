//! The limits on resolution (crate::limits): how deep references nest, how
//! much they copy or build for one host, and how deep a value they place.
//! The first breach stops the resolution.

use super::resolver::{Fail, Resolver};
use super::size::measure;
use crate::diag::Diag;
use crate::limits::Limit;
use crate::value::{Loc, Node, Span};

impl Resolver<'_> {
    /// Pushing one more frame: within the reference depth limit?
    pub(super) fn enter(&mut self, span: &Span) -> Result<(), Fail> {
        if self.stack.len() < self.limits.max_ref_depth {
            return Ok(());
        }
        let chain: Vec<String> = self
            .stack
            .iter()
            .take(3)
            .map(|f| self.show(&f.loc))
            .collect();
        let d = Limit::RefDepth
            .diag(format!(
                "references nest more than {} deep (a chain starting {} → …)",
                self.limits.max_ref_depth,
                chain.join(" → ")
            ))
            .label(span, "this reference is one too many");
        Err(self.breach(d))
    }

    /// Counts values and string bytes that references copy or build.
    pub(super) fn spend(&mut self, nodes: usize, bytes: usize, span: &Span) -> Result<(), Fail> {
        self.copied.0 = self.copied.0.saturating_add(nodes);
        self.copied.1 = self.copied.1.saturating_add(bytes);
        let (max_nodes, max_bytes) = (self.limits.max_nodes, self.limits.max_string_bytes());
        let what = if self.copied.0 > max_nodes {
            format!("more than {max_nodes} values")
        } else if self.copied.1 > max_bytes {
            format!("more than {max_bytes} bytes of strings")
        } else {
            return Ok(());
        };
        let d = Limit::RefExpansion
            .diag(format!(
                "references copy or build {what} for this host (a reference bomb?)"
            ))
            .label(span, "the budget ran out at this reference");
        Err(self.breach(d))
    }

    /// A value placed at `loc` may not nest the config deeper than the limit.
    pub(super) fn check_depth(&mut self, loc: &Loc, value: &Node, span: &Span) -> Result<(), Fail> {
        let depth = loc.len() + measure(value).height;
        if depth <= self.limits.max_depth {
            return Ok(());
        }
        let d = Limit::Depth
            .diag(format!(
                "this reference nests the config {depth} levels deep, deeper than {} levels",
                self.limits.max_depth
            ))
            .label(span, "the value placed here is too deep");
        Err(self.breach(d))
    }

    /// Reports a limit breach and stops the resolution.
    fn breach(&mut self, d: Diag) -> Fail {
        self.stopped = true;
        self.report(d)
    }
}
