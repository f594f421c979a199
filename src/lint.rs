//! Fleet-wide warnings: what the inventory holds that no host uses. Only a
//! run over many hosts can tell, so `beryl check` asks, after compiling.
//!
//! Entry point: [`Usage`]: each compiled host is added, then
//! [`Usage::warnings`] reports
//!
//! | code | when |
//! |---|---|
//! | `beryl::merge::rule_unused` | a rule of a `merge:` table is in force at no path of any host checked |
//! | `beryl::classes::unused` | no host includes a class file (judged on the whole fleet only) |
//! | `beryl::jail::ip4_duplicate`, `ip6_duplicate`, `mac_duplicate` | ([`Addresses`]) an address or MAC of two hosts' units (a host and its jails) |

use std::collections::HashSet;

use crate::compile::MergedDoc;
use crate::diag::set::{hosts_list, plural};
use crate::diag::{Diag, Diags};
use crate::inventory::Inventory;
use crate::merge::{Policy, Rule, tables};
use crate::value::{Source, Span};

crate::diag::codes! {
    /// The codes of the fleet-wide warnings, named after the stage whose
    /// input they are about.
    pub(crate) enum Code {
        /// A rule of a `merge:` table that is in force at no path of any host checked.
        RuleUnused = "beryl::merge::rule_unused", warning;
        /// A class file no host includes (judged on the whole fleet only).
        ClassUnused = "beryl::classes::unused", warning;
    }
}

/// What the hosts compiled so far use.
#[derive(Default)]
pub(crate) struct Usage {
    hosts: Vec<String>,
    /// The files of their chains, classes included (relative to the root).
    files: HashSet<String>,
    /// The rules written in those files' tables, each once.
    written: Vec<Rule>,
    /// The rules in force at some path of some host, by place.
    used: HashSet<(String, usize)>,
}

fn place(span: &Span) -> (String, usize) {
    (
        span.file_name().unwrap_or_default().to_string(),
        span.offset,
    )
}

impl Usage {
    /// Adds a compiled host: its levels and the rules in force at some of its
    /// paths ([`crate::compile::Compiled`]'s `levels` and `rules_used`).
    pub(crate) fn add(&mut self, fqdn: &str, levels: &[MergedDoc], rules_used: &[Span]) {
        self.hosts.push(fqdn.to_string());
        for level in levels {
            if !self.files.insert(level.file.clone()) {
                continue;
            }
            // A table that does not parse failed the compile.
            if let Ok((rules, _)) = tables::level_rules(&level.node, &Policy::beryl()) {
                self.written.extend(rules);
            }
        }
        self.used.extend(rules_used.iter().map(place));
    }

    /// The warnings. `fleet` tells whether the hosts added are every host of
    /// the inventory: unused classes are reported only then.
    pub(crate) fn warnings(&self, inventory: &Inventory, fleet: bool, max_file_size: u64) -> Diags {
        let mut out = Vec::new();
        let scope = if fleet {
            "any host".to_string()
        } else {
            format!(
                "the {} checked ({})",
                plural(self.hosts.len(), "host", "hosts"),
                hosts_list(&self.hosts, 5)
            )
        };
        let mut seen = HashSet::new();
        for rule in &self.written {
            let at = place(&rule.key_span);
            if self.used.contains(&at) || !seen.insert(at) {
                continue;
            }
            let pattern = rule.pattern.canonical();
            let mut help =
                "a rule is in force where a level of the chain writes a path it matches, \
                 unless a more specific pattern, or a higher level's rule for the same pattern, \
                 takes over there; check the pattern (`beryl explain HOST PATH` names the rule \
                 in force at a path), or delete the rule"
                    .to_string();
            if !fleet {
                help.push_str("; `beryl check` without hosts considers the whole fleet");
            }
            out.push(
                Diag::warning(
                    Code::RuleUnused,
                    format!("the merge rule `{pattern}` is in force at no path of {scope}"),
                )
                .label(&rule.key_span, "in force nowhere")
                .help(help),
            );
        }
        if fleet {
            out.extend(self.unused_classes(inventory, max_file_size));
        }
        out
    }

    fn unused_classes(&self, inventory: &Inventory, max_file_size: u64) -> Diags {
        let mut out = Vec::new();
        for (name, file) in crate::classes::files::list(inventory) {
            if self.files.contains(&file.rel) {
                continue;
            }
            let text = crate::yaml::read_text(&file.path, &file.display, max_file_size)
                .unwrap_or_default();
            let span = Span::file(&Source::new(file.display.clone(), text));
            out.push(
                Diag::warning(
                    Code::ClassUnused,
                    format!("no host includes the class `{name}` ({})", file.display),
                )
                .label(&span, "included by no level and no class")
                .help(format!(
                    "name it in the `classes:` list of a level or of another class \
                     (`classes: [{name}]`), or delete the file"
                )),
            );
        }
        out
    }
}

/// The fleet's addresses (issue 36): each host's and jail's static IPv4
/// and IPv6 addresses and VNET MACs ([`crate::desired::jails::Side`]), for
/// the duplicates across the fleet. A duplicate inside one host and its
/// jails is [`crate::desired::jails::check`]'s, so it is not reported
/// again here: each duplicate is reported once, at both places.
#[derive(Default)]
pub(crate) struct Addresses {
    sides: Vec<crate::desired::jails::Side>,
}

impl Addresses {
    /// Adds a compiled host or jail.
    pub(crate) fn add(&mut self, side: crate::desired::jails::Side) {
        self.sides.push(side);
    }

    /// One error per address or MAC given again in another host's unit (a
    /// host with its jails), labelled at the first writer (hosts by FQDN, each before its jails)
    /// and at this one.
    pub(crate) fn duplicates(&mut self) -> Diags {
        use crate::desired::jails::{Family, duplicate};
        use std::collections::HashMap;
        // By host, the host before its jails: the first writer is the
        // first in `beryl hosts` order of units.
        let key = |s: &crate::desired::jails::Side| {
            (
                s.parent.clone().unwrap_or_else(|| s.fqdn.clone()),
                s.parent.is_some(),
                s.fqdn.clone(),
            )
        };
        self.sides.sort_by_key(key);
        let mut out = Vec::new();
        for family in [Family::Ip4, Family::Ip6, Family::Mac] {
            let mut seen = HashMap::new();
            for s in &self.sides {
                let unit = s.parent.as_deref().unwrap_or(&s.fqdn);
                for (value, at) in family.values(s) {
                    match seen.get(&value) {
                        Some(&(first_unit, first)) if first_unit != unit => {
                            out.push(duplicate(family, &value, first, (&s.fqdn, at)));
                        }
                        Some(_) => {}
                        None => {
                            seen.insert(value, (unit, (s.fqdn.as_str(), at)));
                        }
                    }
                }
            }
        }
        out
    }
}
