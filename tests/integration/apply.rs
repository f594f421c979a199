//! `beryl apply` and `beryl facts` (docs/apply.md), proven four ways:
//!
//! - **Snapshots** of the dry run, text and JSON, for host01 and db02 of the
//!   example inventory: with no state, and against a state snapshot that
//!   matches except for one difference of each kind (tests/fixtures/apply/
//!   holds the exact snapshots, which are what `facts` reports on the fake
//!   host after an apply; the differences are made here, one by one).
//! - **Static**: `shellcheck -s sh` and `dash -n` on the apply and facts
//!   scripts.
//! - **Idempotence under stubs**: the apply script on a fake FreeBSD host
//!   (`apply/fakehost.rs`, tests/fixtures/apply/fakebsd.py): the first run
//!   changes things, the second nothing, one drift makes exactly one step
//!   change, and `facts` then reads back a state the dry run finds in order.
//! - **A real SSH round trip** through a private sshd on 127.0.0.1.
//!
//! Missing tools (python3, shellcheck, dash, sshd) skip with a notice, unless
//! BERYL_REQUIRE_TOOLS is set (as in .ci/run): then they fail.

mod fakehost;
mod sshd;

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use crate::harness::{Run, beryl, beryl_with_env, copy_tree, repo};
use fakehost::{FakeHost, Ran, tool};

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// The example inventory (and its key files) in a temporary directory.
fn example() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&repo().join("inventory"), &dir.path().join("inventory"));
    copy_tree(&repo().join("ssh"), &dir.path().join("ssh"));
    dir
}

/// The rc.conf variables that `with_rc_conf` gives host01.
const RC_CONF: &[(&str, &str)] = &[
    ("syslogd_flags", "-ss"),
    ("sendmail_enable", "NONE"),
    ("ntpd_enable", "YES"),
];

/// The example inventory with an rc_conf block in host01 (the example has
/// none), so that sysrc steps and a second service run too.
fn with_rc_conf() -> tempfile::TempDir {
    let dir = example();
    let path = dir.path().join("inventory/example.org/web/host01.yml");
    let text = fs::read_to_string(&path).unwrap();
    let block = "freebsd:\n  rc_conf:\n    syslogd_flags: -ss\n    sendmail_enable: NONE\n    ntpd_enable: true\n";
    assert!(text.contains("\nfreebsd:\n"));
    fs::write(
        &path,
        text.replacen("\nfreebsd:\n", &format!("\n{block}"), 1),
    )
    .unwrap();
    dir
}

fn run(dir: &Path, a: &[&str]) -> Run {
    beryl(dir, &args(a))
}

fn fixture_path(name: &str) -> std::path::PathBuf {
    repo().join(format!("tests/fixtures/apply/{name}.json"))
}

/// An exact snapshot: what `facts` reports after applying the host.
fn fixture(name: &str) -> Value {
    serde_json::from_str(&fs::read_to_string(fixture_path(name)).unwrap()).unwrap()
}

/// `got` must be the fixture; BERYL_UPDATE_FIXTURES=1 rewrites it instead.
fn assert_fixture(name: &str, got: &Value) {
    if std::env::var_os("BERYL_UPDATE_FIXTURES").is_some() {
        let mut text = serde_json::to_string_pretty(got).unwrap();
        text.push('\n');
        fs::write(fixture_path(name), text).unwrap();
        return;
    }
    let want = fixture(name);
    assert!(
        &want == got,
        "tests/fixtures/apply/{name}.json is not what facts reports (BERYL_UPDATE_FIXTURES=1 rewrites it):\n{}",
        serde_json::to_string_pretty(got).unwrap()
    );
}

/// host01's exact snapshot with the rc.conf variables of `with_rc_conf`.
fn host01_rc_exact() -> Value {
    let mut s = fixture("host01");
    for (name, value) in RC_CONF {
        s["rc_conf"][name] = json!(value);
    }
    s
}

fn remove(list: &mut Value, item: &str) {
    let list = list.as_array_mut().unwrap();
    let before = list.len();
    list.retain(|v| v != item);
    assert_eq!(list.len(), before - 1, "{item} not in the snapshot");
}

/// A file's snapshot with other content (and its digest).
fn set_content(file: &mut Value, content: &str) {
    file["content"] = json!(content);
    file["sha256"] = json!(beryl::apply::sha256_hex(content));
}

/// host01's snapshot with one difference of each kind.
fn host01_drift() -> Value {
    let mut s = fixture("host01");
    // A package that is not installed.
    remove(&mut s["packages"], "tmux");
    remove(&mut s["origins"], "sysutils/tmux");
    // A group that does not exist (so carol, its member, is not in it).
    s["groups"].as_object_mut().unwrap().remove("dba").unwrap();
    // A user with another shell.
    s["users"]["alice"]["shell"] = json!("/bin/sh");
    // authorized_keys with other content: bob's RSA key replaced by a key
    // that is no longer in the config.
    let keys = &mut s["users"]["bob"]["authorized_keys"];
    let mut content: String = keys["content"]
        .as_str()
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("ssh-rsa "))
        .map(|l| format!("{l}\n"))
        .collect();
    content.push_str("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAvqVJ0lKb2B0bOldLaptopKeyRevokedIn2025xx bob@old-laptop\n");
    set_content(keys, &content);
    // The sudoers drop-in with the wrong mode.
    s["files"]["/usr/local/etc/sudoers.d/beryl"]["mode"] = json!("640");
    // Another rc.conf value: none in host01, see `with_rc_conf`.
    // Another time zone, another host name.
    s["timezone"] = json!("UTC");
    s["hostname"] = json!("generic");
    s["rc_conf"]["hostname"] = json!("generic");
    // sshd not enabled.
    s["rc_conf"]["sshd_enable"] = json!("NO");
    s
}

/// db02's snapshot: bob, marked `state: absent`, still exists; the package
/// named by origin is missing; alice's .ssh directory is open to all.
fn db02_drift() -> Value {
    let mut s = fixture("db02");
    s["users"]["bob"] = json!({
        "uid": "1002", "gid": "20", "comment": "Bob Durand (contractor)",
        "home": "/home/bob", "shell": "/bin/csh", "authorized_keys": null, "ssh_dir": null
    });
    remove(&mut s["packages"], "postgresql16-server");
    remove(&mut s["origins"], "databases/postgresql16-server");
    s["users"]["alice"]["ssh_dir"]["mode"] = json!("755");
    s
}

/// host01 of `with_rc_conf`: one rc.conf value differs, one is missing, and
/// ntpd is not enabled.
fn host01_rc_drift() -> Value {
    let mut s = host01_rc_exact();
    s["rc_conf"]["syslogd_flags"] = json!("-s");
    s["rc_conf"]
        .as_object_mut()
        .unwrap()
        .remove("sendmail_enable");
    s["rc_conf"]["ntpd_enable"] = json!("NO");
    s
}

fn write_state(dir: &Path, name: &str, state: &Value) -> String {
    let file = format!("{name}.json");
    fs::write(
        dir.join(&file),
        serde_json::to_string_pretty(state).unwrap(),
    )
    .unwrap();
    file
}

// ---------------------------------------------------------------- snapshots

#[test]
fn dry_run_without_state() {
    let dir = example();
    for host in ["host01", "db02"] {
        for (suffix, extra) in [("", &[][..]), ("_json", &["--format", "json"][..])] {
            let mut a = vec!["apply", host, "--dry-run"];
            a.extend(extra);
            let a = args(&a);
            let r = beryl(dir.path(), &a);
            assert_eq!(r.status, 0, "{}", r.stderr);
            insta::assert_snapshot!(format!("dry_run_{host}_unknown{suffix}"), r.transcript(&a));
        }
    }
}

#[test]
fn dry_run_against_a_drifted_snapshot() {
    let cases: [(&str, tempfile::TempDir, Value); 3] = [
        ("host01", example(), host01_drift()),
        ("db02", example(), db02_drift()),
        ("host01_rc_conf", with_rc_conf(), host01_rc_drift()),
    ];
    for (name, dir, state) in cases {
        let host = name.split('_').next().unwrap();
        let file = write_state(dir.path(), &format!("{name}-drift"), &state);
        for (suffix, extra) in [("", &[][..]), ("_json", &["--format", "json"][..])] {
            let mut a = vec!["apply", host, "--dry-run", "--state", &file];
            a.extend(extra);
            let a = args(&a);
            let r = beryl(dir.path(), &a);
            assert_eq!(r.status, 0, "{}", r.stderr);
            insta::assert_snapshot!(format!("dry_run_{name}_drift{suffix}"), r.transcript(&a));
        }
    }
}

/// An exact snapshot: every step unchanged, and `--exit-code` is 1 only when
/// something is pending (a drift, or an unknown state).
#[test]
fn dry_run_against_an_exact_snapshot_and_exit_codes() {
    let cases: [(&str, tempfile::TempDir, Value, Value, usize); 3] = [
        ("host01", example(), fixture("host01"), host01_drift(), 19),
        ("db02", example(), fixture("db02"), db02_drift(), 16),
        (
            "host01",
            with_rc_conf(),
            host01_rc_exact(),
            host01_rc_drift(),
            22,
        ),
    ];
    for (host, dir, exact, drift, steps) in cases {
        let d = dir.path();
        let exact = write_state(d, "exact", &exact);
        let drift = write_state(d, "drift", &drift);
        let r = run(d, &["apply", host, "--dry-run", "--state", &exact]);
        assert_eq!(r.status, 0, "{}", r.stderr);
        assert_eq!(
            r.stdout.lines().last().unwrap(),
            format!("Plan: 0 to add, 0 to change, 0 to remove, {steps} unchanged.")
        );
        assert_eq!(
            r.stdout.lines().filter(|l| l.starts_with("= ")).count(),
            steps
        );
        let r = run(
            d,
            &[
                "apply",
                host,
                "--dry-run",
                "--state",
                &exact,
                "--format",
                "json",
            ],
        );
        let report: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(
            report["summary"],
            json!({"add": 0, "change": 0, "remove": 0, "unchanged": steps, "unknown": 0})
        );
        let status = |extra: &[&str]| {
            let mut a = vec!["apply", host, "--dry-run"];
            a.extend(extra);
            let r = run(d, &a);
            assert!(r.stderr.is_empty(), "{}", r.stderr);
            r.status
        };
        assert_eq!(
            status(&["--state", &exact, "--exit-code"]),
            0,
            "{host}: exact"
        );
        assert_eq!(
            status(&["--state", &drift, "--exit-code"]),
            1,
            "{host}: drift"
        );
        assert_eq!(status(&["--exit-code"]), 1, "{host}: state unknown");
        assert_eq!(
            status(&["--state", &drift]),
            0,
            "{host}: drift, no --exit-code"
        );
    }
}

#[test]
fn a_snapshot_that_is_not_one_is_refused() {
    let dir = example();
    fs::write(dir.path().join("bad.json"), "{\"users\": [1, 2]}\n").unwrap();
    let r = run(
        dir.path(),
        &["apply", "host01", "--dry-run", "--state", "bad.json"],
    );
    assert_eq!(r.status, 2);
    assert!(r.stderr.contains("bad.json:1:"), "{}", r.stderr);
    assert!(r.stderr.contains("beryl facts"), "{}", r.stderr);
}

// ---------------------------------------------------------------- static

fn script(dir: &Path, host: &str) -> String {
    let r = run(dir, &["apply", host, "--script"]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    r.stdout
}

fn facts(dir: &Path) -> String {
    let r = run(dir, &["facts"]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    r.stdout
}

#[test]
fn scripts_pass_shellcheck_and_dash() {
    let (Some(shellcheck), Some(dash)) = (
        tool(&["shellcheck"], "scripts_pass_shellcheck_and_dash"),
        tool(&["dash"], "scripts_pass_shellcheck_and_dash"),
    ) else {
        return;
    };
    let (plain, rc) = (example(), with_rc_conf());
    let scripts = [
        ("apply host01", script(plain.path(), "host01")),
        ("apply db02", script(plain.path(), "db02")),
        ("apply host01 with rc_conf", script(rc.path(), "host01")),
        ("facts", facts(plain.path())),
    ];
    for (what, text) in scripts {
        let file = plain.path().join("script.sh");
        fs::write(&file, &text).unwrap();
        for (prog, a) in [(&shellcheck, &["-s", "sh"][..]), (&dash, &["-n"][..])] {
            let out = std::process::Command::new(prog)
                .args(a)
                .arg(&file)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{} {a:?} on `beryl {what}`:\n{}{}",
                prog.display(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

/// The facts script's JSON strings, under every awk at hand (FreeBSD's is
/// the one true awk; Debian's default is mawk).
#[test]
fn facts_json_strings_survive_any_awk() {
    let text = facts(&repo());
    let start = text.find("json() {").unwrap();
    let end = start + text[start..].find("\n}\n").unwrap() + 3;
    let func = &text[start..end];
    let samples = [
        "",
        "plain",
        "back\\slash \"quoted\" tab\there cr\r ctl\u{1} é ✓",
        "line\n",
        "two\nlines\n\n",
        "\n",
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut ran = 0;
    for awk in ["mawk", "original-awk", "nawk", "gawk"] {
        let Some(path) = ["/usr/bin/", "/bin/"]
            .iter()
            .map(|d| Path::new(d).join(awk))
            .find(|p| p.is_file())
        else {
            continue;
        };
        let bin = dir.path().join(awk);
        fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(&path, bin.join("awk")).unwrap();
        for s in samples {
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("{func}json \"$1\""))
                .arg("sh")
                .arg(s)
                .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
                .output()
                .unwrap();
            let got = String::from_utf8_lossy(&out.stdout);
            let back: String = serde_json::from_str(&got)
                .unwrap_or_else(|e| panic!("{awk}: {got:?} is not a JSON string: {e}"));
            assert_eq!(back, s, "{awk}");
        }
        ran += 1;
    }
    assert!(ran > 0, "no awk found");
    assert!(
        !fakehost::required() || Path::new("/usr/bin/original-awk").is_file(),
        "BERYL_REQUIRE_TOOLS is set but original-awk is missing"
    );
}

// ---------------------------------------------------------------- stubs

/// `= id` / `~ id` lines of a run, as (symbol, id).
fn steps_of(ran: &Ran) -> Vec<(char, String)> {
    ran.stdout
        .lines()
        .filter_map(|l| {
            let (sym, id) = l.split_once(' ')?;
            matches!(sym, "=" | "~").then(|| (sym.chars().next().unwrap(), id.to_string()))
        })
        .collect()
}

/// Commands that change a host; none may run when nothing is to change.
fn mutating(calls: &[String]) -> Vec<&String> {
    calls
        .iter()
        .filter(|c| {
            let w: Vec<&str> = c.split(' ').collect();
            match w[0] {
                "pw" => !w[1].ends_with("show"),
                "pkg" => w[1] == "install",
                "sysrc" => !w.iter().any(|a| matches!(*a, "-c" | "-n" | "-a")),
                "service" => w.get(2) != Some(&"enabled"),
                "visudo" | "stat" | "sha256" => false,
                _ => true,
            }
        })
        .collect()
}

/// Runs `beryl facts` on the host and returns the snapshot.
fn facts_on(host: &FakeHost, dir: &Path) -> Value {
    let ran = host.sh(&facts(dir), &[]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|e| panic!("facts wrote no JSON ({e}):\n{}", ran.stdout))
}

/// The dry run against what `facts` reads on the host now: the steps that
/// are not `=`.
fn predicted(host: &FakeHost, dir: &Path, name: &str) -> Vec<String> {
    let file = write_state(dir, name, &facts_on(host, dir));
    let r = run(dir, &["apply", "host01", "--dry-run", "--state", &file]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    r.stdout
        .lines()
        .filter(|l| matches!(l.chars().next(), Some('+' | '~' | '-')))
        .map(|l| l[2..].to_string())
        .collect()
}

#[test]
fn apply_script_converges_under_stubs() {
    let Some(host) = FakeHost::new("apply_script_converges_under_stubs") else {
        return;
    };
    let dir = with_rc_conf();
    let d = dir.path();
    let text = script(d, "host01");

    // A fresh host: every step changes.
    let first = host.sh(&text, &[]);
    assert_eq!(first.status, 0, "{}{}", first.stdout, first.stderr);
    let steps = steps_of(&first);
    assert_eq!(steps.len(), 22, "{}", first.stdout);
    assert!(steps.iter().all(|(s, _)| *s == '~'), "{}", first.stdout);
    assert_eq!(
        first.last_line(),
        "apply: 22 changed, 0 unchanged, 0 failed"
    );
    assert_eq!(
        first.stdout.lines().next(),
        Some("apply host01.example.org")
    );
    host.take_calls();

    // Converged: nothing changes, and nothing but checks runs.
    let second = host.sh(&text, &[]);
    assert_eq!(second.status, 0, "{}", second.stdout);
    assert_eq!(
        second.last_line(),
        "apply: 0 changed, 22 unchanged, 0 failed"
    );
    let calls = host.take_calls();
    assert_eq!(mutating(&calls), Vec::<&String>::new());

    // facts reads back the state the config describes.
    let mut snapshot = facts_on(&host, d);
    let file = write_state(d, "converged", &snapshot);
    let r = run(
        d,
        &[
            "apply",
            "host01",
            "--dry-run",
            "--state",
            &file,
            "--exit-code",
        ],
    );
    assert_eq!(r.status, 0, "{}", r.stdout);
    assert_eq!(
        r.stdout.lines().last().unwrap(),
        "Plan: 0 to add, 0 to change, 0 to remove, 22 unchanged."
    );
    // …and that is host01's fixture, plus the rc.conf variables.
    for (name, _) in RC_CONF {
        snapshot["rc_conf"].as_object_mut().unwrap().remove(*name);
    }
    assert_fixture("host01", &snapshot);

    // One drift at a time: the dry run against facts predicts exactly one
    // step, and the apply changes exactly that one.
    type Drift = fn(&FakeHost);
    let drifts: [(&str, Drift); 4] = [
        ("user:alice", |h| {
            let mut users = h.read("users.json");
            users["alice"]["shell"] = json!("/bin/sh");
            h.write("users.json", &users);
        }),
        ("sysrc:syslogd_flags", |h| {
            let rc = h.root.join("etc/rc.conf");
            let text = fs::read_to_string(&rc).unwrap();
            fs::write(
                &rc,
                text.replace("syslogd_flags=\"-ss\"", "syslogd_flags=\"-s\""),
            )
            .unwrap();
        }),
        ("keys:bob", |h| {
            let keys = h.root.join("home/bob/.ssh/authorized_keys");
            let mut text = fs::read_to_string(&keys).unwrap();
            text.push_str("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAvqVJ0lKb2B0bOldLaptopKeyRevokedIn2025xx bob@old-laptop\n");
            fs::write(&keys, text).unwrap();
        }),
        ("file:/usr/local/etc/sudoers.d/beryl", |h| {
            use std::os::unix::fs::PermissionsExt;
            let path = h.root.join("usr/local/etc/sudoers.d/beryl");
            fs::set_permissions(path, fs::Permissions::from_mode(0o644)).unwrap();
        }),
    ];
    for (id, drift) in drifts {
        drift(&host);
        assert_eq!(
            predicted(&host, d, "drifted"),
            [id],
            "dry run after a drift of {id}"
        );
        let ran = host.sh(&text, &[]);
        assert_eq!(ran.status, 0, "{}", ran.stdout);
        let changed: Vec<_> = steps_of(&ran)
            .into_iter()
            .filter(|(s, _)| *s == '~')
            .collect();
        assert_eq!(changed, [('~', id.to_string())], "{}", ran.stdout);
        assert_eq!(ran.last_line(), "apply: 1 changed, 21 unchanged, 0 failed");
    }
    assert_eq!(predicted(&host, d, "final"), Vec::<String>::new());
}

/// db02: bob, `state: absent`, exists on the host and is removed; his
/// group memberships go with him.
#[test]
fn apply_script_removes_an_absent_user_under_stubs() {
    let Some(host) = FakeHost::new("apply_script_removes_an_absent_user_under_stubs") else {
        return;
    };
    let dir = example();
    let d = dir.path();
    let add = host.sh(
        "pw useradd -n bob -m -u 1002 -c 'Bob Durand (contractor)' -s /bin/csh -g staff -G operator -h -",
        &[],
    );
    assert_eq!(add.status, 0, "{}", add.stderr);
    let text = script(d, "db02");
    let first = host.sh(&text, &[]);
    assert_eq!(first.status, 0, "{}", first.stdout);
    assert!(first.stdout.contains("\n~ user:bob\n"), "{}", first.stdout);
    assert_eq!(
        first.last_line(),
        "apply: 16 changed, 0 unchanged, 0 failed"
    );
    assert!(host.read("users.json").get("bob").is_none());
    assert_eq!(
        host.read("groups.json")["operator"]["members"],
        json!(["root"])
    );
    let second = host.sh(&text, &[]);
    assert_eq!(
        second.last_line(),
        "apply: 0 changed, 16 unchanged, 0 failed"
    );
    let snapshot = facts_on(&host, d);
    assert_fixture("db02", &snapshot);
}

#[test]
fn beryl_dry_run_variable_only_checks() {
    let Some(host) = FakeHost::new("beryl_dry_run_variable_only_checks") else {
        return;
    };
    let dir = example();
    let text = script(dir.path(), "host01");
    let before = host.fingerprint();
    let ran = host.sh(&text, &[("BERYL_DRY_RUN", "1")]);
    assert_eq!(ran.status, 0, "{}", ran.stdout);
    let would: Vec<_> = ran.lines("~ ");
    assert_eq!(would.len(), 19, "{}", ran.stdout);
    assert!(
        would.iter().all(|l| l.ends_with(" would change")),
        "{}",
        ran.stdout
    );
    assert_eq!(ran.last_line(), "apply: 19 changed, 0 unchanged, 0 failed");
    assert_eq!(
        host.fingerprint(),
        before,
        "BERYL_DRY_RUN=1 changed the host"
    );
    assert_eq!(mutating(&host.take_calls()), Vec::<&String>::new());
}

#[test]
fn a_failing_step_stops_the_script() {
    let Some(host) = FakeHost::new("a_failing_step_stops_the_script") else {
        return;
    };
    let dir = example();
    let text = script(dir.path(), "host01");
    let ran = host.sh(&text, &[("BERYL_STUB_FAIL", "pkg install -y nginx")]);
    assert_eq!(ran.status, 1, "{}", ran.stdout);
    assert_eq!(
        ran.stdout,
        "apply host01.example.org\n\
         ~ pkg:sudo\n\
         ~ pkg:tmux\n\
         ~ pkg:node_exporter\n    \
         pkg: simulated failure (BERYL_STUB_FAIL)\n\
         ! pkg:nginx FAILED: the change exited 1\n\
         apply: 3 changed, 0 unchanged, 1 failed\n"
    );
    // Nothing after the failure ran.
    assert!(host.read("packages.json").get("bash").is_none());

    // A change that succeeds but leaves the check failing.
    let ran = host.sh(&text, &[("BERYL_STUB_IGNORE", "tzsetup")]);
    assert_eq!(ran.status, 1, "{}", ran.stdout);
    assert!(
        ran.stdout.ends_with(
            "~ file:/usr/local/etc/sudoers.d/beryl\n\
             ! tz FAILED: still differs after the change\n\
             apply: 13 changed, 3 unchanged, 1 failed\n"
        ),
        "{}",
        ran.stdout
    );
}

// ---------------------------------------------------------------- ssh

#[test]
fn apply_over_ssh_round_trip() {
    let test = "apply_over_ssh_round_trip";
    let Some(sshd_bin) = tool(&["/usr/sbin/sshd"], test) else {
        return;
    };
    if tool(&["ssh"], test).is_none() || tool(&["ssh-keygen"], test).is_none() {
        return;
    }
    let Some(host) = FakeHost::new(test) else {
        return;
    };
    let server = sshd::Sshd::start(&sshd_bin);
    let dir = example();
    let d = dir.path();
    let default = d.join("inventory/_default.yml");
    let mut text = fs::read_to_string(&default).unwrap();
    text.push_str(&format!(
        "\n# The test's own sshd.\nssh:\n  host: 127.0.0.1\n  port: {}\n  user: {}\n  identity_file: {}\n",
        server.port,
        server.user,
        server.identity.display()
    ));
    fs::write(&default, text).unwrap();

    let mut base = vec![
        "apply".to_string(),
        "--ssh-option".into(),
        "StrictHostKeyChecking=no".into(),
        "--ssh-option".into(),
        "UserKnownHostsFile=/dev/null".into(),
        "--ssh-option".into(),
        "IdentitiesOnly=yes".into(),
        "--ssh-option".into(),
        "LogLevel=ERROR".into(),
    ];
    for (k, v) in host.env() {
        base.push("--remote-env".into());
        base.push(format!("{k}={v}"));
    }
    let apply = |extra: &[&str]| {
        let mut a = base.clone();
        a.extend(extra.iter().map(|s| s.to_string()));
        let r = beryl_with_env(d, &a, &[], None);
        (r, a)
    };
    // First run: changes, streamed line by line; --exit-code says so.
    let (r, _) = apply(&["host01", "--exit-code"]);
    assert_eq!(r.status, 1, "{}\n{}\n{}", r.stdout, r.stderr, server.log());
    assert_eq!(r.stdout.lines().next(), Some("apply host01.example.org"));
    assert_eq!(
        r.stdout.lines().last(),
        Some("apply: 19 changed, 0 unchanged, 0 failed")
    );
    // Second run: nothing to do.
    let (r, _) = apply(&["host01", "--exit-code"]);
    assert_eq!(r.status, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout.lines().last(),
        Some("apply: 0 changed, 19 unchanged, 0 failed")
    );
    // One drift: one step changes.
    let mut users = host.read("users.json");
    users["alice"]["shell"] = json!("/bin/sh");
    host.write("users.json", &users);
    let (r, _) = apply(&["host01", "--exit-code"]);
    assert_eq!(r.status, 1, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout
            .lines()
            .filter(|l| l.starts_with("~ "))
            .collect::<Vec<_>>(),
        ["~ user:alice"]
    );
    // A failing step: beryl exits 2 (a --remote-env value with a space).
    host.write("users.json", &users);
    let (r, _) = apply(&["host01", "--remote-env", "BERYL_STUB_FAIL=pw usermod"]);
    assert_eq!(r.status, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("\n! user:alice FAILED: the change exited 1\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .ends_with("apply: 0 changed, 7 unchanged, 1 failed\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr
            .contains("host01.example.org: the apply script failed (exit 1)"),
        "{}",
        r.stderr
    );
    // Two hosts at once, checks only: each host's lines, prefixed, then its
    // summary.
    let (r, _) = apply(&[
        "host01",
        "host02",
        "--parallel",
        "2",
        "--remote-env",
        "BERYL_DRY_RUN=1",
    ]);
    assert_eq!(r.status, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("host01.example.org: ~ user:alice would change\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("host01.example.org: done, 1 changed\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("host02.example.org: apply host02.example.org\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("\nhost02.example.org: done, "),
        "{}",
        r.stdout
    );
    // Converge again, then facts over ssh agrees with the dry run.
    let (r, _) = apply(&["host01"]);
    assert_eq!(r.status, 0, "{}\n{}", r.stdout, r.stderr);
    let facts_text = facts(d);
    let out = std::process::Command::new("ssh")
        .args(["-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no"])
        .args([
            "-o",
            "UserKnownHostsFile=/dev/null",
            "-o",
            "IdentitiesOnly=yes",
        ])
        .args(["-o", "LogLevel=ERROR", "-p", &server.port.to_string(), "-i"])
        .arg(&server.identity)
        .arg(format!("{}@127.0.0.1", server.user))
        .arg(format!(
            "env PATH={} BERYL_ROOT={} BERYL_STUB_DB={} sh -s",
            host.path(),
            host.root.display(),
            host.db.display()
        ))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(facts_text.as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    assert!(out.status.success());
    fs::write(d.join("facts.json"), &out.stdout).unwrap();
    let r = run(
        d,
        &[
            "apply",
            "host01",
            "--dry-run",
            "--state",
            "facts.json",
            "--exit-code",
        ],
    );
    assert_eq!(r.status, 0, "{}", r.stdout);

    // An unreachable host: exit 2, and ssh's own words.
    let target = format!("ssh to {}@127.0.0.1:{} failed", server.user, server.port);
    drop(server);
    let (r, _) = apply(&["host01"]);
    assert_eq!(r.status, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stderr.contains(&target), "{}", r.stderr);
}
