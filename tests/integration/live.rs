//! `beryl apply` on a live host: the fake FreeBSD (tests/fakebsd/README.md)
//! installed from `beryl plan`, or extracted and drifted, then applied to.
//!
//! Every test here checks the same three agreements:
//!
//! - **install = apply**: `beryl facts` on the freshly installed host, fed to
//!   `beryl apply --dry-run --state`, says nothing is pending;
//! - **idempotence**: the apply script, run as the host's login user through
//!   the remote command line beryl gives ssh (`sudo -n sh -s`), changes what
//!   it must, and a second run prints `apply: 0 changed`;
//! - **facts = apply**: after the apply, facts and the dry run again say
//!   nothing is pending.
//!
//! The models are FreeBSD's code (each stub cites its source), not our own
//! assumptions: the tests of the old stubs (tests/fixtures/apply/fakebsd.py)
//! passed while the apply script failed on FreeBSD.
//!
//! Needs what the fake FreeBSD needs (root, dash, original-awk,
//! busybox-static, ../shared); skips with a notice without them, unless
//! BERYL_REQUIRE_TOOLS is set.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::fakebsd::{Disk, FakeBsd, Options, Run, probed_name};
use crate::harness::{beryl, copy_tree, repo};
use crate::plan::{args, example_hosts};

/// The PATH sshd gives a session on FreeBSD: the `path` capability of the
/// `default` class of /etc/login.conf (`/sbin /bin /usr/sbin /usr/bin
/// /usr/local/sbin /usr/local/bin ~/bin`), which sshd sets through
/// setusercontext(LOGIN_SETPATH) (crypto/openssh/session.c, do_setup_env).
const SSH_PATH: &str = "/sbin:/bin:/usr/sbin:/usr/bin:/usr/local/sbin:/usr/local/bin";

/// The example inventory (and its key files) in a temporary directory.
pub fn example() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&repo().join("inventory"), &dir.path().join("inventory"));
    copy_tree(&repo().join("ssh"), &dir.path().join("ssh"));
    dir
}

/// The example inventory plus a host `live.example.org` whose level file is
/// `yaml` (it inherits `_default.yml` and example.org's `_domain.yml`: the
/// login user `beryl` under sudo, two disks, DHCP).
fn fixture(yaml: &str) -> tempfile::TempDir {
    let dir = example();
    fs::write(dir.path().join("inventory/example.org/live.yml"), yaml).unwrap();
    dir
}

fn ok(dir: &Path, a: &[&str]) -> String {
    let a = args(a);
    let r = beryl(dir, &a);
    assert_eq!(
        r.status,
        0,
        "beryl {}: {}{}",
        a.join(" "),
        r.stdout,
        r.stderr
    );
    r.stdout
}

/// The machine `beryl plan HOST` installs onto: its disks (as the kernel
/// probes them) and release.
fn machine(dir: &Path, host: &str) -> Options {
    let json: Value = serde_json::from_str(&ok(dir, &["plan", host, "--format", "json"])).unwrap();
    let version: &'static str = match json["version"].as_str().unwrap_or("15.0") {
        "14.3" => "14.3",
        "14.2" => "14.2",
        _ => "15.0",
    };
    let disks = json["preamble"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "ZFSBOOT_DISKS")
        .and_then(|v| v["value"].as_str())
        .unwrap_or("")
        .split_whitespace()
        .map(|d| Disk::new(&probed_name(version, d)))
        .collect();
    Options {
        disks,
        version,
        ..Options::default()
    }
}

/// A fresh machine with `beryl plan HOST` installed, or `None` after a
/// notice (see [`FakeBsd::new`]).
fn installed(dir: &Path, host: &str, test: &str) -> Option<FakeBsd> {
    let bsd = FakeBsd::new(&machine(dir, host), test)?;
    let run = bsd.install(&ok(dir, &["plan", host]));
    assert!(
        run.status == 0 && run.hang.is_none(),
        "{host} does not install:\n{}",
        run.all()
    );
    Some(bsd)
}

/// `beryl facts` run as root on the live host: the snapshot.
fn facts(bsd: &FakeBsd, dir: &Path) -> Value {
    let run = bsd.run_in_target(&ok(dir, &["facts"]), &[], "root");
    assert!(
        run.status == 0 && run.hang.is_none(),
        "facts failed:\n{}",
        run.all()
    );
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("facts wrote no JSON ({e}):\n{}", run.all()))
}

/// The dry run against `state`: (exit status of `--exit-code`, report).
fn dry_run(dir: &Path, host: &str, state: &Value) -> (i32, String) {
    let file = dir.join("state.json");
    fs::write(&file, serde_json::to_string_pretty(state).unwrap()).unwrap();
    let a = args(&[
        "apply",
        host,
        "--dry-run",
        "--state",
        file.to_str().unwrap(),
        "--exit-code",
    ]);
    let r = beryl(dir, &a);
    assert!(r.status == 0 || r.status == 1, "{}{}", r.stdout, r.stderr);
    (r.status, r.stdout)
}

/// The steps the dry run finds pending (`+`, `~`, `-` lines and what they
/// show), empty when the host is as its config says.
fn pending(bsd: &FakeBsd, dir: &Path, host: &str) -> Vec<String> {
    let (status, report) = dry_run(dir, host, &facts(bsd, dir));
    let mut out = Vec::new();
    let mut keep = false;
    for line in report.lines() {
        if let Some(c) = line.chars().next() {
            if c == ' ' {
                if keep {
                    out.push(line.to_string());
                }
                continue;
            }
            keep = matches!(c, '+' | '~' | '-');
            if keep {
                out.push(line.to_string());
            }
        }
    }
    assert_eq!(
        status,
        if out.is_empty() { 0 } else { 1 },
        "--exit-code disagrees with the report:\n{report}"
    );
    if out.is_empty() {
        assert!(
            report.contains("Plan: 0 to add, 0 to change, 0 to remove,"),
            "{report}"
        );
    }
    out
}

/// How apply logs in to `host`: its login user and the remote command
/// line, built by the very function the ssh run uses.
fn login(dir: &Path, host: &str) -> (String, String) {
    let config: Value =
        serde_json::from_str(&ok(dir, &["render", host, "--format", "json"])).unwrap();
    let user = config["ssh"]["user"].as_str().unwrap_or("root").to_string();
    let elevate = match config["ssh"]["become"].as_str() {
        Some("sudo") => beryl::desired::Become::Sudo,
        Some("doas") => beryl::desired::Become::Doas,
        Some(_) => beryl::desired::Become::None,
        None if user == "root" => beryl::desired::Become::None,
        None => beryl::desired::Become::Sudo,
    };
    let target = beryl::desired::Login {
        host: host.to_string(),
        port: 22,
        user: user.clone(),
        identity_file: None,
        elevate,
        span: None,
    };
    let command = beryl::apply::ssh::remote_command(&target, &[]).unwrap();
    (user, command)
}

/// The apply script, run on the live host as ssh would run it: the remote
/// command line as the login user, the script on its standard input.
fn apply(bsd: &FakeBsd, dir: &Path, host: &str) -> Run {
    let script = ok(dir, &["apply", host, "--script"]);
    let (user, command) = login(dir, host);
    bsd.exec_in_target(&command, &script, &[("PATH", SSH_PATH)], &user)
}

/// The `~ id` lines of a run.
fn changed(run: &Run) -> Vec<&str> {
    run.stdout
        .lines()
        .filter_map(|l| l.strip_prefix("~ "))
        .collect()
}

/// The last line of a run's output.
fn summary(run: &Run) -> &str {
    run.stdout.lines().last().unwrap_or_default()
}

/// The ids of the pending steps, each with its symbol (`+ pkg:tmux`).
fn pending_ids(bsd: &FakeBsd, dir: &Path, host: &str) -> Vec<String> {
    pending(bsd, dir, host)
        .into_iter()
        .filter(|l| !l.starts_with(' '))
        .collect()
}

/// The dry run against facts must predict exactly `want` (`+ id`, `~ id`,
/// `- id`); the apply (as the login user, elevated as ssh would) must then
/// change exactly those steps, a second apply nothing, and facts must then
/// find nothing pending.
fn agree(bsd: &FakeBsd, dir: &Path, host: &str, want: &[&str]) {
    let predicted = pending_ids(bsd, dir, host);
    assert_eq!(
        predicted,
        want,
        "{host}: the dry run against facts:\n{}",
        pending(bsd, dir, host).join("\n")
    );
    let first = apply(bsd, dir, host);
    assert!(
        first.status == 0 && first.hang.is_none(),
        "{host}: the apply failed:\n{}",
        first.all()
    );
    let want_ids: Vec<&str> = want.iter().map(|w| &w[2..]).collect();
    assert_eq!(
        changed(&first),
        want_ids,
        "{host}: the apply did not change what the dry run predicted:\n{}",
        first.all()
    );
    let second = apply(bsd, dir, host);
    assert!(
        second.status == 0 && summary(&second).starts_with("apply: 0 changed,"),
        "{host}: the second apply changed something:\n{}",
        second.all()
    );
    assert_eq!(
        pending(bsd, dir, host),
        Vec::<String>::new(),
        "{host}: facts after the apply disagree with the dry run"
    );
}

/// Runs `script` as root on the live host; it must succeed. Its stdout.
fn sh(bsd: &FakeBsd, script: &str) -> String {
    let run = bsd.run_in_target(script, &[], "root");
    assert!(
        run.status == 0 && run.hang.is_none(),
        "{script}:\n{}",
        run.all()
    );
    run.stdout
}

/// The fixture host `live` (see [`fixture`]) installed from its plan: nothing
/// is pending and an apply changes nothing.
fn live(yaml: &str, test: &str) -> Option<(tempfile::TempDir, FakeBsd)> {
    let dir = fixture(yaml);
    let bsd = installed(dir.path(), "live", test)?;
    agree(&bsd, dir.path(), "live", &[]);
    Some((dir, bsd))
}

// ---------------------------------------------------------------- example

/// Drifts every example host has steps for: a package removed, a user's
/// comment changed, a key added to authorized_keys, the sudoers drop-in
/// opened, sshd disabled, another time zone (no example host is in UTC).
const DRIFT: &str = "pkg delete -y tmux >/dev/null && \
    pw usermod -n alice -c 'Someone Else' && \
    echo 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAvqVJ0lKb2B0bOldLaptopKeyRevokedIn2025xx old' \
        >> \"$(pw usershow -n alice | cut -d: -f9)/.ssh/authorized_keys\" && \
    chmod 644 /usr/local/etc/sudoers.d/beryl && \
    sysrc sshd_enable=NO >/dev/null && \
    tzsetup -s UTC";

/// Every example host: installed from its plan, nothing is pending and the
/// apply (as `beryl`, through `sudo -n sh -s`) changes nothing; after a
/// drift, the dry run against facts predicts exactly the steps the apply
/// changes; a second apply changes nothing, and nothing is pending after.
#[test]
fn every_example_host_installs_to_what_apply_converges_to() {
    let test = "every_example_host_installs_to_what_apply_converges_to";
    let dir = example();
    let d = dir.path();
    for host in example_hosts() {
        let Some(bsd) = installed(d, &host, test) else {
            return;
        };
        // install = apply: nothing pending, nothing to change.
        agree(&bsd, d, &host, &[]);
        sh(&bsd, DRIFT);
        agree(
            &bsd,
            d,
            &host,
            &[
                "+ pkg:tmux",
                "~ user:alice",
                "~ keys:alice",
                "~ file:/usr/local/etc/sudoers.d/beryl",
                "~ rc:sshd_enable",
                "~ tz",
            ],
        );
    }
}
