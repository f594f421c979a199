//! Fleet-wide checks: what the inventory holds that no host uses, and who
//! may read each file's secrets ([`recipients`]). Only a run over many
//! hosts can tell, so `beryl check` asks, after compiling.
//!
//! Entry point: [`Usage`]: each compiled host is added, then
//! [`Usage::warnings`] reports
//!
//! | code | when |
//! |---|---|
//! | `beryl::merge::rule_unused` | a rule of a `merge:` table is in force at no path of any host checked |
//! | `beryl::classes::unused` | no host includes a class file (judged on the whole fleet only) |
//! | `beryl::jail::ip4_duplicate`, `ip6_duplicate`, `mac_duplicate` | ([`Addresses`]) an address or MAC of two hosts' units (a host and its jails) |

mod addresses;
pub(crate) mod recipients;

use std::collections::HashSet;

use crate::compile::MergedDoc;
use crate::diag::set::{hosts_list, plural};
use crate::diag::{Diag, Diags};
use crate::inventory::Inventory;
use crate::merge::{Policy, Rule, tables};
use crate::value::{Source, Span};

pub(crate) use addresses::{Addresses, Family, Side, duplicates};

crate::diag::codes! {
    /// The codes of the fleet-wide warnings, named after the stage whose
    /// input they are about.
    pub(crate) enum Code {
        /// A rule of a `merge:` table that is in force at no path of any host checked.
        RuleUnused = "beryl::merge::rule_unused", warning;
        /// A class file no host includes (judged on the whole fleet only).
        ClassUnused = "beryl::classes::unused", warning;
        /// An IPv4 address (prefix ignored) given twice among a host and its jails, or across the fleet.
        Ip4Duplicate = "beryl::jail::ip4_duplicate";
        /// An IPv6 address (prefix ignored) given twice among a host and its jails, or across the fleet.
        Ip6Duplicate = "beryl::jail::ip6_duplicate";
        /// A VNET MAC address given twice among a host's jails, or across the fleet.
        MacDuplicate = "beryl::jail::mac_duplicate";
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
