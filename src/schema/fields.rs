//! The keys of the `freebsd` mapping: one row per key, one checker per row.
//!
//! To add a key: write a checker `fn(&mut Ctx, &At, &mut FreeBsd)` (usually a
//! one-liner over a [`Rule`]), add the model field, and add a row to [`FREEBSD`].

use crate::diag::Diag;
use crate::value::Value;

use super::Code;
use super::ctx::{self, At, Ctx, Field, Rule};
use super::model::{FreeBsd, Located};
use super::{disks, files, jail, network, services, sshd, system, users, zfs};
use crate::freebsd::names;

/// The keys of `freebsd`, in the order the docs list them.
pub(crate) const FREEBSD: &[Field<FreeBsd>] = &[
    Field {
        key: "hostname",
        doc: "fully qualified host name (RFC 1123), such as web01.example.org",
        aliases: &["host", "fqdn", "host_name"],
        check: hostname,
    },
    Field {
        key: "timezone",
        doc: "IANA time zone, such as Europe/Berlin",
        aliases: &["tz", "time_zone", "zone"],
        check: timezone,
    },
    Field {
        key: "raid",
        doc: "ZFS layout of the boot pool: stripe, mirror, raid10, raidz1, raidz2 or raidz3",
        aliases: &["vdev_type", "layout", "raid_level"],
        check: disks::raid,
    },
    Field {
        key: "disks",
        doc: "whole disks of the boot pool, such as [ada0, ada1]; the installer wipes them",
        aliases: &["disk", "devices", "drives"],
        check: disks::disks,
    },
    Field {
        key: "pool",
        doc: "name of the ZFS boot pool (zfsboot's default is zroot)",
        aliases: &["pool_name", "zpool", "zfs_pool"],
        check: pool,
    },
    Field {
        key: "swap",
        doc: "swap size per disk, such as 4g, or 0 for none",
        aliases: &["swap_size", "swap_gb"],
        check: swap,
    },
    Field {
        key: "packages",
        doc: "packages to install, by name (sudo) or origin (security/sudo)",
        aliases: &["package", "pkgs", "pkg"],
        check: packages,
    },
    Field {
        key: "sudoers",
        doc: "lines of the sudoers drop-in, one rule per item",
        aliases: &["sudo", "sudoer"],
        check: sudoers,
    },
    Field {
        key: "users",
        doc: "user accounts, each a mapping with at least `name`",
        aliases: &["user", "accounts"],
        check: users::users,
    },
    Field {
        key: "install",
        doc: "how bsdinstall installs the base system: dists (the default) or pkgbase; none for a running host beryl never installs (apply manages it, plan refuses it)",
        aliases: &[
            "base_install",
            "install_method",
            "installer",
            "distributions",
        ],
        check: install,
    },
    Field {
        key: "version",
        doc: "FreeBSD release as MAJOR.MINOR, quoted, such as \"15.0\"",
        aliases: &["release", "os_version", "freebsd_version", "osrelease"],
        check: version,
    },
    Field {
        key: "dist_site",
        doc: "URL the installer fetches missing distribution sets from (BSDINSTALL_DISTSITE), such as https://download.freebsd.org/releases/amd64/15.0-RELEASE",
        aliases: &["distsite", "bsdinstall_distsite", "mirror", "dist_url"],
        check: dist_site,
    },
    Field {
        key: "root_password",
        doc: "root's password as a crypt(3) hash ($6$…); when absent, root's password is locked",
        aliases: &["root_password_hash", "root_pw", "rootpw", "root_hash"],
        check: root_password,
    },
    Field {
        key: "network",
        doc: "interfaces (DHCP/SLAAC or static addresses), default routers and name servers",
        aliases: &["net", "networking", "interfaces", "ifconfig"],
        check: network::network,
    },
    Field {
        key: "rc_conf",
        doc: "other rc.conf variables, such as ntpd_enable: true (written YES)",
        aliases: &["rc", "rcconf", "rc.conf", "sysrc", "rc_vars"],
        check: services::rc_conf,
    },
    Field {
        key: "sshd",
        doc: "sshd settings: permit_root_login, password_authentication, kbd_interactive_authentication",
        aliases: &["sshd_config", "openssh"],
        check: sshd::sshd,
    },
    Field {
        key: "files",
        doc: "whole files keyed by absolute path, each with one of content, template or source, and mode, owner, group, validate, notify",
        aliases: &["file", "managed_files", "templates", "configs"],
        check: files::files,
    },
    Field {
        key: "services",
        doc: "rc.d services keyed by name, such as nginx: {enable: true}: enabled through their rcvar and started",
        aliases: &["service", "daemons", "rc_d", "rcd"],
        check: files::services,
    },
    Field {
        key: "zfs",
        doc: "data pools made at install (pools) and datasets with ZFS properties (datasets)",
        aliases: &["zfs_datasets", "zpools", "storage"],
        check: zfs::zfs,
    },
    Field {
        key: "sysctl",
        doc: "kernel state: MIB name to value, kept in /etc/sysctl.conf and set live, such as kern.ipc.somaxconn: 1024",
        aliases: &["sysctls", "sysctl_conf", "sysctl.conf", "sysctl_vars"],
        check: system::sysctl,
    },
    Field {
        key: "loader",
        doc: "/boot/loader.conf variables, such as accf_http_load: true (written YES, by sysrc), and dotted tunables, such as kern.maxusers: 512 (written in /boot/loader.conf.d/beryl.conf); a change needs a reboot",
        aliases: &[
            "loader_conf",
            "loader.conf",
            "boot_loader",
            "tunables",
            "boot",
        ],
        check: system::loader,
    },
    Field {
        key: "cron",
        doc: "scheduled jobs: entry name to {schedule, user, command}, one file each in the release's cron drop-in directory",
        aliases: &[
            "crontab",
            "crontabs",
            "cron_jobs",
            "cronjobs",
            "jobs",
            "cron.d",
        ],
        check: system::cron,
    },
    Field {
        key: "jail",
        doc: "for a jail (a file under HOST.jails/): its name, base, dataset, path, network (aliases or vnet), parameters, mounts, rctl, boot, depend and restart",
        aliases: &["jail_conf", "jails", "container"],
        check: jail::jail,
    },
];

const HOSTNAME: Rule = Rule {
    check: names::hostname,
    code: Code::Hostname,
    what: "host name",
    help: |_| {
        "use dot-separated labels of letters, digits and `-`, such as web01.example.org".into()
    },
};

const TIMEZONE: Rule = Rule {
    check: names::timezone,
    code: Code::Timezone,
    what: "time zone",
    help: |_| {
        "use a name from the tz database, such as Europe/Berlin, America/New_York or UTC".into()
    },
};

const POOL: Rule = Rule {
    check: names::pool,
    code: Code::Pool,
    what: "pool name",
    help: |_| "start with a letter, then use letters, digits and `_ . : -`, such as zroot".into(),
};

const DIST_SITE: Rule = Rule {
    check: names::dist_site,
    code: Code::DistSite,
    what: "distribution site",
    help: |_| {
        "give the URL of the release's directory, such as https://download.freebsd.org/releases/amd64/15.0-RELEASE".into()
    },
};

const ROOT_PASSWORD: Rule = Rule {
    check: names::password_hash,
    code: Code::PasswordHash,
    what: "password hash",
    help: |_| {
        "give a hash, never a password: such as the output of `openssl passwd -6`; or remove the key to lock root's password".into()
    },
};

const PACKAGE: Rule = Rule {
    check: names::package,
    code: Code::Package,
    what: "package",
    help: |_| "give a package name such as sudo, or an origin such as security/sudo".into(),
};

const SUDOERS: Rule = Rule {
    check: names::sudoers_line,
    code: Code::Sudoers,
    what: "sudoers line",
    help: |_| "give one non-empty sudoers rule per item, such as `%wheel ALL=(ALL:ALL) ALL`".into(),
};

fn hostname(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    out.hostname = cx.checked(&at.path, at.node, &HOSTNAME);
}

fn timezone(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    out.timezone = cx.checked(&at.path, at.node, &TIMEZONE);
}

fn pool(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    out.pool = cx.checked(&at.path, at.node, &POOL);
}

fn dist_site(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    out.dist_site = cx.checked(&at.path, at.node, &DIST_SITE);
}

fn root_password(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    out.root_password = cx.checked(&at.path, at.node, &ROOT_PASSWORD);
}

fn packages(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    out.packages = cx.checked_list(&at.path, at.node, &PACKAGE);
}

fn sudoers(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    out.sudoers = cx.checked_list(&at.path, at.node, &SUDOERS);
}

fn swap(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    let text = match &at.node.value {
        Value::Int(n) => n.to_string(),
        Value::Str(s) => s.clone(),
        _ => {
            cx.push(cx.type_error(&at.path, "a size such as 4g", at.node));
            return;
        }
    };
    match names::swap(&text) {
        Ok(_) => out.swap = Some(Located::new(text, at.node.span.clone())),
        Err(reason) => cx.push(
            Diag::new(Code::Swap, format!("invalid {}: {reason}", at.path))
                .label(&at.node.span, "not a valid swap size")
                .help("write 0 for no swap, or a size of at least 100m, such as 2g"),
        ),
    }
}

fn install(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    let Some(s) = cx.string(&at.path, at.node) else {
        return;
    };
    match names::install(s) {
        Ok(i) => out.install = Some(Located::new(i, at.node.span.clone())),
        Err(reason) => cx.push(
            Diag::new(Code::Install, format!("invalid {}: {reason}", at.path))
                .label(&at.node.span, "not an install method")
                .help(
                    "write `dists` (kernel and base tarballs), `pkgbase` (base system packages, FreeBSD 15 and later) or `none` (a running host beryl never installs)",
                ),
        ),
    }
}

/// How to write a version so that YAML keeps it.
const QUOTE_VERSION: &str = "quote it, so that YAML keeps it as written: `version: \"15.0\"` (unquoted, 14.10 would be the number 14.1)";

/// A quoted `MAJOR.MINOR`; a float only when its written text is one (a
/// float's value has lost it: `14.10` reads as 14.1, `15.00` as 15).
fn version(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    let float = matches!(at.node.value, Value::Float(_));
    let text = match &at.node.value {
        Value::Str(s) => Some(s.as_str()),
        // The text only counts if it is what the float was read from (an
        // alias or a reference points elsewhere).
        Value::Float(f) => {
            ctx::written(at.node).filter(|t| t.parse::<f64>().is_ok_and(|v| v == *f))
        }
        _ => None,
    };
    let Some(text) = text else {
        let help = match at.node.value {
            Value::Int(n) => format!("give the minor version too, in quotes: `version: \"{n}.0\"`"),
            Value::Float(_) => QUOTE_VERSION.to_string(),
            _ => "write the release as MAJOR.MINOR in quotes, such as `version: \"15.0\"`".into(),
        };
        cx.push(
            cx.type_error(&at.path, "a string such as \"15.0\"", at.node)
                .help(help),
        );
        return;
    };
    match names::version(text) {
        Ok(_) => out.version = Some(Located::new(text.to_string(), at.node.span.clone())),
        Err(reason) => cx.push(
            Diag::new(Code::Version, format!("invalid {}: {reason}", at.path))
                .label(&at.node.span, "not a MAJOR.MINOR release")
                .help(if float {
                    QUOTE_VERSION
                } else {
                    "write the release as MAJOR.MINOR, such as \"15.0\" or \"14.3\""
                }),
        ),
    }
}
