//! `freebsd.jail`: how a jail's host lays it down, configures and runs it
//! (issue 36, docs/jails.md "Fields"), checked by the [`JAIL`] table and its
//! sub-tables into [`Jail`].
//!
//! Only a jail's chain takes it (the compiler passes a [`Jailed`] context:
//! the jail's name and its host's boot pool and first interface); a host's
//! chain writing it is `schema::jail_on_host`. A jail's chain without it
//! gets every default, so every jail has a [`Jail`]:
//! - `name`: the jail file's stem;
//! - `path`: `/usr/local/jails/NAME`, the FreeBSD Handbook's layout
//!   (doc/en/books/handbook/jails, "Setting up the Jail Directory Tree":
//!   `/usr/local/jails/containers/NAME`, the media and templates beside;
//!   beryl keeps one directory per jail, `containers/` dropped);
//! - `dataset.name`: `POOL/jails/NAME`, POOL the host's boot pool
//!   (`freebsd.pool`, zroot by default), with `mountpoint` = `path`;
//! - `base`: `dists`, `thick`; `boot`: true; `restart`: never;
//! - `network.interface` (aliases, no VNET): the host's first interface;
//! - `network.vnet.mac`: [`names::derived_mac`] of the host and jail names.

use crate::diag::Diag;
use crate::freebsd::jail as params;
use crate::freebsd::names;
use crate::freebsd::zfs;
use crate::syntax::path;
use crate::value::{Node, Span, Value};

use super::Code;
use super::ctx::{At, Ctx, Field, Rule};
use super::model::{
    Dataset, FreeBsd, Install, Jail, JailBase, JailLayout, JailMount, JailNetwork, JailParam,
    JailRestart, Located, Vnet, ZfsProp,
};

/// What the compiler knows of a jail that its own `freebsd` does not say.
#[derive(Debug, Clone)]
pub(crate) struct Jailed {
    /// The jail file's stem.
    pub name: String,
    /// The host's FQDN.
    pub parent: String,
    /// The host's boot pool (`freebsd.pool`, zroot when absent).
    pub pool: String,
    /// The host's first interface in `freebsd.network.interfaces`.
    pub interface: Option<String>,
}

impl Jailed {
    /// The context of a jail of the host whose effective config is `parent`.
    pub(crate) fn of(name: &str, parent_fqdn: &str, parent: &Node) -> Self {
        let freebsd = parent.get("freebsd");
        let pool = freebsd
            .and_then(|f| f.get("pool"))
            .and_then(Node::as_str)
            .unwrap_or(zfs::DEFAULT_BOOT_POOL);
        let interface = freebsd
            .and_then(|f| f.get("network"))
            .and_then(|n| n.get("interfaces"))
            .and_then(Node::as_map)
            .and_then(|m| m.keys().next().cloned());
        Self {
            name: name.to_string(),
            parent: parent_fqdn.to_string(),
            pool: pool.to_string(),
            interface,
        }
    }
}

/// Where the Handbook lays jails down; a jail's root is `JAILS_DIR/NAME`.
pub(crate) const JAILS_DIR: &str = "/usr/local/jails";

/// The fields of a `jail` mapping as written, before the defaults.
#[derive(Default)]
pub(crate) struct Draft {
    name: Option<Located<String>>,
    method: Option<Located<Install>>,
    layout: Option<Located<JailLayout>>,
    state: Vec<Located<String>>,
    state_span: Option<Span>,
    dataset: Option<Located<String>>,
    props: Vec<ZfsProp>,
    path: Option<Located<String>>,
    ip4: Vec<Located<String>>,
    ip6: Vec<Located<String>>,
    interface: Option<Located<String>>,
    vnet: Option<VnetDraft>,
    parameters: Vec<JailParam>,
    mounts: Vec<JailMount>,
    rctl: Vec<Located<String>>,
    boot: Option<Located<bool>>,
    depend: Vec<Located<String>>,
    restart: Option<Located<JailRestart>>,
}

/// A `vnet` mapping as written.
#[derive(Default)]
pub(crate) struct VnetDraft {
    span: Span,
    bridge: Option<Located<String>>,
    epair: Option<Located<u32>>,
    mac: Option<Located<String>>,
    gateway: Option<Located<String>>,
    gateway6: Option<Located<String>>,
}

/// The keys of `freebsd.jail`.
pub(crate) const JAIL: &[Field<Draft>] = &[
    Field {
        key: "name",
        doc: "jail(8) name (default: the jail file's name); the conf file is /etc/jail.conf.d/NAME.conf",
        aliases: &["jail_name", "jname"],
        check: name,
    },
    Field {
        key: "base",
        doc: "how the userland is laid down: method (dists or pkgbase), layout (thick, nullfs or clone) and, for a thin layout, state",
        aliases: &["release", "userland", "template"],
        check: base,
    },
    Field {
        key: "dataset",
        doc: "the ZFS dataset of the jail's root: name (default POOL/jails/NAME) and properties (quota, compression…)",
        aliases: &["zfs", "zfs_dataset", "volume"],
        check: dataset,
    },
    Field {
        key: "path",
        doc: "the jail's root directory on its host (jail.conf path; default /usr/local/jails/NAME)",
        aliases: &["root", "rootdir", "directory"],
        check: path_field,
    },
    Field {
        key: "network",
        doc: "ip4/ip6 addresses with prefix on an interface of the host, or vnet: an epair on a bridge of the host",
        aliases: &["net", "ip", "networking"],
        check: network,
    },
    Field {
        key: "parameters",
        doc: "other jail.conf parameters (allow.*, enforce_statfs, securelevel, devfs_ruleset, children.max, persist, exec.clean, sysvmsg…)",
        aliases: &["params", "parameter", "jail_conf", "conf", "options"],
        check: parameters,
    },
    Field {
        key: "mounts",
        doc: "nullfs mounts from the host (mount.fstab), each {source, target, ro}",
        aliases: &["mount", "fstab", "nullfs", "volumes"],
        check: mounts,
    },
    Field {
        key: "rctl",
        doc: "rctl(8) rules without the jail:NAME: subject, such as memoryuse:deny=2g; the host needs kern.racct.enable=1",
        aliases: &["limits", "rctl_rules", "resources"],
        check: rctl,
    },
    Field {
        key: "boot",
        doc: "started at boot, in the host's jail_list (default true)",
        aliases: &["autostart", "start", "enable", "enabled", "onboot"],
        check: boot,
    },
    Field {
        key: "depend",
        doc: "jails of the same host started before this one (jail.conf depend)",
        aliases: &["depends", "dependencies", "after", "requires"],
        check: depend,
    },
    Field {
        key: "restart",
        doc: "when a change needs the jail restarted: never (report it, the default) or on_change",
        aliases: &["restart_policy", "on_change"],
        check: restart,
    },
];

/// The keys of `jail.base`.
const BASE: &[Field<Draft>] = &[
    Field {
        key: "method",
        doc: "dists (base.txz extracted) or pkgbase (pkg --rootdir PATH installs FreeBSD-base)",
        aliases: &["install", "from"],
        check: method,
    },
    Field {
        key: "layout",
        doc: "thick (its own copy, the default), nullfs (a shared read-only base) or clone (a ZFS clone)",
        aliases: &["type", "kind"],
        check: layout,
    },
    Field {
        key: "state",
        doc: "for a thin layout, the writable directories kept on datasets of their own, such as [/etc, /var, /usr/local, /home]",
        aliases: &["writable", "data"],
        check: state,
    },
];

/// The keys of `jail.dataset`.
const DATASET: &[Field<Draft>] = &[
    Field {
        key: "name",
        doc: "POOL/NAME of the dataset (default: the host's boot pool/jails/NAME)",
        aliases: &["dataset"],
        check: dataset_name,
    },
    Field {
        key: "properties",
        doc: "ZFS properties set on it, such as {quota: 20G, compression: zstd}; mountpoint defaults to path",
        aliases: &["props", "properties", "options"],
        check: dataset_props,
    },
];

/// The keys of `jail.network`.
const NETWORK: &[Field<Draft>] = &[
    Field {
        key: "ip4",
        doc: "IPv4 addresses with prefix, such as [192.0.2.21/24] (ip4.addr); with vnet, dhcp too",
        aliases: &["ipv4", "ip4.addr", "inet", "addresses"],
        check: ip4,
    },
    Field {
        key: "ip6",
        doc: "IPv6 addresses with prefix, such as [2001:db8::21/64] (ip6.addr); with vnet, slaac too",
        aliases: &["ipv6", "ip6.addr", "inet6"],
        check: ip6,
    },
    Field {
        key: "interface",
        doc: "the host interface the addresses are aliases on (default: the host's first interface); not with vnet",
        aliases: &["iface", "if", "nic"],
        check: interface,
    },
    Field {
        key: "vnet",
        doc: "a network stack of its own: {bridge, epair, mac, gateway, gateway6}",
        aliases: &["vimage", "epair"],
        check: vnet,
    },
];

/// The keys of `jail.network.vnet`.
const VNET: &[Field<VnetDraft>] = &[
    Field {
        key: "bridge",
        doc: "the host's bridge (bridgeN, declared in its network.bridges) the epair's host side joins",
        aliases: &["bridge_name", "switch"],
        check: vnet_bridge,
    },
    Field {
        key: "epair",
        doc: "the epair's unit N, unique on the host: epairNa on the host, epairNb in the jail",
        aliases: &["unit", "epair_unit", "number"],
        check: vnet_epair,
    },
    Field {
        key: "mac",
        doc: "the jail side's MAC: auto (the default: derived from the host and jail names) or xx:xx:xx:xx:xx:xx",
        aliases: &["ether", "hwaddr", "mac_address", "lladdr"],
        check: vnet_mac,
    },
    Field {
        key: "gateway",
        doc: "the jail's IPv4 default router, such as 192.0.2.1 (never guessed)",
        aliases: &["defaultrouter", "router", "gw", "gateway4"],
        check: vnet_gateway,
    },
    Field {
        key: "gateway6",
        doc: "the jail's IPv6 default router, such as 2001:db8::1",
        aliases: &["ipv6_defaultrouter", "router6", "gw6"],
        check: vnet_gateway6,
    },
];

/// The keys of one mount.
const MOUNT: &[Field<MountDraft>] = &[
    Field {
        key: "source",
        doc: "the host directory, absolute",
        aliases: &["src", "from", "host"],
        check: mount_source,
    },
    Field {
        key: "target",
        doc: "where it appears inside the jail, absolute from the jail's root",
        aliases: &["dst", "dest", "to", "mountpoint", "path"],
        check: mount_target,
    },
    Field {
        key: "ro",
        doc: "mounted read-only (default false)",
        aliases: &["readonly", "read_only"],
        check: mount_ro,
    },
];

#[derive(Default)]
pub(crate) struct MountDraft {
    source: Option<Located<String>>,
    target: Option<Located<String>>,
    ro: bool,
}

const JAIL_NAME: Rule = Rule {
    check: names::jail_name,
    code: Code::JailName,
    what: "jail name",
    help: |_| "use one label of letters, digits and `-`, not all digits, such as www or db1".into(),
};

const JAIL_DIR: Rule = Rule {
    check: names::jail_dir,
    code: Code::JailPath,
    what: "directory",
    help: |_| "give an absolute, normalized path such as /usr/local/jails/www".into(),
};

const BRIDGE: Rule = Rule {
    check: names::bridge_name,
    code: Code::Bridge,
    what: "bridge name",
    help: |_| "name a bridge of the host's network.bridges, such as bridge0".into(),
};

const MAC: Rule = Rule {
    check: names::mac,
    code: Code::JailMac,
    what: "MAC address",
    help: |_| {
        "write `auto` (derived from the host and jail names), or a unicast address such as 02:00:00:00:00:01".into()
    },
};

const GATEWAY: Rule = Rule {
    check: |s| names::ipv4_address(s).map(drop),
    code: Code::Address,
    what: "IPv4 address",
    help: |_| "give the router's IPv4 address alone, such as 192.0.2.1".into(),
};

const GATEWAY6: Rule = Rule {
    check: |s| names::ipv6_address(s).map(drop),
    code: Code::Address,
    what: "IPv6 address",
    help: |_| "give the router's IPv6 address alone, such as 2001:db8::1".into(),
};

const RCTL: Rule = Rule {
    check: params::rctl_rule,
    code: Code::JailRctl,
    what: "rctl rule",
    help: |_| {
        "write RESOURCE:ACTION=AMOUNT[/PER] without the subject, such as memoryuse:deny=2g or pcpu:deny=50 (rctl(8))".into()
    },
};

/// The `jail` mapping of a jail (an error in a host's chain).
pub(crate) fn jail(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    let Some(jailed) = cx.jailed.clone() else {
        cx.push(
            Diag::new(
                Code::JailOnHost,
                format!("{} is only for a jail, and this is a host", at.path),
            )
            .label(&at.node.span, "a host's chain writes `jail`")
            .help("write a jail's settings in its file under HOST.jails/ (docs/jails.md); a host is not a jail"),
        );
        return;
    };
    let Some(map) = cx.mapping(&at.path, at.node) else {
        return;
    };
    let mut draft = Draft::default();
    cx.walk(&at.path, map, JAIL, &mut draft);
    out.jail = Some(finish(cx, &at.path, &jailed, draft, &at.node.span));
}

/// The `Jail` of a jail whose chain writes no `jail` mapping: every default.
pub(crate) fn defaults(cx: &mut Ctx, jailed: &Jailed, span: &Span) -> Jail {
    finish(cx, "freebsd.jail", jailed, Draft::default(), span)
}

/// The defaults filled in, and the rules across the fields of one jail.
fn finish(cx: &mut Ctx, at: &str, jailed: &Jailed, d: Draft, span: &Span) -> Jail {
    let here = |v: String| Located::new(v, span.clone());
    let name = d.name.unwrap_or_else(|| here(jailed.name.clone()));
    let path = d
        .path
        .unwrap_or_else(|| here(format!("{JAILS_DIR}/{}", name.value)));
    let dataset_name = d
        .dataset
        .unwrap_or_else(|| here(format!("{}/jails/{}", jailed.pool, name.value)));
    let mut props = d.props;
    if !props.iter().any(|p| p.name.value == "mountpoint")
        && let Some(v) = zfs::prop("mountpoint").and_then(|p| zfs::value(p, &path.value).ok())
    {
        props.insert(
            0,
            ZfsProp {
                name: here("mountpoint".into()),
                value: Located::new(v.set, path.span.clone()),
                printed: v.printed,
            },
        );
    }
    let layout = d
        .layout
        .unwrap_or_else(|| Located::new(JailLayout::Thick, span.clone()));
    thin_state(cx, at, &layout, &d.state, d.state_span.as_ref());
    let vnet = d
        .vnet
        .map(|v| vnet_finish(cx, at, jailed, &name.value, v, (&d.ip4, &d.ip6)));
    let interface = match (&vnet, d.interface) {
        (Some(_), Some(i)) => {
            cx.push(
                Diag::new(
                    Code::JailNetwork,
                    format!(
                        "{at}.network.interface is for address aliases, and this jail has vnet"
                    ),
                )
                .label(&i.span, "an alias interface for a VNET jail")
                .help("a VNET jail's interface is its epair (epairNb); remove `interface`"),
            );
            None
        }
        (Some(_), None) => None,
        (None, Some(i)) => Some(i),
        (None, None) => jailed.interface.clone().map(here),
    };
    if vnet.is_none() {
        aliases_only(cx, at, &d.ip4, &d.ip6, interface.is_some(), jailed);
    }
    Jail {
        name,
        base: JailBase {
            method: d
                .method
                .unwrap_or_else(|| Located::new(Install::Dists, span.clone())),
            layout,
            state: d.state,
        },
        dataset: Dataset {
            name: dataset_name,
            props,
            destroy: false,
        },
        path,
        network: JailNetwork {
            ip4: d.ip4,
            ip6: d.ip6,
            interface,
            vnet,
        },
        parameters: d.parameters,
        mounts: d.mounts,
        rctl: d.rctl,
        boot: d.boot.unwrap_or_else(|| Located::new(true, span.clone())),
        depend: d.depend,
        restart: d
            .restart
            .unwrap_or_else(|| Located::new(JailRestart::Never, span.clone())),
        span: span.clone(),
    }
}

/// A thin layout keeps its writable state on datasets of its own: given,
/// and disjoint (none inside another). A thick one takes no `state`.
fn thin_state(
    cx: &mut Ctx,
    at: &str,
    layout: &Located<JailLayout>,
    state: &[Located<String>],
    state_span: Option<&Span>,
) {
    let thin = layout.value != JailLayout::Thick;
    if thin && state.is_empty() && state_span.is_none() {
        cx.push(
            Diag::new(
                Code::JailState,
                format!("{at}.base: a {} layout needs `state`", word(layout.value)),
            )
            .label(&layout.span, "a shared base, with no writable state given")
            .help("list the writable directories kept on datasets of their own, such as `state: [/etc, /var, /usr/local, /home]`: a shared base is read-only, and a ZFS clone cannot be rebased onto the next release (mkjail#61)"),
        );
    }
    if !thin && let Some(s) = state_span {
        cx.push(
            Diag::new(
                Code::JailState,
                format!("{at}.base.state is for a thin layout, and this jail is thick"),
            )
            .label(s, "state of a thick jail")
            .help("a thick jail's whole root is its own dataset; remove `state`, or set `layout: nullfs` or `clone`"),
        );
    }
    for (i, a) in state.iter().enumerate() {
        for b in &state[..i] {
            let (outer, inner) = if a.value.len() < b.value.len() {
                (a, b)
            } else {
                (b, a)
            };
            if inner.value == outer.value || inner.value.starts_with(&format!("{}/", outer.value)) {
                cx.push(
                    Diag::new(
                        Code::JailState,
                        format!(
                            "{at}.base.state: {} is inside {}",
                            names::quote(&inner.value),
                            names::quote(&outer.value)
                        ),
                    )
                    .label(&a.span, "listed here")
                    .label(&b.span, "and here")
                    .help(
                        "each state directory is a dataset of its own: list disjoint directories",
                    ),
                );
            } else if names::state_dataset(&a.value) == names::state_dataset(&b.value) {
                cx.push(
                    Diag::new(
                        Code::JailState,
                        format!(
                            "{at}.base.state: {} and {} would be one dataset, `{}`",
                            names::quote(&b.value),
                            names::quote(&a.value),
                            names::state_dataset(&a.value)
                        ),
                    )
                    .label(&a.span, "listed here")
                    .label(&b.span, "and here")
                    .help("a state directory's dataset is named after it, each `/` but the first as `_`: rename one of the directories"),
                );
            }
        }
    }
}

fn word(l: JailLayout) -> &'static str {
    match l {
        JailLayout::Thick => "thick",
        JailLayout::Nullfs => "nullfs",
        JailLayout::Clone => "clone",
    }
}

/// Without vnet: static addresses only, on an interface of the host.
fn aliases_only(
    cx: &mut Ctx,
    at: &str,
    ip4: &[Located<String>],
    ip6: &[Located<String>],
    interface: bool,
    jailed: &Jailed,
) {
    for a in ip4.iter().chain(ip6) {
        if a.value == "dhcp" || a.value == "slaac" {
            cx.push(
                Diag::new(
                    Code::JailNetwork,
                    format!("{at}.network: `{}` needs a network stack of its own", a.value),
                )
                .label(&a.span, "dhcp/slaac without vnet")
                .help("an alias jail shares its host's stack (kern_jail.c): give a static address with its prefix, or add `vnet`"),
            );
        }
    }
    if !interface && let Some(first) = ip4.first().or(ip6.first()) {
        cx.push(
            Diag::new(
                Code::JailNetwork,
                format!(
                    "{at}.network has addresses and no interface, and the host {} has none in freebsd.network.interfaces",
                    jailed.parent
                ),
            )
            .label(&first.span, "an alias on which interface?")
            .help("give `interface: em0`, the host's interface the addresses are added to"),
        );
    }
}

fn vnet_finish(
    cx: &mut Ctx,
    at: &str,
    jailed: &Jailed,
    name: &str,
    v: VnetDraft,
    (ip4, ip6): (&[Located<String>], &[Located<String>]),
) -> Vnet {
    let missing = |cx: &mut Ctx, key: &str, help: &str| {
        cx.push(
            Diag::new(Code::JailVnet, format!("{at}.network.vnet has no `{key}`"))
                .label(&v.span, format!("a VNET jail without `{key}`"))
                .help(help.to_string()),
        );
    };
    if v.bridge.is_none() {
        missing(
            cx,
            "bridge",
            "name the host's bridge the epair joins, such as `bridge: bridge0`",
        );
    }
    if v.epair.is_none() {
        missing(
            cx,
            "epair",
            "give the epair's unit, unique on the host, such as `epair: 3` (epair3a on the host, epair3b in the jail)",
        );
    }
    if ip4.is_empty() && ip6.is_empty() {
        cx.push(
            Diag::new(
                Code::JailVnet,
                format!("{at}.network: a VNET jail with no address"),
            )
            .label(&v.span, "an epair with nothing on it")
            .help("give `ip4: [dhcp]`, `ip6: [slaac]` or static addresses with their prefix"),
        );
    }
    let derived = Located::new(
        names::derived_mac(&jailed.parent, name, 'b'),
        v.span.clone(),
    );
    Vnet {
        bridge: v
            .bridge
            .unwrap_or_else(|| Located::new(String::new(), v.span.clone())),
        epair: v.epair.unwrap_or_else(|| Located::new(0, v.span.clone())),
        mac: v.mac.unwrap_or(derived),
        mac_host: names::derived_mac(&jailed.parent, name, 'a'),
        gateway: v.gateway,
        gateway6: v.gateway6,
    }
}

fn name(cx: &mut Ctx, at: &At<'_>, d: &mut Draft) {
    d.name = cx.checked(&at.path, at.node, &JAIL_NAME);
}

fn base(cx: &mut Ctx, at: &At<'_>, d: &mut Draft) {
    if let Some(map) = cx.mapping(&at.path, at.node) {
        cx.walk(&at.path, map, BASE, d);
    }
}

fn method(cx: &mut Ctx, at: &At<'_>, d: &mut Draft) {
    let Some(s) = cx.string(&at.path, at.node) else {
        return;
    };
    match names::install(s) {
        Ok(i) if i.by_beryl() => d.method = Some(Located::new(i, at.node.span.clone())),
        _ => cx.push(
            Diag::new(Code::JailLayout, format!("invalid {}: {}", at.path, names::quote(s)))
                .label(&at.node.span, "not a way to lay down a base")
                .help("write `dists` (base.txz extracted into the root) or `pkgbase` (pkg --rootdir installs FreeBSD-base)"),
        ),
    }
}

fn layout(cx: &mut Ctx, at: &At<'_>, d: &mut Draft) {
    let Some(s) = cx.string(&at.path, at.node) else {
        return;
    };
    let l = match s {
        "thick" => JailLayout::Thick,
        "nullfs" => JailLayout::Nullfs,
        "clone" => JailLayout::Clone,
        _ => {
            cx.push(
                Diag::new(Code::JailLayout, format!("invalid {}: {}", at.path, names::quote(s)))
                    .label(&at.node.span, "not a jail layout")
                    .help("write `thick` (its own copy of the base), `nullfs` (a shared read-only base) or `clone` (a ZFS clone of a base snapshot)"),
            );
            return;
        }
    };
    d.layout = Some(Located::new(l, at.node.span.clone()));
}

fn state(cx: &mut Ctx, at: &At<'_>, d: &mut Draft) {
    d.state_span = Some(at.node.span.clone());
    d.state = cx.checked_list(&at.path, at.node, &JAIL_DIR);
}

fn dataset(cx: &mut Ctx, at: &At<'_>, d: &mut Draft) {
    if let Some(map) = cx.mapping(&at.path, at.node) {
        cx.walk(&at.path, map, DATASET, d);
    }
}

fn dataset_name(cx: &mut Ctx, at: &At<'_>, d: &mut Draft) {
    let rule = Rule {
        check: |s| match zfs::dataset(s) {
            Ok(_) if !s.contains('/') => Err(format!(
                "{} is a pool; a jail's root is a dataset inside one",
                names::quote(s)
            )),
            Ok(_) => Ok(()),
            Err(e) => Err(e),
        },
        code: Code::Dataset,
        what: "dataset name",
        help: |_| "name the dataset with its pool, such as zroot/jails/www".into(),
    };
    d.dataset = cx.checked(&at.path, at.node, &rule);
}

fn dataset_props(cx: &mut Ctx, at: &At<'_>, d: &mut Draft) {
    let Some(map) = cx.mapping(&at.path, at.node) else {
        return;
    };
    if let Some(ds) = super::zfs::dataset(cx, &at.path, "jail", &at.node.span, map) {
        if ds.destroy {
            cx.push(
                Diag::new(
                    Code::Destroy,
                    format!("{} cannot destroy a jail's root", at.path),
                )
                .label(&at.node.span, "`destroy` in a jail's dataset")
                .help(
                    "remove the jail's file: beryl then destroys the jail and the dataset it made",
                ),
            );
        }
        d.props = ds.props;
    }
}

fn path_field(cx: &mut Ctx, at: &At<'_>, d: &mut Draft) {
    d.path = cx.checked(&at.path, at.node, &JAIL_DIR);
}

fn network(cx: &mut Ctx, at: &At<'_>, d: &mut Draft) {
    if let Some(map) = cx.mapping(&at.path, at.node) {
        cx.walk(&at.path, map, NETWORK, d);
    }
}

const IP4: Rule = Rule {
    check: |s| names::ipv4(s).map(drop),
    code: Code::Ipv4,
    what: "IPv4 address with its prefix",
    help: |_| {
        "write the address with its prefix length, such as 192.0.2.21/24 (or dhcp, with vnet)"
            .into()
    },
};

const IP6: Rule = Rule {
    check: |s| names::ipv6(s).map(drop),
    code: Code::Ipv6,
    what: "IPv6 address with its prefix",
    help: |_| {
        "write the address with its prefix length, such as 2001:db8::21/64 (or slaac, with vnet)"
            .into()
    },
};

fn ip4(cx: &mut Ctx, at: &At<'_>, d: &mut Draft) {
    d.ip4 = cx.checked_list(&at.path, at.node, &IP4);
}

fn ip6(cx: &mut Ctx, at: &At<'_>, d: &mut Draft) {
    d.ip6 = cx.checked_list(&at.path, at.node, &IP6);
}

fn interface(cx: &mut Ctx, at: &At<'_>, d: &mut Draft) {
    let rule = Rule {
        check: names::interface_name,
        code: Code::Interface,
        what: "interface name",
        help: |_| "name an interface of the host, such as em0".into(),
    };
    d.interface = cx.checked(&at.path, at.node, &rule);
}

fn vnet(cx: &mut Ctx, at: &At<'_>, d: &mut Draft) {
    let Some(map) = cx.mapping(&at.path, at.node) else {
        return;
    };
    let mut v = VnetDraft {
        span: at.node.span.clone(),
        ..VnetDraft::default()
    };
    cx.walk(&at.path, map, VNET, &mut v);
    d.vnet = Some(v);
}

fn vnet_bridge(cx: &mut Ctx, at: &At<'_>, v: &mut VnetDraft) {
    v.bridge = cx.checked(&at.path, at.node, &BRIDGE);
}

fn vnet_epair(cx: &mut Ctx, at: &At<'_>, v: &mut VnetDraft) {
    // if_epair(4) names units from 0; ifconfig's unit is an int.
    match at.node.value {
        Value::Int(n) if (0..=32767).contains(&n) => {
            v.epair = Some(Located::new(n as u32, at.node.span.clone()));
        }
        _ => cx.push(
            cx.type_error(&at.path, "an integer", at.node)
                .help("give the epair's unit, from 0 to 32767, such as `epair: 3`"),
        ),
    }
}

fn vnet_mac(cx: &mut Ctx, at: &At<'_>, v: &mut VnetDraft) {
    if at.node.as_str() == Some("auto") {
        return;
    }
    v.mac = cx
        .checked(&at.path, at.node, &MAC)
        .map(|m| Located::new(m.value.to_ascii_lowercase(), m.span));
}

fn vnet_gateway(cx: &mut Ctx, at: &At<'_>, v: &mut VnetDraft) {
    v.gateway = cx.checked(&at.path, at.node, &GATEWAY);
}

fn vnet_gateway6(cx: &mut Ctx, at: &At<'_>, v: &mut VnetDraft) {
    v.gateway6 = cx.checked(&at.path, at.node, &GATEWAY6);
}

/// Each parameter a row of `freebsd::jail::PARAMS`, its value of its kind;
/// the derived ones name the field that sets them.
fn parameters(cx: &mut Ctx, at: &At<'_>, d: &mut Draft) {
    let Some(map) = cx.mapping(&at.path, at.node) else {
        return;
    };
    for (key, entry) in map {
        let p = path::child(&at.path, key);
        if let Some(row) = params::param(key) {
            match params::value(row, &entry.node.value) {
                Ok(v) => d.parameters.push(JailParam {
                    name: Located::new(key.clone(), entry.key_span.clone()),
                    value: Located::new(v, entry.node.span.clone()),
                }),
                Err(reason) => cx.push(
                    Diag::new(Code::JailParam, format!("invalid {p}: {reason}"))
                        .label(&entry.node.span, "not a value of this parameter")
                        .help(format!("{key}: {} ({})", row.doc, row.source)),
                ),
            }
        } else if let Some(row) = params::derived(key) {
            cx.push(
                Diag::new(
                    Code::JailParamDerived,
                    format!("{p}: beryl writes `{key}` itself"),
                )
                .label(&entry.key_span, "set by another field")
                .help(format!("set it with {}", row.field)),
            );
        } else {
            let hint = super::ctx::closest(key, params::PARAMS.iter().map(|r| (r.name, r.name)))
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            let known: Vec<&str> = params::PARAMS.iter().map(|r| r.name).collect();
            cx.push(
                Diag::new(
                    Code::JailParam,
                    format!(
                        "unknown jail parameter {} in {}{hint}",
                        names::quote(key),
                        at.path
                    ),
                )
                .label(&entry.key_span, "not a parameter beryl knows")
                .help(format!("jail.parameters accepts: {}", known.join(", "))),
            );
        }
    }
}

fn mounts(cx: &mut Ctx, at: &At<'_>, d: &mut Draft) {
    let Some(items) = cx.list(&at.path, at.node, "a list of mounts") else {
        return;
    };
    for (i, item) in items.iter().enumerate() {
        let p = path::item(&at.path, i);
        let Some(map) = cx.mapping(&p, item) else {
            continue;
        };
        let mut m = MountDraft::default();
        cx.walk(&p, map, MOUNT, &mut m);
        let missing: Vec<&str> = [
            ("source", m.source.is_none()),
            ("target", m.target.is_none()),
        ]
        .into_iter()
        .filter(|(_, gone)| *gone)
        .map(|(k, _)| k)
        .collect();
        if !missing.is_empty() {
            cx.push(
                Diag::new(
                    Code::MissingKey,
                    format!("{p} has no `{}`", missing.join("` or `")),
                )
                .label(&item.span, "a mount needs source and target")
                .help("write {source: /data/www, target: /usr/local/www, ro: true}"),
            );
        }
        if let (Some(source), Some(target)) = (m.source, m.target) {
            d.mounts.push(JailMount {
                source,
                target,
                ro: m.ro,
            });
        }
    }
}

fn mount_source(cx: &mut Ctx, at: &At<'_>, m: &mut MountDraft) {
    m.source = cx.checked(&at.path, at.node, &JAIL_DIR);
}

fn mount_target(cx: &mut Ctx, at: &At<'_>, m: &mut MountDraft) {
    m.target = cx.checked(&at.path, at.node, &JAIL_DIR);
}

fn mount_ro(cx: &mut Ctx, at: &At<'_>, m: &mut MountDraft) {
    match at.node.value {
        Value::Bool(b) => m.ro = b,
        _ => cx.push(cx.type_error(&at.path, "a boolean", at.node)),
    }
}

fn rctl(cx: &mut Ctx, at: &At<'_>, d: &mut Draft) {
    d.rctl = cx.checked_list(&at.path, at.node, &RCTL);
}

fn boot(cx: &mut Ctx, at: &At<'_>, d: &mut Draft) {
    match at.node.value {
        Value::Bool(b) => d.boot = Some(Located::new(b, at.node.span.clone())),
        _ => cx.push(cx.type_error(&at.path, "a boolean", at.node)),
    }
}

fn depend(cx: &mut Ctx, at: &At<'_>, d: &mut Draft) {
    d.depend = cx.checked_list(&at.path, at.node, &JAIL_NAME);
}

fn restart(cx: &mut Ctx, at: &At<'_>, d: &mut Draft) {
    let Some(s) = cx.string(&at.path, at.node) else {
        return;
    };
    let r = match s {
        "never" => JailRestart::Never,
        "on_change" => JailRestart::OnChange,
        _ => {
            cx.push(
                Diag::new(Code::JailRestart, format!("invalid {}: {}", at.path, names::quote(s)))
                    .label(&at.node.span, "not a restart policy")
                    .help("write `never` (report a needed restart, the default) or `on_change` (restart the jail when such a change is applied)"),
            );
            return;
        }
    };
    d.restart = Some(Located::new(r, at.node.span.clone()));
}
