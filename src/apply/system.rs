//! sysctl, loader.conf and cron steps: their checks and changes, and how
//! the dry run judges them against a state snapshot.
//!
//! - sysctl: the line `NAME=VALUE` in /etc/sysctl.conf (an existing line
//!   for the name is replaced, every other line kept; [`SYSCTL_AWK`]) and
//!   the live value (`sysctl -n NAME`, set by `sysctl NAME=VALUE`, which
//!   refuses a read-only tunable: the step then fails with sysctl's own
//!   message, and the file is left alone).
//! - loader: `sysrc -f /boot/loader.conf NAME=VALUE`; the loader reads it at
//!   the next boot, which beryl reports and never does.
//! - cron: one system crontab file per entry, staged under a dot name that
//!   cron(8) skips, then renamed into place.

use crate::desired::CronEntry;
use crate::desired::system::{LOADER_CONF, SYSCTL_AWK, SYSCTL_CONF};
use crate::shell::{QuoteError, word as w};

use super::diff::{Action, Change};
use super::state::State;
use super::{StepKind, sha256_hex};

/// The note a changed loader variable carries, in the dry run and the apply.
pub(crate) const REBOOT: &str = "the loader reads /boot/loader.conf at boot: reboot for this to take effect (beryl never reboots)";

/// What a change of a kind of step leaves to be done, shown under it.
const NOTES: &[(StepKind, &str)] = &[(StepKind::Loader, REBOOT)];

/// What removing an item of a kind leaves to be done, shown under it.
const REMOVAL_NOTES: &[(StepKind, &str)] = &[
    (
        StepKind::Sysctl,
        "the line is removed; the live value stays until the next boot (the kernel keeps no earlier value)",
    ),
    (StepKind::Loader, REBOOT),
];

/// The note of the removal of an item of a kind, if any.
pub(super) fn removal_note(kind: StepKind) -> Option<&'static str> {
    REMOVAL_NOTES
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, n)| *n)
}

/// The note of a kind of step, if any.
pub(super) fn note(kind: StepKind) -> Option<&'static str> {
    NOTES.iter().find(|(k, _)| *k == kind).map(|(_, n)| *n)
}

/// The same edit, for the dry run.
pub(crate) fn sysctl_edit(text: &str, name: &str, value: &str) -> String {
    let mut out = String::new();
    let mut done = false;
    for line in text.lines() {
        let trimmed = line.trim_start_matches([' ', '\t']);
        let key = match trimmed.find('=') {
            Some(i) if i > 0 && !trimmed.starts_with('#') => {
                trimmed[..i].trim_end_matches([' ', '\t'])
            }
            _ => "",
        };
        if key == name {
            if !value.is_empty() && !done {
                out.push_str(&format!("{name}={value}\n"));
            }
            done = true;
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    if !value.is_empty() && !done {
        out.push_str(&format!("{name}={value}\n"));
    }
    out
}

/// The awk command that prints sysctl.conf edited for `name` (empty
/// `value`: the line removed).
pub(crate) fn sysctl_awk(name: &str, value: &str) -> Result<String, QuoteError> {
    Ok(format!(
        "awk -v name={} -v value={} {} {SYSCTL_CONF}",
        w(name)?,
        w(value)?,
        w(SYSCTL_AWK)?
    ))
}

/// (id, kind, check, change) of a sysctl: the live value is set first, so
/// that a value the kernel refuses leaves the file as it was.
pub(super) fn sysctl(
    name: &str,
    value: &str,
) -> Result<(String, StepKind, String, String), QuoteError> {
    let edit = sysctl_awk(name, value)?;
    let tmp = format!("{SYSCTL_CONF}.beryl-tmp");
    Ok((
        format!("sysctl:{name}"),
        StepKind::Sysctl,
        format!(
            "[ \"$(sysctl -n {} 2>/dev/null)\" = {} ] && {edit} 2>/dev/null | cmp -s - {SYSCTL_CONF}",
            w(name)?,
            w(value)?
        ),
        format!(
            "sysctl {} >/dev/null && touch {SYSCTL_CONF} && {edit} > {tmp} && mv -f {tmp} {SYSCTL_CONF}",
            w(&format!("{name}={value}"))?
        ),
    ))
}

/// (id, kind, check, change) of a loader.conf variable. The check reads only
/// the file (`-a` lists what the files set, not /etc/defaults/rc.conf).
pub(super) fn loader(
    name: &str,
    value: &str,
) -> Result<(String, StepKind, String, String), QuoteError> {
    Ok((
        format!("loader:{name}"),
        StepKind::Loader,
        format!(
            "sysrc -f {LOADER_CONF} -a 2>/dev/null | grep -qxF {}",
            w(&format!("{name}: {value}"))?
        ),
        format!(
            "sysrc -f {LOADER_CONF} {} >/dev/null",
            w(&format!("{name}={value}"))?
        ),
    ))
}

/// The owner and mode of a cron file.
pub(crate) const CRON_MODE: &str = "644";

/// (id, kind, check, change) of a cron entry: content, mode and owner.
pub(super) fn cron(e: &CronEntry) -> Result<(String, StepKind, String, String), QuoteError> {
    let path = w(&e.path)?;
    let staging = w(&e.staging)?;
    let dir = crate::desired::dirname(&e.path);
    Ok((
        format!("cron:{}", e.name),
        StepKind::Cron,
        format!(
            "[ \"$(sha256 -q {path} 2>/dev/null)\" = {} ] && [ \"$(stat -f '%Lp %Su %Sg' {path} 2>/dev/null)\" = {} ]",
            sha256_hex(&e.content),
            w(&format!("{CRON_MODE} root wheel"))?
        ),
        format!(
            "mkdir -p {} && printf '%s' {} > {staging} && chown root:wheel {staging} && chmod 0{CRON_MODE} {staging} && mv -f {staging} {path}",
            w(dir)?,
            w(&e.content)?
        ),
    ))
}

/// What the dry run says of a sysctl: the live value and the file.
pub(super) fn judge_sysctl(
    s: &State,
    name: &str,
    value: &str,
) -> (Action, Vec<Change>, Option<String>) {
    let have = s.sysctl_conf.as_ref().map_or("", |f| f.content.as_str());
    let want = sysctl_edit(have, name, value);
    let live = s.sysctl.get(name).cloned().flatten();
    let mut changes = Vec::new();
    if live.as_deref() != Some(value) {
        changes.push(super::diff::change(
            "live",
            live.as_deref().unwrap_or("(unknown oid)"),
            value,
        ));
    }
    let diff = (want != have).then(|| super::diff::unified(have, &want));
    if changes.is_empty() && diff.is_none() {
        return (Action::Noop, changes, None);
    }
    let had_line = sysctl_edit(have, name, "") != have;
    let action = if had_line || live.is_some() {
        Action::Update
    } else {
        Action::Create
    };
    (action, changes, diff)
}

/// What the dry run says of a loader variable.
pub(super) fn judge_loader(
    s: &State,
    name: &str,
    value: &str,
) -> (Action, Vec<Change>, Option<String>) {
    match s.loader_conf.get(name) {
        Some(have) if have == value => (Action::Noop, Vec::new(), None),
        Some(have) => (
            Action::Update,
            vec![super::diff::change(name, have, value)],
            None,
        ),
        None => (
            Action::Create,
            vec![super::diff::change(name, "", value)],
            None,
        ),
    }
}

/// What the dry run says of a cron entry.
pub(super) fn judge_cron(s: &State, e: &CronEntry) -> (Action, Vec<Change>, Option<String>) {
    let Some(have) = s.cron.get(&e.name).and_then(|f| f.as_ref()) else {
        return (Action::Create, Vec::new(), None);
    };
    let mut changes = Vec::new();
    let diff =
        super::diff::compare_file(have, &e.content, CRON_MODE, "root", "wheel", &mut changes);
    if changes.is_empty() {
        (Action::Noop, changes, None)
    } else {
        (Action::Update, changes, diff)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_read_the_cron_directory_of_every_release() {
        for c in crate::freebsd::cron::CRONS {
            let dir = c.dir.unwrap_or_else(|| panic!("{}", c.version));
            assert!(
                super::super::state::FACTS_SCRIPT.contains(&format!("\"{dir}/beryl-$n\"")),
                "facts.sh does not read {dir} ({})",
                c.version
            );
        }
    }

    #[test]
    fn only_loader_steps_carry_a_note() {
        assert_eq!(note(StepKind::Loader), Some(REBOOT));
        for k in [
            StepKind::Sysctl,
            StepKind::Cron,
            StepKind::File,
            StepKind::Rc,
        ] {
            assert_eq!(note(k), None, "{k:?}");
        }
    }

    #[test]
    fn sysctl_edit_replaces_the_names_lines_and_keeps_the_rest() {
        let conf = "# tuning\nvfs.zfs.min_auto_ashift=12\n  kern.ipc.somaxconn = 128 # old\nkern.ipc.somaxconn=256\n#kern.ipc.somaxconn=1\n";
        assert_eq!(
            sysctl_edit(conf, "kern.ipc.somaxconn", "1024"),
            "# tuning\nvfs.zfs.min_auto_ashift=12\nkern.ipc.somaxconn=1024\n#kern.ipc.somaxconn=1\n"
        );
        assert_eq!(
            sysctl_edit(conf, "kern.ipc.somaxconn", ""),
            "# tuning\nvfs.zfs.min_auto_ashift=12\n#kern.ipc.somaxconn=1\n"
        );
        assert_eq!(sysctl_edit("", "a.b", "1"), "a.b=1\n");
        // A prefix of another name is another name.
        assert_eq!(sysctl_edit("a.bc=2\n", "a.b", "1"), "a.bc=2\na.b=1\n");
        // Idempotent.
        let once = sysctl_edit(conf, "kern.ipc.somaxconn", "1024");
        assert_eq!(sysctl_edit(&once, "kern.ipc.somaxconn", "1024"), once);
    }
}
