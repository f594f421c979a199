//! The `freebsd` mapping, as one level file may write it. Its keys are the
//! rows of the field tables of src/schema/ (tests hold them to the tables).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;

use super::shape::{Ref, Reference, prefixed_keys};
use crate::freebsd::names::{self, Install, Raid, UserState};

/// The `freebsd` mapping: the settings beryl validates and installs.
// Its keys are the rows of the FREEBSD table (src/schema/fields.rs).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys)]
pub struct FreeBsd {
    /// Fully qualified host name (RFC 1123), such as web01.example.org.
    #[schemars(with = "String")]
    pub hostname: Option<String>,
    /// IANA time zone, such as Europe/Berlin.
    #[schemars(with = "String")]
    pub timezone: Option<String>,
    /// ZFS layout of the boot pool: stripe, mirror, raid10, raidz1, raidz2 or
    /// raidz3. The `disks` must be enough for it.
    #[schemars(with = "Ref<Raid>")]
    pub raid: Option<Ref<Raid>>,
    /// Whole disks of the boot pool, such as [ada0, ada1]; the installer wipes
    /// them. Replaced as a whole by a level that sets it.
    #[schemars(with = "Ref<Vec<String>>")]
    pub disks: Option<Ref<Vec<String>>>,
    /// Name of the ZFS boot pool (zfsboot's default is zroot).
    #[schemars(with = "String")]
    pub pool: Option<String>,
    /// Swap size per disk, such as 4g, or 0 for none.
    #[schemars(with = "Swap")]
    pub swap: Option<Swap>,
    /// Packages to install, by name (sudo) or origin (security/sudo).
    /// Appended level after level, without duplicates; `--name` removes an
    /// inherited package.
    #[schemars(with = "Ref<Vec<String>>")]
    pub packages: Option<Ref<Vec<String>>>,
    /// Lines of the sudoers drop-in, one rule per item. Appended like
    /// `packages`; `--line` removes an inherited line.
    #[schemars(with = "Ref<Vec<String>>")]
    pub sudoers: Option<Ref<Vec<String>>>,
    /// User accounts, each a mapping with at least `name`. Merged by name:
    /// a level that names an inherited user changes only the fields it
    /// writes; `name: --bob` removes bob.
    #[schemars(with = "Ref<Vec<User>>")]
    pub users: Option<Ref<Vec<User>>>,
    /// How bsdinstall installs the base system: dists (the default) or pkgbase; none for a running host beryl never installs (apply manages it, plan refuses it).
    #[schemars(with = "Ref<Install>")]
    pub install: Option<Ref<Install>>,
    /// FreeBSD release as MAJOR.MINOR, quoted, such as "15.0".
    #[schemars(with = "Version")]
    pub version: Option<Version>,
    /// URL the installer fetches missing distribution sets from
    /// (BSDINSTALL_DISTSITE), such as
    /// https://download.freebsd.org/releases/amd64/15.0-RELEASE.
    #[schemars(with = "String")]
    pub dist_site: Option<String>,
    /// root's password as a crypt(3) hash ($6$…); when absent, root's
    /// password is locked.
    #[schemars(with = "String")]
    pub root_password: Option<String>,
    /// Interfaces (DHCP/SLAAC or static addresses), default routers and name
    /// servers.
    #[schemars(with = "Ref<Network>")]
    pub network: Option<Ref<Network>>,
    /// Other rc.conf variables, such as ntpd_enable: true (written YES).
    /// Variables that other `freebsd` keys set (hostname, ifconfig_*, …) are
    /// refused.
    #[schemars(with = "Ref<BTreeMap<String, RcValue>>")]
    pub rc_conf: Option<Ref<BTreeMap<String, RcValue>>>,
    /// Sshd settings: permit_root_login, password_authentication,
    /// kbd_interactive_authentication.
    #[schemars(with = "Ref<Sshd>")]
    pub sshd: Option<Ref<Sshd>>,
    /// Whole files keyed by absolute path, each with one of content,
    /// template or source, and mode, owner, group, validate, notify. Merged
    /// key by key; docs/resources.md.
    #[schemars(with = "Ref<BTreeMap<String, File>>")]
    pub files: Option<Ref<BTreeMap<String, File>>>,
    /// rc.d services keyed by name, such as nginx: {enable: true}: enabled
    /// through their rcvar and started.
    #[schemars(with = "Ref<BTreeMap<String, Service>>")]
    pub services: Option<Ref<BTreeMap<String, Service>>>,
    /// Data pools made at install (pools) and datasets with ZFS properties
    /// (datasets). A dataset removed from the config is left alone; only
    /// `destroy: true` destroys one, and only one beryl created.
    #[schemars(with = "Ref<Zfs>")]
    pub zfs: Option<Ref<Zfs>>,
    /// Kernel state: MIB name to value, kept in /etc/sysctl.conf and set
    /// live, such as kern.ipc.somaxconn: 1024. Merged by name. A read-only
    /// tunable belongs in `loader`.
    #[schemars(with = "Ref<BTreeMap<String, SysctlValue>>")]
    pub sysctl: Option<Ref<BTreeMap<String, SysctlValue>>>,
    /// /boot/loader.conf variables, such as accf_http_load: true (written
    /// YES, by sysrc), and dotted tunables, such as kern.maxusers: 512
    /// (written in /boot/loader.conf.d/beryl.conf); a change needs a
    /// reboot. zfs_load and cryptodev_load are the installer's.
    #[schemars(with = "Ref<BTreeMap<String, RcValue>>")]
    pub loader: Option<Ref<BTreeMap<String, RcValue>>>,
    /// Scheduled jobs: entry name to {schedule, user, command}, one file each
    /// in the release's cron drop-in directory (/usr/local/etc/cron.d/beryl-NAME).
    #[schemars(with = "Ref<BTreeMap<String, Cron>>")]
    pub cron: Option<Ref<BTreeMap<String, Cron>>>,
    /// For a jail (a file under HOST.jails/): its name, base, dataset, path,
    /// network (aliases or vnet), parameters, mounts, rctl, boot, depend and
    /// restart. Refused in a host's chain (docs/jails.md "Fields").
    #[schemars(with = "Ref<Jail>")]
    pub jail: Option<Ref<Jail>>,
}

/// A jail's `jail` mapping; every key has a default.
// Its keys are the rows of the JAIL table (src/schema/jail.rs).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys)]
pub struct Jail {
    /// jail(8) name (default: the jail file's name); the conf file is
    /// /etc/jail.conf.d/NAME.conf. One label, not all digits.
    #[schemars(with = "String")]
    pub name: Option<String>,
    /// How the userland is laid down: method (dists or pkgbase), layout
    /// (thick, nullfs or clone) and, for a thin layout, state.
    #[schemars(with = "Ref<JailBase>")]
    pub base: Option<Ref<JailBase>>,
    /// The ZFS dataset of the jail's root: name (default POOL/jails/NAME)
    /// and properties (quota, compression…).
    #[schemars(with = "Ref<JailDataset>")]
    pub dataset: Option<Ref<JailDataset>>,
    /// The jail's root directory on its host (jail.conf path; default
    /// /usr/local/jails/NAME).
    #[schemars(with = "String")]
    pub path: Option<String>,
    /// ip4/ip6 addresses with prefix on an interface of the host, or vnet:
    /// an epair on a bridge of the host.
    #[schemars(with = "Ref<JailNetwork>")]
    pub network: Option<Ref<JailNetwork>>,
    /// Other jail.conf parameters (allow.*, enforce_statfs, securelevel,
    /// devfs_ruleset, children.max, persist, exec.clean, sysvmsg…): the
    /// table of src/freebsd/jail.rs.
    #[schemars(with = "Ref<BTreeMap<String, JailParamValue>>")]
    pub parameters: Option<Ref<BTreeMap<String, JailParamValue>>>,
    /// nullfs mounts from the host (mount.fstab), each {source, target, ro}.
    #[schemars(with = "Ref<Vec<JailMount>>")]
    pub mounts: Option<Ref<Vec<JailMount>>>,
    /// rctl(8) rules without the jail:NAME: subject, such as
    /// memoryuse:deny=2g; the host needs kern.racct.enable=1.
    #[schemars(with = "Ref<Vec<String>>")]
    pub rctl: Option<Ref<Vec<String>>>,
    /// Started at boot, in the host's jail_list (default true).
    pub boot: Option<bool>,
    /// Jails of the same host started before this one (jail.conf depend).
    #[schemars(with = "Ref<Vec<String>>")]
    pub depend: Option<Ref<Vec<String>>>,
    /// When a change needs the jail restarted: never (report it, the
    /// default) or on_change.
    #[schemars(with = "Ref<JailRestart>")]
    pub restart: Option<Ref<JailRestart>>,
}

/// A jail's restart policy.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JailRestart {
    /// Report a needed restart, like the reboot note.
    Never,
    /// Restart the jail when such a change is applied.
    OnChange,
}

/// A jail parameter's value: a boolean, an integer or a word.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum JailParamValue {
    /// allow.*, persist, exec.clean…
    Bool(bool),
    /// enforce_statfs, securelevel, devfs_ruleset, children.max…
    Int(i64),
    /// sysvmsg, sysvsem, sysvshm: new, inherit or disable.
    Word(String),
}

/// How a jail's userland is laid down.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys)]
pub struct JailBase {
    /// dists (base.txz extracted) or pkgbase (pkg --rootdir PATH installs
    /// FreeBSD-base).
    #[schemars(with = "String")]
    pub method: Option<String>,
    /// thick (its own copy, the default), nullfs (a shared read-only base)
    /// or clone (a ZFS clone).
    #[schemars(with = "String")]
    pub layout: Option<String>,
    /// For a thin layout, the writable directories kept on datasets of
    /// their own, such as [/etc, /var, /usr/local, /home].
    #[schemars(with = "Ref<Vec<String>>")]
    pub state: Option<Ref<Vec<String>>>,
}

/// A jail's dataset.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys)]
pub struct JailDataset {
    /// POOL/NAME of the dataset (default: the host's boot pool/jails/NAME).
    #[schemars(with = "String")]
    pub name: Option<String>,
    /// ZFS properties set on it, such as {quota: 20G, compression: zstd};
    /// mountpoint defaults to path.
    #[schemars(with = "Ref<Dataset>")]
    pub properties: Option<Ref<Dataset>>,
}

/// A jail's network: aliases, or a VNET stack.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys)]
pub struct JailNetwork {
    /// IPv4 addresses with prefix, such as [192.0.2.21/24] (ip4.addr); with
    /// vnet, dhcp too.
    #[schemars(with = "Ref<Vec<String>>")]
    pub ip4: Option<Ref<Vec<String>>>,
    /// IPv6 addresses with prefix, such as [2001:db8::21/64] (ip6.addr);
    /// with vnet, slaac too.
    #[schemars(with = "Ref<Vec<String>>")]
    pub ip6: Option<Ref<Vec<String>>>,
    /// The host interface the addresses are aliases on (default: the host's
    /// first interface); not with vnet.
    #[schemars(with = "String")]
    pub interface: Option<String>,
    /// A network stack of its own: {bridge, epair, mac, gateway, gateway6}.
    #[schemars(with = "Ref<JailVnet>")]
    pub vnet: Option<Ref<JailVnet>>,
}

/// A VNET jail's epair.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys, extend("required" = ["bridge", "epair"]))]
pub struct JailVnet {
    /// The host's bridge (bridgeN, declared in its network.bridges) the
    /// epair's host side joins.
    #[schemars(with = "String")]
    pub bridge: Option<String>,
    /// The epair's unit N, unique on the host: epairNa on the host, epairNb
    /// in the jail.
    #[schemars(range(min = 0, max = 32767))]
    pub epair: Option<u32>,
    /// The jail side's MAC: auto (the default: derived from the host and
    /// jail names) or xx:xx:xx:xx:xx:xx.
    #[schemars(with = "String")]
    pub mac: Option<String>,
    /// The jail's IPv4 default router, such as 192.0.2.1 (never guessed).
    #[schemars(with = "String")]
    pub gateway: Option<String>,
    /// The jail's IPv6 default router, such as 2001:db8::1.
    #[schemars(with = "String")]
    pub gateway6: Option<String>,
}

/// A nullfs mount into a jail.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys, extend("required" = ["source", "target"]))]
pub struct JailMount {
    /// The host directory, absolute.
    #[schemars(with = "String")]
    pub source: Option<String>,
    /// Where it appears inside the jail, absolute from the jail's root.
    #[schemars(with = "String")]
    pub target: Option<String>,
    /// Mounted read-only (default false).
    pub ro: Option<bool>,
}

/// One managed file: exactly one of `content`, `template` and `source`.
// Its keys are the rows of the FILE table (src/schema/files.rs).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys)]
pub struct File {
    /// The file's text, as written (one of content, template, source).
    #[schemars(with = "String")]
    pub content: Option<String>,
    /// A minijinja template under the inventory's templates/ directory,
    /// rendered with the host's effective config (one of content, template,
    /// source).
    #[schemars(with = "String")]
    pub template: Option<String>,
    /// A file under the inventory's files/ directory, copied as is (one of
    /// content, template, source).
    #[schemars(with = "String")]
    pub source: Option<String>,
    /// Octal permissions, such as "0644" (the default 644).
    #[schemars(with = "Mode")]
    pub mode: Option<Mode>,
    /// The owning user (the default root).
    #[schemars(with = "String")]
    pub owner: Option<String>,
    /// The owning group (the default wheel).
    #[schemars(with = "String")]
    pub group: Option<String>,
    /// A command that checks the staged file before it replaces the old
    /// one, `%s` standing for it, such as "pfctl -nf %s".
    #[schemars(with = "String")]
    pub validate: Option<String>,
    /// Services to reload or restart once per run after a change, such as
    /// {nginx: reload}.
    #[schemars(with = "Ref<BTreeMap<String, NotifyAction>>")]
    pub notify: Option<Ref<BTreeMap<String, NotifyAction>>>,
}

/// A file mode.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum Mode {
    /// Three or four octal digits, such as "0644".
    Text(String),
    /// Unquoted digits, read as written (644).
    Digits(u32),
}

/// What a notified service gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NotifyAction {
    /// `service NAME reload`: rc.subr sends SIGHUP.
    Reload,
    /// `service NAME restart`: stop, then start.
    Restart,
}

/// One rc.d service.
// Its keys are the rows of the SERVICE table (src/schema/files.rs).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys)]
pub struct Service {
    /// True (the default): enabled through its rcvar and started; false:
    /// disabled and stopped.
    #[schemars(with = "bool")]
    pub enable: Option<bool>,
}

/// The `zfs` mapping.
// Its keys are the rows of the ZFS table (src/schema/zfs.rs).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys)]
pub struct Zfs {
    /// Data pools the install creates, by name, each with its disks and raid;
    /// never created on a live host. Not the boot pool, none of its disks.
    #[schemars(with = "Ref<BTreeMap<String, DataPool>>")]
    pub pools: Option<Ref<BTreeMap<String, DataPool>>>,
    /// Datasets by name (POOL/NAME), each with ZFS properties, or destroy:
    /// true; POOL is the boot pool or a data pool.
    #[schemars(with = "Ref<BTreeMap<String, Dataset>>")]
    pub datasets: Option<Ref<BTreeMap<String, Dataset>>>,
}

/// A data pool.
// Its keys are the rows of the POOL table (src/schema/zfs.rs).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys, extend("required" = ["disks"]))]
pub struct DataPool {
    /// Whole disks of the pool, such as [ada2, ada3]; the install wipes them.
    #[schemars(with = "Ref<Vec<String>>")]
    pub disks: Option<Ref<Vec<String>>>,
    /// Layout: stripe (the default), mirror, raid10, raidz1, raidz2 or
    /// raidz3, with zfsboot's minimum disk counts.
    #[schemars(with = "Ref<Raid>")]
    pub raid: Option<Ref<Raid>>,
}

/// A dataset: the ZFS properties beryl sets (the table of
/// src/freebsd/zfs.rs, added by [`dataset_keys`]) and `destroy`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[schemars(transform = dataset_keys)]
pub struct Dataset {
    /// true: destroyed if beryl created it (never recursively); properties
    /// are then refused.
    pub destroy: Option<bool>,
}

/// The properties of a dataset, from the table validation uses.
fn dataset_keys(schema: &mut schemars::Schema) {
    use crate::freebsd::zfs::{Kind, PROPS};
    use serde_json::json;
    let size = json!({"type": "string", "pattern": "^[0-9]+([KMGTPEkmgtpe][Bb]?)?$"});
    let mut props = serde_json::Map::new();
    for p in PROPS {
        let mut sub = match p.kind {
            Kind::Words(words) => json!({"anyOf": [
                {"type": "string", "enum": words},
                {"type": "boolean"},
                {"type": "integer", "minimum": 1, "maximum": 3},
            ]}),
            Kind::Compression => json!({"type": "string"}),
            Kind::Block { .. } => json!({"anyOf": [size, {"type": "integer", "minimum": 512}]}),
            Kind::Quota => {
                json!({"anyOf": [{"const": "none"}, size, {"type": "integer", "minimum": 1}]})
            }
            Kind::Mountpoint => json!({"type": "string"}),
        };
        sub["description"] = json!(p.doc);
        props.insert(p.name.to_string(), sub);
    }
    if let Some(destroy) = schema
        .get("properties")
        .and_then(|p| p.get("destroy"))
        .cloned()
    {
        props.insert("destroy".into(), destroy);
    }
    schema.insert("properties".into(), serde_json::Value::Object(props));
    schema.insert(
        "additionalProperties".into(),
        serde_json::Value::Bool(false),
    );
    prefixed_keys(schema);
}

/// A sysctl value, as `sysctl -n` prints it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum SysctlValue {
    /// One word of letters, digits and `. _ , : / % + @ -`.
    Text(String),
    /// An integer, written in decimal.
    Int(i64),
}

/// One cron entry.
// Its keys are the rows of the CRON table (src/schema/system.rs).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys, extend("required" = ["schedule", "command"]))]
pub struct Cron {
    /// Five time fields (minute hour day-of-month month day-of-week), such as
    /// "15 3 * * *", or a word such as @daily.
    #[schemars(with = "String")]
    pub schedule: Option<String>,
    /// The user the command runs as (root when absent).
    #[schemars(with = "String")]
    pub user: Option<String>,
    /// The command line, run by /bin/sh; write `\%` for a literal `%`.
    #[schemars(with = "String")]
    pub command: Option<String>,
}

/// A swap size.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum Swap {
    /// A number with an optional k, m, g or t suffix (at least 100m), such as 4g.
    Text(String),
    /// 0 for no swap, or a size in bytes.
    Bytes(u64),
}

/// A FreeBSD release.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum Version {
    /// MAJOR.MINOR, such as "15.0".
    Text(String),
    /// Unquoted: accepted when the written text is MAJOR.MINOR, but 14.10
    /// would read as 14.1, so quote it.
    Number(f64),
}

/// An rc.conf value: a string as written, an integer in decimal, a boolean
/// as YES or NO.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum RcValue {
    /// A string, written as is (no `"`, `\`, backquote, `$` or newline).
    Text(String),
    /// An integer, written in decimal.
    Int(i64),
    /// A boolean, written YES or NO.
    Bool(bool),
}

/// One user account.
// Its keys are the rows of the USER table (src/schema/users.rs).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys, extend("required" = ["name"]))]
pub struct User {
    /// Login name (required), such as alice. `--alice` removes the inherited
    /// user alice.
    pub name: String,
    /// Numeric user id (0 to 4294967294); pw allocates one when absent.
    #[schemars(with = "Ref<Uid>")]
    pub uid: Option<Ref<Uid>>,
    /// GECOS comment, usually the full name.
    #[schemars(with = "String")]
    pub comment: Option<String>,
    /// Absolute path of the login shell, such as /usr/local/bin/bash.
    #[schemars(with = "String")]
    pub shell: Option<String>,
    /// Primary group; a group named like the user when absent.
    #[schemars(with = "String")]
    pub primary_group: Option<String>,
    /// Supplementary groups, such as [wheel, operator]. Replaced, not
    /// appended, by a level that sets them.
    #[schemars(with = "Ref<Vec<String>>")]
    pub groups: Option<Ref<Vec<String>>>,
    /// SSH public keys: inline keys or names of key files. The domain keys
    /// are added in front of them.
    #[schemars(with = "Ref<Vec<String>>")]
    pub ssh_keys: Option<Ref<Vec<String>>>,
    /// Present (the default) or absent.
    #[schemars(with = "Ref<UserState>")]
    pub state: Option<Ref<UserState>>,
}

/// A uid.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct Uid(#[schemars(range(min = 0, max = names::MAX_UID))] pub u32);

/// The `network` mapping: interfaces, default routers and name servers.
// Its keys are the rows of the NETWORK table (src/schema/network.rs).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys)]
pub struct Network {
    /// Interfaces by name (vtnet0, em0), each with ipv4 and/or ipv6.
    #[schemars(with = "Ref<BTreeMap<String, Interface>>")]
    pub interfaces: Option<Ref<BTreeMap<String, Interface>>>,
    /// IPv4 address of the default router, such as 192.0.2.1.
    #[schemars(with = "String")]
    pub defaultrouter: Option<String>,
    /// IPv6 address of the default router, such as 2001:db8::1.
    #[schemars(with = "String")]
    pub ipv6_defaultrouter: Option<String>,
    /// Name server addresses for resolv.conf, IPv4 or IPv6, each once.
    #[schemars(with = "Ref<Vec<String>>")]
    pub nameservers: Option<Ref<Vec<String>>>,
    /// Bridges by name (bridge0), each with members (host interfaces) and an
    /// optional ipv4: created through cloned_interfaces, joined by VNET jails.
    #[schemars(with = "Ref<BTreeMap<String, Bridge>>")]
    pub bridges: Option<Ref<BTreeMap<String, Bridge>>>,
}

/// A bridge of the host.
// Its keys are the rows of the BRIDGE table (src/schema/network.rs).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys)]
pub struct Bridge {
    /// Host interfaces added to the bridge (addm), such as [em0].
    #[schemars(with = "Ref<Vec<String>>")]
    pub members: Option<Ref<Vec<String>>>,
    /// The bridge's own address with its prefix length, such as 192.0.2.10/24.
    #[schemars(with = "String")]
    pub ipv4: Option<String>,
}

/// One interface: `ipv4`, `ipv6` or both.
// Its keys are the rows of the INTERFACE table (src/schema/network.rs).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys, extend("minProperties" = 1))]
pub struct Interface {
    /// dhcp, or an address with its prefix length, such as 192.0.2.10/24.
    #[schemars(with = "String")]
    pub ipv4: Option<String>,
    /// slaac, or an address with its prefix length, such as 2001:db8::10/64.
    #[schemars(with = "String")]
    pub ipv6: Option<String>,
}

/// The `sshd` mapping: settings written at the top of sshd_config.
// Its keys are the rows of the SSHD table (src/schema/sshd.rs).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = prefixed_keys)]
pub struct Sshd {
    /// PermitRootLogin: no (the default), yes, prohibit-password or
    /// forced-commands-only.
    #[schemars(with = "PermitRootLogin")]
    pub permit_root_login: Option<PermitRootLogin>,
    /// PasswordAuthentication: false (the default) or true; yes/no also work.
    #[schemars(with = "YesNo")]
    pub password_authentication: Option<YesNo>,
    /// KbdInteractiveAuthentication (PAM passwords): false (the default) or
    /// true; yes/no also work.
    #[schemars(with = "YesNo")]
    pub kbd_interactive_authentication: Option<YesNo>,
    /// any other sshd_config keyword → value, such as AllowGroups: wheel; a
    /// list writes one line per item.
    #[schemars(with = "Ref<BTreeMap<String, SshdValue>>")]
    pub settings: Option<Ref<BTreeMap<String, SshdValue>>>,
    /// Match blocks written at the end of sshd_config: a list of
    /// {criteria: "Group sftp", settings: {…}}.
    #[serde(rename = "match")]
    #[schemars(rename = "match", with = "Ref<Vec<SshdMatch>>")]
    pub matches: Option<Ref<Vec<SshdMatch>>>,
    /// true: apply runs `service sshd reload` once the new file passed `sshd
    /// -t` and is in place (false: the default).
    #[schemars(with = "YesNo")]
    pub reload: Option<YesNo>,
}

/// A value of an sshd_config keyword: one line, or a list of lines.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum SshdValue {
    /// One line.
    Line(SshdScalar),
    /// One line per item.
    Lines(Vec<SshdScalar>),
    /// A whole reference.
    Reference(Reference),
}

/// One value: written as is, a boolean as yes or no.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum SshdScalar {
    /// A string.
    Text(String),
    /// An integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
}

/// One Match block.
// Its keys are the rows of the MATCH table (src/schema/sshd.rs).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SshdMatch {
    /// what follows Match, such as "Group sftp" or "User alice Address
    /// 192.0.2.0/24".
    pub criteria: Option<String>,
    /// keyword → value, each allowed inside a Match block.
    pub settings: Option<BTreeMap<String, SshdValue>>,
}

/// A PermitRootLogin value.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum PermitRootLogin {
    /// One of sshd's words.
    Word(RootLogin),
    /// true for yes, false for no.
    Bool(bool),
    /// A whole reference.
    Reference(Reference),
}

/// sshd's PermitRootLogin words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RootLogin {
    /// Root may not log in (the default).
    No,
    /// Root may log in with any method.
    Yes,
    /// Root may log in with a key, not a password.
    ProhibitPassword,
    /// Root may log in with a key that has a forced command only.
    ForcedCommandsOnly,
}

/// A yes/no setting.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum YesNo {
    /// A boolean.
    Bool(bool),
    /// The words sshd_config uses.
    Word(YesNoWord),
    /// A whole reference.
    Reference(Reference),
}

/// sshd_config's yes and no.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum YesNoWord {
    /// Yes, the same as true.
    Yes,
    /// No, the same as false.
    No,
}
