//! `beryl apply` for a fleet (docs/apply.md §§ 9–13): three hosts of the
//! example inventory, each installed from its own plan on its own fake
//! FreeBSD, each behind its own sshd on 127.0.0.1 (apply/sshd.rs, `wire`):
//!
//! - `facts --gather` takes the three snapshots in parallel, byte for byte;
//! - a dry run over the snapshots (`--state-dir`), saved (`--out`), is
//!   applied (`--plan`) and then re-planned: nothing is left, a second apply
//!   changes nothing on any host;
//! - a host whose state changed between the plan and the apply is refused
//!   as stale by its own script, one whose config changed by beryl, and the
//!   other host applies;
//! - an unreachable host is reported, and the others are gathered and
//!   applied;
//! - the JSON of the dry run, the plan and the events validate against
//!   docs/schemas/.
//!
//! The time of a no-op re-apply per host is printed (never asserted).
//! Needs root, the fake FreeBSD's tools, ssh, ssh-keygen, unshare and
//! /usr/sbin/sshd; skips with a notice without them, unless
//! BERYL_REQUIRE_TOOLS is set.

use std::fs;
use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};

use crate::apply::sshd::{self, Wired};
use crate::support::{Run, args, beryl, example, repo, skip, tools};

/// The fleet: host, level file.
const HOSTS: [(&str, &str); 3] = [
    ("host01", "example.org/web/host01.yml"),
    ("host02", "example.org/web/host02.yml"),
    ("db01", "example.org/db/db01.yml"),
];

fn fqdn(host: &str) -> String {
    format!("{host}.example.org")
}

fn run(d: &Path, a: &[&str]) -> Run {
    let mut all = args(a);
    all.extend(args(&sshd::SSH_OPTIONS));
    beryl(d, &all)
}

fn plain(d: &Path, a: &[&str]) -> Run {
    beryl(d, &args(a))
}

fn schema(name: &str) -> Value {
    let text = fs::read_to_string(repo().join("docs/schemas").join(name)).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::meta::validate(&schema).expect("a valid JSON Schema");
    schema
}

/// `doc` must satisfy `schema`; the errors, each with its place, otherwise.
fn valid(schema: &Value, doc: &Value, what: &str) {
    let v = jsonschema::draft202012::new(schema).expect("the schema compiles");
    let errors: Vec<String> = v
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}\n{doc:#}");
}

/// Each JSON line of a run, validated against `schema`.
fn lines(schema: &Value, r: &Run) -> Vec<Value> {
    r.stdout
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}\n{}", r.stdout));
            valid(schema, &v, "event");
            v
        })
        .collect()
}

/// The `host` events of a run, by host: (status, changed).
fn outcomes(events: &[Value]) -> Vec<(String, String, u64)> {
    events
        .iter()
        .filter(|e| e["type"] == "host")
        .map(|e| {
            (
                e["host"].as_str().unwrap().to_string(),
                e["status"].as_str().unwrap().to_string(),
                e["changed"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// A host's row of the recap table: changed, unchanged, failed, status.
fn recap_row(r: &Run, host: &str) -> Vec<String> {
    let recap = r
        .stdout
        .split("\nRecap:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no recap:\n{}", r.stdout));
    let row = recap
        .lines()
        .find(|l| l.starts_with(&format!("  {} ", fqdn(host))))
        .unwrap_or_else(|| panic!("no recap row for {host}:\n{}", r.stdout));
    row.split_whitespace().skip(1).map(str::to_string).collect()
}

fn gather(d: &Path, out: &str) -> Run {
    let mut a = vec!["facts", "--gather", "--out", out, "--parallel", "3"];
    a.extend(HOSTS.iter().map(|(h, _)| *h));
    run(d, &a)
}

/// The dry run over the gathered snapshots, saved to `plan`: the document,
/// validated.
fn plan(d: &Path, facts: &str, plan: &str) -> Value {
    let mut a = vec![
        "apply",
        "--dry-run",
        "--state-dir",
        facts,
        "--out",
        plan,
        "--format",
        "json",
    ];
    a.extend(HOSTS.iter().map(|(h, _)| *h));
    let r = plain(d, &a);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    let doc: Value = serde_json::from_str(&r.stdout).expect("one JSON document");
    valid(&schema("dry-run.schema.json"), &doc, "dry run");
    let saved: Value = serde_json::from_str(&fs::read_to_string(d.join(plan)).unwrap()).unwrap();
    valid(&schema("plan.schema.json"), &saved, "plan");
    doc
}

/// The hosts' count of steps to add, change or remove, by host.
fn pending(doc: &Value) -> Vec<(String, u64)> {
    doc["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let s = &h["summary"];
            let n = ["add", "change", "remove", "unknown"]
                .iter()
                .map(|k| s[k].as_u64().unwrap())
                .sum();
            (h["host"].as_str().unwrap().to_string(), n)
        })
        .collect()
}

// ---------------------------------------------------------------- offline

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
    assert_eq!(types, ["host", "host", "host", "summary"]);

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
    let snapshot = fs::read_to_string(format!("{fleet}/db02.example.org.json")).unwrap();
    assert_eq!(
        plan["hosts"][1]["facts_sha256"],
        beryl::apply::sha256_hex(&snapshot).as_str()
    );
    let facts = plain(d, &["facts", "db02"]).stdout;
    assert_eq!(
        plan["hosts"][1]["facts_script_sha256"],
        beryl::apply::sha256_hex(&facts).as_str()
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
    let r = plain(
        d,
        &["apply", "--plan", "plan.json", "host01", "--format", "json"],
    );
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    let events = lines(&schema("events.schema.json"), &r);
    assert_eq!(events.len(), 2, "{}", r.stdout);
    assert_eq!(events[0]["status"], "stale");
    assert_eq!(events[1]["stale"], json!(["host01.example.org"]));
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

// ---------------------------------------------------------------- live

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
    let r = run(d, &["apply", "--plan", "plan1.json", "--format", "json"]);
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

    // Stale: after the plan, host02's state drifts (facts differ) and
    // host01's config changes (the inventory compiles to another config).
    for w in &fleet {
        crate::live::sh(&w.bsd, crate::live::DRIFT);
    }
    assert_eq!(gather(d, "facts").status, 0);
    let doc = plan(d, "facts", "plan3.json");
    assert!(pending(&doc).iter().all(|(_, n)| *n == 6), "{doc:#}");
    crate::live::sh(&fleet[1].bsd, "pw groupadd latecomer");
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
    let events_of_run = lines(&events, &r);
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
        ("host02", "the facts are not the plan's (sha256 "),
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
    for w in &fleet[..2] {
        let sum = crate::live::sh(&w.bsd, "cat /var/db/zoneinfo");
        assert_eq!(sum.trim(), "UTC");
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
