//! `freebsd.sysctl`, `freebsd.loader` and `freebsd.cron` (docs/resources.md):
//!
//! - through the real installer (the fake FreeBSD, tests/fakebsd/README.md):
//!   a host using all three installs, boots (rc.d/sysctl sets the
//!   sysctl.conf values), and facts then find nothing pending; drifted on
//!   every side, the dry run against facts predicts exactly what the apply
//!   changes, and a second apply changes nothing;
//! - a read-only tunable is reported by the apply with sysctl's own words;
//! - offline: the dry-run detail against a state snapshot, and the schema's
//!   errors, as snapshots.

use std::fs;

use serde_json::json;

use crate::live::{agree, apply, changed, fixture, installed, sh};
use crate::support::{args, beryl, facts_digest};

/// A host with two sysctls, two loader variables and two cron entries.
const HOST: &str = "freebsd:
  sysctl:
    kern.ipc.somaxconn: 1024
    net.inet.tcp.blackhole: 2
  loader:
    accf_http_load: true
    aio_load: \"YES\"
  cron:
    nightly:
      schedule: \"15 3 * * *\"
      command: /usr/bin/true
    stamp:
      schedule: \"@hourly\"
      user: beryl
      command: date +\\%F > /tmp/stamp
";

const NIGHTLY: &str = "/usr/local/etc/cron.d/beryl-nightly";
const STAMP: &str = "/usr/local/etc/cron.d/beryl-stamp";

#[test]
fn sysctl_loader_and_cron_install_and_converge() {
    let test = "sysctl_loader_and_cron_install_and_converge";
    let dir = fixture(HOST);
    let d = dir.path();
    let Some(bsd) = installed(d, "live", test) else {
        return;
    };
    // The installer's lines are kept: zfsboot's sysctl, config's loader lines.
    assert_eq!(
        sh(&bsd, "cat /etc/sysctl.conf"),
        "# $FreeBSD$\nvfs.zfs.min_auto_ashift=12\nkern.ipc.somaxconn=1024\nnet.inet.tcp.blackhole=2\n"
    );
    let loader = sh(&bsd, "cat /boot/loader.conf");
    for line in [
        "zfs_load=\"YES\"\n",
        "accf_http_load=\"YES\"\n",
        "aio_load=\"YES\"\n",
    ] {
        assert!(loader.contains(line), "{line:?} not in:\n{loader}");
    }
    // The boot set the live values.
    assert_eq!(
        sh(
            &bsd,
            "sysctl -n kern.ipc.somaxconn net.inet.tcp.blackhole vfs.zfs.min_auto_ashift"
        ),
        "1024\n2\n12\n"
    );
    assert_eq!(
        sh(&bsd, &format!("cat {STAMP}; stat -f '%Lp %Su %Sg' {STAMP}")),
        "# Written by beryl: freebsd.cron.stamp\n@hourly beryl date +\\%F > /tmp/stamp\n644 root wheel\n"
    );
    // Nothing staged is left where cron would read it.
    assert_eq!(
        sh(&bsd, "ls -a /usr/local/etc/cron.d"),
        ".\n..\nberyl-nightly\nberyl-stamp\n"
    );
    // install = apply.
    agree(&bsd, d, "live", &[]);

    // Drift every side: a live value, a sysctl.conf line (the live value
    // kept), a loader variable, a cron file removed and one edited.
    sh(
        &bsd,
        &format!(
            "sysctl kern.ipc.somaxconn=128 >/dev/null && \
             sed -i 's/^net.inet.tcp.blackhole=2$/net.inet.tcp.blackhole=1/' /etc/sysctl.conf && \
             sysrc -f /boot/loader.conf accf_http_load=NO >/dev/null && \
             rm {NIGHTLY} && echo '* * * * * root reboot' >> {STAMP}"
        ),
    );
    agree(
        &bsd,
        d,
        "live",
        &[
            "~ sysctl:kern.ipc.somaxconn",
            "~ sysctl:net.inet.tcp.blackhole",
            "~ loader:accf_http_load",
            "+ cron:nightly",
            "~ cron:stamp",
            "~ notify:cron restart",
        ],
    );
    assert_eq!(
        sh(
            &bsd,
            "sysctl -n kern.ipc.somaxconn; grep -c blackhole /etc/sysctl.conf"
        ),
        "1024\n1\n"
    );
}

/// Entries that leave the config are pruned, each alone: the sysctl line
/// (the live value stays until the next boot), the loader variable, the cron
/// file. A line the operator wrote is never beryl's to remove.
#[test]
fn sysctl_loader_and_cron_entries_that_left_the_config_are_pruned() {
    let test = "sysctl_loader_and_cron_entries_that_left_the_config_are_pruned";
    let dir = fixture(HOST);
    let d = dir.path();
    let Some(bsd) = installed(d, "live", test) else {
        return;
    };
    let record = sh(&bsd, "cat /var/db/beryl/managed");
    for line in [
        "sysctl kern.ipc.somaxconn\n",
        "sysctl net.inet.tcp.blackhole\n",
        "loader accf_http_load\n",
        "loader aio_load\n",
        "cron nightly\n",
        "cron stamp\n",
    ] {
        assert!(record.contains(line), "{line:?} not in:\n{record}");
    }
    // The operator's own line and variable.
    sh(
        &bsd,
        "echo 'kern.maxfiles=70000' >> /etc/sysctl.conf && \
         sysrc -f /boot/loader.conf if_bridge_load=YES >/dev/null",
    );
    fs::write(
        d.join("inventory/example.org/live.yml"),
        HOST.replace("    net.inet.tcp.blackhole: 2\n", "")
            .replace("    aio_load: \"YES\"\n", "")
            .replace(
                "    nightly:\n      schedule: \"15 3 * * *\"\n      command: /usr/bin/true\n",
                "",
            ),
    )
    .unwrap();
    agree(
        &bsd,
        d,
        "live",
        // In the record's order.
        &[
            "- cron:nightly",
            "- loader:aio_load",
            "- sysctl:net.inet.tcp.blackhole",
            "~ notify:cron restart",
        ],
    );
    assert_eq!(
        sh(&bsd, "cat /etc/sysctl.conf"),
        "# $FreeBSD$\nvfs.zfs.min_auto_ashift=12\nkern.ipc.somaxconn=1024\nkern.maxfiles=70000\n"
    );
    // The live value stays until the next boot.
    assert_eq!(sh(&bsd, "sysctl -n net.inet.tcp.blackhole"), "2\n");
    let loader = sh(&bsd, "cat /boot/loader.conf");
    assert!(
        !loader.contains("aio_load") && loader.contains("if_bridge_load=\"YES\""),
        "{loader}"
    );
    assert_eq!(
        sh(&bsd, "ls -a /usr/local/etc/cron.d"),
        ".\n..\nberyl-stamp\n"
    );
    let record = sh(&bsd, "cat /var/db/beryl/managed");
    assert!(
        !record.contains("cron nightly") && record.contains("cron stamp\n"),
        "{record}"
    );
}

/// Three cron entries, each its own job.
const THREE: &str = "freebsd:
  cron:
    a:
      schedule: \"@daily\"
      command: /usr/bin/true job-a
    b:
      schedule: \"@daily\"
      command: /usr/bin/true job-b
    c:
      schedule: \"@daily\"
      command: /usr/bin/true job-c
";

/// What the running cron would run: the jobs of its database (the model of
/// usr.sbin/cron/cron/database.c, /usr/share/fakebsd/cron), after the
/// minute's load.
fn cron_jobs(bsd: &crate::fakebsd::FakeBsd) -> String {
    sh(
        bsd,
        "sh /usr/share/fakebsd/cron tick && sh /usr/share/fakebsd/cron jobs",
    )
}

/// Pruning one of three cron files leaves each job with its own command.
/// cron loads every system crontab under the one name SYS_NAME, and on a
/// reload each file takes the first entry left of the old database when its
/// mtime (seconds) is the file's (database.c `process_crontab`): files
/// written in one run share their mtime, so after `rm` of the second the
/// third would run the second's job, until cron restarts. apply restarts
/// cron, once, after adding or removing a cron file.
#[test]
fn pruning_a_cron_file_leaves_each_job_its_own() {
    let test = "pruning_a_cron_file_leaves_each_job_its_own";
    let dir = fixture(THREE);
    let d = dir.path();
    let Some(bsd) = installed(d, "live", test) else {
        return;
    };
    // The files (and their directory) as one run leaves them, in one second;
    // cron (re)started reads them so.
    sh(
        &bsd,
        "touch -d '2026-01-01 00:00:00' /usr/local/etc/cron.d/beryl-a /usr/local/etc/cron.d/beryl-b \
         /usr/local/etc/cron.d/beryl-c /usr/local/etc/cron.d && service cron restart >/dev/null",
    );
    let all = "@daily root /usr/bin/true job-a\n@daily root /usr/bin/true job-b\n@daily root /usr/bin/true job-c\n";
    assert_eq!(cron_jobs(&bsd), all);
    agree(&bsd, d, "live", &[]);
    fs::write(
        d.join("inventory/example.org/live.yml"),
        THREE.replace(
            "    b:\n      schedule: \"@daily\"\n      command: /usr/bin/true job-b\n",
            "",
        ),
    )
    .unwrap();
    agree(&bsd, d, "live", &["- cron:b", "~ notify:cron restart"]);
    assert_eq!(
        cron_jobs(&bsd),
        "@daily root /usr/bin/true job-a\n@daily root /usr/bin/true job-c\n"
    );
}

/// The apply reports the reboot a loader.conf change needs, under the step.
#[test]
fn a_loader_change_notes_the_reboot() {
    let test = "a_loader_change_notes_the_reboot";
    let dir = fixture(HOST);
    let d = dir.path();
    let Some(bsd) = installed(d, "live", test) else {
        return;
    };
    sh(&bsd, "sysrc -f /boot/loader.conf -x aio_load >/dev/null");
    let run = apply(&bsd, d, "live");
    assert_eq!(changed(&run), ["loader:aio_load"], "{}", run.all());
    assert!(
        run.stdout.contains(
            "~ loader:aio_load\n    note: the loader reads /boot/loader.conf at boot: reboot for this to take effect (beryl never reboots)\n"
        ),
        "{}",
        run.all()
    );
}

/// A tunable that is read-only at runtime (kern.maxusers is CTLFLAG_RDTUN):
/// the install writes the line (the boot's `sysctl -i -f` refuses it, and
/// rc goes on), and the apply fails the step with sysctl's own message,
/// leaving sysctl.conf as it was. Such a value belongs in `loader`.
#[test]
fn a_read_only_tunable_is_reported() {
    let test = "a_read_only_tunable_is_reported";
    let dir = fixture("freebsd:\n  sysctl:\n    kern.maxusers: 512\n");
    let d = dir.path();
    let Some(bsd) = installed(d, "live", test) else {
        return;
    };
    let before = sh(&bsd, "cat /etc/sysctl.conf");
    assert!(before.contains("kern.maxusers=512\n"), "{before}");
    let run = apply(&bsd, d, "live");
    assert_ne!(run.status, 0, "{}", run.all());
    assert!(
        run.stdout
            .contains("sysctl: oid 'kern.maxusers' is a read only tunable")
            && run
                .stdout
                .contains("sysctl: Tunable values are set in /boot/loader.conf")
            && run
                .stdout
                .contains("! sysctl:kern.maxusers FAILED: the change exited 1"),
        "{}",
        run.all()
    );
    assert_eq!(sh(&bsd, "cat /etc/sysctl.conf"), before);
}

/// The dry run's detail for each kind, against a snapshot: a live value and
/// a sysctl.conf line (with the diff), a loader variable (with the reboot
/// note), a new and a changed cron file.
#[test]
fn dry_run_detail() {
    let dir = fixture(HOST);
    let d = dir.path();
    let cron = |content: &str, mode: &str| {
        json!({"sha256": beryl::apply::sha256_hex(content), "mode": mode, "owner": "root",
               "group": "wheel", "content": content})
    };
    let conf = "# $FreeBSD$\nvfs.zfs.min_auto_ashift=12\nkern.ipc.somaxconn=128\nkern.old=1\n";
    // Recorded items that left the config: kern.old, old_load and gone are
    // pruned; gone-by-hand is no longer there, so nothing is to be done.
    let state = json!({
        "format_version": 5,
        "host": "live.example.org",
        "script": facts_digest(d, "live"),
        "managed": [["sysctl", "kern.ipc.somaxconn"], ["sysctl", "kern.old"],
                    ["loader", "old_load"], ["cron", "gone"], ["cron", "gone-by-hand"]],
        "sysctl": {"kern.ipc.somaxconn": "128", "net.inet.tcp.blackhole": "0", "kern.old": "1"},
        "sysctl_conf": cron(conf, "0644"),
        "loader_conf": {"zfs_load": "YES", "accf_http_load": "NO", "old_load": "YES"},
        "cron": {
            "nightly": null,
            "stamp": cron("# Written by beryl: freebsd.cron.stamp\n@daily beryl date\n", "0600"),
            "gone": cron("# Written by beryl: freebsd.cron.gone\n@daily root true\n", "0644"),
            "gone-by-hand": null,
        },
    });
    let file = d.join("state.json");
    fs::write(&file, serde_json::to_string_pretty(&state).unwrap()).unwrap();
    for (suffix, extra) in [("", &[][..]), ("_json", &["--format", "json"][..])] {
        let mut a = vec![
            "apply",
            "live",
            "--dry-run",
            "--state",
            file.to_str().unwrap(),
        ];
        a.extend(extra);
        let a = args(&a);
        let r = beryl(d, &a);
        assert_eq!(r.status, 0, "{}", r.stderr);
        // Only the steps of this resource's kinds.
        let text = r.stdout;
        let kept = if suffix.is_empty() {
            section(&text)
        } else {
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            // The commands are the apply script's (`apply --script`).
            let steps: Vec<serde_json::Value> = v["hosts"][0]["steps"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|s| matches!(s["kind"].as_str(), Some("sysctl" | "loader" | "cron")))
                .map(|s| {
                    let mut s = s.clone();
                    let o = s.as_object_mut().unwrap();
                    o.remove("check");
                    o.remove("change");
                    s
                })
                .collect();
            serde_json::to_string_pretty(&steps).unwrap()
        };
        insta::assert_snapshot!(format!("dry_run_detail{suffix}"), kept);
    }
}

/// The lines of a text report from the first sysctl step on.
fn section(report: &str) -> String {
    let start = report
        .lines()
        .position(|l| l.ends_with("sysctl:kern.ipc.somaxconn"))
        .expect("a sysctl step");
    report.lines().skip(start).collect::<Vec<_>>().join("\n")
}

/// Every refusal of the three keys, as `beryl check` shows it.
#[test]
fn schema_errors() {
    let dir = fixture(
        "freebsd:
  sysctl:
    maxfiles: 1
    kern.hostname: \"a b\"
    net.inet.ip.forwarding: true
  loader:
    zfs_load: true
    kern..maxusers: 512
    if_bridge_load: \"$(reboot)\"
  cron:
    backup:
      schedule: \"0 25 * * *\"
      command: tar -czf /backup/$(date +%F).tgz /etc
    rotate:
      schedule: \"@daily\"
      comand: newsyslog
",
    );
    let a = args(&["check", "live"]);
    let r = beryl(dir.path(), &a);
    assert_eq!(r.status, 2, "{}", r.stdout);
    insta::assert_snapshot!("schema_errors", r.transcript(&a));
}

/// Cron entries without `freebsd.version` are refused: the drop-in
/// directory depends on the release.
#[test]
fn cron_needs_a_release() {
    // `~freebsd` replaces the inherited mapping: no version.
    let dir = fixture("~freebsd:\n  cron:\n    a:\n      schedule: '@daily'\n      command: x\n");
    let a = args(&["check", "live"]);
    let r = beryl(dir.path(), &a);
    assert_eq!(r.status, 2, "{}", r.stdout);
    assert!(
        r.stderr.contains("beryl::release::cron")
            && r.stderr.contains("freebsd.cron needs `freebsd.version`"),
        "{}",
        r.stderr
    );
}

/// explain and annotate reach the new paths of the example inventory, keyed
/// by name.
#[test]
fn explain_and_annotate_reach_the_entries() {
    let dir = crate::support::example();
    let d = dir.path();
    let a = args(&["explain", "host01", "freebsd.sysctl.\"kern.ipc.somaxconn\""]);
    let r = beryl(d, &a);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .starts_with("freebsd.sysctl.\"kern.ipc.somaxconn\" = 1024\n  from:     inventory/example.org/web/_group.yml:"),
        "{}",
        r.stdout
    );
    let a = args(&["explain", "db01", "freebsd.cron.nightly-vacuum.schedule"]);
    let r = beryl(d, &a);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stdout.starts_with(
            "freebsd.cron.nightly-vacuum.schedule = \"30 2 * * *\"\n  from:     inventory/example.org/db/_group.yml:"
        ),
        "{}",
        r.stdout
    );
    let a = args(&["render", "host01", "--annotate"]);
    let r = beryl(d, &a);
    assert!(
        r.stdout.contains(
            "  loader:\n    accf_http_load: true  # inventory/example.org/web/_group.yml:"
        ),
        "{}",
        r.stdout
    );
}

/// Dotted loader tunables (and a sysrc one beside them).
const DOTTED: &str = "freebsd:
  loader:
    accf_http_load: true
    kern.maxusers: 512
    vfs.zfs.arc_max: 4G
";

/// The drop-in beryl owns for the dotted tunables (src/freebsd/loader_d.rs).
const DROP_IN: &str = "/boot/loader.conf.d/beryl.conf";

/// Dotted loader tunables go to beryl's file in the loader's drop-in
/// directory: the install writes it (0644 root:wheel, one `NAME="VALUE"`
/// line each) and records it, and apply agrees; a line changed by hand is
/// put back, with the reboot note; once no dotted tunable is left, apply
/// removes the file and keeps the sysrc variable.
#[test]
fn dotted_loader_tunables_go_to_berys_drop_in() {
    let test = "dotted_loader_tunables_go_to_berys_drop_in";
    let Some((dir, bsd)) = crate::live::live(DOTTED, test) else {
        return;
    };
    let d = dir.path();
    assert_eq!(
        sh(
            &bsd,
            &format!("cat {DROP_IN}; stat -f '%Lp %Su %Sg' {DROP_IN}")
        ),
        "# Written by beryl from freebsd.loader: the loader reads this file at boot.\nkern.maxusers=\"512\"\nvfs.zfs.arc_max=\"4G\"\n644 root wheel\n"
    );
    let record = sh(&bsd, "cat /var/db/beryl/managed");
    assert!(record.contains(&format!("file {DROP_IN}\n")), "{record}");
    assert!(sh(&bsd, "cat /boot/loader.conf").contains("accf_http_load=\"YES\"\n"));

    sh(&bsd, &format!("sed -i 's/512/64/' {DROP_IN}"));
    let run = apply(&bsd, d, "live");
    assert_eq!(run.status, 0, "{}", run.all());
    assert!(
        run.stdout.contains("reboot for this to take effect"),
        "{}",
        run.stdout
    );
    assert!(sh(&bsd, &format!("cat {DROP_IN}")).contains("kern.maxusers=\"512\"\n"));
    agree(&bsd, d, "live", &[]);

    fs::write(
        d.join("inventory/example.org/live.yml"),
        "freebsd:\n  loader:\n    accf_http_load: true\n",
    )
    .unwrap();
    agree(&bsd, d, "live", &[&format!("- file:{DROP_IN}")]);
    assert_eq!(
        sh(&bsd, &format!("ls -a {DROP_IN} 2>/dev/null || echo gone")),
        "gone\n"
    );
    assert!(sh(&bsd, "cat /boot/loader.conf").contains("accf_http_load=\"YES\"\n"));
}

/// Dotted loader tunables without `freebsd.version` are refused: whether
/// the loader reads /boot/loader.conf.d depends on the release; sysrc
/// variables alone are not refused for it.
#[test]
fn dotted_loader_tunables_need_a_release() {
    let dir = fixture("~freebsd:\n  loader:\n    kern.maxusers: 512\n");
    let a = args(&["check", "live"]);
    let r = beryl(dir.path(), &a);
    assert_eq!(r.status, 2, "{}", r.stdout);
    assert!(
        r.stderr.contains("beryl::release::loader")
            && r.stderr
                .contains("a dotted loader tunable needs `freebsd.version`"),
        "{}",
        r.stderr
    );
    // The same without the dotted tunable: that refusal is gone.
    let dir = fixture("~freebsd:\n  loader:\n    accf_http_load: true\n");
    let r = beryl(dir.path(), &a);
    assert!(!r.stderr.contains("beryl::release::loader"), "{}", r.stderr);
}
