use std::fs;
use std::path::Path;

use super::*;

fn tree(files: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in files {
        let p = dir.path().join(f);
        if let Some(stripped) = f.strip_suffix('/') {
            fs::create_dir_all(dir.path().join(stripped)).unwrap();
            continue;
        }
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, "").unwrap();
    }
    dir
}

fn discover(dir: &Path) -> Result<Inventory, Vec<String>> {
    Inventory::discover(dir, "inv").map_err(|e| e.into_iter().map(|d| d.message).collect())
}

#[test]
fn discovers_hosts_sorted_by_fqdn() {
    let t = tree(&[
        "_default.yml",
        "b.org/_domain.yml",
        "b.org/mail.yml",
        "a.org/_domain.yaml",
        "a.org/web/_group.yml",
        "a.org/web/host02.yml",
        "a.org/web/host01.yaml",
        "a.org/db/db1.yml",
        "a.org/README.md",
        "a.org/.hidden.yml",
    ]);
    let inv = discover(t.path()).unwrap();
    let fqdns: Vec<&str> = inv.hosts.iter().map(|h| h.fqdn.as_str()).collect();
    assert_eq!(
        fqdns,
        ["db1.a.org", "host01.a.org", "host02.a.org", "mail.b.org"]
    );
    let h = &inv.hosts[1];
    let chain: Vec<&str> = inv.chain(h).iter().map(|l| l.file.rel.as_str()).collect();
    assert_eq!(
        chain,
        [
            "_default.yml",
            "a.org/_domain.yaml",
            "a.org/web/_group.yml",
            "a.org/web/host01.yaml"
        ]
    );
    let db = &inv.hosts[0];
    assert_eq!(
        inv.chain(db).len(),
        3,
        "a group without _group.yml adds no level"
    );
    assert_eq!(db.group.as_deref(), Some("db"));
}

#[test]
fn layout_errors_name_the_path() {
    let t = tree(&[
        "_default.yml",
        "_domain.yml",
        "stray.yml",
        "_weird.yml",
        "a.org/_domain.yml",
        "a.org/_group.yml",
        "a.org/g/_default.yml",
        "a.org/g/deeper/",
        "bad_domain/",
        "b.org/",
    ]);
    let errs = discover(t.path()).unwrap_err();
    let expected = [
        "inv/_domain.yml: _domain is a level file in the wrong place",
        "inv/_weird.yml: `_weird` is not a level file name",
        "inv/a.org/_group.yml: _group is a level file in the wrong place",
        "inv/a.org/g/_default.yml: _default is a level file in the wrong place",
        "inv/a.org/g/deeper is a directory inside a group",
        "inv/b.org/_domain.yml is missing",
        "inv/bad_domain: `bad_domain` is not a valid DNS domain name",
        "inv/stray.yml: host files belong in a domain directory",
    ];
    for e in expected {
        assert!(
            errs.iter().any(|m| m.starts_with(e)),
            "missing `{e}` in {errs:#?}"
        );
    }
    assert_eq!(errs.len(), expected.len(), "{errs:#?}");
}

#[test]
fn duplicate_fqdns_name_both_files() {
    let t = tree(&[
        "_default.yml",
        "a.org/_domain.yml",
        "a.org/x.yml",
        "a.org/x.yaml",
        "a.org/g/x.yml",
    ]);
    let errs = discover(t.path()).unwrap_err();
    assert_eq!(errs.len(), 2, "{errs:#?}");
    assert!(
        errs[1].contains("inv/a.org/x.yaml and inv/a.org/g/x.yml both define the host x.a.org"),
        "{errs:#?}"
    );
}

#[test]
fn missing_default_and_root() {
    let t = tree(&["a.org/_domain.yml"]);
    assert!(discover(t.path()).unwrap_err()[0].contains("inv/_default.yml is missing"));
    assert!(
        discover(&t.path().join("nope")).unwrap_err()[0].starts_with("cannot open the inventory")
    );
}

#[test]
fn bad_host_names() {
    let t = tree(&[
        "_default.yml",
        "a.org/_domain.yml",
        "a.org/-x.yml",
        "a.org/a_b.yml",
    ]);
    let errs = discover(t.path()).unwrap_err();
    assert_eq!(errs.len(), 2);
    assert!(
        errs.iter()
            .all(|e| e.contains("is not a valid host name label"))
    );
}

#[cfg(unix)]
#[test]
fn links_leaving_the_inventory_are_refused() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("evil.yml"), "").unwrap();
    let t = tree(&["_default.yml", "a.org/_domain.yml"]);
    std::os::unix::fs::symlink(
        outside.path().join("evil.yml"),
        t.path().join("a.org/evil.yml"),
    )
    .unwrap();
    std::os::unix::fs::symlink(t.path().join("a.org/loop"), t.path().join("a.org/loop")).unwrap();
    let errs = discover(t.path()).unwrap_err();
    assert!(
        errs.iter()
            .any(|e| e.contains("a.org/evil.yml is a link to")
                && e.contains("outside the inventory")),
        "{errs:#?}"
    );
    assert!(
        errs.iter()
            .any(|e| e.contains("cannot follow inv/a.org/loop")),
        "{errs:#?}"
    );
}

/// A directory with a YAML name is a file gone wrong: one error naming it,
/// not a strange domain or group and then a "missing" file.
#[test]
fn a_directory_named_like_a_yaml_file_is_not_a_file() {
    for (bad, rest) in [
        ("_default.yml/", &["a.org/_domain.yml", "a.org/h.yml"][..]),
        ("a.org/_domain.yml/", &["_default.yml", "a.org/h.yml"]),
        ("a.org/web/h.yml/", &["_default.yml", "a.org/_domain.yml"]),
        ("a.org/h.yaml/", &["_default.yml", "a.org/_domain.yml"]),
    ] {
        let mut files = vec![bad];
        files.extend_from_slice(rest);
        let t = tree(&files);
        let errors = discover(t.path()).unwrap_err();
        let shown = format!("inv/{}", bad.trim_end_matches('/'));
        assert_eq!(
            errors,
            [format!("{shown} is a directory, not a YAML file")],
            "{bad}"
        );
    }
}
