//! The checks of a host together with its jails (issue 36, docs/jails.md
//! "Checks"): what no single jail's file can tell. Each is a row of
//! [`CHECKS`]; a duplicate is one diagnostic with two labels, the first
//! writer and the second.
//!
//! Entry point: [`check`], run by `beryl check` for every host with jails
//! (and every jail, through its host), and callable by apply on the unit it
//! converges: `desired::jails::check((fqdn, &host), &[(jail_fqdn, &jail), …])`.
//! The checks read a [`Side`] of each compiled host (what they need, small
//! enough for `check` to keep for a whole fleet; defined in [`crate::lint`],
//! which reads the same sides for the fleet-wide duplicates).

use std::collections::HashMap;

use crate::compile::Compiled;
use crate::diag::{Diag, Diags};
use crate::freebsd::jail as table;
use crate::freebsd::names;
use crate::lint::{self, Family, Side, duplicates};
use crate::schema::{Jail, Located};
use crate::value::Span;

crate::diag::codes! {
    /// The codes of a host checked with its jails.
    pub(crate) enum Code in "jail" {
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

/// A check of a host with its jails.
pub(crate) struct Check {
    /// Its code (`beryl::jail::…`).
    #[cfg_attr(not(test), expect(dead_code, reason = "documentation"))]
    pub code: &'static str,
    /// What it checks, for docs/jails.md.
    #[cfg_attr(not(test), expect(dead_code, reason = "documentation"))]
    pub what: &'static str,
    pub run: fn(&Side, &[&Side], &mut Diags),
}

/// The checks, in the order they report.
pub(crate) const CHECKS: &[Check] = &[
    Check {
        code: lint::Code::Ip4Duplicate.as_str(),
        what: "IPv4 addresses unique among the host and its jails (the prefix ignored)",
        run: |h, j, out| out.extend(duplicates(&unit(h, j), Family::Ip4)),
    },
    Check {
        code: lint::Code::Ip6Duplicate.as_str(),
        what: "IPv6 addresses unique among the host and its jails",
        run: |h, j, out| out.extend(duplicates(&unit(h, j), Family::Ip6)),
    },
    Check {
        code: lint::Code::MacDuplicate.as_str(),
        what: "VNET MAC addresses unique among the host's jails",
        run: |h, j, out| out.extend(duplicates(&unit(h, j), Family::Mac)),
    },
    Check {
        code: Code::EpairDuplicate.as_str(),
        what: "epair units unique among the host's jails",
        run: epairs,
    },
    Check {
        code: Code::HostnameDuplicate.as_str(),
        what: "host.hostname unique among the host's jails",
        run: hostnames,
    },
    Check {
        code: Code::RootDuplicate.as_str(),
        what: "no two jails with one name, root path or dataset",
        run: roots,
    },
    Check {
        code: Code::BridgeUnknown.as_str(),
        what: "a VNET jail's bridge is declared in its host's network.bridges",
        run: bridges,
    },
    Check {
        code: Code::DevfsRuleset.as_str(),
        what: "devfs_ruleset is a built-in ruleset or one of the host's /etc/devfs.rules",
        run: devfs,
    },
    Check {
        code: Code::Racct.as_str(),
        what: "rctl rules need racct: refused when the host's loader sets kern.racct.enable=0",
        run: racct,
    },
    Check {
        code: Code::Depend.as_str(),
        what: "depend names a jail of the same host, without a cycle",
        run: depend,
    },
    Check {
        code: Code::RcConflict.as_str(),
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
        let mut codes: Vec<&str> = CHECKS.iter().map(|c| c.code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), CHECKS.len());
        assert!(CHECKS.iter().all(|c| !c.what.is_empty()));
    }
}
