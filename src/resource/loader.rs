//! `loader`: a /boot/loader.conf variable of `freebsd.loader`, written with
//! `sysrc -f /boot/loader.conf NAME=VALUE`. The loader reads it at the next
//! boot, which beryl reports and never does.
//!
//! - **Records:** `loader NAME`, pruned with `sysrc -f … -x`.

use serde::Serialize;

use super::state::State;
use super::verdict::{Action, Verdict, change};
use super::{Input, Kind, Prune, Record, Resource, Shell};
use crate::shell::{QuoteError, word as w};

/// The loader's configuration, written with `sysrc -f`.
pub(crate) const LOADER_CONF: &str = "/boot/loader.conf";

/// The note a changed loader variable carries, in the dry run and the apply.
pub(crate) const REBOOT: &str = "the loader reads /boot/loader.conf at boot: reboot for this to take effect (beryl never reboots)";

/// A loader.conf variable.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Loader {
    pub name: String,
    pub value: String,
}

/// The variables, in the order written.
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    super::items(input.freebsd().loader.iter().map(|t| Loader {
        name: t.name.value.clone(),
        value: t.value.value.clone(),
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
