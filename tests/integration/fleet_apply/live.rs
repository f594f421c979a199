//! The fleet over ssh: three fake FreeBSD hosts, each behind its own sshd.

use std::fs;
use std::path::Path;
use std::time::Instant;

use serde_json::json;

use super::{
    HOSTS, document, fqdn, gather, lines, outcomes, pending, plain, plan, recap_row, run, schema,
};
use crate::apply::sshd::{self, Wired};
use crate::support::{example, skip, tools};

#[test]
fn a_fleet_gathers_plans_applies_and_refuses_stale_hosts() {
    let test = "a_fleet_gathers_plans_applies_and_refuses_stale_hosts";
    if !tools(&["ssh", "ssh-keygen", "unshare"], test) {
        return;
    }
    if !Path::new("/usr/sbin/sshd").is_file() {
        skip(test, "/usr/sbin/sshd (openssh-server) is missing");
        return;
    }
    let dir = example();
    let d = dir.path();
    // host01's jails are made by its first apply, not by its install
    // (live::every_example_host…, jails_live::): this fleet is the hosts.
    fs::remove_dir_all(d.join("inventory/example.org/web/host01.jails")).unwrap();
    let mut fleet: Vec<Wired> = Vec::new();
    for (host, level) in HOSTS {
        let Some(w) = sshd::wire(d, host, level, test) else {
            return;
        };
        fleet.push(w);
    }
    let events = schema("events.schema.json");

    // Gathering: three snapshots, each the bytes the host printed (the sha
    // reported is the file's), exit 0.
    let r = gather(d, "facts");
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    for (host, _) in HOSTS {
        let file = d.join("facts").join(format!("{}.json", fqdn(host)));
        let bytes = fs::read(&file).unwrap();
        let sha = beryl::apply::sha256_hex(std::str::from_utf8(&bytes).unwrap());
        assert!(
            r.stdout.contains(&format!("ok      {} ", fqdn(host)))
                && r.stdout.contains(&format!("sha256:{sha}\n")),
            "{}",
            r.stdout
        );
    }
    assert!(
        r.stdout
            .ends_with("facts: 3 gathered, 0 failed, into facts\n"),
        "{}",
        r.stdout
    );
    // As installed, nothing is pending anywhere.
    let doc = plan(d, "facts", "plan0.json");
    assert!(pending(&doc).iter().all(|(_, n)| *n == 0), "{doc:#}");
    assert_eq!(doc["summary"]["with_changes"], json!([]));

    // A drift on every host; gather, plan, apply the plan: each host changes
    // what its plan said; then nothing is left, and a re-apply is a no-op.
    for w in &fleet {
        crate::live::sh(&w.bsd, crate::live::DRIFT);
    }
    assert_eq!(gather(d, "facts").status, 0);
    let doc = plan(d, "facts", "plan1.json");
    let want = pending(&doc);
    assert!(want.iter().all(|(_, n)| *n == 6), "{want:?}");
    let r = run(d, &["apply", "--plan", "plan1.json", "--format", "jsonl"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    let got: Vec<(String, u64)> = outcomes(&lines(&events, &r))
        .into_iter()
        .map(|(h, s, c)| {
            assert_eq!(s, "ok", "{h}: {}", r.stdout);
            (h, c)
        })
        .collect();
    assert_eq!(got, want);
    assert_eq!(gather(d, "facts").status, 0);
    let doc = plan(d, "facts", "plan2.json");
    assert!(pending(&doc).iter().all(|(_, n)| *n == 0), "{doc:#}");
    let r = run(d, &["apply", "--plan", "plan2.json", "--exit-code"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    for (host, _) in HOSTS {
        let row = recap_row(&r, host);
        assert_eq!(
            (row[0].as_str(), row[3].as_str()),
            ("0", "ok"),
            "{}",
            r.stdout
        );
        // Several hosts: every line of the scripts names its host.
        assert!(
            r.stdout
                .contains(&format!("\n{}: apply: 0 changed,", fqdn(host))),
            "{}",
            r.stdout
        );
    }
    // The time of a no-op re-apply, host by host (reported, not asserted).
    for (host, _) in HOSTS {
        let start = Instant::now();
        let r = run(d, &["apply", host, "--yes", "--exit-code"]);
        let took = start.elapsed();
        assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
        eprintln!("fleet_apply: no-op re-apply of {}: {took:.2?}", fqdn(host));
    }

    // Pruning: a package, a file and a cron entry leave the config. The
    // install recorded all three (beryl created them), so the next plan shows
    // `-` for each on every host that has it, and nothing else; applying it
    // removes them from the hosts and from their records. Then the config
    // takes them back, and an apply puts them back.
    let pruned = prune_phase(d, &fleet, &events);
    eprintln!("fleet_apply: pruned {pruned} items over 3 hosts");

    // Stale: after the plan, host02's state changes where a step reads it
    // (its zone, which the plan changes from UTC), host01's config changes
    // (the inventory compiles to another config), and db01 gains a group no
    // step reads, which leaves its plan as it was.
    for w in &fleet {
        crate::live::sh(&w.bsd, crate::live::DRIFT);
    }
    assert_eq!(gather(d, "facts").status, 0);
    let doc = plan(d, "facts", "plan3.json");
    assert!(pending(&doc).iter().all(|(_, n)| *n == 6), "{doc:#}");
    crate::live::sh(&fleet[1].bsd, "tzsetup -s America/New_York");
    crate::live::sh(&fleet[2].bsd, "pw groupadd latecomer");
    // The script of host02's plan, run there as it is: its guard compares
    // the facts the host prints with the plan's, and stops (exit 3) before
    // any step.
    let guarded = plain(d, &["apply", "--plan", "plan3.json", "--script", "host02"]);
    assert_eq!(guarded.status, 0, "{}", guarded.stderr);
    let r = fleet[1].bsd.exec_in_target(
        "sudo -n sh -s",
        &guarded.stdout,
        &[("PATH", crate::live::SSH_PATH)],
        "beryl",
    );
    assert_eq!(r.status, 3, "{}", r.all());
    assert!(
        r.stdout
            .contains("stale: the facts are not the plan's (sha256 "),
        "{}",
        r.all()
    );
    let host01 = d.join("inventory/example.org/web/host01.yml");
    let text = fs::read_to_string(&host01).unwrap();
    fs::write(
        &host01,
        text.replace(
            "# The test's own sshd.",
            "site:\n  rack: r2\n# The test's own sshd.",
        ),
    )
    .unwrap();
    let r = run(d, &["apply", "--plan", "plan3.json", "--format", "json"]);
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    let events_of_run = document(&events, &r);
    let got = outcomes(&events_of_run);
    assert_eq!(
        got,
        [
            (fqdn("host01"), "stale".to_string(), 0),
            (fqdn("host02"), "stale".to_string(), 0),
            (fqdn("db01"), "ok".to_string(), 6),
        ],
        "{}",
        r.stdout
    );
    for (host, why) in [
        (
            "host01",
            "the inventory now compiles to another config than the plan's",
        ),
        ("host02", "the host changed since the plan: step tz "),
    ] {
        let event = events_of_run
            .iter()
            .find(|e| e["type"] == "host" && e["host"] == fqdn(host).as_str())
            .unwrap();
        let message = event["message"].as_str().unwrap();
        assert!(message.starts_with(why), "{message}");
        let line = format!("{}: is stale", fqdn(host));
        assert!(r.stderr.contains(&line), "{}", r.stderr);
    }
    // The stale hosts were left as they were: their drift is still there.
    for (w, zone) in fleet[..2].iter().zip(["UTC", "America/New_York"]) {
        let sum = crate::live::sh(&w.bsd, "cat /var/db/zoneinfo");
        assert_eq!(sum.trim(), zone);
    }
    assert_eq!(
        crate::live::sh(&fleet[2].bsd, "cat /var/db/zoneinfo").trim(),
        "Europe/Paris"
    );

    // A plan of another beryl is refused by name.
    let other = fs::read_to_string(d.join("plan3.json")).unwrap().replacen(
        "\"beryl_version\": \"",
        "\"beryl_version\": \"0.0.0-other ",
        1,
    );
    fs::write(d.join("other.json"), other).unwrap();
    let r = plain(d, &["apply", "--plan", "other.json"]);
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("a plan made by beryl 0.0.0-other "),
        "{}",
        r.stderr
    );

    // Unreachable: db01's sshd stops. Gathering goes on for the others and
    // says which failed; so does an apply, with its recap.
    let port_gone = fleet[2].server.take();
    drop(port_gone);
    let r = gather(d, "facts");
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("facts: 2 gathered, 1 failed, into facts\n"),
        "{}",
        r.stdout
    );
    let error = d.join("facts/db01.example.org.error");
    assert!(
        fs::read_to_string(&error)
            .unwrap()
            .contains("ssh to beryl@127.0.0.1:")
    );
    assert!(!d.join("facts/db01.example.org.json").exists());
    assert!(r.stderr.contains("beryl::facts::gather"), "{}", r.stderr);
    let r = run(d, &["apply", "host01", "host02", "db01", "--yes"]);
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    for (host, status) in [("host01", "ok"), ("host02", "ok"), ("db01", "unreachable")] {
        assert_eq!(recap_row(&r, host)[3], status, "{}", r.stdout);
    }
    assert!(
        r.stderr
            .contains("db01.example.org: is unreachable: ssh to beryl@127.0.0.1:"),
        "{}",
        r.stderr
    );
    assert_eq!(
        crate::live::sh(&fleet[1].bsd, "cat /var/db/zoneinfo").trim(),
        "Europe/Paris"
    );
}

/// What leaves the config in the pruning phase: (level file, its text).
const PRUNED: [(&str, &str); 3] = [
    ("example.org/_domain.yml", "    - node_exporter\n"),
    (
        "_default.yml",
        "  files:\n    /etc/pf.conf:\n      template: pf.conf.j2\n      mode: \"0600\"\n      validate: pfctl -nf %s\n",
    ),
    (
        "example.org/db/_group.yml",
        "  cron:\n    nightly-vacuum:\n      schedule: \"30 2 * * *\"\n      user: postgres\n      command: /usr/local/bin/vacuumdb --all --analyze --quiet\n",
    ),
];

/// Removes a package, a file and a cron entry from the config; gathers,
/// plans and applies; checks each host lost exactly those (on disk and in
/// its record); restores the config and converges again. The number of
/// items removed.
fn prune_phase(d: &Path, fleet: &[Wired], events: &serde_json::Value) -> usize {
    let inv = d.join("inventory");
    let mut originals = Vec::new();
    for (file, gone) in PRUNED {
        let path = inv.join(file);
        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(text.matches(gone).count(), 1, "{file}:\n{text}");
        fs::write(&path, text.replacen(gone, "", 1)).unwrap();
        originals.push((path, text));
    }
    assert_eq!(gather(d, "facts").status, 0);
    let doc = plan(d, "facts", "plan-prune.json");
    let mut total = 0;
    for (i, (host, _)) in HOSTS.iter().enumerate() {
        let mut want = vec!["file:/etc/pf.conf", "pkg:node_exporter"];
        if *host == "db01" {
            want.insert(0, "cron:nightly-vacuum");
        }
        let report = &doc["hosts"][i];
        assert_eq!(report["host"], fqdn(host).as_str());
        let mut removed: Vec<&str> = report["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["action"] == "delete")
            .map(|s| s["id"].as_str().unwrap())
            .collect();
        removed.sort_unstable();
        assert_eq!(removed, want, "{host}: {report:#}");
        // The removals are all that is pending.
        assert_eq!(report["summary"]["remove"], want.len(), "{report:#}");
        assert_eq!(pending(&doc)[i].1, want.len() as u64, "{report:#}");
        total += want.len();
    }
    let r = run(
        d,
        &["apply", "--plan", "plan-prune.json", "--format", "jsonl"],
    );
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    let removed: Vec<String> = lines(events, &r)
        .iter()
        .filter(|e| e["type"] == "step" && e["result"] == "removed")
        .map(|e| {
            format!(
                "{} {}",
                e["host"].as_str().unwrap(),
                e["id"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(removed.len(), total, "{}", r.stdout);
    for w in fleet {
        let gone = crate::live::sh(
            &w.bsd,
            "pkg info -e node_exporter || echo pkg-gone; \
             [ -e /etc/pf.conf ] || echo file-gone; \
             [ -e /usr/local/etc/cron.d/beryl-nightly-vacuum ] || echo cron-gone; \
             grep -E '^(pkg node_exporter|file /etc/pf.conf|cron nightly-vacuum)$' /var/db/beryl/managed || echo record-clean",
        );
        assert_eq!(
            gone, "pkg-gone\nfile-gone\ncron-gone\nrecord-clean\n",
            "{}",
            r.stdout
        );
    }
    assert_eq!(gather(d, "facts").status, 0);
    let doc = plan(d, "facts", "plan-pruned.json");
    assert!(pending(&doc).iter().all(|(_, n)| *n == 0), "{doc:#}");
    // Back as they were: the items come back, created (and recorded) again.
    for (path, text) in originals {
        fs::write(path, text).unwrap();
    }
    let r = run(d, &["apply", "host01", "host02", "db01", "--yes"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(gather(d, "facts").status, 0);
    let doc = plan(d, "facts", "plan-back.json");
    assert!(pending(&doc).iter().all(|(_, n)| *n == 0), "{doc:#}");
    total
}
