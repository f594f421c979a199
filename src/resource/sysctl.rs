//! `sysctl`: a kernel variable of `freebsd.sysctl`, as a line `NAME=VALUE`
//! in /etc/sysctl.conf (read at boot) and, on a running host, its live
//! value.
//!
//! - **Install:** the line, written with [`SYSCTL_AWK`]; a line for the
//!   same name is replaced, every other line (zfsboot's included) kept.
//! - **Apply:** the live value (`sysctl -n NAME`, set by `sysctl
//!   NAME=VALUE`, which refuses a read-only tunable: the step then fails
//!   with sysctl's own message, and the file is left alone), then the
//!   line.
//! - **Records:** `sysctl NAME`, pruned by dropping the line; the live value
//!   stays until the next boot.

use serde::Serialize;

use super::state::State;
use super::verdict::{Action, Verdict, change, unified};
use super::{Input, Kind, Prune, Record, Resource, Shell};
use crate::shell::{QuoteError, word as w};

/// The file whose lines set sysctls at boot: rc.d/sysctl runs `sysctl -i -f`
/// on it, then on `/etc/sysctl.conf.local`, which wins for a name both set
/// (libexec/rc/rc.d/sysctl 023fc80e).
pub(crate) const SYSCTL_CONF: &str = "/etc/sysctl.conf";
/// The edit of sysctl.conf for the name `name`: every line whose name (the
/// text before the first `=`, blanks trimmed; `#` lines are comments,
/// sysctl.conf(5)) is `name` is dropped, and `name=value` takes the place of
/// the first, or is appended. An empty `value` only drops (pruning).
/// [`SYSCTL_AWK`] as a literal, for the pruning rows that embed it.
macro_rules! sysctl_awk {
    () => {
        r##"{
	line = $0
	sub(/^[ \t]+/, "", line)
	k = ""
	i = index(line, "=")
	if (substr(line, 1, 1) != "#" && i > 1) {
		k = substr(line, 1, i - 1)
		sub(/[ \t]+$/, "", k)
	}
	if (k == name) {
		if (value != "" && !done) print name "=" value
		done = 1
		next
	}
	print
}
END { if (value != "" && !done) print name "=" value }"##
    };
}
pub(crate) const SYSCTL_AWK: &str = sysctl_awk!();

/// A sysctl.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sysctl {
    pub name: String,
    pub value: String,
}

/// The sysctls, in the order written.
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    super::items(input.freebsd().sysctl.iter().map(|t| Sysctl {
        name: t.name.value.clone(),
        value: t.value.value.clone(),
    }))
}

/// How a recorded sysctl line is found and pruned.
pub(crate) const PRUNE: Prune = Prune {
    kind: "sysctl",
    step_kind: "sysctl",
    exists: concat!(
        "[ -f /etc/sysctl.conf ] && ! awk -v name=\"$1\" -v value= '",
        sysctl_awk!(),
        "' /etc/sysctl.conf | cmp -s - /etc/sysctl.conf"
    ),
    keep: "false",
    remove: concat!(
        "awk -v name=\"$1\" -v value= '",
        sysctl_awk!(),
        "' /etc/sysctl.conf > /etc/sysctl.conf.beryl-tmp && mv -f /etc/sysctl.conf.beryl-tmp /etc/sysctl.conf"
    ),
    source: "libexec/rc/rc.d/sysctl @023fc80e (the file read at boot); the live value stays until the next boot",
    kept: None,
    removal_note: Some(
        "the line is removed; the live value stays until the next boot (the kernel keeps no earlier value)",
    ),
    removal_notify: None,
    present: |s, id| {
        s.sysctl_conf
            .as_ref()
            .is_some_and(|f| edit(&f.content, id, "") != f.content)
    },
};

impl Kind for Sysctl {
    type Want = Sysctl;
    const NAME: &'static str = "sysctl";
    const TEMPLATE: Option<&'static str> = Some(include_str!("../../templates/steps/sysctl.sh.j2"));
    const PRUNE: Option<&'static Prune> = Some(&PRUNE);

    fn id(&self) -> String {
        format!("sysctl:{}", self.name)
    }

    fn records(&self) -> Vec<Record> {
        vec![Record::new("sysctl", &self.name)]
    }

    fn wants(&self) -> Vec<Sysctl> {
        vec![self.clone()]
    }

    fn step_id(want: &Sysctl) -> String {
        want.id()
    }

    /// The live value is set first, so that a value the kernel refuses
    /// leaves the file as it was.
    fn shell(want: &Sysctl) -> Result<Shell, QuoteError> {
        let Sysctl { name, value } = want;
        let edit = awk(name, value)?;
        let tmp = format!("{SYSCTL_CONF}.beryl-tmp");
        Ok(Shell {
            check: format!(
                "[ \"$(sysctl -n {} 2>/dev/null)\" = {} ] && {edit} 2>/dev/null | cmp -s - {SYSCTL_CONF}",
                w(name)?,
                w(value)?
            ),
            change: format!(
                "sysctl {} >/dev/null && touch {SYSCTL_CONF} && {edit} > {tmp} && mv -f {tmp} {SYSCTL_CONF}",
                w(&format!("{name}={value}"))?
            ),
        })
    }

    /// The live value and the file.
    fn judge(want: &Sysctl, s: &State) -> Verdict {
        let Sysctl { name, value } = want;
        let have = s.sysctl_conf.as_ref().map_or("", |f| f.content.as_str());
        let wanted = edit(have, name, value);
        let live = s.sysctl.get(name).cloned().flatten();
        let mut changes = Vec::new();
        if live.as_deref() != Some(value.as_str()) {
            changes.push(change(
                "live",
                live.as_deref().unwrap_or("(unknown oid)"),
                value,
            ));
        }
        let diff = (wanted != have).then(|| unified(have, &wanted));
        if changes.is_empty() && diff.is_none() {
            return Verdict::new(Action::Noop, changes, None);
        }
        let had_line = edit(have, name, "") != have;
        let action = if had_line || live.is_some() {
            Action::Update
        } else {
            Action::Create
        };
        Verdict::new(action, changes, diff)
    }
}

/// The same edit, for the dry run.
pub(crate) fn edit(text: &str, name: &str, value: &str) -> String {
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
fn awk(name: &str, value: &str) -> Result<String, QuoteError> {
    Ok(format!(
        "awk -v name={} -v value={} {} {SYSCTL_CONF}",
        w(name)?,
        w(value)?,
        w(SYSCTL_AWK)?
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysctl_edit_replaces_the_names_lines_and_keeps_the_rest() {
        let conf = "# tuning\nvfs.zfs.min_auto_ashift=12\n  kern.ipc.somaxconn = 128 # old\nkern.ipc.somaxconn=256\n#kern.ipc.somaxconn=1\n";
        assert_eq!(
            edit(conf, "kern.ipc.somaxconn", "1024"),
            "# tuning\nvfs.zfs.min_auto_ashift=12\nkern.ipc.somaxconn=1024\n#kern.ipc.somaxconn=1\n"
        );
        assert_eq!(
            edit(conf, "kern.ipc.somaxconn", ""),
            "# tuning\nvfs.zfs.min_auto_ashift=12\n#kern.ipc.somaxconn=1\n"
        );
        assert_eq!(edit("", "a.b", "1"), "a.b=1\n");
        // A prefix of another name is another name.
        assert_eq!(edit("a.bc=2\n", "a.b", "1"), "a.bc=2\na.b=1\n");
        // Idempotent.
        let once = edit(conf, "kern.ipc.somaxconn", "1024");
        assert_eq!(edit(&once, "kern.ipc.somaxconn", "1024"), once);
    }
}
