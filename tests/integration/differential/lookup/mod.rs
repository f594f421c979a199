//! `beryl lookup` against `puppet lookup` (Debian's puppet 7.23) on a real
//! Hiera 5 control repository, ../shared/realworld/mergwyn-control-repo
//! (SOURCES.txt names its commit; skipped with a notice when absent).
//!
//! `mapping.rs` turns the repository into a Puppet code dir and a beryl
//! inventory in a temp dir. The keys are every root key of any data file
//! (but `lookup_options`) and the dotted paths into their mappings, three
//! segments deep at most. For every node and key the variants of [`plan`]
//! run through tests/peers/lookup.rb (Puppet's own lookup, one process per
//! environment; a sample also goes through the `puppet lookup` CLI, which
//! must print the same) and through `beryl lookup`. Every disagreement must
//! be a difference listed for `puppet-lookup` in tests/peers/differences.yml,
//! and every listed one must be seen. The counts go to the differential
//! report (target/tmp/differential.md), which `.ci/run` prints.
//!
//! Until `beryl lookup` exists the beryl side skips with a notice and the
//! report shows Puppet's side alone.

mod beryl_side;
mod judge;
mod keys;
mod mapping;
mod puppet;
mod report;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value as J;

use crate::support::{args, beryl, repo};
use keys::{keys, parse, plan};
use mapping::NODES;
use report::{judge_all, puppet_only_table};

const TEST: &str = "beryl_lookup_agrees_with_puppet_lookup";
const REPO: &str = "mergwyn-control-repo";
const COMMIT: &str = "a7255c084e6d4c2d848a481209c49497f3e99a73";
/// What `--default` gives; a plain string, as the CLI's default always is.
pub const DEFAULT: &str = "fallback-value";

/// One lookup: the key as each side spells it and the CLI options.
#[derive(Clone, Debug)]
pub struct Lookup {
    pub variant: &'static str,
    /// The key has segments below its root.
    pub dotted: bool,
    pub puppet_key: String,
    pub beryl_key: String,
    pub merge: Option<String>,
    pub knockout_prefix: Option<String>,
    pub default: Option<String>,
    /// `--sort-merged-arrays`.
    pub sort: bool,
    /// `--default-values-hash` (beryl: [`VALUES_HASH`]; Puppet: the key's
    /// entry of it as `default_values_hash`).
    pub values_hash: bool,
    pub render_as: String,
}

/// The `--default-values-hash` file beryl reads, in the run's directory:
/// every root key to [`values_hash_value`].
pub const VALUES_HASH: &str = "values-hash.yml";

/// What the values hash gives a root key (named as Puppet names it).
pub fn values_hash_value(puppet_root: &str) -> String {
    format!("from the values hash: {puppet_root}")
}

/// What a program printed and its exit status.
#[derive(Clone, Debug)]
pub struct Reply {
    pub exit: i32,
    pub stdout: String,
    pub stderr: String,
}

#[test]
fn beryl_lookup_agrees_with_puppet_lookup() {
    let Some(data) = data_dir() else { return };
    if let Some(why) = super::peers::unavailable(&super::peers::HIERA) {
        return notice(&format!("puppet is not installed ({why})"));
    }
    let files = data_files(&data);
    let parsed: BTreeMap<String, J> = files.iter().map(|f| (f.clone(), parse(&data, f))).collect();
    let keys = keys(&parsed);
    let tmp = tempfile::tempdir().unwrap();
    let code = mapping::build(tmp.path(), &data, &files);
    let scratch = tmp.path().join("puppet");

    // Per node: its lookups, then Puppet's replies.
    // `--render-as s` prints one value per run (several hosts make one
    // mapping), so each key is rendered so on the first node that has it.
    let mut plans: Vec<Vec<Lookup>> = Vec::new();
    let mut rendered = std::collections::BTreeSet::new();
    for node in NODES {
        let levels: Vec<&J> = node.chain(&data).iter().map(|f| &parsed[f]).collect();
        let mut plan: Vec<Lookup> = keys.iter().flat_map(|k| plan(k, &levels)).collect();
        plan.retain(|l| l.render_as != "s" || rendered.insert(l.beryl_key.clone()));
        plans.push(plan);
    }
    let mut theirs: Vec<Vec<Reply>> = vec![Vec::new(); NODES.len()];
    for env in ["production", "development"] {
        let idx: Vec<usize> = (0..NODES.len())
            .filter(|&i| NODES[i].environment == env)
            .collect();
        let batch: Vec<(String, J, Vec<Lookup>)> = idx
            .iter()
            .map(|&i| (NODES[i].fqdn(), NODES[i].puppet_facts(), plans[i].clone()))
            .collect();
        for (i, replies) in idx.iter().zip(puppet::run(&scratch, &code, env, &batch)) {
            theirs[*i] = replies;
        }
    }
    check_driver_against_cli(&scratch, &code, &plans, &theirs);
    check_puppet_side(&plans, &theirs);

    let values_hash: serde_json::Map<String, J> = keys
        .iter()
        .filter(|k| k.path.is_empty())
        .map(|k| {
            (
                keys::beryl_root(&k.root).to_string(),
                J::from(values_hash_value(&k.root)),
            )
        })
        .collect();
    // JSON is YAML.
    crate::support::write(
        &tmp.path().join(VALUES_HASH),
        J::from(values_hash).to_string(),
    );
    let probe = beryl(tmp.path(), &args(&["lookup", "--help"]));
    if probe.status != 0 {
        let table = puppet_only_table(&plans, &theirs);
        super::report_section(
            TITLE,
            &format!("{table}\n(beryl side not run: no `beryl lookup`)"),
        );
        eprintln!("notice: {TEST}: beryl side skipped: `beryl lookup` does not exist yet\n{table}");
        return;
    }
    let ours = beryl_side::run(tmp.path(), &plans);
    // Nodes whose hierarchy names a file twice (os.family = os.name).
    let twice: Vec<bool> = NODES
        .iter()
        .map(|n| {
            let chain = n.chain(&data);
            (1..chain.len()).any(|i| chain[..i].contains(&chain[i]))
        })
        .collect();
    judge_all(&plans, &theirs, &ours, &twice);
}

pub const TITLE: &str = "beryl lookup against puppet lookup (mergwyn-control-repo)";

fn notice(why: &str) {
    crate::support::skip_peer(TEST, why);
}

/// The repository's data dir, after checking SOURCES.txt names the commit
/// the mapping was written for.
fn data_dir() -> Option<PathBuf> {
    let Ok(realworld) = repo().join("../shared/realworld").canonicalize() else {
        notice("../shared/realworld is absent");
        return None;
    };
    let sources = std::fs::read_to_string(realworld.join("SOURCES.txt")).unwrap_or_default();
    if !sources
        .lines()
        .any(|l| l.starts_with(&format!("{REPO} {COMMIT}")))
    {
        notice(&format!(
            "../shared/realworld/SOURCES.txt does not name {REPO} {COMMIT}"
        ));
        return None;
    }
    Some(realworld.join(REPO).join("data"))
}

/// Every data file, relative to `data`, but secrets.yaml (the eyaml level).
fn data_files(data: &Path) -> Vec<String> {
    fn walk(dir: &Path, rel: &str, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).expect("list the data") {
            let e = e.unwrap();
            let name = e.file_name().into_string().expect("UTF-8 name");
            let rel = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if e.path().is_dir() {
                walk(&e.path(), &rel, out);
            } else if rel.ends_with(".yaml") && rel != "secrets.yaml" {
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(data, "", &mut out);
    out.sort();
    assert!(out.len() > 20, "{} data files only", out.len());
    out
}

/// The driver must print what the CLI prints: a found mapping under a deep
/// merge, a scalar rendered as text, and a key that is not found.
fn check_driver_against_cli(
    scratch: &Path,
    code: &Path,
    plans: &[Vec<Lookup>],
    theirs: &[Vec<Reply>],
) {
    let node = NODES
        .iter()
        .position(|n| n.short == "alpha")
        .expect("alpha");
    let pick = |f: &dyn Fn(&Lookup, &Reply) -> bool| {
        plans[node]
            .iter()
            .zip(&theirs[node])
            .find(|(l, r)| f(l, r))
            .expect("a sample lookup")
    };
    let samples = [
        pick(&|l, r| l.variant == "deep" && r.exit == 0 && r.stdout.starts_with('{')),
        pick(&|l, r| l.render_as == "s" && r.exit == 0),
        pick(&|l, r| l.variant == "first" && r.exit == 1),
    ];
    for (l, driver) in samples {
        let n = &NODES[node];
        let cli = puppet::cli(
            scratch,
            code,
            &n.fqdn(),
            &n.puppet_facts(),
            l,
            n.environment,
        );
        assert_eq!(
            (cli.exit, &cli.stdout),
            (driver.exit, &driver.stdout),
            "tests/peers/lookup.rb and `puppet lookup` differ on {l:?}"
        );
    }
}

/// Puppet's side must have found the mapping's data: every node finds
/// `defaults::subnet` (common.yaml), and a node file's key is found for its
/// node only.
fn check_puppet_side(plans: &[Vec<Lookup>], theirs: &[Vec<Reply>]) {
    let answer = |short: &str, key: &str| {
        let i = NODES.iter().position(|n| n.short == short).unwrap();
        plans[i]
            .iter()
            .zip(&theirs[i])
            .find(|(l, _)| l.variant == "first" && l.puppet_key == key)
            .map(|(_, r)| (r.exit, r.stdout.trim_end().to_string()))
            .unwrap_or_else(|| panic!("no lookup of {key} for {short}"))
    };
    for n in NODES {
        assert_eq!(
            answer(n.short, "defaults::subnet"),
            (0, "\"10.58.0\"".into()),
            "{}",
            n.short
        );
    }
    assert_eq!(
        answer("alpha", "profile::app::dhcpd::role"),
        (0, "\"secondary\"".into())
    );
    assert_eq!(answer("bravo", "profile::app::dhcpd::role").0, 0);
    assert_eq!(answer("golf", "profile::app::dhcpd::role").0, 1);
}
