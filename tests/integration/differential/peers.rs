//! The real peers: Ruby drivers under tests/peers/ fed JSON lines, one process
//! per driver for the whole run.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value as J, json};

use crate::support::repo;

/// What a peer answered for one case.
#[derive(Clone, Debug)]
pub enum Answer {
    Ok(J),
    Error(String),
}

pub struct Driver {
    pub name: &'static str,
    pub script: &'static str,
}

pub const HIERA: Driver = Driver {
    name: "puppet",
    script: "tests/peers/hiera.rb",
};
pub const GEM: Driver = Driver {
    name: "deep_merge",
    script: "tests/peers/deep_merge.rb",
};

/// Why a peer cannot run here (missing ruby, puppet or the gem).
pub fn unavailable(driver: &Driver) -> Option<String> {
    let probe = match driver.name {
        "puppet" => "require 'puppet'",
        _ => "require 'deep_merge/core'",
    };
    match Command::new("ruby").args(["-e", probe]).output() {
        Ok(o) if o.status.success() => None,
        Ok(o) => Some(format!(
            "{}: {}",
            driver.name,
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .next()
                .unwrap_or("not installed")
        )),
        Err(e) => Some(format!("{}: cannot run ruby: {e}", driver.name)),
    }
}

/// Runs every case (spec, levels lowest first) through one driver process.
pub fn run(driver: &Driver, cases: &[(J, Vec<J>)]) -> Vec<Answer> {
    let mut child = Command::new("ruby")
        .arg(repo().join(driver.script))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", driver.script));
    let mut stdin = child.stdin.take().expect("stdin");
    let lines: Vec<String> = cases
        .iter()
        .enumerate()
        .map(|(id, (spec, levels))| {
            json!({"id": id, "strategy": spec, "levels": levels}).to_string()
        })
        .collect();
    let writer = std::thread::spawn(move || {
        for line in lines {
            writeln!(stdin, "{line}").expect("write to the peer");
        }
    });
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut answers = vec![None; cases.len()];
    for line in stdout.lines() {
        let line = line.expect("read from the peer");
        let reply: J =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("bad reply {line:?}: {e}"));
        let id = reply["id"].as_u64().expect("reply id") as usize;
        answers[id] = Some(match reply.get("ok") {
            Some(v) => Answer::Ok(v.clone()),
            None => Answer::Error(reply["error"].as_str().unwrap_or("?").to_string()),
        });
    }
    writer.join().expect("writer");
    let status = child.wait().expect("peer exit");
    assert!(status.success(), "{} exited with {status}", driver.script);
    answers
        .into_iter()
        .enumerate()
        .map(|(i, a)| a.unwrap_or_else(|| panic!("{} gave no answer for case {i}", driver.name)))
        .collect()
}
