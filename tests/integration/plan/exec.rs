//! Execution: every example host's preamble and setup script run under `sh`
//! against the stubs, with BERYL_ROOT set to a scratch root that already
//! holds an sshd_config. The logged calls must be exactly the commands that
//! docs/install.md §4 describes for the plan's data (the JSON view), and the
//! files under the root exactly the ones it describes, with their modes.
//! host01 and edge01 are also snapshotted whole (reviewed by hand).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::stubs::{Call, Entry, Stubs, show_calls, show_tree, tree};
use super::{example_hosts, example_plan, split};

/// A FreeBSD-like sshd_config already in place: beryl's three keywords must
/// be dropped wherever they stand uncommented (any case, any indentation,
/// `keyword value` or `keyword=value` as sshd reads both, inside a Match
/// block too), and everything else kept in order.
pub const SSHD_CONFIG: &str = "\
#\t$OpenBSD: sshd_config,v 1.105 2024/12/03 14:12:47 dtucker Exp $
#PermitRootLogin no
PermitRootLogin yes
Port 22
  passwordauthentication yes
KbdInteractiveAuthentication\tyes
#PasswordAuthentication no
PermitRootLoginExtra yes
Subsystem\tsftp\t/usr/libexec/sftp-server
Match Address 192.0.2.0/24
\tPasswordAuthentication=yes
\tPermitRootLogin = yes
\tX11Forwarding no
";

/// What remains of [`SSHD_CONFIG`] below beryl's lines.
const SSHD_KEPT: &str = "\
#\t$OpenBSD: sshd_config,v 1.105 2024/12/03 14:12:47 dtucker Exp $
#PermitRootLogin no
Port 22
#PasswordAuthentication no
PermitRootLoginExtra yes
Subsystem\tsftp\t/usr/libexec/sftp-server
Match Address 192.0.2.0/24
\tX11Forwarding no
";

/// Makes the scratch root: /etc/ssh/sshd_config as above.
pub fn scratch_root(dir: &Path) -> std::path::PathBuf {
    let root = dir.join("root");
    std::fs::create_dir_all(root.join("etc/ssh")).unwrap();
    std::fs::write(root.join("etc/ssh/sshd_config"), SSHD_CONFIG).unwrap();
    std::fs::create_dir_all(dir.join("home")).unwrap();
    root
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array().unwrap().iter().map(s).collect()
}

/// The calls docs/install.md §4 describes for a plan (its JSON view), in
/// order, with file paths under `root`.
pub fn expected_calls(plan: &Value, root: &str) -> Vec<Call> {
    let mut calls = Vec::new();
    for step in plan["steps"].as_array().unwrap() {
        match s(&step["kind"]) {
            "sysrc" => {
                let rc = format!("{root}/etc/rc.conf");
                for var in step["vars"].as_array().unwrap() {
                    let assign = format!("{}={}", s(&var["name"]), s(&var["value"]));
                    calls.push(Call::new("sysrc", &["-f", &rc, &assign]));
                }
            }
            "timezone" => calls.push(Call::new("tzsetup", &["-s", s(&step["zone"])])),
            "packages" => {
                if step["bootstrap"] == true {
                    let mut c = Call::new("pkg", &["bootstrap", "-f"]);
                    c.env = Some(BTreeMap::from([(
                        "ASSUME_ALWAYS_YES".to_string(),
                        "yes".to_string(),
                    )]));
                    calls.push(c);
                }
                let mut argv = vec!["install", "-y"];
                argv.extend(strings(&step["packages"]));
                calls.push(Call::new("pkg", &argv));
            }
            "groups" => {
                for g in strings(&step["groups"]) {
                    calls.push(Call::new("pw", &["groupadd", "-n", g]));
                }
            }
            "user" => {
                let mut argv = vec!["useradd"];
                argv.extend(strings(&step["args"]));
                calls.push(Call::new("pw", &argv));
            }
            "keys" => {
                let owner = format!("{}:{}", s(&step["user"]), s(&step["group"]));
                let dir = format!("{root}{}", s(&step["dir"]));
                let file = format!("{root}{}", s(&step["file"]));
                calls.push(Call::new("chown", &[&owner, &dir]));
                calls.push(Call::new("chmod", &["0700", &dir]));
                calls.push(Call::new("chown", &[&owner, &file]));
                calls.push(Call::new("chmod", &["0600", &file]));
            }
            "sudoers" => {
                let file = format!("{root}{}", s(&step["file"]));
                let tmp = format!("{file}.tmp");
                calls.push(Call::new("visudo", &["-cf", &tmp]));
                calls.push(Call::new(
                    "install",
                    &["-m", "0440", "-o", "root", "-g", "wheel", &tmp, &file],
                ));
            }
            "sshd" => {}
            other => panic!("unknown step kind {other}"),
        }
    }
    calls
}

/// The tree docs/install.md §4 describes for a plan, written under a root
/// that held [`SSHD_CONFIG`] (directories made by `mkdir -p` under umask 022).
pub fn expected_tree(plan: &Value) -> BTreeMap<String, Entry> {
    let mut t = BTreeMap::new();
    let dirs = |t: &mut BTreeMap<String, Entry>, path: &str, last: u32| {
        let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        for i in 1..=parts.len() {
            let p = parts[..i].join("/");
            let mode = if i == parts.len() { last } else { 0o755 };
            if i == parts.len() || !t.contains_key(&p) {
                t.insert(p, Entry::Dir(mode));
            }
        }
    };
    let lines = |v: &Value| {
        strings(v)
            .iter()
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    };
    for step in plan["steps"].as_array().unwrap() {
        match s(&step["kind"]) {
            "sysrc" => {
                dirs(&mut t, "/etc", 0o755);
                let ns = strings(&step["nameservers"]);
                if !ns.is_empty() {
                    let text: String = ns.iter().map(|n| format!("nameserver {n}\n")).collect();
                    t.insert("etc/resolv.conf".into(), Entry::File(0o644, text));
                }
            }
            "keys" => {
                dirs(&mut t, s(&step["dir"]), 0o700);
                t.insert(
                    s(&step["file"]).trim_start_matches('/').into(),
                    Entry::File(0o600, lines(&step["keys"])),
                );
            }
            "sudoers" => {
                dirs(&mut t, s(&step["dir"]), 0o755);
                t.insert(
                    s(&step["file"]).trim_start_matches('/').into(),
                    Entry::File(0o440, lines(&step["lines"])),
                );
            }
            "sshd" => {
                dirs(&mut t, "/etc/ssh", 0o755);
                let mut text = "# Set by beryl.\n".to_string();
                text.push_str(&lines(&step["settings"]));
                text.push_str(SSHD_KEPT);
                t.insert(
                    s(&step["file"]).trim_start_matches('/').into(),
                    Entry::File(0o644, text),
                );
            }
            _ => {}
        }
    }
    t
}

/// Runs one example host; returns the calls and the tree as text.
fn run_host(stubs: &Stubs, fqdn: &str) -> (String, String) {
    let text = example_plan(fqdn, false);
    let plan: Value = serde_json::from_str(&example_plan(fqdn, true)).unwrap();
    let (preamble, setup) = split(&text);
    let dir = tempfile::tempdir().unwrap();
    let root = scratch_root(dir.path());
    let rs = root.display().to_string();

    // The preamble: exactly the plan's variables exported, and its bring-up.
    let (pre, env) = stubs.run_preamble(preamble, dir.path(), &root);
    assert_eq!(pre.status, 0, "{fqdn} preamble: {}", pre.stderr);
    let want: BTreeMap<String, String> = plan["preamble"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (s(&v["name"]).to_string(), s(&v["value"]).to_string()))
        .collect();
    assert_eq!(env, want, "{fqdn}: the preamble's exports");
    let bringup: Vec<Call> = plan["bringup"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let words = strings(c);
            Call::new(words[0], &words[1..])
        })
        .collect();
    assert_eq!(pre.calls, bringup, "{fqdn}: the preamble's bring-up");

    // The setup script.
    let run = stubs.run_setup(setup, dir.path(), &root);
    assert_eq!(run.status, 0, "{fqdn} setup: {}", run.stderr);
    assert_eq!(run.stderr, "", "{fqdn}");
    assert_eq!(
        run.stdout,
        format!("{}\n", s(&plan["summary"])),
        "{fqdn}: the summary is the only output"
    );
    let want = expected_calls(&plan, &rs);
    assert_eq!(
        run.calls,
        want,
        "{fqdn}: the calls\n--- actual\n{}--- expected\n{}",
        show_calls(&run.calls, &root),
        show_calls(&want, &root)
    );
    let got = tree(&root);
    let want = expected_tree(&plan);
    assert_eq!(
        got,
        want,
        "{fqdn}: the files\n--- actual\n{}--- expected\n{}",
        show_tree(&got),
        show_tree(&want)
    );
    // Nothing outside the root: the work directory holds only the scripts,
    // the logs, the (empty) home and the root.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "home",
            "preamble.log",
            "preamble.sh",
            "root",
            "setup.log",
            "setup.sh"
        ],
        "{fqdn}"
    );
    (show_calls(&run.calls, &root), show_tree(&got))
}

#[test]
fn example_plans_run_under_stubs() {
    let Some(stubs) = Stubs::new() else {
        return;
    };
    for fqdn in example_hosts() {
        let (calls, files) = run_host(&stubs, &fqdn);
        if fqdn == "host01.example.org" || fqdn == "edge01.example.net" {
            let short = fqdn.split('.').next().unwrap();
            insta::assert_snapshot!(
                format!("exec_{short}"),
                format!("--- calls\n{calls}--- files under BERYL_ROOT\n{files}")
            );
        }
    }
}

/// The key facts, spelled out for host01 (the snapshot has the rest).
#[test]
fn host01_files_and_modes() {
    let Some(stubs) = Stubs::new() else {
        return;
    };
    let text = example_plan("host01.example.org", false);
    let (_, setup) = split(&text);
    let dir = tempfile::tempdir().unwrap();
    let root = scratch_root(dir.path());
    let run = stubs.run_setup(setup, dir.path(), &root);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let t = tree(&root);
    let mode = |p: &str| match t.get(p) {
        Some(Entry::Dir(m)) | Some(Entry::File(m, _)) => *m,
        other => panic!("{p}: {other:?}"),
    };
    for user in ["alice", "bob", "carol", "dave"] {
        assert_eq!(mode(&format!("home/{user}/.ssh")), 0o700, "{user}");
        assert_eq!(
            mode(&format!("home/{user}/.ssh/authorized_keys")),
            0o600,
            "{user}"
        );
    }
    assert_eq!(mode("usr/local/etc/sudoers.d/beryl"), 0o440);
    assert!(!t.contains_key("usr/local/etc/sudoers.d/beryl.tmp"));
    let Some(Entry::File(_, sshd)) = t.get("etc/ssh/sshd_config") else {
        panic!("no sshd_config");
    };
    let lines: Vec<&str> = sshd.lines().collect();
    assert_eq!(
        lines[..4],
        [
            "# Set by beryl.",
            "PermitRootLogin no",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no"
        ]
    );
    assert!(!sshd.contains("PermitRootLogin yes"), "{sshd}");
    assert!(!sshd.contains("PermitRootLogin = yes"), "{sshd}");
    assert!(!sshd.contains("PasswordAuthentication=yes"), "{sshd}");
    assert!(
        !sshd.to_lowercase().contains("authentication yes"),
        "{sshd}"
    );
    assert!(sshd.ends_with("Match Address 192.0.2.0/24\n\tX11Forwarding no\n"));
    assert!(!t.contains_key("etc/ssh/sshd_config.beryl"));
    // visudo checks the drop-in before it is installed.
    let pos = |cmd: &str| run.calls.iter().position(|c| c.cmd == cmd).unwrap();
    assert!(pos("visudo") < pos("install"));
    // Each user exists before their keys are chowned to them.
    let useradd = run
        .calls
        .iter()
        .rposition(|c| c.cmd == "pw" && c.argv[0] == "useradd")
        .unwrap();
    assert!(useradd < pos("chown"));
}

/// The stubs themselves: argv logged exactly, chmod and install for real,
/// unexpected usage refused.
#[test]
fn the_stubs_log_argv_exactly() {
    let Some(stubs) = Stubs::new() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = scratch_root(dir.path());
    let script = "set -eu\n\
        pw useradd -n 'a b' -c \"$(printf 'x\\ny')\" -c ''\n\
        printf 'k\\n' > \"$BERYL_ROOT\"/f\n\
        chmod 0640 \"$BERYL_ROOT\"/f\n\
        install -m 0400 -o root -g wheel \"$BERYL_ROOT\"/f \"$BERYL_ROOT\"/g\n\
        install -d -m 0711 \"$BERYL_ROOT\"/d\n\
        env ASSUME_ALWAYS_YES=yes pkg bootstrap -f\n\
        if chmod u+x \"$BERYL_ROOT\"/f; then exit 9; fi\n";
    let run = stubs.run_setup(script, dir.path(), &root);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let r = root.display().to_string();
    let mut pkg = Call::new("pkg", &["bootstrap", "-f"]);
    pkg.env = Some(BTreeMap::from([("ASSUME_ALWAYS_YES".into(), "yes".into())]));
    assert_eq!(
        run.calls,
        [
            Call::new("pw", &["useradd", "-n", "a b", "-c", "x\ny", "-c", ""]),
            Call::new("chmod", &["0640", &format!("{r}/f")]),
            Call::new(
                "install",
                &[
                    "-m",
                    "0400",
                    "-o",
                    "root",
                    "-g",
                    "wheel",
                    &format!("{r}/f"),
                    &format!("{r}/g")
                ]
            ),
            Call::new("install", &["-d", "-m", "0711", &format!("{r}/d")]),
            pkg,
            Call::new("chmod", &["u+x", &format!("{r}/f")]),
        ]
    );
    let t = tree(&root);
    assert_eq!(t["f"], Entry::File(0o640, "k\n".into()));
    assert_eq!(t["g"], Entry::File(0o400, "k\n".into()));
    assert_eq!(t["d"], Entry::Dir(0o711));
}

/// What the example inventory does not use: pkgbase, static IPv4 and IPv6
/// addresses, a second interface by DHCP, default routers, name servers,
/// rc_conf entries, sshd settings, a new primary group, an absent user.
const EVERY_FEATURE: &str = r#"freebsd:
  install: pkgbase
  version: "15.0"
  hostname: web7.example.org
  pool: tank
  swap: 0
  raid: mirror
  disks: [nda0, nda1]
  network:
    interfaces:
      vtnet0: {ipv4: 192.0.2.10/24, ipv6: "2001:db8::10/64"}
      em1: {ipv4: dhcp, ipv6: slaac}
    defaultrouter: 192.0.2.1
    ipv6_defaultrouter: "2001:db8::1"
    nameservers: [192.0.2.53, "2001:db8::53"]
  rc_conf:
    ntpd_enable: true
    syslogd_flags: -ss
    kern_securelevel: 1
  sshd:
    permit_root_login: prohibit-password
    password_authentication: true
  packages: [sudo, shells/bash]
  sudoers: ["%ops ALL=(ALL) ALL"]
  users:
    - name: alice
      shell: /usr/local/bin/bash
      primary_group: ops
      groups: [wheel, deploy]
      comment: "Alice O'Hara"
      uid: 2001
    - name: eve
      state: absent
"#;

/// The plan of [`EVERY_FEATURE`] (on the fixture tests/fixtures/plan): its
/// text is snapshotted (reviewed), it passes the linters, and its setup
/// script does what §4 says. Its preamble writes the installer's
/// /etc/resolv.conf, so it is checked as text, not run.
#[test]
fn a_plan_with_every_feature() {
    let dir = tempfile::tempdir().unwrap();
    crate::harness::copy_tree(
        &crate::harness::repo().join("tests/fixtures/plan"),
        dir.path(),
    );
    std::fs::write(
        dir.path().join("inventory/example.org/h1.yml"),
        EVERY_FEATURE,
    )
    .unwrap();
    let run = |a: &[&str]| {
        let r = crate::harness::beryl(dir.path(), &super::args(a));
        assert_eq!(r.status, 0, "{}", r.stderr);
        r.stdout
    };
    let text = run(&["plan", "h1"]);
    let plan: Value = serde_json::from_str(&run(&["plan", "h1", "--format", "json"])).unwrap();
    insta::assert_snapshot!("every_feature", text);
    let (preamble, setup) = split(&text);
    assert!(
        preamble.ends_with(
            "ifconfig vtnet0 inet 192.0.2.10/24\n\
             dhclient em1\n\
             route add default 192.0.2.1\n\
             printf 'nameserver %s\\n' 192.0.2.53 2001:db8::53 > /etc/resolv.conf\n"
        ),
        "{preamble}"
    );
    assert!(!preamble.contains("DISTRIBUTIONS"), "{preamble}");
    if let Some(findings) = super::lint::lint(&[("every feature".into(), text.clone())], &[]) {
        assert!(findings.is_empty(), "{}", findings.join("\n"));
    }
    let Some(stubs) = Stubs::new() else {
        return;
    };
    let root = scratch_root(dir.path());
    let exec = stubs.run_setup(setup, dir.path(), &root);
    assert_eq!(exec.status, 0, "{}", exec.stderr);
    assert_eq!(
        exec.calls,
        expected_calls(&plan, &root.display().to_string())
    );
    assert_eq!(tree(&root), expected_tree(&plan));
    assert!(
        !exec
            .calls
            .iter()
            .any(|c| c.cmd == "pkg" && c.argv[0] == "bootstrap"),
        "pkgbase has pkg already"
    );
}
