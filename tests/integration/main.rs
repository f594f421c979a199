//! beryl's integration tests: one binary that runs the built `beryl` on
//! fixture trees and compares whole outputs.
//!
//! - `annotate.rs`: `render --annotate` on every host of the example inventory.
//! - `cases.rs`: every `tests/cases/**/*.case` file (a fixture tree, overlay
//!   files and a command line) run and compared with its insta snapshot.
//! - `keys.rs`: fingerprints checked against `ssh-keygen -lf`.
//! - `example.rs`: the bundled example inventory renders and checks.
//! - `geninv.rs`: the synthetic inventory of the benchmark checks and renders.
//! - `differential/`: merge strategies against the real peer programs.

mod annotate;
mod cases;
mod differential;
mod example;
mod geninv;
mod harness;
mod keys;
