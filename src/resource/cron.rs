//! `cron`: an entry of `freebsd.cron`, as one system crontab file (five
//! time fields or an `@` word, the user, the command) in the release's
//! drop-in directory ([`crate::freebsd::cron`]): staged under a dot name
//! that cron(8) skips, then renamed into place, mode 644, root:wheel.
//!
//! - **Records:** `cron NAME`, pruned with `rm -f`.
//! - **Handler:** a file written or removed restarts cron, once per run
//!   ([`RESTART`]): its reload can swap the jobs of files that share an
//!   mtime.

use serde::Serialize;

use super::state::State;
use super::verdict::{Content, Verdict, judge_file};
use super::{Input, Kind, Notify, Prune, Record, RemovalNotify, Resource, Shell};
use crate::freebsd::cron;
use crate::fsutil::sha256_hex;
use crate::shell::{QuoteError, word as w};

/// The mode of a cron file.
pub(crate) const CRON_MODE: &str = "0644";

/// A cron entry: one system crontab file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cron {
    pub name: String,
    /// `DIR/beryl-NAME`, DIR the release's drop-in directory.
    pub path: String,
    /// The file cron stages nothing from: `DIR/.beryl-NAME` (cron skips
    /// names starting with `.`, usr.sbin/cron/cron/database.c e4452d45).
    pub staging: String,
    /// The whole file.
    pub content: String,
}

/// The entries, in the order written, in the release's drop-in directory.
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    let f = input.freebsd();
    let dir = f
        .version
        .as_ref()
        .and_then(|v| cron::find(&v.value))
        .and_then(|c| c.dir);
    // Without a directory, the release check has refused the host already.
    let Some(dir) = dir else {
        return Vec::new();
    };
    super::items(f.cron.iter().filter_map(|job| {
        let (Some(schedule), Some(command)) = (&job.schedule, &job.command) else {
            return None;
        };
        let name = &job.name.value;
        let user = job.user.as_ref().map_or("root", |u| u.value.as_str());
        Some(Cron {
            name: name.clone(),
            path: format!("{dir}/{}{name}", cron::PREFIX),
            staging: format!("{dir}/.{}{name}", cron::PREFIX),
            content: format!(
                "# Written by beryl: freebsd.cron.{name}\n{} {user} {}\n",
                schedule.value, command.value
            ),
        })
    }))
}

/// How a recorded cron file is found and pruned.
pub(crate) const PRUNE: Prune = Prune {
    kind: "cron",
    step_kind: "cron",
    exists: "[ -e \"/usr/local/etc/cron.d/beryl-$1\" ]",
    keep: "false",
    remove: "rm -f \"/usr/local/etc/cron.d/beryl-$1\"",
    source: "usr.sbin/cron/cron/database.c @e4452d45 (a removal restarts cron: see RESTART); src/freebsd/cron.rs",
    kept: None,
    removal_note: None,
    removal_notify: Some(RemovalNotify {
        under: &[],
        service: RESTART.0,
        action: RESTART.1,
    }),
    present: |s, id| s.cron.get(id).is_some_and(Option::is_some),
};

/// cron restarted once a file of its drop-in directory came or went:
/// `load_database` files every system crontab under the one name
/// `SYS_NAME`, and on a reload each file takes the first entry left of the
/// old database when its mtime (seconds) is the file's
/// (usr.sbin/cron/cron/database.c `process_crontab` @e4452d45). Files one
/// run writes share their mtime, so after a file is added or removed a
/// later file would run an earlier one's jobs until cron restarts; a
/// restart starts from an empty database (libexec/rc/rc.d/cron @d28066d8 has
/// no `reload`).
pub(crate) const RESTART: (&str, &str) = ("cron", "restart");

impl Kind for Cron {
    type Want = Cron;
    const NAME: &'static str = "cron";
    const TEMPLATE: Option<&'static str> = Some(include_str!("../../templates/steps/cron.sh.j2"));
    const PRUNE: Option<&'static Prune> = Some(&PRUNE);

    fn id(&self) -> String {
        format!("cron:{}", self.name)
    }

    fn records(&self) -> Vec<Record> {
        vec![Record::new("cron", &self.name)]
    }

    fn wants(&self) -> Vec<Cron> {
        vec![self.clone()]
    }

    fn step_id(want: &Cron) -> String {
        want.id()
    }

    fn notify(_: &Cron) -> Vec<Notify> {
        vec![Notify {
            service: RESTART.0.into(),
            action: RESTART.1.into(),
        }]
    }

    /// Content, mode and owner.
    fn shell(e: &Cron) -> Result<Shell, QuoteError> {
        let path = w(&e.path)?;
        let staging = w(&e.staging)?;
        Ok(Shell {
            check: format!(
                "[ \"$(sha256 -q {path} 2>/dev/null)\" = {} ] && [ \"$(stat -f '{} %Su %Sg' {path} 2>/dev/null)\" = {} ]",
                sha256_hex(&e.content),
                super::STAT_MODE,
                w(&format!("{CRON_MODE} root wheel"))?
            ),
            change: format!(
                "mkdir -p {} && printf '%s' {} > {staging} && chown root:wheel {staging} && chmod {CRON_MODE} {staging} && mv -f {staging} {path}",
                w(super::dirname(&e.path))?,
                w(&e.content)?
            ),
        })
    }

    fn judge(e: &Cron, s: &State) -> Verdict {
        let Some(have) = s.cron.get(&e.name).and_then(|f| f.as_ref()) else {
            return Verdict::create();
        };
        let want = (e.content.as_str(), Content::Shown);
        judge_file(have, want, CRON_MODE, "root", "wheel", Vec::new())
    }
}

#[cfg(test)]
mod tests {
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
}
