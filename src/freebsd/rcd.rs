//! The rc.d scripts of the base system (`libexec/rc/rc.d/*`): the file name
//! service(8) finds a script by, the `name=` that `load_rc_config` reads
//! `rc.conf.d/NAME` for, and the `rcvar=` that `enabled` and `enable` act on
//! (`usr.sbin/service/service.sh` 6d13bb0e, `libexec/rc/rc.subr` e4452d45).
//!
//! An `X_enable` variable is not `service X enable`: `gateway_enable` has no
//! script, `firewall_enable` is the rcvar of `ipfw`, `nfs_server_enable` of
//! `nfsd`. beryl sets rc.conf variables with sysrc, and uses this table only
//! to know which `rc.conf.d/NAME` files can override a variable.
//!
//! Each row was read from the script at the commit it names. 67 of the
//! about 174 scripts of `libexec/rc/rc.d/Makefile` (0216ab4d) are here;
//! a variable of an unread script is still set, only its `rc.conf.d` file
//! is not looked at (docs/apply.md).

/// One rc.d script.
#[derive(Debug)]
pub(crate) struct Script {
    /// The file name under `/etc/rc.d`.
    pub file: &'static str,
    /// Its `name=` (empty: none).
    pub name: &'static str,
    /// Its `rcvar=` (empty: none).
    pub rcvar: &'static str,
    /// The commit of freebsd/freebsd-src it was read at.
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "the row's citation; tests read it")
    )]
    pub commit: &'static str,
}

/// The scripts, by file name.
pub(crate) const SCRIPTS: &[Script] = &[
    Script {
        file: "abi",
        name: "abi",
        rcvar: "",
        commit: "063a1ba3",
    },
    Script {
        file: "accounting",
        name: "accounting",
        rcvar: "accounting_enable",
        commit: "33852691",
    },
    Script {
        file: "addswap",
        name: "addswap",
        rcvar: "",
        commit: "023fc80e",
    },
    Script {
        file: "adjkerntz",
        name: "adjkerntz",
        rcvar: "",
        commit: "a94147c1",
    },
    Script {
        file: "apm",
        name: "apm",
        rcvar: "apm_enable",
        commit: "6d13bb0e",
    },
    Script {
        file: "apmd",
        name: "apmd",
        rcvar: "apmd_enable",
        commit: "1b1334b1",
    },
    Script {
        file: "archdep",
        name: "archdep",
        rcvar: "",
        commit: "023fc80e",
    },
    Script {
        file: "auditd",
        name: "auditd",
        rcvar: "auditd_enable",
        commit: "03ccfdd2",
    },
    Script {
        file: "auditdistd",
        name: "auditdistd",
        rcvar: "auditdistd_enable",
        commit: "6d13bb0e",
    },
    Script {
        file: "automount",
        name: "automount",
        rcvar: "autofs_enable",
        commit: "a94147c1",
    },
    Script {
        file: "automountd",
        name: "automountd",
        rcvar: "autofs_enable",
        commit: "d28066d8",
    },
    Script {
        file: "autounmountd",
        name: "autounmountd",
        rcvar: "autofs_enable",
        commit: "6d13bb0e",
    },
    Script {
        file: "backlight",
        name: "backlight",
        rcvar: "backlight_enable",
        commit: "c45bdb39",
    },
    Script {
        file: "bgfsck",
        name: "background_fsck",
        rcvar: "background_fsck",
        commit: "023fc80e",
    },
    Script {
        file: "blacklistd",
        name: "blacklistd",
        rcvar: "blacklistd_enable",
        commit: "6b9c7f29",
    },
    Script {
        file: "blocklistd",
        name: "blocklistd",
        rcvar: "blocklistd_enable",
        commit: "5311c93f",
    },
    Script {
        file: "bluetooth",
        name: "bluetooth",
        rcvar: "",
        commit: "023fc80e",
    },
    Script {
        file: "bootparams",
        name: "bootparamd",
        rcvar: "bootparamd_enable",
        commit: "023fc80e",
    },
    Script {
        file: "bridge",
        name: "bridge",
        rcvar: "",
        commit: "771ff4b8",
    },
    Script {
        file: "bsnmpd",
        name: "bsnmpd",
        rcvar: "bsnmpd_enable",
        commit: "023fc80e",
    },
    Script {
        file: "bthidd",
        name: "bthidd",
        rcvar: "bthidd_enable",
        commit: "19cba666",
    },
    Script {
        file: "ccd",
        name: "ccd",
        rcvar: "",
        commit: "1b1334b1",
    },
    Script {
        file: "cfumass",
        name: "cfumass",
        rcvar: "cfumass_enable",
        commit: "19cba666",
    },
    Script {
        file: "cleanvar",
        name: "cleanvar",
        rcvar: "cleanvar_enable",
        commit: "04b24c10",
    },
    Script {
        file: "cleartmp",
        name: "cleartmp",
        rcvar: "clear_tmp_enable",
        commit: "023fc80e",
    },
    Script {
        file: "cron",
        name: "cron",
        rcvar: "cron_enable",
        commit: "d28066d8",
    },
    Script {
        file: "ctld",
        name: "ctld",
        rcvar: "ctld_enable",
        commit: "6d13bb0e",
    },
    Script {
        file: "ddb",
        name: "ddb",
        rcvar: "ddb_enable",
        commit: "25a3e504",
    },
    Script {
        file: "defaultroute",
        name: "defaultroute",
        rcvar: "",
        commit: "4258829c",
    },
    Script {
        file: "devd",
        name: "devd",
        rcvar: "devd_enable",
        commit: "61d43332",
    },
    Script {
        file: "devfs",
        name: "devfs",
        rcvar: "",
        commit: "1b1334b1",
    },
    Script {
        file: "devmatch",
        name: "devmatch",
        rcvar: "devmatch_enable",
        commit: "023fc80e",
    },
    Script {
        file: "dhclient",
        name: "dhclient",
        rcvar: "",
        commit: "03ccfdd2",
    },
    Script {
        file: "dmesg",
        name: "dmesg",
        rcvar: "dmesg_enable",
        commit: "0dcfecbf",
    },
    Script {
        file: "dnctl",
        name: "dnctl",
        rcvar: "dnctl_enable",
        commit: "1b1334b1",
    },
    Script {
        file: "dumpon",
        name: "dumpon",
        rcvar: "",
        commit: "023fc80e",
    },
    Script {
        file: "fand",
        name: "fand",
        rcvar: "fand_enable",
        commit: "81c69c22",
    },
    Script {
        file: "fsck",
        name: "fsck",
        rcvar: "",
        commit: "6d13bb0e",
    },
    Script {
        file: "ftp-proxy",
        name: "ftpproxy",
        rcvar: "ftpproxy_enable",
        commit: "023fc80e",
    },
    Script {
        file: "ftpd",
        name: "ftpd",
        rcvar: "ftpd_enable",
        commit: "6d13bb0e",
    },
    Script {
        file: "gbde",
        name: "gbde",
        rcvar: "",
        commit: "d0b2dbfa",
    },
    Script {
        file: "geli",
        name: "geli",
        rcvar: "",
        commit: "20d4ec93",
    },
    Script {
        file: "geli2",
        name: "geli2",
        rcvar: "",
        commit: "a94147c1",
    },
    Script {
        file: "ggated",
        name: "ggated",
        rcvar: "ggated_enable",
        commit: "78465548",
    },
    Script {
        file: "gptboot",
        name: "gptboot",
        rcvar: "gptboot_enable",
        commit: "d0b2dbfa",
    },
    Script {
        file: "growfs",
        name: "growfs",
        rcvar: "growfs_enable",
        commit: "04500107",
    },
    Script {
        file: "growfs_fstab",
        name: "growfs_fstab",
        rcvar: "growfs_enable",
        commit: "1b1334b1",
    },
    Script {
        file: "hostname",
        name: "hostname",
        rcvar: "",
        commit: "6d13bb0e",
    },
    Script {
        file: "inetd",
        name: "inetd",
        rcvar: "inetd_enable",
        commit: "6d13bb0e",
    },
    Script {
        file: "ipfw",
        name: "ipfw",
        rcvar: "firewall_enable",
        commit: "2b1950d6",
    },
    Script {
        file: "local_unbound",
        name: "local_unbound",
        rcvar: "local_unbound_enable",
        commit: "1b1334b1",
    },
    Script {
        file: "lpd",
        name: "lpd",
        rcvar: "lpd_enable",
        commit: "d28066d8",
    },
    Script {
        file: "mountd",
        name: "mountd",
        rcvar: "mountd_enable",
        commit: "09673fc0",
    },
    Script {
        file: "nfsclient",
        name: "nfsclient",
        rcvar: "nfs_client_enable",
        commit: "8331255c",
    },
    Script {
        file: "nfsd",
        name: "nfsd",
        rcvar: "nfs_server_enable",
        commit: "03ccfdd2",
    },
    Script {
        file: "ntpd",
        name: "ntpd",
        rcvar: "ntpd_enable",
        commit: "10ae3fc0",
    },
    Script {
        file: "othermta",
        name: "",
        rcvar: "",
        commit: "023fc80e",
    },
    Script {
        file: "pf",
        name: "pf",
        rcvar: "pf_enable",
        commit: "1b1334b1",
    },
    Script {
        file: "powerd",
        name: "powerd",
        rcvar: "powerd_enable",
        commit: "023fc80e",
    },
    Script {
        file: "routing",
        name: "routing",
        rcvar: "",
        commit: "023fc80e",
    },
    Script {
        file: "rpcbind",
        name: "rpcbind",
        rcvar: "rpcbind_enable",
        commit: "1b1334b1",
    },
    Script {
        file: "securelevel",
        name: "securelevel",
        rcvar: "kern_securelevel_enable",
        commit: "4ee2bcb4",
    },
    Script {
        file: "sendmail",
        name: "sendmail",
        rcvar: "sendmail_enable",
        commit: "242eb8d4",
    },
    Script {
        file: "sshd",
        name: "sshd",
        rcvar: "sshd_enable",
        commit: "6d13bb0e",
    },
    Script {
        file: "statd",
        name: "statd",
        rcvar: "rpc_statd_enable",
        commit: "6d13bb0e",
    },
    Script {
        file: "syslogd",
        name: "syslogd",
        rcvar: "syslogd_enable",
        commit: "90dac7df",
    },
    Script {
        file: "zfs",
        name: "zfs",
        rcvar: "zfs_enable",
        commit: "13b8077b",
    },
];

/// The `rc.conf.d` names whose file can set `var` for the script that reads
/// it: the scripts whose rcvar is `var`, else those whose name prefixes it
/// (`sshd_flags` → sshd), else, for a package's `X_enable`, `X` (the
/// convention of ports' rc scripts).
pub(crate) fn owners(var: &str) -> Vec<String> {
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
    match var.strip_suffix("_enable") {
        Some(x) if !x.is_empty() => vec![x.to_string()],
        _ => Vec::new(),
    }
}

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
/// another variable: `ipfw` is enabled by `firewall_enable`), else a
/// package's script, whose `name` is its file name and whose rcvar is
/// `NAME_enable` (the ports convention; ports are not FreeBSD src and were
/// not read). A base script without an rcvar runs at every boot and cannot
/// be enabled.
pub(crate) fn service(file: &str) -> Result<Service, &'static str> {
    match SCRIPTS.iter().find(|s| s.file == file) {
        Some(s) if s.rcvar.is_empty() => {
            Err("its base rc.d script has no rcvar: it runs at every boot")
        }
        Some(s) => Ok(Service {
            script: file.to_string(),
            rcvar: s.rcvar.to_string(),
            name: if s.name.is_empty() { file } else { s.name }.to_string(),
        }),
        None => Ok(Service {
            script: file.to_string(),
            rcvar: format!("{file}_enable"),
            name: file.to_string(),
        }),
    }
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
        assert_eq!(
            owners("autofs_enable"),
            ["automount", "automountd", "autounmountd"]
        );
        assert_eq!(owners("sshd_flags"), ["sshd"]);
        assert_eq!(owners("sshd_enable"), ["sshd"]);
        assert_eq!(owners("nginx_enable"), ["nginx"]);
        assert_eq!(owners("gateway_enable"), ["gateway"]);
        assert!(owners("hostname").is_empty());
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
    }
}
