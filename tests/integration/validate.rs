//! One validation (issue 16, item 1): for every host that `beryl check`
//! accepts, `beryl plan` and `beryl apply --script` succeed, and `beryl
//! render` accepts exactly the hosts that `check` accepts.
//!
//! Checked on the example inventory, on the synthetic inventory of the
//! benchmark, and on inventories made by editing the plan fixture
//! (tests/fixtures/plan) with one to three edits of [`EDITS`]: the ways a
//! host file goes wrong in practice (a setting removed, a package knocked
//! out, a user or the `ssh:` block changed). The edit sequences come from a
//! fixed seed, so every run checks the same inventories; each edit is also
//! run alone. The counts are printed (`--nocapture`).

use std::cell::Cell;
use std::fs;
use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Value, json};

use crate::support::inventory_gen::{Params, generate};
use crate::support::{
    EXAMPLE_HOSTS, args, beryl, example, example_hosts, example_jails, fixture, hosts,
};

/// What each command said of one host.
#[derive(Debug)]
struct Verdict {
    check: i32,
    render: i32,
    plan: i32,
    script: i32,
    stderr: String,
}

fn verdict(dir: &Path, host: &str) -> Verdict {
    let check = beryl(dir, &args(&["check", host]));
    let render = beryl(dir, &args(&["render", host]));
    let plan = beryl(dir, &args(&["plan", host]));
    let script = beryl(dir, &args(&["apply", "--script", host]));
    Verdict {
        check: check.status,
        render: render.status,
        plan: plan.status,
        script: script.status,
        stderr: format!(
            "check:\n{}\nrender:\n{}\nplan:\n{}\napply --script:\n{}",
            check.stderr, render.stderr, plan.stderr, script.stderr
        ),
    }
}

/// The property: check's verdict is render's, and a host check accepts
/// plans and applies. Every status is 0 or 2 (never a panic).
fn holds(v: &Verdict) -> Result<(), String> {
    for (what, s) in [
        ("check", v.check),
        ("render", v.render),
        ("plan", v.plan),
        ("apply --script", v.script),
    ] {
        if s != 0 && s != 2 {
            return Err(format!("{what} exited {s}"));
        }
    }
    if v.render != v.check {
        return Err(format!("check exited {}, render {}", v.check, v.render));
    }
    if v.check == 0 && (v.plan != 0 || v.script != 0) {
        return Err(format!(
            "check accepted the host; plan exited {}, apply --script {}",
            v.plan, v.script
        ));
    }
    Ok(())
}

#[test]
fn every_example_host_check_accepts_plans_and_applies() {
    let dir = example();
    let hosts = hosts(dir.path());
    let jails: Vec<String> = example_hosts()
        .iter()
        .flat_map(|h| example_jails(h))
        .collect();
    assert_eq!(hosts.len(), EXAMPLE_HOSTS + jails.len());
    for host in &hosts {
        let v = verdict(dir.path(), host);
        assert_eq!(v.check, 0, "{host}: {}", v.stderr);
        if jails.contains(host) {
            // A jail: no install plan (its host lays it down), the rest as
            // for any host.
            assert_eq!(
                (v.render, v.plan, v.script),
                (0, 2, 0),
                "{host}: {}",
                v.stderr
            );
            continue;
        }
        holds(&v).unwrap_or_else(|e| panic!("{host}: {e}\n{}", v.stderr));
    }
}

#[test]
fn every_generated_host_check_accepts_plans_and_applies() {
    let dir = tempfile::tempdir().unwrap();
    let params = Params {
        hosts: 12,
        domains: 3,
        groups: 6,
        seed: 7,
        classes: true,
    };
    generate(&params, dir.path()).unwrap();
    let hosts = hosts(dir.path());
    assert_eq!(hosts.len(), 12);
    for host in &hosts {
        let v = verdict(dir.path(), host);
        assert_eq!(v.check, 0, "{host}: {}", v.stderr);
        holds(&v).unwrap_or_else(|e| panic!("{host}: {e}\n{}", v.stderr));
    }
}

/// An edit of the fixture's `_default.yml`: a JSON pointer and the value
/// put there (`None` removes the key or item).
type Edit = (&'static str, &'static str, Option<fn() -> Value>);

/// Ways a host goes wrong: each is a label, a pointer and a new value.
const EDITS: &[Edit] = &[
    ("no disks", "/freebsd/disks", None),
    ("empty disks", "/freebsd/disks", Some(|| json!([]))),
    ("no raid", "/freebsd/raid", None),
    (
        "raid10 of one disk",
        "/freebsd/raid",
        Some(|| json!("raid10")),
    ),
    ("no timezone", "/freebsd/timezone", None),
    (
        "bad timezone",
        "/freebsd/timezone",
        Some(|| json!("Mars/Olympus")),
    ),
    ("no version", "/freebsd/version", None),
    ("old release", "/freebsd/version", Some(|| json!("13.2"))),
    ("pkgbase", "/freebsd/install", Some(|| json!("pkgbase"))),
    ("no network", "/freebsd/network", None),
    ("no packages", "/freebsd/packages", None),
    (
        "sudo knocked out",
        "/freebsd/packages",
        Some(|| json!(["--sudo"])),
    ),
    (
        "bash shell",
        "/freebsd/users/0/shell",
        Some(|| json!("/usr/local/bin/bash")),
    ),
    (
        "odd shell",
        "/freebsd/users/0/shell",
        Some(|| json!("/bin/nologin2")),
    ),
    ("no sudoers", "/freebsd/sudoers", None),
    (
        "sudoers without alice",
        "/freebsd/sudoers",
        Some(|| json!(["%wheel ALL=(ALL) ALL"])),
    ),
    ("no users", "/freebsd/users", None),
    (
        "alice absent",
        "/freebsd/users/0/state",
        Some(|| json!("absent")),
    ),
    (
        "alice is root",
        "/freebsd/users/0/name",
        Some(|| json!("root")),
    ),
    (
        "alice in no group",
        "/freebsd/users/0/groups",
        Some(|| json!([])),
    ),
    (
        "alice in a new group",
        "/freebsd/users/0/groups",
        Some(|| json!(["deploy"])),
    ),
    (
        "alice has no key",
        "/freebsd/users/0/ssh_keys",
        Some(|| json!([])),
    ),
    ("no ssh block", "/ssh", None),
    ("ssh user bob", "/ssh/user", Some(|| json!("bob"))),
    ("become doas", "/ssh/become", Some(|| json!("doas"))),
    ("become none", "/ssh/become", Some(|| json!("none"))),
    ("ssh as root", "/ssh/user", Some(|| json!("root"))),
    (
        "dist site",
        "/freebsd/dist_site",
        Some(|| json!("https://download.freebsd.org/releases/amd64/15.0-RELEASE/")),
    ),
    (
        "root password locked",
        "/freebsd/root_password",
        Some(|| json!("*")),
    ),
    (
        "static address",
        "/freebsd/network/interfaces/vtnet0/ipv4",
        Some(|| json!("192.0.2.10/24")),
    ),
    (
        "sshd root login",
        "/freebsd/sshd",
        Some(|| json!({"PermitRootLogin": "yes"})),
    ),
    (
        "rc.conf variable",
        "/freebsd/rc_conf",
        Some(|| json!({"ntpd_enable": "YES"})),
    ),
    (
        "hostname",
        "/freebsd/hostname",
        Some(|| json!("other.example.org")),
    ),
    ("pool", "/freebsd/pool", Some(|| json!("tank"))),
    ("swap", "/freebsd/swap", Some(|| json!("0"))),
];

/// The fixture's `_default.yml`, as JSON (which is YAML).
fn base() -> Value {
    json!({
        "ssh": {"user": "alice", "become": "sudo"},
        "freebsd": {
            "version": "15.0",
            "timezone": "UTC",
            "raid": "stripe",
            "disks": ["ada0"],
            "network": {"interfaces": {"vtnet0": {"ipv4": "dhcp"}}},
            "packages": ["sudo"],
            "sudoers": ["alice ALL=(ALL:ALL) NOPASSWD: ALL"],
            "users": [{
                "name": "alice",
                "shell": "/bin/sh",
                "groups": ["wheel"],
                "ssh_keys": ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFdr4s9lPxsN06slCSu+6S9Y71f/Upa98Poqs2K8Tnui alice@fixture"]
            }]
        }
    })
}

/// Applies an edit; an edit under a key an earlier edit removed is skipped.
fn apply_edit(doc: &mut Value, (_, pointer, value): &Edit) {
    let (parent, last) = pointer.rsplit_once('/').unwrap();
    let Some(parent) = doc.pointer_mut(parent) else {
        return;
    };
    match (parent, value) {
        (Value::Object(m), Some(v)) => {
            m.insert(last.to_string(), v());
        }
        (Value::Object(m), None) => {
            m.remove(last);
        }
        (Value::Array(a), Some(v)) => {
            if let Some(slot) = last.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                *slot = v();
            }
        }
        (Value::Array(a), None) => {
            if let Ok(i) = last.parse::<usize>()
                && i < a.len()
            {
                a.remove(i);
            }
        }
        _ => {}
    }
}

/// Runs the property on the fixture edited by `edits`.
fn edited(edits: &[usize]) -> Result<Verdict, String> {
    let dir = fixture("plan");
    let mut doc = base();
    for &i in edits {
        apply_edit(&mut doc, &EDITS[i]);
    }
    fs::write(
        dir.path().join("inventory/_default.yml"),
        serde_json::to_string_pretty(&doc).unwrap(),
    )
    .unwrap();
    fs::write(dir.path().join("inventory/example.org/h1.yml"), "{}\n").unwrap();
    let v = verdict(dir.path(), "h1");
    let labels: Vec<_> = edits.iter().map(|&i| EDITS[i].0).collect();
    holds(&v).map_err(|e| format!("edits {labels:?}: {e}\n{}", v.stderr))?;
    Ok(v)
}

#[test]
fn edited_hosts_check_accepts_plan_and_apply() {
    // The fixture itself, then each edit alone.
    let accepted = Cell::new(0);
    let refused = Cell::new(0);
    let sequences = Cell::new(0);
    let tally = |v: &Verdict| {
        let n = if v.check == 0 { &accepted } else { &refused };
        n.set(n.get() + 1);
    };
    let v = edited(&[]).unwrap();
    assert_eq!(v.check, 0, "{}", v.stderr);
    tally(&v);
    for i in 0..EDITS.len() {
        tally(&edited(&[i]).unwrap_or_else(|e| panic!("{e}")));
    }
    // Then sequences of two and three edits, from a fixed seed.
    let config = Config {
        cases: 96,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let strategy = proptest::collection::vec(0..EDITS.len(), 2..=3);
    runner
        .run(&strategy, |edits| {
            let v = edited(&edits).map_err(TestCaseError::fail)?;
            tally(&v);
            sequences.set(sequences.get() + 1);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let (accepted, refused) = (accepted.get(), refused.get());
    println!(
        "one validation: {} single edits and {} sequences; check accepted {accepted}, refused {refused}",
        EDITS.len(),
        sequences.get()
    );
    // Both outcomes occur, or the edits test nothing.
    assert!(
        accepted >= 10 && refused >= 10,
        "{accepted} accepted, {refused} refused"
    );
}
