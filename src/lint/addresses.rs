//! The fleet's addresses (issue 36): what the checks of a host with its
//! jails (src/desired/jails.rs) and the fleet-wide duplicates read of each
//! compiled host or jail ([`Side`]), and the duplicates themselves.

use std::collections::HashMap;

use super::Code;
use crate::compile::Compiled;
use crate::diag::{Diag, Diags};
use crate::freebsd::jail as table;
use crate::freebsd::names::{self, Ipv4, Ipv6};
use crate::schema::{Jail, Located};
use crate::value::Span;

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

/// The fleet's addresses (issue 36): each host's and jail's static IPv4
/// and IPv6 addresses and VNET MACs ([`Side`]), for
/// the duplicates across the fleet. A duplicate inside one host and its
/// jails is [`crate::desired::jails::check`]'s, so it is not reported
/// again here: each duplicate is reported once, at both places.
#[derive(Default)]
pub(crate) struct Addresses {
    sides: Vec<Side>,
}

impl Addresses {
    /// Adds a compiled host or jail.
    pub(crate) fn add(&mut self, side: Side) {
        self.sides.push(side);
    }

    /// One error per address or MAC given again in another host's unit (a
    /// host with its jails), labelled at the first writer (hosts by FQDN, each before its jails)
    /// and at this one.
    pub(crate) fn duplicates(&mut self) -> Diags {
        use std::collections::HashMap;
        // By host, the host before its jails: the first writer is the
        // first in `beryl hosts` order of units.
        let key = |s: &Side| {
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
