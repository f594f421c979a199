//! Static checks: `sh -n`, `dash -n` and `shellcheck -s sh` on a generated
//! file, its preamble alone and its setup script alone, with no findings.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

use super::{example_plan, split};
use crate::support::{example_hosts, tools};

/// Lints every (label, installerconfig) pair; returns the findings (empty
/// when clean), or None when the tools are missing (and not required).
/// `exclude` lists shellcheck codes not to report. Identical texts are
/// checked once (hostile plans mostly share their preamble).
pub fn lint(files: &[(String, String)], exclude: &[&str]) -> Option<Vec<String>> {
    if !tools(
        &["sh", "dash", "shellcheck"],
        "the static checks of beryl plan",
    ) {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut paths: Vec<(String, PathBuf)> = Vec::new();
    for (label, text) in files {
        let (preamble, setup) = split(text);
        for (part, body) in [
            ("whole", text.as_str()),
            ("preamble", preamble),
            ("setup", setup),
        ] {
            if seen.contains_key(body) {
                continue;
            }
            seen.insert(body, paths.len());
            let path = dir.path().join(format!("{:04}.sh", paths.len()));
            std::fs::write(&path, body).unwrap();
            paths.push((format!("{label} ({part})"), path));
        }
    }
    let findings = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 8));
    let chunk = paths.len().div_ceil(workers).clamp(1, 50);
    std::thread::scope(|scope| {
        for chunk in paths.chunks(chunk) {
            let findings = &findings;
            scope.spawn(move || {
                let found = check(chunk, exclude);
                findings.lock().unwrap().extend(found);
            });
        }
    });
    Some(findings.into_inner().unwrap())
}

fn check(paths: &[(String, PathBuf)], exclude: &[&str]) -> Vec<String> {
    let mut findings = Vec::new();
    for (label, path) in paths {
        for shell in ["sh", "dash"] {
            let out = Command::new(shell).arg("-n").arg(path).output().unwrap();
            if !out.status.success() || !out.stderr.is_empty() {
                findings.push(format!(
                    "{shell} -n {label}: {}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    let mut sc = Command::new("shellcheck");
    sc.args(["-s", "sh", "-f", "gcc"]);
    if !exclude.is_empty() {
        sc.arg(format!("--exclude={}", exclude.join(",")));
    }
    let out = sc.args(paths.iter().map(|(_, p)| p)).output().unwrap();
    let mut report = String::from_utf8_lossy(&out.stdout).into_owned();
    for (label, path) in paths {
        report = report.replace(&path.display().to_string(), label);
    }
    if !out.status.success() || !report.is_empty() || !out.stderr.is_empty() {
        findings.push(format!(
            "shellcheck -s sh: {report}{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    findings
}

#[test]
fn example_plans_pass_sh_dash_and_shellcheck() {
    let files: Vec<(String, String)> = example_hosts()
        .into_iter()
        .map(|fqdn| {
            let text = example_plan(&fqdn, false);
            (fqdn, text)
        })
        .collect();
    let Some(findings) = lint(&files, &[]) else {
        return;
    };
    assert!(findings.is_empty(), "{}", findings.join("\n"));
}

/// The linters do find things: a broken file fails each of them.
#[test]
fn the_static_checks_catch_a_broken_file() {
    let bad = "export A=1\n#!/bin/sh\nset -eu\nif then\n".to_string();
    let unquoted = "export A=1\n#!/bin/sh\nset -eu\nrm $1\n".to_string();
    let Some(f1) = lint(&[("bad".into(), bad)], &[]) else {
        return;
    };
    assert!(
        f1.iter().any(|f| f.starts_with("sh -n bad (setup)")),
        "{f1:?}"
    );
    assert!(
        f1.iter().any(|f| f.starts_with("dash -n bad (whole)")),
        "{f1:?}"
    );
    let f2 = lint(&[("unquoted".into(), unquoted)], &[]).unwrap();
    assert!(
        f2.iter()
            .any(|f| f.contains("unquoted (setup)") && f.contains("SC2086")),
        "{f2:?}"
    );
}
