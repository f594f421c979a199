//! The install: a host's desired state rendered into a bsdinstall
//! `installerconfig` (a preamble of variables and commands, then a setup
//! script), which `beryl plan` prints.
//!
//! Entry points: [`build`] checks what an unattended install needs beyond
//! the desired state ([`crate::desired`]) and lays the installerconfig out
//! as data ([`InstallerConfig`]); [`render`] turns it into shell through the
//! templates, whose every interpolated value is quoted by [`crate::shell`].
//! The JSON form and the script are two views of the same data; templates
//! see it as `plan`, the name they have always used. "Plan" otherwise means
//! apply's saved plan (`crate::apply::saved`).

pub mod render;
mod shellctx;

use serde::Serialize;

use crate::compile::Compiled;
use crate::desired::{self, DesiredState, Link};
use crate::diag::{Diag, Diags};
use crate::resource::{self, Resource, sshd};
use crate::schema::Install;

crate::diag::codes! {
    /// The codes of install plans.
    pub(crate) enum Code in "plan" {
        /// A `freebsd` field an install needs is not set.
        Required = "required";
        /// Packages or distribution sets fetched during the install, on a host without a DHCP or static IPv4 interface.
        Network = "network";
        /// `--templates DIR` is not a directory.
        Templates = "templates";
        /// A template that fails to render.
        Template = "template";
        /// The plan cannot be written as JSON.
        Json = "json";
        /// `plan` for a host that beryl never installs (`freebsd.install: none`).
        NotInstalled = "not_installed";
        /// `plan` of several hosts left out one that beryl never installs (`freebsd.install: none`).
        Skipped = "skipped", warning;
    }
}

/// The installerconfig of one host, as data.
#[derive(Debug, Serialize)]
pub struct InstallerConfig {
    pub format_version: u32,
    pub host: String,
    pub install: &'static str,
    pub version: String,
    /// What the install media must hold, or where the sets come from.
    pub media: String,
    /// Whether missing distribution sets are fetched (`BSDINSTALL_DISTSITE`).
    pub fetch_sets: bool,
    /// Exported before partitioning, in order.
    pub preamble: Vec<Var>,
    /// The disks whose old labels and partition tables the preamble clears.
    pub disks: Vec<String>,
    /// Whether the installer brings the network up (for packages or sets).
    pub network: bool,
    pub links: Vec<Link>,
    pub defaultrouter: Option<String>,
    pub nameservers: Vec<String>,
    /// The PATH the setup script sets for itself.
    pub path: &'static str,
    /// The awk program and keywords of the sshd_config edit.
    pub sshd_awk: &'static str,
    /// The setup script's steps, in order.
    pub steps: Vec<Step>,
    /// Where the setup script records what it created (`resource::RECORD`).
    pub record: &'static str,
    /// The record's lines (`KIND ID`, sorted): everything the install
    /// creates that apply may prune once it leaves the config.
    pub records: Vec<String>,
    /// The final line the script prints.
    pub summary: String,
}

#[derive(Debug, Serialize)]
pub struct Var {
    pub name: &'static str,
    pub value: String,
}

/// One step of the setup script: a resource of the desired state, rendered
/// by `templates/steps/KIND.sh.j2`.
#[derive(Debug, Serialize)]
pub struct Step {
    pub id: String,
    #[serde(flatten)]
    pub resource: Resource,
    /// For sshd steps: the keywords the awk program drops.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub awk_keys: Option<String>,
    /// For sshd steps: beryl's global block, printed before the host's lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<Vec<String>>,
    /// For sshd steps: beryl's Match section (empty: none), printed after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tail: Option<Vec<String>>,
}

/// The installer's log: the `bsdinstall` wrapper's default `debugFile`
/// (usr.sbin/bsdinstall/bsdinstall 023fc80e), kept by naming it.
pub(crate) const BSDINSTALL_LOG: &str = "/tmp/bsdinstall_log";

/// The distribution sets a dists install extracts.
pub(crate) const DISTRIBUTIONS: &str = "kernel.txz base.txz";

/// Checks that the host can be installed unattended and lays out its
/// installerconfig.
/// Every failed requirement is an error at the YAML it concerns.
pub fn build(fqdn: &str, c: &Compiled) -> Result<InstallerConfig, Diags> {
    if let Some(i) = &c.freebsd.install
        && !i.value.by_beryl()
    {
        return Err(vec![
            Diag::new(
                Code::NotInstalled,
                format!("{fqdn} is not installed by beryl: it has no install plan"),
            )
            .label(&i.span, "a running host that beryl adopted")
            .help("apply manages it (beryl apply HOST); to install it, set freebsd.install: dists or pkgbase, with its disks, raid, version and network"),
        ]);
    }
    if let Some(parent) = &c.parent {
        return Err(vec![
            Diag::new(
                Code::NotInstalled,
                format!("{fqdn} is a jail of {parent}: it has no install plan"),
            )
            .help(format!(
                "a jail's root is laid down on its host; plan the host: beryl plan {parent}"
            )),
        ]);
    }
    let mut errors = requirements(c);
    let host = match desired::build(fqdn, c) {
        Ok(h) => Some(h),
        Err(e) => {
            errors.extend(e);
            None
        }
    };
    match host {
        Some(h) if errors.is_empty() => Ok(layout(h)),
        _ => Err(errors),
    }
}

/// What an install needs that apply does not; nothing for a host beryl
/// never installs (`freebsd.install: none`). `check` runs it too
/// ([`crate::validate`]).
pub(crate) fn requirements(c: &Compiled) -> Vec<Diag> {
    let f = &c.freebsd;
    let mut errors = Vec::new();
    // Neither an adopted host nor a jail (its root is laid down on its
    // host) is installed.
    if f.adopted() || c.parent.is_some() {
        return errors;
    }
    let missing = |what: &str, help: &str| {
        Diag::new(Code::Required, format!("an install needs `freebsd.{what}`"))
            .label(&f.span, format!("no `{what}` here"))
            .help(help.to_string())
    };
    if f.disks.is_empty() {
        errors.push(missing(
            "disks",
            "list the whole disks of the boot pool: disks: [ada0, ada1]",
        ));
    }
    if f.raid.is_none() {
        errors.push(missing(
            "raid",
            "choose the layout: stripe, mirror, raid10, raidz1, raidz2 or raidz3",
        ));
    }
    if f.timezone.is_none() {
        errors.push(missing(
            "timezone",
            "set an IANA zone, such as timezone: UTC",
        ));
    }
    if f.version.is_none() {
        errors.push(missing(
            "version",
            "name the release the media installs, such as version: \"15.0\"",
        ));
    }
    let has_interface = f
        .network
        .as_ref()
        .is_some_and(|n| n.interfaces.iter().any(|i| i.ipv4.is_some()));
    if !has_interface {
        let needs = f
            .packages
            .first()
            .map(|p| (&p.span, "packages are installed during the install"))
            .or(f.dist_site.as_ref().map(|d| {
                (
                    &d.span,
                    "the distribution sets are fetched during the install",
                )
            }));
        if let Some((span, why)) = needs {
            errors.push(
                Diag::new(
                    Code::Network,
                    format!("{why}, which needs the network"),
                )
                .label(span, "this needs the network")
                .help(
                    "name the interface to bring up: network: {interfaces: {vtnet0: {ipv4: dhcp}}}",
                ),
            );
        }
    }
    errors
}

/// The `ZFSBOOT_DATASETS` of a host with datasets of its own in the boot
/// pool (see [`crate::freebsd::zfs::zfsboot_datasets`]), or `None`.
/// zfsboot runs `zfs create` without `-p`: a missing parent gets a line of
/// its own, with no option, as `zfs create -p` would make it.
fn boot_datasets(pool: &str, resources: &[Resource]) -> Option<String> {
    let own: Vec<&resource::zfs::Zfs> = resources
        .iter()
        .filter_map(|r| match r {
            Resource::Zfs(z) if z.boot => Some(z),
            _ => None,
        })
        .collect();
    if own.is_empty() {
        return None;
    }
    let mut lines: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for z in own {
        let rel = &z.name[pool.len() + 1..];
        let cuts = rel.match_indices('/').map(|(i, _)| &rel[..i]);
        for parent in cuts {
            let made = crate::freebsd::zfs::zfsboot(parent).is_some()
                || lines.iter().any(|(n, _)| n == parent)
                || resources.iter().any(|r| {
                    matches!(r, Resource::Zfs(o) if o.boot && o.name[pool.len() + 1..] == *parent)
                });
            if !made {
                lines.push((parent.to_string(), Vec::new()));
            }
        }
        let props = z
            .props
            .iter()
            .map(|p| (p.name.clone(), p.value.clone()))
            .collect();
        lines.push((rel.to_string(), props));
    }
    lines.sort_by(|a, b| a.0.split('/').cmp(b.0.split('/')));
    Some(crate::freebsd::zfs::zfsboot_datasets(&lines))
}

/// The installerconfig itself, once the requirements hold.
pub(crate) fn layout(h: DesiredState) -> InstallerConfig {
    let mut preamble = vec![
        // `script` empties its log after the preamble unless BSDINSTALL_LOG
        // names it (scripts/script 731704f5, after sourcing the preamble):
        // the verbs' errors would then go nowhere, no log would reach the
        // new system, and a failing install would stop inside its error
        // handler before exporting the pool. The bsdinstall wrapper's log.
        var("BSDINSTALL_LOG", BSDINSTALL_LOG),
        var("nonInteractive", "YES"),
        var("ZFSBOOT_DISKS", &h.disks.join(" ")),
        var("ZFSBOOT_VDEV_TYPE", h.raid.unwrap_or("stripe")),
        var("ZFSBOOT_POOL_NAME", &h.pool),
        var("ZFSBOOT_SWAP_SIZE", &h.swap),
        // zfsboot tests booleans for non-empty: 1 is on, empty is off.
        var("ZFSBOOT_FORCE_4K_SECTORS", "1"),
    ];
    match h.install {
        Install::Dists => preamble.push(var("DISTRIBUTIONS", DISTRIBUTIONS)),
        // Refused by `desired::build` on every release beryl knows.
        Install::Pkgbase => preamble.push(var(
            "BSDINSTALL_PKG_REPOS_DIR",
            "/usr/freebsd-packages/repos",
        )),
        // Refused by `build`: no plan is laid out.
        Install::None => {}
    }
    if let Some(list) = boot_datasets(&h.pool, &h.resources) {
        preamble.push(var("ZFSBOOT_DATASETS", &list));
    }
    let media = match &h.dist_site {
        Some(site) => {
            preamble.push(var("BSDINSTALL_DISTSITE", site));
            format!(
                "any FreeBSD {} installer; the sets missing from it are fetched from {site}",
                h.version.as_deref().unwrap_or("?")
            )
        }
        None => format!(
            "FreeBSD {} install media that hold the distribution sets ({DISTRIBUTIONS} in /usr/freebsd-dist): the DVD image; set freebsd.dist_site to install from any other",
            h.version.as_deref().unwrap_or("?")
        ),
    };
    let packages = h
        .resources
        .iter()
        .find_map(|r| match r {
            Resource::Packages(p) => Some(p.packages.len()),
            _ => None,
        })
        .unwrap_or(0);
    let users = h
        .resources
        .iter()
        .filter(|r| matches!(r, Resource::User(resource::user::User::Present(_))))
        .count();
    let network = packages > 0 || h.dist_site.is_some();
    // The data pools' disks are cleared like the boot pool's: the install
    // makes new pools of them.
    let mut disks = h.disks.clone();
    for r in &h.resources {
        if let Resource::Zpool(p) = r {
            disks.extend(p.disks.iter().cloned());
        }
    }
    let mut records: Vec<String> = h
        .resources
        .iter()
        .flat_map(Resource::install_records)
        .map(|r| r.line())
        .collect();
    records.sort();
    records.dedup();
    let steps = h
        .resources
        .into_iter()
        .filter(Resource::installed)
        .map(|resource| Step {
            id: resource.id(),
            awk_keys: match &resource {
                Resource::Sshd(s) => Some(sshd::awk_keys(&s.settings)),
                _ => None,
            },
            head: match &resource {
                Resource::Sshd(s) => Some(sshd::head(&s.settings)),
                _ => None,
            },
            tail: match &resource {
                Resource::Sshd(s) => Some(sshd::match_section(&s.matches).unwrap_or_default()),
                _ => None,
            },
            resource,
        })
        .collect();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    InstallerConfig {
        format_version: 2,
        summary: format!(
            "beryl: {} installed: {}, {}",
            h.fqdn,
            plural(users, "user"),
            plural(packages, "package")
        ),
        host: h.fqdn,
        install: match h.install {
            Install::Dists => "dists",
            Install::Pkgbase => "pkgbase",
            Install::None => "none",
        },
        version: h.version.unwrap_or_default(),
        media,
        fetch_sets: h.dist_site.is_some(),
        preamble,
        disks,
        record: resource::RECORD,
        records,
        network,
        links: if network { h.links } else { Vec::new() },
        defaultrouter: h.defaultrouter.filter(|_| network),
        nameservers: h.nameservers,
        path: crate::freebsd::SCRIPT_PATH,
        sshd_awk: sshd::AWK,
        steps,
    }
}

impl InstallerConfig {
    /// The values its script needs that no report may show (root's hash),
    /// from its steps' kinds ([`crate::resource::Kind::secrets`]).
    pub(crate) fn secrets(&self) -> Vec<String> {
        self.steps
            .iter()
            .flat_map(|s| s.resource.wants())
            .flat_map(|w| w.secrets())
            .collect()
    }
}

fn var(name: &'static str, value: &str) -> Var {
    Var {
        name,
        value: value.to_string(),
    }
}

#[cfg(test)]
mod tests;
