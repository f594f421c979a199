//! beryl's integration tests: one binary that runs the built `beryl` on
//! fixture trees and compares whole outputs.
//!
//! - `annotate.rs`: `render --annotate` on every host of the example inventory.
//! - `cases.rs`: every `tests/cases/**/*.case` file (a fixture tree, overlay
//!   files and a command line) run and compared with its insta snapshot.
//! - `keys.rs`: fingerprints checked against `ssh-keygen -lf`.
//! - `example.rs`: the bundled example inventory renders and checks.
//! - `graph.rs`: `beryl graph`, drawn by `dot -Tsvg`, and each host's chain.
//! - `init.rs`: `beryl init`, then `check` before and after the placeholder key.
//! - `schema.rs`: `beryl schema` against the example inventory, with the
//!   jsonschema crate.
//! - `shell.rs`: `completions` (run in bash) and `man`.
//! - `differential/`: merge strategies against the real peer programs.

mod annotate;
mod cases;
mod differential;
mod example;
mod graph;
mod harness;
mod init;
mod keys;
mod schema;
mod shell;
