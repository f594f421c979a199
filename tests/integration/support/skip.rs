//! What a test needs from the machine. A test whose tool, privilege or
//! reference data is missing skips with a notice on stderr, unless
//! BERYL_REQUIRE_TOOLS is set (as in .ci/run): then it fails.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use super::repo;

/// Whether BERYL_REQUIRE_TOOLS is set: a missing tool fails the test.
pub fn required() -> bool {
    std::env::var_os("BERYL_REQUIRE_TOOLS").is_some()
}

/// Skips `what` (a test, or a part of one) because of `why`: a notice, or a
/// failure under BERYL_REQUIRE_TOOLS. The caller then returns.
pub fn skip(what: &str, why: &str) {
    assert!(!required(), "{what}: BERYL_REQUIRE_TOOLS is set but {why}");
    eprintln!("notice: {what} skipped: {why} (set BERYL_REQUIRE_TOOLS to make this fail)");
}

/// Skips `what` because a peer program or the real inventories are
/// missing: a notice, or a failure under BERYL_REQUIRE_PEERS (the
/// differential tests). The caller then returns.
pub fn skip_peer(what: &str, why: &str) {
    assert!(
        std::env::var_os("BERYL_REQUIRE_PEERS").is_none(),
        "{what}: BERYL_REQUIRE_PEERS is set but {why}"
    );
    eprintln!("notice: {what} skipped: {why}");
}

/// Whether the tests run as root (the fake FreeBSD's chroot, a private
/// sshd, permission cases run as another user).
pub fn is_root() -> bool {
    // SAFETY: geteuid(2) has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Whether `program version_arg` runs and succeeds; when it does not, the
/// test that runs it skips (see [`skip`]).
pub fn tool(program: &str, version_arg: &str) -> bool {
    let found = Command::new(program)
        .arg(version_arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        skip(
            &format!("the test that runs `{program}`"),
            &format!("`{program}` is not installed"),
        );
    }
    found
}

/// Whether all of `names` are on PATH; when one is not, `what` skips (see
/// [`skip`]).
pub fn tools(names: &[&str], what: &str) -> bool {
    let missing: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| which(n).is_none())
        .collect();
    if !missing.is_empty() {
        skip(what, &format!("{} not found", missing.join(", ")));
    }
    missing.is_empty()
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

/// `../shared` next to the package root (the FreeBSD reference data of the
/// fake FreeBSD), or `None` after [`skip`].
pub fn shared(test: &str) -> Option<PathBuf> {
    let dir = repo().join("../shared");
    if dir.join("freebsd/etc/master.passwd").is_file() {
        return Some(dir);
    }
    skip(test, "../shared (FreeBSD reference data) is absent");
    None
}
