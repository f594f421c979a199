//! beryl: a compiler for FreeBSD fleets.
//!
//! The modules follow the data flow of one compile: inventory discovery, YAML
//! loading with spans, merging by a policy table, SSH key resolution and
//! injection, schema validation, then the outputs.

pub mod apply;
pub mod classes;
pub mod cli;
pub mod compile;
pub mod desired;
pub mod diag;
pub mod exports;
pub mod freebsd;
pub mod fsutil;
pub mod inventory;
pub mod jsonschema;
pub mod keys;
pub mod limits;
pub mod lint;
pub mod merge;
pub mod output;

pub mod plan;
pub mod refs;
pub mod schema;
pub mod select;
pub mod shell;
pub mod syntax;
pub mod validate;
pub mod value;
pub mod yaml;
