//! Jails in the inventory (issue 36, slice 1): `<host>.jails/<name>.yml`
//! beside a host file declares a jail of that host. These tests build the
//! `base` fixture with jail files and compare whole outputs: the listing
//! (`hosts`), the effective config and chain (`render`), `check`, and
//! selection by the jail's short name, its identity `NAME.PARENT_FQDN` and
//! a glob over a parent's jails. Layout errors are .case files
//! (tests/cases/layout/jail-*.case).

use std::path::Path;

use crate::support::{args, beryl, fixture, repo, write};

/// The base fixture with two jails of host01 (in group web) and one of
/// mail (directly in the domain).
fn with_jails() -> tempfile::TempDir {
    let dir = fixture("base");
    let inv = dir.path().join("inventory/example.org");
    write(
        &inv.join("web/host01.jails/www.yml"),
        "freebsd:\n  hostname: www.example.org\n  packages: [caddy]\n",
    );
    write(&inv.join("web/host01.jails/db.yml"), "role: database\n");
    write(&inv.join("mail.jails/spam.yml"), "role: filter\n");
    dir
}

/// The transcript of `beryl ARGS` in `dir`.
fn run(dir: &Path, a: &[&str]) -> String {
    let a = args(a);
    beryl(dir, &a).transcript(&a)
}

#[test]
fn hosts_lists_each_jail_with_its_parent() {
    let dir = with_jails();
    let text = [
        run(dir.path(), &["hosts"]),
        run(dir.path(), &["hosts", "--format", "json"]),
    ]
    .join("\n");
    insta::assert_snapshot!(text);
}

#[test]
fn an_inventory_without_jails_lists_as_before() {
    let dir = fixture("base");
    let out = run(dir.path(), &["hosts"]);
    assert!(!out.contains("PARENT"), "{out}");
    let json = run(dir.path(), &["hosts", "--format", "json"]);
    assert!(!json.contains("parent"), "{json}");
}

#[test]
fn a_jail_renders_with_its_chain_by_each_of_its_names() {
    let dir = with_jails();
    let short = run(dir.path(), &["render", "www"]);
    insta::assert_snapshot!(short);
    // Its identity selects the same host, and so does its FQDN-like name
    // through the parent.
    let full = run(dir.path(), &["render", "www.host01.example.org"]);
    assert_eq!(
        short.replace("render www\n", ""),
        full.replace("render www.host01.example.org\n", "")
    );
}

#[test]
fn a_jail_does_not_inherit_its_parent_host_file() {
    // The chain is _default, domain, the parent's group, the jail file:
    // host01.yml's hostname does not reach the jail.
    let dir = with_jails();
    let out = run(dir.path(), &["render", "db"]);
    insta::assert_snapshot!(out);
}

#[test]
fn check_and_a_glob_select_a_parents_jails() {
    let dir = with_jails();
    let text = [
        run(dir.path(), &["check", "www"]),
        run(dir.path(), &["check", "*.host01.example.org"]),
        run(dir.path(), &["check", "spam.mail.example.org"]),
        run(dir.path(), &["check"]),
    ]
    .join("\n");
    insta::assert_snapshot!(text);
}

#[test]
fn explain_shows_where_a_jails_value_comes_from() {
    let dir = with_jails();
    let out = run(dir.path(), &["explain", "www", "freebsd.packages"]);
    insta::assert_snapshot!(out);
}

/// A jail has no install plan: `plan --all` writes one file per host of the
/// example and none for host01's jails, without a word about them; named,
/// a jail is refused.
#[test]
fn plan_all_leaves_the_jails_out() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("plans");
    let r = beryl(
        &repo(),
        &args(&["plan", "--all", "--out", dir.to_str().unwrap()]),
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(!r.stderr.contains("host01.example.org"), "{}", r.stderr);
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "db01.example.org.sh",
            "db02.example.org.sh",
            "edge01.example.net.sh",
            "edge02.example.net.sh",
            "host01.example.org.sh",
            "host02.example.org.sh",
            "mail.example.org.sh",
            "ns1.example.net.sh",
        ]
    );
    let r = beryl(&repo(), &args(&["plan", "www"]));
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.contains("beryl::plan::not_installed"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("www.host01.example.org is a jail of host01.example.org"),
        "{}",
        r.stderr
    );
}
