//! The rc.d scripts of the base system (`libexec/rc/rc.d/*`): the file name
//! service(8) finds a script by, the `name=` that `load_rc_config` reads
//! `rc.conf.d/NAME` for, and the `rcvar=` that `enabled` and `enable` act on
//! (`usr.sbin/service/service.sh` 6d13bb0e, `libexec/rc/rc.subr` e4452d45).
//!
//! An `X_enable` variable is not `service X enable`: `gateway_enable` has no
//! script, `firewall_enable` is the rcvar of `ipfw`, `nfs_server_enable` of
//! `nfsd`. beryl sets rc.conf variables with sysrc, and uses this table to
//! know which `rc.conf.d/NAME` files can override a variable, which scripts
//! are daemons `freebsd.services` can start ([`Run`]), which take `reload`
//! (`notify`), and which releases ship them ([`Releases`]). [`PORTS`] holds
//! the same for the ports' scripts beryl has read, [`VARS`] the variables of
//! scripts without an rcvar.
//!
//! Each row was read from the script at the commit it names. 67 of the
//! about 174 scripts of `libexec/rc/rc.d/Makefile` (0216ab4d) are here;
//! a variable of an unread script is still set, only its `rc.conf.d` file
//! is not looked at (docs/apply.md). The fake FreeBSD's rc.d scripts take
//! their `status` and `reload` from the same rows
//! (tests/fakebsd/data/rcd-methods.tsv, held to this table by a test).

/// One rc.d script.
#[derive(Debug)]
pub(crate) struct Script {
    /// The file name under `/etc/rc.d`.
    pub file: &'static str,
    /// Its `name=` (empty: none).
    pub name: &'static str,
    /// Its `rcvar=` (empty: none; `cleartmp`'s `rcvar1` is a disguise, not
    /// an rcvar: "Disguise rcvar for the start method to run irrespective
    /// of its setting").
    pub rcvar: &'static str,
    /// Whether `status` says if it runs.
    pub run: Run,
    /// Whether `extra_commands` lists `reload`: rc.subr's `run_rc_command`
    /// adds it to the keywords only then ("Note that `reload' isn't provided
    /// by default, it should be enabled via $extra_commands"); otherwise
    /// `service NAME reload` is "unknown directive" and exit 1.
    pub reload: bool,
    /// The releases that have the script.
    pub releases: Releases,
    /// The commit of freebsd/freebsd-src it was read at.
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "the row's citation; tests read it")
    )]
    pub commit: &'static str,
}

/// What `service NAME status` tells of a script (libexec/rc/rc.subr
/// 02274513, `run_rc_command`: `status` is a keyword only when `procname`
/// or `command`, `${name}_program` included, or `status_cmd` is set).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Run {
    /// A daemon, or a `status_cmd` that exits 0 when it is on and 1 when
    /// off (`ipfw`, `pf`, `apm`).
    Daemon,
    /// A one-shot script: it does its work at `start` and leaves nothing
    /// running, so `status` is an unknown directive (`accounting`,
    /// `cleartmp`), or never says running (`ddb`, `dnctl`: a `command` but
    /// a `start_cmd`), or always exits 0 (`fand`'s `fand_status`). Its
    /// `start` runs again on every call: `cleartmp` empties `/tmp`,
    /// `securelevel` raises `kern.securelevel` until the next boot.
    Once,
    /// A script without an rcvar, whose methods were not read: it runs at
    /// every boot and cannot be enabled.
    Unread,
}

/// The releases (of [`super::release::RELEASES`]) that ship a script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Releases {
    /// Every release beryl knows.
    All,
    /// This release and later ones.
    From(&'static str),
    /// The releases before this one.
    Before(&'static str),
}

impl Releases {
    /// Whether `version` (`MAJOR.MINOR`) ships the script.
    pub(crate) fn has(self, version: &str) -> bool {
        let key = |v: &str| {
            let (a, b) = v.split_once('.').unwrap_or((v, "0"));
            (a.parse::<u32>().unwrap_or(0), b.parse::<u32>().unwrap_or(0))
        };
        match self {
            Releases::All => true,
            Releases::From(v) => key(version) >= key(v),
            Releases::Before(v) => key(version) < key(v),
        }
    }
}

/// The scripts, by file name.
pub(crate) const SCRIPTS: &[Script] = &[
    Script {
        file: "abi",
        name: "abi",
        rcvar: "",
        run: Run::Unread,
        reload: false,
        releases: Releases::All,
        commit: "063a1ba3",
    },
    Script {
        file: "accounting",
        name: "accounting",
        rcvar: "accounting_enable",
        run: Run::Once,
        reload: false,
        releases: Releases::All,
        commit: "33852691",
    },
    Script {
        file: "addswap",
        name: "addswap",
        rcvar: "",
        run: Run::Unread,
        reload: false,
        releases: Releases::All,
        commit: "023fc80e",
    },
    Script {
        file: "adjkerntz",
        name: "adjkerntz",
        rcvar: "",
        run: Run::Unread,
        reload: false,
        releases: Releases::All,
        commit: "a94147c1",
    },
    Script {
        file: "apm",
        name: "apm",
        rcvar: "apm_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "6d13bb0e",
    },
    Script {
        file: "apmd",
        name: "apmd",
        rcvar: "apmd_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "1b1334b1",
    },
    Script {
        file: "archdep",
        name: "archdep",
        rcvar: "",
        run: Run::Unread,
        reload: false,
        releases: Releases::All,
        commit: "023fc80e",
    },
    Script {
        file: "auditd",
        name: "auditd",
        rcvar: "auditd_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "03ccfdd2",
    },
    Script {
        file: "auditdistd",
        name: "auditdistd",
        rcvar: "auditdistd_enable",
        run: Run::Daemon,
        reload: true,
        releases: Releases::All,
        commit: "6d13bb0e",
    },
    Script {
        file: "automount",
        name: "automount",
        rcvar: "autofs_enable",
        run: Run::Once,
        reload: false,
        releases: Releases::All,
        commit: "a94147c1",
    },
    Script {
        file: "automountd",
        name: "automountd",
        rcvar: "autofs_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "d28066d8",
    },
    Script {
        file: "autounmountd",
        name: "autounmountd",
        rcvar: "autofs_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "6d13bb0e",
    },
    Script {
        file: "backlight",
        name: "backlight",
        rcvar: "backlight_enable",
        run: Run::Once,
        reload: true,
        releases: Releases::All,
        commit: "c45bdb39",
    },
    Script {
        file: "bgfsck",
        name: "background_fsck",
        rcvar: "background_fsck",
        run: Run::Once,
        reload: false,
        releases: Releases::All,
        commit: "023fc80e",
    },
    Script {
        file: "blacklistd",
        name: "blacklistd",
        rcvar: "blacklistd_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::Before("15.0"),
        commit: "6b9c7f29",
    },
    Script {
        file: "blocklistd",
        name: "blocklistd",
        rcvar: "blocklistd_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::From("15.0"),
        commit: "5311c93f",
    },
    Script {
        file: "bluetooth",
        name: "bluetooth",
        rcvar: "",
        run: Run::Unread,
        reload: false,
        releases: Releases::All,
        commit: "023fc80e",
    },
    Script {
        file: "bootparams",
        name: "bootparamd",
        rcvar: "bootparamd_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "023fc80e",
    },
    Script {
        file: "bridge",
        name: "bridge",
        rcvar: "",
        run: Run::Unread,
        reload: false,
        releases: Releases::All,
        commit: "771ff4b8",
    },
    Script {
        file: "bsnmpd",
        name: "bsnmpd",
        rcvar: "bsnmpd_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "023fc80e",
    },
    Script {
        file: "bthidd",
        name: "bthidd",
        rcvar: "bthidd_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "19cba666",
    },
    Script {
        file: "ccd",
        name: "ccd",
        rcvar: "",
        run: Run::Unread,
        reload: false,
        releases: Releases::All,
        commit: "1b1334b1",
    },
    Script {
        file: "cfumass",
        name: "cfumass",
        rcvar: "cfumass_enable",
        run: Run::Once,
        reload: true,
        releases: Releases::All,
        commit: "19cba666",
    },
    Script {
        file: "cleanvar",
        name: "cleanvar",
        rcvar: "cleanvar_enable",
        run: Run::Once,
        reload: true,
        releases: Releases::All,
        commit: "04b24c10",
    },
    Script {
        file: "cleartmp",
        name: "cleartmp",
        rcvar: "",
        run: Run::Once,
        reload: false,
        releases: Releases::All,
        commit: "023fc80e",
    },
    Script {
        file: "cron",
        name: "cron",
        rcvar: "cron_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "d28066d8",
    },
    Script {
        file: "ctld",
        name: "ctld",
        rcvar: "ctld_enable",
        run: Run::Daemon,
        reload: true,
        releases: Releases::All,
        commit: "6d13bb0e",
    },
    Script {
        file: "ddb",
        name: "ddb",
        rcvar: "ddb_enable",
        run: Run::Once,
        reload: false,
        releases: Releases::All,
        commit: "25a3e504",
    },
    Script {
        file: "defaultroute",
        name: "defaultroute",
        rcvar: "",
        run: Run::Unread,
        reload: false,
        releases: Releases::All,
        commit: "4258829c",
    },
    Script {
        file: "devd",
        name: "devd",
        rcvar: "devd_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "61d43332",
    },
    Script {
        file: "devfs",
        name: "devfs",
        rcvar: "",
        run: Run::Unread,
        reload: false,
        releases: Releases::All,
        commit: "1b1334b1",
    },
    Script {
        file: "devmatch",
        name: "devmatch",
        rcvar: "devmatch_enable",
        run: Run::Once,
        reload: false,
        releases: Releases::All,
        commit: "023fc80e",
    },
    Script {
        file: "dhclient",
        name: "dhclient",
        rcvar: "",
        run: Run::Unread,
        reload: false,
        releases: Releases::All,
        commit: "03ccfdd2",
    },
    Script {
        file: "dmesg",
        name: "dmesg",
        rcvar: "dmesg_enable",
        run: Run::Once,
        reload: false,
        releases: Releases::All,
        commit: "0dcfecbf",
    },
    Script {
        file: "dnctl",
        name: "dnctl",
        rcvar: "dnctl_enable",
        run: Run::Once,
        reload: false,
        releases: Releases::All,
        commit: "1b1334b1",
    },
    Script {
        file: "dumpon",
        name: "dumpon",
        rcvar: "",
        run: Run::Unread,
        reload: false,
        releases: Releases::All,
        commit: "023fc80e",
    },
    Script {
        file: "fand",
        name: "fand",
        rcvar: "fand_enable",
        run: Run::Once,
        reload: false,
        releases: Releases::From("15.1"),
        commit: "81c69c22",
    },
    Script {
        file: "fsck",
        name: "fsck",
        rcvar: "",
        run: Run::Unread,
        reload: false,
        releases: Releases::All,
        commit: "6d13bb0e",
    },
    Script {
        file: "ftp-proxy",
        name: "ftpproxy",
        rcvar: "ftpproxy_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "023fc80e",
    },
    Script {
        file: "ftpd",
        name: "ftpd",
        rcvar: "ftpd_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "6d13bb0e",
    },
    Script {
        file: "gbde",
        name: "gbde",
        rcvar: "",
        run: Run::Unread,
        reload: false,
        releases: Releases::All,
        commit: "d0b2dbfa",
    },
    Script {
        file: "geli",
        name: "geli",
        rcvar: "",
        run: Run::Unread,
        reload: false,
        releases: Releases::All,
        commit: "20d4ec93",
    },
    Script {
        file: "geli2",
        name: "geli2",
        rcvar: "",
        run: Run::Unread,
        reload: false,
        releases: Releases::All,
        commit: "a94147c1",
    },
    Script {
        file: "ggated",
        name: "ggated",
        rcvar: "ggated_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "78465548",
    },
    Script {
        file: "gptboot",
        name: "gptboot",
        rcvar: "gptboot_enable",
        run: Run::Once,
        reload: false,
        releases: Releases::All,
        commit: "d0b2dbfa",
    },
    Script {
        file: "growfs",
        name: "growfs",
        rcvar: "growfs_enable",
        run: Run::Once,
        reload: false,
        releases: Releases::All,
        commit: "04500107",
    },
    Script {
        file: "growfs_fstab",
        name: "growfs_fstab",
        rcvar: "growfs_enable",
        run: Run::Once,
        reload: false,
        releases: Releases::All,
        commit: "1b1334b1",
    },
    Script {
        file: "hostname",
        name: "hostname",
        rcvar: "",
        run: Run::Unread,
        reload: false,
        releases: Releases::All,
        commit: "6d13bb0e",
    },
    Script {
        file: "inetd",
        name: "inetd",
        rcvar: "inetd_enable",
        run: Run::Daemon,
        reload: true,
        releases: Releases::All,
        commit: "6d13bb0e",
    },
    Script {
        file: "ipfw",
        name: "ipfw",
        rcvar: "firewall_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "2b1950d6",
    },
    Script {
        file: "local_unbound",
        name: "local_unbound",
        rcvar: "local_unbound_enable",
        run: Run::Daemon,
        reload: true,
        releases: Releases::All,
        commit: "1b1334b1",
    },
    Script {
        file: "lpd",
        name: "lpd",
        rcvar: "lpd_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "d28066d8",
    },
    Script {
        file: "mountd",
        name: "mountd",
        rcvar: "mountd_enable",
        run: Run::Daemon,
        reload: true,
        releases: Releases::All,
        commit: "09673fc0",
    },
    Script {
        file: "nfsclient",
        name: "nfsclient",
        rcvar: "nfs_client_enable",
        run: Run::Once,
        reload: false,
        releases: Releases::All,
        commit: "8331255c",
    },
    Script {
        file: "nfsd",
        name: "nfsd",
        rcvar: "nfs_server_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "03ccfdd2",
    },
    Script {
        file: "ntpd",
        name: "ntpd",
        rcvar: "ntpd_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "10ae3fc0",
    },
    Script {
        file: "othermta",
        name: "",
        rcvar: "",
        run: Run::Unread,
        reload: false,
        releases: Releases::All,
        commit: "023fc80e",
    },
    Script {
        file: "pf",
        name: "pf",
        rcvar: "pf_enable",
        run: Run::Daemon,
        reload: true,
        releases: Releases::All,
        commit: "1b1334b1",
    },
    Script {
        file: "powerd",
        name: "powerd",
        rcvar: "powerd_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "023fc80e",
    },
    Script {
        file: "routing",
        name: "routing",
        rcvar: "",
        run: Run::Unread,
        reload: false,
        releases: Releases::All,
        commit: "023fc80e",
    },
    Script {
        file: "rpcbind",
        name: "rpcbind",
        rcvar: "rpcbind_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "1b1334b1",
    },
    Script {
        file: "securelevel",
        name: "securelevel",
        rcvar: "kern_securelevel_enable",
        run: Run::Once,
        reload: false,
        releases: Releases::All,
        commit: "4ee2bcb4",
    },
    Script {
        file: "sendmail",
        name: "sendmail",
        rcvar: "sendmail_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "242eb8d4",
    },
    Script {
        file: "sshd",
        name: "sshd",
        rcvar: "sshd_enable",
        run: Run::Daemon,
        reload: true,
        releases: Releases::All,
        commit: "6d13bb0e",
    },
    Script {
        file: "statd",
        name: "statd",
        rcvar: "rpc_statd_enable",
        run: Run::Daemon,
        reload: false,
        releases: Releases::All,
        commit: "6d13bb0e",
    },
    Script {
        file: "syslogd",
        name: "syslogd",
        rcvar: "syslogd_enable",
        run: Run::Daemon,
        reload: true,
        releases: Releases::All,
        commit: "90dac7df",
    },
    Script {
        file: "zfs",
        name: "zfs",
        rcvar: "zfs_enable",
        run: Run::Once,
        reload: false,
        releases: Releases::All,
        commit: "13b8077b",
    },
];

/// Variables read by a script that neither names them as its rcvar nor
/// prefixes them with its name, with the `load_rc_config` names whose
/// `rc.conf.d` file can set them (a variable, or a prefix ending in `_`).
pub(crate) const VARS: &[(&str, &[&str], &str)] = &[
    // rc.d/netif 023fc80e: `load_rc_config network` then `load_rc_config
    // $name` (netif); `list_net_interfaces` and `ifn_start` read ifconfig_IF.
    (
        "ifconfig_",
        &["network", "netif"],
        "libexec/rc/rc.d/netif 023fc80e",
    ),
    // rc.d/routing 023fc80e: `load_rc_config $name` (routing); static_inet
    // reads defaultrouter, static_inet6 ipv6_defaultrouter, options_inet
    // gateway_enable, options_inet6 ipv6_gateway_enable.
    (
        "defaultrouter",
        &["routing"],
        "libexec/rc/rc.d/routing 023fc80e",
    ),
    (
        "ipv6_defaultrouter",
        &["routing"],
        "libexec/rc/rc.d/routing 023fc80e",
    ),
    (
        "gateway_enable",
        &["routing"],
        "libexec/rc/rc.d/routing 023fc80e",
    ),
    (
        "ipv6_gateway_enable",
        &["routing"],
        "libexec/rc/rc.d/routing 023fc80e",
    ),
    // rc.d/hostname 6d13bb0e: `load_rc_config $name`; hostname_start
    // reads ${hostname}.
    (
        "hostname",
        &["hostname"],
        "libexec/rc/rc.d/hostname 6d13bb0e",
    ),
    // rc.d/cleartmp 023fc80e: `load_rc_config $name`; cleartmp_start reads
    // ${rcvar1}, clear_tmp_enable.
    (
        "clear_tmp_enable",
        &["cleartmp"],
        "libexec/rc/rc.d/cleartmp 023fc80e",
    ),
];

/// The `rc.conf.d` names whose file can set `var` for the script that reads
/// it: a row of [`VARS`], the scripts whose rcvar is `var`, else those whose
/// name prefixes it (`sshd_flags` → sshd), else, for a package's
/// `X_enable`, the name of the port script of that rcvar ([`PORTS`]) or `X`
/// (the convention of ports' rc scripts).
pub(crate) fn owners(var: &str) -> Vec<String> {
    let by_var = VARS.iter().find(|(v, _, _)| match v.ends_with('_') {
        true => var.starts_with(v) && var.len() > v.len(),
        false => var == *v,
    });
    if let Some((_, names, _)) = by_var {
        return names.iter().map(|n| n.to_string()).collect();
    }
    let by_rcvar: Vec<String> = SCRIPTS
        .iter()
        .filter(|s| !s.name.is_empty() && s.rcvar == var)
        .map(|s| s.name.to_string())
        .collect();
    if !by_rcvar.is_empty() {
        return by_rcvar;
    }
    let by_prefix = SCRIPTS
        .iter()
        .filter(|s| !s.name.is_empty())
        .filter(|s| {
            var.strip_prefix(s.name)
                .is_some_and(|rest| rest.starts_with('_'))
        })
        .max_by_key(|s| s.name.len());
    if let Some(s) = by_prefix {
        return vec![s.name.to_string()];
    }
    if let Some(p) = PORTS.iter().find(|p| p.rcvar == var) {
        return vec![p.name.to_string()];
    }
    match var.strip_suffix("_enable") {
        Some(x) if !x.is_empty() => vec![x.to_string()],
        _ => Vec::new(),
    }
}

/// A port's rc.d script whose file name is not its `name=`, or whose
/// `reload` beryl needs to know, read in freebsd/freebsd-ports.
#[derive(Debug)]
pub(crate) struct Port {
    /// The file name under `/usr/local/etc/rc.d`.
    pub file: &'static str,
    /// Its `name=`.
    pub name: &'static str,
    /// Its `rcvar=`.
    pub rcvar: &'static str,
    /// Whether `extra_commands` lists `reload`.
    pub reload: bool,
    /// The file read, with its commit.
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "the row's citation; tests read it")
    )]
    pub source: &'static str,
}

/// The ports' scripts beryl knows. Any other package script is taken to
/// follow the convention (`name` its file name, rcvar `NAME_enable`).
pub(crate) const PORTS: &[Port] = &[
    Port {
        file: "mysql-server",
        name: "mysql",
        rcvar: "mysql_enable",
        reload: false,
        source: "databases/mysql84-server/files/mysql-server.in 443408a6",
    },
    Port {
        file: "clamav-clamd",
        name: "clamav_clamd",
        // `rcvar=`set_rcvar``: ${name}_enable.
        rcvar: "clamav_clamd_enable",
        reload: true,
        source: "security/clamav/files/clamav-clamd.in 494e64d3",
    },
    Port {
        file: "nginx",
        name: "nginx",
        rcvar: "nginx_enable",
        reload: true,
        source: "www/nginx/files/nginx.in 135fdeeb",
    },
];

/// A service as `freebsd.services` and `notify` name it: the rc.d script
/// service(8) runs, the variable that enables it, and the `rc.conf.d` name
/// its `load_rc_config` reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Service {
    /// The script's file name (`service NAME …`).
    pub script: String,
    /// Its `rcvar`.
    pub rcvar: String,
    /// Its `name=`, for `rc.conf.d/NAME`.
    pub name: String,
}

/// The service of a script file name: a base script's row (which may name
/// another variable: `ipfw` is enabled by `firewall_enable`), a port's row
/// (`mysql-server` is `mysql`, `mysql_enable`), else a package's script,
/// whose `name` is its file name and whose rcvar is `NAME_enable` (the
/// ports convention). A base script without an rcvar runs at every boot and
/// cannot be enabled; a one-shot script has no state to converge to.
pub(crate) fn service(file: &str) -> Result<Service, &'static str> {
    if let Some(s) = SCRIPTS.iter().find(|s| s.file == file) {
        return match (s.rcvar.is_empty(), s.run) {
            (_, Run::Once) => Err(
                "its base rc.d script is one-shot: it leaves nothing running, so `service status` \
                 cannot say it is started, and apply would run its `start` again at every run",
            ),
            (true, _) => Err("its base rc.d script has no rcvar: it runs at every boot"),
            (false, _) => Ok(Service {
                script: file.to_string(),
                rcvar: s.rcvar.to_string(),
                name: if s.name.is_empty() { file } else { s.name }.to_string(),
            }),
        };
    }
    if let Some(p) = PORTS.iter().find(|p| p.file == file) {
        return Ok(Service {
            script: file.to_string(),
            rcvar: p.rcvar.to_string(),
            name: p.name.to_string(),
        });
    }
    Ok(Service {
        script: file.to_string(),
        rcvar: format!("{file}_enable"),
        name: file.to_string(),
    })
}

/// Whether `notify` may name the script: a one-shot base script ([`Run::Once`])
/// would run its `start` again at every change of the file (`cleartmp`
/// empties /tmp, `securelevel` raises the securelevel until reboot).
pub(crate) fn notifiable(file: &str) -> Result<(), &'static str> {
    match SCRIPTS.iter().find(|s| s.file == file).map(|s| s.run) {
        Some(Run::Once) => Err(
            "its base rc.d script is one-shot: a restart runs its `start` again (cleartmp empties \
             /tmp, securelevel raises kern.securelevel until reboot), and it has nothing to reload",
        ),
        _ => Ok(()),
    }
}

/// Whether `service FILE reload` is a keyword of the script: `Err` with why
/// not for a base or known port script whose `extra_commands` lacks it. A
/// package script beryl has not read is given the benefit of the doubt.
pub(crate) fn reload(file: &str) -> Result<(), &'static str> {
    let listed = SCRIPTS
        .iter()
        .find(|s| s.file == file)
        .map(|s| s.reload)
        .or_else(|| PORTS.iter().find(|p| p.file == file).map(|p| p.reload));
    match listed {
        Some(false) => Err(
            "its rc.d script does not list `reload` in extra_commands: rc.subr would answer \
             \"unknown directive\" and exit 1, failing the run after the file changed",
        ),
        _ => Ok(()),
    }
}

/// The base script of a file name, if any.
pub(crate) fn base(file: &str) -> Option<&'static Script> {
    SCRIPTS.iter().find(|s| s.file == file)
}

/// Scripts whose `start` on a running host can cut the SSH connection apply
/// runs over, and why (issue 34, item 13).
pub(crate) const FIREWALLS: &[(&str, &str)] = &[
    (
        "pf",
        "rc.d/pf's pf_start (1b1334b1) runs `pfctl -F all` before loading the rules and \
         enabling pf: every state is flushed, the one of the SSH connection apply runs over \
         included, and unless a rule passes that connection's next packets it is cut",
    ),
    (
        "ipfw",
        "rc.d/ipfw's ipfw_start (2b1950d6) loads `firewall_script` with `firewall_type`, and \
         without rules the kernel's default rule denies everything (\"All ip services are \
         disabled\"); apply's SSH connection is cut unless the rules pass it",
    ),
];

/// Why starting a script from apply can cut apply's own connection.
pub(crate) fn firewall(file: &str) -> Option<&'static str> {
    FIREWALLS
        .iter()
        .find(|(f, _)| *f == file)
        .map(|(_, why)| *why)
}

/// Whether a script's file name may be written with a hyphen: those of
/// the base system and the ports beryl knows (`ftp-proxy`,
/// `mysql-server`). service(8) finds scripts by file name; beryl quotes it.
pub(crate) fn known_file(file: &str) -> bool {
    SCRIPTS.iter().any(|s| s.file == file) || PORTS.iter().any(|p| p.file == file)
}

/// Whether the base system has a script of this file name.
#[cfg(test)]
pub(crate) fn exists(file: &str) -> bool {
    SCRIPTS.iter().any(|s| s.file == file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_cites_its_file_and_commit() {
        for s in SCRIPTS {
            assert!(!s.file.is_empty() && !s.file.contains('/'), "{}", s.file);
            assert!(
                s.commit.len() == 8 && s.commit.bytes().all(|b| b.is_ascii_hexdigit()),
                "{}: commit {:?}",
                s.file,
                s.commit
            );
        }
        let files: std::collections::BTreeSet<_> = SCRIPTS.iter().map(|s| s.file).collect();
        assert_eq!(files.len(), SCRIPTS.len(), "a file has two rows");
    }

    #[test]
    fn enable_variables_are_not_script_names() {
        assert_eq!(owners("firewall_enable"), ["ipfw"]);
        assert_eq!(owners("nfs_server_enable"), ["nfsd"]);
        assert_eq!(owners("clear_tmp_enable"), ["cleartmp"]);
        assert_eq!(owners("ifconfig_em0"), ["network", "netif"]);
        assert_eq!(owners("ifconfig_em0_ipv6"), ["network", "netif"]);
        assert_eq!(owners("defaultrouter"), ["routing"]);
        assert_eq!(owners("ipv6_defaultrouter"), ["routing"]);
        assert_eq!(owners("hostname"), ["hostname"]);
        assert_eq!(owners("mysql_enable"), ["mysql"]);
        assert_eq!(
            owners("autofs_enable"),
            ["automount", "automountd", "autounmountd"]
        );
        assert_eq!(owners("sshd_flags"), ["sshd"]);
        assert_eq!(owners("sshd_enable"), ["sshd"]);
        assert_eq!(owners("nginx_enable"), ["nginx"]);
        assert_eq!(owners("gateway_enable"), ["routing"]);
        assert!(exists("ipfw") && !exists("gateway") && !exists("firewall"));
    }

    #[test]
    fn services_are_enabled_by_their_rcvar() {
        let ipfw = service("ipfw").unwrap();
        assert_eq!(
            (ipfw.rcvar.as_str(), ipfw.name.as_str()),
            ("firewall_enable", "ipfw")
        );
        assert_eq!(service("pf").unwrap().rcvar, "pf_enable");
        let nginx = service("nginx").unwrap();
        assert_eq!(
            (nginx.rcvar.as_str(), nginx.name.as_str()),
            ("nginx_enable", "nginx")
        );
        assert!(service("abi").is_err());
        let mysql = service("mysql-server").unwrap();
        assert_eq!(
            (mysql.rcvar.as_str(), mysql.name.as_str()),
            ("mysql_enable", "mysql")
        );
        let clamd = service("clamav-clamd").unwrap();
        assert_eq!(clamd.rcvar, "clamav_clamd_enable");
    }

    #[test]
    fn one_shot_scripts_are_not_services() {
        // rc.d/cleartmp has no rcvar (rcvar1 is a disguise); accounting,
        // dmesg, securelevel, bgfsck have one but no status.
        for once in [
            "cleartmp",
            "accounting",
            "dmesg",
            "securelevel",
            "bgfsck",
            "ddb",
        ] {
            assert!(service(once).is_err(), "{once}");
        }
        assert_eq!(base("cleartmp").unwrap().rcvar, "");
        for daemon in ["sshd", "cron", "ntpd", "pf", "ipfw", "syslogd"] {
            assert!(service(daemon).is_ok(), "{daemon}");
        }
        // Every row with an rcvar was read for its status.
        for s in SCRIPTS {
            assert_eq!(
                s.rcvar.is_empty() && s.file != "cleartmp",
                s.run == Run::Unread,
                "{}",
                s.file
            );
        }
    }

    #[test]
    fn reload_only_where_extra_commands_lists_it() {
        assert!(notifiable("cleartmp").is_err() && notifiable("securelevel").is_err());
        assert!(notifiable("cron").is_ok() && notifiable("mysql-server").is_ok());
        assert!(reload("cron").is_err());
        assert!(reload("ntpd").is_err());
        assert!(reload("mysql-server").is_err());
        for ok in [
            "sshd",
            "syslogd",
            "pf",
            "inetd",
            "nginx",
            "clamav-clamd",
            "a_port",
        ] {
            assert!(reload(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn scripts_by_release() {
        let has = |f: &str, v: &str| base(f).unwrap().releases.has(v);
        assert!(has("blacklistd", "14.3") && !has("blacklistd", "15.0"));
        assert!(!has("blocklistd", "14.3") && has("blocklistd", "15.0"));
        assert!(!has("fand", "14.3") && !has("fand", "15.0") && has("fand", "15.1"));
        assert!(has("sshd", "14.3") && has("sshd", "15.1"));
        for s in SCRIPTS {
            if let Releases::From(v) | Releases::Before(v) = s.releases {
                assert!(
                    crate::freebsd::release::find(v).is_some(),
                    "{}: {v}",
                    s.file
                );
            }
        }
    }

    #[test]
    fn the_harness_table_is_the_rcd_table() {
        // The fake FreeBSD generates its rc.d scripts' status and reload
        // keywords from this file (tests/fakebsd/README.md).
        let tsv = include_str!("../../tests/fakebsd/data/rcd-methods.tsv");
        let rows: Vec<Vec<&str>> = tsv
            .lines()
            .filter(|l| !l.starts_with('#'))
            .skip(1)
            .map(|l| l.split('\t').collect())
            .collect();
        assert_eq!(rows.len(), SCRIPTS.len());
        for (row, s) in rows.iter().zip(SCRIPTS) {
            let run = match s.run {
                Run::Daemon => "daemon",
                Run::Once => "once",
                Run::Unread => "unread",
            };
            let releases = match s.releases {
                Releases::All => "all".to_string(),
                Releases::From(v) => format!("from:{v}"),
                Releases::Before(v) => format!("before:{v}"),
            };
            let reload = if s.reload { "yes" } else { "no" };
            assert_eq!(
                row,
                &[s.file, run, reload, releases.as_str(), s.commit],
                "{}",
                s.file
            );
        }
    }

    #[test]
    fn ports_rows_cite_their_file() {
        for p in PORTS {
            assert!(
                p.source.contains("/files/") && p.source.ends_with(|c: char| c.is_ascii_hexdigit()),
                "{}",
                p.file
            );
            assert!(
                crate::freebsd::names::rc_name(p.rcvar).is_ok()
                    && crate::freebsd::names::rc_name(p.name).is_ok()
            );
        }
    }
}
