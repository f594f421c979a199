//! Kernel state and scheduled jobs: sysctl MIB names and values, loader.conf
//! variables, and cron entries (names, schedules and commands).

use super::{quote, show};

/// The longest sysctl name beryl writes (sysctl(8) refuses an argument
/// longer than its `BUFSIZ` buffer, "oid too long"; real names are far
/// shorter).
pub(crate) const MAX_SYSCTL_NAME: usize = 256;

/// A sysctl MIB name: at least two dot-separated components of letters,
/// digits, `_` and `-`, the first starting with a letter (`kern.maxfiles`,
/// `net.inet.tcp.sendspace`). It stands at the start of a sysctl.conf line,
/// so nothing in it may be read as a comment or an assignment.
pub(crate) fn sysctl_name(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("the name is empty".into());
    }
    if s.len() > MAX_SYSCTL_NAME {
        return Err(format!(
            "{} is {} bytes long; beryl allows at most {MAX_SYSCTL_NAME}",
            quote(s),
            s.len()
        ));
    }
    if let Some(c) = s
        .chars()
        .find(|c| !c.is_ascii_alphanumeric() && !matches!(c, '.' | '_' | '-'))
    {
        return Err(format!(
            "{} contains {}; a MIB name is dot-separated words of letters, digits, `_` and `-`",
            quote(s),
            show(c)
        ));
    }
    if !s.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Err(format!("{} does not start with a letter", quote(s)));
    }
    if s.split('.').any(str::is_empty) {
        return Err(format!(
            "{} has an empty component (a leading, trailing or doubled `.`)",
            quote(s)
        ));
    }
    if !s.contains('.') {
        return Err(format!(
            "{} is one word; a MIB name has at least two, such as kern.maxfiles",
            quote(s)
        ));
    }
    Ok(())
}

/// A sysctl value as one word of a sysctl.conf line and of `sysctl
/// NAME=VALUE`: letters, digits and `. _ , : / % + @ -`. `#` would start a
/// comment in sysctl.conf (sysctl.conf(5)), quotes and spaces are not
/// written by sysctl -n the way they are read.
pub(crate) fn sysctl_value(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("the value is empty".into());
    }
    match s
        .chars()
        .find(|c| !c.is_ascii_alphanumeric() && !"._,:/%+@-".contains(*c))
    {
        Some(c) => Err(format!(
            "{} contains {}; a value is one word of letters, digits and `. _ , : / % + @ -`",
            quote(s),
            show(c)
        )),
        None => Ok(()),
    }
}

/// The sysctls the installer writes itself, with why:
/// `usr.sbin/bsdinstall/scripts/zfsboot` 00a35910 appends
/// `vfs.zfs.min_auto_ashift=12` to sysctl.conf when it forces 4K sectors.
/// beryl did not create that line, so it would never be pruned; and a second
/// writer would fight the installer.
pub(crate) const SYSCTL_MANAGED: &[(&str, &str)] = &[(
    "vfs.zfs.min_auto_ashift",
    "zfsboot writes it when it forces 4K sectors (ZFSBOOT_FORCE_4K_SECTORS)",
)];

/// For a sysctl that the installer writes, why it is refused.
pub(crate) fn sysctl_managed(name: &str) -> Option<&'static str> {
    SYSCTL_MANAGED
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, why)| *why)
}

/// The loader.conf variables the installer writes itself, with why: a
/// second writer would fight it. `usr.sbin/bsdinstall/scripts/config`
/// 023fc80e appends `zfs_load` and `cryptodev_load` when the root is on ZFS;
/// `scripts/zfsboot` 00a35910 writes the two `kern.geom.label` lines (their
/// dotted names are refused anyway: sysrc cannot write them).
pub(crate) const LOADER_MANAGED: &[(&str, &str)] = &[
    (
        "zfs_load",
        "the installer's `config` step writes it for a ZFS root (freebsd.disks)",
    ),
    (
        "cryptodev_load",
        "the installer's `config` step writes it for a ZFS root (freebsd.disks)",
    ),
    (
        "kern.geom.label.disk_ident.enable",
        "zfsboot writes it when it partitions the disks",
    ),
    (
        "kern.geom.label.gptid.enable",
        "zfsboot writes it when it partitions the disks",
    ),
];

/// For a loader variable that the installer writes, why it is refused.
pub(crate) fn loader_managed(name: &str) -> Option<&'static str> {
    LOADER_MANAGED
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, why)| *why)
}

/// A loader variable beryl can write: a shell variable name, written with
/// `sysrc -f /boot/loader.conf` (sysrc takes only those: usr.sbin/sysrc/sysrc
/// 09711ccb, "name contains characters not allowed in shell"), or a dotted
/// tunable ([`loader_dotted`]), written in beryl's file of the loader's
/// drop-in directory (src/freebsd/loader_d.rs) and named as a MIB name is,
/// which the loader's `[%w][%w%d-_.]*` reads whole.
pub(crate) fn loader_name(s: &str) -> Result<(), String> {
    match loader_dotted(s) {
        true => sysctl_name(s),
        false => super::rc_name(s),
    }
}

/// Whether a loader variable is a dotted tunable (`kern.maxusers`), which
/// goes to the drop-in file rather than to loader.conf.
pub(crate) fn loader_dotted(s: &str) -> bool {
    s.contains('.')
}

/// The longest cron entry name (the file is `beryl-NAME`).
pub(crate) const MAX_CRON_NAME: usize = 64;

/// A cron entry's name: it names a file of the cron drop-in directory, so
/// letters, digits, `_` and `-` only (cron skips names starting with `.`,
/// and a `/` would leave the directory).
pub(crate) fn cron_name(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("the name is empty".into());
    }
    if s.len() > MAX_CRON_NAME {
        return Err(format!(
            "{} is {} bytes long; beryl allows at most {MAX_CRON_NAME}",
            quote(s),
            s.len()
        ));
    }
    match s
        .chars()
        .find(|c| !c.is_ascii_alphanumeric() && !matches!(c, '_' | '-'))
    {
        Some(c) => Err(format!(
            "{} contains {}; an entry name uses letters, digits, `_` and `-` (it names a file)",
            quote(s),
            show(c)
        )),
        None => Ok(()),
    }
}

/// The `@` words that stand for the five fields (crontab(5),
/// usr.sbin/cron/crontab/crontab.5 e4452d45: the long-standing ones; the
/// newer `@every_minute`, `@every_second` and `@SECONDS` are left out).
pub(crate) const CRON_SPECIALS: &[&str] = &[
    "@reboot",
    "@yearly",
    "@annually",
    "@monthly",
    "@weekly",
    "@daily",
    "@midnight",
    "@hourly",
];

/// One time field of crontab(5): its name, range and the names it takes.
struct TimeField {
    what: &'static str,
    min: u32,
    max: u32,
    names: &'static [&'static str],
}

const MONTHS: &[&str] = &[
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const DAYS: &[&str] = &["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

/// The five fields, in order (crontab.5: "day of week 0-7 (0 or 7 is Sun)").
const FIELDS: [TimeField; 5] = [
    TimeField {
        what: "minute",
        min: 0,
        max: 59,
        names: &[],
    },
    TimeField {
        what: "hour",
        min: 0,
        max: 23,
        names: &[],
    },
    TimeField {
        what: "day of month",
        min: 1,
        max: 31,
        names: &[],
    },
    TimeField {
        what: "month",
        min: 1,
        max: 12,
        names: MONTHS,
    },
    TimeField {
        what: "day of week",
        min: 0,
        max: 7,
        names: DAYS,
    },
];

/// A schedule: five time fields (`*`, numbers, ranges `a-b`, lists `a,b`,
/// steps `/n`, month and day names), or one of [`CRON_SPECIALS`]. Returned
/// normalized: fields separated by one space.
pub(crate) fn cron_schedule(s: &str) -> Result<String, String> {
    let s = s.trim();
    if s.starts_with('@') {
        return match CRON_SPECIALS.iter().find(|w| **w == s) {
            Some(w) => Ok(w.to_string()),
            None => Err(format!(
                "{} is not one of {}",
                quote(s),
                CRON_SPECIALS.join(", ")
            )),
        };
    }
    let fields: Vec<&str> = s.split_ascii_whitespace().collect();
    if fields.len() != 5 {
        return Err(format!(
            "{} has {} field{}; a schedule has five (minute hour day-of-month month day-of-week) or is a word such as @daily",
            quote(s),
            fields.len(),
            if fields.len() == 1 { "" } else { "s" }
        ));
    }
    for (text, field) in fields.iter().zip(&FIELDS) {
        time_field(text, field)?;
    }
    Ok(fields.join(" "))
}

fn time_field(text: &str, f: &TimeField) -> Result<(), String> {
    for item in text.split(',') {
        let (range, step) = match item.split_once('/') {
            Some((r, s)) => (r, Some(s)),
            None => (item, None),
        };
        if let Some(step) = step
            && !(super::all_digits(step) && step.parse::<u32>().is_ok_and(|n| n > 0))
        {
            return Err(format!(
                "the {} field {}: step {} is not a positive number",
                f.what,
                quote(text),
                quote(step)
            ));
        }
        if range == "*" {
            continue;
        }
        let (lo, hi) = match range.split_once('-') {
            Some((a, b)) => (value(a, f, text)?, value(b, f, text)?),
            None => {
                let v = value(range, f, text)?;
                (v, v)
            }
        };
        if lo > hi {
            return Err(format!(
                "the {} field {}: the range {} runs backwards",
                f.what,
                quote(text),
                quote(range)
            ));
        }
    }
    Ok(())
}

fn value(v: &str, f: &TimeField, text: &str) -> Result<u32, String> {
    let lower = v.to_ascii_lowercase();
    if let Some(i) = f.names.iter().position(|n| *n == lower) {
        // Months count from 1, days from 0 (crontab(5)).
        return Ok(i as u32 + f.min);
    }
    let n = match super::all_digits(v) {
        true => v.parse::<u32>().ok(),
        false => None,
    };
    match n {
        Some(n) if (f.min..=f.max).contains(&n) => Ok(n),
        Some(_) => Err(format!(
            "the {} field {}: {} is outside {}-{}",
            f.what,
            quote(text),
            quote(v),
            f.min,
            f.max
        )),
        None => Err(format!(
            "the {} field {}: {} is not a number{}",
            f.what,
            quote(text),
            quote(v),
            if f.names.is_empty() {
                String::new()
            } else {
                format!(" or a name ({})", f.names.join(", "))
            }
        )),
    }
}

/// A cron command: one line (cron runs the rest of the line with /bin/sh),
/// not starting with `-` (crontab(5) reads `-n` and `-q` there as options),
/// and every `%` escaped as `\%`: cron turns an unescaped `%` into a newline
/// and sends what follows as standard input (crontab.5 e4452d45).
pub(crate) fn cron_command(s: &str) -> Result<(), String> {
    if s.trim().is_empty() {
        return Err("the command is empty".into());
    }
    if let Some(c) = s.chars().find(|c| c.is_control()) {
        return Err(format!(
            "{} contains {}; a cron command is one line",
            quote(s),
            show(c)
        ));
    }
    if s.trim_start().starts_with('-') {
        return Err(format!(
            "{} starts with `-`, which cron reads as its own option (-n, -q)",
            quote(s)
        ));
    }
    let bytes = s.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'%' && (i == 0 || bytes[i - 1] != b'\\') {
            return Err(format!(
                "{} has an unescaped `%`, which cron turns into a newline (the rest becomes standard input)",
                quote(s)
            ));
        }
    }
    Ok(())
}
