//! The example inventory (inventory/ and ssh/ at the repository's root) and
//! the fixture trees of tests/fixtures/.

use std::path::{Path, PathBuf};

use super::{args, beryl, copy_tree, repo};

/// How many hosts the example inventory has.
pub const EXAMPLE_HOSTS: usize = 8;

/// A copy of the example inventory and its key files in a temporary
/// directory, for a test that changes them or writes next to them.
pub fn example() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&repo().join("inventory"), &dir.path().join("inventory"));
    copy_tree(&repo().join("ssh"), &dir.path().join("ssh"));
    dir
}

/// The FQDNs of the inventory in `dir`, as `beryl hosts` lists them.
pub fn hosts(dir: &Path) -> Vec<String> {
    let run = beryl(dir, &args(&["hosts", "--format", "json"]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    let hosts: Vec<serde_json::Value> = serde_json::from_str(&run.stdout).unwrap();
    hosts
        .iter()
        .map(|h| h["fqdn"].as_str().unwrap().to_string())
        .collect()
}

/// The FQDNs of the example inventory's hosts, without their jails (a
/// jail is installed by no plan: see [`example_jails`]).
pub fn example_hosts() -> Vec<String> {
    let fqdns: Vec<String> = units(&repo())
        .into_iter()
        .filter(|(_, parent)| parent.is_none())
        .map(|(fqdn, _)| fqdn)
        .collect();
    assert_eq!(
        fqdns.len(),
        EXAMPLE_HOSTS,
        "the example inventory has {EXAMPLE_HOSTS} hosts"
    );
    fqdns
}

/// The example inventory's jails of `host` (FQDNs), as `beryl hosts` lists
/// them (issue 36).
pub fn example_jails(host: &str) -> Vec<String> {
    units(&repo())
        .into_iter()
        .filter(|(_, parent)| parent.as_deref() == Some(host))
        .map(|(fqdn, _)| fqdn)
        .collect()
}

/// Each host of the inventory in `dir` with its parent (a jail's host).
fn units(dir: &Path) -> Vec<(String, Option<String>)> {
    let run = beryl(dir, &args(&["hosts", "--format", "json"]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    let hosts: Vec<serde_json::Value> = serde_json::from_str(&run.stdout).unwrap();
    hosts
        .iter()
        .map(|h| {
            (
                h["fqdn"].as_str().unwrap().to_string(),
                h["parent"].as_str().map(str::to_string),
            )
        })
        .collect()
}

/// tests/fixtures/.
pub fn fixtures() -> PathBuf {
    repo().join("tests/fixtures")
}

/// A copy of the fixture tree tests/fixtures/NAME in a temporary directory.
pub fn fixture(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures().join(name), dir.path());
    dir
}

/// The digest a facts script carries (`beryl_script=`), which its snapshots
/// repeat; checked against its definition: the sha256 of the script without
/// that line.
pub fn script_digest(facts: &str) -> String {
    let line = facts
        .lines()
        .find(|l| l.starts_with("beryl_script="))
        .expect("a facts script names its digest");
    let digest = line["beryl_script=".len()..].to_string();
    let rest = facts.replacen(&format!("{line}\n"), "", 1);
    assert_eq!(digest, beryl::apply::sha256_hex(&rest), "beryl_script=");
    digest
}

/// The digest of the facts script `beryl facts HOST` prints for the
/// inventory in `dir`: what binds a snapshot to the host's config.
pub fn facts_digest(dir: &Path, host: &str) -> String {
    let run = beryl(dir, &args(&["facts", host]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    script_digest(&run.stdout)
}
