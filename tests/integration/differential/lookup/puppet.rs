//! The Puppet side: tests/peers/lookup.rb, one process per environment, and
//! the real `puppet lookup` CLI for a sample that keeps the driver honest.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value as J, json};

use super::{Lookup, Reply, values_hash_value};
use crate::support::repo;

/// The settings both the driver and the CLI get: a scratch confdir and
/// vardir, and the code dir the mapping built.
fn settings(scratch: &Path, code: &Path, environment: &str) -> Vec<String> {
    let s = |p: &Path| p.to_str().expect("UTF-8 path").to_string();
    vec![
        "--confdir".into(),
        s(&scratch.join("conf")),
        "--vardir".into(),
        s(&scratch.join("var")),
        "--codedir".into(),
        s(code),
        "--environment".into(),
        environment.into(),
        "--color=false".into(),
    ]
}

/// A lookup as the driver's JSON.
fn request(l: &Lookup) -> J {
    let mut r = json!({"key": l.puppet_key, "render_as": l.render_as});
    if let Some(m) = &l.merge {
        r["merge"] = json!(m);
    }
    if let Some(p) = &l.knockout_prefix {
        r["knockout_prefix"] = json!(p);
    }
    if let Some(d) = &l.default {
        r["default"] = json!(d);
    }
    if l.sort {
        r["sort_merged_arrays"] = json!(true);
    }
    if l.values_hash {
        let root = &l.puppet_key;
        r["default_values_hash"] = json!({root: values_hash_value(root)});
    }
    r
}

/// Runs `lookups[node]` for every node of one environment through one driver
/// process; `facts[node]` are the node's facts.
pub fn run(
    scratch: &Path,
    code: &Path,
    environment: &str,
    nodes: &[(String, J, Vec<Lookup>)],
) -> Vec<Vec<Reply>> {
    let mut child = Command::new("ruby")
        .arg(repo().join("tests/peers/lookup.rb"))
        .args(settings(scratch, code, environment))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start tests/peers/lookup.rb");
    let mut stdin = child.stdin.take().expect("stdin");
    let lines: Vec<String> = nodes
        .iter()
        .enumerate()
        .map(|(id, (node, facts, lookups))| {
            let lookups: Vec<J> = lookups.iter().map(request).collect();
            json!({"id": id, "node": node, "facts": facts, "lookups": lookups}).to_string()
        })
        .collect();
    let writer = std::thread::spawn(move || {
        for line in lines {
            writeln!(stdin, "{line}").expect("write to the driver");
        }
    });
    let mut out = vec![Vec::new(); nodes.len()];
    for line in BufReader::new(child.stdout.take().expect("stdout")).lines() {
        let reply: J = serde_json::from_str(&line.expect("read")).expect("a JSON reply");
        let id = reply["id"].as_u64().expect("id") as usize;
        let results = reply["results"]
            .as_array()
            .unwrap_or_else(|| panic!("driver failed for {}: {}", nodes[id].0, reply["error"]));
        out[id] = results
            .iter()
            .map(|r| Reply {
                exit: r["exit"].as_i64().expect("exit") as i32,
                stdout: r["stdout"].as_str().unwrap_or_default().to_string(),
                // The CLI's error text, or the message of a silent failure.
                stderr: r["stderr"]
                    .as_str()
                    .or(r["lookup_error"].as_str())
                    .unwrap_or_default()
                    .to_string(),
            })
            .collect();
    }
    writer.join().expect("writer");
    assert!(child.wait().expect("driver exit").success());
    out
}

/// The real CLI for one lookup: what it prints and its exit status.
pub fn cli(scratch: &Path, code: &Path, node: &str, facts: &J, l: &Lookup, env: &str) -> Reply {
    let facts_file = scratch.join(format!("{node}.json"));
    std::fs::write(&facts_file, facts.to_string()).expect("write facts");
    let mut cmd = Command::new("puppet");
    cmd.arg("lookup")
        .args(settings(scratch, code, env))
        .args(["--node", node, "--facts"])
        .arg(&facts_file)
        .args(["--render-as", &l.render_as]);
    if let Some(m) = &l.merge {
        cmd.args(["--merge", m]);
    }
    if let Some(p) = &l.knockout_prefix {
        cmd.args(["--knock-out-prefix", p]);
    }
    if let Some(d) = &l.default {
        cmd.args(["--default", d]);
    }
    if l.sort {
        cmd.arg("--sort-merged-arrays");
    }
    assert!(!l.values_hash, "the CLI has no --default-values-hash");
    let out = cmd.arg(&l.puppet_key).output().expect("run puppet lookup");
    Reply {
        exit: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::new(),
    }
}
