//! `beryl init`: the scaffold is refused by `check` until its placeholder key
//! is replaced, passes once it is, and is never written over.

use std::fs;
use std::path::Path;

use crate::support::{args, beryl, files};

const KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFdr4s9lPxsN06slCSu+6S9Y71f/Upa98Poqs2K8Tnui deploy@test";

/// Replaces the placeholder entry of a scaffolded _domain.yml with `key`.
fn replace_placeholder(domain_file: &Path, key: &str) {
    let text = fs::read_to_string(domain_file).unwrap();
    let line = "  - \"REPLACE-ME: paste an ssh public key\"\n";
    assert!(text.contains(line), "{text}");
    fs::write(domain_file, text.replace(line, &format!("  - {key}\n"))).unwrap();
}

#[test]
fn the_scaffold_checks_once_its_key_is_real() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let run = beryl(dir, &args(&["init"]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    let names: Vec<String> = files(dir).into_keys().collect();
    assert_eq!(
        names,
        [
            "inventory/_default.yml",
            "inventory/example.com/_domain.yml",
            "inventory/example.com/web/_group.yml",
            "inventory/example.com/web/web01.yml",
            "ssh/README.md",
        ]
    );
    for f in &names {
        assert!(
            run.stdout.contains(&format!("created ./{f}\n")),
            "{}",
            run.stdout
        );
    }
    assert!(run.stdout.contains("Next steps:"), "{}", run.stdout);
    assert!(run.stdout.contains("beryl check"), "{}", run.stdout);
    // No key of any kind was made.
    assert!(
        files(dir)
            .values()
            .all(|t| !String::from_utf8_lossy(t).contains("PRIVATE KEY")),
        "a private key"
    );
    assert!(!dir.join("ssh").read_dir().unwrap().any(|e| {
        let name = e.unwrap().file_name();
        name.to_string_lossy().ends_with(".pub")
    }));

    // Before: check points at the placeholder.
    let check = beryl(dir, &args(&["check"]));
    assert_eq!(check.status, 2, "{}", check.stdout);
    assert!(
        check.stderr.contains("beryl::keys::placeholder"),
        "{}",
        check.stderr
    );
    assert!(
        check
            .stderr
            .contains("inventory/example.com/_domain.yml:12:5"),
        "{}",
        check.stderr
    );
    assert!(check.stderr.contains("REPLACE-ME"), "{}", check.stderr);

    // After: it passes, and the host renders with the key.
    replace_placeholder(&dir.join("inventory/example.com/_domain.yml"), KEY);
    let check = beryl(dir, &args(&["check"]));
    assert_eq!(check.status, 0, "{}", check.stderr);
    assert_eq!(check.stdout, "checked 1 host: ok\n");
    let render = beryl(dir, &args(&["render", "web01"]));
    assert_eq!(render.status, 0, "{}", render.stderr);
    assert!(
        render.stdout.contains("hostname: web01.example.com"),
        "{}",
        render.stdout
    );
    assert!(render.stdout.contains("deploy@test"), "{}", render.stdout);
    let plan = beryl(dir, &args(&["plan", "web01"]));
    assert_eq!(
        plan.status, 0,
        "the scaffold can be installed: {}",
        plan.stderr
    );

    // A second init refuses and writes nothing.
    let before = files(dir);
    let again = beryl(dir, &args(&["init"]));
    assert_eq!(again.status, 2, "{}", again.stdout);
    assert!(
        again.stderr.contains("refusing to overwrite"),
        "{}",
        again.stderr
    );
    assert!(again.stdout.is_empty());
    assert_eq!(files(dir), before);
}

#[test]
fn the_names_come_from_flags_and_are_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let run = beryl(
        tmp.path(),
        &args(&[
            "init",
            "fleet",
            "--domain",
            "corp.example",
            "--group",
            "db",
            "--host",
            "db01",
        ]),
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let dir = tmp.path().join("fleet");
    assert!(dir.join("inventory/corp.example/db/db01.yml").is_file());
    assert!(run.stdout.contains("cd fleet"), "{}", run.stdout);
    replace_placeholder(&dir.join("inventory/corp.example/_domain.yml"), KEY);
    let check = beryl(&dir, &args(&["check", "db01.corp.example"]));
    assert_eq!(check.status, 0, "{}", check.stderr);

    let bad = beryl(
        tmp.path(),
        &args(&["init", "other", "--domain", "bad_domain", "--host", "a.b"]),
    );
    assert_eq!(bad.status, 2);
    assert!(
        bad.stderr.contains("--domain `bad_domain`"),
        "{}",
        bad.stderr
    );
    assert!(bad.stderr.contains("--host `a.b`"), "{}", bad.stderr);
    assert!(!tmp.path().join("other").exists(), "nothing is written");
}

#[test]
fn any_existing_file_stops_it() {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir(tmp.path().join("ssh")).unwrap();
    fs::write(tmp.path().join("ssh/README.md"), "mine\n").unwrap();
    let run = beryl(tmp.path(), &args(&["init"]));
    assert_eq!(run.status, 2);
    assert!(run.stderr.contains("ssh/README.md"), "{}", run.stderr);
    assert!(!tmp.path().join("inventory").exists(), "nothing is written");
    assert_eq!(
        fs::read_to_string(tmp.path().join("ssh/README.md")).unwrap(),
        "mine\n"
    );
}
