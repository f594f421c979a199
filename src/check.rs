//! The checks of `beryl check` over a set of hosts, shared by the command
//! (cli/check.rs) and the language server, which checks the hosts that
//! read a file (src/lsp/diagnostics.rs): what `beryl check HOST…` reports
//! for those hosts, the editor shows.
//!
//! Entry points: [`host`] on each compiled host (on the worker threads:
//! it runs the validation), then [`Check::add`] for each and
//! [`Check::finish`]: each host with its jails as a unit, addresses used
//! twice among the hosts checked, who may read each file of secrets they
//! read, and what none of them uses.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::compile::{Compiled, Compiler, MergedDoc};
use crate::desired::jails::check_sides;
use crate::diag::Diags;
use crate::inventory::{Host, Inventory};
use crate::keys::KeyStore;
use crate::limits::Limits;
use crate::lint::Side;
use crate::secrets::Sealed;
use crate::value::Span;

/// What checking a host found, kept from its compile.
pub(crate) struct Checked {
    /// Its errors and warnings.
    diags: Diags,
    /// When it compiles, its levels and the merge rules in force at some of
    /// its paths, for [`crate::lint::Usage`] (the levels' documents are
    /// shared with the compiler's caches).
    used: Option<(Vec<MergedDoc>, Vec<Span>)>,
    /// What the checks of a host with its jails need of it.
    side: Option<Side>,
    /// The SOPS files of its chain, whose recipients are checked once each.
    sealed: Vec<Arc<Sealed>>,
}

/// Checks one host from its compile: its diagnostics, and the validation
/// that `install` and `apply` would refuse.
pub(crate) fn host(host: &Host, compiled: Result<&Compiled, &Diags>) -> Checked {
    match compiled {
        Ok(c) => {
            let mut diags = c.diags.clone();
            if let Err(e) = crate::validate::host(&host.fqdn, c) {
                diags.extend(e);
            }
            Checked {
                diags,
                used: Some((c.levels.clone(), c.rules_used.clone())),
                side: Some(Side::of(&host.fqdn, c)),
                sealed: c.secrets.clone(),
            }
        }
        Err(diags) => Checked {
            diags: diags.clone(),
            used: None,
            side: None,
            sealed: Vec::new(),
        },
    }
}

/// The checks of a set of hosts, as they are added.
pub(crate) struct Check<'a> {
    compiler: &'a Compiler<'a>,
    keys: &'a KeyStore,
    limits: Limits,
    hosts: Vec<&'a Host>,
    found: Diags,
    usage: crate::lint::Usage,
    sides: Vec<Side>,
    every_host_compiles: bool,
    /// The files each host read, for the recipients of secrets.
    read: Vec<(&'a Host, Vec<String>)>,
    /// The SOPS files the hosts read, each once, with the hosts that read it.
    sealed: BTreeMap<String, (Arc<Sealed>, Vec<String>)>,
}

impl<'a> Check<'a> {
    pub(crate) fn new(compiler: &'a Compiler<'a>, keys: &'a KeyStore, limits: Limits) -> Self {
        Self {
            compiler,
            keys,
            limits,
            hosts: Vec::new(),
            found: Vec::new(),
            usage: crate::lint::Usage::default(),
            sides: Vec::new(),
            every_host_compiles: true,
            read: Vec::new(),
            sealed: BTreeMap::new(),
        }
    }

    /// Adds a host checked by [`host`].
    pub(crate) fn add(&mut self, host: &'a Host, checked: Checked) {
        self.hosts.push(host);
        for s in checked.sealed {
            let e = (self.sealed)
                .entry(s.rel.clone())
                .or_insert_with(|| (s, Vec::new()));
            e.1.push(host.fqdn.clone());
        }
        match checked.used {
            Some((levels, rules_used)) => {
                (self.read).push((host, levels.iter().map(|l| l.file.clone()).collect()));
                self.usage.add(&host.fqdn, &levels, &rules_used);
            }
            None => self.every_host_compiles = false,
        }
        self.sides.extend(checked.side);
        self.found.extend(checked.diags.into_iter().map(|mut d| {
            d.found_on(&host.fqdn);
            d
        }));
    }

    /// Every finding: the hosts' own, then those of the hosts together.
    /// `sides_of` gives the sides of hosts that were not added but a unit
    /// needs (a host's jails, a jail's host and siblings).
    pub(crate) fn finish(mut self, sides_of: impl FnOnce(&[&'a Host]) -> Vec<Side>) -> Diags {
        let inventory: &Inventory = self.compiler.inventory();
        let hosts = std::mem::take(&mut self.hosts);
        // A host is checked with its jails (desired/jails.rs).
        let extra = others(&inventory.hosts, &hosts);
        let mut sides = std::mem::take(&mut self.sides);
        sides.extend(sides_of(&extra));
        let mut unit = units(&sides);
        let mut addresses = crate::lint::Addresses::default();
        for side in sides {
            if hosts.iter().any(|h| h.fqdn == side.fqdn) {
                addresses.add(side);
            }
        }
        unit.extend(addresses.duplicates());
        let mut found = std::mem::take(&mut self.found);
        found.extend(unit.into_iter().map(|mut d| {
            let on: Vec<&str> = (hosts.iter())
                .filter(|h| names(&d.message, &h.fqdn))
                .map(|h| h.fqdn.as_str())
                .collect();
            for fqdn in on {
                d.found_on(fqdn);
            }
            d
        }));
        // Who may read each file's secrets (lint/recipients.rs).
        if !self.sealed.is_empty() {
            let mut readers =
                crate::lint::recipients::Readers::new(self.compiler, self.keys, self.limits);
            // Every host compiled: what each read is known.
            if self.every_host_compiles && hosts.len() == inventory.hosts.len() {
                readers = readers.knowing(std::mem::take(&mut self.read));
            }
            for (file, on) in self.sealed.values() {
                found.extend(readers.coverage(file).into_iter().map(|mut d| {
                    for fqdn in on {
                        d.found_on(fqdn);
                    }
                    d
                }));
            }
        }
        // What no host uses can only be told once every host compiles.
        if self.every_host_compiles {
            let fleet = hosts.len() == inventory.hosts.len();
            found.extend(
                self.usage
                    .warnings(inventory, fleet, self.limits.max_file_size),
            );
        }
        found
    }
}

/// The hosts of `all` that a unit of `selected` needs and that are not
/// selected: a selected host's jails, a selected jail's host and siblings.
fn others<'a>(all: &'a [Host], selected: &[&Host]) -> Vec<&'a Host> {
    let units: std::collections::HashSet<&str> = selected
        .iter()
        .map(|h| h.parent.as_deref().unwrap_or(&h.fqdn))
        .collect();
    all.iter()
        .filter(|h| units.contains(h.parent.as_deref().unwrap_or(&h.fqdn)))
        .filter(|h| !selected.iter().any(|s| s.fqdn == h.fqdn))
        .collect()
}

/// Whether `message` names the host `fqdn` (as a word: not inside the name
/// of one of its jails).
fn names(message: &str, fqdn: &str) -> bool {
    message.match_indices(fqdn).any(|(i, _)| {
        let before = message[..i].chars().next_back();
        let after = message[i + fqdn.len()..].chars().next();
        matches!(before, None | Some(' ')) && matches!(after, None | Some(' ' | ',' | ':'))
    })
}

/// The checks of each host that has jails, with them.
fn units(sides: &[Side]) -> Diags {
    let mut by_unit: BTreeMap<&str, (Option<&Side>, Vec<&Side>)> = BTreeMap::new();
    for s in sides {
        match &s.parent {
            Some(p) => by_unit.entry(p).or_default().1.push(s),
            None => by_unit.entry(&s.fqdn).or_default().0 = Some(s),
        }
    }
    let mut out = Vec::new();
    for (host, mut js) in by_unit.into_values().filter_map(|(h, js)| Some((h?, js))) {
        js.sort_by(|a, b| a.fqdn.cmp(&b.fqdn));
        // A unit's finding fails its host, and the jails it names.
        out.extend(check_sides(host, &js).into_iter().map(|mut d| {
            d.found_on(&host.fqdn);
            d
        }));
    }
    out
}
