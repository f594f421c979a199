//! The accounts and groups of the FreeBSD base system. A user definition may
//! not reuse one: `pw useradd -n root` fails the install (the name exists),
//! and `pw usermod -n root -G ''` would drop root from wheel.
//!
//! Read from `etc/master.passwd` (e4452d45) and `etc/group` (d28066d8) of
//! freebsd/freebsd-src; every release of [`super::release::RELEASES`] ships
//! these names (none was added or removed between 14.3 and 15.1 that the
//! tables would miss: `u2f` is the newest group, in both).

/// Group names in the base `group`.
pub(crate) const GROUPS: &[&str] = &[
    "wheel", "daemon", "kmem", "sys", "tty", "operator", "mail", "bin", "news", "man", "games",
    "ftp", "staff", "sshd", "smmsp", "mailnull", "guest", "video", "realtime", "idletime", "bind",
    "unbound", "proxy", "authpf", "_pflogd", "_dhcp", "uucp", "dialer", "network", "audit", "www",
    "u2f", "ntpd", "_ypldap", "hast", "tests", "nogroup", "nobody",
];

/// Whether `name` is an account of the base system.
pub(crate) fn is_account(name: &str) -> bool {
    ACCOUNTS.iter().any(|(n, _)| *n == name)
}

/// Whether `name` is a group of the base system.
pub(crate) fn is_group(name: &str) -> bool {
    GROUPS.contains(&name)
}

/// The shells of the base system (`/etc/shells` lists them; nologin is
/// where system accounts point).
pub(crate) const SHELLS: &[&str] = &["/bin/sh", "/bin/csh", "/bin/tcsh", "/usr/sbin/nologin"];

/// Shells that packages provide, and the package (by name) that does.
pub(crate) const PACKAGE_SHELLS: &[(&str, &str)] = &[
    ("/usr/local/bin/bash", "bash"),
    ("/usr/local/bin/zsh", "zsh"),
    ("/usr/local/bin/fish", "fish"),
    ("/usr/local/bin/ksh93", "ksh93"),
    ("/usr/local/bin/mksh", "mksh"),
    ("/usr/local/bin/oksh", "oksh"),
    ("/usr/local/bin/dash", "dash"),
    ("/usr/local/bin/nu", "nushell"),
];

/// The base accounts of `master.passwd` (@e4452d45): each login name, which
/// a user definition may not reuse, and its uid (field 3), which a user of
/// the inventory would share (`pw useradd -u 80` fails: "uid `80' has
/// already been allocated").
pub(crate) const ACCOUNTS: &[(&str, u32)] = &[
    ("root", 0),
    ("toor", 0),
    ("daemon", 1),
    ("operator", 2),
    ("bin", 3),
    ("tty", 4),
    ("kmem", 5),
    ("games", 7),
    ("news", 8),
    ("man", 9),
    ("sshd", 22),
    ("smmsp", 25),
    ("mailnull", 26),
    ("bind", 53),
    ("unbound", 59),
    ("proxy", 62),
    ("_pflogd", 64),
    ("_dhcp", 65),
    ("uucp", 66),
    ("pop", 68),
    ("auditdistd", 78),
    ("www", 80),
    ("ntpd", 123),
    ("_ypldap", 160),
    ("hast", 845),
    ("tests", 977),
    ("nobody", 65534),
];

/// The base account that has `uid`, if any.
pub(crate) fn account_of_uid(uid: u32) -> Option<&'static str> {
    ACCOUNTS.iter().find(|(_, u)| *u == uid).map(|(n, _)| *n)
}

/// Files and directories of the base system that no record line may make
/// apply remove (docs/apply.md, "What apply trusts on the host"): a path,
/// or a directory and everything under it (ending in `/`), and its source.
pub(crate) const BASE_PATHS: &[(&str, &str)] = &[
    ("/etc/master.passwd", "etc/master.passwd @e4452d45"),
    ("/etc/group", "etc/group @d28066d8"),
    (
        "/etc/passwd",
        "usr.sbin/pw (regenerated from master.passwd)",
    ),
    (
        "/etc/pwd.db",
        "usr.sbin/pw (regenerated from master.passwd)",
    ),
    (
        "/etc/spwd.db",
        "usr.sbin/pw (regenerated from master.passwd)",
    ),
    ("/bin/", "share/man/man7/hier.7 @0100fd6e"),
    ("/sbin/", "share/man/man7/hier.7 @0100fd6e"),
    ("/boot/kernel/", "share/man/man7/hier.7 @0100fd6e"),
    ("/boot/defaults/", "share/man/man7/hier.7 @0100fd6e"),
    ("/etc/defaults/", "share/man/man7/hier.7 @0100fd6e"),
    ("/usr/bin/", "share/man/man7/hier.7 @0100fd6e"),
    ("/usr/sbin/", "share/man/man7/hier.7 @0100fd6e"),
    ("/usr/lib/", "share/man/man7/hier.7 @0100fd6e"),
    ("/usr/libexec/", "share/man/man7/hier.7 @0100fd6e"),
];

/// Directories of the base system, as its mtree specifications create
/// them (freebsd/freebsd-src `etc/mtree/`: `BSD.root.dist` @8091e7cf,
/// `BSD.usr.dist` @561f8c25, `BSD.var.dist` @00a82464): the top of each
/// tree and the levels below it a dataset name can reach by `zfs create
/// -p`. A dataset mounted on one hides what the base system keeps there
/// (`/var/db` holds pkg's database, `/usr/local` the packages).
pub(crate) const BASE_DIRS: &[(&str, &str)] = &[
    ("/bin", "BSD.root.dist @8091e7cf"),
    ("/boot", "BSD.root.dist @8091e7cf"),
    ("/boot/defaults", "BSD.root.dist @8091e7cf"),
    ("/boot/kernel", "BSD.root.dist @8091e7cf"),
    ("/boot/modules", "BSD.root.dist @8091e7cf"),
    ("/dev", "BSD.root.dist @8091e7cf"),
    ("/etc", "BSD.root.dist @8091e7cf"),
    ("/etc/defaults", "BSD.root.dist @8091e7cf"),
    ("/etc/mail", "BSD.root.dist @8091e7cf"),
    ("/etc/mtree", "BSD.root.dist @8091e7cf"),
    ("/etc/periodic", "BSD.root.dist @8091e7cf"),
    ("/etc/rc.d", "BSD.root.dist @8091e7cf"),
    ("/etc/skel", "BSD.root.dist @8091e7cf"),
    ("/etc/ssh", "BSD.root.dist @8091e7cf"),
    ("/etc/ssl", "BSD.root.dist @8091e7cf"),
    ("/mnt", "BSD.root.dist @8091e7cf"),
    ("/proc", "BSD.root.dist @8091e7cf"),
    ("/root", "BSD.root.dist @8091e7cf"),
    ("/sbin", "BSD.root.dist @8091e7cf"),
    ("/tmp", "BSD.root.dist @8091e7cf"),
    ("/usr", "BSD.root.dist @8091e7cf"),
    ("/var", "BSD.root.dist @8091e7cf"),
    ("/usr/bin", "BSD.usr.dist @561f8c25"),
    ("/usr/games", "BSD.usr.dist @561f8c25"),
    ("/usr/include", "BSD.usr.dist @561f8c25"),
    ("/usr/lib", "BSD.usr.dist @561f8c25"),
    ("/usr/libdata", "BSD.usr.dist @561f8c25"),
    ("/usr/libexec", "BSD.usr.dist @561f8c25"),
    ("/usr/local", "BSD.usr.dist @561f8c25"),
    ("/usr/obj", "BSD.usr.dist @561f8c25"),
    ("/usr/sbin", "BSD.usr.dist @561f8c25"),
    ("/usr/share", "BSD.usr.dist @561f8c25"),
    ("/usr/src", "BSD.usr.dist @561f8c25"),
    ("/var/account", "BSD.var.dist @00a82464"),
    ("/var/at", "BSD.var.dist @00a82464"),
    ("/var/at/jobs", "BSD.var.dist @00a82464"),
    ("/var/at/spool", "BSD.var.dist @00a82464"),
    ("/var/audit", "BSD.var.dist @00a82464"),
    ("/var/audit/dist", "BSD.var.dist @00a82464"),
    ("/var/audit/remote", "BSD.var.dist @00a82464"),
    ("/var/authpf", "BSD.var.dist @00a82464"),
    ("/var/backups", "BSD.var.dist @00a82464"),
    ("/var/cache", "BSD.var.dist @00a82464"),
    ("/var/crash", "BSD.var.dist @00a82464"),
    ("/var/cron", "BSD.var.dist @00a82464"),
    ("/var/cron/tabs", "BSD.var.dist @00a82464"),
    ("/var/db", "BSD.var.dist @00a82464"),
    ("/var/db/entropy", "BSD.var.dist @00a82464"),
    ("/var/db/freebsd-update", "BSD.var.dist @00a82464"),
    ("/var/db/ipf", "BSD.var.dist @00a82464"),
    ("/var/db/pkg", "BSD.var.dist @00a82464"),
    ("/var/db/ports", "BSD.var.dist @00a82464"),
    ("/var/db/portsnap", "BSD.var.dist @00a82464"),
    ("/var/empty", "BSD.var.dist @00a82464"),
    ("/var/games", "BSD.var.dist @00a82464"),
    ("/var/heimdal", "BSD.var.dist @00a82464"),
    ("/var/log", "BSD.var.dist @00a82464"),
    ("/var/mail", "BSD.var.dist @00a82464"),
    ("/var/msgs", "BSD.var.dist @00a82464"),
    ("/var/named", "BSD.var.dist @00a82464"),
    ("/var/preserve", "BSD.var.dist @00a82464"),
    ("/var/run", "BSD.var.dist @00a82464"),
    ("/var/run/ppp", "BSD.var.dist @00a82464"),
    ("/var/run/wpa_supplicant", "BSD.var.dist @00a82464"),
    ("/var/rwho", "BSD.var.dist @00a82464"),
    ("/var/spool", "BSD.var.dist @00a82464"),
    ("/var/spool/lock", "BSD.var.dist @00a82464"),
    ("/var/spool/lpd", "BSD.var.dist @00a82464"),
    ("/var/spool/mqueue", "BSD.var.dist @00a82464"),
    ("/var/spool/output", "BSD.var.dist @00a82464"),
    ("/var/tmp", "BSD.var.dist @00a82464"),
    ("/var/unbound", "BSD.var.dist @00a82464"),
    ("/var/yp", "BSD.var.dist @00a82464"),
];

/// The row of [`BASE_DIRS`] for `path`, if it is a base directory.
pub(crate) fn base_dir(path: &str) -> Option<&'static (&'static str, &'static str)> {
    BASE_DIRS.iter().find(|(p, _)| *p == path)
}
