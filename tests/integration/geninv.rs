//! The synthetic inventory of `examples/geninv.rs` (used by `benches/fleet.rs`):
//! at a small size, it must check, render every `freebsd` field, and be the
//! same bytes for the same seed. No timing here: the benchmark is not a test.

use crate::support::inventory_gen::{Params, generate};
use crate::support::{args, beryl, files};

const SMALL: Params = Params {
    hosts: 50,
    domains: 10,
    groups: 50,
    seed: 1,
    classes: false,
};

#[test]
fn generated_inventory_checks_and_renders() {
    let dir = tempfile::tempdir().unwrap();
    let summary = generate(&SMALL, dir.path()).unwrap();
    assert_eq!(summary.hosts, 50);
    let files = files(&dir.path().join("inventory"));
    let yaml: Vec<_> = files.iter().filter(|(p, _)| p.ends_with(".yml")).collect();
    assert_eq!(summary.yaml_files, yaml.len());
    assert_eq!(
        summary.yaml_bytes,
        yaml.iter().map(|(_, b)| b.len() as u64).sum::<u64>()
    );

    let run = beryl(dir.path(), &args(&["check"]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("checked 50 hosts: ok"),
        "{}",
        run.stdout
    );
    // The generator writes the rule `^ci\.queues$` into every third group's
    // table, whatever the group's role: only the ci groups use it, so check
    // warns about the others. No other warning.
    for line in run.stderr.lines().filter(|l| l.contains('⚠')) {
        assert!(line.contains("the merge rule `^ci\\.queues$`"), "{line}");
    }

    let run = beryl(dir.path(), &args(&["render", "--all", "--format", "json"]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    let all: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(all.len(), 50);
    let domains: std::collections::BTreeSet<_> = all
        .values()
        .map(|c| c["_beryl_"]["domain"].to_string())
        .collect();
    assert_eq!(domains.len(), 10);
    assert!(all.contains_key("host01.par1.example.org"));
    let fields = [
        "hostname", "timezone", "raid", "disks", "pool", "swap", "packages", "sudoers", "users",
        "install", "version", "network", "rc_conf", "sshd",
    ];
    for (fqdn, config) in &all {
        let freebsd = config["freebsd"].as_object().unwrap();
        for f in fields {
            assert!(freebsd.contains_key(f), "{fqdn} has no freebsd.{f}");
        }
        assert_eq!(freebsd["hostname"], fqdn.as_str(), "{fqdn}");
        let packages = freebsd["packages"].as_array().unwrap().len();
        assert!((20..=40).contains(&packages), "{fqdn}: {packages} packages");
        for user in freebsd["users"].as_array().unwrap() {
            // The domain keys (ops, oncall ×2) and the user's own.
            assert!(user["ssh_keys"].as_array().unwrap().len() >= 4, "{fqdn}");
        }
        let motd = config["motd"].as_str().unwrap();
        assert!(motd.starts_with(&format!("{fqdn} in ")), "{motd}");
        assert!(!motd.contains("${"), "{motd}");
    }
    // Three users on most hosts; a few drop one or add one.
    let users: usize = all
        .values()
        .map(|c| c["freebsd"]["users"].as_array().unwrap().len())
        .sum();
    assert!((130..=170).contains(&users), "{users} users on 50 hosts");
}

#[test]
fn generated_inventory_uses_the_features_the_benchmark_claims() {
    let dir = tempfile::tempdir().unwrap();
    generate(&SMALL, dir.path()).unwrap();
    let files = files(dir.path());
    let text = |p: &str| String::from_utf8(files[p].clone()).unwrap();
    let default = text("inventory/_default.yml");
    assert!(default.contains("merge:\n  monitoring.checks: append"));
    assert!(default.contains("${_beryl_.fqdn}"));
    let all: String = files
        .iter()
        .filter(|(p, _)| p.ends_with(".yml"))
        .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
        .collect();
    for needle in [
        "    - --",                      // a knockout
        "- name: --deploy",              // a user removed
        "from=\"",                       // an inline key with an option
        "hostname: \"${_beryl_.fqdn}\"", // a whole reference
        "freebsd.rc_conf: hash",         // a group's merge table
        "defaultrouter:",                // static addressing
        "{ipv4: dhcp, ipv6: slaac}",     // DHCP
    ] {
        assert!(all.contains(needle), "no `{needle}` in the generated tree");
    }
    // Public keys only, and only the fixed ones.
    for (path, bytes) in &files {
        if path.starts_with("ssh/") {
            let t = String::from_utf8_lossy(bytes);
            assert!(!t.contains("PRIVATE"), "{path}");
            assert!(
                t.lines()
                    .all(|l| l.starts_with('#') || l.starts_with("ssh-ed25519 "))
            );
        }
    }
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    let (a, b, c) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    generate(&SMALL, a.path()).unwrap();
    generate(&SMALL, b.path()).unwrap();
    generate(&Params { seed: 2, ..SMALL }, c.path()).unwrap();
    assert!(files(a.path()) == files(b.path()), "seed 1 twice differs");
    assert!(files(a.path()) != files(c.path()), "seeds 1 and 2 agree");
    // Generating over an existing tree is refused, not mixed in.
    assert!(generate(&SMALL, a.path()).is_err());
}

/// The `--classes` variant checks; its cache hosts answer their query with the
/// web servers of their own domain, and host01 (a web host) asks nothing.
#[test]
fn classes_variant_checks_and_answers_queries() {
    let dir = tempfile::tempdir().unwrap();
    let p = Params {
        hosts: 120,
        classes: true,
        ..SMALL
    };
    generate(&p, dir.path()).unwrap();
    let run = beryl(dir.path(), &args(&["check"]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    let run = beryl(dir.path(), &args(&["render", "--all", "--format", "json"]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    let all: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&run.stdout).unwrap();
    let host01 = &all["host01.par1.example.org"];
    assert_eq!(host01["_beryl_"]["exports"]["role"], "web");
    assert!(host01.get("varnish").is_none());
    let classes = host01["_beryl_"]["classes"].as_array().unwrap();
    assert_eq!(
        classes,
        &["common.base", "common.monitored", "roles.web"].map(serde_json::Value::from)
    );
    let mut answered = 0;
    for (fqdn, config) in &all {
        let Some(backends) = config["varnish"]["backends"].as_object() else {
            continue;
        };
        answered += 1;
        let domain = config["_beryl_"]["domain"].as_str().unwrap();
        for (backend, ip) in backends {
            let other = &all[backend]["_beryl_"]["exports"];
            assert_eq!(other["role"], "web", "{fqdn}: {backend}");
            assert_eq!(other["domain"], domain, "{fqdn}: {backend}");
            assert_eq!(&other["ip"], ip);
        }
    }
    assert!(answered > 0, "no cache host asked");
}
