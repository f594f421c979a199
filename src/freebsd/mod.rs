//! What beryl knows of FreeBSD releases, as data: one table per subject,
//! each row citing the FreeBSD source it was read from (freebsd/freebsd-src
//! unless said otherwise; commits abbreviated to 8 digits).
//!
//! - [`release`]: the releases beryl installs, keyed by `freebsd.version`:
//!   disk driver names and what the installer can do unattended.
//! - [`base`]: the accounts and groups of the base system.
//! - [`cron`]: where each release's cron(8) reads drop-in crontabs.
//! - [`names`]: pure validators of FreeBSD names, sizes and identifiers
//!   (host names, users, disks, addresses, rc.conf variables), reusable by
//!   every stage.
//! - [`ports`]: the users and groups the ports tree's `UIDs` and `GIDs`
//!   files assign (freebsd/freebsd-ports), in a data file beside it.
//! - [`rcd`]: the rc.d scripts of the base system, with their `name` and
//!   `rcvar`.
//! - [`sshd`]: the keywords of sshd_config and the `Match` criteria
//!   (OpenSSH's servconf.c).
//! - [`zfs`]: dataset names and the ZFS properties beryl manages (OpenZFS).
//!
//! A rule about FreeBSD is a row here, never an if-branch elsewhere.
//!
//! Two kinds of release knowledge are deliberately not tables: the defaults
//! of `/etc/defaults/rc.conf`, which the host itself reports (`sysrc -A` in
//! the facts, `sysrc -n` in the apply checks), so that a value is judged by
//! the defaults of the release actually installed; and the installer's
//! default `DISTRIBUTIONS`, which every plan sets explicitly.

pub(crate) mod base;
pub(crate) mod cron;
pub(crate) mod jail;
pub(crate) mod loader_d;
pub(crate) mod names;
pub(crate) mod ports;
pub(crate) mod rcd;
pub(crate) mod release;
pub(crate) mod sshd;
pub(crate) mod zfs;

/// The PATH the generated scripts set for themselves: the boot-time PATH
/// (`/sbin:/bin:/usr/sbin:/usr/bin`, which `libexec/rc/rc` b14e76ec sets for
/// everything started at boot, the installer included: `release/rc.local`
/// 3c3bd371 → `startbsdinstall` → `bsdinstall script`, and nothing in
/// bsdinstall adds to it, `usr.sbin/bsdinstall/bsdinstall` 023fc80e) plus the
/// directories packages install to, so that no script depends on its
/// caller's PATH (ssh's default PATH differs again).
pub(crate) const SCRIPT_PATH: &str = "/sbin:/bin:/usr/sbin:/usr/bin:/usr/local/sbin:/usr/local/bin";
