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
    /// sysctl MIB names and values, in the order given.
    pub sysctl: Vec<Tunable>,
    /// loader.conf variables, in the order given.
    pub loader: Vec<Tunable>,
    /// Cron entries, in the order given.
    pub cron: Vec<CronJob>,
    /// Where the `freebsd` mapping was written (synthetic when it was absent).
    #[serde(skip)]
    pub span: Span,
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
}

impl Default for Sshd {
    fn default() -> Self {
        Sshd {
            permit_root_login: Located::new("no".into(), Span::synthetic()),
            password_authentication: Located::new(false, Span::synthetic()),
            kbd_interactive_authentication: Located::new(false, Span::synthetic()),
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
