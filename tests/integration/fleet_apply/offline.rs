//! The fleet's outputs without a host: the dry run and the plan against
//! the state fixtures, their schemas, a stale config, the prompt.

use std::fs;

use serde_json::{Value, json};

use super::{document, lines, plain, schema, valid};
use crate::support::{example, repo, script_digest, tools};

/// tests/fixtures/apply/fleet/ (the `--state-dir` of docs/apply.md) holds
/// copies of the state fixtures that live.rs keeps true.
#[test]
fn the_fleet_fixtures_are_copies_of_the_state_fixtures() {
    let f = repo().join("tests/fixtures/apply");
    for (copy, original) in [
        ("fleet/host01.example.org.json", "host01-drift.json"),
        ("fleet/db02.example.org.json", "db02.json"),
    ] {
        assert_eq!(
            fs::read_to_string(f.join(copy)).unwrap(),
            fs::read_to_string(f.join(original)).unwrap(),
            "{copy}: cp tests/fixtures/apply/{original} tests/fixtures/apply/{copy}"
        );
    }
}

/// Offline: a fleet dry run is one document (or JSON Lines) of the schema;
/// `--out` saves a plan of the schema, stamped with the snapshots' sha256,
/// refused while a host's state is unknown; a plan whose host's config
/// changed is refused as stale before anything is sent to it.
#[test]
fn a_fleet_dry_run_and_its_saved_plan_offline() {
    let dir = example();
    let d = dir.path();
    let fleet = repo().join("tests/fixtures/apply/fleet");
    let fleet = fleet.to_str().unwrap();
    let r = plain(
        d,
        &[
            "apply",
            "host01",
            "db02",
            "mail",
            "--dry-run",
            "--state-dir",
            fleet,
            "--format",
            "json",
        ],
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    let doc: Value = serde_json::from_str(&r.stdout).expect("one JSON document");
    let dry = schema("dry-run.schema.json");
    valid(&dry, &doc, "dry run");
    assert_eq!(
        doc["summary"]["with_changes"],
        json!(["host01.example.org"])
    );
    assert_eq!(doc["summary"]["unknown"], json!(["mail.example.org"]));
    let r = plain(
        d,
        &[
            "apply",
            "host01",
            "db02",
            "mail",
            "--dry-run",
            "--state-dir",
            fleet,
            "--format",
            "jsonl",
        ],
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    let line = json!({"$schema": dry["$schema"], "$defs": dry["$defs"], "$ref": "#/$defs/line"});
    let types: Vec<String> = lines(&line, &r)
        .iter()
        .map(|l| l["type"].as_str().unwrap().to_string())
        .collect();
    // host01, its jails api and www, db02, mail.
    assert_eq!(types, ["host", "host", "host", "host", "host", "summary"]);

    // --out: refused with mail (no snapshot), saved without it.
    let r = plain(
        d,
        &[
            "apply",
            "host01",
            "db02",
            "mail",
            "--dry-run",
            "--state-dir",
            fleet,
            "--out",
            "plan.json",
        ],
    );
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("beryl::apply::unknown"), "{}", r.stderr);
    assert!(!d.join("plan.json").exists());
    let r = plain(
        d,
        &[
            "apply",
            "host01",
            "db02",
            "--dry-run",
            "--state-dir",
            fleet,
            "--out",
            "plan.json",
        ],
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    let plan: Value =
        serde_json::from_str(&fs::read_to_string(d.join("plan.json")).unwrap()).unwrap();
    valid(&schema("plan.schema.json"), &plan, "plan");
    // host01, its jails (api, www), then db02.
    let hosts: Vec<&str> = plan["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["host"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        hosts,
        [
            "host01.example.org",
            "api.host01.example.org",
            "www.host01.example.org",
            "db02.example.org"
        ]
    );
    let plan = {
        let mut p = plan.clone();
        let all = p["hosts"].as_array_mut().unwrap();
        all.retain(|h| h["parent"].is_null());
        p
    };
    let snapshot = fs::read_to_string(format!("{fleet}/db02.example.org.json")).unwrap();
    assert_eq!(
        plan["hosts"][1]["facts_sha256"],
        beryl::apply::sha256_hex(&snapshot).as_str()
    );
    let facts = plain(d, &["facts", "db02"]).stdout;
    assert_eq!(
        plan["hosts"][1]["facts_script_sha256"],
        script_digest(&facts).as_str()
    );
    let config = plain(d, &["render", "db02", "--format", "json"]).stdout;
    assert_eq!(
        plan["hosts"][1]["config_sha256"],
        beryl::apply::sha256_hex(&config).as_str()
    );
    assert_eq!(plan["hosts"][0]["steps"][2]["id"], "pkg:tmux");
    assert_eq!(plan["hosts"][0]["steps"][2]["action"], "create");

    // The script a plan runs: its guard first, and it passes shellcheck and
    // dash -n.
    let r = plain(d, &["apply", "--plan", "plan.json", "db02", "--script"]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("\n# The saved plan's guard: the host must still be as the plan saw it.\n"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("\texit 3\n"), "{}", r.stdout);
    let guard = r.stdout.find("saved plan's guard").unwrap();
    assert!(
        guard < r.stdout.find("\nstep ").unwrap(),
        "the guard runs first"
    );
    let script = d.join("planned.sh");
    fs::write(&script, &r.stdout).unwrap();
    for (tool, a) in [("shellcheck", &["-s", "sh"][..]), ("dash", &["-n"][..])] {
        if !tools(&[tool], "a_fleet_dry_run_and_its_saved_plan_offline") {
            continue;
        }
        let out = std::process::Command::new(tool)
            .args(a)
            .arg(&script)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{tool}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    // host01's config changes: refused as stale, without ssh (its ssh:
    // block names a host that does not resolve).
    let level = d.join("inventory/example.org/web/host01.yml");
    let text = fs::read_to_string(&level).unwrap();
    fs::write(&level, format!("{text}\nsite:\n  rack: r2\n")).unwrap();
    // `json` is one document, `jsonl` the same events a line each.
    let r = plain(
        d,
        &["apply", "--plan", "plan.json", "host01", "--format", "json"],
    );
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    let events = document(&schema("events.schema.json"), &r);
    // Its jails run over its connection, so they are left as they were
    // too, and say that it was their host's plan (their configs did not
    // change).
    assert_eq!(events.len(), 4, "{}", r.stdout);
    assert_eq!(events[0]["status"], "stale");
    assert_eq!(
        events[0]["message"],
        "the inventory now compiles to another config than the plan's"
    );
    for (e, jail) in events[1..3].iter().zip(["api", "www"]) {
        assert_eq!(e["host"], format!("{jail}.host01.example.org"));
        assert_eq!(e["parent"], "host01.example.org");
        assert_eq!(e["status"], "stale");
        assert_eq!(
            e["message"],
            "not run: its host's plan is stale: the inventory now compiles to another config than the plan's"
        );
    }
    assert_eq!(
        events[3]["stale"],
        json!([
            "host01.example.org",
            "api.host01.example.org",
            "www.host01.example.org"
        ])
    );
    let r = plain(
        d,
        &[
            "apply",
            "--plan",
            "plan.json",
            "host01",
            "--format",
            "jsonl",
        ],
    );
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    assert_eq!(lines(&schema("events.schema.json"), &r), events);
    assert!(r.stderr.contains("beryl::apply::stale"), "{}", r.stderr);
    // A host not in the plan is named.
    let r = plain(d, &["apply", "--plan", "plan.json", "mail"]);
    assert_eq!(r.status, 2);
    assert!(r.stderr.contains("the plan has no host"), "{}", r.stderr);
}

/// On a terminal (util-linux `script` gives beryl one), a real apply shows
/// each host's steps and asks on stderr; any answer but `yes` applies
/// nothing and exits 2, before any ssh.
#[test]
fn a_real_apply_on_a_terminal_asks_for_yes() {
    let test = "a_real_apply_on_a_terminal_asks_for_yes";
    if !tools(&["script"], test) {
        return;
    }
    let dir = example();
    let command = format!(
        "{} --color never apply host01 db02",
        env!("CARGO_BIN_EXE_beryl")
    );
    let mut child = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child.stdin.take().unwrap().write_all(b"no\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    assert_eq!(out.status.code(), Some(2), "{text}");
    for want in [
        "apply host01.example.org\n? pkg\n",
        "apply db02.example.org\n",
        "Apply to 2 hosts? Only `yes` is accepted: ",
        "not applied: the answer was \"no\", not `yes`",
    ] {
        assert!(text.contains(want), "{want:?} in\n{text}");
    }
    assert!(!text.contains("ssh to "), "{text}");
}
