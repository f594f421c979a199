//! The adversarial corpus (issue 8): inputs broken on purpose, each run
//! through the built binary. tests/adversarial/README.md describes the case
//! format; the committed cases are `tests/adversarial/**/*.case`, and the
//! cases that cannot be committed (binary bytes, a 100 MB file, symlink
//! loops made at run time, unreadable files, generated keys) are built by
//! `generated.rs`.
//!
//! Every case must: exit with code 2 (a few documented cases are accepted
//! input, exit 0); name the responsible file and, where one exists, the line
//! in its diagnostics; not panic; print no result and leave every file of its
//! tree as it was (the default command is `render --all --out out`, so "no
//! output written" means `out/` never appears); use at most 10 s of CPU
//! (and finish within 60 s of wall time, else it is killed: run.rs says why
//! the bound is on CPU time); and stay within 1 GiB of address space.

mod generated;
mod run;

use std::time::Duration;

use crate::support::{Case, repo};
use run::Prepared;

/// The committed cases, materialised.
fn committed() -> Vec<Prepared> {
    let root = repo().join("tests/adversarial");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let case = Case::parse(&std::fs::read_to_string(&path).unwrap());
            let name = path.strip_prefix(&root).unwrap().display().to_string();
            let args: Vec<&str> = case.args.iter().map(String::as_str).collect();
            let mut p = Prepared::new(&name, case.materialise(), &args);
            p.env = case.env.clone();
            p.status = case.status.unwrap_or(2);
            p.stderr_has = case.stderr_has.clone();
            p.stderr_lacks = case.stderr_lacks.clone();
            p
        })
        .collect()
}

fn collect(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "case") {
            out.push(p);
        }
    }
}

#[test]
fn corpus() {
    let committed = committed();
    let generated = generated::all();
    let (n_committed, n_generated) = (committed.len(), generated.len());
    let cases: Vec<Prepared> = committed.into_iter().chain(generated).collect();
    let names: std::collections::HashSet<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.len(), cases.len(), "case names are unique");

    // Two at a time: the machine is shared, and the bound is per case.
    let queue = std::sync::Mutex::new(cases.iter());
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let Some(case) = queue.lock().unwrap().next() else {
                        break;
                    };
                    let (outcome, wrong) = run::check(case);
                    results.lock().unwrap().push((case, outcome, wrong));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|r| std::cmp::Reverse(r.1.elapsed));

    let total: Duration = results.iter().map(|r| r.1.elapsed).sum();
    let cpu: Duration = results.iter().map(|r| r.1.cpu).sum();
    let peak = results.iter().map(|r| r.1.max_rss_kib).max().unwrap_or(0);
    eprintln!(
        "adversarial corpus: {} cases ({n_committed} committed, {n_generated} generated), \
         {:.1} s of beryl in all ({:.1} s of CPU), peak RSS {} MiB; slowest:",
        results.len(),
        total.as_secs_f64(),
        cpu.as_secs_f64(),
        peak / 1024
    );
    for (case, o, _) in results.iter().take(8) {
        eprintln!(
            "  {:>6} ms ({:>5} ms CPU)  {:>5} MiB  {}",
            o.elapsed.as_millis(),
            o.cpu.as_millis(),
            o.max_rss_kib / 1024,
            case.name
        );
    }
    let failures: Vec<String> = results
        .iter()
        .filter(|r| !r.2.is_empty())
        .map(|(case, o, wrong)| {
            format!(
                "{}: {}\n$ beryl {}\nexit {:?} signal {:?} in {} ms ({} ms CPU)\n--- stderr\n{}",
                case.name,
                wrong.join("; "),
                case.args.join(" "),
                o.code,
                o.signal,
                o.elapsed.as_millis(),
                o.cpu.as_millis(),
                run::clip(&o.stderr)
            )
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} adversarial cases failed:\n\n{}",
        failures.len(),
        results.len(),
        failures.join("\n\n")
    );
    assert!(
        results.len() >= 65,
        "the corpus has {} cases",
        results.len()
    );
}
