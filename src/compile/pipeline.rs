//! One host's compile, stage by stage: its chain expanded with its classes
//! ([`Compiler::expand`], src/classes/), the documents merged (their
//! inventory queries answered, queries.rs), references resolved, exports
//! taken, then [`Compiler::finish`]: the YAML 1.1 warnings (warn.rs) and the
//! last stage, SSH keys and validation ([`super::complete`]).

use std::sync::Arc;

use super::{Compiled, Compiler, Inputs, MergedDoc, set_header, with_header};
use crate::classes::walk::{self, Doc, Expanded};
use crate::diag::{Diag, Diags};
use crate::exports::AllExports;
use crate::inventory::Host;
use crate::merge::{self, Merged};
use crate::refs;
use crate::value::{Node, Span};

/// A host's documents merged and their references resolved.
struct Resolved {
    /// The documents as merged (queries replaced), in merge order.
    nodes: Vec<Arc<Node>>,
    merged: Merged,
    references: Vec<refs::Resolution>,
}

impl Compiler<'_> {
    /// The host's chain with its classes, in merge order.
    pub(super) fn expand(&self, host: &Host) -> Result<Expanded, Diags> {
        let chain = self.inventory.chain(host);
        let mut levels = Vec::with_capacity(chain.len());
        let mut errors = Vec::new();
        for level in &chain {
            match self
                .load(level.kind, level.file)
                .and_then(|node| self.library.unit(&level.file.rel, &node, &host.fqdn))
            {
                Ok(unit) => levels.push((level.file, unit)),
                Err(e) => errors.extend(e),
            }
        }
        // Under reclass, what the node merges below its own classes.
        let base = match (self.inventory.flavor.reclass(), levels.last()) {
            (Some(o), Some((_, node))) => super::reclass::base_levels(self, o, host, node)
                .unwrap_or_else(|e| {
                    errors.extend(e);
                    Vec::new()
                }),
            _ => Vec::new(),
        };
        let levels: Vec<_> = base
            .iter()
            .map(|(f, u)| (f, u.clone()))
            .chain(levels)
            .collect();
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
            merged.node = with_header(self.inventory, host, files, &classes, merged.node);
            refs::evaluate(&mut merged, &self.limits, text, span, self.dialect.refs)
        };
        walk::expand(&self.library, &levels, &mut resolve)
    }

    /// A host's classes, in merge order: the ones its levels name and the ones
    /// those include (for `class:` selectors). Reads only the host's chain and
    /// its class files; nothing is merged unless a class name holds `${…}`.
    pub(crate) fn classes(&self, host: &Host) -> Result<Vec<String>, Diags> {
        Ok(self.expand(host)?.classes)
    }

    /// The files of a host's class closure, each with its class name:
    /// what `beryl diff` reads to tell which hosts a changed class reaches.
    pub(crate) fn class_files(&self, host: &Host) -> Result<Vec<(String, Option<String>)>, Diags> {
        let expanded = self.expand(host)?;
        Ok(expanded
            .docs
            .into_iter()
            .filter(|d| d.class.is_some())
            .map(|d| (d.rel, d.class))
            .collect())
    }

    /// Merges the documents (their queries answered from `all`, every host's
    /// exports, or left as written without it), with the `_beryl_` header;
    /// for a lookup, with its spec chosen at its path (merge::lookup).
    pub(super) fn merged(
        &self,
        host: &Host,
        expanded: &Expanded,
        all: Option<&AllExports>,
        lookup: Option<&merge::Lookup>,
    ) -> Result<(Vec<Arc<Node>>, Merged), Diags> {
        let nodes = self.documents(expanded, all)?;
        let docs: Vec<&Node> = nodes.iter().map(|n| &**n).collect();
        let merged = self.merge_with_header(host, expanded, &docs, lookup)?;
        Ok((nodes, merged))
    }

    /// The host's documents as they are merged: their queries answered from
    /// `all` (or left as written without it).
    pub(super) fn documents(
        &self,
        expanded: &Expanded,
        all: Option<&AllExports>,
    ) -> Result<Vec<Arc<Node>>, Diags> {
        let mut nodes = Vec::with_capacity(expanded.docs.len());
        let mut errors = Vec::new();
        // reclass: a host's queries see its own environment, unless one of
        // its documents asks `+AllEnvs` (or the run is `--inventory`).
        let mut scope = crate::exports::Scope::of(self.dialect.refs.paths);
        let all_envs = self.every_environment
            || expanded
                .docs
                .iter()
                .any(|d| d.queries && crate::exports::asks_all_envs(&d.node, scope.delimiter));
        if !all_envs {
            scope.environment = self.environment(expanded);
        }
        for doc in &expanded.docs {
            if doc.queries {
                match self.found.answered(doc, all, &scope) {
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
        Ok(nodes)
    }

    /// `docs` merged, with the `_beryl_` header; for a lookup, with its spec
    /// chosen at its path (merge::lookup).
    pub(super) fn merge_with_header(
        &self,
        host: &Host,
        expanded: &Expanded,
        docs: &[&Node],
        lookup: Option<&merge::Lookup>,
    ) -> Result<Merged, Diags> {
        let mut merged = match lookup {
            Some(l) => merge::merge_for_lookup(docs, &self.policy, l)?,
            None => merge::merge_documents(docs, &self.policy, None)?,
        };
        // `_beryl_` goes in first, so that `${_beryl_.fqdn}` resolves.
        let files = level_files(&expanded.docs);
        merged.node = with_header(self.inventory, host, files, &expanded.classes, merged.node);
        Ok(merged)
    }

    /// The documents merged, and every reference resolved.
    fn resolved(
        &self,
        host: &Host,
        expanded: &Expanded,
        all: Option<&AllExports>,
    ) -> Result<Resolved, Diags> {
        let (nodes, mut merged) = self.merged(host, expanded, all, None)?;
        // A jail's `${parent.…}` reads its host's effective config.
        let read = host
            .parent
            .as_deref()
            .map(|fqdn| move || self.parent_config(fqdn));
        let outer = read.as_ref().map(|node| refs::Outer {
            name: "parent",
            node,
        });
        let references = refs::resolve_with(&mut merged, &self.limits, self.dialect.refs, outer)?;
        Ok(Resolved {
            nodes,
            merged,
            references,
        })
    }

    /// Compiles an expanded host, its queries answered from `all`, every
    /// host's exports (`None` when it asks none). Returns every error found.
    pub(super) fn finish(
        &self,
        host: &Host,
        expanded: &Expanded,
        all: Option<&AllExports>,
    ) -> Result<Compiled, Diags> {
        let Resolved {
            nodes,
            mut merged,
            references,
        } = self.resolved(host, expanded, all)?;
        let mut diags = std::mem::take(&mut merged.diags);
        let rules_used = merged
            .rules_used()
            .filter(|r| r.key_span.source.is_some())
            .map(|r| r.key_span.clone())
            .collect();
        let policy = merged.policy;
        let mut merged = merged.node;
        // A jail's chain drops, or refuses, the keys a jail does not take.
        let dropped = if host.is_jail() {
            let own = self.own_documents(host, expanded);
            super::jail::strip(&mut merged, &expanded.docs, own)?
        } else {
            Vec::new()
        };
        let exports = crate::exports::take(&mut merged)?;
        let reclass = self.reclass_info(expanded, &exports);
        if all.is_none() {
            // No query was answered, so these exports are the ones every
            // host's exports would compute for this host (queries.rs).
            self.found
                .exports(&host.fqdn, &exports, self.environment(expanded));
        }
        set_header(&mut merged, "exports", exports);
        let levels = expanded
            .docs
            .iter()
            .zip(nodes)
            .map(|(d, node)| MergedDoc {
                file: d.rel.clone(),
                node,
                written: d.node.clone(),
            })
            .collect::<Vec<_>>();
        let layout = self.inventory.flavor.reclass().is_none();
        diags.extend(self.spelled.warnings(&levels, layout));
        diags.extend(expanded.warnings.iter().cloned());
        if !self.freebsd {
            let mut inputs = super::Inputs::default();
            self.record(host, expanded, all.is_some(), &mut inputs);
            let secrets = self.sealed_of(&levels);
            return Ok(Compiled {
                config: merged,
                freebsd: Default::default(),
                domain_keys: Vec::new(),
                users: Vec::new(),
                references,
                levels,
                policy,
                diags,
                rules_used,
                reclass,
                inputs,
                dropped,
                parent: host.parent.clone(),
                secrets,
            });
        }
        // A jail's `jail` defaults read its host's pool and interfaces; a
        // host that fails (reported as its own) leaves zfsboot's defaults,
        // so that a jail that reads nothing of it still compiles.
        let jailed = host
            .parent
            .as_ref()
            .map(|fqdn| match self.parent_config(fqdn) {
                Ok(p) => crate::schema::Jailed::of(&host.short, fqdn, &p),
                Err(_) => crate::schema::Jailed::of(
                    &host.short,
                    fqdn,
                    &Node::synthetic(crate::value::Value::Null),
                ),
            });
        match super::complete_in(
            merged,
            references,
            levels,
            policy,
            self.keys,
            jailed.as_ref(),
        ) {
            Ok(mut c) => {
                let default = &self.inventory.default.display;
                let dirs = super::files::Dirs {
                    root: &self.inventory.root,
                    display: default.rsplit_once('/').map_or(".", |(root, _)| root),
                    limits: self.limits,
                };
                let reads = &mut c.inputs.files;
                if let Err(mut errors) =
                    super::files::resolve(&mut c.freebsd, &c.config, &dirs, reads)
                {
                    errors.extend(diags);
                    return Err(errors);
                }
                diags.append(&mut c.diags);
                c.diags = diags;
                c.rules_used = rules_used;
                c.reclass = reclass;
                c.dropped = dropped;
                c.parent.clone_from(&host.parent);
                c.secrets = self.sealed_of(&c.levels);
                self.record(host, expanded, all.is_some(), &mut c.inputs);
                Ok(c)
            }
            Err(mut errors) => {
                errors.extend(diags);
                Err(errors)
            }
        }
    }
}

impl Compiler<'_> {
    /// The SOPS files among a chain's documents, in its order.
    fn sealed_of(&self, levels: &[MergedDoc]) -> Vec<Arc<crate::secrets::Sealed>> {
        levels
            .iter()
            .filter_map(|l| self.library.sealed(&l.file))
            .collect()
    }

    /// The effective config of the host `fqdn`, as `render` shows it, for
    /// its jails' `${parent.…}`: compiled once per run. A host whose chain
    /// asks inventory queries is not read this way yet (its exports would
    /// be needed while every host's exports are computed).
    fn parent_config(&self, fqdn: &str) -> Result<Arc<Node>, Diags> {
        let cell = {
            let mut parents = self.parents.lock().unwrap_or_else(|e| e.into_inner());
            parents.entry(fqdn.to_string()).or_default().clone()
        };
        cell.get_or_init(|| {
            let Some(host) = self.inventory.hosts.iter().find(|h| h.fqdn == fqdn) else {
                return Err(vec![Diag::new(
                    refs::Code::Parent,
                    format!("the host {fqdn} is not in the inventory"),
                )]);
            };
            let expanded = self.expand(host)?;
            if expanded.asks() {
                return Err(vec![Diag::new(
                    refs::Code::Parent,
                    format!("{fqdn} asks inventory queries, which `${{parent.…}}` cannot read yet"),
                )]);
            }
            self.finish(host, &expanded, None)
                .map(|c| Arc::new(c.config))
        })
        .clone()
    }

    /// Where a jail's own documents start in `expanded`: after the last
    /// level it shares with its host. The classes its own file names are
    /// merged just before that file, so they are its own; a class a shared
    /// level names too is merged once, earlier, and is shared.
    fn own_documents(&self, host: &Host, expanded: &Expanded) -> usize {
        let chain = self.inventory.chain(host);
        let shared = &chain[..chain.len().saturating_sub(1)];
        expanded
            .docs
            .iter()
            .rposition(|d| shared.iter().any(|l| l.file.rel == d.rel))
            .map_or(0, |i| i + 1)
    }

    /// The rest of a host's record (inputs.rs): its chain, every path its
    /// class names may be written at, and whether it read the fleet's exports.
    fn record(&self, host: &Host, expanded: &Expanded, fleet: bool, inputs: &mut Inputs) {
        let chain = self.inventory.chain(host);
        inputs.chain = chain.iter().map(|l| l.file.rel.clone()).collect();
        for name in &expanded.probed {
            inputs.files.extend(self.library.paths(name));
        }
        inputs.fleet = fleet;
    }

    /// Under reclass, the node's facts beside its parameters.
    fn reclass_info(
        &self,
        expanded: &Expanded,
        exports: &Node,
    ) -> Option<super::reclass::ReclassInfo> {
        Some(super::reclass::ReclassInfo {
            classes: expanded.declared.clone(),
            applications: expanded.applications.clone(),
            environment: self.environment(expanded)?,
            exports: exports.clone(),
        })
    }

    /// A host's environment under reclass: its node file's `environment:`,
    /// else the default (a class's never wins); none in a beryl inventory.
    pub(super) fn environment(&self, expanded: &Expanded) -> Option<String> {
        let options = self.inventory.flavor.reclass()?;
        let node = expanded.docs.last().and_then(|d| d.environment.as_deref());
        Some(super::reclass::environment(options, node))
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
