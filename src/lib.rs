//! beryl: a compiler for FreeBSD fleets.
//!
//! The modules follow the data flow of one compile: inventory discovery, YAML
//! loading with spans, merging by a policy table, SSH key resolution and
//! injection, schema validation, then the outputs. docs/architecture.md draws
//! the layers and names each module's entry point.
//!
//! The crate is a program first: its items are `pub(crate)` unless something
//! outside it needs them. The public surface is what the binary (`cli::run`),
//! the benchmark (benches/), the fuzz targets (fuzz/) and the integration
//! tests (tests/integration/) call: loading YAML into spanned values
//! (`yaml`, `value`), merging documents and resolving references (`merge`,
//! `refs`), the SSH key store (`keys`), compiling hosts of an inventory
//! (`inventory`, `compile`), the desired state and the plan and apply scripts
//! built from it (`desired`, `plan`, `apply`, `shell`), the output formats
//! (`output`), the JSON Schema of level files (`jsonschema`), limits and
//! diagnostics (`limits`, `diag`). `unreachable_pub` keeps everything else
//! crate-private, so the compiler reports what nothing uses.

#![warn(unreachable_pub)]

/// The unit tests bound templates' heap as the binary does (src/main.rs).
#[cfg(test)]
#[global_allocator]
static TEST_ALLOCATOR: limits::heap::Budgeted<std::alloc::System> =
    limits::heap::Budgeted(std::alloc::System);

pub mod apply;
mod check;
mod classes;
pub mod cli;
pub mod compile;
pub mod desired;
pub mod diag;
mod exports;
mod freebsd;
mod fsutil;
pub mod install;
pub mod inventory;
pub mod jsonschema;
pub mod keys;
pub mod limits;
mod lint;
mod lsp;
pub mod merge;
mod outdir;
pub mod output;
pub mod refs;
pub mod resource;
mod schema;
mod secrets;
mod select;
pub mod shell;
mod syntax;
mod textdiff;
mod validate;
pub mod value;
pub mod yaml;
