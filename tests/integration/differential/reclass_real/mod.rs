//! `beryl reclass` against kapicorp-reclass 2.0 on real public reclass
//! inventories, node by node, raw: no conversion step.
//!
//! For every root of `roots.rs` (under ../shared/realworld; skipped with a
//! notice when it is absent), every node kapicorp lists is rendered by
//! `beryl reclass OPTIONS --nodeinfo NODE -o json` and by kapicorp's
//! `Core.nodeinfo` (tests/peers/reclass_nodeinfo.py), and the two
//! documents are compared whole, less `__reclass__.timestamp`. A node
//! agrees when both documents are equal or both refuse it.
//!
//! Every node that does not agree is listed in tests/peers/reclass-real.yml
//! with how it differs and why; the test fails when an unlisted node does
//! not agree, when a listed one now agrees, or when a listed one differs in
//! another way. `BERYL_UPDATE_DIFFERENCES=1` rewrites the list from the run,
//! keeping each reason whose node still differs the same way (review the
//! diff). The agreement table is printed (`.ci/run` shows it).
//!
//! kapicorp comes from the venv that `.ci/run` makes (BERYL_RECLASS_PYTHON);
//! without it the test skips with a notice, unless BERYL_REQUIRE_PEERS is
//! set.

mod layout;
pub(super) mod roots;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value as J, json};

use crate::support::{args, beryl, repo, skip_peer};
use roots::{ROOTS, Root};

/// How one node compares.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Outcome {
    Same,
    BothRefuse,
    /// The first path where the documents differ.
    Differs(String),
    /// kapicorp refuses, beryl renders.
    OnlyKapicorpRefuses(String),
    /// beryl refuses, kapicorp renders.
    OnlyBerylRefuses(String),
}

impl Outcome {
    pub(super) fn agrees(&self) -> bool {
        matches!(self, Outcome::Same | Outcome::BothRefuse)
    }

    /// The kind written in reclass-real.yml, and its detail.
    fn kind(&self) -> (&'static str, &str) {
        match self {
            Outcome::Same => ("same", ""),
            Outcome::BothRefuse => ("both_refuse", ""),
            Outcome::Differs(p) => ("differs", p),
            Outcome::OnlyKapicorpRefuses(e) => ("only_kapicorp_refuses", e),
            Outcome::OnlyBerylRefuses(e) => ("only_beryl_refuses", e),
        }
    }
}

/// A listed node: its kind and the reason written for it.
struct Listed {
    kind: String,
    why: String,
}

const LIST: &str = "tests/peers/reclass-real.yml";

/// The generated inventories, one per seed, and their size.
const GENERATED: [&str; 3] = ["generated-1", "generated-2", "generated-3"];
const GENERATED_NODES: usize = 40;

#[test]
fn beryl_reclass_agrees_with_kapicorp_on_real_inventories() {
    let test = "beryl_reclass_agrees_with_kapicorp_on_real_inventories";
    // Canonical: reclass writes the path it was given in `uri`, `..` and all.
    let Ok(realworld) = repo().join("../shared/realworld").canonicalize() else {
        skip_peer(test, "../shared/realworld (the real inventories) is absent");
        return;
    };
    if !realworld.join("SOURCES.txt").is_file() {
        skip_peer(test, "../shared/realworld/SOURCES.txt is absent");
        return;
    }
    let Some(python) = super::reclass::python() else {
        skip_peer(
            test,
            "kapicorp-reclass is not installed (BERYL_RECLASS_PYTHON)",
        );
        return;
    };
    let listed = load_list();
    let mut oracle = Oracle::start(&python);
    let scratch = tempfile::tempdir().unwrap();
    // Where beryl runs: empty, and holding none of the inventories.
    let cwd = tempfile::tempdir().unwrap();
    let mut table = String::from(
        "root                            nodes  same  both refuse  differ  only kapicorp refuses  only beryl refuses\n",
    );
    let mut results: BTreeMap<String, BTreeMap<String, Outcome>> = BTreeMap::new();
    let mut totals = [0usize; 6];
    // Generated inventories too (examples/support/reclass_gen.rs): classes,
    // references, applications, exports and `$[ ]` queries, three seeds.
    let generated: Vec<Root> = GENERATED
        .iter()
        .map(|name| Root {
            name,
            base: "",
            args: &[],
            oracle: || json!({}),
            config: None,
        })
        .collect();
    let mut targets: Vec<(&Root, PathBuf)> =
        ROOTS.iter().map(|r| (r, realworld.join(r.base))).collect();
    for (seed, root) in generated.iter().enumerate() {
        let dir = scratch.path().join(root.name);
        crate::support::reclass_gen::generate(&dir, GENERATED_NODES, seed as u64 + 1, true);
        targets.push((root, dir));
    }
    for (root, base) in targets {
        let config = root.config.map(|text| {
            let path = scratch.path().join(format!("{}.yml", root.name));
            std::fs::write(&path, text).unwrap();
            path
        });
        let theirs = oracle.ask(&base, root, config.as_deref());
        if root.base.is_empty() {
            // A generated inventory exercises the queries: a node of
            // `monitoring` gathers the addresses of its environment only (reclass
            // answers node → value), and one of `fleetwide` every node's.
            let gathered = |key: &str, field: &str, all: bool| {
                theirs.values().any(|n| {
                    n["parameters"][key][field]
                        .as_object()
                        .is_some_and(|t| !t.is_empty() && (t.len() == GENERATED_NODES) == all)
                })
            };
            assert!(
                gathered("monitoring", "targets", false),
                "{}: no environment filter",
                root.name
            );
            assert!(
                gathered("fleet", "everyone", true),
                "{}: no +AllEnvs query",
                root.name
            );
        }
        let mut row = [0usize; 6];
        let outcomes = results.entry(root.name.to_string()).or_default();
        for (node, theirs) in &theirs {
            let ours = ours(cwd.path(), &base, root, config.as_deref(), node);
            let outcome = compare(&ours, theirs);
            row[0] += 1;
            row[match outcome {
                Outcome::Same => 1,
                Outcome::BothRefuse => 2,
                Outcome::Differs(_) => 3,
                Outcome::OnlyKapicorpRefuses(_) => 4,
                Outcome::OnlyBerylRefuses(_) => 5,
            }] += 1;
            outcomes.insert(node.clone(), outcome);
        }
        for (t, r) in totals.iter_mut().zip(row) {
            *t += r;
        }
        table.push_str(&format!(
            "{:<30} {:>6} {:>5} {:>12} {:>7} {:>22} {:>19}\n",
            root.name, row[0], row[1], row[2], row[3], row[4], row[5]
        ));
    }
    table.push_str(&format!(
        "{:<30} {:>6} {:>5} {:>12} {:>7} {:>22} {:>19}\n",
        "all", totals[0], totals[1], totals[2], totals[3], totals[4], totals[5]
    ));
    let listed_count: usize = listed.values().map(BTreeMap::len).sum();
    let deliberate = listed
        .values()
        .flat_map(BTreeMap::values)
        .filter(|l| l.why.starts_with("deliberate:"))
        .count();
    let body = format!(
        "`beryl reclass --nodeinfo NODE -o json` against kapicorp-reclass 2.0.0's, node by node \
         (tests/integration/differential/reclass_real/); {listed_count} disagreements listed in \
         {LIST}, {deliberate} of them deliberate.\n\n```text\n{table}```\n"
    );
    let report = super::report_section("reclass on real inventories", &body);
    eprintln!("reclass-real: {}\n{table}", report.display());
    if std::env::var_os("BERYL_UPDATE_DIFFERENCES").is_some() {
        write_list(&results, &listed);
        return;
    }
    let problems = judge(&results, &listed);
    assert!(
        problems.is_empty(),
        "{} node(s) not as {LIST} says (BERYL_UPDATE_DIFFERENCES=1 rewrites it):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// beryl's document for a node, or its error. It runs in `cwd`, a scratch
/// directory: the test runner shows the directory it runs in as `[ROOT]`.
fn ours(
    cwd: &Path,
    base: &Path,
    root: &Root,
    config: Option<&Path>,
    node: &str,
) -> Result<J, String> {
    let base_text = base.to_str().unwrap();
    let mut a = vec!["reclass", "--inventory-base-uri", base_text];
    let config_text = config.map(|c| c.to_str().unwrap().to_string());
    if let Some(c) = &config_text {
        a.extend(["--config", c.as_str()]);
    }
    a.extend(root.args);
    a.extend(["--nodeinfo", node, "--output", "json"]);
    let r = beryl(cwd, &args(&a));
    if r.status != 0 {
        // A refusal is a diagnostic of beryl's (a code `beryl::…`), never a
        // usage error: that would be this harness's fault.
        assert!(
            r.stderr.contains("beryl::"),
            "beryl reclass {a:?} failed without a diagnostic:\n{}",
            r.stderr
        );
        return Err(first_line(&r.stderr));
    }
    let mut doc: J = serde_json::from_str(&r.stdout)
        .map_err(|e| format!("not JSON ({e}): {}", first_line(&r.stdout)))?;
    if let Some(meta) = doc.get_mut("__reclass__").and_then(J::as_object_mut) {
        meta.remove("timestamp");
    }
    Ok(doc)
}

pub(super) fn first_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .to_string()
}

pub(super) fn compare(ours: &Result<J, String>, theirs: &J) -> Outcome {
    let theirs = match theirs.get("error").and_then(J::as_str) {
        Some(e) if theirs.as_object().is_some_and(|o| o.len() == 1) => Err(e.to_string()),
        _ => Ok(theirs),
    };
    match (ours, theirs) {
        (Err(a), Err(b)) => {
            eprintln!(
                "reclass-real: both refuse: beryl `{a}`; kapicorp `{}`",
                short(&J::String(b))
            );
            Outcome::BothRefuse
        }
        (Ok(_), Err(e)) => Outcome::OnlyKapicorpRefuses(e),
        (Err(e), Ok(_)) => Outcome::OnlyBerylRefuses(e.clone()),
        (Ok(a), Ok(b)) => match first_difference(a, b, "") {
            None => Outcome::Same,
            Some(p) => Outcome::Differs(p),
        },
    }
}

/// The first path (dotted, in key order) where `a` and `b` differ.
fn first_difference(a: &J, b: &J, at: &str) -> Option<String> {
    let here = || {
        if at.is_empty() {
            ".".to_string()
        } else {
            at.to_string()
        }
    };
    match (a, b) {
        (J::Object(x), J::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| match (x.get(k), y.get(k)) {
                (Some(p), Some(q)) => first_difference(p, q, &join(at, k)),
                _ => Some(join(at, k)),
            })
        }
        (J::Array(x), J::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(p, q, &format!("{at}[{i}]"))),
        _ if a == b => None,
        _ => Some(format!("{}: {} vs {}", here(), short(a), short(b))),
    }
}

/// A value, cut to a readable length.
fn short(v: &J) -> String {
    let text = v.to_string();
    match text.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

fn join(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_string()
    } else {
        format!("{at}.{key}")
    }
}

/// Disagreements with the list.
fn judge(
    results: &BTreeMap<String, BTreeMap<String, Outcome>>,
    listed: &BTreeMap<String, BTreeMap<String, Listed>>,
) -> Vec<String> {
    let mut problems = Vec::new();
    for (root, nodes) in results {
        for (node, outcome) in nodes {
            let (kind, detail) = outcome.kind();
            match (listed.get(root).and_then(|l| l.get(node)), outcome.agrees()) {
                (None, true) => {}
                (None, false) => {
                    problems.push(format!("{root}/{node}: {kind} ({detail}), not listed"))
                }
                (Some(_), true) => {
                    problems.push(format!("{root}/{node}: now agrees ({kind}); unlist it"))
                }
                (Some(l), false) if l.kind != kind => problems.push(format!(
                    "{root}/{node}: listed as {}, but {kind} ({detail})",
                    l.kind
                )),
                (Some(_), false) => {}
            }
        }
    }
    for (root, nodes) in listed {
        for node in nodes.keys() {
            if results.get(root).is_none_or(|r| !r.contains_key(node)) {
                problems.push(format!(
                    "{root}/{node}: listed, but no such node was rendered"
                ));
            }
        }
    }
    problems
}

fn load_list() -> BTreeMap<String, BTreeMap<String, Listed>> {
    use beryl::value::Node;
    let text = std::fs::read_to_string(repo().join(LIST)).unwrap_or_default();
    let source = beryl::value::Source::new(LIST, text);
    let root = beryl::yaml::parse_any(&source, &Default::default())
        .unwrap_or_else(|e| panic!("{LIST}: {e:?}"));
    let mut out = BTreeMap::new();
    for (name, entry) in root.as_map().into_iter().flatten() {
        let mut nodes = BTreeMap::new();
        for (node, e) in entry.node.as_map().into_iter().flatten() {
            let field = |k: &str| {
                e.node
                    .get(k)
                    .and_then(Node::as_str)
                    .unwrap_or_else(|| panic!("{LIST}: {name}/{node} lacks `{k}`"))
                    .to_string()
            };
            nodes.insert(
                node.clone(),
                Listed {
                    kind: field("kind"),
                    why: field("why"),
                },
            );
        }
        out.insert(name.clone(), nodes);
    }
    out
}

/// Rewrites the list from `results`, keeping the reasons of nodes that
/// still differ the same way.
fn write_list(
    results: &BTreeMap<String, BTreeMap<String, Outcome>>,
    listed: &BTreeMap<String, BTreeMap<String, Listed>>,
) {
    let mut out = String::from(
        "# The nodes of the real inventories where `beryl reclass` and kapicorp-reclass\n\
         # 2.0.0 do not agree (tests/integration/differential/reclass_real/), by root:\n\
         # `kind` is how they differ (differs, only_kapicorp_refuses,\n\
         # only_beryl_refuses), `why` the reason. A `why` starting with `deliberate:`\n\
         # is a documented deviation (docs/reclass.md); `unexplained:` is not one yet.\n",
    );
    for (root, nodes) in results {
        let bad: Vec<_> = nodes.iter().filter(|(_, o)| !o.agrees()).collect();
        if bad.is_empty() {
            continue;
        }
        out.push_str(&format!("{}:\n", quote(root)));
        for (node, outcome) in bad {
            let (kind, detail) = outcome.kind();
            let why = match listed.get(root).and_then(|l| l.get(node)) {
                Some(l) if l.kind == kind => l.why.clone(),
                _ => format!("unexplained: {detail}"),
            };
            out.push_str(&format!(
                "  {}: {{kind: {kind}, why: {}}}\n",
                quote(node),
                quote(&why)
            ));
        }
    }
    std::fs::write(repo().join(LIST), out).unwrap();
}

/// A YAML double-quoted string (JSON's escapes are YAML's).
fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// kapicorp, one process for the run (tests/peers/reclass_nodeinfo.py).
struct Oracle {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
}

impl Oracle {
    fn start(python: &PathBuf) -> Oracle {
        let mut child = Command::new(python)
            .arg(repo().join("tests/peers/reclass_nodeinfo.py"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("kapicorp's driver starts");
        let out = BufReader::new(child.stdout.take().unwrap());
        Oracle { child, out }
    }

    /// Every node of `root`, by name: kapicorp's document or `{error}`.
    fn ask(&mut self, base: &Path, root: &Root, config: Option<&Path>) -> BTreeMap<String, J> {
        let mut request = (root.oracle)();
        request["id"] = json!(root.name);
        request["base"] = json!(base);
        if let Some(c) = config {
            request["config"] = json!(c);
        }
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        self.out.read_line(&mut line).unwrap();
        let reply: J = serde_json::from_str(&line).expect("the driver answers JSON");
        if let Some(e) = reply.get("error") {
            // The whole inventory refused: no node to compare.
            eprintln!(
                "reclass-real: kapicorp refuses {} as a whole: {e}",
                root.name
            );
            return BTreeMap::new();
        }
        serde_json::from_value(reply["nodes"].clone()).unwrap()
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}
