//! What beryl writes is private (issue 32): render trees, installerconfigs
//! and saved plans are created mode 0600 in directories of mode 0700 that
//! beryl creates, whatever the umask, and a link planted at the name of a
//! temporary file is removed, never followed.

use std::fs;
use std::os::unix::fs::{MetadataExt as _, symlink};
use std::os::unix::process::CommandExt as _;
use std::path::Path;

use crate::support::{args, beryl_command, repo};

/// Runs beryl in the repository under umask 000, which would leave what it
/// creates writable by all.
fn beryl_umask_0(a: &[&str]) {
    let mut cmd = beryl_command(&repo(), &args(a));
    // SAFETY: umask(2) is async-signal-safe and touches no memory.
    unsafe {
        cmd.pre_exec(|| {
            libc::umask(0);
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{a:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn mode(path: &Path) -> u32 {
    fs::symlink_metadata(path).unwrap().mode() & 0o7777
}

/// Every file under `dir` is 0600, every directory 0700.
fn private(dir: &Path) -> usize {
    assert_eq!(mode(dir), 0o700, "{}", dir.display());
    let mut n = 0;
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            n += private(&p);
        } else {
            assert_eq!(mode(&p), 0o600, "{}", p.display());
            n += 1;
        }
    }
    n
}

#[test]
fn outputs_are_private_whatever_the_umask() {
    let d = tempfile::tempdir().unwrap();
    let (r, p) = (d.path().join("render"), d.path().join("plans"));
    beryl_umask_0(&["render", "--all", "--out", r.to_str().unwrap()]);
    beryl_umask_0(&["plan", "--all", "--out", p.to_str().unwrap()]);
    assert!(private(&r) >= 9, "render wrote too few files");
    assert!(private(&p) >= 8, "plan wrote too few files");
    // A full render over the last one rewrites every file, privately.
    beryl_umask_0(&["render", "--all", "--out", r.to_str().unwrap(), "--full"]);
    private(&r);
    // A saved plan, with a link planted at its temporary name: the link
    // goes, its target stays as it was.
    let target = d.path().join("target");
    fs::write(&target, "untouched\n").unwrap();
    let plan = d.path().join("plan.json");
    symlink(&target, d.path().join(".plan.json.beryl-tmp")).unwrap();
    beryl_umask_0(&[
        "apply",
        "host01",
        "--dry-run",
        "--state",
        "tests/fixtures/apply/host01.json",
        "--out",
        plan.to_str().unwrap(),
    ]);
    assert_eq!(mode(&plan), 0o600);
    assert_eq!(fs::read_to_string(&target).unwrap(), "untouched\n");
    assert!(!d.path().join(".plan.json.beryl-tmp").exists());
}
