//! beryl's integration tests: one binary that runs the built `beryl` on
//! fixture trees and compares whole outputs.
//!
//! - `annotate.rs`: `render --annotate` on every host of the example inventory.
//! - `cases.rs`: every `tests/cases/**/*.case` file (a fixture tree, overlay
//!   files and a command line) run and compared with its insta snapshot.
//! - `keys.rs`: fingerprints checked against `ssh-keygen -lf`.
//! - `example.rs`: the bundled example inventory renders and checks.
//! - `differential/`: merge strategies against the real peer programs.
//! - `plan.rs`, `plan/`: the proof of `beryl plan`: golden files, shell
//!   linters, execution under stub commands, hostile values.

mod annotate;
mod cases;
mod differential;
mod example;
mod harness;
mod keys;
mod plan;
