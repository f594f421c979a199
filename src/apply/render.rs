//! Each desired value as a step: a read-only check and a change, every value
//! quoted by [`crate::shell`].

use crate::desired::{Account, File, RcVar, Service, sshd};
use crate::shell::{QuoteError, word as w, words};

use super::{Desired, Step, StepKind, sha256_hex};

/// The step of one desired value.
pub(super) fn step(desired: Desired) -> Result<Step, QuoteError> {
    let (id, kind, check, change) = match &desired {
        Desired::Bootstrap => (
            "pkg".to_string(),
            StepKind::Bootstrap,
            // pkg(7), the bootstrapper in /usr/sbin, installs the real pkg
            // here; without ASSUME_ALWAYS_YES it asks first.
            "[ -x /usr/local/sbin/pkg ]".to_string(),
            "env ASSUME_ALWAYS_YES=yes pkg bootstrap".to_string(),
        ),
        Desired::Package { name } => (
            format!("pkg:{name}"),
            StepKind::Package,
            // A pattern with `/` matches the origin (`-O` would always
            // exit 0: pkg src/info.c keeps it for ports compatibility).
            format!("pkg info -e {}", w(name)?),
            format!("env ASSUME_ALWAYS_YES=yes pkg install -y {}", w(name)?),
        ),
        Desired::Group { name } => (
            format!("group:{name}"),
            StepKind::Group,
            format!("pw groupshow -n {} >/dev/null 2>&1", w(name)?),
            format!("pw groupadd -n {}", w(name)?),
        ),
        Desired::User(a) => (
            format!("user:{}", a.name),
            StepKind::User,
            user_check(a)?,
            user_change(a)?,
        ),
        Desired::Absent { name } => (
            format!("user:{name}"),
            StepKind::User,
            format!("! pw usershow -n {} >/dev/null 2>&1", w(name)?),
            format!("pw userdel -n {}", w(name)?),
        ),
        Desired::RootPassword { hash } => {
            let field = hash.as_deref().unwrap_or("*");
            (
                "root".to_string(),
                StepKind::Root,
                format!(
                    "[ \"$(awk -F: '$1 == \"root\" {{ print $2 }}' /etc/master.passwd)\" = {} ]",
                    w(field)?
                ),
                match hash {
                    None => "pw usermod -n root -h -".to_string(),
                    Some(h) => format!("printf '%s\\n' {} | pw usermod -n root -H 0", w(h)?),
                },
            )
        }
        Desired::Keys {
            user,
            group,
            content,
        } => keys(user, group, content)?,
        Desired::File(f) => (
            format!("file:{}", f.path),
            StepKind::File,
            file_check(f)?,
            file_change(f)?,
        ),
        Desired::Sshd { settings } => {
            let new = sshd_text(settings)?;
            (
                "sshd".to_string(),
                StepKind::Sshd,
                format!("{new} | cmp -s - /etc/ssh/sshd_config"),
                format!(
                    "{new} > /etc/ssh/sshd_config.beryl-tmp && mv -f /etc/ssh/sshd_config.beryl-tmp /etc/ssh/sshd_config"
                ),
            )
        }
        Desired::Rc(v) => (
            format!("rc:{}", v.name),
            StepKind::Rc,
            format!(
                "[ \"$(rcvalue {})\" = {} ]",
                words(
                    &std::iter::once(&v.name)
                        .chain(&v.owners)
                        .collect::<Vec<_>>()
                )?,
                w(&v.value)?
            ),
            rc_change(v)?,
        ),
        Desired::Timezone { zone } => (
            "tz".to_string(),
            StepKind::Timezone,
            format!("[ \"$(cat /var/db/zoneinfo 2>/dev/null)\" = {} ]", w(zone)?),
            format!("tzsetup -s {}", w(zone)?),
        ),
        Desired::Service(s) => (
            format!("service:{}", s.name),
            StepKind::Service,
            service_check(s)?,
            service_change(s)?,
        ),
        Desired::Zpool(p) => super::zfs::pool(p)?,
        Desired::Dataset(d) => super::zfs::dataset(d)?,
        Desired::Sysctl { name, value } => super::system::sysctl(name, value)?,
        Desired::Loader { name, value } => super::system::loader(name, value)?,
        Desired::Cron(e) => super::system::cron(e)?,
    };
    let notify = match &desired {
        Desired::File(f) => f.notify.clone(),
        _ => Vec::new(),
    };
    Ok(Step {
        id,
        kind,
        desired,
        check,
        change,
        notify,
        record: None,
        query: None,
    })
}

/// A user as `pw usershow` must show it.
fn user_check(u: &Account) -> Result<String, QuoteError> {
    let name = w(&u.name)?;
    let mut tests = vec![format!("pw usershow -n {name} >/dev/null 2>&1")];
    let field = |n: usize, want: &str| -> Result<String, QuoteError> {
        Ok(format!(
            "[ \"$(pw usershow -n {name} | cut -d: -f{n})\" = {} ]",
            w(want)?
        ))
    };
    if let Some(uid) = u.uid {
        tests.push(field(3, &uid.to_string())?);
    }
    if let Some(g) = &u.primary_group {
        tests.push(format!(
            "[ \"$(pw usershow -n {name} | cut -d: -f4)\" = \"$(pw groupshow -n {} | cut -d: -f3)\" ]",
            w(g)?
        ));
    }
    if let Some(c) = &u.comment {
        tests.push(field(8, c)?);
    }
    if let Some(s) = &u.shell {
        tests.push(field(10, s)?);
    }
    // The supplementary groups, as an exact set (`pw usermod -G` replaces it).
    tests.push(format!(
        "[ \"$(pw groupshow -a | awk -F: -v u={name} '{{n = split($4, m, \",\"); for (i = 1; i <= n; i++) if (m[i] == u) print $1}}' | sort | tr '\\n' ' ')\" = {} ]",
        w(&sorted(&u.groups).iter().map(|g| format!("{g} ")).collect::<String>())?
    ));
    Ok(tests.join(" && "))
}

fn sorted(groups: &[String]) -> Vec<String> {
    let mut g = groups.to_vec();
    g.sort();
    g.dedup();
    g
}

fn user_change(u: &Account) -> Result<String, QuoteError> {
    let mut args = Vec::new();
    if let Some(uid) = u.uid {
        args.push(format!("-u {uid}"));
    }
    if let Some(c) = &u.comment {
        args.push(format!("-c {}", w(c)?));
    }
    if let Some(s) = &u.shell {
        args.push(format!("-s {}", w(s)?));
    }
    if let Some(g) = &u.primary_group {
        args.push(format!("-g {}", w(g)?));
    }
    args.push(format!("-G {}", w(&sorted(&u.groups).join(","))?));
    let args = args.join(" ");
    let name = w(&u.name)?;
    Ok(format!(
        "if pw usershow -n {name} >/dev/null 2>&1; then pw usermod -n {name} {args}; else pw useradd -n {name} -m {args} -h -; fi"
    ))
}

/// The home pw gave a user, in `$home` (empty when there is no such user).
fn home(user: &str) -> Result<String, QuoteError> {
    Ok(format!(
        "home=$(pw usershow -n {} 2>/dev/null | cut -d: -f9) && [ -n \"$home\" ]",
        w(user)?
    ))
}

/// authorized_keys under the user's real home: directory 0700 and file 0600,
/// owned by the user.
fn keys(
    user: &str,
    group: &str,
    content: &str,
) -> Result<(String, StepKind, String, String), QuoteError> {
    let owner = w(&format!("{user}:{group}"))?;
    let check = [
        home(user)?,
        format!(
            "[ \"$(sha256 -q \"$home/.ssh/authorized_keys\" 2>/dev/null)\" = {} ]",
            sha256_hex(content)
        ),
        format!(
            "[ \"$(stat -f '%Lp %Su %Sg' \"$home/.ssh/authorized_keys\" 2>/dev/null)\" = {} ]",
            w(&format!("600 {user} {group}"))?
        ),
        format!(
            "[ \"$(stat -f '%Lp %Su' \"$home/.ssh\" 2>/dev/null)\" = {} ]",
            w(&format!("700 {user}"))?
        ),
    ];
    let change = [
        home(user)?,
        "mkdir -p \"$home/.ssh\"".to_string(),
        format!("chown {owner} \"$home/.ssh\""),
        "chmod 0700 \"$home/.ssh\"".to_string(),
        format!(
            "printf '%s' {} > \"$home/.ssh/authorized_keys.beryl-tmp\"",
            w(content)?
        ),
        format!("chown {owner} \"$home/.ssh/authorized_keys.beryl-tmp\""),
        "chmod 0600 \"$home/.ssh/authorized_keys.beryl-tmp\"".to_string(),
        "mv -f \"$home/.ssh/authorized_keys.beryl-tmp\" \"$home/.ssh/authorized_keys\"".to_string(),
    ];
    Ok((
        format!("keys:{user}"),
        StepKind::Keys,
        check.join(" && "),
        change.join(" && "),
    ))
}

fn file_check(f: &File) -> Result<String, QuoteError> {
    let path = w(&f.path)?;
    Ok(format!(
        "[ \"$(sha256 -q {path} 2>/dev/null)\" = {} ] && [ \"$(stat -f '%Lp %Su %Sg' {path} 2>/dev/null)\" = {} ]",
        sha256_hex(&f.content),
        w(&format!("{} {} {}", f.mode, f.owner, f.group))?
    ))
}

/// Written to a temporary file beside it, checked by the validator if any,
/// then installed with its mode and owner.
fn file_change(f: &File) -> Result<String, QuoteError> {
    let dir = f.dir();
    let tmp = w(&format!("{}.beryl-tmp", f.path))?;
    let mut change = vec![
        format!("mkdir -p {}", w(dir)?),
        format!("printf '%s' {} > {tmp}", w(&f.content)?),
    ];
    if let Some(v) = f.validate_words() {
        change.push(words(&v)?);
    }
    change.push(format!(
        "install -m {} -o {} -g {} {tmp} {}",
        w(&format!("0{}", f.mode))?,
        w(&f.owner)?,
        w(&f.group)?,
        w(&f.path)?
    ));
    change.push(format!("rm -f {tmp}"));
    Ok(change.join(" && "))
}

/// The sshd_config beryl wants, printed from the one the host has.
fn sshd_text(settings: &[(String, String)]) -> Result<String, QuoteError> {
    let lines: Vec<String> = std::iter::once(sshd::HEADER.to_string())
        .chain(settings.iter().map(|(k, v)| format!("{k} {v}")))
        .collect();
    Ok(format!(
        "{{ printf '%s\\n' {}; awk -v keys={} {} /etc/ssh/sshd_config; }}",
        words(&lines)?,
        w(&sshd::awk_keys(settings))?,
        w(sshd::AWK)?
    ))
}

/// sysrc writes the variable where rc.conf's files already set it (else
/// /etc/rc.conf), and into each `rc.conf.d` file of its script that sets it
/// too; a variable a running host only sees once a script runs again gets
/// that script restarted.
fn rc_change(v: &RcVar) -> Result<String, QuoteError> {
    let assign = w(&format!("{}={}", v.name, v.value))?;
    let mut change = vec![format!("sysrc {assign} >/dev/null")];
    for owner in &v.owners {
        for dir in ["/etc/rc.conf.d", "/usr/local/etc/rc.conf.d"] {
            let file = w(&format!("{dir}/{owner}"))?;
            change.push(format!(
                "{{ ! rcdefines {file} {name} || sysrc -f {file} {assign} >/dev/null; }}",
                name = w(&v.name)?
            ));
        }
    }
    if let Some(script) = v.restart {
        change.push(format!("service {} restart", w(script)?));
    }
    Ok(change.join(" && "))
}

/// An enabled service: its rcvar YES as rc(8) reads it, and running
/// (`service NAME status` exits 0: rc.subr's status prints "is running as
/// pid" and returns 0, else "is not running." and 1; rc.subr e4452d45). A
/// disabled one: NO, and not running.
fn service_check(s: &Service) -> Result<String, QuoteError> {
    let (value, running) = if s.enable { ("YES", "") } else { ("NO", "! ") };
    Ok(format!(
        "[ \"$(rcvalue {})\" = {value} ] && {running}service {} status >/dev/null 2>&1",
        words(
            &std::iter::once(&s.rcvar)
                .chain(&s.owners)
                .collect::<Vec<_>>()
        )?,
        w(&s.name)?
    ))
}

/// The rcvar set as the rc steps set variables, then `start` when it is
/// not running (rc.subr refuses to start a running one: "already
/// running?"), or `stop` when a disabled one runs (`onestop`: the gate
/// lets `stop` through only with the rcvar set, so the `one` prefix says
/// it anyway).
fn service_change(s: &Service) -> Result<String, QuoteError> {
    let var = RcVar {
        name: s.rcvar.clone(),
        value: if s.enable { "YES" } else { "NO" }.into(),
        owners: s.owners.clone(),
        restart: None,
    };
    let name = w(&s.name)?;
    let act = if s.enable {
        format!("{{ service {name} status >/dev/null 2>&1 || service {name} start; }}")
    } else {
        format!("{{ ! service {name} status >/dev/null 2>&1 || service {name} onestop; }}")
    };
    Ok(format!("{} && {act}", rc_change(&var)?))
}
