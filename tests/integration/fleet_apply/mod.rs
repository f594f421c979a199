//! `beryl apply` for a fleet (docs/apply.md §§ 9–13): three hosts of the
//! example inventory, each installed from its own plan on its own fake
//! FreeBSD, each behind its own sshd on 127.0.0.1 (apply/sshd.rs, `wire`):
//!
//! - `facts --gather` takes the three snapshots in parallel, byte for byte;
//! - a dry run over the snapshots (`--state-dir`), saved (`--out`), is
//!   applied (`--plan`) and then re-planned: nothing is left, a second apply
//!   changes nothing on any host;
//! - a host whose state changed between the plan and the apply is refused
//!   as stale by its own script, one whose config changed by beryl, and the
//!   other host applies;
//! - an unreachable host is reported, and the others are gathered and
//!   applied;
//! - the JSON of the dry run, the plan and the events validate against
//!   docs/schemas/.
//!
//! `offline.rs` holds what needs no host (the schemas, `--out`, a config
//! that changed, the terminal prompt); `live.rs` the fleet over ssh. The
//! time of a no-op re-apply per host is printed (never asserted).
//! Needs root, the fake FreeBSD's tools, ssh, ssh-keygen, unshare and
//! /usr/sbin/sshd; skips with a notice without them, unless
//! BERYL_REQUIRE_TOOLS is set.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::apply::sshd;
use crate::support::{Run, args, beryl, repo};

mod live;
mod offline;

/// The fleet: host, level file.
const HOSTS: [(&str, &str); 3] = [
    ("host01", "example.org/web/host01.yml"),
    ("host02", "example.org/web/host02.yml"),
    ("db01", "example.org/db/db01.yml"),
];

fn fqdn(host: &str) -> String {
    format!("{host}.example.org")
}

fn run(d: &Path, a: &[&str]) -> Run {
    let mut all = args(a);
    all.extend(args(&sshd::SSH_OPTIONS));
    beryl(d, &all)
}

fn plain(d: &Path, a: &[&str]) -> Run {
    beryl(d, &args(a))
}

pub(crate) fn schema(name: &str) -> Value {
    let text = fs::read_to_string(repo().join("docs/schemas").join(name)).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::meta::validate(&schema).expect("a valid JSON Schema");
    schema
}

/// `doc` must satisfy `schema`; the errors, each with its place, otherwise.
pub(crate) fn valid(schema: &Value, doc: &Value, what: &str) {
    let v = jsonschema::draft202012::new(schema).expect("the schema compiles");
    let errors: Vec<String> = v
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}\n{doc:#}");
}

/// Each JSON line of a run, validated against `schema`.
fn lines(schema: &Value, r: &Run) -> Vec<Value> {
    r.stdout
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}\n{}", r.stdout));
            valid(schema, &v, "event");
            v
        })
        .collect()
}

/// The events of a real run's `--format json` document, the document and
/// each event validated against `schema` (which holds both shapes).
fn document(schema: &Value, r: &Run) -> Vec<Value> {
    let doc: Value = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("not one JSON document ({e}):\n{}", r.stdout));
    valid(schema, &doc, "run document");
    assert_eq!(doc["format"], "beryl-apply-run");
    let events = doc["events"].as_array().expect("events").clone();
    for e in &events {
        valid(schema, e, "event");
    }
    events
}

/// The `host` events of a run, by host: (status, changed).
fn outcomes(events: &[Value]) -> Vec<(String, String, u64)> {
    events
        .iter()
        .filter(|e| e["type"] == "host")
        .map(|e| {
            (
                e["host"].as_str().unwrap().to_string(),
                e["status"].as_str().unwrap().to_string(),
                e["changed"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// A host's row of the recap table: changed, unchanged, failed, status.
fn recap_row(r: &Run, host: &str) -> Vec<String> {
    let recap = r
        .stdout
        .split("\nRecap:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no recap:\n{}", r.stdout));
    let row = recap
        .lines()
        .find(|l| l.starts_with(&format!("  {} ", fqdn(host))))
        .unwrap_or_else(|| panic!("no recap row for {host}:\n{}", r.stdout));
    row.split_whitespace().skip(1).map(str::to_string).collect()
}

fn gather(d: &Path, out: &str) -> Run {
    let mut a = vec!["facts", "--gather", "--out", out, "--parallel", "3"];
    a.extend(HOSTS.iter().map(|(h, _)| *h));
    run(d, &a)
}

/// The dry run over the gathered snapshots, saved to `plan`: the document,
/// validated.
fn plan(d: &Path, facts: &str, plan: &str) -> Value {
    let mut a = vec![
        "apply",
        "--dry-run",
        "--state-dir",
        facts,
        "--out",
        plan,
        "--format",
        "json",
    ];
    a.extend(HOSTS.iter().map(|(h, _)| *h));
    let r = plain(d, &a);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    let doc: Value = serde_json::from_str(&r.stdout).expect("one JSON document");
    valid(&schema("dry-run.schema.json"), &doc, "dry run");
    let saved: Value = serde_json::from_str(&fs::read_to_string(d.join(plan)).unwrap()).unwrap();
    valid(&schema("plan.schema.json"), &saved, "plan");
    doc
}

/// The hosts' count of steps to add, change or remove, by host.
fn pending(doc: &Value) -> Vec<(String, u64)> {
    doc["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let s = &h["summary"];
            let n = ["add", "change", "remove", "unknown"]
                .iter()
                .map(|k| s[k].as_u64().unwrap())
                .sum();
            (h["host"].as_str().unwrap().to_string(), n)
        })
        .collect()
}
