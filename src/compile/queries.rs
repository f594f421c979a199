//! Inventory queries (`$[ … ]`, docs/classes.md): every host's exports,
//! computed once per run, and each document with its queries answered.
//!
//! A host whose documents hold a query needs every host's exports first (an
//! [`exports::AllExports`]). [`Compiler::all_exports`] computes them once per run,
//! on every host: load, merge, references, no keys, no validation. A host
//! without queries never computes them, so it still reads only its own chain.
//!
//! Computing them is a parallel loop over the hosts, which a rayon task must
//! not start (inside one, it runs on one thread: see
//! [`Compiler::all_exports`]). [`super::compile_many`] therefore compiles the
//! hosts that ask nothing first, then computes the exports outside its
//! loops, then compiles the hosts that waited for them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::{Compiler, subtree};
use crate::classes::walk::{Doc, Expanded};
use crate::diag::Diags;
use crate::exports::{self, AllExports};
use crate::inventory::Host;
use crate::merge::Merged;
use crate::refs;
use crate::value::Node;

/// A document's answers: by file, pass (with every host's exports or
/// without) and the environment the queries see.
type AnswerKey = (String, bool, Option<String>);

/// A document with its queries answered, once per run.
type Answered = Arc<OnceLock<Result<Arc<Node>, Diags>>>;

/// Work shared between hosts: the exports of hosts compiled before every
/// host's exports were needed (so that computing them does not merge those
/// hosts again), and each document with its queries answered (the answers
/// depend on the host only through its environment, in reclass's dialect).
#[derive(Default)]
pub(super) struct Found {
    /// By FQDN: the host's exports and its environment.
    exports: Mutex<HashMap<String, (Node, Option<String>)>>,
    answered: Mutex<HashMap<AnswerKey, Answered>>,
}

impl Found {
    pub(super) fn exports(&self, fqdn: &str, exports: &Node, environment: Option<String>) {
        let mut map = self.exports.lock().unwrap_or_else(|e| e.into_inner());
        map.insert(fqdn.to_string(), (exports.clone(), environment));
    }

    fn known(&self, fqdn: &str) -> Option<(Node, Option<String>)> {
        let map = self.exports.lock().unwrap_or_else(|e| e.into_inner());
        map.get(fqdn).cloned()
    }

    /// The document with its queries answered from `all` (or only its
    /// escapes undone without it), read in `scope`, once per document, pass
    /// and environment.
    pub(super) fn answered(
        &self,
        doc: &Doc,
        all: Option<&AllExports>,
        scope: &exports::Scope,
    ) -> Result<Arc<Node>, Diags> {
        let cell = {
            let mut map = self.answered.lock().unwrap_or_else(|e| e.into_inner());
            map.entry((doc.rel.clone(), all.is_some(), scope.environment.clone()))
                .or_default()
                .clone()
        };
        cell.get_or_init(|| exports::substitute(&doc.node, all, scope).map(Arc::new))
            .clone()
    }
}

impl Compiler<'_> {
    /// A host's exports: an empty mapping when none of its documents writes
    /// any (without merging). Only the references the exports read are
    /// resolved: a broken reference elsewhere in the host fails the host,
    /// not its exports (as in reclass).
    fn exports_of(&self, host: &Host) -> (Result<Node, Diags>, Option<String>) {
        match self.expand(host) {
            Ok(expanded) => (
                self.exports_in(host, &expanded),
                self.environment(&expanded),
            ),
            Err(e) => (Err(e), None),
        }
    }

    /// The exports of an expanded host.
    fn exports_in(&self, host: &Host, expanded: &Expanded) -> Result<Node, Diags> {
        if !expanded
            .docs
            .iter()
            .any(|d| exports::writes_exports(&d.node))
        {
            return Ok(exports::empty());
        }
        let mut merged = self.exports_merged(host, expanded)?;
        match refs::resolve_subtree(
            &mut merged,
            &self.limits,
            &[exports::KEY.to_string()],
            self.dialect.refs,
        )? {
            Some(node) => exports::checked(node),
            None => Ok(exports::empty()),
        }
    }

    /// The host merged for its exports: on the root keys they read only
    /// (subtree.rs) when that is known, else on its whole config. An error
    /// in a part the exports do not read leaves them as they are (as a
    /// broken reference there does).
    fn exports_merged(&self, host: &Host, expanded: &Expanded) -> Result<Merged, Diags> {
        let nodes = self.documents(expanded, None)?;
        let docs: Vec<&Node> = nodes.iter().map(|n| &**n).collect();
        let roots = match self.inventory.flavor.reclass() {
            None => subtree::roots_read(&docs, exports::KEY, self.dialect.refs),
            Some(_) => None,
        };
        match roots {
            Some(roots) => {
                let only: Vec<Node> = docs.iter().map(|d| subtree::only(d, &roots)).collect();
                let only: Vec<&Node> = only.iter().collect();
                self.merge_with_header(host, expanded, &only, None)
            }
            None => self.merge_with_header(host, expanded, &docs, None),
        }
    }

    /// A host's exports both ways, for the test that they are equal: merged
    /// on the roots they read, and on the whole config.
    #[cfg(test)]
    pub(super) fn exports_both_ways(&self, host: &Host) -> [Result<Option<Node>, Diags>; 2] {
        let expanded = self.expand(host).expect("the host expands");
        let resolve = |mut merged: Merged| {
            let path = [exports::KEY.to_string()];
            refs::resolve_subtree(&mut merged, &self.limits, &path, self.dialect.refs)
        };
        [
            self.exports_merged(host, &expanded).and_then(resolve),
            self.merged(host, &expanded, None, None)
                .and_then(|(_, merged)| resolve(merged)),
        ]
    }

    /// Every host's exports, computed once per run (in parallel when called
    /// outside any rayon task).
    pub(super) fn all_exports(&self) -> &AllExports {
        self.all_exports.get_or_init(|| {
            let one = |h: &Host| {
                let (exports, environment) = match self.found.known(&h.fqdn) {
                    Some((e, environment)) => (Ok(e), environment),
                    None => {
                        let found = self.exports_of(h);
                        // Parsed for its exports only: a host that waited
                        // for them parses its file again when compiled.
                        self.release(h);
                        found
                    }
                };
                (h.fqdn.clone(), exports, environment)
            };
            let hosts = &self.inventory.hosts;
            // Inside a rayon task, a nested parallel loop could run another
            // host's compile on this thread, which would wait for this very
            // cell: stay sequential there (compile_many computes it outside).
            let found: Vec<_> = if rayon::current_thread_index().is_some() {
                hosts.iter().map(one).collect()
            } else {
                use rayon::prelude::*;
                hosts.par_iter().map(one).collect()
            };
            let mut all = AllExports {
                hosts: Vec::with_capacity(found.len()),
                environments: Default::default(),
            };
            for (fqdn, exports, environment) in found {
                if let Some(environment) = environment {
                    all.environments.insert(fqdn.clone(), environment);
                }
                all.hosts.push((fqdn, exports));
            }
            all
        })
    }

    /// Whether compiling `host` needs every host's exports (its documents
    /// hold a query); an error in its chain is not one, and the compile
    /// reports it.
    pub(crate) fn asks(&self, host: &Host) -> bool {
        self.expand(host).is_ok_and(|e| e.asks())
    }

    /// Every host's exports if they are computed already, without waiting.
    pub(super) fn all_exports_ready(&self) -> Option<&AllExports> {
        self.all_exports.get()
    }
}
