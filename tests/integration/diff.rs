//! `beryl diff` as a pull request meets it: the example inventory and a
//! generated fleet in a git repository, one commit, then a change in the
//! working tree, compared with `diff git:HEAD` (issue 16, items 4 to 6).

use std::fs;
use std::path::Path;

use crate::support::git::commit_all;
use crate::support::inventory_gen::{Params, generate};
use crate::support::{Run, args, beryl, copy_tree, edit, example, repo};

/// A copy of the example inventory and keys, committed.
fn example_repo() -> tempfile::TempDir {
    let d = example();
    commit_all(d.path());
    d
}

fn diff(dir: &Path, a: &[&str]) -> (Run, String) {
    let run = beryl(dir, &args(a));
    assert_eq!(run.status, 1, "{a:?}: {}{}", run.stdout, run.stderr);
    let transcript = run.transcript(&args(a));
    (run, transcript)
}

/// The issue's first example: `name: --bob` in a group reads as bob removed,
/// and nothing about carol (it read as bob renamed to carol).
#[test]
fn a_knockout_in_a_group_is_one_removal() {
    let d = example_repo();
    edit(
        &d.path().join("inventory/example.org/web/_group.yml"),
        "  users:\n",
        "  users:\n    - name: --bob\n",
    );
    let (run, transcript) = diff(d.path(), &["diff", "git:HEAD"]);
    assert!(!run.stdout.contains("carol"), "{}", run.stdout);
    assert!(
        run.stdout.contains(
            "  freebsd.users.bob: removed  ← example.org/web/_group.yml:32:7; was at _default.yml:"
        ),
        "{}",
        run.stdout
    );
    insta::assert_snapshot!("diff_knockout_git", transcript);
}

/// A key file rotated, a domain's time zone and a class's port changed: each
/// change names its cause, a key by its key file, a queried value by the
/// class file of the host it was read from; and the summary groups them.
#[test]
fn causes_across_levels_key_files_and_queries() {
    let d = example_repo();
    fs::copy(
        repo().join("tests/fixtures/pubkeys/dave.pub"),
        d.path().join("ssh/alice.pub"),
    )
    .unwrap();
    edit(
        &d.path().join("inventory/example.net/_domain.yml"),
        "timezone: America/New_York",
        "timezone: America/Chicago",
    );
    edit(
        &d.path().join("inventory/_classes/roles/web.yml"),
        "http_port: 80",
        "http_port: 8080",
    );
    let (run, transcript) = diff(d.path(), &["diff", "git:HEAD"]);
    for line in [
        "freebsd.users.alice.ssh_keys: + ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMzThBiKAwZMMMq8Krn6CAkk",
        "on 10 hosts in 2 domains, caused by ssh/alice.pub:1:1",
        "haproxy.backends.\"host01.example.org\": 80 → 8080 on 2 hosts of example.net, caused by _classes/roles/web.yml:",
        "freebsd.timezone: America/New_York → America/Chicago on 3 hosts of example.net, caused by example.net/_domain.yml:",
    ] {
        assert!(run.stdout.contains(line), "no `{line}` in\n{}", run.stdout);
    }
    assert!(!run.stdout.contains("beryl-diff-"), "{}", run.stdout);
    insta::assert_snapshot!("diff_causes_git", transcript);
}

/// Every path a real diff prints is one `beryl explain` reads, and explains
/// at that very path: on the new side, or on the old side for what is gone.
#[test]
fn every_diff_path_can_be_pasted_into_explain() {
    let d = tempfile::tempdir().unwrap();
    copy_tree(&repo().join("inventory"), &d.path().join("old"));
    copy_tree(&repo().join("inventory"), &d.path().join("new"));
    copy_tree(&repo().join("ssh"), &d.path().join("ssh"));
    let new = d.path().join("new");
    edit(
        &new.join("example.org/web/_group.yml"),
        "  users:\n",
        "  users:\n    - name: --bob\n",
    );
    edit(
        &new.join("example.org/web/_group.yml"),
        "shell: /usr/local/bin/bash",
        "shell: /bin/sh",
    );
    edit(
        &new.join("_default.yml"),
        "  packages:\n    - sudo",
        "  packages:\n    - curl\n    - sudo",
    );
    edit(
        &new.join("_classes/roles/web.yml"),
        "http_port: 80",
        "http_port: 8080",
    );
    edit(
        &new.join("_default.yml"),
        "site:\n",
        "site:\n  \"rack.row\": 4\n",
    );
    let run = beryl(
        d.path(),
        &args(&["-i", "new", "diff", "old", "--format", "json"]),
    );
    assert_eq!(run.status, 1, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let mut checked = Vec::new();
    for host in report["changed"].as_array().unwrap() {
        let fqdn = host["host"].as_str().unwrap();
        for change in host["changes"].as_array().unwrap() {
            let path = change["path"].as_str().unwrap();
            let side = match change["change"].as_str().unwrap() {
                "removed" | "item_removed" => "old",
                _ => "new",
            };
            let a = ["-i", side, "explain", fqdn, path, "--format", "json"];
            let run = beryl(d.path(), &args(&a));
            assert_eq!(run.status, 0, "{a:?}: {}", run.stderr);
            let e: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
            assert_eq!(e["path"], path, "{a:?}");
            checked.push(path.to_string());
        }
    }
    checked.sort();
    checked.dedup();
    for p in [
        "freebsd.users.bob",
        "freebsd.users.alice.shell",
        "freebsd.packages",
        "haproxy.backends.\"host01.example.org\"",
        "site.\"rack.row\"",
    ] {
        assert!(checked.iter().any(|c| c == p), "{p} not among {checked:?}");
    }
}

/// A generated fleet of 2,000 hosts in git.
fn fleet_repo(hosts: usize) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let params = Params {
        hosts,
        domains: 4,
        groups: 20,
        seed: 1,
        classes: false,
    };
    generate(&params, d.path()).unwrap();
    commit_all(d.path());
    d
}

fn domain_file(d: &Path) -> std::path::PathBuf {
    let mut domains: Vec<_> = fs::read_dir(d.join("inventory"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("_domain.yml").exists())
        .collect();
    domains.sort();
    domains[0].join("_domain.yml")
}

/// One domain-level change on a 2,000-host fleet: a comment far under the
/// 65,536 characters a GitHub comment holds, naming the cause. Then a change
/// that gives each host a value of its own: the comment is cut by whole
/// sections, and its last line says how to see the rest.
#[test]
fn the_comment_on_a_2000_host_fleet_is_bounded_and_names_the_cause() {
    let d = fleet_repo(2000);
    let file = domain_file(d.path());
    let text = fs::read_to_string(&file).unwrap();
    let tz = text
        .lines()
        .find_map(|l| l.strip_prefix("  timezone: "))
        .unwrap()
        .to_string();
    edit(
        &file,
        &format!("timezone: {tz}"),
        "timezone: Pacific/Chatham",
    );
    let line = text
        .lines()
        .position(|l| l.starts_with("  timezone: "))
        .unwrap()
        + 1;
    let domain = file
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_str()
        .unwrap();
    let a = [
        "-i",
        "inventory",
        "--ssh-dir",
        "ssh",
        "diff",
        "git:HEAD",
        "--format",
        "markdown",
    ];
    let (run, _) = diff(d.path(), &a);
    let size = run.stdout.chars().count();
    eprintln!("2,000 hosts, one domain-level change: a comment of {size} characters");
    assert!(size < 65_536, "{size}");
    let cause = format!(
        "**`freebsd.timezone`** changed on 500 hosts of {domain}, caused by `{domain}/_domain.yml:{line}:13`"
    );
    assert!(
        run.stdout.contains(&cause),
        "no `{cause}` in\n{}",
        run.stdout
    );
    assert!(run.stdout.contains("- "), "{}", run.stdout);

    edit(
        &d.path().join("inventory/_default.yml"),
        "target: \"${_beryl_.fqdn}:9100\"",
        "target: \"${_beryl_.fqdn}:9101\"",
    );
    let (run, _) = diff(d.path(), &a);
    let size = run.stdout.chars().count();
    eprintln!("2,000 hosts, a value of each host's own: a comment of {size} characters");
    assert!(size < 65_536, "{size}");
    // One section for the 2,000 values (it was 2,000 one-host sections, of
    // which 210 were shown: issue 35), with as many values as fit.
    assert!(
        run.stdout.contains(" changed on 2000 hosts in 4 domains, the value differs per host, caused by `_default.yml:"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(" other values, in the whole diff_\n"),
        "{}",
        run.stdout
    );
    // Every fence that opens closes.
    assert_eq!(
        run.stdout.matches("```diff\n").count() * 2,
        run.stdout.matches("```").count()
    );
    // The head and the tail (the middle is 500 values alike).
    let lines: Vec<&str> = run.stdout.lines().collect();
    let excerpt = format!(
        "{}\n…\n{}",
        lines[..20].join("\n"),
        lines[lines.len() - 16..].join("\n")
    );
    insta::assert_snapshot!("diff_markdown_value_per_host", excerpt);
}

/// The two sides of tests/fixtures/diff in a temporary directory, with
/// `edit` run on each (`old`, `new`).
fn diff_sides(edit: impl Fn(&Path, &str)) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    copy_tree(&repo().join("tests/fixtures/diff"), d.path());
    for side in ["old", "new"] {
        edit(&d.path().join(side), side);
    }
    d
}

const SIDES: [&str; 5] = ["-i", "new", "--ssh-dir", "ssh", "diff"];

/// One change larger than the comment (a mapping of 1,500 new keys; a
/// 90,000-character value) among the four small ones of the docs' example:
/// every change is named with its path, hosts and cause, the small values
/// are shown, and the last line says that two values were left out (the
/// comment showed the first 2 of the 6 and named none of the others:
/// issue 35).
#[test]
fn an_oversize_change_leaves_the_comment_whole_but_its_value() {
    let d = diff_sides(|root, side| {
        if side == "new" {
            let keys: String = (0..1500)
                .map(|i| format!("  key{i:04}: value of key {i:04} in the new mapping\n"))
                .collect();
            let group = root.join("example.org/web/_group.yml");
            let text = fs::read_to_string(&group).unwrap();
            fs::write(&group, format!("{text}extra:\n{keys}")).unwrap();
            let domain = root.join("example.org/_domain.yml");
            let text = fs::read_to_string(&domain).unwrap();
            fs::write(&domain, format!("{text}banner: {}\n", "x".repeat(90_000))).unwrap();
        }
    });
    let mut a = SIDES.to_vec();
    a.extend(["old", "--format", "markdown"]);
    let run = beryl(d.path(), &args(&a));
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(run.stdout.chars().count() < 65_536);
    for header in [
        "**`freebsd.timezone`** changed on 3 hosts",
        "**`freebsd.packages`** item added on 3 hosts",
        "**`freebsd.users.bob`** removed on 2 hosts",
        "**`motd`** changed on mail.example.org",
        "**`banner`** added on 3 hosts of example.org, caused by `example.org/_domain.yml:",
        "**`extra`** added on 2 hosts of example.org, caused by `example.org/web/_group.yml:",
    ] {
        assert!(
            run.stdout.contains(header),
            "no `{header}` in\n{}",
            run.stdout
        );
    }
    assert_eq!(run.stdout.matches("```diff\n").count(), 4, "{}", run.stdout);
    assert!(
        run.stdout.ends_with("\n_the values of 2 changes not shown, to keep this comment under 65,536 characters: run `beryl diff old -i new` to see the whole diff._\n"),
        "{}",
        run.stdout
    );
    insta::assert_snapshot!("diff_markdown_oversize", run.stdout);
}

/// A multi-line value of 250,000 lines, each changed (2.5 MB a side, under
/// the 4 MiB file cap; 495 s before issue 35): the diff says how many lines
/// differ and the digest of each side, in text and markdown, instead of
/// diffing them.
#[test]
fn a_250000_line_change_is_summarised() {
    let text = |tag: &str| -> String { (0..250_000).map(|i| format!("{tag}{i:06}\n")).collect() };
    let d = diff_sides(|root, side| {
        let tag = if side == "old" { "a" } else { "b" };
        let body: String = text(tag).lines().map(|l| format!("  {l}\n")).collect();
        fs::write(
            root.join("example.org/mail.yml"),
            format!("motd: |\n{body}"),
        )
        .unwrap();
    });
    let summary = format!(
        "500,000 lines differ (-250,000 +250,000), sha256 {} → {}: too large a diff to show (docs/diff.md)",
        beryl::apply::sha256_hex(&text("a")),
        beryl::apply::sha256_hex(&text("b"))
    );
    let mut a = SIDES.to_vec();
    a.push("old");
    let run = beryl(d.path(), &args(&a));
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains(&format!(
            "  motd: changed  ← example.org/mail.yml:2:3\n    {summary}\n"
        )),
        "{}",
        run.stdout
    );
    a.extend(["--format", "markdown"]);
    let run = beryl(d.path(), &args(&a));
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains(&format!("```diff\n{summary}\n```\n")),
        "{}",
        run.stdout
    );
}

/// A list of 100,000 items reversed (the most a list holds by default) (each item moved): past the bound of a
/// line diff, the list is one change, its old and new values whole,
/// instead of an alignment that costs O(N·D).
#[test]
fn a_reordered_100000_item_list_is_one_change() {
    let d = diff_sides(|root, side| {
        let mut items: Vec<usize> = (0..100_000).collect();
        if side == "new" {
            items.reverse();
        }
        let list: String = items.iter().map(|i| format!("  - i{i}\n")).collect();
        fs::write(root.join("example.org/mail.yml"), format!("items:\n{list}")).unwrap();
    });
    let mut a = SIDES.to_vec();
    a.extend(["old", "--stat"]);
    let run = beryl(d.path(), &args(&a));
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains("mail.example.org | 3 changes\n"),
        "{}",
        run.stdout
    );
    a.pop();
    a.extend(["--format", "json"]);
    let run = beryl(d.path(), &args(&a));
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let mail = report["changed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["host"] == "mail.example.org")
        .unwrap();
    let items: Vec<_> = mail["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["path"] == "items")
        .collect();
    assert_eq!(items.len(), 1, "one change");
    assert_eq!(items[0]["change"], "changed");
    assert_eq!(items[0]["new"][0], "i99999");
}

/// The markdown example of docs/diff.md is what beryl prints (the console
/// examples are checked by docs.rs; this one holds fences of its own).
#[test]
fn the_markdown_example_of_the_docs_is_what_beryl_prints() {
    let doc = fs::read_to_string(repo().join("docs/diff.md")).unwrap();
    let (_, rest) = doc
        .split_once(
            "<!-- the markdown example: tests/integration/diff.rs checks it -->\n````markdown\n",
        )
        .expect("the marker and its block");
    let (shown, _) = rest.split_once("\n````\n").expect("the end of the block");
    let a = [
        "-i",
        "tests/fixtures/diff/new",
        "--ssh-dir",
        "tests/fixtures/diff/ssh",
        "diff",
        "tests/fixtures/diff/old",
        "--format",
        "markdown",
    ];
    let run = beryl(&repo(), &args(&a));
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert_eq!(format!("{shown}\n"), run.stdout);
}

/// root's password hash never reaches a diff, in any format, of configs or
/// of install plans (`--plan`): each side's value is shown by its sha256
/// (issue 32). The hash can be cracked offline, and a diff is a pull
/// request's comment.
#[test]
fn a_root_password_hash_is_shown_by_its_digest_only() {
    let d = tempfile::tempdir().unwrap();
    for (side, hash) in [("old", "$6$canaryOLD$aaaa"), ("new", "$6$canaryNEW$bbbb")] {
        let root = d.path().join(side);
        copy_tree(&repo().join("inventory"), &root);
        edit(
            &root.join("_default.yml"),
            "freebsd:\n",
            &format!("freebsd:\n  root_password: '{hash}'\n"),
        );
    }
    copy_tree(&repo().join("ssh"), &d.path().join("ssh"));
    let digest = format!("sha256:{}", beryl::apply::sha256_hex("$6$canaryNEW$bbbb"));
    for format in ["text", "json", "markdown"] {
        for plan in [false, true] {
            let mut a = vec!["diff", "old", "new", "--format", format];
            if plan {
                a.push("--plan");
            }
            let run = beryl(d.path(), &args(&a));
            assert_eq!(run.status, 1, "{a:?}: {}", run.stderr);
            let out = format!("{}{}", run.stdout, run.stderr);
            assert!(!out.contains("canary"), "{a:?} shows the hash:\n{out}");
            assert!(out.contains(&digest), "{a:?} shows no digest:\n{out}");
        }
    }
}
