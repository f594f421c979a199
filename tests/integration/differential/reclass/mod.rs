//! Classes, references, prefixes, exports and queries against kapicorp-reclass.
//!
//! Each inventory (the fixed ones of tests/peers/reclass/, then seeded
//! random ones from `generate.rs`) is compiled by beryl, host by host, through the
//! library, and converted (`convert.rs`) into a reclass inventory that
//! `tests/peers/reclass_driver.py` renders with reclass's `Core.nodeinfo`.
//! For every host, beryl's config (less `_beryl_`, `freebsd` and `ssh_keys`),
//! its `_beryl_.exports` and `_beryl_.classes` must equal reclass's
//! parameters, exports and classes (less the converter's `beryl_levels.*`),
//! or both must fail. Every disagreement must be a listed difference with
//! `peers: [reclass]` in tests/peers/differences.yml (`judge.rs`).
//!
//! reclass comes from the venv that `.ci/run` makes (BERYL_RECLASS_PYTHON);
//! without it the test skips with a notice, unless BERYL_REQUIRE_PEERS is set.
//! To look closer: BERYL_RECLASS_KEEP=1 keeps the inventories (both sides)
//! and prints where; BERYL_RECLASS_DEBUG=1 prints the hosts both refuse.
//!
//! beryl compiles every inventory twice: with its own semantics, then with
//! the reclass dialect (`compile::Dialect::reclass`, with beryl's dotted
//! paths, since the converter writes reclass's `:` on the other side). Under
//! the dialect, the differences marked `dialect: beryl` must be gone.

mod convert;
mod generate;
mod judge;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use beryl::compile::{Compiler, Dialect, ReclassSettings, compile};
use beryl::inventory::Inventory;
use beryl::keys::KeyStore;
use serde_json::{Value as J, json};

use super::peers::Answer;
use super::{conclude, list};
use crate::support::{fixtures, repo, write};
use judge::Verdict;

/// Generated inventories, and hosts in each.
const INVENTORIES: u64 = 10;
const HOSTS: usize = 24;

/// The files every case starts from (a case may replace them).
const BASE: &[(&str, &str)] = &[
    (
        "inventory/_default.yml",
        "merge: {\"^\": concat}\nfreebsd: {timezone: UTC}\n",
    ),
    ("inventory/example.org/_domain.yml", "ssh_keys: [ops]\n"),
];

/// One host's answer: its parameters, exports and classes.
pub fn answer(parameters: J, exports: J, classes: Vec<String>) -> Answer {
    Answer::Ok(json!({"parameters": parameters, "exports": exports, "classes": classes}))
}

/// The Python with kapicorp-reclass, if there is one.
pub(super) fn python() -> Option<PathBuf> {
    let candidate = std::env::var_os("BERYL_RECLASS_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| "python3".into());
    let ok = Command::new(&candidate)
        .args(["-c", "import reclass.core"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(candidate)
}

/// The files of a case: (path, text).
type Files = Vec<(String, String)>;

/// The fixed cases: `--- path` blocks, written over BASE.
fn fixed() -> Vec<(String, Files)> {
    let dir = repo().join("tests/peers/reclass");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/peers/reclass")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "inv"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let mut files: Vec<(String, String)> = Vec::new();
            for block in text.split("\n--- ").skip(1) {
                let (name, body) = block.split_once('\n').unwrap_or((block, ""));
                files.push((name.trim().to_string(), body.to_string()));
            }
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            (name, files)
        })
        .collect()
}

fn materialise(files: &[(String, String)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, body) in BASE
        .iter()
        .map(|(p, b)| (p.to_string(), b.to_string()))
        .chain(files.iter().cloned())
    {
        write(&dir.path().join(path), body);
    }
    dir
}

/// beryl's answers, host by host, with the hosts' merged documents.
type Hosts = BTreeMap<String, (Answer, Vec<beryl::value::Node>)>;

/// The reclass dialect for the converted inventories: reclass's semantics,
/// with beryl's dotted paths (the converter turns them into `:` paths for
/// reclass) and beryl's `merge:` tables (their `_default.yml` sets reclass's
/// list rule in one; the converter drops it).
fn reclass_dialect() -> Dialect {
    let mut d = Dialect::reclass(&ReclassSettings::default());
    d.refs.paths = beryl::refs::Paths::Dotted;
    d.merge.merge_key_is_data = false;
    d
}

/// beryl's answer for every host, through the library, in a dialect.
fn beryl_hosts(root: &Path, dialect: Dialect) -> (Inventory, Hosts) {
    let inv = Inventory::discover(&root.join("inventory"), "inventory").expect("discovery");
    let ssh = fixtures().join("base/ssh");
    let keys = KeyStore::new(&ssh, "ssh", 1 << 20);
    let compiler = Compiler::new(&inv, &keys, Default::default()).with_dialect(dialect);
    let mut out = BTreeMap::new();
    for host in &inv.hosts {
        let a = match compile(&compiler, host) {
            Ok(c) => {
                let mut config = serde_json::to_value(&c.config).unwrap();
                let header = config.as_object_mut().unwrap().shift_remove("_beryl_");
                for k in ["freebsd", "ssh_keys"] {
                    config.as_object_mut().unwrap().shift_remove(k);
                }
                let header = header.unwrap_or_default();
                let classes = header["classes"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|c| c.as_str().map(str::to_string))
                    .collect();
                let exports = header.get("exports").cloned().unwrap_or(json!({}));
                let levels = c.levels.iter().map(|l| (*l.node).clone()).collect();
                (answer(config, exports, classes), levels)
            }
            // The documents it would have merged, roughly: its chain and
            // every class (for the predicates that look at the input).
            Err(e) => (
                Answer::Error(format!("{}: {}", e[0].code, e[0].message)),
                inputs(&inv, host),
            ),
        };
        out.insert(host.fqdn.clone(), a);
    }
    drop(compiler);
    (inv, out)
}

fn inputs(inv: &Inventory, host: &beryl::inventory::Host) -> Vec<beryl::value::Node> {
    let load = |path: &Path| {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let source = beryl::value::Source::new(path.display().to_string(), text);
        beryl::yaml::parse(&source, &Default::default()).ok()
    };
    let mut files: Vec<PathBuf> = inv
        .chain(host)
        .iter()
        .map(|l| l.file.path.clone())
        .collect();
    if let Some(dir) = &inv.classes_dir {
        let mut stack = vec![dir.path.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p)
                } else {
                    files.push(p)
                }
            }
        }
    }
    files.iter().filter_map(|f| load(f)).collect()
}

/// Every inventory through one driver process.
fn reclass(python: &Path, requests: &[J]) -> Vec<BTreeMap<String, Answer>> {
    let script = repo().join("tests/peers/reclass_driver.py");
    let mut child = Command::new(python)
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the reclass driver");
    let mut stdin = child.stdin.take().unwrap();
    let lines: Vec<String> = requests.iter().map(J::to_string).collect();
    let writer = std::thread::spawn(move || {
        for l in lines {
            writeln!(stdin, "{l}").expect("write to the driver");
        }
    });
    let mut out = vec![BTreeMap::new(); requests.len()];
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let reply: J = serde_json::from_str(&line.unwrap()).expect("a JSON reply");
        let id = reply["id"].as_u64().expect("reply id") as usize;
        for (name, node) in reply["nodes"].as_object().expect("nodes") {
            let a = match node.get("error") {
                Some(e) => Answer::Error(e.as_str().unwrap_or("?").to_string()),
                None => {
                    let classes = node["classes"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|c| c.as_str())
                        .filter(|c| !c.starts_with("beryl_levels."))
                        .map(str::to_string)
                        .collect();
                    answer(node["parameters"].clone(), node["exports"].clone(), classes)
                }
            };
            out[id].insert(name.clone(), a);
        }
    }
    writer.join().unwrap();
    assert!(child.wait().unwrap().success(), "the reclass driver failed");
    out
}

#[derive(Default)]
struct Tally {
    hosts: usize,
    agree: usize,
    both_fail: usize,
    differ: usize,
    /// Differ only in the order of query results or the class list.
    same_data: usize,
    explained: BTreeMap<String, usize>,
    flagged_but_agree: BTreeMap<String, usize>,
}

#[test]
fn classes_and_queries_agree_with_reclass() {
    let Some(python) = python() else {
        assert!(
            std::env::var_os("BERYL_REQUIRE_PEERS").is_none(),
            "BERYL_REQUIRE_PEERS is set but kapicorp-reclass is missing (BERYL_RECLASS_PYTHON={:?})",
            std::env::var_os("BERYL_RECLASS_PYTHON")
        );
        eprintln!(
            "notice: the reclass differential skips: no Python with kapicorp-reclass (set BERYL_RECLASS_PYTHON; .ci/run makes a venv)"
        );
        return;
    };
    let differences: Vec<_> = super::differences::load()
        .into_iter()
        .filter(|d| d.peers.iter().any(|p| p == "reclass"))
        .collect();
    let mut cases: Vec<(&str, String, Files)> =
        fixed().into_iter().map(|(n, f)| ("fixed", n, f)).collect();
    for seed in 1..=INVENTORIES {
        cases.push((
            "generated",
            format!("seed {seed}"),
            generate::inventory(seed, HOSTS),
        ));
    }
    let mut ours = Vec::new();
    let mut ours_dialect = Vec::new();
    let mut requests = Vec::new();
    let mut dirs = Vec::new();
    for (id, (_, _, files)) in cases.iter().enumerate() {
        let dir = materialise(files);
        let (inv, hosts) = beryl_hosts(dir.path(), Dialect::beryl());
        ours_dialect.push(beryl_hosts(dir.path(), reclass_dialect()).1);
        let settings = convert::convert(&inv, &dir.path().join("reclass"));
        requests
            .push(json!({"id": id, "inventory": dir.path().join("reclass"), "settings": settings}));
        ours.push(hosts);
        dirs.push(dir);
    }
    let theirs = reclass(&python, &requests);
    // BERYL_RECLASS_KEEP=1 keeps the inventories (beryl's and reclass's) to look at.
    if std::env::var_os("BERYL_RECLASS_KEEP").is_some() {
        for (dir, (_, name, _)) in dirs.drain(..).zip(&cases) {
            eprintln!("kept {name}: {}", dir.keep().display());
        }
    }
    let (mut table, mut failures) = judge_all(&cases, &ours, &theirs, &differences, true);
    // Under the dialect a listed difference need not be seen: the list is
    // kept from going stale by the first pass. (More hosts fail there, as in
    // reclass, and a failed host fails every query in beryl, which hides
    // the query order.)
    let under_dialect: Vec<_> = differences.into_iter().filter(|d| !d.beryl_only).collect();
    let (dialect_table, dialect_failures) =
        judge_all(&cases, &ours_dialect, &theirs, &under_dialect, false);
    table.push_str("\nWith the reclass dialect (`compile::Dialect::reclass`):\n\n");
    table.push_str(&dialect_table);
    failures.extend(
        dialect_failures
            .into_iter()
            .map(|f| format!("[reclass dialect] {f}")),
    );
    conclude(
        "Classes, exports and queries against kapicorp-reclass",
        &table,
        &failures,
        15,
    );
}

/// Judges beryl's answers against reclass's, host by host: the agreement
/// table, and the failures (unexplained disagreements, and with
/// `require_seen` the listed differences never seen).
fn judge_all(
    cases: &[(&str, String, Files)],
    ours: &[Hosts],
    theirs: &[BTreeMap<String, Answer>],
    differences: &[super::differences::Difference],
    require_seen: bool,
) -> (String, Vec<String>) {
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for ((kind, name, _), (ours, theirs)) in cases.iter().zip(ours.iter().zip(theirs)) {
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            theirs.keys().collect::<Vec<_>>(),
            "{name}: the same hosts"
        );
        let tally = tallies.entry(kind).or_default();
        for (fqdn, (mine, levels)) in ours {
            tally.hosts += 1;
            let peer = &theirs[fqdn];
            let fqdns: Vec<&String> = ours.keys().collect();
            match judge::judge(differences, mine, peer, levels, &fqdns) {
                Verdict::Agree { flagged, both_fail } => {
                    if both_fail && std::env::var_os("BERYL_RECLASS_DEBUG").is_some() {
                        eprintln!("both fail {name} {fqdn}: {mine:?} / {peer:?}");
                    }
                    tally.agree += 1;
                    tally.both_fail += usize::from(both_fail);
                    for id in flagged {
                        *tally.flagged_but_agree.entry(id).or_default() += 1;
                    }
                }
                Verdict::Explained(ids) => {
                    tally.differ += 1;
                    let presentation = ["reclass-query-order", "reclass-classes-as-written"];
                    if ids.iter().all(|id| presentation.contains(&id.as_str())) {
                        tally.same_data += 1;
                    }
                    for id in ids {
                        *seen.entry(id.clone()).or_default() += 1;
                        *tally.explained.entry(id).or_default() += 1;
                    }
                }
                Verdict::ExactButAgree(id) => failures.push(format!(
                    "{name} {fqdn}: `{id}` is exact but this host agrees"
                )),
                Verdict::Unexplained => failures.push(format!(
                    "{name} {fqdn}\n  reclass: {peer:?}\n  beryl:   {mine:?}"
                )),
            }
        }
    }
    for d in differences.iter().filter(|_| require_seen) {
        if !seen.contains_key(&d.id) {
            failures.push(format!(
                "listed difference `{}` was never observed: remove it or fix the generator",
                d.id
            ));
        }
    }
    let generated = tallies.get("generated").map_or(0, |t| t.hosts);
    assert!(generated >= 200, "only {generated} generated hosts");
    let mut table = String::from(
        "| inventories | hosts | agree (both fail) | differ | of which only in query order or class list | listed differences seen (hosts) | selected by a difference but agree |\n|---|---|---|---|---|---|---|\n",
    );
    for (kind, t) in &tallies {
        let count = cases.iter().filter(|c| c.0 == *kind).count();
        table.push_str(&format!(
            "| {count} {kind} | {} | {} ({}) | {} | {} | {} | {} |\n",
            t.hosts,
            t.agree,
            t.both_fail,
            t.differ,
            t.same_data,
            list(&t.explained),
            list(&t.flagged_but_agree)
        ));
    }
    (table, failures)
}
