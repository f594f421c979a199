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

use std::path::PathBuf;

use crate::harness::{beryl, repo};

pub fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// The FQDNs of the example inventory, as `beryl hosts` lists them.
pub fn example_hosts() -> Vec<String> {
    let run = beryl(&repo(), &args(&["hosts", "--format", "json"]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    let hosts: Vec<serde_json::Value> = serde_json::from_str(&run.stdout).unwrap();
    let fqdns: Vec<String> = hosts
        .iter()
        .map(|h| h["fqdn"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(fqdns.len(), 8, "the example inventory has 8 hosts");
    fqdns
}

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

/// Whether the tools are on PATH. A missing one fails when
/// BERYL_REQUIRE_TOOLS is set; otherwise it prints a notice and the caller
/// skips the checks that need it.
pub fn tools(names: &[&str], what: &str) -> bool {
    let missing: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| which(n).is_none())
        .collect();
    if missing.is_empty() {
        return true;
    }
    assert!(
        std::env::var_os("BERYL_REQUIRE_TOOLS").is_none(),
        "BERYL_REQUIRE_TOOLS is set but {} missing for {what}",
        missing.join(", ")
    );
    eprintln!(
        "notice: {what} skipped: {} not found (install it, or set BERYL_REQUIRE_TOOLS to make this fail)",
        missing.join(", ")
    );
    false
}

/// The first executable `name` on PATH.
pub fn which(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| {
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}
