//! Adopting a running host (docs/apply.md §19): a fake FreeBSD host that
//! beryl did not install, with its own users, packages and a package's
//! config file, reached over ssh as its operator's login. The path of the
//! docs, end to end: `facts --gather`, a dry run whose every line is
//! checked against the host, a saved plan applied, a second run that
//! changes nothing, and a prune that keeps the package's file.
//!
//! Needs root, the fake FreeBSD's tools, ssh, ssh-keygen, unshare and
//! /usr/sbin/sshd; skips with a notice without them, unless
//! BERYL_REQUIRE_TOOLS is set.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::apply::sshd::{self, SSH_OPTIONS};
use crate::fakebsd::{FakeBsd, Options};
use crate::live::sh;
use crate::support::{Run, args, beryl, fixture, skip, tools};

const HOST: &str = "legacy01";
const FQDN: &str = "legacy01.example.org";
const CONF: &str = "/usr/local/etc/nginx/nginx.conf";

/// The host as it ran before beryl: pkg, sudo and nginx installed by hand
/// (nginx.conf from the package's `@sample`), the operator's login `admin`
/// with its key and a sudo rule of its own, alice with another shell, and
/// a package nobody listed.
const BEFORE: &str = "set -e
env ASSUME_ALWAYS_YES=yes pkg bootstrap -y >/dev/null
env ASSUME_ALWAYS_YES=yes pkg install -y sudo nginx tmux >/dev/null
pw useradd admin -m -s /bin/sh
mkdir -p /home/admin/.ssh
cp /dev/null /home/admin/.ssh/authorized_keys
chown -R admin:admin /home/admin/.ssh
chmod 700 /home/admin/.ssh
chmod 600 /home/admin/.ssh/authorized_keys
mkdir -p /usr/local/etc/sudoers.d
echo 'admin ALL=(ALL:ALL) NOPASSWD: ALL' > /usr/local/etc/sudoers.d/ops
chmod 440 /usr/local/etc/sudoers.d/ops
pw useradd alice -m -s /bin/csh
";

fn run(d: &Path, a: &[&str]) -> Run {
    let mut all = args(a);
    all.extend(args(&SSH_OPTIONS));
    beryl(d, &all)
}

fn gather(d: &Path) -> Value {
    let r = run(d, &["facts", "--gather", HOST, "--out", "facts"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    let text = fs::read_to_string(d.join(format!("facts/{FQDN}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The text dry run over the gathered snapshot, with `--exit-code`.
fn dry_run(d: &Path, extra: &[&str]) -> Run {
    let mut a = vec![
        "apply",
        HOST,
        "--dry-run",
        "--state-dir",
        "facts",
        "--exit-code",
    ];
    a.extend(extra);
    beryl(d, &args(&a))
}

/// The step lines of a report (`+ id`, `= id`, …), without their details.
fn steps(report: &str) -> Vec<&str> {
    report
        .lines()
        .filter(|l| l.chars().nth(1) == Some(' ') && "+~-=!?".contains(&l[..1]))
        .collect()
}

#[test]
fn an_adopted_host_converges_and_keeps_what_it_had() {
    let test = "an_adopted_host_converges_and_keeps_what_it_had";
    if !tools(&["ssh", "ssh-keygen", "unshare"], test) {
        return;
    }
    if !Path::new("/usr/sbin/sshd").is_file() {
        skip(test, "/usr/sbin/sshd (openssh-server) is missing");
        return;
    }
    let dir = fixture("adopt");
    let d = dir.path();
    let Some(bsd) = FakeBsd::new(&Options::default(), test) else {
        return;
    };
    bsd.extract_base();
    sh(&bsd, BEFORE);
    let root_before = sh(
        &bsd,
        "awk -F: '$1 == \"root\" { print $2 }' /etc/master.passwd",
    );
    let level = "example.org/legacy01.yml";
    let wired = sshd::wire_machine(d, bsd, HOST, "admin", level);
    let bsd = &wired.bsd;

    // 1. check: no disks, raid, version or network asked for.
    assert_eq!(beryl(d, &args(&["check"])).status, 0);

    // 2. The snapshot, taken over ssh by the host's own script.
    let state = gather(d);
    assert_eq!(state["host"], FQDN);
    assert_eq!(state["users"]["alice"]["shell"], "/bin/csh");

    // 3. The dry run: every line is what the host shows.
    let r = dry_run(d, &[]);
    assert_eq!(r.status, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        steps(&r.stdout),
        [
            "= pkg",
            "= pkg:sudo",
            "= pkg:nginx",
            "= user:admin",
            "~ user:alice",
            "~ keys:admin",
            "+ keys:alice",
            "+ file:/usr/local/etc/sudoers.d/beryl",
            "~ sshd",
            "~ rc:hostname",
            "~ rc:sshd_enable",
            "~ file:/usr/local/etc/nginx/nginx.conf",
            "+ service:nginx",
            "~ notify:nginx reload",
        ],
        "{}",
        r.stdout
    );
    // What the host showed, said for each change.
    for shown in [
        "    shell: \"/bin/csh\" -> \"/bin/sh\"",
        "    groups: [] -> [www]",
        "    -FAKEBSD sample of nginx",
        "    +worker_processes 2;",
        "    hostname: \"\" -> \"legacy01.example.org\"",
        "    sshd_enable: \"NO\" -> \"YES\"",
        &format!("    note: {}", beryl::resource::file::KEPT),
    ] {
        assert!(r.stdout.contains(shown), "{shown}:\n{}", r.stdout);
    }
    // Nothing of root: its password is the operator's.
    assert!(!r.stdout.contains("\n= root\n") && !r.stdout.contains(" root\n    password"));

    // 4. The plan saved and applied exactly: it changes what the dry run
    // said, and nothing else.
    let r = dry_run(d, &["--out", "plan.json"]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    let predicted: Vec<String> = steps(&r.stdout)
        .into_iter()
        .filter(|l| !l.starts_with('=') && !l.starts_with("~ notify:"))
        .map(|l| format!("~ {}", &l[2..]))
        .collect();
    let r = run(d, &["apply", "--plan", "plan.json"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    let done: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("~ ") || l.starts_with("- "))
        .filter(|l| !l.starts_with("~ notify:"))
        .collect();
    assert_eq!(done, predicted, "{}", r.stdout);

    // 5. Gathered again: nothing left; a second apply changes nothing.
    gather(d);
    let r = dry_run(d, &[]);
    assert_eq!(r.status, 0, "{}", r.stdout);
    let r = run(d, &["apply", HOST, "--yes"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("0 changed"), "{}", r.stdout);

    // What beryl did not list, and root, are as they were.
    assert_eq!(
        sh(
            bsd,
            "awk -F: '$1 == \"root\" { print $2 }' /etc/master.passwd"
        ),
        root_before
    );
    assert!(sh(bsd, "pkg info -e tmux && echo kept").contains("kept"));
    // Everything listed was there already: beryl created nothing it would
    // ever remove (a missing record is an empty one).
    let record = sh(bsd, "cat /var/db/beryl/managed 2>/dev/null || true");
    for never in ["nginx", "sudo", "tmux", "nginx.conf"] {
        assert!(
            !record.lines().any(|l| l.ends_with(never)),
            "{never} was there before beryl, and is recorded:\n{record}"
        );
    }

    // 6. The package's file leaves the config: kept as beryl last wrote it.
    let host_file = d.join("inventory").join(level);
    let text = fs::read_to_string(&host_file).unwrap();
    let start = text.find("  files:").unwrap();
    let end = text.find("  services:").unwrap();
    fs::write(&host_file, format!("{}{}", &text[..start], &text[end..])).unwrap();
    gather(d);
    let r = dry_run(d, &[]);
    assert_eq!(r.status, 0, "nothing to remove:\n{}", r.stdout);
    let r = run(d, &["apply", HOST, "--yes"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        sh(bsd, &format!("cat {CONF}")),
        "worker_processes 2;\nevents {\n    worker_connections 1024;\n}\n"
    );
}
