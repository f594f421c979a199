//! The fuzz targets on stable (docs/fuzzing.md): every seed of
//! fuzz/seeds/TARGET/ and every crash input of tests/fuzz-regressions/TARGET/
//! is run through the target's body, the very function libFuzzer calls. A
//! panic fails the test, so the bodies cannot rot and a fixed crash stays
//! fixed. Then a short run of generated inputs per target (seeded, so the
//! same every time) exercises the bodies beyond the seeds. The sh lexer of
//! the plan target (`bodies::sh`) also serves plan/hostile.rs.

#[path = "../../fuzz/src/lib.rs"]
#[allow(dead_code)]
pub mod bodies;

use std::path::Path;

use crate::support::repo;
use crate::support::rng::SplitMix64;

/// What libFuzzer calls.
type Body = fn(&[u8]);

/// Each target's name and body.
const TARGETS: &[(&str, Body)] = &[
    ("yaml", bodies::yaml::run),
    ("merge", bodies::merge::run),
    ("refs", bodies::refs::run),
    ("keys", bodies::keys::run),
    ("plan", bodies::plan::run),
];

/// Generated inputs per target, after the files.
const GENERATED: usize = 300;

fn inputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, Vec<u8>)> = entries
        .map(|e| e.expect("read a directory entry").path())
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != "README.md"))
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read(&p).expect("read an input"),
            )
        })
        .collect();
    out.sort();
    out
}

/// Runs one input, naming it if the body panics.
fn replay(target: &str, name: &str, body: Body, data: &[u8]) {
    if std::panic::catch_unwind(|| body(data)).is_err() {
        panic!("fuzz target `{target}` panicked on {name}");
    }
}

#[test]
fn the_seeds_and_the_regressions_run_clean() {
    for (target, body) in TARGETS {
        let seeds = inputs(&repo().join("fuzz/seeds").join(target));
        assert!(!seeds.is_empty(), "fuzz/seeds/{target}/ has no seed");
        let regressions = inputs(&repo().join("tests/fuzz-regressions").join(target));
        for (name, data) in seeds.iter().chain(&regressions) {
            replay(target, name, *body, data);
        }
    }
}

#[test]
fn generated_inputs_run_clean() {
    for (index, (target, body)) in TARGETS.iter().enumerate() {
        for case in 0..GENERATED {
            let seed = (index as u64) << 32 | case as u64;
            let data = SplitMix64::new(seed).bytes(16 + case % 512);
            replay(target, &format!("generated input {seed:#x}"), *body, &data);
        }
    }
}
