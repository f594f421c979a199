//! The parsed forms of FreeBSD words that the validators of this module
//! return, shared with the schema model (src/schema/model.rs re-exports them).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How bsdinstall installs the base system.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Install {
    /// The kernel and base tarballs (`DISTRIBUTIONS`).
    #[default]
    Dists,
    /// Base system packages (pkgbase, FreeBSD 15).
    Pkgbase,
    /// Never installed by beryl: a running host that beryl adopts, which
    /// `apply` manages and `plan` refuses (docs/install.md §3).
    None,
}

impl Install {
    /// Whether beryl installs the host (everything but `none`).
    pub fn by_beryl(self) -> bool {
        self != Install::None
    }
}

/// An interface's IPv4 configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Ipv4 {
    /// DHCP (`ifconfig_IF="DHCP"`).
    Dhcp,
    /// An address with its prefix length, as written (`192.0.2.10/24`).
    Static(String),
}

/// An interface's IPv6 configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Ipv6 {
    /// Stateless autoconfiguration (`inet6 accept_rtadv`).
    Slaac,
    /// An address with its prefix length (`2001:db8::10/64`).
    Static(String),
}

/// Whether a user account should exist on the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum UserState {
    /// The account is created or updated (the default).
    #[default]
    Present,
    /// The account is removed if it exists.
    Absent,
}

/// A ZFS boot-pool layout, as bsdinstall's `ZFSBOOT_VDEV_TYPE` spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Raid {
    /// One vdev per disk, no redundancy (1+ disks).
    Stripe,
    /// One mirror of all disks (2+).
    Mirror,
    /// Mirrors of disk pairs, in the order given (4+, even).
    Raid10,
    /// Single parity (3+).
    Raidz1,
    /// Double parity (4+).
    Raidz2,
    /// Triple parity (5+).
    Raidz3,
}

impl Raid {
    /// Every layout, in order of the fewest disks needed.
    pub(crate) const ALL: [Raid; 6] = [
        Raid::Stripe,
        Raid::Mirror,
        Raid::Raidz1,
        Raid::Raid10,
        Raid::Raidz2,
        Raid::Raidz3,
    ];

    /// The word used in YAML and in `ZFSBOOT_VDEV_TYPE`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Raid::Stripe => "stripe",
            Raid::Mirror => "mirror",
            Raid::Raid10 => "raid10",
            Raid::Raidz1 => "raidz1",
            Raid::Raidz2 => "raidz2",
            Raid::Raidz3 => "raidz3",
        }
    }

    /// The layout spelled exactly `word`, if any.
    pub(crate) fn parse(word: &str) -> Option<Raid> {
        Raid::ALL.into_iter().find(|r| r.name() == word)
    }

    /// The fewest disks the layout accepts (zfsboot's `dialog_menu_layout`).
    pub(crate) fn min_disks(self) -> usize {
        match self {
            Raid::Stripe => 1,
            Raid::Mirror => 2,
            Raid::Raidz1 => 3,
            Raid::Raid10 | Raid::Raidz2 => 4,
            Raid::Raidz3 => 5,
        }
    }

    /// Whether the layout needs an even number of disks (raid10 mirrors pairs).
    pub(crate) fn needs_even(self) -> bool {
        self == Raid::Raid10
    }
}
