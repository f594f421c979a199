//! Install plans: a host's effective config compiled into a bsdinstall
//! `installerconfig` (a preamble of variables, then a setup script).
//!
//! Entry points: [`build`] checks the requirements and lays out the plan as
//! data; `render` turns it into shell through the templates, every value
//! passing through [`quote::quote`]. The plan is the single source: the JSON
//! form and the script are two views of it.

pub mod quote;
pub mod render;

use serde::Serialize;

use crate::compile::Compiled;
use crate::diag::{Diag, Diags};
use crate::schema::{Install, Ipv4, Ipv6, UserState};

/// The plan of one host.
#[derive(Debug, Serialize)]
pub struct Plan {
    pub format_version: u32,
    pub host: String,
    pub install: &'static str,
    pub version: Option<String>,
    /// Exported before partitioning, in order.
    pub preamble: Vec<Var>,
    /// Network bring-up in the installer (only when packages are installed).
    pub bringup: Vec<Vec<String>>,
    /// Name servers for the installer and the new system.
    pub nameservers: Vec<String>,
    /// The setup script's steps, in order.
    pub steps: Vec<Step>,
    /// The final line the script prints.
    pub summary: String,
}

#[derive(Debug, Serialize)]
pub struct Var {
    pub name: &'static str,
    pub value: String,
}

/// One step of the setup script. `kind` names its template
/// (`templates/steps/KIND.sh.j2`); the other fields are its data.
#[derive(Debug, Serialize)]
pub struct Step {
    pub id: String,
    pub kind: &'static str,
    #[serde(flatten)]
    pub data: StepData,
}

#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum StepData {
    /// `sysrc` assignments (name, value) and the resolv.conf name servers.
    Sysrc {
        vars: Vec<Assign>,
        nameservers: Vec<String>,
    },
    Timezone {
        zone: String,
    },
    Packages {
        bootstrap: bool,
        packages: Vec<String>,
    },
    Groups {
        groups: Vec<String>,
    },
    /// `pw useradd` and its arguments after the subcommand.
    User {
        name: String,
        args: Vec<String>,
    },
    /// authorized_keys of a user.
    Keys {
        user: String,
        group: String,
        dir: String,
        file: String,
        keys: Vec<String>,
    },
    Sudoers {
        dir: String,
        file: String,
        lines: Vec<String>,
    },
    Sshd {
        file: String,
        settings: Vec<String>,
    },
}

#[derive(Debug, Serialize)]
pub struct Assign {
    pub name: String,
    pub value: String,
}

/// Shells in the FreeBSD base system.
pub const BASE_SHELLS: &[&str] = &["/bin/sh", "/bin/csh", "/bin/tcsh", "/usr/sbin/nologin"];

/// Shells that packages provide, and the package (by name) that does.
pub const PACKAGE_SHELLS: &[(&str, &str)] = &[
    ("/usr/local/bin/bash", "bash"),
    ("/usr/local/bin/zsh", "zsh"),
    ("/usr/local/bin/fish", "fish"),
    ("/usr/local/bin/ksh93", "ksh93"),
    ("/usr/local/bin/mksh", "mksh"),
    ("/usr/local/bin/oksh", "oksh"),
    ("/usr/local/bin/dash", "dash"),
    ("/usr/local/bin/nu", "nushell"),
];

/// Groups of a fresh FreeBSD base system (`/etc/group`).
pub const BASE_GROUPS: &[&str] = &[
    "wheel", "daemon", "kmem", "sys", "tty", "operator", "mail", "bin", "news", "man", "games",
    "ftp", "staff", "sshd", "smmsp", "mailnull", "guest", "video", "realtime", "idletime", "bind",
    "unbound", "proxy", "authpf", "_pflogd", "_dhcp", "uucp", "dialer", "network", "audit", "www",
    "ntpd", "_ypldap", "hast", "tests", "nogroup", "nobody",
];

/// The groups the users need (primary and supplementary) that the base system
/// lacks, in first-mention order: both the install and the apply create them.
pub fn needed_groups(users: &[&crate::schema::User]) -> Vec<String> {
    let mut groups: Vec<String> = Vec::new();
    for u in users {
        for g in u.primary_group.iter().chain(&u.groups) {
            if !BASE_GROUPS.contains(&g.value.as_str()) && !groups.contains(&g.value) {
                groups.push(g.value.clone());
            }
        }
    }
    groups
}

/// The layout's default pool and swap, as zfsboot has them.
const DEFAULT_POOL: &str = "zroot";
const DEFAULT_SWAP: &str = "2g";

/// Checks that the host can be installed unattended and lays out its plan.
/// Every failed requirement is an error at the YAML it concerns.
pub fn build(fqdn: &str, c: &Compiled) -> Result<Plan, Diags> {
    let f = &c.freebsd;
    let mut errors = Vec::new();
    let missing = |what: &str, help: &str| {
        Diag::new(
            "beryl::plan::required",
            format!("an install needs `freebsd.{what}`"),
        )
        .label(&f.span, format!("no `{what}` here"))
        .help(help.to_string())
    };
    if f.disks.is_empty() {
        errors.push(missing(
            "disks",
            "list the whole disks of the boot pool: disks: [ada0, ada1]",
        ));
    }
    if f.raid.is_none() {
        errors.push(missing(
            "raid",
            "choose the layout: stripe, mirror, raid10, raidz1, raidz2 or raidz3",
        ));
    }
    if f.timezone.is_none() {
        errors.push(missing(
            "timezone",
            "set an IANA zone, such as timezone: UTC",
        ));
    }
    let has_package = |name: &str| {
        f.packages.iter().any(|p| {
            let p = p.value.as_str();
            p == name
                || p.rsplit_once('/')
                    .is_some_and(|(_, n)| n.split('@').next() == Some(name))
        })
    };
    let present: Vec<_> = f
        .users
        .iter()
        .filter(|u| u.state == UserState::Present)
        .collect();
    let reachable = c
        .users
        .iter()
        .any(|u| !u.keys.is_empty() && present.iter().any(|p| p.name.value == u.name));
    if !reachable {
        errors.push(
            Diag::new(
                "beryl::plan::unreachable",
                "no user holds an SSH key: the host would be unreachable after the install",
            )
            .label(&f.span, "give at least one user a key")
            .help("the domain keys are given to every user: add a user, or keys to one"),
        );
    }
    for user in &present {
        if let Some(shell) = &user.shell {
            let s = shell.value.as_str();
            let provided = BASE_SHELLS.contains(&s)
                || PACKAGE_SHELLS
                    .iter()
                    .any(|(path, pkg)| *path == s && has_package(pkg));
            if !provided {
                let hint = PACKAGE_SHELLS
                    .iter()
                    .find(|(path, _)| *path == s)
                    .map(|(_, pkg)| format!("add the package `{pkg}` to freebsd.packages"))
                    .unwrap_or_else(|| {
                        format!(
                            "use a base shell ({}) or one a package provides",
                            BASE_SHELLS.join(", ")
                        )
                    });
                errors.push(
                    Diag::new(
                        "beryl::plan::shell",
                        format!("{}: the shell {s} is neither in the base system nor provided by a listed package", user.name.value),
                    )
                    .label(&shell.span, "this shell")
                    .help(hint),
                );
            }
        }
    }
    let has_interface = f
        .network
        .as_ref()
        .is_some_and(|n| n.interfaces.iter().any(|i| i.ipv4.is_some()));
    if let Some(first) = f.packages.first()
        && !has_interface
    {
        errors.push(
            Diag::new(
                "beryl::plan::network",
                "packages are installed during the install, which needs the network",
            )
            .label(&first.span, "packages are listed")
            .help("name the interface to bring up: network: {interfaces: {vtnet0: {ipv4: dhcp}}}"),
        );
    }
    if let Some(first) = f.sudoers.first()
        && !has_package("sudo")
    {
        errors.push(
            Diag::new("beryl::plan::sudo", "sudoers lines need the `sudo` package")
                .label(&first.span, "sudoers are set")
                .help("add `sudo` (or security/sudo) to freebsd.packages"),
        );
    }
    let install = f.install.as_ref().map_or(Install::Dists, |i| i.value);
    if install == Install::Pkgbase
        && let Some(v) = &f.version
        && major(&v.value).is_some_and(|m| m < 15)
    {
        errors.push(
            Diag::new(
                "beryl::plan::pkgbase",
                format!("pkgbase installs need FreeBSD 15 or later, not {}", v.value),
            )
            .label(&v.span, "this release")
            .help("use `install: dists` for older releases"),
        );
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(layout(fqdn, c, install))
}

fn major(version: &str) -> Option<u32> {
    version.split('.').next()?.parse().ok()
}

/// The plan itself, once the requirements hold.
fn layout(fqdn: &str, c: &Compiled, install: Install) -> Plan {
    let f = &c.freebsd;
    let value = |l: &Option<crate::schema::Located<String>>, default: &str| {
        l.as_ref().map_or(default.to_string(), |v| v.value.clone())
    };
    let disks: Vec<&str> = f.disks.iter().map(|d| d.value.as_str()).collect();
    let mut preamble = vec![
        var("nonInteractive", "YES"),
        var("ZFSBOOT_DISKS", &disks.join(" ")),
        var(
            "ZFSBOOT_VDEV_TYPE",
            f.raid.as_ref().map_or("stripe", |r| r.value.name()),
        ),
        var("ZFSBOOT_POOL_NAME", &value(&f.pool, DEFAULT_POOL)),
        var("ZFSBOOT_SWAP_SIZE", &value(&f.swap, DEFAULT_SWAP)),
        // zfsboot tests booleans for non-empty: 1 is on, empty is off.
        var("ZFSBOOT_FORCE_4K_SECTORS", "1"),
    ];
    match install {
        Install::Dists => preamble.push(var("DISTRIBUTIONS", "kernel.txz base.txz")),
        Install::Pkgbase => {
            preamble.push(var(
                "BSDINSTALL_PKG_REPOS_DIR",
                "/usr/freebsd-packages/repos",
            ));
        }
    }
    let packages: Vec<String> = f.packages.iter().map(|p| p.value.clone()).collect();
    let network = f.network.clone().unwrap_or_default();
    let nameservers: Vec<String> = network
        .nameservers
        .iter()
        .map(|n| n.value.clone())
        .collect();
    // The setup script has network only if the installer brought it up.
    let mut bringup = Vec::new();
    if !packages.is_empty() {
        for i in &network.interfaces {
            match i.ipv4.as_ref().map(|l| &l.value) {
                Some(Ipv4::Dhcp) => bringup.push(argv(&["dhclient", &i.name.value])),
                Some(Ipv4::Static(cidr)) => {
                    bringup.push(argv(&["ifconfig", &i.name.value, "inet", cidr]))
                }
                None => {}
            }
        }
        if let Some(gw) = &network.defaultrouter {
            bringup.push(argv(&["route", "add", "default", &gw.value]));
        }
    }

    let mut sysrc = vec![assign("hostname", &value(&f.hostname, fqdn))];
    for i in &network.interfaces {
        match i.ipv4.as_ref().map(|l| &l.value) {
            Some(Ipv4::Dhcp) => sysrc.push(assign(&format!("ifconfig_{}", i.name.value), "DHCP")),
            Some(Ipv4::Static(cidr)) => sysrc.push(assign(
                &format!("ifconfig_{}", i.name.value),
                &format!("inet {cidr}"),
            )),
            None => {}
        }
        match i.ipv6.as_ref().map(|l| &l.value) {
            Some(Ipv6::Slaac) => sysrc.push(assign(
                &format!("ifconfig_{}_ipv6", i.name.value),
                "inet6 accept_rtadv",
            )),
            Some(Ipv6::Static(cidr)) => sysrc.push(assign(
                &format!("ifconfig_{}_ipv6", i.name.value),
                &format!("inet6 {cidr}"),
            )),
            None => {}
        }
    }
    if let Some(gw) = &network.defaultrouter {
        sysrc.push(assign("defaultrouter", &gw.value));
    }
    if let Some(gw) = &network.ipv6_defaultrouter {
        sysrc.push(assign("ipv6_defaultrouter", &gw.value));
    }
    for rc in &f.rc_conf {
        sysrc.push(assign(&rc.name.value, &rc.value.value));
    }
    sysrc.push(assign("sshd_enable", "YES"));
    sysrc.push(assign("zfs_enable", "YES"));

    let mut steps = vec![
        Step {
            id: "system".into(),
            kind: "sysrc",
            data: StepData::Sysrc {
                vars: sysrc,
                nameservers: nameservers.clone(),
            },
        },
        Step {
            id: "tz".into(),
            kind: "timezone",
            data: StepData::Timezone {
                zone: value(&f.timezone, "UTC"),
            },
        },
    ];
    if !packages.is_empty() {
        steps.push(Step {
            id: "packages".into(),
            kind: "packages",
            data: StepData::Packages {
                bootstrap: install == Install::Dists,
                packages: packages.clone(),
            },
        });
    }
    let present: Vec<_> = f
        .users
        .iter()
        .filter(|u| u.state == UserState::Present)
        .collect();
    let groups = needed_groups(&present);
    if !groups.is_empty() {
        steps.push(Step {
            id: "groups".into(),
            kind: "groups",
            data: StepData::Groups { groups },
        });
    }
    for u in &present {
        let name = u.name.value.clone();
        let mut args = vec!["-n".to_string(), name.clone(), "-m".to_string()];
        if let Some(s) = &u.shell {
            args.extend(["-s".to_string(), s.value.clone()]);
        }
        if let Some(g) = &u.primary_group {
            args.extend(["-g".to_string(), g.value.clone()]);
        }
        if !u.groups.is_empty() {
            let list: Vec<&str> = u.groups.iter().map(|g| g.value.as_str()).collect();
            args.extend(["-G".to_string(), list.join(",")]);
        }
        if let Some(c) = &u.comment {
            args.extend(["-c".to_string(), c.value.clone()]);
        }
        if let Some(uid) = &u.uid {
            args.extend(["-u".to_string(), uid.value.to_string()]);
        }
        // `-h -`: no password; logins are by key only.
        args.extend(["-h".to_string(), "-".to_string()]);
        steps.push(Step {
            id: format!("user:{name}"),
            kind: "user",
            data: StepData::User {
                name: name.clone(),
                args,
            },
        });
    }
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
        let group = u
            .primary_group
            .as_ref()
            .map_or(name.clone(), |g| g.value.clone());
        let dir = format!("/home/{name}/.ssh");
        steps.push(Step {
            id: format!("keys:{name}"),
            kind: "keys",
            data: StepData::Keys {
                user: name.clone(),
                group,
                file: format!("{dir}/authorized_keys"),
                dir,
                keys,
            },
        });
    }
    if !f.sudoers.is_empty() {
        steps.push(Step {
            id: "file:/usr/local/etc/sudoers.d/beryl".into(),
            kind: "sudoers",
            data: StepData::Sudoers {
                dir: "/usr/local/etc/sudoers.d".into(),
                file: "/usr/local/etc/sudoers.d/beryl".into(),
                lines: f.sudoers.iter().map(|l| l.value.clone()).collect(),
            },
        });
    }
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    steps.push(Step {
        id: "sshd".into(),
        kind: "sshd",
        data: StepData::Sshd {
            file: "/etc/ssh/sshd_config".into(),
            settings: vec![
                format!("PermitRootLogin {}", f.sshd.permit_root_login.value),
                format!(
                    "PasswordAuthentication {}",
                    yes_no(f.sshd.password_authentication.value)
                ),
                format!(
                    "KbdInteractiveAuthentication {}",
                    yes_no(f.sshd.kbd_interactive_authentication.value)
                ),
            ],
        },
    });
    let summary = format!(
        "beryl: {fqdn} installed: {} user{}, {} package{}",
        present.len(),
        if present.len() == 1 { "" } else { "s" },
        packages.len(),
        if packages.len() == 1 { "" } else { "s" },
    );
    Plan {
        format_version: 1,
        host: fqdn.to_string(),
        install: match install {
            Install::Dists => "dists",
            Install::Pkgbase => "pkgbase",
        },
        version: f.version.as_ref().map(|v| v.value.clone()),
        preamble,
        bringup,
        nameservers,
        steps,
        summary,
    }
}

fn var(name: &'static str, value: &str) -> Var {
    Var {
        name,
        value: value.to_string(),
    }
}

fn assign(name: &str, value: &str) -> Assign {
    Assign {
        name: name.to_string(),
        value: value.to_string(),
    }
}

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

#[cfg(test)]
mod tests;
