//! `beryl ansible`: the dynamic-inventory JSON, and the real Ansible client
//! reading it through the two-line wrapper of docs/ansible.md.
//!
//! ansible-core comes from the venv that `.ci/run` makes (BERYL_ANSIBLE_BIN,
//! the venv's bin/), else from PATH; without it the client half skips with a
//! notice, unless BERYL_REQUIRE_PEERS is set.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value as J, json};

use crate::support::{args, beryl, example, example_hosts, which};

fn ok_json(dir: &Path, a: &[&str]) -> J {
    let r = beryl(dir, &args(a));
    assert_eq!(r.status, 0, "beryl {a:?}:\n{}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("beryl {a:?}: not JSON ({e})"))
}

/// Each host's vars are its effective config (`render --format json`) plus
/// the `ansible_*` variables of its `ssh:` block; `--host` gives the same.
#[test]
fn hostvars_are_the_effective_config_and_the_ssh_block() {
    let dir = example();
    let d = dir.path();
    let list = ok_json(d, &["ansible", "--list"]);
    let hostvars = list["_meta"]["hostvars"].as_object().unwrap();
    let fqdns: Vec<String> = example_hosts()
        .iter()
        .map(|h| {
            ok_json(d, &["render", h, "--format", "json"])["_beryl_"]["fqdn"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    // The example's jails (host01's www and api) are hosts of the inventory
    // too: their variables are their config, with no connection variables
    // (docs/ansible.md: Ansible cannot reach a jail through its host).
    let jails: Vec<&String> = hostvars.keys().filter(|k| !fqdns.contains(k)).collect();
    assert_eq!(jails, ["api.host01.example.org", "www.host01.example.org"]);
    for jail in jails {
        let vars = &hostvars[jail];
        assert!(
            vars.as_object()
                .unwrap()
                .keys()
                .all(|k| !k.starts_with("ansible_")),
            "{jail}"
        );
        assert_eq!(
            vars,
            &ok_json(d, &["render", jail, "--format", "json"]),
            "{jail}"
        );
    }
    for (short, fqdn) in example_hosts().iter().zip(&fqdns) {
        let mut vars = hostvars[fqdn].clone();
        assert_eq!(vars, ok_json(d, &["ansible", "--host", short]), "{fqdn}");
        let ssh = vars.as_object_mut().unwrap();
        let ansible: BTreeMap<String, J> = ssh
            .iter()
            .filter(|(k, _)| k.starts_with("ansible_"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        ssh.retain(|k, _| !k.starts_with("ansible_"));
        assert_eq!(
            vars,
            ok_json(d, &["render", short, "--format", "json"]),
            "{fqdn}"
        );
        // The example logs in as beryl, through sudo, on port 22.
        assert_eq!(
            serde_json::to_value(&ansible).unwrap(),
            json!({
                "ansible_become": true,
                "ansible_become_method": "sudo",
                "ansible_host": fqdn,
                "ansible_port": 22,
                "ansible_user": "beryl",
            }),
            "{fqdn}"
        );
    }
}

/// The groups of the example inventory, as --list gives them.
#[test]
fn groups_are_domains_groups_and_classes() {
    let dir = example();
    let mut list = ok_json(dir.path(), &["ansible", "--list"]);
    list.as_object_mut().unwrap().remove("_meta");
    insta::assert_snapshot!(
        "ansible_groups",
        serde_json::to_string_pretty(&list).unwrap()
    );
}

/// ansible-core's own `ansible-inventory` and `ansible` read the inventory
/// through the wrapper script: the same groups and variables, and each host's
/// time zone through the debug module over a local connection (no SSH).
#[test]
fn the_real_ansible_reads_the_inventory() {
    let test = "the_real_ansible_reads_the_inventory";
    let Some(bin) = ansible_bin() else {
        assert!(
            std::env::var_os("BERYL_REQUIRE_PEERS").is_none(),
            "{test}: BERYL_REQUIRE_PEERS is set but ansible-core is missing (BERYL_ANSIBLE_BIN)"
        );
        eprintln!("notice: {test} skipped: ansible-core is not installed (BERYL_ANSIBLE_BIN)");
        return;
    };
    let dir = example();
    let d = dir.path();
    let wrapper = d.join("beryl-inventory.sh");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\ncd '{}' && exec '{}' ansible \"$@\"\n",
            d.display(),
            env!("CARGO_BIN_EXE_beryl")
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let ours = ok_json(d, &["ansible", "--list"]);

    // --list: the same hosts in every group, the same variables.
    let out = ansible(
        &bin,
        "ansible-inventory",
        d,
        &["-i", "beryl-inventory.sh", "--list"],
    );
    let theirs: J = serde_json::from_str(&out).unwrap();
    assert_eq!(theirs["_meta"]["hostvars"], ours["_meta"]["hostvars"]);
    for (name, group) in ours.as_object().unwrap() {
        if name == "_meta" {
            continue;
        }
        for field in ["hosts", "children"] {
            let mut a = names(&group[field]);
            let mut b = names(&theirs[name][field]);
            if name == "all" && field == "children" {
                // Ansible adds its own `ungrouped`.
                b.retain(|g| g != "ungrouped");
            }
            a.sort();
            b.sort();
            assert_eq!(a, b, "{name}.{field}");
        }
    }

    // --graph: the tree of groups and hosts.
    let graph = ansible(
        &bin,
        "ansible-inventory",
        d,
        &["-i", "beryl-inventory.sh", "--graph"],
    );
    insta::assert_snapshot!("ansible_graph", graph);

    // An ad-hoc debug over a local connection prints each host's time zone.
    let out = ansible(
        &bin,
        "ansible",
        d,
        &[
            "-i",
            "beryl-inventory.sh",
            "all",
            "-c",
            "local",
            "-m",
            "debug",
            "-a",
            "var=freebsd.timezone",
        ],
    );
    for short in example_hosts() {
        let config = ok_json(d, &["render", &short, "--format", "json"]);
        let fqdn = config["_beryl_"]["fqdn"].as_str().unwrap();
        let zone = config["freebsd"]["timezone"].as_str().unwrap();
        let want = format!("{fqdn} | SUCCESS => {{\n    \"freebsd.timezone\": \"{zone}\"\n}}");
        assert!(out.contains(&want), "no `{want}` in:\n{out}");
    }
}

fn names(v: &J) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The directory of ansible-core's programs.
fn ansible_bin() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("BERYL_ANSIBLE_BIN") {
        return Some(PathBuf::from(dir));
    }
    which("ansible-inventory").and_then(|p| p.parent().map(Path::to_path_buf))
}

/// Runs an ansible-core program in `dir` (an empty config file, no colour,
/// no cows); its standard output, which must come with a status of 0.
fn ansible(bin: &Path, program: &str, dir: &Path, a: &[&str]) -> String {
    let config = dir.join("empty-ansible.cfg");
    std::fs::write(&config, "").unwrap();
    let out = Command::new(bin.join(program))
        .args(a)
        .current_dir(dir)
        .env("ANSIBLE_CONFIG", &config)
        .env("ANSIBLE_NOCOLOR", "1")
        .env("ANSIBLE_NOCOWS", "1")
        .env("ANSIBLE_HOME", dir.join(".ansible"))
        .env("ANSIBLE_LOCAL_TEMP", dir.join(".ansible/tmp"))
        .env("ANSIBLE_INVENTORY_UNPARSED_FAILED", "1")
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{program} {a:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}
