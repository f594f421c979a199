//! The bodies of beryl's fuzz targets (docs/fuzzing.md), one module each:
//! `run(data)` is what libFuzzer calls. They are plain functions so that the
//! main crate's `cargo test` replays the seeds and the regressions through
//! them on stable (tests/integration/fuzz.rs includes this file).
//!
//! Beyond "no panic", each target checks what it can cheaply: diagnostics
//! render, parsed or merged trees write back and read back the same, keys
//! re-parse to themselves, and generated shell keeps every value inside its
//! quotes.

pub mod common;
pub mod keys;
pub mod merge;
pub mod plan;
pub mod refs;
pub mod sh;
pub mod value;
pub mod yaml;
