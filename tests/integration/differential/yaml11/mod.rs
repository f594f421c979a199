//! The YAML 1.1 dialect (`yaml::Schema::Yaml11`, what `beryl reclass` reads)
//! against PyYAML, the reader of kapicorp-reclass.
//!
//! Seeded random documents (`generate.rs`), and every YAML file of the real
//! inventories in ../shared/realworld when it is there, are loaded by beryl
//! (through the library) and by tests/peers/yaml11_driver.py, and compared
//! value by value: the same types (an int is not a float, `yes` is a
//! boolean), the same keys in the same order, or both refuse the file. The
//! deliberate differences counted apart: an integer beyond 64 bits,
//! which beryl refuses, and PyYAML 6.0.4's order of merged keys ([`compare`]; docs/reclass-yaml.md).
//!
//! PyYAML is the one of BERYL_RECLASS_PYTHON (the venv `.ci/run` makes, with
//! kapicorp-reclass and its PyYAML), else python3's; without one the test
//! skips with a notice, unless BERYL_REQUIRE_PEERS is set.

mod generate;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use beryl::value::{Node, Source, Value};
use beryl::yaml::{Limits, Schema, parse_any_as};
use serde_json::Value as J;

use crate::support::repo;

const DOCUMENTS: u64 = 1500;

/// A Python with PyYAML, if there is one.
fn python() -> Option<PathBuf> {
    let candidate = std::env::var_os("BERYL_RECLASS_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| "python3".into());
    let ok = Command::new(&candidate)
        .args(["-c", "import yaml"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(candidate)
}

/// PyYAML's version and its answer for each file.
fn pyyaml(python: &Path, files: &[PathBuf]) -> (String, Vec<J>) {
    let mut child = Command::new(python)
        .arg(repo().join("tests/peers/yaml11_driver.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the PyYAML driver");
    let mut stdin = child.stdin.take().unwrap();
    let list: String = files.iter().map(|f| format!("{}\n", f.display())).collect();
    let writer = std::thread::spawn(move || stdin.write_all(list.as_bytes()).unwrap());
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut parse = || serde_json::from_str::<J>(&lines.next().unwrap().unwrap()).unwrap();
    let version = parse()["version"].as_str().unwrap().to_string();
    let answers = files.iter().map(|_| parse()).collect();
    writer.join().unwrap();
    assert!(child.wait().unwrap().success());
    (version, answers)
}

/// Where beryl's value and PyYAML's differ (a path into the document), if
/// they do; with `ordered` false, the order of a mapping's keys is not
/// compared.
fn differ(ours: &Node, theirs: &J, at: &str, ordered: bool) -> Option<String> {
    let same = match (&ours.value, theirs) {
        (Value::Null, J::Null) => true,
        (Value::Bool(a), J::Bool(b)) => a == b,
        (Value::Str(a), J::String(b)) => a == b,
        (Value::Str(a), J::Object(o)) if o.contains_key("timestamp") => o["timestamp"] == **a,
        (Value::Int(a), J::Object(o)) if o.contains_key("int") => {
            // A string: PyYAML's integers have any size.
            o["int"].as_str() == Some(a.to_string().as_str())
        }
        (Value::Float(a), J::Object(o)) if o.contains_key("float") => {
            let b: f64 = o["float"].as_str().unwrap().parse().unwrap();
            (a.is_nan() && b.is_nan()) || (*a == b && a.is_sign_negative() == b.is_sign_negative())
        }
        (Value::Seq(a), J::Array(b)) if a.len() == b.len() => {
            return a
                .iter()
                .zip(b)
                .enumerate()
                .find_map(|(i, (x, y))| differ(x, y, &format!("{at}[{i}]"), ordered));
        }
        (Value::Map(a), J::Object(o)) if o.contains_key("map") => {
            let pairs = o["map"].as_array().unwrap();
            if a.len() != pairs.len() {
                return Some(format!("{at}: {} keys, PyYAML {}", a.len(), pairs.len()));
            }
            return a.iter().enumerate().find_map(|(i, (k, e))| {
                let pair = match ordered {
                    true => &pairs[i],
                    false => pairs.iter().find(|p| p[0] == **k)?,
                };
                if pair[0] != **k {
                    return Some(format!("{at}: key {k:?}, PyYAML {}", pair[0]));
                }
                differ(&e.node, &pair[1], &format!("{at}.{k}"), ordered)
            });
        }
        _ => false,
    };
    (!same).then(|| {
        format!(
            "{at}: beryl {}, PyYAML {theirs}",
            serde_json::to_string(ours).unwrap()
        )
    })
}

/// The YAML files under `dir`, sorted.
fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yml" || e == "yaml") {
            out.push(path);
        }
    }
}

#[derive(Default)]
struct Tally {
    files: usize,
    agree: usize,
    both_refuse: usize,
    beyond_64_bits: usize,
    /// Differ only in the order of merged keys, with PyYAML 6.0.4.
    merge_order: usize,
    warned: usize,
    differ: Vec<String>,
}

/// Compares beryl's reading of each file with PyYAML's answer. PyYAML 6.0.4
/// orders the keys merged from `<<: [*a, *b]` otherwise than 6.0.3 and
/// beryl (its regression yaml/pyyaml#953; the generator's merged keys are
/// of one character, which it reads with the same values): with it, a file
/// with a merge key that differs only in the order of keys is counted apart.
fn compare(files: &[PathBuf], answers: &[J], version: &str) -> Tally {
    let mut t = Tally::default();
    for (file, answer) in files.iter().zip(answers) {
        t.files += 1;
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let merges = text.contains("<<");
        let ours = parse_any_as(
            &Source::new(file.display().to_string(), text),
            &Limits::default(),
            Schema::Yaml11,
        );
        let name = file.display();
        match (ours, answer.get("ok")) {
            (Ok(loaded), Some(theirs)) => {
                t.warned += usize::from(!loaded.warnings.is_empty());
                match differ(&loaded.node, theirs, "", true) {
                    None => t.agree += 1,
                    Some(_)
                        if version == "6.0.4"
                            && merges
                            && differ(&loaded.node, theirs, "", false).is_none() =>
                    {
                        t.merge_order += 1
                    }
                    Some(why) => t.differ.push(format!("{name}: {why}")),
                }
            }
            (Err(_), None) => t.both_refuse += 1,
            (Err(d), Some(_)) if d.code == "beryl::yaml::integer_range" => t.beyond_64_bits += 1,
            (Err(d), Some(_)) => t
                .differ
                .push(format!("{name}: beryl refuses ({}: {})", d.code, d.message)),
            (Ok(_), None) => t
                .differ
                .push(format!("{name}: PyYAML refuses ({})", answer["error"])),
        }
    }
    t
}

#[test]
fn yaml_1_1_agrees_with_pyyaml() {
    let Some(python) = python() else {
        assert!(
            std::env::var_os("BERYL_REQUIRE_PEERS").is_none(),
            "BERYL_REQUIRE_PEERS is set but no Python with PyYAML (BERYL_RECLASS_PYTHON={:?})",
            std::env::var_os("BERYL_RECLASS_PYTHON")
        );
        eprintln!(
            "notice: the YAML 1.1 differential skips: no Python with PyYAML (set BERYL_RECLASS_PYTHON; .ci/run makes a venv)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let generated: Vec<PathBuf> = (1..=DOCUMENTS)
        .map(|seed| {
            let path = dir.path().join(format!("doc-{seed}.yml"));
            std::fs::write(&path, generate::document(seed)).unwrap();
            path
        })
        .collect();
    let mut real = Vec::new();
    yaml_files(&repo().join("../shared/realworld"), &mut real);
    if real.is_empty() {
        eprintln!(
            "notice: the YAML 1.1 differential reads no real files: ../shared/realworld is absent"
        );
    }
    let all: Vec<PathBuf> = generated.iter().chain(&real).cloned().collect();
    let (version, answers) = pyyaml(&python, &all);
    let (gen_answers, real_answers) = answers.split_at(generated.len());
    let mut failures = Vec::new();
    for (what, tally) in [
        ("generated", compare(&generated, gen_answers, &version)),
        (
            "../shared/realworld",
            compare(&real, real_answers, &version),
        ),
    ] {
        eprintln!(
            "YAML 1.1 vs PyYAML {version}, {what}: {} files, {} agree, {} both refuse, {} beyond 64 bits (beryl refuses), {} only in the order of merged keys (PyYAML 6.0.4, yaml/pyyaml#953), {} differ; {} with a duplicate-key warning",
            tally.files,
            tally.agree,
            tally.both_refuse,
            tally.beyond_64_bits,
            tally.merge_order,
            tally.differ.len(),
            tally.warned
        );
        failures.extend(tally.differ);
    }
    assert!(
        failures.is_empty(),
        "{} files differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_comparison_can_fail() {
    let node = |text: &str| {
        parse_any_as(&Source::new("t", text), &Limits::default(), Schema::Yaml11)
            .unwrap()
            .node
    };
    let theirs: J = serde_json::from_str(r#"{"map": [["a", {"int": "511"}]]}"#).unwrap();
    assert_eq!(differ(&node("a: 0777\n"), &theirs, "", true), None);
    assert!(differ(&node("a: '0777'\n"), &theirs, "", true).is_some());
    assert!(differ(&node("a: 511.0\n"), &theirs, "", true).is_some());
    assert!(differ(&node("b: 0777\n"), &theirs, "", true).is_some());
    let two: J = serde_json::from_str(r#"{"map": [["b", null], ["a", true]]}"#).unwrap();
    assert!(differ(&node("a: yes\nb: ~\n"), &two, "", true).is_some());
    assert_eq!(differ(&node("a: yes\nb: ~\n"), &two, "", false), None);
    assert!(differ(&node("a: no\nb: ~\n"), &two, "", false).is_some());
}
