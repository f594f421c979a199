//! beryl's integration tests: one binary that runs the built `beryl` on
//! fixture trees and compares whole outputs.
//!
//! - `support/`: what the tests share (running beryl, the `.case` format,
//!   the example inventory and fixtures, skipping without a tool, scratch
//!   git repositories, the synthetic inventory and its seeded RNG). A helper
//!   that two test modules need goes there, not into either of them.
//! - `adversarial/`: the adversarial corpus of tests/adversarial/ (and the
//!   cases generated at run time), each under a time and a memory bound.
//! - `apply.rs`: `beryl apply` and `beryl facts` offline: dry-run snapshots
//!   against state fixtures, the scripts under shellcheck and dash, and a
//!   round trip through a private sshd.
//! - `fleet_apply/`: `beryl apply` for a fleet of three fake FreeBSD hosts,
//!   each behind its own sshd: gathering, saved plans, stale refusal, an
//!   unreachable host, the JSON outputs against docs/schemas/.
//! - `live.rs`: `beryl apply` on the fake FreeBSD: every example host and
//!   fixtures installed from their plan, drifted, applied twice through
//!   `sudo -n sh -s`, with facts and the dry run agreeing before and after.
//! - `annotate.rs`: `render --annotate` on every host of the example inventory.
//! - `architecture.rs`: the module layers of docs/architecture.md hold in
//!   the code (no cycle, no import of a later stage).
//! - `cases.rs`: every `tests/cases/**/*.case` file (a fixture tree, overlay
//!   files and a command line) run and compared with its insta snapshot.
//! - `keys.rs`: fingerprints checked against `ssh-keygen -lf`.
//! - `lookup.rs`: `beryl lookup` on tests/fixtures/lookup/: Hiera's choice
//!   of merge step by step, knockouts, defaults, `lookup_options`, empty levels.
//! - `example.rs`: the bundled example inventory renders and checks.
//! - `diff.rs`: `beryl diff git:HEAD` on the example inventory and on a
//!   generated 2,000-host fleet: changes by identity, their causes, paths
//!   that `explain` reads, the bounded markdown comment.
//! - `graph.rs`: `beryl graph`, drawn by `dot -Tsvg`, and each host's chain.
//! - `init.rs`: `beryl init`, then `check` before and after the placeholder key.
//! - `schema.rs`: `beryl schema` against the example inventory, with the
//!   jsonschema crate.
//! - `shell.rs`: `completions` (run in bash) and `man`.
//! - `fuzz.rs`: the fuzz targets' bodies (fuzz/src/) on their seeds, the
//!   crash regressions of tests/fuzz-regressions/ and generated inputs.
//! - `geninv.rs`: the synthetic inventory of the benchmark checks and renders.
//! - `ci.rs`: the GitHub workflow and GitLab job of docs/ci.md, run as
//!   written on a scratch repository, and the pre-commit hook.
//! - `diffgit.rs`: `diff git:REV` on scratch git repositories: the first
//!   pull request, a side that does not compile, shallow clones, links.
//! - `differential/`: merge strategies against the real peer programs.
//! - `docs/`: every ```console example of README.md and docs/ runs, and
//!   prints what the docs show; excerpts, trees and line citations of the
//!   repository's files match them (docs/docs.md).
//! - `faults.rs`: `render --out` interrupted at every step, a full disk and a
//!   read-only DIR (real ones where the sandbox can mount a tmpfs).
//! - `paths.rs`: one spelling of a place in the config tree: the path a
//!   `check` error names is the one `explain` prints, `lookup` reads and
//!   `diff` names (issue 31).
//! - `props.rs`: rendering is deterministic across runs and thread counts,
//!   and every effective config reads back as compiled (issue 8).
//! - `fakebsd/`, `install.rs`: the fake FreeBSD installer and installed system
//!   (tests/fakebsd/README.md): self-tests of the models of FreeBSD's tools,
//!   every example host's plan installed, the re-install over an old pool.
//! - `jail_models.rs`: self-tests of the fake FreeBSD's jail tools (`jls`,
//!   `jexec`, `jail`) over the fake kernel's jails (issue 36).
//! - `plan.rs`, `plan/`: the proof of `beryl plan`: golden files, shell
//!   linters, hostile values (lexed statically, then installed on the fake
//!   FreeBSD). The setup script writes real absolute paths: it only ever
//!   runs in the fake FreeBSD's chroot.
//! - `pools.rs`: ZFS pools from the install to the first boot on the fake
//!   FreeBSD: the hostid the data pools were created under, boot-pool
//!   datasets under the installer's altroot, the cache file, the unmount in
//!   the chroot (issue 34).
//! - `validate.rs`: one validation: every host `check` accepts plans and
//!   applies, and `render` refuses what `check` refuses (issue 16).
//! - `yaml.rs`: what beryl reads from YAML files where YAML readers disagree
//!   (a block scalar ending the file without a line break, issue 19).
//!
//! Where tests go. A module's unit tests are one `#[cfg(test)] mod tests` in
//! that module, never a sibling module of another name. While they are short
//! they sit inline at the end of the file (`mod tests { use super::*; … }`).
//! When they outgrow it they move to `tests.rs` beside the code: `foo/tests.rs`
//! for `foo/mod.rs` and for `foo.rs` alike. When that file grows too, it becomes
//! a directory `tests/`: `tests/mod.rs` holds the shared helpers and general
//! cases, and one file per concern holds the rest (`keys/tests/parse.rs`,
//! `merge/tests/props/`, `merge/tests/regressions.rs`); property tests,
//! regressions and fixtures are such concerns. What runs the built binary goes
//! here, in tests/integration/, and what two integration test modules share
//! goes into `support/`; code shared with examples/ and benches/ lives in
//! examples/support/.

mod adopt;
mod adversarial;
mod annotate;
mod ansible;
mod apply;
mod architecture;
mod attack;
mod cases;
mod ci;
mod diff;
mod differential;
mod diffgit;
mod diffinc;
mod docs;
mod example;
mod fakebsd;
mod faults;
mod fleet;
mod fleet_apply;
mod fuzz;
mod geninv;
mod graph;
mod incremental;
mod init;
mod install;
mod install_items;
mod jail_apply;
mod jail_fleet;
mod jail_models;
mod jails;
mod jails_live;
mod keys;
mod live;
mod lookup;
mod lsp;
mod lsp_nvim;
mod outputs;
mod paths;
mod plan;
mod pools;
mod props;
mod reclass;
mod reclass_dropin;
mod resources;
mod schema;
mod secrets;
mod secrets_apply;
mod secrets_canary;
mod secrets_churn;
mod secrets_recipients;
mod shell;
mod sshd_config;
mod support;
mod templates;
mod validate;
mod yaml;
