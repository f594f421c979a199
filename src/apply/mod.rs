//! Apply: the ordered, idempotent steps that bring a running host to its
//! desired state ([`crate::desired`]), the same state its install set up.
//!
//! Entry point: [`steps`] turns the desired state into steps, each resource
//! into the steps its kind wants ([`crate::resource`]). Each step has a
//! stable id, a read-only check (exit 0: already in the desired state), a
//! change, and the desired value, which [`diff`] compares with a facts
//! snapshot ([`crate::resource::state`]). [`script`] turns
//! the steps into the POSIX sh apply script; [`ssh`] runs it on the host.
//! For a fleet: [`gather`] takes many hosts' facts at once, [`fleet`] is the
//! dry run of several hosts as one report, [`saved`] the saved plan and its
//! stale checks, [`recap`] a real run's events and recap table.
//! Nothing the config does not mention is ever removed, except users marked
//! `state: absent`. Every value in a command is quoted by [`crate::shell`].

pub(crate) mod diff;
pub(crate) mod fleet;
pub(crate) mod gather;
pub(crate) mod prune;
pub(crate) mod recap;
pub(crate) mod reveal;
pub(crate) mod saved;
pub mod script;
pub mod ssh;

crate::diag::codes! {
    /// The codes of apply runs.
    pub(crate) enum Code in "apply" {
        /// A value no shell word can hold.
        Quote = "quote";
        /// The remote command line (with its `--remote-env` values) cannot be quoted for the remote shell.
        Env = "env";
        /// ssh cannot be run, fails to connect (exit 255), or is killed.
        Ssh = "ssh";
    }
}

use crate::desired::DesiredState;
use crate::resource::{Notify, Record, Want};
use crate::shell::QuoteError;

/// One step of an apply: what it wants, how it checks and changes it.
#[derive(Clone, Debug)]
pub struct Step {
    /// Stable: `pkg`, `pkg:NAME`, `group:NAME`, `user:NAME`, `root`,
    /// `keys:USER`, `file:PATH`, `sshd`, `rc:NAME`, `tz`, `zpool:NAME`,
    /// `zfs:DATASET`, `service:NAME`, `sysctl:NAME`, `loader:NAME`,
    /// `cron:NAME`.
    pub id: String,
    /// What the step wants, of its resource's kind.
    pub desired: Want,
    /// Read-only; exit status 0 means nothing to do.
    pub check: String,
    pub change: String,
    /// Services to reload or restart once, after every step, when this
    /// step's change ran (handlers).
    pub notify: Vec<Notify>,
    /// The item the step creates, recorded on the host when it did not
    /// exist before the change, and pruned once it leaves the config.
    pub record: Option<Record>,
    /// An item the facts script looks at for the dry run that is not
    /// recorded (a file beryl always manages).
    pub query: Option<Record>,
}

impl Step {
    /// The step of one want, with the record it creates.
    pub(crate) fn new(desired: Want, record: Option<Record>) -> Result<Step, QuoteError> {
        let shell = desired.shell()?;
        Ok(Step {
            id: desired.id(),
            check: shell.check,
            change: shell.change,
            notify: desired.notify(),
            // A query the record already makes is not asked twice; one of
            // another kind (`secret`, for a file that holds one) is.
            query: match (&record, desired.query()) {
                (Some(r), Some(q)) if r.kind == q.kind => None,
                (_, q) => q,
            },
            record,
            desired,
        })
    }

    /// The step's kind, as reports and saved plans name it (`package`,
    /// `root`, `zfs`…).
    pub fn kind(&self) -> &'static str {
        self.desired.kind()
    }

    /// The check and the change as a report or a saved plan shows them: the
    /// step's secrets as their digests (the script keeps them).
    pub(crate) fn shown(&self) -> (String, String) {
        let secrets = self.desired.secrets();
        (
            crate::resource::redact(&self.check, &secrets),
            crate::resource::redact(&self.change, &secrets),
        )
    }
}

/// The steps of a host, in run order. Fails only on a value no shell word
/// can hold (a NUL byte, which validation refuses first).
pub fn steps(host: &DesiredState) -> Result<Vec<Step>, QuoteError> {
    let mut out = Vec::new();
    for r in &host.resources {
        let wants = r.wants();
        // A resource's records belong to its last steps, one each (the
        // packages after pkg's bootstrap).
        let records = r.records();
        let first = wants.len().saturating_sub(records.len());
        let mut records = records.into_iter();
        for (i, want) in wants.into_iter().enumerate() {
            let record = if i >= first { records.next() } else { None };
            out.push(Step::new(want, record)?);
        }
    }
    Ok(out)
}

/// What the facts script must look at on the host, by kind: the ids of
/// the steps' records and queries (contract of
/// [`crate::resource::state::facts_script`]).
pub(crate) fn queries(steps: &[Step]) -> std::collections::BTreeMap<&'static str, Vec<String>> {
    let mut out: std::collections::BTreeMap<&'static str, Vec<String>> = Default::default();
    for r in steps.iter().flat_map(|s| s.record.iter().chain(&s.query)) {
        out.entry(r.kind).or_default().push(r.id.clone());
    }
    for ids in out.values_mut() {
        ids.sort();
        ids.dedup();
    }
    out
}

pub use crate::fsutil::sha256_hex;

/// A value no shell word can hold (validation refuses them first).
pub(crate) fn quote_error(fqdn: &str, e: QuoteError) -> crate::diag::Diag {
    crate::diag::Diag::new(Code::Quote, format!("{fqdn}: {e}"))
}

#[cfg(test)]
mod jail_tests;
#[cfg(test)]
mod tests;
