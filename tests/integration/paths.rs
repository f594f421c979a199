//! One spelling of a place in the config tree (issue 31): the path a `check`
//! error names is the path `explain` prints and `lookup` reads, and the one
//! `diff` names when the value there changes: a list item by its key
//! (`freebsd.users.admin.shell`), a key that holds `/`
//! (`freebsd.files."/etc/motd".mode`), an item by its position
//! (`freebsd.users.admin.groups.1`, which explain names by its value).

use std::path::Path;

use crate::support::{args, beryl, copy_tree, repo, write};

/// host01's file on each side: valid, refused by `check` at the same
/// places, and valid with those values changed.
const GOOD: &str = "freebsd:
  hostname: host01.example.org
  users:
    - name: admin
      shell: /bin/sh
      groups: [wheel, operator]
  files:
    /etc/motd:
      content: \"hello\\n\"
      mode: \"0644\"
";

fn side(root: &Path, name: &str, host01: &str) {
    copy_tree(
        &repo().join("tests/fixtures/base/inventory"),
        &root.join(name),
    );
    write(&root.join(name).join("example.org/web/host01.yml"), host01);
}

/// Every `freebsd.…` path in a message, read as beryl writes one: bare
/// segments of letters, digits, `_` and `-`, or quoted ones, joined by `.`.
fn paths_in(message: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = message;
    while let Some(i) = rest.find("freebsd.") {
        let text = &rest[i..];
        let mut end = 0;
        loop {
            let seg = &text[end..];
            let len = if let Some(q) = seg.strip_prefix('"') {
                match q.find('"') {
                    Some(close) => close + 2,
                    None => 0,
                }
            } else {
                seg.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                    .unwrap_or(seg.len())
            };
            if len == 0 {
                break;
            }
            end += len;
            if text[end..].starts_with('.')
                && text[end + 1..]
                    .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '"' || c == '_')
            {
                end += 1;
            } else {
                break;
            }
        }
        out.push(text[..end].to_string());
        rest = &text[end..];
    }
    out
}

#[test]
fn paths_in_reads_what_beryl_writes() {
    assert_eq!(
        paths_in("invalid freebsd.files.\"/etc/motd\".mode: `u+rw` is not…"),
        ["freebsd.files.\"/etc/motd\".mode"]
    );
    assert_eq!(
        paths_in("freebsd.disks.1 `ada0` is already listed as freebsd.disks.0"),
        ["freebsd.disks.1", "freebsd.disks.0"]
    );
}

fn json(root: &Path, a: &[&str]) -> serde_json::Value {
    let run = beryl(root, &args(a));
    assert_eq!(run.status, 0, "{a:?}: {}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{a:?}: {e}\n{}", run.stdout))
}

#[test]
fn check_explain_lookup_and_diff_spell_a_place_alike() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    copy_tree(&repo().join("tests/fixtures/base/ssh"), &root.join("ssh"));
    side(root, "good", GOOD);
    side(
        root,
        "bad",
        &GOOD
            .replace("shell: /bin/sh", "shell: bash")
            .replace("[wheel, operator]", "[wheel, \"a/b\"]")
            .replace("\"0644\"", "\"u+rw\""),
    );
    side(
        root,
        "new",
        &GOOD
            .replace("shell: /bin/sh", "shell: /bin/csh")
            .replace("\"0644\"", "\"0600\""),
    );

    // check: the places of the errors.
    let run = beryl(root, &args(&["-i", "bad", "check", "--format", "json"]));
    assert_eq!(run.status, 2, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let mut named: Vec<String> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| paths_in(d["message"].as_str().unwrap()))
        .collect();
    named.sort();
    named.dedup();
    assert_eq!(
        named,
        [
            "freebsd.files.\"/etc/motd\".mode",
            "freebsd.users.admin.groups.1",
            "freebsd.users.admin.shell",
        ],
        "{}",
        run.stdout
    );

    for path in &named {
        // explain reads the path check wrote and prints it back as it is,
        // or, for an item of a list of strings named by its position,
        // names it by its value and says so.
        let e = json(
            root,
            &["-i", "good", "explain", "host01", path, "--format", "json"],
        );
        let shown = e["path"].as_str().unwrap();
        if shown != path {
            let note = format!("`{path}` is `{shown}`");
            assert!(
                e["notes"][0].as_str().unwrap().starts_with(&note),
                "{path}: {e}"
            );
        }
        // lookup reads both spellings, to the value explain explained.
        for key in [path.as_str(), shown] {
            let a = [
                "-i",
                "good",
                "lookup",
                key,
                "--node",
                "host01",
                "--render-as",
                "json",
            ];
            assert_eq!(json(root, &a), e["entries"][0]["value"], "{a:?}");
        }
    }

    // An item in brackets is the same place, printed the one way.
    let e = json(
        root,
        &[
            "-i",
            "good",
            "explain",
            "host01",
            "freebsd.users[admin].shell",
            "--format",
            "json",
        ],
    );
    assert_eq!(e["path"], "freebsd.users.admin.shell");

    // diff names the changed values at the paths check wrote.
    let run = beryl(
        root,
        &args(&["-i", "new", "diff", "good", "--format", "json"]),
    );
    assert_eq!(run.status, 1, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let mut changed: Vec<&str> = report["changed"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|h| h["changes"].as_array().unwrap())
        .map(|c| c["path"].as_str().unwrap())
        .collect();
    changed.sort_unstable();
    assert_eq!(
        changed,
        [
            "freebsd.files.\"/etc/motd\".mode",
            "freebsd.users.admin.shell"
        ],
        "{}",
        run.stdout
    );
}
