//! Data-driven cases: each `tests/cases/**/*.case` builds a tree, runs beryl
//! and compares the whole transcript (command, exit code, stdout, stderr) with
//! a reviewed insta snapshot. Declared expectations (`status:`,
//! `stderr-has:`) are asserted as well, so a case states its intent.

use crate::harness::{Case, beryl};

#[test]
fn cases() {
    insta::glob!("../cases", "**/*.case", |path| {
        let case = Case::parse(&std::fs::read_to_string(path).unwrap());
        let dir = case.materialise();
        let run = beryl(dir.path(), &case.args);
        let name = path.display().to_string();
        assert_ne!(run.status, 101, "{name}: beryl panicked:\n{}", run.stderr);
        if let Some(status) = case.status {
            assert_eq!(
                run.status,
                status,
                "{name}: exit code\n{}",
                run.transcript(&case.args)
            );
        }
        for text in &case.stderr_has {
            assert!(
                run.stderr.contains(text.as_str()),
                "{name}: stderr lacks `{text}`:\n{}",
                run.stderr
            );
        }
        if run.status == 2 {
            assert!(
                run.stdout.is_empty(),
                "{name}: an error must not print a result"
            );
        }
        insta::assert_snapshot!(run.transcript(&case.args));
    });
}
