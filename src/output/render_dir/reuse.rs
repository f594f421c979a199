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
//! A `fleet` host is reused only when, besides, every host of the fleet is
//! in the run, the old manifest lists exactly those hosts, and each of them
//! is reused on its own record: one host recompiled, added or removed
//! recompiles every host that reads the fleet's exports.
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
}

/// One host's record, by path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Record {
    /// The chain's level files, in order.
    pub chain: Vec<String>,
    /// Every other input, sorted.
    pub reads: BTreeSet<String>,
    pub fleet: bool,
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
                reads: entry
                    .reads
                    .iter()
                    .filter_map(|&i| path(i))
                    .map(str::to_string)
                    .collect(),
                fleet: entry.fleet,
            };
            reused.insert(host.fqdn.to_string(), (hash.clone(), record));
        }
        // Every host reused on its own record, and the same hosts as before:
        // the fleet's exports are the recorded ones.
        let whole = fleet && reused.len() == hosts.len() && old.hosts.len() == hosts.len();
        if !whole {
            reused.retain(|_, (_, r)| !r.fleet);
        }
        Plan {
            reused,
            digests: now,
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
                };
                (fqdn.clone(), entry)
            })
            .collect();
        (inputs, records)
    }
}

#[cfg(test)]
mod tests;
