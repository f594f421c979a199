//! The typed model of a validated `freebsd` mapping.
//!
//! Every value keeps the span where it was written ([`Located`]), so the
//! install and apply stages can point at a field when they refuse it.

use serde::{Serialize, Serializer};

use crate::value::{Node, Span};

pub(crate) use crate::freebsd::names::{Install, Ipv4, Ipv6, Raid, UserState};

/// A validated value with the place it was written. Serializes as the bare value.
#[derive(Debug, Clone)]
pub struct Located<T> {
    /// The validated value.
    pub value: T,
    /// Where it was written.
    pub span: Span,
}

impl<T> Located<T> {
    /// Pairs a value with its span.
    pub(crate) fn new(value: T, span: Span) -> Self {
        Self { value, span }
    }
}

impl<T: Serialize> Serialize for Located<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(s)
    }
}

/// The validated `freebsd` settings of one host. Absent fields are `None` or empty.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FreeBsd {
    /// Fully qualified host name (RFC 1123).
    pub hostname: Option<Located<String>>,
    /// IANA time zone name, as written (`Europe/Berlin`).
    pub timezone: Option<Located<String>>,
    /// ZFS layout of the boot pool.
    pub raid: Option<Located<Raid>>,
    /// Whole-disk device names (`ada0`), in the order given; no duplicates.
    pub disks: Vec<Located<String>>,
    /// ZFS pool name.
    pub pool: Option<Located<String>>,
    /// Swap size per disk, as written (`4g`, `0`); see [`super::names::swap`] for bytes.
    pub swap: Option<Located<String>>,
    /// Package names (`sudo`) or origins (`security/sudo`, `devel/py-foo@py311`).
    pub packages: Vec<Located<String>>,
    /// Lines of the sudoers drop-in, one line each.
    pub sudoers: Vec<Located<String>>,
    /// User accounts, in the order given.
    pub users: Vec<User>,
    /// How the base system is installed (`dists` when absent).
    pub install: Option<Located<Install>>,
    /// The FreeBSD release, `MAJOR.MINOR` (`15.0`).
    pub version: Option<Located<String>>,
    /// Where the installer fetches distribution sets missing from the
    /// media (`BSDINSTALL_DISTSITE`).
    pub dist_site: Option<Located<String>>,
    /// root's precrypted password; `None` locks root's password.
    pub root_password: Option<Located<String>>,
    /// Interfaces, routers and name servers; `None` when not set.
    pub network: Option<Network>,
    /// rc.conf variables applied with sysrc, in the order given.
    pub rc_conf: Vec<RcVar>,
    /// sshd settings; every field defaults to `no`.
    pub sshd: Sshd,
    /// Whole files keyed by absolute path, in the order given.
    pub files: Vec<ManagedFile>,
    /// rc.d services keyed by script name, in the order given.
    pub services: Vec<Service>,
    /// Data pools and datasets (`freebsd.zfs`); empty when not set.
    pub zfs: Zfs,
    /// sysctl MIB names and values, in the order given.
    pub sysctl: Vec<Tunable>,
    /// loader.conf variables, in the order given.
    pub loader: Vec<Tunable>,
    /// Cron entries, in the order given.
    pub cron: Vec<CronJob>,
    /// For a jail (issue 36), how its host makes and runs it; `None` for a
    /// host (a host's chain may not write `jail`).
    pub jail: Option<Jail>,
    /// Where the `freebsd` mapping was written (synthetic when it was absent).
    #[serde(skip)]
    pub span: Span,
    /// The warnings validation found (its errors fail it instead).
    #[serde(skip)]
    pub warnings: Vec<crate::diag::Diag>,
}

impl FreeBsd {
    /// Whether beryl never installs the host (`install: none`): a running
    /// host it adopted, which apply manages and plan refuses.
    pub fn adopted(&self) -> bool {
        self.install.as_ref().is_some_and(|i| !i.value.by_beryl())
    }
}

/// The `network` mapping.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Network {
    /// Interfaces by name (`vtnet0`, `em0`), in the order given.
    pub interfaces: Vec<Interface>,
    /// IPv4 default router (an address).
    pub defaultrouter: Option<Located<String>>,
    /// IPv6 default router (an address).
    pub ipv6_defaultrouter: Option<Located<String>>,
    /// Name servers (addresses), in the order given; no duplicates.
    pub nameservers: Vec<Located<String>>,
    /// Bridges (`cloned_interfaces`), that the host's VNET jails join.
    pub bridges: Vec<Bridge>,
    /// Where the `network` mapping was written.
    #[serde(skip)]
    pub span: Span,
}

/// One interface: how it gets its addresses.
#[derive(Debug, Clone, Serialize)]
pub struct Interface {
    /// The interface name (`vtnet0`): letters then digits, as FreeBSD names them.
    pub name: Located<String>,
    /// `ifconfig_IF`: DHCP or a static address; `None` leaves IPv4 unconfigured.
    pub ipv4: Option<Located<Ipv4>>,
    /// `ifconfig_IF_ipv6`: SLAAC or a static address; `None` leaves IPv6 unconfigured.
    pub ipv6: Option<Located<Ipv6>>,
}

/// One rc.conf variable: a validated name and a value safe inside rc.conf's
/// double quotes (no `"`, `\`, backquote, `$` or newline).
#[derive(Debug, Clone, Serialize)]
pub struct RcVar {
    /// The variable name (located at its key); not one that beryl sets itself.
    pub name: Located<String>,
    /// The value as text: a string as written, an integer in decimal, a
    /// boolean as `YES` or `NO`.
    pub value: Located<String>,
}

/// A sysctl (MIB name, value one word) or a loader.conf variable (a shell
/// name, value safe inside double quotes).
#[derive(Debug, Clone, Serialize)]
pub struct Tunable {
    /// The name, located at its key.
    pub name: Located<String>,
    /// The value as text (an integer in decimal; for loader.conf a boolean
    /// as `YES` or `NO`).
    pub value: Located<String>,
}

/// One cron entry, a file of the release's cron drop-in directory.
#[derive(Debug, Clone, Serialize)]
pub struct CronJob {
    /// The entry name (letters, digits, `_`, `-`), located at its key.
    pub name: Located<String>,
    /// Five time fields separated by one space, or an `@` word.
    pub schedule: Option<Located<String>>,
    /// The user the command runs as; root when `None`.
    pub user: Option<Located<String>>,
    /// The command line, `%` escaped.
    pub command: Option<Located<String>>,
    /// Where the entry's mapping was written.
    #[serde(skip)]
    pub span: Span,
}

impl CronJob {
    /// An entry with no fields set yet.
    pub(crate) fn blank(name: Located<String>, span: Span) -> Self {
        Self {
            name,
            schedule: None,
            user: None,
            command: None,
            span,
        }
    }
}

/// sshd settings, written at the top of sshd_config.
#[derive(Debug, Clone, Serialize)]
pub struct Sshd {
    /// `no`, `yes`, `prohibit-password` or `forced-commands-only`.
    pub permit_root_login: Located<String>,
    /// `PasswordAuthentication`.
    pub password_authentication: Located<bool>,
    /// `KbdInteractiveAuthentication` (PAM still takes passwords through it).
    pub kbd_interactive_authentication: Located<bool>,
    /// Any other keyword of the global section (`settings`), in the order
    /// given.
    pub settings: Vec<SshdSetting>,
    /// The `Match` blocks beryl writes at the end (`match`), in order.
    pub matches: Vec<SshdMatch>,
    /// Whether apply reloads sshd once the new file is in place (`reload`).
    pub reload: Located<bool>,
}

/// One sshd_config keyword and its lines.
#[derive(Debug, Clone, Serialize)]
pub struct SshdSetting {
    /// The keyword as written (sshd reads it in any case).
    pub keyword: Located<String>,
    /// One value per line: a list writes the keyword once per item.
    pub values: Vec<String>,
}

/// One `Match` block.
#[derive(Debug, Clone, Serialize)]
pub struct SshdMatch {
    /// What follows `Match`: criteria and their patterns.
    pub criteria: Located<String>,
    /// The settings of the block, each allowed inside `Match`.
    pub settings: Vec<SshdSetting>,
}

impl Default for Sshd {
    fn default() -> Self {
        Sshd {
            permit_root_login: Located::new("no".into(), Span::synthetic()),
            password_authentication: Located::new(false, Span::synthetic()),
            kbd_interactive_authentication: Located::new(false, Span::synthetic()),
            settings: Vec::new(),
            matches: Vec::new(),
            reload: Located::new(false, Span::synthetic()),
        }
    }
}

/// One validated user account.
#[derive(Debug, Clone, Serialize)]
pub struct User {
    /// Login name (FreeBSD `pw` rules).
    pub name: Located<String>,
    /// Numeric user id; `None` lets `pw` allocate one.
    pub uid: Option<Located<u32>>,
    /// GECOS comment (full name).
    pub comment: Option<Located<String>>,
    /// Absolute path of the login shell.
    pub shell: Option<Located<String>>,
    /// Primary group; `None` means a group named like the user.
    pub primary_group: Option<Located<String>>,
    /// Supplementary groups.
    pub groups: Vec<Located<String>>,
    /// SSH keys as written; resolved and checked by the keys stage.
    pub ssh_keys: Vec<Node>,
    /// Whether the account should exist.
    pub state: UserState,
    /// Where the user's mapping was written.
    #[serde(skip)]
    pub span: Span,
}

impl User {
    /// A user with no fields set yet (the name is filled in by validation).
    pub(crate) fn blank(span: Span) -> Self {
        Self {
            name: Located::new(String::new(), span.clone()),
            uid: None,
            comment: None,
            shell: None,
            primary_group: None,
            groups: Vec::new(),
            ssh_keys: Vec::new(),
            state: UserState::Present,
            span,
        }
    }
}

/// One file of `freebsd.files`.
#[derive(Debug, Clone, Serialize)]
pub struct ManagedFile {
    /// The absolute path on the host (located at its key).
    pub path: Located<String>,
    /// Where the content comes from.
    pub source: Option<FileSource>,
    /// Octal mode without a leading zero; 644 when absent.
    pub mode: Option<Located<String>>,
    /// root when absent.
    pub owner: Option<Located<String>>,
    /// wheel when absent.
    pub group: Option<Located<String>>,
    /// The validate command's words, `%s` standing for the staged file.
    pub validate: Option<Located<Vec<String>>>,
    /// Services to reload or restart after a change.
    pub notify: Vec<Notify>,
    /// The content: a `content` as written, or, once the compile read the
    /// inventory, a rendered template or a copied source.
    pub content: Option<String>,
    /// Where the file's mapping was written.
    #[serde(skip)]
    pub span: Span,
}

impl ManagedFile {
    /// A file with no fields set yet.
    pub(crate) fn blank(path: Located<String>, span: Span) -> Self {
        Self {
            path,
            source: None,
            mode: None,
            owner: None,
            group: None,
            validate: None,
            notify: Vec::new(),
            content: None,
            span,
        }
    }
}

/// Where a managed file's content comes from.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileSource {
    /// The text as written.
    Content(Located<String>),
    /// A template under the inventory's `templates/`.
    Template(Located<String>),
    /// A file under the inventory's `files/`.
    Source(Located<String>),
}

/// One `notify` entry: a service and what to do to it.
#[derive(Debug, Clone, Serialize)]
pub struct Notify {
    /// The rc.d script name.
    pub service: Located<String>,
    /// `reload` or `restart`.
    pub action: Located<String>,
}

/// One service of `freebsd.services`.
#[derive(Debug, Clone, Serialize)]
pub struct Service {
    /// The rc.d script name (located at its key).
    pub name: Located<String>,
    /// Enabled and started (true, the default), or disabled and stopped.
    pub enable: Located<bool>,
    /// Where the service's mapping was written.
    #[serde(skip)]
    pub span: Span,
}

/// `freebsd.zfs`: data pools made at install, and datasets.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Zfs {
    /// Data pools by name, in the order given.
    pub pools: Vec<DataPool>,
    /// Datasets by name, in the order given.
    pub datasets: Vec<Dataset>,
}

/// A data pool the install creates from its own disks.
#[derive(Debug, Clone, Serialize)]
pub struct DataPool {
    /// The pool name (located at its key); not the boot pool's.
    pub name: Located<String>,
    /// Whole disks, none of the boot pool's or another pool's.
    pub disks: Vec<Located<String>>,
    /// The layout (`stripe` when absent).
    pub raid: Option<Located<Raid>>,
}

/// A dataset and the properties beryl sets on it.
#[derive(Debug, Clone, Serialize)]
pub struct Dataset {
    /// `POOL/a/b` (located at its key); POOL is the boot pool or a data pool.
    pub name: Located<String>,
    /// Properties in the order given: (name, value as `zfs set` takes it,
    /// value as `zfs get -p` prints it).
    pub props: Vec<ZfsProp>,
    /// `destroy: true`: destroyed if beryl created it.
    pub destroy: bool,
}

/// One property of a dataset.
#[derive(Debug, Clone, Serialize)]
pub struct ZfsProp {
    pub name: Located<String>,
    pub value: Located<String>,
    /// As `zfs get -H -p` prints it (`16384` for `16K`).
    pub printed: String,
}

/// The `jail` mapping of a jail (issue 36, docs/jails.md): how its host
/// lays down, configures and runs it. Everything inside the jail (users,
/// packages, files, services) is the rest of the jail's `freebsd` section.
#[derive(Debug, Clone, Serialize)]
pub struct Jail {
    /// jail(8) `name`: the jail file's stem unless written; the conf file is
    /// `/etc/jail.conf.d/NAME.conf`.
    pub name: Located<String>,
    /// How its userland is laid down.
    pub base: JailBase,
    /// The dataset of its root on the host (default `POOL/jails/NAME`, POOL
    /// the host's boot pool), with the properties beryl sets on it.
    pub dataset: Dataset,
    /// The jail's root (`path`): the dataset's mountpoint, absolute.
    pub path: Located<String>,
    /// Addresses (aliases on a host interface), or a VNET stack.
    pub network: JailNetwork,
    /// jail.conf(5) parameters beyond those beryl derives, in the order given.
    pub parameters: Vec<JailParam>,
    /// nullfs mounts from the host (`mount.fstab`), in the order given.
    pub mounts: Vec<JailMount>,
    /// rctl(8) rules without the `jail:NAME:` subject (`memoryuse:deny=2G`).
    pub rctl: Vec<Located<String>>,
    /// Started at boot: listed in the host's `jail_list`.
    pub boot: Located<bool>,
    /// Jails of the same host started before this one (jail.conf `depend`).
    pub depend: Vec<Located<String>>,
    /// What apply does when a change needs the jail restarted.
    pub restart: Located<JailRestart>,
    /// Where the `jail` mapping was written.
    #[serde(skip)]
    pub span: Span,
}

/// How a jail's userland is laid down.
#[derive(Debug, Clone, Serialize)]
pub struct JailBase {
    /// Distribution sets extracted, or pkgbase packages installed.
    pub method: Located<Install>,
    /// A full copy, or a shared read-only base.
    pub layout: Located<JailLayout>,
    /// For a thin layout, the writable directories kept on datasets of
    /// their own (`/var`, `/usr/local`, `/etc`, `/home`).
    pub state: Vec<Located<String>>,
}

/// A jail's root layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JailLayout {
    /// Its own full copy of the base, on its own dataset.
    Thick,
    /// A read-only nullfs mount of a shared base, state on own datasets.
    Nullfs,
    /// A ZFS clone of a base snapshot, state on own datasets.
    Clone,
}

/// What apply does when a change needs the jail restarted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JailRestart {
    /// Report it (like the reboot note), never restart.
    Never,
    /// Restart the jail (`jail -rc NAME`) when such a change is applied.
    OnChange,
}

/// A jail's network.
#[derive(Debug, Clone, Default, Serialize)]
pub struct JailNetwork {
    /// IPv4 addresses with prefix (`192.0.2.21/24`): `ip4.addr` aliases on
    /// `interface`, or, with VNET, the jail's epair address(es).
    pub ip4: Vec<Located<String>>,
    /// IPv6 addresses with prefix (`2001:db8::21/64`), likewise.
    pub ip6: Vec<Located<String>>,
    /// The host interface the aliases are added to (`ip4.addr = IF|ADDR`);
    /// `None` with VNET.
    pub interface: Option<Located<String>>,
    /// A network stack of its own, on an epair whose host side is a member
    /// of a bridge of the host.
    pub vnet: Option<Vnet>,
}

/// A VNET jail's epair and gateway.
#[derive(Debug, Clone, Serialize)]
pub struct Vnet {
    /// The host's bridge (`bridge0`), declared in its `network.bridges`.
    pub bridge: Located<String>,
    /// The epair's unit: the host side is `epairNa`, the jail's `epairNb`.
    pub epair: Located<u32>,
    /// The jail side's MAC: written, or derived from the host and jail names.
    pub mac: Located<String>,
    /// The host side's MAC, derived likewise.
    pub mac_host: String,
    /// The jail's IPv4 default router.
    pub gateway: Option<Located<String>>,
    /// The jail's IPv6 default router.
    pub gateway6: Option<Located<String>>,
}

/// A jail.conf(5) parameter.
#[derive(Debug, Clone, Serialize)]
pub struct JailParam {
    /// The parameter (`allow.raw_sockets`, `enforce_statfs`).
    pub name: Located<String>,
    /// Its value as jail.conf takes it (`true` becomes the bare name).
    pub value: Located<String>,
}

/// A nullfs mount into a jail (a line of `/etc/fstab.NAME`).
#[derive(Debug, Clone, Serialize)]
pub struct JailMount {
    /// The host directory.
    pub source: Located<String>,
    /// Where it appears inside the jail (absolute, inside its root).
    pub target: Located<String>,
    /// Mounted read-only.
    pub ro: bool,
}

/// A bridge of the host (`network.bridges`), that VNET jails join.
#[derive(Debug, Clone, Serialize)]
pub struct Bridge {
    /// `bridgeN`.
    pub name: Located<String>,
    /// Host interfaces added to it (`addm`), in the order given.
    pub members: Vec<Located<String>>,
    /// The bridge's own IPv4 address, when it has one.
    pub ipv4: Option<Located<Ipv4>>,
}
