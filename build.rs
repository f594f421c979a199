//! Sets BERYL_VERSION for `beryl --version`: the package version, plus the
//! short commit when the build runs in a git checkout (`0.1.0 (1a2b3c4)`).
//! Without git, or outside beryl's own checkout (a crate from a registry, a
//! vendored copy), it is the package version alone.

use std::path::PathBuf;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let version = env!("CARGO_PKG_VERSION");
    // Only beryl's own checkout counts: a copy of the crate inside another
    // repository (vendored, or `cargo package`'s) must not take its commit.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").map(PathBuf::from).ok();
    let own = git(&["rev-parse", "--show-toplevel"])
        .map(PathBuf::from)
        .zip(manifest)
        .is_some_and(|(top, dir)| top.canonicalize().ok() == dir.canonicalize().ok());
    let commit = own
        .then(|| git(&["rev-parse", "--short", "HEAD"]))
        .flatten();
    // Rebuild when HEAD moves: HEAD itself, the branch it points to, and
    // packed-refs (only paths that exist: a missing one would rerun always).
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(branch);
    }
    for name in watched {
        if let Some(path) = git(&["rev-parse", "--git-path", &name]).map(PathBuf::from)
            && path.exists()
        {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    let full = match commit {
        Some(c) => format!("{version} ({c})"),
        None => version.to_string(),
    };
    println!("cargo:rustc-env=BERYL_VERSION={full}");
}
