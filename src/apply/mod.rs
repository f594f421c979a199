//! Apply plans: the ordered, idempotent steps that bring a running host to
//! its desired state ([`crate::desired`]), the same state its install set up.
//!
//! Entry point: [`steps`] renders the desired state as steps. Each step has
//! a stable id, a read-only check (exit 0: already in the desired state), a
//! change, and the desired value, which [`diff`] compares with a state
//! snapshot (see [`state`], written by the `facts` script). [`script`] turns
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
mod render;
pub(crate) mod saved;
pub mod script;
pub mod ssh;
pub(crate) mod state;
mod system;
mod zfs;

use serde::Serialize;

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

use crate::desired::{Account, CronEntry, File, Host, Notify, RcVar, Record, Resource, Service};
use crate::shell::QuoteError;

/// The kinds of step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StepKind {
    Bootstrap,
    Package,
    Group,
    User,
    Root,
    Keys,
    File,
    Sshd,
    Rc,
    Timezone,
    Service,
    Zpool,
    Zfs,
    Sysctl,
    Loader,
    Cron,
}

/// What a step wants.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Desired {
    /// pkg itself, bootstrapped.
    Bootstrap,
    /// A package, by name or origin (`pkg info -e` pattern).
    Package {
        name: String,
    },
    Group {
        name: String,
    },
    User(Account),
    /// A user that must not exist.
    Absent {
        name: String,
    },
    /// root's password: `None` locked.
    RootPassword {
        hash: Option<String>,
    },
    /// authorized_keys under the user's home, as the host has it.
    Keys {
        user: String,
        group: String,
        content: String,
    },
    File(File),
    Sshd {
        settings: Vec<(String, String)>,
    },
    Rc(RcVar),
    Timezone {
        zone: String,
    },
    Service(Service),
    /// A data pool that must be imported (never created on a live host).
    Zpool(crate::desired::Pool),
    /// A dataset with properties, or one to destroy.
    Dataset(crate::desired::Dataset),
    /// A sysctl: its sysctl.conf line and its live value.
    Sysctl {
        name: String,
        value: String,
    },
    /// A /boot/loader.conf variable.
    Loader {
        name: String,
        value: String,
    },
    /// A cron entry's file.
    Cron(CronEntry),
}

#[derive(Clone, Debug, Serialize)]
pub struct Step {
    /// Stable: `pkg`, `pkg:NAME`, `group:NAME`, `user:NAME`, `root`,
    /// `keys:USER`, `file:PATH`, `sshd`, `rc:NAME`, `tz`, `zpool:NAME`,
    /// `zfs:DATASET`, `service:NAME`, `sysctl:NAME`, `loader:NAME`,
    /// `cron:NAME`.
    pub id: String,
    pub kind: StepKind,
    pub desired: Desired,
    /// Read-only; exit status 0 means nothing to do.
    pub check: String,
    pub change: String,
    /// Services to reload or restart once, after every step, when this
    /// step's change ran (handlers).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notify: Vec<Notify>,
    /// The item the step creates, recorded on the host when it did not
    /// exist before the change, and pruned once it leaves the config.
    pub record: Option<Record>,
    /// An item the facts script looks at for the dry run that is not
    /// recorded (a file beryl always manages).
    #[serde(skip)]
    pub query: Option<Record>,
}

/// The steps of a host, in run order. Fails only on a value no shell word
/// can hold (a NUL byte, which validation refuses first).
pub fn steps(host: &Host) -> Result<Vec<Step>, QuoteError> {
    let mut all: Vec<(Desired, Option<Record>)> = Vec::new();
    for r in &host.resources {
        let mut out = Vec::new();
        match r {
            Resource::Packages { packages } => {
                out.push(Desired::Bootstrap);
                out.extend(
                    packages
                        .iter()
                        .map(|name| Desired::Package { name: name.clone() }),
                );
            }
            Resource::Group { name } => out.push(Desired::Group { name: name.clone() }),
            Resource::User(a) => out.push(Desired::User(a.clone())),
            Resource::Absent { name } => out.push(Desired::Absent { name: name.clone() }),
            Resource::RootPassword { hash } => {
                out.push(Desired::RootPassword { hash: hash.clone() })
            }
            Resource::Keys { user, group, keys } => out.push(Desired::Keys {
                user: user.clone(),
                group: group.clone(),
                content: keys.iter().map(|k| format!("{k}\n")).collect(),
            }),
            Resource::File(f) => out.push(Desired::File(f.clone())),
            Resource::Sshd { settings } => out.push(Desired::Sshd {
                settings: settings.clone(),
            }),
            Resource::Rc(v) => out.push(Desired::Rc(v.clone())),
            Resource::Timezone { zone } => out.push(Desired::Timezone { zone: zone.clone() }),
            Resource::Service(svc) => out.push(Desired::Service(svc.clone())),
            Resource::Zpool(p) => out.push(Desired::Zpool(p.clone())),
            Resource::Dataset(d) => out.push(Desired::Dataset(d.clone())),
            // Install only: a live host's pools are mounted where they belong.
            Resource::ZfsUnmount { .. } => {}
            Resource::Sysctl { name, value } => out.push(Desired::Sysctl {
                name: name.clone(),
                value: value.clone(),
            }),
            Resource::Loader { name, value } => out.push(Desired::Loader {
                name: name.clone(),
                value: value.clone(),
            }),
            Resource::Cron(e) => out.push(Desired::Cron(e.clone())),
        }
        // A resource's records belong to its last items, one each (the
        // packages after pkg's bootstrap).
        let records = r.records();
        let first = out.len().saturating_sub(records.len());
        let mut records = records.into_iter();
        for (i, d) in out.into_iter().enumerate() {
            let record = if i >= first { records.next() } else { None };
            all.push((d, record));
        }
    }
    all.into_iter()
        .map(|(d, record)| {
            let query = match &d {
                Desired::File(f) => Some(Record::new("file", f.path.clone())),
                // Whether it runs (facts' `services`).
                Desired::Service(s) => Some(Record::new("service", s.name.clone())),
                // A dataset to destroy is looked at, never recorded.
                Desired::Dataset(d) => Some(Record::new("zfs", d.name.clone())),
                _ => None,
            };
            render::step(d).map(|s| Step {
                query: if record.is_some() { None } else { query },
                record,
                ..s
            })
        })
        .collect()
}

/// What the facts script must look at on the host, by kind: the ids of
/// the steps' records and queries (contract of [`state::facts_script`]).
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
mod tests;
