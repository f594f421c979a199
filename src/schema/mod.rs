//! Validation of the merged `freebsd` mapping into the typed model.
//!
//! Entry point: [`validate`]. The keys of `freebsd` and of a user are rows of
//! two field tables (`fields::FREEBSD`, `users::USER`): a key, a one-line doc
//! and a checker. Unknown keys and their "did you mean" come from the same
//! tables, so adding a key is adding a row. The name, size and path checks
//! are pure functions in [`crate::freebsd::names`], for every stage to reuse.
//!
//! Every error is collected (not just the first), in document order, and
//! points at the value (or key) where it was written.

#![warn(missing_docs)]

mod ctx;
mod disks;
mod fields;
mod files;
mod jail;
mod model;
mod network;
mod owners;
mod services;
mod sshd;
mod system;
mod users;
pub(crate) mod zfs;

#[cfg(test)]
mod tests;

use crate::diag::Diag;
use crate::value::Node;

pub(crate) use jail::Jailed;
#[cfg(test)]
pub(crate) use model::Raid;
pub(crate) use model::{
    FileSource, FreeBsd, Install, Ipv4, Ipv6, Jail, Located, ManagedFile, SshdMatch, SshdSetting,
    User, UserState,
};
// Issue 36: the jail model, read by the jail kinds (src/resource/jail*.rs).
#[cfg(test)]
pub(crate) use model::{Dataset, JailBase, JailMount, JailNetwork, JailParam, Vnet};
pub(crate) use model::{JailLayout, JailRestart};

crate::diag::codes! {
    /// The error codes of this stage.
    pub(crate) enum Code in "schema" {
        /// A value of the wrong type (including null, and `freebsd` not a mapping).
        Type = "type";
        /// A key that is not in the field table.
        UnknownKey = "unknown_key";
        /// A required key is absent (a user without `name`).
        MissingKey = "missing_key";
        /// An invalid host name.
        Hostname = "hostname";
        /// A time zone not in the tz database (or malformed).
        Timezone = "timezone";
        /// A `raid` that is not a ZFS layout word.
        Raid = "raid";
        /// A disk that is not a whole-disk device name.
        Disk = "disk";
        /// A disk listed twice (reported at the second).
        DuplicateDisk = "duplicate_disk";
        /// Too few disks for the layout (or an odd count for raid10, or an empty list).
        DiskCount = "disk_count";
        /// An invalid or reserved ZFS pool name.
        Pool = "pool";
        /// An invalid swap size (or below 100m).
        Swap = "swap";
        /// A package that is not a package name or origin.
        Package = "package";
        /// A sudoers line that is empty or spans several lines.
        Sudoers = "sudoers";
        /// A user name FreeBSD `pw` would refuse.
        UserName = "user_name";
        /// A user defined twice (reported at the second).
        DuplicateUser = "duplicate_user";
        /// A uid out of range.
        Uid = "uid";
        /// A uid given to two users of a host, or that a base account has: `pw useradd -u` refuses an allocated uid, halfway through the install.
        DuplicateUid = "duplicate_uid";
        /// A user's uid (or the gid its own group would get) that the ports tree's UIDs (GIDs) file assigns to a port's user: installing that package later would collide.
        PortsId = "ports_id", warning;
        /// A file owner or group, or a cron user, that is neither of the host's users and groups, nor of the base system, nor of any port: `install -o`/`-g` or cron fails.
        NoSuchOwner = "no_such_owner";
        /// A file owner or group, or a cron user, that only a package can create, on a host whose packages beryl cannot tell create it.
        PackageOwner = "package_owner", warning;
        /// A file owner or group, or a cron user, not in the inventory of a host beryl never installed (`install: none`): it may exist there, and beryl cannot tell.
        UnknownOwner = "unknown_owner", warning;
        /// A firewall service (pf, ipfw) that apply would start on a running host: its start can cut apply's own SSH connection.
        FirewallStart = "firewall_start", warning;
        /// A GECOS comment with `:` or a control character.
        Comment = "comment";
        /// A shell that is not a clean absolute path.
        Shell = "shell";
        /// An invalid primary or supplementary group name.
        Group = "group";
        /// A user state other than `present` or `absent`.
        State = "state";
        /// An install method other than `dists` or `pkgbase`.
        Install = "install";
        /// A release that is not `MAJOR.MINOR` (or a float whose text is not).
        Version = "version";
        /// A `dist_site` that is not a URL of a distribution site.
        DistSite = "dist_site";
        /// A password that is not a crypt(3) password hash.
        PasswordHash = "password_hash";
        /// A secret (an encrypted value, or one built from it) in a field that may not hold one.
        Secret = "secret";
        /// An interface name that is not a driver name and a unit number.
        Interface = "interface";
        /// An interface's `ipv4` that is neither `dhcp` nor an address with a prefix length.
        Ipv4 = "ipv4";
        /// An interface's `ipv6` that is neither `slaac` nor an address with a prefix length.
        Ipv6 = "ipv6";
        /// A router or name server that is not an address (of the family the key needs).
        Address = "address";
        /// A name server listed twice (reported at the second).
        DuplicateNameserver = "duplicate_nameserver";
        /// An rc.conf variable name that is not a shell variable name.
        RcName = "rc_name";
        /// An rc.conf variable that another `freebsd` field sets.
        RcManaged = "rc_managed";
        /// An rc.conf value that is unsafe inside double quotes.
        RcValue = "rc_value";
        /// An sshd setting that is not one of its words.
        Sshd = "sshd";
        /// An sshd_config keyword sshd does not read: unknown, deprecated, unsupported, or another name of one (src/freebsd/sshd.rs).
        SshdKeyword = "sshd_keyword";
        /// An sshd_config keyword that sshd refuses inside a `Match` block.
        SshdMatchKeyword = "sshd_match_keyword";
        /// An sshd_config keyword set twice (in any case, or by an older key and `settings`).
        SshdDuplicate = "sshd_duplicate";
        /// An sshd_config value beryl cannot write on one line unquoted.
        SshdValue = "sshd_value";
        /// A `Match` criteria line sshd would refuse.
        SshdCriteria = "sshd_criteria";
        /// A `freebsd.files` key that is not an absolute, normalized path.
        FilePath = "file_path";
        /// A `freebsd.files` path that beryl writes itself (sudoers drop-in, resolv.conf, sshd_config, rc.conf…).
        FileManaged = "file_managed";
        /// A file with none, or more than one, of `content`, `template` and `source` (or a bad template or source path).
        FileSource = "file_source";
        /// A file mode that is not three or four octal digits.
        FileMode = "file_mode";
        /// A `validate` command without exactly one `%s` word.
        FileValidate = "file_validate";
        /// A `notify` action other than `reload` or `restart`.
        Notify = "notify";
        /// A service name that is not an rc.d script name, or a script without an rcvar.
        ServiceName = "service_name";
        /// A dataset name that is not `POOL/NAME`, or whose pool is not the boot pool or a data pool.
        Dataset = "dataset";
        /// A dataset whose missing parent `zfs create -p` would create mounted over a directory of the base system (`zroot/var/db/mysql` alone mounts `zroot/var/db` over `/var/db`).
        DatasetParent = "dataset_parent";
        /// A ZFS property value that zfs(8) would refuse.
        ZfsProperty = "zfs_property";
        /// A `destroy: true` that cannot hold (with properties, or on a pool).
        Destroy = "destroy";
        /// A sysctl name that is not a dotted MIB name.
        SysctlName = "sysctl_name";
        /// A sysctl the installer writes itself.
        SysctlManaged = "sysctl_managed";
        /// A sysctl value that is not one safe word.
        SysctlValue = "sysctl_value";
        /// A loader.conf variable sysrc cannot write (not a shell name).
        LoaderName = "loader_name";
        /// A loader.conf variable the installer writes itself.
        LoaderManaged = "loader_managed";
        /// A loader.conf value that is unsafe inside double quotes.
        LoaderValue = "loader_value";
        /// A cron entry name that cannot name a file.
        CronName = "cron_name";
        /// A cron schedule that is not five time fields or an `@` word.
        CronSchedule = "cron_schedule";
        /// A cron user that is not a user name.
        CronUser = "cron_user";
        /// A cron command on several lines, starting with `-`, or with an unescaped `%`.
        CronCommand = "cron_command";
        /// A `jail` mapping in a host's chain: only a jail's file (under HOST.jails/) takes it.
        JailOnHost = "jail_on_host";
        /// A jail name (or a `depend` entry) jail(8) would not take: a dot, all digits, not a host label.
        JailName = "jail_name";
        /// A base method or layout that is not one of the words.
        JailLayout = "jail_layout";
        /// A thin layout (nullfs, clone) without `state` datasets, state of a thick jail, or state directories inside one another.
        JailState = "jail_state";
        /// A jail's root, state directory or mount path that is not an absolute, normalized path other than `/`.
        JailPath = "jail_path";
        /// A jail's addresses that cannot hold: dhcp/slaac without vnet, aliases on no interface, an interface with vnet.
        JailNetwork = "jail_network";
        /// A VNET jail without its bridge, its epair or any address.
        JailVnet = "jail_vnet";
        /// A MAC address that is not a unicast `xx:xx:xx:xx:xx:xx`.
        JailMac = "jail_mac";
        /// A jail parameter beryl does not know, or a value not of its kind.
        JailParam = "jail_param";
        /// A jail parameter beryl writes itself from another field (path, ip4.addr, vnet, exec.*…).
        JailParamDerived = "jail_param_derived";
        /// An rctl rule rctl(8) or the kernel would refuse.
        JailRctl = "jail_rctl";
        /// A restart policy other than `never` or `on_change`.
        JailRestart = "jail_restart";
        /// A bridge that is not `bridgeN`, or a member that is not an interface name.
        Bridge = "bridge";
    }
}

/// Validates the merged `freebsd` node of one host (absent = empty mapping is
/// fine; all fields optional).
///
/// Returns the typed model, or *every* error found (not just the first), in
/// document order, each located at the file, line and column where the
/// offending value (or key) was written.
///
/// `jailed` is `Some` for a jail: its `jail` mapping is then allowed and
/// every jail gets one, with the defaults filled in.
pub(crate) fn validate(
    freebsd: Option<&Node>,
    jailed: Option<&Jailed>,
) -> Result<FreeBsd, Vec<Diag>> {
    let mut out = FreeBsd::default();
    let mut cx = ctx::Ctx {
        jailed: jailed.cloned(),
        ..ctx::Ctx::default()
    };
    let Some(node) = freebsd else {
        if let Some(j) = jailed {
            out.jail = Some(jail::defaults(&mut cx, j, &out.span));
        }
        return finish(cx, out);
    };
    out.span = node.span.clone();
    match node.as_map() {
        Some(map) => {
            cx.walk("freebsd", map, fields::FREEBSD, &mut out);
            files::conflicts(&mut cx, &out);
            owners::owners(&mut cx, &out);
        }
        None => {
            let diag = cx.type_error("freebsd", "a mapping", node);
            let help = match node.value {
                crate::value::Value::Null => {
                    "`freebsd: ~` replaces the inherited settings with null; write the settings as keys under `freebsd:` instead"
                }
                _ => {
                    "write the settings as keys under `freebsd:`, such as `hostname: web01.example.org`"
                }
            };
            cx.push(diag.help(help));
        }
    }
    if let Some(j) = jailed
        && out.jail.is_none()
        && node.as_map().is_some_and(|m| !m.contains_key("jail"))
    {
        out.jail = Some(jail::defaults(&mut cx, j, &node.span));
    }
    finish(cx, out)
}

/// The model, or every error.
fn finish(cx: ctx::Ctx, mut out: FreeBsd) -> Result<FreeBsd, Vec<Diag>> {
    if cx.diags.iter().any(Diag::is_error) {
        Err(cx.diags)
    } else {
        out.warnings = cx.diags;
        Ok(out)
    }
}

/// The keys of `freebsd` with their one-line docs, in table order.
#[cfg(test)]
pub(crate) fn freebsd_keys() -> Vec<(&'static str, &'static str)> {
    ctx::docs(fields::FREEBSD)
}

/// The keys of a user mapping with their one-line docs, in table order.
#[cfg(test)]
pub(crate) fn user_keys() -> Vec<(&'static str, &'static str)> {
    ctx::docs(users::USER)
}

// The other field tables' keys and docs, for the tests that hold the input
// types of the level-file JSON Schema (src/jsonschema/) to the tables.

/// The keys of `freebsd.network` with their one-line docs, in table order.
#[cfg(test)]
pub(crate) fn network_keys() -> Vec<(&'static str, &'static str)> {
    ctx::docs(network::NETWORK)
}

/// The keys of an interface mapping with their one-line docs, in table order.
#[cfg(test)]
pub(crate) fn interface_keys() -> Vec<(&'static str, &'static str)> {
    ctx::docs(network::INTERFACE)
}

/// The keys of a `freebsd.files` entry with their one-line docs, in table order.
#[cfg(test)]
pub(crate) fn file_keys() -> Vec<(&'static str, &'static str)> {
    ctx::docs(files::FILE)
}

/// The keys of a `freebsd.services` entry with their one-line docs, in table order.
#[cfg(test)]
pub(crate) fn service_keys() -> Vec<(&'static str, &'static str)> {
    ctx::docs(files::SERVICE)
}

/// The keys of a cron entry with their one-line docs, in table order.
#[cfg(test)]
pub(crate) fn cron_keys() -> Vec<(&'static str, &'static str)> {
    ctx::docs(system::CRON)
}

/// The keys of `freebsd.sshd` with their one-line docs, in table order.
#[cfg(test)]
pub(crate) fn sshd_keys() -> Vec<(&'static str, &'static str)> {
    ctx::docs(sshd::SSHD)
}

/// The keys of `freebsd.jail` with their one-line docs, in table order.
#[cfg(test)]
pub(crate) fn jail_keys() -> Vec<(&'static str, &'static str)> {
    ctx::docs(jail::JAIL)
}

/// The keys of a bridge of `freebsd.network.bridges`, in table order.
#[cfg(test)]
pub(crate) fn bridge_keys() -> Vec<(&'static str, &'static str)> {
    ctx::docs(network::BRIDGE)
}

/// The keys of `freebsd.zfs` with their one-line docs, in table order.
#[cfg(test)]
pub(crate) fn zfs_keys() -> Vec<(&'static str, &'static str)> {
    ctx::docs(zfs::ZFS)
}

/// The keys of a data pool with their one-line docs, in table order.
#[cfg(test)]
pub(crate) fn zfs_pool_keys() -> Vec<(&'static str, &'static str)> {
    ctx::docs(zfs::POOL)
}
