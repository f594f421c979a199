//! The chain with its classes, and the two passes of inventory queries.
//!
//! [`Compiler::expand`] turns a host's chain into the documents to merge
//! (src/classes/). A host whose documents hold a `$[ … ]` query needs every
//! host's exports first: the [`Fleet`], computed once per run by
//! [`Compiler::exports_of`] on every host (load, merge, references: no keys,
//! no validation). A host without queries never computes it, so it still
//! reads only its own chain.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::{Compiled, Compiler, with_header};
use crate::classes::walk::{self, Doc, Expanded};
use crate::diag::Diags;
use crate::exports::{self, Fleet};
use crate::inventory::Host;
use crate::merge::{self, Merged};
use crate::refs;
use crate::value::{Node, Span};

/// A document with its queries answered, once per run.
type Answered = Arc<OnceLock<Result<Arc<Node>, Diags>>>;

/// Work shared between hosts: the exports of hosts compiled before the fleet
/// was needed (so the fleet does not merge them again), and each document
/// with its queries answered (the answers do not depend on the host).
#[derive(Default)]
pub(super) struct Found {
    exports: Mutex<HashMap<String, Node>>,
    answered: Mutex<HashMap<(String, bool), Answered>>,
}

impl Found {
    pub(super) fn exports(&self, fqdn: &str, exports: &Node) {
        let mut map = self.exports.lock().unwrap_or_else(|e| e.into_inner());
        map.insert(fqdn.to_string(), exports.clone());
    }

    fn known(&self, fqdn: &str) -> Option<Node> {
        let map = self.exports.lock().unwrap_or_else(|e| e.into_inner());
        map.get(fqdn).cloned()
    }

    /// The document with its queries answered from `fleet` (or only its
    /// escapes undone without one), once per document and pass.
    fn answered(&self, doc: &Doc, fleet: Option<&Fleet>) -> Result<Arc<Node>, Diags> {
        let cell = {
            let mut map = self.answered.lock().unwrap_or_else(|e| e.into_inner());
            map.entry((doc.rel.clone(), fleet.is_some()))
                .or_default()
                .clone()
        };
        cell.get_or_init(|| exports::substitute(&doc.node, fleet).map(Arc::new))
            .clone()
    }
}

/// A host's documents merged and their references resolved.
pub(super) struct Resolved {
    /// The documents as merged (queries replaced), in merge order.
    pub nodes: Vec<Arc<Node>>,
    pub merged: Merged,
    pub references: Vec<refs::Resolution>,
}

impl<'a> Compiler<'a> {
    /// The host's chain with its classes, in merge order.
    pub(super) fn expand(&self, host: &Host) -> Result<Expanded, Diags> {
        let chain = self.inventory.chain(host);
        let mut levels = Vec::with_capacity(chain.len());
        let mut errors = Vec::new();
        for level in &chain {
            match self
                .load(level.kind, level.file)
                .and_then(|node| self.library.unit(&level.file.rel, &node))
            {
                Ok(unit) => levels.push((level.file, unit)),
                Err(e) => errors.extend(e),
            }
        }
        if self.inventory.settings.is_some()
            && let Err(e) = self.library.settings()
        {
            errors.extend(e);
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let mut resolve = |docs: &[Doc], text: &str, span: &Span| {
            let nodes: Vec<&Node> = docs.iter().map(|d| &*d.node).collect();
            let mut merged = merge::merge_documents(&nodes, &self.policy, None)?;
            let files = level_files(docs);
            let classes: Vec<String> = docs.iter().filter_map(|d| d.class.clone()).collect();
            merged.node = with_header(host, files, &classes, merged.node);
            refs::evaluate(&mut merged, &self.limits, text, span)
        };
        walk::expand(&self.library, &levels, &mut resolve)
    }

    /// A host's classes, in merge order: the ones its levels name and the ones
    /// those include (for `class:` selectors). Reads only the host's chain and
    /// its class files; nothing is merged unless a class name holds `${…}`.
    pub fn classes(&self, host: &Host) -> Result<Vec<String>, Diags> {
        Ok(self.expand(host)?.classes)
    }

    /// The inventory this compiler compiles.
    pub fn inventory(&self) -> &'a crate::inventory::Inventory {
        self.inventory
    }

    /// Merges the documents (their queries answered from `fleet`, or left as
    /// written without one), with the `_beryl_` header.
    fn merged(
        &self,
        host: &Host,
        expanded: &Expanded,
        fleet: Option<&Fleet>,
    ) -> Result<(Vec<Arc<Node>>, Merged), Diags> {
        let mut nodes = Vec::with_capacity(expanded.docs.len());
        let mut errors = Vec::new();
        for doc in &expanded.docs {
            if doc.queries {
                match self.found.answered(doc, fleet) {
                    Ok(n) => nodes.push(n),
                    Err(e) => errors.extend(e),
                }
            } else {
                nodes.push(doc.node.clone());
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let docs: Vec<&Node> = nodes.iter().map(|n| &**n).collect();
        let mut merged = merge::merge_documents(&docs, &self.policy, None)?;
        // `_beryl_` goes in first, so that `${_beryl_.fqdn}` resolves.
        let files = level_files(&expanded.docs);
        merged.node = with_header(host, files, &expanded.classes, merged.node);
        Ok((nodes, merged))
    }

    /// The documents merged, and every reference resolved.
    pub(super) fn resolved(
        &self,
        host: &Host,
        expanded: &Expanded,
        fleet: Option<&Fleet>,
    ) -> Result<Resolved, Diags> {
        let (nodes, mut merged) = self.merged(host, expanded, fleet)?;
        let references = refs::resolve(&mut merged, &self.limits)?;
        Ok(Resolved {
            nodes,
            merged,
            references,
        })
    }

    /// A host's exports: an empty mapping when none of its documents writes
    /// any (without merging). Only the references the exports read are
    /// resolved: a broken reference elsewhere in the host fails the host,
    /// not its exports (as in reclass).
    pub(super) fn exports_of(&self, host: &Host) -> Result<Node, Diags> {
        let expanded = self.expand(host)?;
        if !expanded
            .docs
            .iter()
            .any(|d| exports::writes_exports(&d.node))
        {
            return Ok(exports::empty());
        }
        let mut merged = self.merged(host, &expanded, None)?.1;
        match refs::resolve_subtree(&mut merged, &self.limits, &[exports::KEY.to_string()])? {
            Some(node) => exports::checked(node),
            None => Ok(exports::empty()),
        }
    }

    /// Every host's exports, computed once per run.
    fn fleet(&self) -> &Fleet {
        self.fleet.get_or_init(|| {
            let one = |h: &Host| {
                let exports = match self.found.known(&h.fqdn) {
                    Some(e) => Ok(e),
                    None => self.exports_of(h),
                };
                (h.fqdn.clone(), exports)
            };
            let hosts = &self.inventory.hosts;
            // Inside a rayon task, a nested parallel loop could run another
            // host's compile on this thread, which would wait for this very
            // cell: stay sequential there (compile_all prepares it outside).
            let hosts = if rayon::current_thread_index().is_some() {
                hosts.iter().map(one).collect()
            } else {
                use rayon::prelude::*;
                hosts.par_iter().map(one).collect()
            };
            Fleet { hosts }
        })
    }

    /// Computes every host's exports now, in parallel; call it outside any
    /// rayon task (see [`Compiler::try_compile`]).
    pub fn prepare_fleet(&self) {
        self.fleet();
    }

    /// Compiles a host unless it needs the fleet and the fleet is not ready
    /// yet (`None`): for parallel compiles, which call
    /// [`Compiler::prepare_fleet`] and then compile the hosts that waited.
    pub fn try_compile(&self, host: &Host) -> Option<Result<Compiled, Diags>> {
        let expanded = match self.expand(host) {
            Ok(e) => e,
            Err(e) => return Some(Err(e)),
        };
        let fleet = if expanded.asks() {
            Some(self.fleet.get()?)
        } else {
            None
        };
        Some(self.finish(host, &expanded, fleet))
    }

    /// Compiles a host, computing the fleet first if its queries need it.
    pub fn compile(&self, host: &Host) -> Result<Compiled, Diags> {
        let expanded = self.expand(host)?;
        let fleet = expanded.asks().then(|| self.fleet());
        self.finish(host, &expanded, fleet)
    }
}

/// `_beryl_.files`: the level files of the chain (the classes are listed
/// apart, in `_beryl_.classes`).
fn level_files(docs: &[Doc]) -> Vec<Node> {
    docs.iter()
        .filter(|d| d.class.is_none())
        .map(|d| Node::str(d.rel.clone()))
        .collect()
}
