//! `loader`: a /boot/loader.conf variable of `freebsd.loader`, written with
//! `sysrc -f /boot/loader.conf NAME=VALUE`. The loader reads it at the next
//! boot, which beryl reports and never does.
//!
//! - **Records:** `loader NAME`, pruned with `sysrc -f … -x`.
//!
//! A dotted tunable (`kern.maxusers`), which sysrc cannot write, goes to a
//! file beryl owns in the loader's drop-in directory instead ([`layout_d`],
//! src/freebsd/loader_d.rs): a whole file, `NAME="VALUE"` a line, recorded
//! as `file PATH` and removed when no dotted tunable is left.

use serde::Serialize;

use super::file::File;
use super::state::State;
use super::verdict::{Action, Verdict, change};
use super::{Input, Kind, Prune, Record, Resource, Shell};
use crate::freebsd::{loader_d, names};
use crate::shell::{QuoteError, word as w};

/// The loader's configuration, written with `sysrc -f`.
pub(crate) const LOADER_CONF: &str = "/boot/loader.conf";

/// The note a changed loader variable carries, in the dry run and the apply.
pub(crate) const REBOOT: &str = "the loader reads /boot/loader.conf at boot: reboot for this to take effect (beryl never reboots)";

/// The tunable that turns resource accounting on (freebsd-jails-2.md §1.3).
pub(crate) const RACCT: &str = "kern.racct.enable";

/// A loader.conf variable.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Loader {
    pub name: String,
    pub value: String,
}

/// The variables sysrc writes, in the order written.
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    super::items(
        input
            .freebsd()
            .loader
            .iter()
            .filter(|t| !names::loader_dotted(&t.name.value))
            .map(|t| Loader {
                name: t.name.value.clone(),
                value: t.value.value.clone(),
            }),
    )
}

/// The dotted tunables: beryl's file in the release's loader drop-in
/// directory, one `NAME="VALUE"` line each in the order given (the values
/// hold no `"`, `\`, `$` or control character: the schema refused them).
/// Without a release whose loader reads the directory, the release check
/// has refused the host already.
pub(crate) fn layout_d(input: &Input<'_>) -> Vec<Resource> {
    let f = input.freebsd();
    let mut dotted: Vec<String> = f
        .loader
        .iter()
        .filter(|t| names::loader_dotted(&t.name.value))
        .map(|t| format!("{}=\"{}\"", t.name.value, t.value.value))
        .collect();
    // A jail's rctl rules need racct, a tunable read only at boot
    // (kern_racct.c: kern.racct.enable is CTLFLAG_RDTUN; rctl.c: "RACCT/RCTL
    // present, but disabled; enable using kern.racct.enable=1 tunable"):
    // unless the host writes it itself (a check refuses 0).
    let rctl = input.jails.iter().any(|j| {
        j.compiled
            .freebsd
            .jail
            .as_ref()
            .is_some_and(|j| !j.rctl.is_empty())
    });
    if rctl && !f.loader.iter().any(|t| t.name.value == RACCT) {
        dotted.push(format!("{RACCT}=\"1\""));
    }
    let path = f.version.as_ref().and_then(|v| loader_d::path(&v.value));
    let (Some(path), false) = (path, dotted.is_empty()) else {
        return Vec::new();
    };
    let content = format!(
        "# Written by beryl from freebsd.loader: the loader reads this file at boot.\n{}",
        super::lines(dotted.iter())
    );
    super::items(std::iter::once(File {
        path,
        content,
        mode: "0644".into(),
        owner: "root".into(),
        group: "wheel".into(),
        validate: None,
        notify: Vec::new(),
        listed: true,
        note: Some(REBOOT),
    }))
}

/// How a recorded loader variable is found and pruned.
pub(crate) const PRUNE: Prune = Prune {
    kind: "loader",
    step_kind: "loader",
    exists: "sysrc -f /boot/loader.conf -a 2>/dev/null | grep -q \"^$1: \"",
    keep: "false",
    remove: "sysrc -f /boot/loader.conf -x \"$1\" >/dev/null",
    source: "usr.sbin/sysrc/sysrc @09711ccb (-f FILE, -a, -x)",
    kept: None,
    removal_note: Some(REBOOT),
    removal_notify: None,
    present: |s, id| s.loader_conf.contains_key(id),
};

impl Kind for Loader {
    type Want = Loader;
    const NAME: &'static str = "loader";
    const TEMPLATE: Option<&'static str> = Some(include_str!("../../templates/steps/loader.sh.j2"));
    const PRUNE: Option<&'static Prune> = Some(&PRUNE);

    fn id(&self) -> String {
        format!("loader:{}", self.name)
    }

    fn records(&self) -> Vec<Record> {
        vec![Record::new("loader", &self.name)]
    }

    fn wants(&self) -> Vec<Loader> {
        vec![self.clone()]
    }

    fn step_id(want: &Loader) -> String {
        want.id()
    }

    /// The check reads only the file (`-a` lists what the files set, not
    /// /etc/defaults/rc.conf).
    fn shell(want: &Loader) -> Result<Shell, QuoteError> {
        let Loader { name, value } = want;
        Ok(Shell {
            check: format!(
                "sysrc -f {LOADER_CONF} -a 2>/dev/null | grep -qxF {}",
                w(&format!("{name}: {value}"))?
            ),
            change: format!(
                "sysrc -f {LOADER_CONF} {} >/dev/null",
                w(&format!("{name}={value}"))?
            ),
        })
    }

    fn judge(want: &Loader, s: &State) -> Verdict {
        let Loader { name, value } = want;
        match s.loader_conf.get(name) {
            Some(have) if have == value => Verdict::noop(),
            Some(have) => Verdict::new(Action::Update, vec![change(name, have, value)], None),
            None => Verdict::new(Action::Create, vec![change(name, "", value)], None),
        }
    }

    fn note(_: &Loader) -> Option<&'static str> {
        Some(REBOOT)
    }
}
