//! Unit tests of reuse: digests, and which hosts a manifest lets keep.

use super::*;
use crate::output::Format;
use std::fs;

struct Fixture {
    _tmp: tempfile::TempDir,
    roots: Roots,
    out: PathBuf,
}

/// An inventory with `d.yml` (shared), `a.yml`, `b.yml`, a key file, and
/// an output directory holding both hosts' files.
fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let roots = Roots {
        inventory: tmp.path().join("inv"),
        ssh: tmp.path().join("ssh"),
    };
    let out = tmp.path().join("out");
    for d in [&roots.inventory, &roots.ssh, &out] {
        fs::create_dir_all(d).unwrap();
    }
    for (f, t) in [("d.yml", "d"), ("a.yml", "a"), ("b.yml", "b")] {
        fs::write(roots.inventory.join(f), t).unwrap();
    }
    fs::write(roots.ssh.join("k.pub"), "key").unwrap();
    for h in ["a", "b"] {
        fs::write(out.join(format!("{h}.yml")), h).unwrap();
    }
    Fixture {
        _tmp: tmp,
        roots,
        out,
    }
}

fn rec(own: &str, reads: &[&str], fleet: bool) -> Record {
    Record {
        chain: vec!["d.yml".into(), own.into()],
        reads: reads.iter().map(|s| s.to_string()).collect(),
        fleet,
        exports: Some(format!("sha256:{own}")),
    }
}

/// The manifest a full write of `a` (reading the key and probing `c.yml`)
/// and `b` (a fleet host when `fleet`) records today.
fn manifest(f: &Fixture, fleet: bool) -> Manifest {
    let compiled = BTreeMap::from([
        (
            "a".to_string(),
            rec("a.yml", &["ssh:k.pub", "c.yml"], false),
        ),
        ("b".to_string(), rec("b.yml", &[], fleet)),
    ]);
    let hosts = ["a", "b"].map(|h| (h.to_string(), format!("sha256:{h}")));
    let table = Plan::default().records(compiled, &f.roots);
    Manifest::new(Format::Yaml, options(), hosts.into(), table)
}

fn options() -> BTreeMap<String, String> {
    BTreeMap::from([("beryl".to_string(), "1".to_string())])
}

/// The hosts `old` lets keep, both hosts in the run, chains unchanged.
fn kept(f: &Fixture, old: &Manifest) -> Vec<String> {
    let hosts = ["a", "b"].map(|h| Current {
        fqdn: h,
        chain: vec!["d.yml", if h == "a" { "a.yml" } else { "b.yml" }],
    });
    let mut plan = Plan::new(Some(old), &options(), &hosts, true, &f.roots, &f.out);
    assert!(plan.settle(&BTreeMap::new()).is_empty());
    plan.reused.into_keys().collect()
}

#[test]
fn digests_tell_absent_files_links_and_directories_apart() {
    let f = fixture();
    let inv = &f.roots.inventory;
    assert_eq!(digest(&inv.join("nothing")), None);
    assert_eq!(digest(&inv.join("a.yml/below")), None);
    assert_eq!(digest(inv).as_deref(), Some("dir"));
    let a = digest(&inv.join("a.yml")).unwrap();
    assert!(a.starts_with("sha256:"), "{a}");
    std::os::unix::fs::symlink("a.yml", inv.join("l.yml")).unwrap();
    let link = digest(&inv.join("l.yml")).unwrap();
    assert_ne!(link, a, "a link also hashes its target's name");
}

#[test]
fn the_record_is_one_table_and_indices() {
    let f = fixture();
    let m = manifest(&f, false);
    let paths: Vec<&str> = m.inputs.keys().map(String::as_str).collect();
    assert_eq!(paths, ["a.yml", "b.yml", "c.yml", "d.yml", "ssh:k.pub"]);
    assert_eq!(m.inputs["c.yml"], None, "a probe that found nothing");
    assert_eq!(m.records["a"].chain, [3, 0]);
    assert_eq!(m.records["a"].reads, [2, 4]);
    let text = m.text();
    let back: Manifest = serde_json::from_str(&text).unwrap();
    assert_eq!(back.records, m.records);
    assert_eq!(back.inputs, m.inputs);
    assert!(!text.contains("fleet"), "false is left out: {text}");
}

#[test]
fn a_host_is_kept_until_one_of_its_inputs_changes() {
    let f = fixture();
    let old = manifest(&f, false);
    assert_eq!(kept(&f, &old), ["a", "b"]);
    fs::write(f.roots.inventory.join("a.yml"), "a2").unwrap();
    assert_eq!(kept(&f, &old), ["b"]);
    let f = fixture();
    fs::write(f.roots.ssh.join("k.pub"), "key2").unwrap();
    assert_eq!(kept(&f, &old), ["b"], "a key file");
    let f = fixture();
    fs::write(f.roots.inventory.join("c.yml"), "shadow").unwrap();
    assert_eq!(kept(&f, &old), ["b"], "a file where a probe found none");
    let f = fixture();
    fs::write(f.roots.inventory.join("d.yml"), "d2").unwrap();
    assert!(kept(&f, &old).is_empty(), "a shared level");
    let f = fixture();
    fs::remove_file(f.out.join("a.yml")).unwrap();
    assert_eq!(kept(&f, &old), ["b"], "a host file gone from DIR");
}

#[test]
fn other_options_an_old_version_or_a_new_chain_keep_nothing() {
    let f = fixture();
    let mut old = manifest(&f, false);
    old.options.insert("format".into(), "json".into());
    assert!(kept(&f, &old).is_empty());
    let mut old = manifest(&f, false);
    old.version = 1;
    assert!(kept(&f, &old).is_empty());
    let old = manifest(&f, false);
    let hosts = [Current {
        fqdn: "a",
        chain: vec!["d.yml", "g.yml", "a.yml"],
    }];
    let plan = Plan::new(Some(&old), &options(), &hosts, true, &f.roots, &f.out);
    assert!(plan.reused.is_empty());
}

#[test]
fn a_fleet_host_is_kept_only_when_the_fleet_exports_the_same() {
    let f = fixture();
    let old = manifest(&f, true);
    assert_eq!(kept(&f, &old), ["a", "b"]);
    fs::write(f.roots.inventory.join("a.yml"), "a2").unwrap();
    let hosts = ["a", "b"].map(|h| Current {
        fqdn: h,
        chain: vec!["d.yml", if h == "a" { "a.yml" } else { "b.yml" }],
    });
    let settle = |a: Record| {
        let mut plan = Plan::new(Some(&old), &options(), &hosts, true, &f.roots, &f.out);
        assert!(plan.reused.is_empty() && plan.pending.contains_key("b"));
        let rest = plan.settle(&BTreeMap::from([("a".to_string(), a)]));
        (rest, plan.reused.into_keys().collect::<Vec<_>>())
    };
    let same = rec("a.yml", &[], false);
    assert_eq!(settle(same.clone()), (vec![], vec!["b".to_string()]));
    let exports = Record {
        exports: Some("sha256:other".into()),
        ..same.clone()
    };
    assert_eq!(settle(exports), (vec!["b".to_string()], vec![]));
    let asks = Record {
        fleet: true,
        ..same
    };
    assert_eq!(settle(asks), (vec!["b".to_string()], vec![]));
    let f = fixture();
    let hosts = [Current {
        fqdn: "b",
        chain: vec!["d.yml", "b.yml"],
    }];
    let plan = Plan::new(Some(&old), &options(), &hosts, true, &f.roots, &f.out);
    assert!(
        plan.reused.is_empty() && plan.pending.is_empty(),
        "a removed"
    );
    let plan = Plan::new(Some(&old), &options(), &hosts, false, &f.roots, &f.out);
    assert!(
        plan.reused.is_empty() && plan.pending.is_empty(),
        "not the whole fleet"
    );
}
