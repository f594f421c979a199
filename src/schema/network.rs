//! `freebsd.network`: interfaces, default routers and name servers, checked
//! by the [`NETWORK`] and [`INTERFACE`] tables.

use std::net::IpAddr;

use crate::diag::Diag;
use crate::syntax::path;
use crate::value::{Node, Span};

use super::Code;
use super::ctx::{At, Ctx, Field, KeyRule, Rule};
use super::model::{Bridge, FreeBsd, Interface, Located, Network};
use crate::freebsd::names;

/// The keys of `freebsd.network`.
pub(crate) const NETWORK: &[Field<Network>] = &[
    Field {
        key: "interfaces",
        doc: "interfaces by name (vtnet0, em0), each with ipv4 and/or ipv6",
        aliases: &["interface", "ifaces", "nics", "ifconfig"],
        check: interfaces,
    },
    Field {
        key: "defaultrouter",
        doc: "IPv4 address of the default router, such as 192.0.2.1",
        aliases: &[
            "default_router",
            "gateway",
            "gateway4",
            "router",
            "gw",
            "defaultroute",
        ],
        check: defaultrouter,
    },
    Field {
        key: "ipv6_defaultrouter",
        doc: "IPv6 address of the default router, such as 2001:db8::1",
        aliases: &[
            "ipv6_default_router",
            "ipv6_gateway",
            "gateway6",
            "defaultrouter6",
            "router6",
        ],
        check: ipv6_defaultrouter,
    },
    Field {
        key: "nameservers",
        doc: "name server addresses for resolv.conf, IPv4 or IPv6, each once",
        aliases: &[
            "nameserver",
            "dns",
            "dns_servers",
            "resolvers",
            "name_servers",
        ],
        check: nameservers,
    },
    Field {
        key: "bridges",
        doc: "bridges by name (bridge0), each with members (host interfaces) and an optional ipv4: created through cloned_interfaces, joined by VNET jails",
        aliases: &["bridge", "if_bridge", "switches"],
        check: bridges,
    },
];

/// The keys of one bridge.
pub(crate) const BRIDGE: &[Field<Bridge>] = &[
    Field {
        key: "members",
        doc: "host interfaces added to the bridge (addm), such as [em0]",
        aliases: &["member", "ports", "interfaces", "addm"],
        check: bridge_members,
    },
    Field {
        key: "ipv4",
        doc: "the bridge's own address with its prefix length, such as 192.0.2.10/24",
        aliases: &["inet", "ip", "ip4", "address"],
        check: bridge_ipv4,
    },
];

const BRIDGE_NAME: KeyRule = KeyRule {
    check: names::bridge_name,
    code: Code::Bridge,
    what: "bridge name",
    label: "not a bridge name",
    help: "name it as `ifconfig bridge create` does: bridge and a unit number, such as bridge0",
};

const MEMBER: Rule = Rule {
    check: names::interface_name,
    code: Code::Bridge,
    what: "interface name",
    help: |_| "name a host interface as `ifconfig -l` lists it, such as em0".into(),
};

/// `network.bridges`: each bridge by name, in the order given.
fn bridges(cx: &mut Ctx, at: &At<'_>, net: &mut Network) {
    let Some(map) = cx.mapping(&at.path, at.node) else {
        return;
    };
    for (name, entry) in map {
        let path = path::child(&at.path, name);
        let good = cx.key(&BRIDGE_NAME, &at.path, name, entry);
        let mut bridge = Bridge {
            name: Located::new(name.clone(), entry.key_span.clone()),
            members: Vec::new(),
            ipv4: None,
        };
        // `bridge0: {}` and `bridge0: ~` are a bridge without members.
        if !matches!(entry.node.value, crate::value::Value::Null) {
            let Some(m) = cx.mapping(&path, &entry.node) else {
                continue;
            };
            cx.walk(&path, m, BRIDGE, &mut bridge);
        }
        if good {
            net.bridges.push(bridge);
        }
    }
}

fn bridge_members(cx: &mut Ctx, at: &At<'_>, b: &mut Bridge) {
    b.members = cx.checked_list(&at.path, at.node, &MEMBER);
}

fn bridge_ipv4(cx: &mut Ctx, at: &At<'_>, b: &mut Bridge) {
    let Some(s) = cx.string(&at.path, at.node) else {
        return;
    };
    match names::ipv4(s) {
        Ok(v @ crate::freebsd::names::Ipv4::Static(_)) => {
            b.ipv4 = Some(Located::new(v, at.node.span.clone()));
        }
        _ => cx.push(
            Diag::new(
                Code::Ipv4,
                format!("invalid {}: {}", at.path, names::quote(s)),
            )
            .label(&at.node.span, "not an IPv4 address/prefix")
            .help("write the bridge's address with its prefix length, such as 192.0.2.10/24"),
        ),
    }
}

/// The keys of one interface.
pub(crate) const INTERFACE: &[Field<Interface>] = &[
    Field {
        key: "ipv4",
        doc: "dhcp, or an address with its prefix length, such as 192.0.2.10/24",
        aliases: &["inet", "ip", "ip4", "ipv4_address", "address"],
        check: ipv4,
    },
    Field {
        key: "ipv6",
        doc: "slaac, or an address with its prefix length, such as 2001:db8::10/64",
        aliases: &["inet6", "ip6", "ipv6_address", "address6"],
        check: ipv6,
    },
];

const DEFAULTROUTER: Rule = Rule {
    check: |s| names::ipv4_address(s).map(drop),
    code: Code::Address,
    what: "IPv4 address",
    help: |s| {
        if names::ipv6_address(s).is_ok() {
            "this is an IPv6 address: set it as `ipv6_defaultrouter`".into()
        } else {
            "give the router's IPv4 address alone, such as 192.0.2.1".into()
        }
    },
};

const IPV6_DEFAULTROUTER: Rule = Rule {
    check: |s| names::ipv6_address(s).map(drop),
    code: Code::Address,
    what: "IPv6 address",
    help: |s| {
        if names::ipv4_address(s).is_ok() {
            "this is an IPv4 address: set it as `defaultrouter`".into()
        } else if s.contains('%') {
            "give the router's address without a zone id (a global address, such as 2001:db8::1)"
                .into()
        } else {
            "give the router's IPv6 address alone, such as 2001:db8::1".into()
        }
    },
};

const NAMESERVER: Rule = Rule {
    check: |s| names::ip_address(s).map(drop),
    code: Code::Address,
    what: "IP address",
    help: |_| {
        "give the name server's IPv4 or IPv6 address, such as 192.0.2.53 or 2001:db8::53 (not a host name)"
            .into()
    },
};

/// The whole mapping; absent keys stay empty.
pub(crate) fn network(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    let Some(map) = cx.mapping(&at.path, at.node) else {
        return;
    };
    let mut net = Network {
        span: at.node.span.clone(),
        ..Network::default()
    };
    cx.walk(&at.path, map, NETWORK, &mut net);
    out.network = Some(net);
}

/// Interfaces by name, in the order given.
/// The keys of `network.interfaces`.
const INTERFACE_NAME: KeyRule = KeyRule {
    check: names::interface_name,
    code: Code::Interface,
    what: "interface name",
    label: "not an interface name",
    help: "name the interface as `ifconfig -l` lists it: a driver and a unit number, \
           such as vtnet0, em0, igb1, lagg0 or vlan10",
};

fn interfaces(cx: &mut Ctx, at: &At<'_>, net: &mut Network) {
    let Some(map) = cx.mapping(&at.path, at.node) else {
        return;
    };
    for (name, entry) in map {
        let path = path::child(&at.path, name);
        cx.key(&INTERFACE_NAME, &at.path, name, entry);
        if let Some(iface) = one(cx, &path, name, entry.key_span.clone(), &entry.node) {
            net.interfaces.push(iface);
        }
    }
}

fn one(cx: &mut Ctx, path: &str, name: &str, key_span: Span, node: &Node) -> Option<Interface> {
    let Some(map) = node.as_map() else {
        cx.push(cx.type_error(path, "a mapping", node).help(format!(
            "give `{name}` an `ipv4` and/or an `ipv6`, such as `{name}: {{ipv4: dhcp}}`"
        )));
        return None;
    };
    let mut iface = Interface {
        name: Located::new(name.to_string(), key_span),
        ipv4: None,
        ipv6: None,
    };
    cx.walk(path, map, INTERFACE, &mut iface);
    if !map.contains_key("ipv4") && !map.contains_key("ipv6") {
        cx.push(
            Diag::new(
                Code::MissingKey,
                format!("{path} has neither `ipv4` nor `ipv6`"),
            )
            .label(&node.span, "this interface needs `ipv4` or `ipv6`")
            .help("give `ipv4: dhcp`, `ipv6: slaac` or a static address, or remove the interface"),
        );
    }
    Some(iface)
}

fn ipv4(cx: &mut Ctx, at: &At<'_>, iface: &mut Interface) {
    let Some(s) = cx.string(&at.path, at.node) else {
        return;
    };
    match names::ipv4(s) {
        Ok(v) => iface.ipv4 = Some(Located::new(v, at.node.span.clone())),
        Err(reason) => cx.push(
            Diag::new(Code::Ipv4, format!("invalid {}: {reason}", at.path))
                .label(&at.node.span, "not dhcp or an IPv4 address/prefix")
                .help("write `dhcp`, or the address with its prefix length, such as 192.0.2.10/24"),
        ),
    }
}

fn ipv6(cx: &mut Ctx, at: &At<'_>, iface: &mut Interface) {
    let Some(s) = cx.string(&at.path, at.node) else {
        return;
    };
    match names::ipv6(s) {
        Ok(v) => iface.ipv6 = Some(Located::new(v, at.node.span.clone())),
        Err(reason) => cx.push(
            Diag::new(Code::Ipv6, format!("invalid {}: {reason}", at.path))
                .label(&at.node.span, "not slaac or an IPv6 address/prefix")
                .help(
                    "write `slaac`, or the address with its prefix length, such as 2001:db8::10/64",
                ),
        ),
    }
}

fn defaultrouter(cx: &mut Ctx, at: &At<'_>, net: &mut Network) {
    net.defaultrouter = cx.checked(&at.path, at.node, &DEFAULTROUTER);
}

fn ipv6_defaultrouter(cx: &mut Ctx, at: &At<'_>, net: &mut Network) {
    net.ipv6_defaultrouter = cx.checked(&at.path, at.node, &IPV6_DEFAULTROUTER);
}

/// Addresses, each once; compared as addresses, so `2001:db8::53` repeats
/// `2001:DB8::53`. A repeat is reported at the second.
fn nameservers(cx: &mut Ctx, at: &At<'_>, net: &mut Network) {
    let Some(items) = cx.list(&at.path, at.node, "a list of addresses") else {
        return;
    };
    let checked: Vec<Option<Located<String>>> = items
        .iter()
        .enumerate()
        .map(|(i, item)| cx.checked(&path::item(&at.path, i), item, &NAMESERVER))
        .collect();
    let mut seen: Vec<(usize, IpAddr, &Located<String>)> = Vec::new();
    for (i, ns) in checked.iter().enumerate() {
        let Some(ns) = ns else { continue };
        let Ok(addr) = names::ip_address(&ns.value) else {
            continue;
        };
        if let Some((first, _, prev)) = seen.iter().find(|(_, a, _)| *a == addr) {
            cx.push(
                Diag::new(
                    Code::DuplicateNameserver,
                    format!(
                        "{} {} is already listed as {}",
                        path::item(&at.path, i),
                        names::quote(&ns.value),
                        path::item(&at.path, *first)
                    ),
                )
                .label(&ns.span, "listed again here")
                .label(&prev.span, "first listed here")
                .help("list each name server once"),
            );
        } else {
            seen.push((i, addr, ns));
        }
    }
    net.nameservers = checked.into_iter().flatten().collect();
}
