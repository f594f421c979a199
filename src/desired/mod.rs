//! The desired state of one host: what its install sets up and what apply
//! converges to, computed once from the compiled host.
//!
//! Entry point: [`build`] validates what an install and an apply need (the
//! release, base accounts, how apply gets in) and lays out the host's
//! [`Resource`]s in the order both renderers use. `plan` renders them into
//! the setup script of an installerconfig, `apply` into checked, idempotent
//! steps; neither derives a fact of its own.

pub(crate) mod access;
pub(crate) mod require;
pub(crate) mod sshd;
pub(crate) mod system;
pub(crate) mod zfs;

use serde::Serialize;

use crate::compile::Compiled;
use crate::diag::Diags;
use crate::freebsd::release::Release;
use crate::freebsd::{base, rcd};
use crate::schema::{Install, Ipv4, Ipv6, UserState};

pub use access::{Become, Login};
pub use system::CronEntry;
pub use zfs::{Dataset, Pool, Prop};

/// The sudoers drop-in beryl owns. A name with a dot is ignored by sudo's
/// `@includedir`, so it has none.
pub(crate) const SUDOERS: &str = "/usr/local/etc/sudoers.d/beryl";
/// Where name servers survive resolvconf(8), which rewrites
/// `/etc/resolv.conf` whenever dhclient or rtsold run.
pub(crate) const RESOLVCONF_CONF: &str = "/etc/resolvconf.conf";
/// The resolver file, written only where nothing rewrites it.
pub(crate) const RESOLV_CONF: &str = "/etc/resolv.conf";
/// sshd's configuration.
pub(crate) const SSHD_CONFIG: &str = "/etc/ssh/sshd_config";
/// visudo, by its full path: a package installs it under /usr/local/sbin,
/// which is on no boot-time PATH.
pub(crate) const VISUDO: &str = "/usr/local/sbin/visudo";
/// The host's record of what beryl created there (docs/apply.md, pruning):
/// one `KIND ID` line per item, written by the install and by apply.
pub(crate) const RECORD: &str = "/var/db/beryl/managed";

/// An item beryl creates on a host and may remove once it has left the
/// config: a line `KIND ID` of [`RECORD`]. Only what beryl created is
/// recorded, so nothing else is ever removed.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Record {
    /// `pkg`, `file`, … (a row of `apply::prune::KINDS`).
    pub kind: &'static str,
    /// The package pattern, the path, …: no newline.
    pub id: String,
}

impl Record {
    pub(crate) fn new(kind: &'static str, id: impl Into<String>) -> Record {
        Record {
            kind,
            id: id.into(),
        }
    }

    /// The record's line, without its newline.
    pub fn line(&self) -> String {
        format!("{} {}", self.kind, self.id)
    }
}

/// What a host should be.
#[derive(Debug, Serialize)]
pub struct Host {
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

/// One thing the host has, as both renderers see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Resource {
    /// Installed packages, by name or origin, in order.
    Packages { packages: Vec<String> },
    /// A group the users need that the base system lacks.
    Group { name: String },
    /// A user account.
    User(Account),
    /// A user that must not exist.
    Absent { name: String },
    /// root's password: `None` locked (`*`), else this crypt(3) hash.
    RootPassword { hash: Option<String> },
    /// A user's authorized_keys, under the home the account really has.
    Keys {
        user: String,
        group: String,
        keys: Vec<String>,
    },
    /// A whole file.
    File(File),
    /// sshd settings, first in sshd_config's global section.
    Sshd { settings: Vec<(String, String)> },
    /// An rc.conf variable, as rc(8) must see it.
    Rc(RcVar),
    /// The time zone.
    Timezone { zone: String },
    /// An rc.d service, enabled and started or disabled and stopped.
    Service(Service),
    /// A data pool: created by the install, only checked by apply.
    Zpool(Pool),
    /// A dataset with the properties beryl sets, or one to destroy.
    #[serde(rename = "zfs")]
    Dataset(Dataset),
    /// Last in the install: the data pools' file systems unmounted, so that
    /// the installer can export the boot pool they are mounted in.
    ZfsUnmount { pools: Vec<String> },
    /// A sysctl: its line in /etc/sysctl.conf, and its live value (apply).
    Sysctl { name: String, value: String },
    /// A /boot/loader.conf variable; read at the next boot.
    Loader { name: String, value: String },
    /// A cron entry, one file of the release's drop-in directory.
    Cron(CronEntry),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Account {
    pub name: String,
    pub uid: Option<u32>,
    pub shell: Option<String>,
    pub comment: Option<String>,
    pub primary_group: Option<String>,
    /// Supplementary groups, in the order given (pw sets them as a set).
    pub groups: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct File {
    pub path: String,
    pub content: String,
    /// Octal, without a leading zero (`440`).
    pub mode: String,
    pub owner: String,
    pub group: String,
    /// A command that must accept the new content before it is installed:
    /// its words, the staged file in place of the `%s` word.
    pub validate: Option<Vec<String>>,
    /// Services to reload or restart once per run after the file changed.
    pub notify: Vec<Notify>,
    /// Listed in `freebsd.files`: recorded when apply creates it, and
    /// removed once it leaves the config. The files beryl writes from
    /// other fields (sudoers, resolver) are not.
    pub listed: bool,
}

/// A service to act on after a change (`freebsd.files.*.notify`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Notify {
    /// The rc.d script name.
    pub service: String,
    /// `reload` or `restart`.
    pub action: String,
}

/// An rc.d service (`freebsd.services`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Service {
    /// The script's file name: `service NAME …`.
    pub name: String,
    /// The variable that enables it (`nginx_enable`, `firewall_enable`).
    pub rcvar: String,
    /// The `rc.conf.d` names whose file can override the variable.
    pub owners: Vec<String>,
    /// Enabled and running (true), or disabled and stopped.
    pub enable: bool,
}

impl File {
    /// The directory the file is in (`/usr/local/etc/sudoers.d` for the
    /// sudoers drop-in; `/` for a file at the root).
    pub(crate) fn dir(&self) -> &str {
        dirname(&self.path)
    }

    /// The staged copy the validator checks, beside the file.
    pub(crate) fn staged(&self) -> String {
        format!("{}.beryl-tmp", self.path)
    }

    /// The validate command's words, the staged file in place of `%s`.
    pub(crate) fn validate_words(&self) -> Option<Vec<String>> {
        let staged = self.staged();
        self.validate.as_ref().map(|words| {
            words
                .iter()
                .map(|w| if w == "%s" { staged.clone() } else { w.clone() })
                .collect()
        })
    }
}

/// The directory of an absolute path (`/a/b/c` → `/a/b`, `/c` → `/`).
pub(crate) fn dirname(path: &str) -> &str {
    match path.rsplit_once('/') {
        Some(("", _)) | None => "/",
        Some((dir, _)) => dir,
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RcVar {
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

impl Resource {
    /// The kind's name, as serialized (`packages`, `user`, `rc`…): the
    /// install renders a resource with `templates/steps/KIND.sh.j2`.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Resource::Packages { .. } => "packages",
            Resource::Group { .. } => "group",
            Resource::User(_) => "user",
            Resource::Absent { .. } => "absent",
            Resource::RootPassword { .. } => "root_password",
            Resource::Keys { .. } => "keys",
            Resource::File(_) => "file",
            Resource::Sshd { .. } => "sshd",
            Resource::Rc(_) => "rc",
            Resource::Timezone { .. } => "timezone",
            Resource::Service(_) => "service",
            Resource::Zpool(_) => "zpool",
            Resource::Dataset(_) => "zfs",
            Resource::ZfsUnmount { .. } => "zfs_unmount",
            Resource::Sysctl { .. } => "sysctl",
            Resource::Loader { .. } => "loader",
            Resource::Cron(_) => "cron",
        }
    }

    /// The items of this resource that beryl records when it creates them
    /// (see [`Record`]), in order.
    pub(crate) fn records(&self) -> Vec<Record> {
        match self {
            Resource::Packages { packages } => {
                packages.iter().map(|p| Record::new("pkg", p)).collect()
            }
            // The files of `freebsd.files`, not those beryl writes from
            // other fields.
            Resource::File(f) if f.listed => vec![Record::new("file", f.path.clone())],
            Resource::Dataset(d) if !d.destroy => vec![Record::new("zfs", d.name.clone())],
            Resource::Sysctl { name, .. } => vec![Record::new("sysctl", name)],
            Resource::Loader { name, .. } => vec![Record::new("loader", name)],
            Resource::Cron(e) => vec![Record::new("cron", &e.name)],
            _ => Vec::new(),
        }
    }

    /// A stable id: `pkg`, `group:NAME`, `user:NAME`, `root`, `keys:USER`,
    /// `file:PATH`, `sshd`, `rc:NAME`, `tz`, `zpool:NAME`, `zfs:DATASET`,
    /// `zfs_unmount`, `service:NAME`, `sysctl:NAME`, `loader:NAME`, `cron:NAME`.
    pub(crate) fn id(&self) -> String {
        match self {
            Resource::Packages { .. } => "packages".into(),
            Resource::Group { name } => format!("group:{name}"),
            Resource::User(a) => format!("user:{}", a.name),
            Resource::Absent { name } => format!("user:{name}"),
            Resource::RootPassword { .. } => "root".into(),
            Resource::Keys { user, .. } => format!("keys:{user}"),
            Resource::File(f) => format!("file:{}", f.path),
            Resource::Sshd { .. } => "sshd".into(),
            Resource::Rc(v) => format!("rc:{}", v.name),
            Resource::Timezone { .. } => "tz".into(),
            Resource::Service(s) => format!("service:{}", s.name),
            Resource::Zpool(p) => format!("zpool:{}", p.name),
            Resource::Dataset(d) => format!("zfs:{}", d.name),
            Resource::ZfsUnmount { .. } => "zfs_unmount".into(),
            Resource::Sysctl { name, .. } => format!("sysctl:{name}"),
            Resource::Loader { name, .. } => format!("loader:{name}"),
            Resource::Cron(e) => format!("cron:{}", e.name),
        }
    }
}

/// Validates what installing and applying the host need, and lays out its
/// desired state. Every refusal is an error at the YAML it concerns.
pub fn build(fqdn: &str, c: &Compiled) -> Result<Host, Diags> {
    let login = access::login(&c.config, fqdn)?;
    let mut errors = require::release(c);
    errors.extend(require::accounts(c));
    errors.extend(require::shells(c));
    errors.extend(require::cron(c));
    errors.extend(access::check(&login, c));
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(layout(fqdn, c, login))
}

impl Host {
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

fn layout(fqdn: &str, c: &Compiled, login: Login) -> Host {
    let f = &c.freebsd;
    let text = |l: &Option<crate::schema::Located<String>>| l.as_ref().map(|v| v.value.clone());
    let network = f.network.clone().unwrap_or_default();
    let mut links = Vec::new();
    let mut rc = vec![(
        "hostname".to_string(),
        text(&f.hostname).unwrap_or(fqdn.into()),
    )];
    let mut dynamic = false;
    let mut slaac = false;
    for i in &network.interfaces {
        let name = &i.name.value;
        match i.ipv4.as_ref().map(|l| &l.value) {
            Some(Ipv4::Dhcp) => {
                dynamic = true;
                links.push(Link::Dhcp {
                    interface: name.clone(),
                });
                rc.push((format!("ifconfig_{name}"), "DHCP".into()));
            }
            Some(Ipv4::Static(cidr)) => {
                links.push(Link::Static {
                    interface: name.clone(),
                    cidr: cidr.clone(),
                });
                rc.push((format!("ifconfig_{name}"), format!("inet {cidr}")));
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
    rc.push(("sshd_enable".into(), "YES".into()));
    if !f.disks.is_empty() {
        rc.push(("zfs_enable".into(), "YES".into()));
    }
    let nameservers: Vec<String> = network
        .nameservers
        .iter()
        .map(|n| n.value.clone())
        .collect();

    let mut resources = zfs::resources(f, text(&f.pool).as_deref().unwrap_or(DEFAULT_POOL));
    let packages: Vec<String> = f.packages.iter().map(|p| p.value.clone()).collect();
    if !packages.is_empty() {
        resources.push(Resource::Packages { packages });
    }
    let present: Vec<_> = f
        .users
        .iter()
        .filter(|u| u.state == UserState::Present)
        .collect();
    for name in needed_groups(&present) {
        resources.push(Resource::Group { name });
    }
    for u in &f.users {
        let name = u.name.value.clone();
        if u.state == UserState::Absent {
            resources.push(Resource::Absent { name });
            continue;
        }
        resources.push(Resource::User(Account {
            name,
            uid: u.uid.as_ref().map(|l| l.value),
            shell: text(&u.shell),
            comment: text(&u.comment),
            primary_group: text(&u.primary_group),
            groups: u.groups.iter().map(|g| g.value.clone()).collect(),
        }));
    }
    resources.push(Resource::RootPassword {
        hash: text(&f.root_password),
    });
    for u in &present {
        let name = &u.name.value;
        let keys: Vec<String> = c
            .users
            .iter()
            .find(|k| &k.name == name)
            .map(|k| k.keys.iter().map(|key| key.line()).collect())
            .unwrap_or_default();
        if keys.is_empty() {
            continue;
        }
        resources.push(Resource::Keys {
            user: name.clone(),
            group: text(&u.primary_group).unwrap_or(name.clone()),
            keys,
        });
    }
    if !f.sudoers.is_empty() {
        resources.push(Resource::File(File {
            path: SUDOERS.into(),
            content: lines(f.sudoers.iter().map(|l| l.value.as_str())),
            mode: "440".into(),
            owner: "root".into(),
            group: "wheel".into(),
            validate: Some(vec![VISUDO.into(), "-cf".into(), "%s".into()]),
            notify: Vec::new(),
            listed: false,
        }));
    }
    if !nameservers.is_empty() {
        resources.push(Resource::File(File {
            path: RESOLVCONF_CONF.into(),
            content: format!(
                "# Written by beryl: resolvconf(8) puts these first in {RESOLV_CONF}.\nname_servers=\"{}\"\n",
                nameservers.join(" ")
            ),
            mode: "644".into(),
            owner: "root".into(),
            group: "wheel".into(),
            validate: None,
            notify: Vec::new(),
            listed: false,
        }));
        if !dynamic && !slaac {
            resources.push(Resource::File(File {
                path: RESOLV_CONF.into(),
                content: lines(nameservers.iter().map(|n| format!("nameserver {n}"))),
                mode: "644".into(),
                owner: "root".into(),
                group: "wheel".into(),
                validate: None,
                notify: Vec::new(),
                listed: false,
            }));
        }
    }
    let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
    resources.push(Resource::Sshd {
        settings: vec![
            (
                "PermitRootLogin".into(),
                f.sshd.permit_root_login.value.clone(),
            ),
            (
                "PasswordAuthentication".into(),
                yes_no(f.sshd.password_authentication.value),
            ),
            (
                "KbdInteractiveAuthentication".into(),
                yes_no(f.sshd.kbd_interactive_authentication.value),
            ),
        ],
    });
    for (name, value) in rc {
        resources.push(Resource::Rc(RcVar {
            owners: rcd::owners(&name),
            restart: RESTART.iter().find(|(v, _)| *v == name).map(|(_, s)| *s),
            name,
            value,
        }));
    }
    if let Some(zone) = text(&f.timezone) {
        resources.push(Resource::Timezone { zone });
    }
    resources.extend(system::resources(c));
    // After the packages and accounts they need; files before the services
    // that read them.
    resources.extend(f.files.iter().map(|m| Resource::File(listed_file(m))));
    resources.extend(f.services.iter().filter_map(|s| {
        let script = rcd::service(&s.name.value).ok()?;
        Some(Resource::Service(Service {
            owners: vec![script.name],
            name: script.script,
            rcvar: script.rcvar,
            enable: s.enable.value,
        }))
    }));
    if !f.zfs.pools.is_empty() {
        resources.push(Resource::ZfsUnmount {
            pools: f.zfs.pools.iter().map(|p| p.name.value.clone()).collect(),
        });
    }
    Host {
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
        nameservers,
        resources,
    }
}

/// A file of `freebsd.files`, with its defaults: mode 644, root:wheel.
fn listed_file(m: &crate::schema::ManagedFile) -> File {
    let text = |l: &Option<crate::schema::Located<String>>, default: &str| {
        l.as_ref().map_or(default.to_string(), |v| v.value.clone())
    };
    File {
        path: m.path.value.clone(),
        content: m.content.clone().unwrap_or_default(),
        mode: text(&m.mode, "644"),
        owner: text(&m.owner, "root"),
        group: text(&m.group, "wheel"),
        validate: m.validate.as_ref().map(|v| v.value.clone()),
        notify: m
            .notify
            .iter()
            .map(|n| Notify {
                service: n.service.value.clone(),
                action: n.action.value.clone(),
            })
            .collect(),
        listed: true,
    }
}

/// zfsboot's defaults (`usr.sbin/bsdinstall/scripts/zfsboot` 00a35910:
/// `ZFSBOOT_POOL_NAME`, `ZFSBOOT_SWAP_SIZE`).
pub(crate) const DEFAULT_POOL: &str = crate::freebsd::zfs::DEFAULT_BOOT_POOL;
pub(crate) const DEFAULT_SWAP: &str = "2g";

/// Lines, each ended by a newline.
fn lines<S: AsRef<str>>(items: impl Iterator<Item = S>) -> String {
    items.map(|l| format!("{}\n", l.as_ref())).collect()
}

/// The groups the users need (primary and supplementary) that the base
/// system lacks, in first-mention order.
pub(crate) fn needed_groups(users: &[&crate::schema::User]) -> Vec<String> {
    let mut groups: Vec<String> = Vec::new();
    for u in users {
        for g in u.primary_group.iter().chain(&u.groups) {
            if !base::is_group(&g.value) && !groups.contains(&g.value) {
                groups.push(g.value.clone());
            }
        }
    }
    groups
}

#[cfg(test)]
mod tests;
