//! A host file read for its exports only: the root entries the exports can
//! read, not the whole file (src/yaml/entries.rs). Parsing every host file
//! of the fleet was most of the time of a host with a query
//! (docs/performance.md §12), and a host file is mostly what its exports
//! do not read.
//!
//! The entries kept start with `exports`, `classes` and the merge tables;
//! the root keys the exports then read (subtree.rs) join them, and the part
//! is read again, until it holds every root key they read. Nothing read here
//! enters a cache: a compile of the host itself reads its whole file.

use std::collections::HashSet;
use std::sync::Arc;

use super::{Compiler, subtree};
use crate::diag::Diags;
use crate::inventory::{Host, LevelKind};
use crate::syntax::root;
use crate::value::{Node, Source};
use crate::yaml::{Schema, entries};

/// Reading the part again for the root keys found is bounded: each round
/// adds at least one key; a chain of references longer than this (`a` reads
/// `b`, which reads `c`, …) is read whole.
const ROUNDS: usize = 4;

impl Compiler<'_> {
    /// A host's exports (and its environment) from the part of its file
    /// they read, or `None` when that is not sure to give what the whole
    /// file gives: the caller then reads the whole file, and reports its
    /// errors. An error in a part the exports do not read is not seen here,
    /// as a broken reference there is not (subtree.rs).
    pub(super) fn exports_from_part(
        &self,
        host: &Host,
    ) -> Option<(Result<Node, Diags>, Option<String>)> {
        let reclass = self.inventory.flavor.reclass().is_some();
        if reclass || self.inventory.documents.is_some() || self.cached(&host.file.rel) {
            return None;
        }
        let file = &host.file;
        let text = crate::yaml::read_text(&file.path, &file.display, self.limits.max_file_size);
        let whole = Source::new(file.display.as_str(), text.ok()?);
        let entries = entries::entries(&whole.text)?;
        let mut kept: HashSet<String> = [
            root::EXPORTS,
            root::CLASSES,
            root::MERGE,
            root::LOOKUP_OPTIONS,
            root::BERYL,
        ]
        .into_iter()
        .map(str::to_string)
        .collect();
        for _ in 0..ROUNDS {
            let part = entries.keep(|raw| kept.iter().any(|k| subtree::keeps(raw, k)));
            let source = Source::new(file.display.as_str(), part);
            // The host's own compile reports the warnings of reading it.
            let mut node = crate::yaml::parse_as(&source, &self.limits, Schema::Core)
                .ok()?
                .node;
            node.rebase(&whole, 0, 0);
            crate::inventory::levels::check(LevelKind::Host, &node).ok()?;
            let unit = self.library.unit_fresh(&Arc::new(node), &host.fqdn).ok()?;
            // Answered queries are cached by file (queries.rs): not a part's.
            if unit.queries {
                return None;
            }
            let expanded = self.expand_with(host, Some(unit)).ok()?;
            let docs = self.documents(&expanded, None).ok()?;
            let docs: Vec<&Node> = docs.iter().map(|d| &**d).collect();
            let read = subtree::roots_read(&docs, root::EXPORTS, self.dialect.refs)?;
            if read.is_subset(&kept) {
                let exports = self.exports_in(host, &expanded);
                return Some((exports, self.environment(&expanded)));
            }
            kept.extend(read);
        }
        None
    }
}
