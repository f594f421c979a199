//! The proof of `beryl plan` (docs/install.md):
//!
//! - `golden`: every example host's plan, sh and JSON, byte for byte against
//!   tests/golden/plan/ (`BERYL_UPDATE_GOLDEN=1` rewrites them).
//! - `lint`: every generated file, its preamble and its setup script pass
//!   `sh -n`, `dash -n` and `shellcheck -s sh`.
//! - `hostile`: hostile strings in every string field are refused with a
//!   located error or stay exactly one word of their command (the plan lexed
//!   by fuzz/src/sh.rs, never run), then one real install per group of
//!   fields on the fake FreeBSD lands them verbatim.
//!
//! The setup script writes real absolute paths: it only ever runs in the
//! fake FreeBSD's chroot (tests/integration/install.rs), never on this host.
//! The shell tools (sh, dash, shellcheck) are skipped with a notice when
//! missing, unless BERYL_REQUIRE_TOOLS is set (as in `.ci/run`), where a
//! missing tool fails.

mod golden;
mod hostile;
mod lint;

use crate::support::{args, beryl, repo};

/// `beryl plan HOST [--format json]` on the example inventory.
pub fn example_plan(fqdn: &str, json: bool) -> String {
    let mut a = args(&["plan", fqdn]);
    if json {
        a.extend(args(&["--format", "json"]));
    }
    let run = beryl(&repo(), &a);
    assert_eq!(run.status, 0, "beryl {}: {}", a.join(" "), run.stderr);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    run.stdout
}

/// The installerconfig split as bsdinstall splits it: the preamble, then from
/// the first line starting with `#!`, the setup script.
pub fn split(text: &str) -> (&str, &str) {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with("#!") {
            return text.split_at(at);
        }
        at += line.len();
    }
    panic!("no line starting with #!:\n{text}");
}
