//! What the integration tests share, in one place. A test module imports
//! from here (`use crate::support::{args, beryl, repo};`) rather than
//! writing its own copy.
//!
//! - `run.rs`: the built beryl ([`beryl`], [`beryl_with_env`],
//!   [`beryl_command`], [`args`], [`Run`]) and other programs fed a standard
//!   input ([`with_stdin`]).
//! - `case.rs`: the `.case` file format of tests/cases/ ([`Case`]).
//! - `files.rs`: trees on disk: [`repo`], [`copy_tree`], [`write`],
//!   [`edit`], [`mkfifo`], and listings ([`files`], [`entries`]).
//! - `fixture.rs`: the example inventory ([`example`], [`example_hosts`],
//!   [`hosts`]), the trees of tests/fixtures/ ([`fixture`]), and the digest
//!   that binds a snapshot to a facts script ([`facts_digest`],
//!   [`script_digest`]).
//! - `skip.rs`: a missing tool, privilege or `../shared` skips a test with a
//!   notice, or fails it under BERYL_REQUIRE_TOOLS ([`skip`], [`tool`],
//!   [`tools`], `which`, [`shared`], [`is_root`]).
//! - [`git`]: scratch git repositories.
//! - [`inventory_gen`] and [`rng`]: the synthetic inventory of
//!   examples/geninv.rs and benches/fleet.rs, and the seeded SplitMix64 it
//!   draws from. Both live in examples/support/ so that the examples, the
//!   benchmark and these tests compile the same files.

mod case;
mod files;
mod fixture;
pub mod git;
mod run;
mod skip;

#[path = "../../../examples/support/inventory_gen.rs"]
pub mod inventory_gen;
#[path = "../../../examples/support/reclass_gen.rs"]
pub mod reclass_gen;
mod secrets;

pub use case::Case;
pub use files::{copy_tree, edit, entries, files, mkfifo, repo, write};
pub use fixture::{
    EXAMPLE_HOSTS, example, example_hosts, example_jails, facts_digest, fixture, fixtures, hosts,
    script_digest,
};
pub use inventory_gen::rng;
pub use run::{Run, args, beryl, beryl_command, beryl_with_env, with_stdin};
pub use secrets::{age_key, key_pair, leak_forms, operator_key};
pub use skip::{is_root, required, shared, skip, skip_peer, tool, tools, which};
