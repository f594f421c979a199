//! Incremental writes: which hosts of a render directory keep their previous
//! output, from the record its manifest holds (docs/inventory.md, "Reuse").
//!
//! A version-2 manifest records, beside each host's hash, what its compile
//! read (compile/inputs.rs): one table `inputs`, `{path: digest | null}`
//! shared by all hosts (`null`: the path was probed and held nothing), and per
//! host the indices of its chain and of its other inputs in that table (in
//! the table's sorted order), and `fleet` when its queries read every host's
//! exports. `options` holds everything else the output depends on (beryl's
//! version, the format, the limits, the SSH key directory, `beryl.yml`).
//!
//! A host is reused when the options are the recorded ones, it is in the old
//! manifest with its file present, its chain (from today's discovery) is the
//! recorded one, and every recorded input's digest (or absence) is today's.
//! A `fleet` host (its queries read every host's exports) is reused only
//! when, besides, every host of the inventory is in the run, the old
//! manifest lists exactly those hosts, and every host compiled again is a
//! host without queries, before and now, whose exports are the recorded ones
//! (each record keeps the sha256 of the host's exports): the fleet's exports
//! are then the ones the fleet host read. A host added or removed, or a
//! changed host whose exports changed, recompiles every fleet host. So the
//! fleet hosts wait ([`Plan::pending`]) until the others are compiled.
//!
//! Paths are relative to the inventory root, or `ssh:NAME` for a file of the
//! SSH key directory. A digest is `sha256:` of the bytes; a symbolic link
//! also hashes its target's name, a directory is `dir`, a path that cannot
//! be read `error` (never equal to anything, itself included).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Manifest;

/// The manifest version that holds records (version 1 has none: every host
/// is compiled).
pub(crate) const VERSION: u32 = 2;

/// The prefix of a path in the SSH key directory.
pub(crate) const SSH: &str = "ssh:";

/// A digest that never matches.
const ERROR: &str = "error";

/// One host's record as the manifest stores it: indices into `inputs`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Entry {
    pub chain: Vec<usize>,
    pub reads: Vec<usize>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fleet: bool,
    /// The sha256 of the host's exports, when it has any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exports: Option<String>,
}

/// One host's record, by path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Record {
    /// The chain's level files, in order.
    pub chain: Vec<String>,
    /// Every other input, sorted.
    pub reads: BTreeSet<String>,
    pub fleet: bool,
    pub exports: Option<String>,
}

/// Where the recorded paths are.
pub(crate) struct Roots {
    pub inventory: PathBuf,
    pub ssh: PathBuf,
}

impl Roots {
    fn path(&self, input: &str) -> PathBuf {
        match input.strip_prefix(SSH) {
            Some(name) => self.ssh.join(name),
            None => self.inventory.join(input),
        }
    }
}

/// The digest of a path, `None` when nothing is there.
pub(crate) fn digest(path: &Path) -> Option<String> {
    use std::io::ErrorKind::{NotADirectory, NotFound};
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if matches!(e.kind(), NotFound | NotADirectory) => return None,
        Err(_) => return Some(ERROR.into()),
    };
    if meta.is_dir() {
        return Some("dir".into());
    }
    let mut bytes = Vec::new();
    if meta.is_symlink() {
        let Ok(target) = std::fs::read_link(path) else {
            return Some(ERROR.into());
        };
        bytes.extend_from_slice(b"link\0");
        bytes.extend_from_slice(target.as_os_str().as_encoded_bytes());
        bytes.push(0);
    }
    match std::fs::read(path) {
        Ok(content) => bytes.extend(content),
        // A dangling link, a link to a directory: the link alone.
        Err(_) if meta.is_symlink() => {}
        Err(_) => return Some(ERROR.into()),
    }
    Some(format!(
        "sha256:{}",
        crate::fsutil::sha256_hex_bytes(&bytes)
    ))
}

/// The digests of `paths`, each read once, in parallel.
fn digests<'p>(
    roots: &Roots,
    paths: impl Iterator<Item = &'p String>,
) -> HashMap<String, Option<String>> {
    use rayon::prelude::*;
    let paths: Vec<&String> = paths.collect();
    paths
        .par_iter()
        .map(|p| ((*p).clone(), digest(&roots.path(p))))
        .collect()
}

/// A host of this run: its FQDN and its chain as discovered today.
pub(crate) struct Current<'a> {
    pub fqdn: &'a str,
    pub chain: Vec<&'a str>,
}

/// The hosts whose previous output stays, and today's digests of the old
/// record's inputs.
#[derive(Default)]
pub(crate) struct Plan {
    /// By FQDN: the hash of its file and its record.
    pub reused: BTreeMap<String, (String, Record)>,
    /// The fleet hosts whose own inputs did not change, when the hosts are
    /// the old ones: reused if [`Plan::settle`] says so, else compiled.
    pub pending: BTreeMap<String, (String, Record)>,
    /// The old records' fleet flags and exports, by FQDN.
    old: HashMap<String, (bool, Option<String>)>,
    digests: HashMap<String, Option<String>>,
}

impl Plan {
    /// What can be kept of `old` (the directory `dir`'s manifest) for the
    /// hosts of this run. `fleet` is whether the run holds every host of the
    /// inventory.
    pub(crate) fn new(
        old: Option<&Manifest>,
        options: &BTreeMap<String, String>,
        hosts: &[Current<'_>],
        fleet: bool,
        roots: &Roots,
        dir: &Path,
    ) -> Plan {
        let Some(old) = old.filter(|m| m.version == VERSION && &m.options == options) else {
            return Plan::default();
        };
        let table: Vec<(&String, &Option<String>)> = old.inputs.iter().collect();
        let now = digests(roots, old.inputs.keys());
        let unchanged: Vec<bool> = table
            .iter()
            .map(|(path, was)| {
                let is = &now[*path];
                is == *was && is.as_deref() != Some(ERROR)
            })
            .collect();
        let present: BTreeSet<String> = std::fs::read_dir(dir)
            .map(|entries| {
                (entries.flatten())
                    .filter_map(|e| e.file_name().into_string().ok())
                    .collect()
            })
            .unwrap_or_default();
        let path = |i: usize| table.get(i).map(|(p, _)| p.as_str());
        let mut reused = BTreeMap::new();
        for host in hosts {
            let (Some(hash), Some(entry)) = (old.hosts.get(host.fqdn), old.records.get(host.fqdn))
            else {
                continue;
            };
            let chain: Option<Vec<&str>> = entry.chain.iter().map(|&i| path(i)).collect();
            let same = chain.as_ref() == Some(&host.chain)
                && (entry.chain.iter().chain(&entry.reads))
                    .all(|&i| unchanged.get(i).copied().unwrap_or(false))
                && present.contains(&old.file_name(host.fqdn));
            if !same {
                continue;
            }
            let record = Record {
                chain: host.chain.iter().map(|s| s.to_string()).collect(),
                reads: (entry.reads.iter())
                    .filter_map(|&i| path(i))
                    .map(str::to_string)
                    .collect(),
                fleet: entry.fleet,
                exports: entry.exports.clone(),
            };
            reused.insert(host.fqdn.to_string(), (hash.clone(), record));
        }
        let (mut pending, reused): (BTreeMap<_, _>, _) =
            reused.into_iter().partition(|(_, (_, r))| r.fleet);
        // The same hosts as before, or every fleet host is compiled.
        let same = fleet
            && old.hosts.len() == hosts.len()
            && hosts.iter().all(|h| old.hosts.contains_key(h.fqdn));
        if !same {
            pending.clear();
        }
        let records = old.records.iter();
        Plan {
            reused,
            pending,
            old: records
                .map(|(f, e)| (f.clone(), (e.fleet, e.exports.clone())))
                .collect(),
            digests: now,
        }
    }

    /// Once the other hosts are compiled (`compiled`, their records): the
    /// pending fleet hosts are reused when every host compiled is, before
    /// and now, a host without queries whose exports did not change. Returns
    /// the hosts still to compile (none when they are reused).
    pub(crate) fn settle(&mut self, compiled: &BTreeMap<String, Record>) -> Vec<String> {
        let unchanged = |(fqdn, r): (&String, &Record)| {
            !r.fleet && self.old.get(fqdn) == Some(&(false, r.exports.clone()))
        };
        let pending = std::mem::take(&mut self.pending);
        if compiled.iter().all(unchanged) {
            self.reused.extend(pending);
            Vec::new()
        } else {
            pending.into_keys().collect()
        }
    }

    /// The records of a write: the reused hosts' and `compiled`'s, as the
    /// manifest's `inputs` and `records`. The digests of inputs the old
    /// manifest did not list are read now.
    pub(crate) fn records(
        &self,
        compiled: BTreeMap<String, Record>,
        roots: &Roots,
    ) -> (BTreeMap<String, Option<String>>, BTreeMap<String, Entry>) {
        let mut all: BTreeMap<&String, &Record> = compiled.iter().collect();
        all.extend(self.reused.iter().map(|(f, (_, r))| (f, r)));
        let paths: BTreeSet<&String> = all
            .values()
            .flat_map(|r| r.chain.iter().chain(&r.reads))
            .collect();
        let fresh = digests(
            roots,
            paths
                .iter()
                .copied()
                .filter(|p| !self.digests.contains_key(*p)),
        );
        let inputs: BTreeMap<String, Option<String>> = paths
            .iter()
            .map(|p| {
                let d = self.digests.get(*p).or_else(|| fresh.get(*p));
                ((*p).clone(), d.cloned().flatten())
            })
            .collect();
        let index: HashMap<&String, usize> =
            inputs.keys().enumerate().map(|(i, p)| (p, i)).collect();
        let records = all
            .into_iter()
            .map(|(fqdn, r)| {
                let entry = Entry {
                    chain: r.chain.iter().map(|p| index[p]).collect(),
                    reads: r.reads.iter().map(|p| index[p]).collect(),
                    fleet: r.fleet,
                    exports: r.exports.clone(),
                };
                (fqdn.clone(), entry)
            })
            .collect();
        (inputs, records)
    }
}

#[cfg(test)]
mod tests;
