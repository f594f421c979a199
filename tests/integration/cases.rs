//! Data-driven cases: each `tests/cases/**/*.case` builds a tree, runs beryl
//! and compares the whole transcript (command, exit code, stdout, stderr) with
//! a reviewed insta snapshot. Declared expectations (`status:`,
//! `stderr-has:`) are asserted as well, so a case states its intent.

use crate::support::{Case, beryl_with_env, repo};

#[test]
fn cases() {
    let mut failures: Vec<String> = Vec::new();
    insta::glob!("../cases", "**/*.case", |path| {
        let case = Case::parse(&std::fs::read_to_string(path).unwrap());
        let dir = case.materialise();
        let run = beryl_with_env(dir.path(), &case.args, &case.env, case.stdin.as_deref());
        let name = path
            .strip_prefix(repo())
            .unwrap_or(path)
            .display()
            .to_string();
        let transcript = run.transcript(&case.args);
        if run.status == 101 {
            failures.push(format!("{name}: beryl panicked\n{transcript}"));
        }
        if case.status.is_some_and(|s| s != run.status) {
            failures.push(format!(
                "{name}: expected exit {:?}\n{transcript}",
                case.status
            ));
        }
        for text in &case.stderr_has {
            if !run.stderr.contains(text.as_str()) {
                failures.push(format!("{name}: stderr lacks `{text}`\n{transcript}"));
            }
        }
        for text in &case.stderr_lacks {
            if run.stderr.contains(text.as_str()) {
                failures.push(format!("{name}: stderr has `{text}`\n{transcript}"));
            }
        }
        for text in &case.stdout_has {
            if !run.stdout.contains(text.as_str()) {
                failures.push(format!("{name}: stdout lacks `{text}`\n{transcript}"));
            }
        }
        for text in &case.stdout_lacks {
            if run.stdout.contains(text.as_str()) {
                failures.push(format!("{name}: stdout has `{text}`\n{transcript}"));
            }
        }
        if run.status == 2 && !run.stdout.is_empty() && !writes_its_report(&case.args) {
            failures.push(format!(
                "{name}: an error must not print a result\n{transcript}"
            ));
        }
        insta::assert_snapshot!(transcript);
    });
    assert!(
        failures.is_empty(),
        "{} failing cases:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// `check` writes its report on stdout, errors included (the summary line
/// in text, the whole report in json and github): that is its result, not
/// a partial one.
fn writes_its_report(args: &[String]) -> bool {
    args.first().is_some_and(|a| a == "check")
}
