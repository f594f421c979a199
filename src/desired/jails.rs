//! The checks of a host together with its jails (issue 36, docs/jails.md
//! "Checks"): what no single jail's file can tell. Each is a row of
//! [`CHECKS`]; a duplicate is one diagnostic with two labels, the first
//! writer and the second.
//!
//! Entry point: [`check`], run by `beryl check` for every host with jails
//! (and every jail, through its host), and callable by apply on the unit it
//! converges: `desired::jails::check((fqdn, &host), &[(jail_fqdn, &jail), …])`.
//! The checks read a [`Side`] of each compiled host (what they need, small
//! enough for `check` to keep for a whole fleet); [`crate::lint`] reads the
//! same sides for the fleet-wide duplicates.

use std::collections::HashMap;

use crate::compile::Compiled;
use crate::diag::{Diag, Diags};
use crate::freebsd::jail as table;
use crate::freebsd::names::{self, Ipv4, Ipv6};
use crate::schema::{Jail, Located};
use crate::value::Span;

crate::diag::codes! {
    /// The codes of a host checked with its jails.
    pub(crate) enum Code in "jail" {
        /// An IPv4 address (prefix ignored) given twice among a host and its jails, or across the fleet.
        Ip4Duplicate = "ip4_duplicate";
        /// An IPv6 address (prefix ignored) given twice among a host and its jails, or across the fleet.
        Ip6Duplicate = "ip6_duplicate";
        /// A VNET MAC address given twice among a host's jails, or across the fleet.
        MacDuplicate = "mac_duplicate";
        /// An epair unit two VNET jails of one host use.
        EpairDuplicate = "epair_duplicate";
        /// A host name two jails of one host use.
        HostnameDuplicate = "hostname_duplicate";
        /// Two jails of one host with the same name, root path or dataset.
        RootDuplicate = "root_duplicate";
        /// A VNET jail's bridge that its host's `network.bridges` does not declare.
        BridgeUnknown = "bridge_unknown";
        /// A `devfs_ruleset` neither built in nor defined in the host's /etc/devfs.rules: the jail would see the host's whole /dev.
        DevfsRuleset = "devfs_ruleset";
        /// rctl rules on a host whose loader pins kern.racct.enable to 0.
        Racct = "racct";
        /// A `depend` on no jail of the same host, or a cycle of them.
        Depend = "depend";
        /// The host's own rc_conf writes jail_enable or jail_list, which beryl derives from its jails.
        RcConflict = "rc_conflict";
    }
}

/// What the checks need of one compiled host or jail.
#[derive(Debug, Clone)]
pub(crate) struct Side {
    /// Its FQDN (a jail's is `NAME.PARENT`).
    pub fqdn: String,
    /// For a jail, its host's FQDN.
    pub parent: Option<String>,
    /// For a jail, its `jail` mapping.
    pub jail: Option<Jail>,
    /// A jail's host name (`freebsd.hostname`, or its FQDN).
    pub hostname: Located<String>,
    /// Static IPv4 addresses of the host's interfaces and bridges, or of the jail.
    pub ip4: Vec<Located<String>>,
    /// Static IPv6 addresses, likewise.
    pub ip6: Vec<Located<String>>,
    /// The host's bridges.
    pub bridges: Vec<Located<String>>,
    /// The rulesets `[NAME=N]` of the host's /etc/devfs.rules (`freebsd.files`).
    pub devfs_rules: Vec<u32>,
    /// The host's loader `kern.racct.enable` when it is 0.
    pub racct_off: Option<Span>,
    /// The host's own rc_conf rows that beryl derives from its jails.
    pub rc_jail: Vec<Located<String>>,
}

/// The rc.conf variables beryl writes on a host with jails (rc.d/jail's
/// `jail_enable` and `jail_list`; libexec/rc/rc.d/jail).
const RC_DERIVED: &[&str] = &["jail_enable", "jail_list"];

impl Side {
    /// The side of a compiled host or jail.
    pub(crate) fn of(fqdn: &str, c: &Compiled) -> Self {
        let f = &c.freebsd;
        let mut ip4 = Vec::new();
        let mut ip6 = Vec::new();
        let mut bridges = Vec::new();
        if let Some(net) = &f.network {
            for i in &net.interfaces {
                if let Some(Located {
                    value: Ipv4::Static(a),
                    span,
                }) = &i.ipv4
                {
                    ip4.push(Located::new(a.clone(), span.clone()));
                }
                if let Some(Located {
                    value: Ipv6::Static(a),
                    span,
                }) = &i.ipv6
                {
                    ip6.push(Located::new(a.clone(), span.clone()));
                }
            }
            for b in &net.bridges {
                bridges.push(b.name.clone());
                if let Some(Located {
                    value: Ipv4::Static(a),
                    span,
                }) = &b.ipv4
                {
                    ip4.push(Located::new(a.clone(), span.clone()));
                }
            }
        }
        if let Some(j) = &f.jail {
            ip4.extend(j.network.ip4.iter().filter(|a| a.value != "dhcp").cloned());
            ip6.extend(j.network.ip6.iter().filter(|a| a.value != "slaac").cloned());
        }
        let devfs_rules = f
            .files
            .iter()
            .filter(|m| m.path.value == "/etc/devfs.rules")
            .filter_map(|m| m.content.as_deref())
            .flat_map(table::rulesets_in)
            .collect();
        let racct_off = f
            .loader
            .iter()
            .find(|t| t.name.value == "kern.racct.enable" && t.value.value.trim() == "0")
            .map(|t| t.value.span.clone());
        let rc_jail = f
            .rc_conf
            .iter()
            .filter(|r| RC_DERIVED.contains(&r.name.value.as_str()))
            .map(|r| r.name.clone())
            .collect();
        let hostname = f.hostname.clone().unwrap_or_else(|| {
            Located::new(
                fqdn.to_string(),
                f.jail.as_ref().map(|j| j.span.clone()).unwrap_or_default(),
            )
        });
        Side {
            fqdn: fqdn.to_string(),
            parent: c.parent.clone(),
            jail: f.jail.clone(),
            hostname,
            ip4,
            ip6,
            bridges,
            devfs_rules,
            racct_off,
            rc_jail,
        }
    }
}

/// A check of a host with its jails.
pub(crate) struct Check {
    #[cfg_attr(not(test), expect(dead_code, reason = "documentation"))]
    pub code: Code,
    /// What it checks, for docs/jails.md.
    #[cfg_attr(not(test), expect(dead_code, reason = "documentation"))]
    pub what: &'static str,
    pub run: fn(&Side, &[&Side], &mut Diags),
}

/// The checks, in the order they report.
pub(crate) const CHECKS: &[Check] = &[
    Check {
        code: Code::Ip4Duplicate,
        what: "IPv4 addresses unique among the host and its jails (the prefix ignored)",
        run: |h, j, out| out.extend(duplicates(&unit(h, j), Family::Ip4)),
    },
    Check {
        code: Code::Ip6Duplicate,
        what: "IPv6 addresses unique among the host and its jails",
        run: |h, j, out| out.extend(duplicates(&unit(h, j), Family::Ip6)),
    },
    Check {
        code: Code::MacDuplicate,
        what: "VNET MAC addresses unique among the host's jails",
        run: |h, j, out| out.extend(duplicates(&unit(h, j), Family::Mac)),
    },
    Check {
        code: Code::EpairDuplicate,
        what: "epair units unique among the host's jails",
        run: epairs,
    },
    Check {
        code: Code::HostnameDuplicate,
        what: "host.hostname unique among the host's jails",
        run: hostnames,
    },
    Check {
        code: Code::RootDuplicate,
        what: "no two jails with one name, root path or dataset",
        run: roots,
    },
    Check {
        code: Code::BridgeUnknown,
        what: "a VNET jail's bridge is declared in its host's network.bridges",
        run: bridges,
    },
    Check {
        code: Code::DevfsRuleset,
        what: "devfs_ruleset is a built-in ruleset or one of the host's /etc/devfs.rules",
        run: devfs,
    },
    Check {
        code: Code::Racct,
        what: "rctl rules need racct: refused when the host's loader sets kern.racct.enable=0",
        run: racct,
    },
    Check {
        code: Code::Depend,
        what: "depend names a jail of the same host, without a cycle",
        run: depend,
    },
    Check {
        code: Code::RcConflict,
        what: "the host's own rc_conf does not write jail_enable or jail_list",
        run: rc_conflict,
    },
];

/// Checks a host together with its jails: every row of [`CHECKS`].
#[allow(
    dead_code,
    reason = "apply's entry point (issue 36 apply slice); `beryl check` runs check_sides"
)]
pub(crate) fn check(host: (&str, &Compiled), jails: &[(&str, &Compiled)]) -> Diags {
    let h = Side::of(host.0, host.1);
    let js: Vec<Side> = jails.iter().map(|(f, c)| Side::of(f, c)).collect();
    check_sides(&h, &js.iter().collect::<Vec<_>>())
}

/// [`check`] on the sides of a host and its jails.
pub(crate) fn check_sides(host: &Side, jails: &[&Side]) -> Diags {
    let mut out = Vec::new();
    if jails.is_empty() {
        return out;
    }
    for row in CHECKS {
        (row.run)(host, jails, &mut out);
    }
    out
}

fn unit<'a>(host: &'a Side, jails: &[&'a Side]) -> Vec<&'a Side> {
    std::iter::once(host).chain(jails.iter().copied()).collect()
}

/// What a duplicate is counted in.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    Ip4,
    Ip6,
    Mac,
}

impl Family {
    fn code(self) -> Code {
        match self {
            Family::Ip4 => Code::Ip4Duplicate,
            Family::Ip6 => Code::Ip6Duplicate,
            Family::Mac => Code::MacDuplicate,
        }
    }

    fn what(self) -> &'static str {
        match self {
            Family::Ip4 => "IPv4 address",
            Family::Ip6 => "IPv6 address",
            Family::Mac => "MAC address",
        }
    }

    /// The values of a side, each as compared (an address without its
    /// prefix, in its canonical form).
    pub(crate) fn values(self, s: &Side) -> Vec<(String, &Located<String>)> {
        match self {
            Family::Ip4 => s
                .ip4
                .iter()
                .filter_map(|a| Some((names::ipv4_cidr(&a.value).ok()?.0.to_string(), a)))
                .collect(),
            Family::Ip6 => s
                .ip6
                .iter()
                .filter_map(|a| Some((names::ipv6_cidr(&a.value).ok()?.0.to_string(), a)))
                .collect(),
            Family::Mac => s
                .jail
                .iter()
                .filter_map(|j| j.network.vnet.as_ref())
                .map(|v| (v.mac.value.to_ascii_lowercase(), &v.mac))
                .collect(),
        }
    }
}

/// One diagnostic per value given again, labelled at the first writer and
/// at this one.
pub(crate) fn duplicate(
    family: Family,
    value: &str,
    (first, first_at): (&str, &Located<String>),
    (second, second_at): (&str, &Located<String>),
) -> Diag {
    let what = family.what();
    Diag::new(
        family.code(),
        format!("the {what} {value} is given to both {first} and {second}"),
    )
    .label(&second_at.span, format!("{what} of {second}"))
    .label(&first_at.span, format!("first given to {first}"))
    .help(format!(
        "give each host and jail its own {what}; two on one network make both unreachable in turn"
    ))
}

/// The duplicates among `sides`: the first writer and each later one.
pub(crate) fn duplicates(sides: &[&Side], family: Family) -> Diags {
    let mut seen: HashMap<String, (&str, &Located<String>)> = HashMap::new();
    let mut out = Vec::new();
    for s in sides {
        for (v, at) in family.values(s) {
            match seen.get(&v) {
                Some(first) => out.push(duplicate(family, &v, *first, (&s.fqdn, at))),
                None => {
                    seen.insert(v, (&s.fqdn, at));
                }
            }
        }
    }
    out
}

/// Pairs of jails with the same key: `(first, second)` for each repeat.
fn pairs<'a, K: Eq + std::hash::Hash>(
    jails: &[&'a Side],
    key: impl Fn(&'a Side) -> Option<K>,
) -> Vec<(&'a Side, &'a Side)> {
    let mut seen: HashMap<K, &Side> = HashMap::new();
    let mut out = Vec::new();
    for s in jails {
        if let Some(k) = key(s) {
            match seen.get(&k) {
                Some(first) => out.push((*first, *s)),
                None => {
                    seen.insert(k, s);
                }
            }
        }
    }
    out
}

fn twice(
    code: Code,
    what: &str,
    value: &str,
    (a, sa): (&Side, &Span),
    (b, sb): (&Side, &Span),
) -> Diag {
    Diag::new(
        code,
        format!("{} and {} have the same {what} {value}", a.fqdn, b.fqdn),
    )
    .label(sb, format!("{what} of {}", b.fqdn))
    .label(sa, format!("first used by {}", a.fqdn))
}

fn epairs(_: &Side, jails: &[&Side], out: &mut Diags) {
    let epair = |s: &Side| {
        s.jail
            .as_ref()?
            .network
            .vnet
            .as_ref()
            .map(|v| v.epair.value)
    };
    for (a, b) in pairs(jails, epair) {
        let at = |s: &Side| {
            s.jail
                .as_ref()
                .and_then(|j| j.network.vnet.as_ref())
                .map(|v| v.epair.span.clone())
                .unwrap_or_default()
        };
        out.push(
            twice(Code::EpairDuplicate, "epair unit", &epair(a).unwrap_or_default().to_string(), (a, &at(a)), (b, &at(b)))
                .help("give each VNET jail of the host its own `epair` unit: epairNa/epairNb exist once per host"),
        );
    }
}

fn hostnames(_: &Side, jails: &[&Side], out: &mut Diags) {
    for (a, b) in pairs(jails, |s| Some(s.hostname.value.to_ascii_lowercase())) {
        out.push(
            twice(
                Code::HostnameDuplicate,
                "host name",
                &b.hostname.value,
                (a, &a.hostname.span),
                (b, &b.hostname.span),
            )
            .help("give each jail its own freebsd.hostname (default: its NAME.HOST identity)"),
        );
    }
}

fn roots(_: &Side, jails: &[&Side], out: &mut Diags) {
    type Key = fn(&Jail) -> &Located<String>;
    let keys: [(&str, Key); 3] = [
        ("jail name", |j| &j.name),
        ("root path", |j| &j.path),
        ("dataset", |j| &j.dataset.name),
    ];
    for (what, key) in keys {
        for (a, b) in pairs(jails, |s| s.jail.as_ref().map(|j| key(j).value.clone())) {
            let (Some(ja), Some(jb)) = (&a.jail, &b.jail) else {
                continue;
            };
            out.push(
                twice(
                    Code::RootDuplicate,
                    what,
                    &key(jb).value,
                    (a, &key(ja).span),
                    (b, &key(jb).span),
                )
                .help("two jails of one host need their own name, root and dataset"),
            );
        }
    }
}

fn bridges(host: &Side, jails: &[&Side], out: &mut Diags) {
    for s in jails {
        let Some(v) = s.jail.as_ref().and_then(|j| j.network.vnet.as_ref()) else {
            continue;
        };
        if v.bridge.value.is_empty() || host.bridges.iter().any(|b| b.value == v.bridge.value) {
            continue;
        }
        let declared: Vec<&str> = host.bridges.iter().map(|b| b.value.as_str()).collect();
        out.push(
            Diag::new(
                Code::BridgeUnknown,
                format!(
                    "{} joins {}, which its host {} does not declare",
                    s.fqdn, v.bridge.value, host.fqdn
                ),
            )
            .label(&v.bridge.span, "no such bridge on the host")
            .help(if declared.is_empty() {
                format!(
                    "declare it in {}: `freebsd.network.bridges: {{{}: {{members: [em0]}}}}`",
                    host.fqdn, v.bridge.value
                )
            } else {
                format!("the host declares {}", declared.join(", "))
            }),
        );
    }
}

fn devfs(host: &Side, jails: &[&Side], out: &mut Diags) {
    for s in jails {
        let Some(j) = &s.jail else { continue };
        for p in j
            .parameters
            .iter()
            .filter(|p| p.name.value == "devfs_ruleset")
        {
            let Ok(n) = p.value.value.parse::<u32>() else {
                continue;
            };
            let builtin = table::DEVFS_RULESETS.iter().any(|r| r.number == n);
            if builtin || host.devfs_rules.contains(&n) {
                continue;
            }
            let names: Vec<String> = table::DEVFS_RULESETS
                .iter()
                .map(|r| format!("{} ({})", r.number, r.name))
                .collect();
            out.push(
                Diag::new(
                    Code::DevfsRuleset,
                    format!("devfs_ruleset {n} of {} is defined nowhere on {}", s.fqdn, host.fqdn),
                )
                .label(&p.value.span, "an undefined ruleset")
                .help(format!(
                    "devfs creates an unknown ruleset empty, and an empty ruleset hides nothing: the jail would see the host's whole /dev. Use a built-in one ({}) or define [NAME={n}] in the host's /etc/devfs.rules (freebsd.files)",
                    names.join(", ")
                )),
            );
        }
    }
}

fn racct(host: &Side, jails: &[&Side], out: &mut Diags) {
    let Some(off) = &host.racct_off else { return };
    for s in jails {
        let Some(rule) = s.jail.as_ref().and_then(|j| j.rctl.first()) else {
            continue;
        };
        out.push(
            Diag::new(
                Code::Racct,
                format!("{} has rctl rules, and its host {} turns racct off", s.fqdn, host.fqdn),
            )
            .label(&rule.span, "an rctl rule")
            .label(off, "kern.racct.enable=0 in the host's loader")
            .help("rctl(8) rules need kern.racct.enable=1 (a loader tunable: a reboot): remove the host's setting (beryl sets it for a host whose jails have rctl rules), or remove the rules"),
        );
    }
}

fn depend(_: &Side, jails: &[&Side], out: &mut Diags) {
    let names: HashMap<&str, &Jail> = jails
        .iter()
        .filter_map(|s| s.jail.as_ref().map(|j| (j.name.value.as_str(), j)))
        .collect();
    for s in jails {
        let Some(j) = &s.jail else { continue };
        for d in &j.depend {
            if !names.contains_key(d.value.as_str()) {
                let mut known: Vec<&str> = names
                    .keys()
                    .copied()
                    .filter(|n| *n != j.name.value)
                    .collect();
                known.sort_unstable();
                out.push(
                    Diag::new(
                        Code::Depend,
                        format!(
                            "{} depends on {}, which is no jail of its host",
                            s.fqdn,
                            names::quote(&d.value)
                        ),
                    )
                    .label(&d.span, "no such jail on this host")
                    .help(format!(
                        "depend names jails of the same host: {}",
                        if known.is_empty() {
                            "it has no other".to_string()
                        } else {
                            known.join(", ")
                        }
                    )),
                );
            }
        }
    }
    // A cycle: walk each jail's depend chain; report it once, at the
    // smallest name on it.
    let mut reported = Vec::new();
    let mut sorted: Vec<&str> = names.keys().copied().collect();
    sorted.sort_unstable();
    for start in sorted {
        let mut path = vec![start];
        if let Some(cycle) = find_cycle(start, &names, &mut path)
            && cycle.iter().min() == Some(&start)
            && !reported.contains(&start)
        {
            reported.push(start);
            let j = names[start];
            let next = cycle.get(1).copied().unwrap_or(start);
            let at = j
                .depend
                .iter()
                .find(|d| d.value == next)
                .map(|d| d.span.clone())
                .unwrap_or_default();
            out.push(
                Diag::new(Code::Depend, format!("the jails {} depend on each other in a cycle", cycle.join(" → ")))
                    .label(&at, "the cycle starts here")
                    .help("jail(8) starts a jail after the jails it depends on: remove one `depend` of the cycle"),
            );
        }
    }
}

/// The cycle back to `path[0]`, if following depends from the last of
/// `path` reaches it.
fn find_cycle<'a>(
    start: &'a str,
    names: &HashMap<&'a str, &'a Jail>,
    path: &mut Vec<&'a str>,
) -> Option<Vec<&'a str>> {
    let last = *path.last()?;
    for d in &names.get(last)?.depend {
        let d = d.value.as_str();
        if d == start {
            let mut c = path.clone();
            c.push(start);
            return Some(c);
        }
        if path.contains(&d) || !names.contains_key(d) {
            continue;
        }
        path.push(names.get_key_value(d)?.0);
        if let Some(c) = find_cycle(start, names, path) {
            return Some(c);
        }
        path.pop();
    }
    None
}

fn rc_conflict(host: &Side, _: &[&Side], out: &mut Diags) {
    for r in &host.rc_jail {
        out.push(
            Diag::new(
                Code::RcConflict,
                format!("{} writes rc_conf {} itself, and beryl derives it from its jails", host.fqdn, r.value),
            )
            .label(&r.span, "derived from the jails")
            .help("remove it: beryl sets jail_enable=YES and an explicit jail_list (the jails with boot: true, depend order)"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_one_row() {
        let mut codes: Vec<&str> = CHECKS.iter().map(|c| c.code.as_str()).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), CHECKS.len());
        assert!(CHECKS.iter().all(|c| !c.what.is_empty()));
    }
}
