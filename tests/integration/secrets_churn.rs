//! One edited secret is one changed line (issue 37): a level file with
//! three secrets is committed, one of them is set again with `beryl
//! secrets set`, and `git diff --numstat` counts 3 lines changed, 3 removed:
//! the value's `ENC[…]` line, then the MAC and its date, which the MAC is
//! bound to. `git diff` names exactly those three keys. Setting a new value
//! adds its `# sops:enc` line and its value, and changes the same two.
//! `beryl secrets edit`, the value changed in the editor (a script here),
//! counts the same 3 and 3; a plain value edited there, 1 and 1: every
//! ciphertext, the MAC and its date are kept.
//!
//! Needs git and age-keygen; skips with a notice without them, unless
//! BERYL_REQUIRE_TOOLS is set.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::support::{age_key, args, beryl_with_env, tools};

fn git(dir: &Path, a: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.org"])
        .args(a)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {a:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Waits for the next second of the clock: `lastmodified` is to the
/// second, and the test counts its line among the changed ones.
fn next_second() {
    let second =
        |t: std::time::SystemTime| t.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let start = second(std::time::SystemTime::now());
    while second(std::time::SystemTime::now()) == start {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Sets a value at the next second of the clock.
fn set(dir: &Path, place: &str, value: &str, extra: &[&str]) {
    next_second();
    let mut a = vec!["secrets", "set", "db01.yml", place];
    a.extend(extra);
    let r = beryl_with_env(dir, &args(&a), &[], Some(value));
    assert_eq!(r.status, 0, "{}", r.stderr);
}

/// The keys of the lines a diff removes and adds.
fn changed_keys(diff: &str) -> Vec<String> {
    diff.lines()
        .filter(|l| {
            (l.starts_with('-') || l.starts_with('+'))
                && !l.starts_with("---")
                && !l.starts_with("+++")
        })
        .map(|l| l[1..].trim_start().split(':').next().unwrap().to_string())
        .collect()
}

#[test]
fn one_edited_secret_changes_its_line_and_the_mac() {
    let test = "one_edited_secret_changes_its_line_and_the_mac";
    if !tools(&["git", "age-keygen"], test) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let (key, public) = age_key(d, "age.txt");
    let id = key.to_str().unwrap();
    fs::write(
        d.join("db01.yml"),
        "freebsd:\n  hostname: db01\napp:\n  db:\n    user: app\n",
    )
    .unwrap();
    set(
        d,
        "app.db.password",
        "first",
        &["--recipient", public.as_str()],
    );
    set(d, "app.db.token", "t0k", &["--identity", id]);
    set(d, "app.api.key", "k3y", &["--identity", id]);
    git(d, &["init", "-q"]);
    git(d, &["add", "db01.yml"]);
    git(d, &["commit", "-q", "-m", "three secrets"]);

    set(d, "app.db.token", "t0k-rotated", &["--identity", id]);
    assert_eq!(git(d, &["diff", "--numstat"]).trim(), "3\t3\tdb01.yml");
    let diff = git(d, &["diff", "-U0"]);
    assert_eq!(
        changed_keys(&diff),
        [
            "token",
            "token",
            "lastmodified",
            "mac",
            "lastmodified",
            "mac"
        ],
        "{diff}"
    );
    git(d, &["commit", "-q", "-am", "token rotated"]);

    // A new value: its mark and its line, then the MAC and its date.
    set(
        d,
        "app.db.port",
        "5432",
        &["--type", "int", "--identity", id],
    );
    assert_eq!(git(d, &["diff", "--numstat"]).trim(), "4\t2\tdb01.yml");
    git(d, &["commit", "-q", "-am", "port"]);

    // In an editor: the `sed` script edits the decrypted view.
    let edit = |script: &str| {
        next_second();
        let editor = d.join("editor.sh");
        fs::write(&editor, format!("#!/bin/sh\nsed -i '{script}' \"$1\"\n")).unwrap();
        fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let r = beryl_with_env(
            d,
            &args(&["secrets", "edit", "db01.yml", "--identity", id]),
            &[
                ("EDITOR".into(), editor.display().to_string()),
                ("VISUAL".into(), String::new()),
            ],
            None,
        );
        assert_eq!(r.status, 0, "{}", r.stderr);
        r.stdout
    };
    assert_eq!(edit("s/\"k3y\"/\"k3y-rotated\"/"), "db01.yml: written\n");
    assert_eq!(git(d, &["diff", "--numstat"]).trim(), "3\t3\tdb01.yml");
    let diff = git(d, &["diff", "-U0"]);
    assert_eq!(
        changed_keys(&diff),
        ["key", "key", "lastmodified", "mac", "lastmodified", "mac"],
        "{diff}"
    );
    git(d, &["commit", "-q", "-am", "key rotated in an editor"]);
    edit("s/user: app/user: app2/");
    assert_eq!(git(d, &["diff", "--numstat"]).trim(), "1\t1\tdb01.yml");
    git(d, &["commit", "-q", "-am", "a plain value"]);
    assert_eq!(edit("s/nothing//"), "db01.yml: no change\n");
    assert_eq!(git(d, &["diff", "--numstat"]).trim(), "");
}
