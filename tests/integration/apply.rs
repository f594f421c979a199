//! `beryl apply` and `beryl facts` (docs/apply.md), offline:
//!
//! - **Snapshots** of the dry run, text and JSON, for host01 and db02 of the
//!   example inventory: with no state, and against a state snapshot that
//!   matches except for one difference of each kind. tests/fixtures/apply/
//!   holds the exact snapshots: what `facts` reports on the host installed
//!   from its plan on the fake FreeBSD (checked, and rewritten, by
//!   `live::state_fixtures_are_what_facts_reports_on_the_installed_host`);
//!   the differences are made here, one by one.
//! - **Static**: `shellcheck -s sh` and `dash -n` on the apply and facts
//!   scripts; the facts script's JSON strings under every awk at hand.
//!
//! The apply script itself runs on the fake FreeBSD in `live.rs`, and over
//! ssh in `apply/sshd.rs`. Missing tools (shellcheck, dash) skip with a
//! notice, unless BERYL_REQUIRE_TOOLS is set (as in .ci/run): then they fail.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use crate::support::{Run, args, beryl, edit, example, fixtures, repo, required, skip, tools};

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
    let block = "freebsd:\n  rc_conf:\n    syslogd_flags: -ss\n    sendmail_enable: NONE\n    ntpd_enable: true\n";
    edit(
        &dir.path().join("inventory/example.org/web/host01.yml"),
        "\nfreebsd:\n",
        &format!("\n{block}"),
    );
    dir
}

fn run(dir: &Path, a: &[&str]) -> Run {
    beryl(dir, &args(a))
}

fn fixture_path(name: &str) -> std::path::PathBuf {
    fixtures().join(format!("apply/{name}.json"))
}

/// An exact snapshot: what `facts` reports after applying the host.
fn fixture(name: &str) -> Value {
    serde_json::from_str(&fs::read_to_string(fixture_path(name)).unwrap()).unwrap()
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

fn insert_sorted(list: &mut Value, item: &str) {
    let list = list.as_array_mut().unwrap();
    let at = list.partition_point(|v| v.as_str().unwrap() < item);
    list.insert(at, json!(item));
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
    // A package beryl installed that has left the config (pruned), in
    // place of tmux in the record.
    insert_sorted(&mut s["packages"], "vim");
    insert_sorted(&mut s["origins"], "editors/vim");
    let managed = s["managed"].as_array_mut().unwrap();
    let at = managed
        .iter()
        .position(|r| r == &json!(["pkg", "tmux"]))
        .unwrap();
    managed[at] = json!(["pkg", "vim"]);
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
    s["files"]["/usr/local/etc/sudoers.d/beryl"]["mode"] = json!("0640");
    // Another rc.conf value: none in host01, see `with_rc_conf`.
    // Another time zone, another host name.
    s["timezone"] = json!("UTC");
    s["rc_conf"]["hostname"] = json!("generic");
    // sshd not enabled.
    s["rc_conf"]["sshd_enable"] = json!("NO");
    // nginx.conf edited by hand (its notify reloads nginx), nginx stopped.
    let conf = &mut s["files"]["/usr/local/etc/nginx/nginx.conf"];
    let content = conf["content"]
        .as_str()
        .unwrap()
        .replace("worker_processes auto;", "worker_processes 1;");
    set_content(conf, &content);
    s["services"]["nginx"]["running"] = json!(false);
    s
}

/// tests/fixtures/apply/host01-drift.json, which docs/apply.md shows and
/// fleet/ copies, is [`host01_drift`]: the facts of the installed host01,
/// taken by its own facts script, with one difference of each kind.
#[test]
fn the_drift_fixture_is_host01_s_snapshot_with_one_difference_of_each_kind() {
    let path = fixture_path("host01-drift");
    let mut want = serde_json::to_string_pretty(&host01_drift()).unwrap();
    want.push('\n');
    if std::env::var_os("BERYL_UPDATE_FIXTURES").is_some() {
        fs::write(&path, &want).unwrap();
        fs::write(fixture_path("fleet/host01.example.org"), &want).unwrap();
    }
    assert!(
        fs::read_to_string(&path).unwrap() == want,
        "{} is not host01.json with host01_drift's differences (BERYL_UPDATE_FIXTURES=1 rewrites it)",
        path.display()
    );
}

/// db02's snapshot: bob, marked `state: absent`, still exists; the package
/// named by origin is missing; alice's .ssh directory is open to all; the
/// database's dataset has lost its record size (only the default).
fn db02_drift() -> Value {
    let mut s = fixture("db02");
    s["zfs"]["tank/pgdata"]["props"]["recordsize"] =
        json!({"value": "131072", "source": "default"});
    s["users"]["bob"] = json!({
        "uid": "1002", "gid": "20", "comment": "Bob Durand (contractor)",
        "home": "/home/bob", "shell": "/bin/csh", "authorized_keys": null, "ssh_dir": null
    });
    remove(&mut s["packages"], "postgresql16-server");
    remove(&mut s["origins"], "databases/postgresql16-server");
    s["users"]["alice"]["ssh_dir"]["mode"] = json!("0755");
    s
}

/// host01 of `with_rc_conf`: one rc.conf value differs, one is missing, and
/// ntpd is not enabled.
fn host01_rc_drift() -> Value {
    let mut s = host01_rc_exact();
    s["rc_conf"]["syslogd_flags"] = json!("-s");
    s["rc_conf"]["sendmail_enable"] = json!("NO");
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

/// A saved plan whose facts are another host's, or were taken by another
/// script, is refused as stale even when its own digests were made to
/// agree (an edited plan); the plan as saved runs.
#[test]
fn a_plan_with_another_host_s_or_script_s_facts_is_refused() {
    let dir = example();
    let d = dir.path();
    let state = write_state(d, "host01", &fixture("host01"));
    let r = run(
        d,
        &[
            "apply",
            "host01",
            "--dry-run",
            "--state",
            &state,
            "--out",
            "plan.json",
        ],
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    let plan: Value =
        serde_json::from_str(&fs::read_to_string(d.join("plan.json")).unwrap()).unwrap();
    let r = run(d, &["apply", "--plan", "plan.json", "--script"]);
    assert_eq!(r.status, 0, "the plan as saved: {}", r.stderr);
    let facts = plan["hosts"][0]["facts"].as_str().unwrap().to_string();
    let script = fixture("host01")["script"].as_str().unwrap().to_string();
    for (from, to, refusal) in [
        (
            "\"host\": \"host01.example.org\"".to_string(),
            "\"host\": \"db02.example.org\"".to_string(),
            "its facts are a snapshot of db02.example.org",
        ),
        (
            script.clone(),
            "0".repeat(64),
            "its facts were taken by another facts script",
        ),
        (
            "\"host\": \"host01.example.org\"".to_string(),
            "\"host\": \"\"".to_string(),
            "its facts are a snapshot that names no host",
        ),
    ] {
        let edited = facts.replacen(&from, &to, 1);
        assert!(edited != facts, "{from} is not in the plan's facts");
        let mut p = plan.clone();
        p["hosts"][0]["facts_sha256"] = json!(beryl::apply::sha256_hex(&edited));
        p["hosts"][0]["facts"] = json!(edited);
        fs::write(d.join("edited.json"), p.to_string()).unwrap();
        let r = run(d, &["apply", "--plan", "edited.json", "--script"]);
        assert_eq!(r.status, 2, "{refusal}: {}", r.stderr);
        let flat = r.stderr.replace('│', " ");
        let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("is stale") && flat.contains(refusal),
            "{refusal}: {}",
            r.stderr
        );
    }
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
        ("host01", example(), fixture("host01"), host01_drift(), 47),
        ("db02", example(), fixture("db02"), db02_drift(), 29),
        (
            "host01",
            with_rc_conf(),
            host01_rc_exact(),
            host01_rc_drift(),
            50,
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
            report["hosts"][0]["summary"],
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

/// A managed user's authorized_keys of 3,000,000 distinct lines on the
/// host (36 MB, under the snapshot's 64 MiB): the dry run summarises the
/// diff (`N lines differ (-R +A), sha256 X → Y`) instead of running a
/// quadratic line diff (it was killed at 300 s: issue 35). In text and in
/// JSON; the time is the corpus's concern, this checks the form.
#[test]
fn a_3000000_line_key_file_is_summarised_not_diffed() {
    let dir = example();
    let mut state = fixture("host01");
    let planted: String = (0..3_000_000).map(|i| format!("k{i:07} x\n")).collect();
    let keys = &mut state["users"]["alice"]["authorized_keys"];
    let want = keys["content"].as_str().unwrap().to_string();
    set_content(keys, &planted);
    let file = write_state(dir.path(), "planted", &state);
    let summary = format!(
        "3,000,004 lines differ (-3,000,000 +4), sha256 {} → {}: too large a diff to show (docs/diff.md)",
        beryl::apply::sha256_hex(&planted),
        beryl::apply::sha256_hex(&want)
    );
    drop(planted);
    let r = run(
        dir.path(),
        &["apply", "host01", "--dry-run", "--state", &file],
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(&format!("~ keys:alice\n    {summary}\n")),
        "{}",
        &r.stdout[..r.stdout.len().min(3000)]
    );
    let r = run(
        dir.path(),
        &[
            "apply",
            "host01",
            "--dry-run",
            "--state",
            &file,
            "--format",
            "json",
        ],
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    let report: Value = serde_json::from_str(&r.stdout).unwrap();
    let steps = report["hosts"][0]["steps"].as_array().unwrap();
    let step = steps.iter().find(|s| s["id"] == "keys:alice").unwrap();
    assert_eq!(step["diff"], json!(format!("{summary}\n")));
}

// ---------------------------------------------------------------- static

fn script(dir: &Path, host: &str) -> String {
    let r = run(dir, &["apply", host, "--script"]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    r.stdout
}

fn facts(dir: &Path) -> String {
    let r = run(dir, &["facts", "host01"]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    r.stdout
}

#[test]
fn scripts_pass_shellcheck_and_dash() {
    if !tools(&["shellcheck", "dash"], "scripts_pass_shellcheck_and_dash") {
        return;
    }
    let (shellcheck, dash) = (Path::new("shellcheck"), Path::new("dash"));
    let (plain, rc) = (example(), with_rc_conf());
    let scripts = [
        ("apply host01", script(plain.path(), "host01")),
        ("apply db02", script(plain.path(), "db02")),
        ("apply host01 with rc_conf", script(rc.path(), "host01")),
        ("facts host01", facts(plain.path())),
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
/// the one true awk; Debian's default is mawk): ASCII, each byte that is not
/// printable ASCII written `\u00XX`, so that a Latin-1 byte (E9) and UTF-8
/// (C3 A9) both come back as the host's bytes.
#[test]
fn facts_json_strings_survive_any_awk() {
    let text = facts(&repo());
    let start = text.find("json() {").unwrap();
    let end = start + text[start..].find("\n}\n").unwrap() + 3;
    let func = &text[start..end];
    let samples: [&[u8]; 7] = [
        b"",
        b"plain",
        "back\\slash \"quoted\" tab\there cr\r ctl\u{1} é ✓".as_bytes(),
        b"line\n",
        b"two\nlines\n\n",
        b"\n",
        b"Latin-1 Ren\xe9, \xff\x80",
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
            use std::os::unix::ffi::OsStrExt;
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("{func}json \"$1\""))
                .arg("sh")
                .arg(std::ffi::OsStr::from_bytes(s))
                .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
                .output()
                .unwrap();
            assert!(out.stdout.is_ascii(), "{awk}: {:?}", out.stdout);
            let got = String::from_utf8_lossy(&out.stdout);
            let back: String = serde_json::from_str(&got)
                .unwrap_or_else(|e| panic!("{awk}: {got:?} is not a JSON string: {e}"));
            let bytes: Vec<u8> = back.chars().map(|c| u8::try_from(c).unwrap()).collect();
            assert_eq!(bytes, s, "{awk}: {got}");
        }
        ran += 1;
    }
    assert!(ran > 0, "no awk found");
    assert!(
        !required() || Path::new("/usr/bin/original-awk").is_file(),
        "BERYL_REQUIRE_TOOLS is set but original-awk is missing"
    );
}

// ---------------------------------------------------------------- ssh

pub mod sshd;

/// `beryl apply` over a real ssh connection to a private sshd whose every
/// session is a login on the fake FreeBSD (host01 installed from its plan)
/// as `beryl`, the host's `ssh.user`: the remote command line ssh carries
/// (`sudo -n sh -s`) runs there as sshd would run it, the script on its
/// standard input.
#[test]
fn apply_over_ssh_round_trip() {
    let test = "apply_over_ssh_round_trip";
    if !tools(&["ssh", "ssh-keygen", "unshare"], test) {
        return;
    }
    let sshd_bin = Path::new("/usr/sbin/sshd");
    if !sshd_bin.is_file() {
        skip(test, "/usr/sbin/sshd (openssh-server) is missing");
        return;
    }
    let dir = example();
    let d = dir.path();
    // host01's jails are proven by live:: and jails_live::; this round trip
    // is the host's own (its installed state has them pending).
    fs::remove_dir_all(d.join("inventory/example.org/web/host01.jails")).unwrap();
    let Some(mut wired) = sshd::wire(d, "host01", "example.org/web/host01.yml", test) else {
        return;
    };
    let server = wired.server.take().unwrap();
    let (bsd, commands) = (&wired.bsd, &wired.commands);
    let apply = |extra: &[&str]| {
        let mut a = args(&["apply", "--yes"]);
        a.extend(args(&sshd::SSH_OPTIONS));
        a.extend(args(extra));
        beryl(d, &a)
    };
    let changed = |r: &Run| -> Vec<String> {
        r.stdout
            .lines()
            .filter_map(|l| l.strip_prefix("~ "))
            .map(str::to_string)
            .collect()
    };
    // The installed host: nothing to change; the line ssh carried.
    let r = apply(&["host01", "--exit-code"]);
    assert_eq!(r.status, 0, "{}\n{}\n{}", r.stdout, r.stderr, server.log());
    assert_eq!(r.stdout.lines().next(), Some("apply host01.example.org"));
    assert!(r.stdout.contains("\napply: 0 changed,"), "{}", r.stdout);
    // One host: its lines unprefixed, then the recap.
    assert!(
        r.stdout
            .ends_with("  host01.example.org        0         36       0  ok\n"),
        "{}",
        r.stdout
    );
    assert_eq!(fs::read_to_string(commands).unwrap(), "sudo -n sh -s\n");

    // A drift: checks only first (the host is untouched), then the apply
    // changes what the dry run against facts predicts; --exit-code says so.
    crate::live::sh(bsd, crate::live::DRIFT);
    let predicted: Vec<String> = crate::live::pending_ids(bsd, d, "host01")
        .iter()
        .map(|p| p[2..].to_string())
        .collect();
    assert_eq!(predicted.len(), 6, "{predicted:?}");
    let r = apply(&["host01", "--remote-env", "BERYL_DRY_RUN=1"]);
    assert_eq!(r.status, 0, "{}\n{}", r.stdout, r.stderr);
    let would: Vec<String> = changed(&r)
        .iter()
        .map(|l| l.trim_end_matches(" would change").to_string())
        .collect();
    assert_eq!(would, predicted, "{}", r.stdout);
    assert_eq!(
        crate::live::pending_ids(bsd, d, "host01").len(),
        6,
        "BERYL_DRY_RUN=1 changed the host"
    );
    let r = apply(&["host01", "--exit-code"]);
    assert_eq!(r.status, 1, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(changed(&r), predicted, "{}", r.stdout);
    let r = apply(&["host01", "--exit-code"]);
    assert_eq!(r.status, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(crate::live::pending(bsd, d, "host01").is_empty());
    assert_eq!(
        fs::read_to_string(commands).unwrap(),
        "sudo -n sh -s\nsudo -n env 'BERYL_DRY_RUN=1' sh -s\nsudo -n sh -s\nsudo -n sh -s\n"
    );

    // A failing step: the zone's file is gone, tzsetup exits non-zero; the
    // script stops there and beryl exits 2.
    crate::live::sh(bsd, "tzsetup -s UTC && rm /usr/share/zoneinfo/Europe/Paris");
    let r = apply(&["host01"]);
    assert_eq!(r.status, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("\n! tz FAILED: the change exited "),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains(" 1 failed\nRecap:\n"), "{}", r.stdout);
    assert!(
        r.stderr
            .contains("host01.example.org: failed: the apply script failed (exit 1)"),
        "{}",
        r.stderr
    );

    // An unreachable host: exit 2, and ssh's own words.
    let target = format!("ssh to beryl@127.0.0.1:{} failed", server.port);
    drop(server);
    let r = apply(&["host01"]);
    assert_eq!(r.status, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stderr.contains(&target), "{}", r.stderr);
}
