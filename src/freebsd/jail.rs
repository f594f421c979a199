//! jail(8) knowledge as tables (issue 36): the jail.conf(5) parameters a
//! jail's `jail.parameters` may set, the parameters beryl derives from other
//! fields, and (below) the devfs rulesets and the rctl(8) rule grammar.
//!
//! Read in freebsd/freebsd-src (the index does not name every file's commit;
//! "index id N" is the stored file version, reproducible with `read_file`):
//! - sys/kern/kern_jail.c, index id 91939068 (a 14/15-era version: it has
//!   `allow.suser` in `pr_flag_allow`): the `SYSCTL_JAIL_PARAM*` lines near
//!   its end declare every kernel parameter and its type (`"B"` boolean,
//!   `"I"` integer, `"E,jailsys"` new/inherit/disable); the comment above
//!   them says "CTLFLAG_RDTUN … indicates jail parameters that can be set
//!   at jail creation time but cannot be changed in an existing jail", and
//!   every `CTLFLAG_RW` one can be changed by `jail -m`.
//! - sys/kern/sysv_msg.c, index id 509126347:
//!   `SYSCTL_JAIL_PARAM_SYS_NODE(sysvmsg, CTLFLAG_RW, …)` (sysv_sem.c and
//!   sysv_shm.c declare `sysvsem` and `sysvshm` the same way).
//! - usr.sbin/jail/config.c, index id 913964538: `intparams[]`, the
//!   parameters jail(8) handles itself (`PF_INTERNAL`): `exec.*`, `mount*`,
//!   `depend`, `interface`, `vnet.interface`, `ip_hostname`…; they reach no
//!   kernel, and jail(8) reads them when it starts or stops the jail.

/// A parameter's value type (the `SYSCTL_JAIL_PARAM` format string, or the
/// `PF_BOOL`/`PF_INT` flag of config.c).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `"B"` / `PF_BOOL`: true writes the bare name, false `NAME=false`
    /// (jail.conf(5) also takes the `allow.noX` spelling).
    Bool,
    /// `"I"` / `PF_INT`: a decimal integer in `min..=max`.
    Int { min: i64, max: i64 },
    /// `"E,jailsys"`: one of `new`, `inherit`, `disable`.
    Jailsys,
}

/// Whether a changed value reaches a running jail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Live {
    /// `CTLFLAG_RW`: `jail -m NAME PARAM=VALUE` changes it in place.
    Modify,
    /// jail(8)'s own (`PF_INTERNAL`): read at the next start or stop,
    /// nothing to change in the running jail.
    Conf,
}

/// One parameter of `jail.parameters`.
#[derive(Debug)]
pub(crate) struct Param {
    pub name: &'static str,
    pub kind: Kind,
    #[cfg_attr(
        not(test),
        expect(
            dead_code,
            reason = "read by the host-side jail kind (jail -m or restart)"
        )
    )]
    pub live: Live,
    /// What it does (from the `SYSCTL_JAIL_PARAM` description).
    pub doc: &'static str,
    /// The declaration it follows.
    pub source: &'static str,
}

const KERN: &str = "sys/kern/kern_jail.c (index id 91939068)";
const CONFIG: &str = "usr.sbin/jail/config.c intparams[] (index id 913964538)";

const fn allow(name: &'static str, doc: &'static str) -> Param {
    Param {
        name,
        kind: Kind::Bool,
        live: Live::Modify,
        doc,
        source: KERN,
    }
}

const fn jailsys(name: &'static str, doc: &'static str, source: &'static str) -> Param {
    Param {
        name,
        kind: Kind::Jailsys,
        live: Live::Modify,
        doc,
        source,
    }
}

/// The parameters `jail.parameters` accepts, sorted by name.
pub(crate) const PARAMS: &[Param] = &[
    allow("allow.chflags", "Jail may alter system file flags"),
    allow(
        "allow.mlock",
        "Jail may lock (unlock) physical pages in memory",
    ),
    allow(
        "allow.mount",
        "Jail may mount/unmount jail-friendly file systems in general",
    ),
    allow("allow.quotas", "Jail may set file quotas"),
    allow("allow.raw_sockets", "Jail may create raw sockets"),
    allow(
        "allow.read_msgbuf",
        "Jail may read the kernel message buffer",
    ),
    allow(
        "allow.reserved_ports",
        "Jail may bind sockets to reserved ports",
    ),
    allow("allow.set_hostname", "Jail may set hostname"),
    allow(
        "allow.socket_af",
        "Jail may create sockets other than just UNIX/IPv4/IPv6/route",
    ),
    allow("allow.suser", "Processes in jail with uid 0 have privilege"),
    allow("allow.sysvipc", "Jail may use SYSV IPC"),
    allow(
        "allow.unprivileged_proc_debug",
        "Unprivileged processes may use process debugging facilities",
    ),
    Param {
        name: "children.max",
        kind: Kind::Int {
            min: 0,
            max: i32::MAX as i64,
        },
        live: Live::Modify,
        doc: "Maximum number of child jails",
        source: KERN,
    },
    Param {
        name: "devfs_ruleset",
        // kern_jail.c kern_jail_set takes 0..65535 (notes36/freebsd-jails.md §6).
        kind: Kind::Int { min: 0, max: 65535 },
        live: Live::Modify,
        doc: "Ruleset for in-jail devfs mounts",
        source: KERN,
    },
    Param {
        name: "enforce_statfs",
        // kern_jail_set refuses a value outside 0..2 (freebsd-jails.md §1.7).
        kind: Kind::Int { min: 0, max: 2 },
        live: Live::Modify,
        doc: "Jail cannot see all mounted file systems",
        source: KERN,
    },
    Param {
        name: "exec.clean",
        kind: Kind::Bool,
        live: Live::Conf,
        doc: "Run commands in a clean environment",
        source: CONFIG,
    },
    Param {
        name: "exec.timeout",
        kind: Kind::Int {
            min: 0,
            max: i32::MAX as i64,
        },
        live: Live::Conf,
        doc: "Seconds to wait for a command to complete",
        source: CONFIG,
    },
    Param {
        name: "ip4.saddrsel",
        kind: Kind::Bool,
        live: Live::Modify,
        doc: "Do (not) use IPv4 source address selection rather than the primary jail IPv4 address",
        source: KERN,
    },
    Param {
        name: "ip6.saddrsel",
        kind: Kind::Bool,
        live: Live::Modify,
        doc: "Do (not) use IPv6 source address selection rather than the primary jail IPv6 address",
        source: KERN,
    },
    Param {
        name: "persist",
        kind: Kind::Bool,
        live: Live::Modify,
        doc: "Jail persistence",
        source: KERN,
    },
    Param {
        name: "securelevel",
        kind: Kind::Int {
            min: i32::MIN as i64,
            max: i32::MAX as i64,
        },
        live: Live::Modify,
        doc: "Jail secure level",
        source: KERN,
    },
    jailsys(
        "sysvmsg",
        "SYSV message queues",
        "sys/kern/sysv_msg.c (index id 509126347)",
    ),
    jailsys("sysvsem", "SYSV semaphores", "sys/kern/sysv_sem.c"),
    jailsys("sysvshm", "SYSV shared memory", "sys/kern/sysv_shm.c"),
];

/// The parameters fixed when a jail is created (`CTLFLAG_RDTUN` in
/// kern_jail.c): beryl derives every one from a field, and a change to it
/// needs the jail restarted. The accepted [`PARAMS`] are all `CTLFLAG_RW`
/// or jail(8)'s own.
#[cfg_attr(
    not(test),
    expect(
        dead_code,
        reason = "read by the host-side jail kind (planned restart)"
    )
)]
pub(crate) const FIXED_AT_CREATION: &[&str] =
    &["path", "vnet", "ip4", "ip6", "osrelease", "osreldate"];

/// A parameter beryl writes itself, from another field.
#[derive(Debug)]
pub(crate) struct Derived {
    /// The parameter, or a prefix ending in `.` (`exec.`).
    pub name: &'static str,
    /// The field of the `jail` mapping that sets it.
    pub field: &'static str,
}

/// The parameters `jail.parameters` refuses, because a field sets them
/// (kern_jail.c for the kernel's, config.c `intparams[]` for jail(8)'s).
pub(crate) const DERIVED: &[Derived] = &[
    Derived {
        name: "name",
        field: "jail.name",
    },
    Derived {
        name: "path",
        field: "jail.path (default: the dataset's mountpoint)",
    },
    Derived {
        name: "host.hostname",
        field: "freebsd.hostname of the jail",
    },
    Derived {
        name: "ip4.addr",
        field: "jail.network.ip4",
    },
    Derived {
        name: "ip6.addr",
        field: "jail.network.ip6",
    },
    Derived {
        name: "ip4",
        field: "jail.network.ip4",
    },
    Derived {
        name: "ip6",
        field: "jail.network.ip6",
    },
    Derived {
        name: "interface",
        field: "jail.network.interface",
    },
    Derived {
        name: "vnet",
        field: "jail.network.vnet",
    },
    Derived {
        name: "vnet.interface",
        field: "jail.network.vnet.epair",
    },
    Derived {
        name: "mount.fstab",
        field: "jail.mounts",
    },
    Derived {
        name: "mount.devfs",
        field: "jail (beryl always mounts devfs; restrict it with devfs_ruleset)",
    },
    Derived {
        name: "mount",
        field: "jail.mounts",
    },
    Derived {
        name: "exec.",
        field: "jail.network.vnet and jail.rctl (beryl writes the start and stop commands; only exec.clean and exec.timeout are yours)",
    },
    Derived {
        name: "depend",
        field: "jail.depend",
    },
    Derived {
        name: "osrelease",
        field: "nothing: a jail runs on its host's kernel, and gets its release",
    },
    Derived {
        name: "osreldate",
        field: "nothing: a jail runs on its host's kernel, and gets its release",
    },
];

/// The row of `name`, if beryl accepts it.
pub(crate) fn param(name: &str) -> Option<&'static Param> {
    PARAMS.iter().find(|p| p.name == name)
}

/// The field that sets `name`, if beryl derives it.
pub(crate) fn derived(name: &str) -> Option<&'static Derived> {
    DERIVED.iter().find(|d| {
        d.name == name
            || (d.name.ends_with('.') && name.starts_with(d.name) && param(name).is_none())
    })
}

/// A written value as jail.conf(5) takes it, or why not.
pub(crate) fn value(p: &Param, v: &crate::value::Value) -> Result<String, String> {
    use crate::value::Value;
    match (p.kind, v) {
        (Kind::Bool, Value::Bool(b)) => Ok(if *b { "true" } else { "false" }.into()),
        (Kind::Bool, _) => Err(format!("{} takes true or false", p.name)),
        (Kind::Int { min, max }, Value::Int(n)) if (min..=max).contains(n) => Ok(n.to_string()),
        (Kind::Int { min, max }, _) => {
            Err(format!("{} takes an integer from {min} to {max}", p.name))
        }
        (Kind::Jailsys, Value::Str(s)) if ["new", "inherit", "disable"].contains(&s.as_str()) => {
            Ok(s.clone())
        }
        (Kind::Jailsys, _) => Err(format!("{} takes new, inherit or disable", p.name)),
    }
}

/// A devfs ruleset the base system defines.
#[derive(Debug)]
pub(crate) struct Ruleset {
    pub number: u32,
    pub name: &'static str,
}

/// The rulesets of `/etc/defaults/devfs.rules` (sbin/devfs/devfs.rules,
/// index id 195434207, read for 14.x and 15.x: rc.conf's default
/// `devfs_rulesets` loads it before `/etc/devfs.rules`). jail(8) mounts a
/// jail's devfs with ruleset 4 when `devfs_ruleset` is unset (command.c,
/// notes36/freebsd-jails.md §6). A number no rules file defines is created
/// empty by devfs_rule.c `devfs_ruleset_use`, and an empty ruleset hides
/// nothing: the jail sees the host's whole /dev (freebsd-jails-2.md §2).
pub(crate) const DEVFS_RULESETS: &[Ruleset] = &[
    Ruleset {
        number: 1,
        name: "devfsrules_hide_all",
    },
    Ruleset {
        number: 2,
        name: "devfsrules_unhide_basic",
    },
    Ruleset {
        number: 3,
        name: "devfsrules_unhide_login",
    },
    Ruleset {
        number: 4,
        name: "devfsrules_jail",
    },
    Ruleset {
        number: 5,
        name: "devfsrules_jail_vnet",
    },
];

/// The rulesets `[NAME=N]` that a devfs.rules text defines, by number
/// (`devfs_rulesets_from_file` in libexec/rc/rc.subr, index id 18203130224:
/// a `[` line opens a ruleset, its number after the `=`).
pub(crate) fn rulesets_in(text: &str) -> Vec<u32> {
    text.lines()
        .filter_map(|l| {
            let l = l.split('#').next()?.trim();
            let inner = l.strip_prefix('[')?.strip_suffix(']')?;
            inner.rsplit_once('=')?.1.trim().parse().ok()
        })
        .collect()
}

/// The resources of rctl(8) rules: kern_rctl.c `resourcenames[]` (index id
/// 641087274, with pcpu and the I/O resources).
pub(crate) const RCTL_RESOURCES: &[&str] = &[
    "cputime",
    "datasize",
    "stacksize",
    "coredumpsize",
    "memoryuse",
    "memorylocked",
    "maxproc",
    "openfiles",
    "vmemoryuse",
    "pseudoterminals",
    "swapuse",
    "nthr",
    "msgqqueued",
    "msgqsize",
    "nmsgq",
    "nsem",
    "nsemop",
    "nshm",
    "shmsize",
    "wallclock",
    "pcpu",
    "readbps",
    "writebps",
    "readiops",
    "writeiops",
];

/// The actions: kern_rctl.c `actionnames[]` (the same version): the signals,
/// then `deny`, `log`, `devctl`, `throttle`.
pub(crate) const RCTL_ACTIONS: &[&str] = &[
    "sighup",
    "sigint",
    "sigquit",
    "sigill",
    "sigtrap",
    "sigabrt",
    "sigemt",
    "sigfpe",
    "sigkill",
    "sigbus",
    "sigsegv",
    "sigsys",
    "sigpipe",
    "sigalrm",
    "sigterm",
    "sigurg",
    "sigstop",
    "sigtstp",
    "sigchld",
    "sigttin",
    "sigttou",
    "sigio",
    "sigxcpu",
    "sigxfsz",
    "sigvtalrm",
    "sigprof",
    "sigwinch",
    "siginfo",
    "sigusr1",
    "sigusr2",
    "sigthr",
    "deny",
    "log",
    "devctl",
    "throttle",
];

/// The resources `deny` does not apply to: `rctl_rule_add` refuses it
/// (EOPNOTSUPP) on a resource without `RACCT_DENIABLE` other than
/// memoryuse and pcpu (kern_racct.c `racct_types[]`, freebsd-jails-2.md §1.1).
pub(crate) const RCTL_NOT_DENIABLE: &[&str] = &[
    "cputime",
    "wallclock",
    "readbps",
    "writebps",
    "readiops",
    "writeiops",
];

/// The `/per` subjects (kern_rctl.c `subjectnames[]`).
pub(crate) const RCTL_PER: &[&str] = &["process", "user", "loginclass", "jail"];

/// Why `rule`, a jail's rctl rule without its `jail:NAME:` subject
/// (`RESOURCE:ACTION=AMOUNT[/PER]`), is not one `rctl -a` takes.
/// The amount is an integer with an optional expand_number(3) suffix
/// (rctl.c `expand_amount`).
pub(crate) fn rctl_rule(rule: &str) -> Result<(), String> {
    let quote = super::names::quote;
    let Some((resource, rest)) = rule.split_once(':') else {
        return Err(format!(
            "{} has no `:` between the resource and the action",
            quote(rule)
        ));
    };
    if resource == "jail" || resource == "j" {
        return Err("leave out the `jail:NAME:` subject: beryl adds it".into());
    }
    if !RCTL_RESOURCES.contains(&resource) {
        let near = closest(resource, RCTL_RESOURCES);
        return Err(format!("{} is not an rctl resource{near}", quote(resource)));
    }
    let Some((action, amount)) = rest.split_once('=') else {
        return Err(format!("{} has no `=AMOUNT`", quote(rule)));
    };
    if !RCTL_ACTIONS.contains(&action) {
        let near = closest(action, RCTL_ACTIONS);
        return Err(format!("{} is not an rctl action{near}", quote(action)));
    }
    if action == "deny" && RCTL_NOT_DENIABLE.contains(&resource) {
        return Err(format!(
            "the kernel refuses `deny` on {resource} (EOPNOTSUPP): use log, devctl or a signal"
        ));
    }
    let (amount, per) = match amount.split_once('/') {
        Some((a, p)) => (a, Some(p)),
        None => (amount, None),
    };
    if let Some(p) = per
        && !RCTL_PER.contains(&p)
    {
        return Err(format!("{} is not a subject to count per", quote(p)));
    }
    let digits = amount.trim_end_matches(|c: char| "kKmMgGtTpPeE".contains(c));
    if digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || amount.len() - digits.len() > 1
    {
        return Err(format!(
            "{} is not an amount: an integer, optionally with k, m, g, t, p or e",
            quote(amount)
        ));
    }
    Ok(())
}

fn closest(word: &str, names: &[&'static str]) -> String {
    names
        .iter()
        .map(|n| (strsim::jaro_winkler(word, n), n))
        .filter(|(s, _)| *s >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, n)| format!("; did you mean `{n}`?"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rctl_rules_follow_the_kernels_names() {
        for ok in [
            "memoryuse:deny=2g",
            "pcpu:deny=50",
            "maxproc:deny=100/jail",
            "cputime:sigterm=3600",
            "readbps:throttle=10m",
        ] {
            assert_eq!(rctl_rule(ok), Ok(()), "{ok}");
        }
        for (bad, why) in [
            ("memoryuse", "no `:`"),
            ("memoryus:deny=1", "did you mean `memoryuse`"),
            ("memoryuse:deny", "no `=AMOUNT`"),
            ("memoryuse:dney=1", "not an rctl action"),
            ("cputime:deny=10", "EOPNOTSUPP"),
            ("memoryuse:deny=2gb", "not an amount"),
            ("memoryuse:deny=2g/host", "subject"),
            ("jail:www:memoryuse:deny=1", "leave out"),
        ] {
            let err = rctl_rule(bad).unwrap_err();
            assert!(err.contains(why), "{bad}: {err}");
        }
    }

    #[test]
    fn params_are_sorted_and_derived_ones_are_refused() {
        let names: Vec<&str> = PARAMS.iter().map(|p| p.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        for p in PARAMS {
            assert!(derived(p.name).is_none(), "{} is both", p.name);
        }
        assert_eq!(derived("exec.start").map(|d| d.name), Some("exec."));
        assert!(derived("exec.clean").is_none());
        assert_eq!(derived("path").map(|d| d.name), Some("path"));
        // What is fixed at creation is derived, never a parameter of yours;
        // jail(8)'s own parameters change nothing in a running jail.
        for name in FIXED_AT_CREATION {
            assert!(derived(name).is_some() && param(name).is_none(), "{name}");
        }
        for p in PARAMS {
            let conf = p.source == CONFIG;
            assert_eq!(p.live == Live::Conf, conf, "{}", p.name);
        }
        assert_eq!(
            rulesets_in("# x\n[ours=10]\nadd hide\n[b = 11] # c\n"),
            [10, 11]
        );
    }
}
