//! `rc`: an rc.conf variable, as rc(8) must see it when it runs the scripts
//! that read it: the defaults and rc.conf's files, then each owning
//! script's `rc.conf.d` file in /etc and /usr/local/etc (rc.subr's
//! `load_rc_config`).
//!
//! The variables come from the network (hostname, interfaces, routers,
//! rtsold for SLAAC), `freebsd.rc_conf`, and what beryl needs (sshd, and zfs
//! on a host with disks). sysrc writes each where rc.conf's files already
//! set it (else /etc/rc.conf), and into each owner's `rc.conf.d` file that
//! sets it too; a variable a running host only sees once a script runs
//! again ([`RESTART`]) gets that script restarted.

use serde::Serialize;

use super::state::State;
use super::verdict::{Action, Verdict, change};
use super::{Input, Kind, Resource, Shell, text};
use crate::freebsd::rcd;
use crate::schema::{Ipv4, Ipv6};
use crate::shell::{QuoteError, word as w, words};

/// An rc.conf variable.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rc {
    pub name: String,
    pub value: String,
    /// The rc.d names whose `rc.conf.d/NAME` file can override it.
    pub owners: Vec<String>,
    /// The rc.d script to restart once it changed on a running host.
    pub restart: Option<&'static str>,
}

/// Variables whose change a running host only sees once a script runs
/// again, and the script (a file of [`rcd::SCRIPTS`]).
pub(crate) const RESTART: &[(&str, &str)] = &[("hostname", "hostname")];

/// Variables that a running host reads only at boot or when a script
/// restarts, which apply does not do over the network it runs on: a
/// variable (or a prefix ending in `_`), and the note a change of it
/// carries (rc.d/netif and rc.d/routing read them: libexec/rc/rc.d).
const LATER: &[(&str, &str)] = &[
    ("ifconfig_", NETWORK),
    ("defaultrouter", ROUTING),
    ("ipv6_defaultrouter", ROUTING),
    ("rtsold_enable", NETWORK),
    ("cloned_interfaces", NETWORK),
];

const NETWORK: &str = "the interfaces read it at boot: it takes effect at the next boot, or after service netif restart and service routing restart (apply does not restart the network it runs over)";
const ROUTING: &str = "the routes are set at boot: it takes effect at the next boot, or after service routing restart (apply does not restart the network it runs over)";

/// The note of a variable that is not live when written ([`LATER`]).
fn later(name: &str) -> Option<&'static str> {
    LATER
        .iter()
        .find(|(v, _)| match v.ends_with('_') {
            true => name.starts_with(v) && name.len() > v.len(),
            false => name == *v,
        })
        .map(|(_, note)| *note)
}

/// The variables, in order: hostname, each interface's IPv4 then IPv6, the
/// routers, rtsold, `freebsd.rc_conf`, sshd, zfs.
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    let f = input.freebsd();
    let network = f.network.clone().unwrap_or_default();
    let mut rc = vec![(
        "hostname".to_string(),
        text(&f.hostname).unwrap_or(input.fqdn.into()),
    )];
    let mut slaac = false;
    for i in &network.interfaces {
        let name = &i.name.value;
        match i.ipv4.as_ref().map(|l| &l.value) {
            Some(Ipv4::Dhcp) => rc.push((format!("ifconfig_{name}"), "DHCP".into())),
            Some(Ipv4::Static(cidr)) => {
                rc.push((format!("ifconfig_{name}"), format!("inet {cidr}")))
            }
            None => {}
        }
        match i.ipv6.as_ref().map(|l| &l.value) {
            Some(Ipv6::Slaac) => {
                slaac = true;
                rc.push((format!("ifconfig_{name}_ipv6"), "inet6 accept_rtadv".into()));
            }
            Some(Ipv6::Static(cidr)) => {
                rc.push((format!("ifconfig_{name}_ipv6"), format!("inet6 {cidr}")));
            }
            None => {}
        }
    }
    if let Some(gw) = &network.defaultrouter {
        rc.push(("defaultrouter".into(), gw.value.clone()));
    }
    if let Some(gw) = &network.ipv6_defaultrouter {
        rc.push(("ipv6_defaultrouter".into(), gw.value.clone()));
    }
    // rtsold(8) solicits the router advertisements SLAAC needs at boot
    // (rc.conf(5): rtsold_enable).
    if slaac {
        rc.push(("rtsold_enable".into(), "YES".into()));
    }
    for v in &f.rc_conf {
        rc.push((v.name.value.clone(), v.value.value.clone()));
    }
    rc.extend(jails(input));
    rc.extend(vnet_inside(input));
    // beryl reaches a host by SSH; a jail through its host (jexec), so a
    // jail gets no sshd of beryl's making (docs/jails.md).
    if !input.is_jail() {
        rc.push(("sshd_enable".into(), "YES".into()));
    }
    if !f.disks.is_empty() {
        rc.push(("zfs_enable".into(), "YES".into()));
    }
    super::items(rc.into_iter().map(|(name, value)| Rc {
        owners: rcd::owners(&name),
        restart: RESTART.iter().find(|(v, _)| *v == name).map(|(_, s)| *s),
        name,
        value,
    }))
}

/// What a host's jails and bridges need of rc.conf (issue 36): the bridges
/// in `cloned_interfaces`, each with its members (`ifconfig_bridgeN="[inet
/// ADDR] addm IF … up"`: network.subr @03ccfdd2 clone_up creates each
/// listed interface, then ifconfig_IF configures it); with jails started at
/// boot, `jail_enable=YES` and an explicit `jail_list` in `depend` order,
/// since rc.d/jail (@c96d5c97) starts only /etc/jail.conf's jails when the
/// list is empty and a named jail from /etc/jail.conf.d/NAME.conf.
/// Inside a VNET jail, its side of the epair (`epairNb`, which jail(8)
/// moves in: `vnet.interface`) gets the jail's addresses and its default
/// routers, as rc.conf(5) names them and libexec/rc/network.subr
/// (@03ccfdd2, `ifconfig_up`, `ifalias`) reads them at the jail's boot
/// (`exec.start = /bin/sh /etc/rc`): the first IPv4 address in
/// `ifconfig_IF`, the first IPv6 in `ifconfig_IF_ipv6`, every other one in
/// `ifconfig_IF_aliasN`; `defaultrouter` and `ipv6_defaultrouter` from
/// `vnet.gateway` and `vnet.gateway6`, never guessed.
fn vnet_inside(input: &Input<'_>) -> Vec<(String, String)> {
    let Some(jail) = &input.freebsd().jail else {
        return Vec::new();
    };
    let Some(vnet) = &jail.network.vnet else {
        return Vec::new();
    };
    let iface = format!("epair{}b", vnet.epair.value);
    let mut rc = Vec::new();
    let mut aliases = Vec::new();
    // `dhcp` and `slaac` are written as the host's own interfaces are
    // (DHCP; `inet6 accept_rtadv` with rtsold).
    for (i, a) in jail.network.ip4.iter().enumerate() {
        match (i, a.value.as_str()) {
            (_, "dhcp") => rc.push((format!("ifconfig_{iface}"), "DHCP".into())),
            (0, _) => rc.push((format!("ifconfig_{iface}"), format!("inet {}", a.value))),
            _ => aliases.push(format!("inet {}", a.value)),
        }
    }
    for (i, a) in jail.network.ip6.iter().enumerate() {
        match (i, a.value.as_str()) {
            (_, "slaac") => {
                rc.push((
                    format!("ifconfig_{iface}_ipv6"),
                    "inet6 accept_rtadv".into(),
                ));
                rc.push(("rtsold_enable".into(), "YES".into()));
            }
            (0, _) => rc.push((
                format!("ifconfig_{iface}_ipv6"),
                format!("inet6 {}", a.value),
            )),
            _ => aliases.push(format!("inet6 {}", a.value)),
        }
    }
    for (n, alias) in aliases.into_iter().enumerate() {
        rc.push((format!("ifconfig_{iface}_alias{n}"), alias));
    }
    if let Some(gw) = &vnet.gateway {
        rc.push(("defaultrouter".into(), gw.value.clone()));
    }
    if let Some(gw) = &vnet.gateway6 {
        rc.push(("ipv6_defaultrouter".into(), gw.value.clone()));
    }
    rc
}

fn jails(input: &Input<'_>) -> Vec<(String, String)> {
    let mut rc = Vec::new();
    let bridges = input
        .freebsd()
        .network
        .as_ref()
        .map(|n| n.bridges.clone())
        .unwrap_or_default();
    if !bridges.is_empty() {
        let names: Vec<&str> = bridges.iter().map(|b| b.name.value.as_str()).collect();
        rc.push(("cloned_interfaces".into(), names.join(" ")));
        for b in &bridges {
            let mut words = Vec::new();
            if let Some(Ipv4::Static(cidr)) = b.ipv4.as_ref().map(|l| &l.value) {
                words.push(format!("inet {cidr}"));
            }
            words.extend(b.members.iter().map(|m| format!("addm {}", m.value)));
            words.push("up".into());
            rc.push((format!("ifconfig_{}", b.name.value), words.join(" ")));
        }
    }
    let list = boot_order(input.jails);
    if !list.is_empty() {
        rc.push(("jail_enable".into(), "YES".into()));
        rc.push(("jail_list".into(), list.join(" ")));
    }
    rc
}

/// The jails started at boot, in [`super::jail::start_order`].
pub(crate) fn boot_order(jails: &[super::Jailed<'_>]) -> Vec<String> {
    super::jail::start_order(jails)
        .into_iter()
        .filter_map(|j| j.compiled.freebsd.jail.as_ref())
        .filter(|j| j.boot.value)
        .map(|j| j.name.value.clone())
        .collect()
}

impl Kind for Rc {
    type Want = Rc;
    const NAME: &'static str = "rc";
    const TEMPLATE: Option<&'static str> = Some(include_str!("../../templates/steps/rc.sh.j2"));

    fn id(&self) -> String {
        format!("rc:{}", self.name)
    }

    fn wants(&self) -> Vec<Rc> {
        vec![self.clone()]
    }

    fn note(want: &Rc) -> Option<&'static str> {
        later(&want.name)
    }

    fn step_id(want: &Rc) -> String {
        want.id()
    }

    fn shell(v: &Rc) -> Result<Shell, QuoteError> {
        Ok(Shell {
            check: format!(
                "[ \"$(rcvalue {})\" = {} ]",
                owners(&v.name, &v.owners)?,
                w(&v.value)?
            ),
            change: set(v)?,
        })
    }

    fn judge(v: &Rc, s: &State) -> Verdict {
        match value(s, &v.name, &v.owners) {
            Some(have) if have == v.value => Verdict::noop(),
            Some(have) => {
                Verdict::new(Action::Update, vec![change(&v.name, &have, &v.value)], None)
            }
            None => Verdict::new(Action::Create, vec![change(&v.name, "", &v.value)], None),
        }
    }
}

/// The words `VAR OWNER…` of the apply script's `rcvalue`.
pub(crate) fn owners(var: &str, owners: &[String]) -> Result<String, QuoteError> {
    let var = var.to_string();
    words(&std::iter::once(&var).chain(owners).collect::<Vec<_>>())
}

/// sysrc writes the variable where rc.conf's files already set it (else
/// /etc/rc.conf), and into each `rc.conf.d` file of its script that sets it
/// too; a variable a running host only sees once a script runs again gets
/// that script restarted.
pub(crate) fn set(v: &Rc) -> Result<String, QuoteError> {
    let assign = w(&format!("{}={}", v.name, v.value))?;
    let mut change = vec![format!("sysrc {assign} >/dev/null")];
    for owner in &v.owners {
        for dir in ["/etc/rc.conf.d", "/usr/local/etc/rc.conf.d"] {
            let file = w(&format!("{dir}/{owner}"))?;
            change.push(format!(
                "{{ ! rcdefines {file} {name} || sysrc -f {file} {assign} >/dev/null; }}",
                name = w(&v.name)?
            ));
        }
    }
    if let Some(script) = v.restart {
        change.push(format!("service {} restart", w(script)?));
    }
    Ok(change.join(" && "))
}

/// An rc.conf variable as rc(8) sees it when it runs the scripts `owners`:
/// the defaults and rc.conf's files, then each owner's `rc.conf.d` file in
/// /etc, then in /usr/local/etc (rc.subr's `load_rc_config`). `None` when
/// nothing sets it. The apply script's `rcvalue` computes the same on the
/// host.
pub(crate) fn value(s: &State, var: &str, owners: &[String]) -> Option<String> {
    let mut value = s.rc_conf.get(var).cloned();
    for owner in owners {
        for dir in ["/etc/rc.conf.d", "/usr/local/etc/rc.conf.d"] {
            if let Some(v) = s
                .rc_conf_d
                .get(&format!("{dir}/{owner}"))
                .and_then(|vars| vars.get(var))
            {
                value = Some(v.clone());
            }
        }
    }
    value
}

#[cfg(test)]
mod tests {
    #[test]
    fn restart_rows_name_base_scripts() {
        for (_, script) in super::RESTART {
            assert!(crate::freebsd::rcd::exists(script), "{script}");
        }
    }
}
