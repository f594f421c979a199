//! The desired state of one host: what its install sets up and what apply
//! converges to, computed once from the compiled host.
//!
//! Entry point: [`build`] validates what an install and an apply need (the
//! release, base accounts, how apply gets in) and lays out the host's
//! [`Resource`]s in the registry's order ([`crate::resource::KINDS`]), with
//! what the installer itself needs (disks, network). `install` renders it
//! into the setup script of an installerconfig, `apply` into checked,
//! idempotent steps; neither derives a fact of its own.

pub(crate) mod access;
pub(crate) mod doas;
pub(crate) mod jails;
pub(crate) mod require;
pub(crate) mod sudoers;
pub(crate) mod unit;

use serde::Serialize;

use crate::compile::Compiled;
use crate::diag::Diags;
use crate::freebsd::release::Release;
use crate::resource::{self, Input, Record, Resource, text};
use crate::schema::{Install, Ipv4};

pub use access::{Become, Login};

/// What a host should be: its whole desired state.
#[derive(Debug, Serialize)]
pub struct DesiredState {
    pub fqdn: String,
    /// The release (`freebsd.version`), when given.
    pub version: Option<String>,
    #[serde(skip)]
    pub release: Option<&'static Release>,
    /// How apply reaches the host.
    pub login: Login,
    pub install: Install,
    /// The install's boot pool: whole disks, in order.
    pub disks: Vec<String>,
    pub raid: Option<&'static str>,
    pub pool: String,
    pub swap: String,
    /// `BSDINSTALL_DISTSITE`.
    pub dist_site: Option<String>,
    /// The interfaces the installer brings up for the setup script.
    pub links: Vec<Link>,
    pub defaultrouter: Option<String>,
    pub nameservers: Vec<String>,
    /// Everything the install sets up and apply manages, in order.
    pub resources: Vec<Resource>,
}

/// An interface the installer configures.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Link {
    Dhcp { interface: String },
    Static { interface: String, cidr: String },
}

/// Validates what installing and applying the host need, and lays out its
/// desired state. Every refusal is an error at the YAML it concerns.
pub fn build(fqdn: &str, c: &Compiled) -> Result<DesiredState, Diags> {
    build_with(fqdn, c, &[])
}

/// [`build`] of a host with its jails (issue 36): the host's kinds lay out
/// the rows that make and run them from `jails` ([`Input::jails`]).
pub(crate) fn build_with(
    fqdn: &str,
    c: &Compiled,
    jails: &[resource::Jailed<'_>],
) -> Result<DesiredState, Diags> {
    let login = access::login(&c.config, fqdn)?;
    let mut errors = require::release(c);
    errors.extend(require::accounts(c));
    errors.extend(require::shells(c));
    errors.extend(require::cron(c));
    errors.extend(require::loader_d(c));
    errors.extend(require::jail_base(c));
    errors.extend(require::jail_golden(fqdn, c, jails));
    // A jail is reached through its host's connection, not by SSH.
    if c.parent.is_none() {
        errors.extend(access::check(&login, c));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(layout(fqdn, c, login, jails))
}

impl DesiredState {
    /// Every item the host's resources record, in order.
    pub fn records(&self) -> Vec<Record> {
        self.resources.iter().flat_map(Resource::records).collect()
    }
}

/// Whether the host's config has a `freebsd` section at all: hosts without
/// one are data only, and nothing is installed or applied to them.
pub(crate) fn managed(c: &Compiled) -> bool {
    c.config.get("freebsd").is_some()
}

fn layout(fqdn: &str, c: &Compiled, login: Login, jails: &[resource::Jailed<'_>]) -> DesiredState {
    let f = &c.freebsd;
    let network = f.network.clone().unwrap_or_default();
    let links = network
        .interfaces
        .iter()
        .filter_map(|i| match i.ipv4.as_ref().map(|l| &l.value) {
            Some(Ipv4::Dhcp) => Some(Link::Dhcp {
                interface: i.name.value.clone(),
            }),
            Some(Ipv4::Static(cidr)) => Some(Link::Static {
                interface: i.name.value.clone(),
                cidr: cidr.clone(),
            }),
            None => None,
        })
        .collect();
    DesiredState {
        fqdn: fqdn.to_string(),
        version: text(&f.version),
        release: f
            .version
            .as_ref()
            .and_then(|v| crate::freebsd::release::find(&v.value)),
        login,
        install: f.install.as_ref().map_or(Install::Dists, |i| i.value),
        disks: f.disks.iter().map(|d| d.value.clone()).collect(),
        raid: f.raid.as_ref().map(|r| r.value.name()),
        pool: text(&f.pool).unwrap_or(DEFAULT_POOL.into()),
        swap: text(&f.swap).unwrap_or(DEFAULT_SWAP.into()),
        dist_site: text(&f.dist_site),
        links,
        defaultrouter: network.defaultrouter.as_ref().map(|g| g.value.clone()),
        nameservers: network
            .nameservers
            .iter()
            .map(|n| n.value.clone())
            .collect(),
        resources: resource::layout(&Input {
            fqdn,
            compiled: c,
            jails: &resource::jail::start_order(jails),
        }),
    }
}

/// zfsboot's defaults (`usr.sbin/bsdinstall/scripts/zfsboot` 00a35910:
/// `ZFSBOOT_POOL_NAME`, `ZFSBOOT_SWAP_SIZE`).
pub(crate) const DEFAULT_POOL: &str = crate::freebsd::zfs::DEFAULT_BOOT_POOL;
pub(crate) const DEFAULT_SWAP: &str = "2g";

#[cfg(test)]
mod tests;
