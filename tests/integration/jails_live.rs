//! Jails end to end (issue 36, "Proof"): the host `live` of
//! tests/fixtures/jails/three, installed from its plan on the fake FreeBSD
//! and reached over a test sshd, with three jails its inventory declares:
//! `web` (an address aliased on the host's vtnet0, a live parameter),
//! `app` (VNET: an epair on the host's bridge0) and `data` (a read-only
//! nullfs mount of the host's /srv/data, an rctl limit). Everything runs
//! through the real `beryl apply` over one ssh connection: the host's rows
//! make each jail (dataset, base from the fake mirror's base.txz, conf
//! validated by `jail -e`, start), then each jail's own script runs in it
//! through `jexec -l`.
//!
//! Needs what the fake FreeBSD needs plus ssh and sshd; skips with a notice
//! without them, unless BERYL_REQUIRE_TOOLS is set.

use std::fs;
use std::path::Path;

use crate::apply::sshd::{self, SSH_OPTIONS, Wired};
use crate::support::{args, beryl, fixture, skip, tools};

const HOST: &str = "live.example.org";
const WEB: &str = "web.live.example.org";
const APP: &str = "app.live.example.org";
const DATA: &str = "data.live.example.org";

/// `beryl ARGS` against the test sshd.
fn run(d: &Path, a: &[&str]) -> crate::support::Run {
    let mut all = a.to_vec();
    all.extend(SSH_OPTIONS);
    beryl(d, &args(&all))
}

/// `live` installed from its plan and reachable; no jail yet.
fn wired(test: &str) -> Option<(tempfile::TempDir, Wired)> {
    wired_from("jails/three", test)
}

/// `live` of the fixture `name`, installed and reachable.
fn wired_from(name: &str, test: &str) -> Option<(tempfile::TempDir, Wired)> {
    if !tools(&["ssh", "ssh-keygen", "unshare"], test) {
        return None;
    }
    if !Path::new("/usr/sbin/sshd").is_file() {
        skip(test, "/usr/sbin/sshd (openssh-server) is missing");
        return None;
    }
    let dir = fixture(name);
    let bsd = crate::live::installed(dir.path(), "live", test)?;
    let w = sshd::wire_machine(dir.path(), bsd, "live", "admin", "example.org/live.yml");
    Some((dir, w))
}

/// The sessions the test sshd ran so far.
fn sessions(w: &Wired) -> usize {
    fs::read_to_string(&w.commands)
        .unwrap_or_default()
        .lines()
        .count()
}

/// The ids a unit's text lines say were changed (`UNIT: ~ id`) or removed
/// (`UNIT: - id`), each with its symbol.
fn done(stdout: &str, unit: &str) -> Vec<String> {
    let prefix = format!("{unit}: ");
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .filter(|l| l.starts_with("~ ") || l.starts_with("- "))
        .map(str::to_string)
        .collect()
}

/// A unit's row of the recap table: changed, unchanged, failed, status.
fn row(stdout: &str, unit: &str) -> Vec<String> {
    let recap = stdout
        .split("\nRecap:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no recap:\n{stdout}"));
    let line = recap
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{unit} ")))
        .unwrap_or_else(|| panic!("no recap row for {unit}:\n{stdout}"));
    line.split_whitespace()
        .skip(1)
        .map(str::to_string)
        .collect()
}

/// Runs `cmd` as root in the jail `name` (`jexec NAME /bin/sh -c CMD`).
fn in_jail(w: &Wired, name: &str, cmd: &str) -> String {
    let run = w
        .bsd
        .exec_in_target(&format!("jexec {name} /bin/sh -s"), cmd, &[], "root");
    assert!(run.status == 0, "in {name}: {cmd}:\n{}", run.all());
    run.stdout
}

/// The pending lines (`+`, `~`, `-`) of each unit's report in a dry run.
fn pending(report: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for line in report.lines() {
        if let Some(unit) = line.strip_prefix("apply ") {
            out.push((unit.to_string(), Vec::new()));
        } else if line.starts_with(['+', '~', '-'])
            && let Some(last) = out.last_mut()
        {
            last.1.push(line.to_string());
        }
    }
    out
}

/// (a) nothing → converged in one apply over one connection; (b) a second
/// apply changes nothing anywhere; (c) a drift inside one jail is predicted
/// exactly by facts --gather and the dry run, under the jail's name, and
/// fixed; (f) a live parameter is changed by `jail -m`, an address change
/// (read only at start) gives the restart note and changes nothing.
#[test]
fn three_jails_converge_in_one_apply_and_stay_converged() {
    let test = "three_jails_converge_in_one_apply_and_stay_converged";
    let Some((dir, w)) = wired(test) else {
        return;
    };
    let d = dir.path();

    // (a) From nothing, one session.
    let before = sessions(&w);
    let r = run(d, &["apply", "live", "--yes"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(sessions(&w), before + 1, "one ssh session");
    let host = done(&r.stdout, HOST);
    for (name, fqdn) in [("app", APP), ("data", DATA), ("web", WEB)] {
        for kind in ["jail_base", "jail_conf", "jail"] {
            let id = format!("~ {kind}:{name}");
            assert!(host.contains(&id), "{id}:\n{}", r.stdout);
        }
        assert!(
            host.contains(&format!("~ zfs:zroot/jails/{name}")),
            "{}",
            r.stdout
        );
        assert_eq!(row(&r.stdout, fqdn)[3], "ok", "{}", r.stdout);
        assert!(!done(&r.stdout, fqdn).is_empty(), "{fqdn}: {}", r.stdout);
    }
    // Each jail is what its file says, inside it and on the host.
    assert_eq!(
        in_jail(&w, "web", "pw usershow -n deploy | cut -d: -f8"),
        "Deployments\n"
    );
    assert_eq!(
        in_jail(&w, "web", "cat /usr/local/etc/web.conf"),
        "listen 192.0.2.31\n"
    );
    assert_eq!(
        in_jail(&w, "app", "pw usershow -n app | cut -d: -f8"),
        "The application\n"
    );
    assert_eq!(
        in_jail(&w, "data", "cat /srv/data/README"),
        "shared with the jail data\n"
    );
    let host_view = crate::live::sh(
        &w.bsd,
        "jls name | sort | tr '\\n' ' '; echo; cat /dev/fakebsd/rctl; \
         jls -j web -n allow.raw_sockets; jls -j app -n vnet; \
         pw usershow -n deploy >/dev/null 2>&1 && echo deploy-on-host || echo none",
    );
    assert_eq!(
        host_view,
        "app data web \njail:data:memoryuse:deny=1G\nallow.noraw_sockets\nvnet=new\nnone\n"
    );

    // (b) Again: nothing changes anywhere.
    let r = run(d, &["apply", "live", "--yes", "--exit-code"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    for unit in [HOST, APP, DATA, WEB] {
        assert_eq!(row(&r.stdout, unit)[0], "0", "{unit}: {}", r.stdout);
    }

    // (c) A drift inside web: predicted by the snapshots of one session,
    // under web's name only, then fixed.
    in_jail(
        &w,
        "web",
        "pw userdel -r -n deploy && printf 'listen 0.0.0.0\\n' > /usr/local/etc/web.conf",
    );
    let before = sessions(&w);
    let g = run(d, &["facts", "--gather", "--out", "facts", "live"]);
    assert_eq!(g.status, 0, "{}{}", g.stdout, g.stderr);
    assert_eq!(sessions(&w), before + 1, "one ssh session");
    let dry = run(
        d,
        &[
            "apply",
            "live",
            "--dry-run",
            "--state-dir",
            "facts",
            "--exit-code",
        ],
    );
    assert_eq!(dry.status, 1, "{}{}", dry.stdout, dry.stderr);
    let want = vec![
        (HOST.to_string(), vec![]),
        (APP.to_string(), vec![]),
        (DATA.to_string(), vec![]),
        (
            WEB.to_string(),
            vec![
                "+ user:deploy".to_string(),
                "+ keys:deploy".to_string(),
                "~ file:/usr/local/etc/web.conf".to_string(),
            ],
        ),
    ];
    assert_eq!(pending(&dry.stdout), want, "{}", dry.stdout);
    // A jail sees no jail of its host (jls in a jail lists only its own
    // children): none is reported as not made by beryl from inside one.
    let (_, jails_part) = dry.stdout.split_once(&format!("apply {APP}\n")).unwrap();
    assert!(!jails_part.contains("not made by beryl"), "{}", dry.stdout);
    let r = run(d, &["apply", "live", "--yes"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        done(&r.stdout, WEB),
        [
            "~ user:deploy",
            "~ keys:deploy",
            "~ file:/usr/local/etc/web.conf"
        ],
        "{}",
        r.stdout
    );
    for unit in [HOST, APP, DATA] {
        assert_eq!(done(&r.stdout, unit), Vec::<String>::new(), "{}", r.stdout);
    }

    // (f) A live parameter: the conf is replaced and `jail -m` sets it in
    // the running jail (same jid: not restarted).
    let jid = crate::live::sh(&w.bsd, "jls -j web jid");
    let file = d.join("inventory/example.org/live.jails/web.yml");
    let text = fs::read_to_string(&file).unwrap();
    fs::write(
        &file,
        text.replace("allow.raw_sockets: false", "allow.raw_sockets: true"),
    )
    .unwrap();
    let r = run(d, &["apply", "live", "--yes"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        done(&r.stdout, HOST),
        ["~ jail_conf:web", "~ jail:web"],
        "{}",
        r.stdout
    );
    assert_eq!(
        crate::live::sh(&w.bsd, "jls -j web jid; jls -j web -n allow.raw_sockets"),
        format!("{jid}allow.raw_sockets\n")
    );
    // An address is read only at start: the conf is replaced, the jail
    // keeps running as it was, with the restart note; the next apply has
    // nothing more to do (the restart is acknowledged, not repeated).
    let text = fs::read_to_string(&file).unwrap();
    fs::write(&file, text.replace("192.0.2.31/24", "192.0.2.41/24")).unwrap();
    let r = run(d, &["apply", "live", "--yes"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        done(&r.stdout, HOST),
        ["~ jail_conf:web", "~ jail:web"],
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("restart needed")
            || r.stdout.contains("takes effect when the jail restarts"),
        "{}",
        r.stdout
    );
    assert_eq!(
        crate::live::sh(
            &w.bsd,
            "jls -j web jid; ifconfig vtnet0 | grep -c 192.0.2.41 || true"
        ),
        format!("{jid}0\n")
    );
    let r = run(d, &["apply", "live", "--yes", "--exit-code"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(row(&r.stdout, HOST)[0], "0", "{}", r.stdout);
}

/// (d) A jail removed from the inventory is stopped and destroyed (conf,
/// fstab, dataset) when beryl's record says beryl made it, and only then;
/// (e) a jail made by hand (`jail -c` with its own conf) is left alone,
/// running, its conf untouched, and reported as not made by beryl.
#[test]
fn a_removed_jail_is_destroyed_only_when_beryl_made_it_and_a_hand_made_one_is_left_alone() {
    let test =
        "a_removed_jail_is_destroyed_only_when_beryl_made_it_and_a_hand_made_one_is_left_alone";
    let Some((dir, w)) = wired(test) else {
        return;
    };
    let d = dir.path();
    // A jail made by hand, before beryl.
    let root = w.bsd.jail_root("manual");
    let conf = format!(
        "manual {{\n\tpath = \"{root}\";\n\thost.hostname = \"manual.example.org\";\n\tmount.devfs;\n\tpersist;\n}}\n"
    );
    crate::live::sh(
        &w.bsd,
        &format!(
            "mkdir -p /etc/jail.conf.d && printf '%s' '{conf}' > /etc/jail.conf.d/manual.conf && \
             jail -q -f /etc/jail.conf.d/manual.conf -c manual"
        ),
    );
    let manual = "jls -j manual jid; sha256 -q /etc/jail.conf.d/manual.conf";
    let before = crate::live::sh(&w.bsd, manual);

    let r = run(d, &["apply", "live", "--yes"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("jail:manual kept: not made by beryl (not in its record); left alone"),
        "{}",
        r.stdout
    );
    assert_eq!(crate::live::sh(&w.bsd, manual), before);

    // web leaves the inventory: beryl made it, so it goes, dataset and all.
    fs::remove_file(d.join("inventory/example.org/live.jails/web.yml")).unwrap();
    // data leaves too, but beryl's record no longer says beryl made it (as
    // on a host whose record predates the jail): it stays.
    crate::live::sh(
        &w.bsd,
        "grep -v '^jail data ' /var/db/beryl/managed > /tmp/m && cat /tmp/m > /var/db/beryl/managed",
    );
    fs::remove_file(d.join("inventory/example.org/live.jails/data.yml")).unwrap();
    let r = run(d, &["apply", "live", "--yes"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        done(&r.stdout, HOST).contains(&"- jail:web zroot/jails/web".to_string()),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("jail:data kept: not made by beryl (not in its record); left alone"),
        "{}",
        r.stdout
    );
    assert_eq!(
        crate::live::sh(
            &w.bsd,
            "jls -j web >/dev/null 2>&1 && echo web-runs; \
             zfs list -H -o name zroot/jails/web >/dev/null 2>&1 && echo web-dataset; \
             [ -e /etc/jail.conf.d/web.conf ] && echo web-conf; \
             jls -j data >/dev/null 2>&1 && echo data-runs; \
             zfs list -H -o name zroot/jails/data >/dev/null 2>&1 && echo data-dataset; \
             [ -e /etc/jail.conf.d/data.conf ] && echo data-conf; true"
        ),
        "data-runs\ndata-dataset\ndata-conf\n"
    );
    assert_eq!(crate::live::sh(&w.bsd, manual), before);
    // And nothing more to do.
    let r = run(d, &["apply", "live", "--yes", "--exit-code"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(row(&r.stdout, HOST)[0], "0", "{}", r.stdout);
}

/// A jail whose base is laid down with pkgbase (`base: {method: pkgbase}`):
/// from nothing to converged in one apply, the host's `pkg --rootdir`
/// installing the minimal-jail set of 15.0's FreeBSD-base repository
/// (tests/fakebsd/target/usr/share/fakebsd/pkgbase), verified with the
/// host's keys copied into the root; no kernel; the repository enabled in
/// the jail as bsdinstall's pkgbase script leaves it; the jail's own steps
/// run in it; and a second apply changes nothing.
#[test]
fn a_pkgbase_jail_converges_in_one_apply_and_stays_converged() {
    let test = "a_pkgbase_jail_converges_in_one_apply_and_stays_converged";
    let Some((dir, w)) = wired(test) else {
        return;
    };
    let d = dir.path();
    let jails = d.join("inventory/example.org/live.jails");
    for f in ["app", "data"] {
        fs::remove_file(jails.join(format!("{f}.yml"))).unwrap();
    }
    let file = jails.join("web.yml");
    let text = fs::read_to_string(&file).unwrap();
    assert!(text.contains("  jail:\n"), "{text}");
    fs::write(
        &file,
        text.replace("  jail:\n", "  jail:\n    base: {method: pkgbase}\n"),
    )
    .unwrap();

    let r = run(d, &["apply", "live", "--yes"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    let host = done(&r.stdout, HOST);
    for id in ["~ jail_base:web", "~ jail_conf:web", "~ jail:web"] {
        assert!(host.contains(&id.to_string()), "{id}:\n{}", r.stdout);
    }
    assert_eq!(row(&r.stdout, WEB)[3], "ok", "{}", r.stdout);
    assert_eq!(
        in_jail(&w, "web", "pw usershow -n deploy | cut -d: -f8"),
        "Deployments\n"
    );
    // The set pkg --rootdir installed, then what the jail's own steps
    // installed with its own pkg (its bootstrap, sudo), in one database.
    let root = "/usr/local/jails/web";
    assert_eq!(
        crate::live::sh(
            &w.bsd,
            &format!(
                "zfs get -H -o value beryl:base zroot/jails/web; \
                 cut -f1 {root}/var/db/pkg/fakebsd-local.tsv; \
                 cat {root}/usr/local/etc/pkg/repos/FreeBSD.conf; \
                 cmp -s /usr/share/keys/pkgbase-15/trusted/fakebsd-15 \
                 {root}/usr/share/keys/pkgbase-15/trusted/fakebsd-15 && echo keys-copied; \
                 [ -e {root}/boot/kernel/kernel ] || echo no-kernel; \
                 ls /tmp | grep -c beryl-base || true"
            )
        ),
        "15.0-RELEASE\nFreeBSD-set-minimal-jail\npkg\nsudo\nFreeBSD-base: { enabled: yes }\n\
         keys-copied\nno-kernel\n0\n"
    );

    let r = run(d, &["apply", "live", "--yes", "--exit-code"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    for unit in [HOST, WEB] {
        assert_eq!(row(&r.stdout, unit)[0], "0", "{unit}: {}", r.stdout);
    }
}

/// The attack (docs/jails.md "What beryl never touches"): a jail's root owns
/// its tree, so while `data` is stopped (a reboot, `service jail stop`) the
/// parent of its nullfs mount target can be a link it planted, to the
/// host's /etc. The host must refuse the start rather than mount the host's
/// /srv/data over /etc/data: the apply fails on that step, naming the link,
/// nothing is made or mounted through it, and the jail stays stopped. With
/// the link gone, the next apply starts it and the mount is back.
#[test]
fn a_link_planted_on_a_mount_target_refuses_the_jails_start() {
    let test = "a_link_planted_on_a_mount_target_refuses_the_jails_start";
    let Some((dir, w)) = wired(test) else {
        return;
    };
    let d = dir.path();
    let r = run(d, &["apply", "live", "--yes"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    // What the jail's root can leave behind once the jail is stopped:
    // /srv, the target's parent, a link to the host's /etc.
    // (Two runs: the fake binds a running jail's nullfs mounts for the
    // whole of each run, as the kernel holds them.)
    crate::live::sh(&w.bsd, "jail -q -f /etc/jail.conf.d/data.conf -r data");
    crate::live::sh(
        &w.bsd,
        "rm -rf /usr/local/jails/data/srv && ln -s /etc /usr/local/jails/data/srv",
    );
    let r = run(d, &["apply", "live", "--yes"]);
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains(
            "refused: /usr/local/jails/data/srv is a symbolic link: a mount there could land outside the jail"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(&format!("{HOST}: ! jail:data FAILED")),
        "{}",
        r.stdout
    );
    let seen = "jls -j data >/dev/null 2>&1 && echo data-runs; \
                [ -e /etc/data ] && echo made-in-etc; \
                cat /dev/fakebsd/nullfs-mounts 2>/dev/null | grep -c /usr/local/jails/data/; true";
    assert_eq!(crate::live::sh(&w.bsd, seen), "0\n");
    // The link gone (the jail's tree is its own: beryl does not repair it),
    // the start goes through and the mount is back.
    crate::live::sh(
        &w.bsd,
        "rm /usr/local/jails/data/srv && mkdir /usr/local/jails/data/srv",
    );
    let r = run(d, &["apply", "live", "--yes"]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        in_jail(&w, "data", "cat /srv/data/README"),
        "shared with the jail data\n"
    );
}

/// Timings (issue 36 "Proof"), run only with `BERYL_JAILS_TIMING=N`: the
/// host `live` with N jails (an address each), from nothing to converged
/// in one apply, then a re-apply that changes nothing, both over one ssh
/// connection, and beryl's own share (compiling the N+1 units and writing
/// the script, `apply live --script`). The binary is
/// `BERYL_JAILS_TIMING_BIN` (a release build) when set. Prints the wall
/// times; asserts only that each run did what it must (no timing
/// assertion in `cargo test`).
#[test]
fn timing_a_host_and_n_jails() {
    let test = "timing_a_host_and_n_jails";
    let Some(n) = std::env::var("BERYL_JAILS_TIMING")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    else {
        return;
    };
    let Some((dir, w)) = wired(test) else {
        return;
    };
    let d = dir.path();
    let jails = d.join("inventory/example.org/live.jails");
    for f in ["web", "app", "data"] {
        fs::remove_file(jails.join(format!("{f}.yml"))).unwrap();
    }
    for i in 0..n {
        fs::write(
            jails.join(format!("j{i:02}.yml")),
            format!(
                "freebsd:\n  hostname: j{i:02}.example.org\n  jail:\n    network:\n      interface: vtnet0\n      ip4: [192.0.2.{}/24]\n",
                100 + i
            ),
        )
        .unwrap();
    }
    let bin = std::env::var("BERYL_JAILS_TIMING_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_beryl").to_string());
    let home = d.join("home");
    fs::create_dir_all(&home).unwrap();
    // BERYL_JAILS_TIMING_PARALLEL=N: the applies' --jail-parallel.
    let parallel: Vec<String> = std::env::var("BERYL_JAILS_TIMING_PARALLEL")
        .map(|n| vec!["--jail-parallel".into(), n])
        .unwrap_or_default();
    let timed = |a: &[&str]| {
        let start = std::time::Instant::now();
        let extra: &[String] = match a.contains(&"--yes") {
            true => &parallel,
            false => &[],
        };
        let out = std::process::Command::new(&bin)
            .args(["--color", "never"])
            .args(a)
            .args(extra)
            .args(SSH_OPTIONS)
            .current_dir(d)
            .env("NO_COLOR", "1")
            .env("HOME", &home)
            .output()
            .unwrap();
        let took = start.elapsed();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (took, stdout)
    };
    let (script, _) = timed(&["apply", "live", "--script"]);
    let before = sessions(&w);
    let (first, out) = timed(&["apply", "live", "--yes"]);
    assert_eq!(sessions(&w), before + 1, "one ssh session");
    let recap = out.split("\nRecap:\n").nth(1).unwrap_or_default();
    assert_eq!(recap.lines().filter(|l| l.ends_with(" ok")).count(), n + 1);
    let (again, out) = timed(&["apply", "live", "--yes", "--exit-code"]);
    for i in 0..n {
        assert_eq!(row(&out, &format!("j{i:02}.live.example.org"))[0], "0");
    }
    let (script_again, _) = timed(&["apply", "live", "--script"]);
    // Where the re-apply's time goes: one jail's inside script alone, run
    // as the host's script runs it (jexec -l), and the host-side check of
    // one jail (jls, the conf's digest, zfs get).
    let (_, inside) = timed(&["apply", "j00", "--script"]);
    let start = std::time::Instant::now();
    let r = w
        .bsd
        .exec_in_target("jexec -l j00 /bin/sh -s", &inside, &[], "root");
    let one_inside = start.elapsed();
    assert_eq!(r.status, 0, "{}", r.all());
    let start = std::time::Instant::now();
    crate::live::sh(
        &w.bsd,
        "jls -j j00 >/dev/null; sha256 -q /etc/jail.conf.d/j00.conf >/dev/null; \
         zfs get -H -o value beryl:base zroot/jails/j00 >/dev/null; \
         zfs get -H -p -o value,source mountpoint zroot/jails/j00 >/dev/null",
    );
    let one_host = start.elapsed();
    eprintln!(
        "TIMING {n} jails ({bin}): script (compile + write) {script:.2?} / {script_again:.2?}; \
         nothing -> converged {first:.2?}; no-change re-apply {again:.2?}; \
         one jail's inside script alone {one_inside:.2?}; one jail's host-side probes {one_host:.2?}"
    );
}

/// Thin layouts (issue 36): the host `live` of tests/fixtures/jails/thin
/// with `cl` (a ZFS clone of the golden base) and `nf` (the golden base
/// mounted read-only by nullfs), each with its state on datasets of its
/// own. (a) From nothing to converged in one apply: the golden base laid
/// down once and snapshotted, the clone made from the snapshot, the state
/// datasets filled from it; (b) the nullfs jail's base is read-only in it,
/// its state writable and kept on the host outside its tree; (c) a file
/// written in a state directory survives a restart and an apply; (d) a
/// second apply changes nothing; (e) a state directory added later is
/// refused (it would hide what the jail wrote), as the dry run predicts.
#[test]
fn thin_jails_share_a_golden_base_and_keep_their_state() {
    let test = "thin_jails_share_a_golden_base_and_keep_their_state";
    let Some((dir, w)) = wired_from("jails/thin", test) else {
        return;
    };
    let d = dir.path();
    const CL: &str = "cl.live.example.org";
    const NF: &str = "nf.live.example.org";

    // (a) One apply, one session.
    let before = sessions(&w);
    let t = std::time::Instant::now();
    let r = run(d, &["apply", "live", "--yes"]);
    eprintln!("{test}: from nothing: {:.1?}", t.elapsed());
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(sessions(&w), before + 1, "one ssh session");
    let host = done(&r.stdout, HOST);
    for id in [
        "~ zfs:zroot/jails/_base/15.0-RELEASE",
        "~ jail_base:_base/15.0-RELEASE",
        "~ zfs:zroot/jails/cl",
        "~ zfs:zroot/jails/nf",
        "~ jail_state:cl",
        "~ jail_state:nf",
        "~ jail_conf:cl",
        "~ jail_conf:nf",
        "~ jail:cl",
        "~ jail:nf",
    ] {
        assert!(host.contains(&id.to_string()), "{id}:\n{}", r.stdout);
    }
    assert!(
        !host
            .iter()
            .any(|l| l == "~ jail_base:cl" || l == "~ jail_base:nf"),
        "{}",
        r.stdout
    );
    for unit in [CL, NF] {
        assert_eq!(row(&r.stdout, unit)[3], "ok", "{}", r.stdout);
    }
    assert_eq!(in_jail(&w, "cl", "cat /usr/local/etc/cl.conf"), "clone\n");
    assert_eq!(in_jail(&w, "nf", "cat /usr/local/etc/nf.conf"), "nullfs\n");
    let host_view = crate::live::sh(
        &w.bsd,
        "zfs list -H -t snapshot -o name; \
         zfs get -H -o value beryl:base zroot/jails/cl zroot/jails/nf; \
         zfs get -H -p -o value mountpoint zroot/jails/cl/usr_local zroot/jails/nf/usr_local; \
         cat /usr/local/jails/_state/nf/usr_local/etc/nf.conf; \
         ls /usr/local/jails/_base/15.0-RELEASE/usr/local/etc 2>/dev/null | wc -l",
    );
    assert_eq!(
        host_view,
        "zroot/jails/_base/15.0-RELEASE@beryl\n\
         15.0-RELEASE clone /etc /var /usr/local /tmp /home\n\
         15.0-RELEASE nullfs /etc /var /usr/local /tmp /home\n\
         /usr/local/jails/cl/usr/local\n\
         /usr/local/jails/_state/nf/usr_local\n\
         nullfs\n\
         0\n"
    );

    // (b) The shared base is read-only in the nullfs jail; its state is not.
    assert_eq!(
        in_jail(
            &w,
            "nf",
            "if touch /bin/beryl-was-here 2>/dev/null; then echo writable; else echo read-only; fi; \
             touch /var/beryl-was-here && echo state-writable"
        ),
        "read-only\nstate-writable\n"
    );

    // (c) State survives a restart (jail(8) unmounts the fstab in reverse
    // and mounts it again) and an apply.
    in_jail(&w, "nf", "echo kept-nf > /var/keep");
    in_jail(&w, "cl", "echo kept-cl > /var/keep");
    crate::live::sh(
        &w.bsd,
        "jail -q -f /etc/jail.conf.d/nf.conf -rc nf && jail -q -f /etc/jail.conf.d/cl.conf -rc cl",
    );

    // (d) Nothing changes anywhere.
    let t = std::time::Instant::now();
    let r = run(d, &["apply", "live", "--yes", "--exit-code"]);
    eprintln!("{test}: no change: {:.1?}", t.elapsed());
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    for unit in [HOST, CL, NF] {
        assert_eq!(row(&r.stdout, unit)[0], "0", "{unit}: {}", r.stdout);
    }
    assert_eq!(in_jail(&w, "nf", "cat /var/keep"), "kept-nf\n");
    assert_eq!(in_jail(&w, "cl", "cat /var/keep"), "kept-cl\n");
    assert_eq!(
        crate::live::sh(
            &w.bsd,
            "cat /usr/local/jails/_state/nf/var/keep /usr/local/jails/cl/var/keep"
        ),
        "kept-nf\nkept-cl\n"
    );

    // (e) A state directory added to the clone jail: the dry run shows the
    // mark's change, and apply refuses it, leaving the jail as it was.
    let file = d.join("inventory/example.org/live.jails/cl.yml");
    let text = fs::read_to_string(&file).unwrap();
    fs::write(&file, text.replace("/tmp, /home]", "/tmp, /home, /root]")).unwrap();
    let g = run(d, &["facts", "--gather", "--out", "facts", "live"]);
    assert_eq!(g.status, 0, "{}{}", g.stdout, g.stderr);
    let dry = run(d, &["apply", "live", "--dry-run", "--state-dir", "facts"]);
    assert!(
        dry.stdout.contains("~ jail_state:cl") && dry.stdout.contains("apply refuses this"),
        "{}{}",
        dry.stdout,
        dry.stderr
    );
    let r = run(d, &["apply", "live", "--yes"]);
    assert_ne!(r.status, 0, "{}{}", r.stdout, r.stderr);
    let all = format!("{}{}", r.stdout, r.stderr);
    assert!(
        all.contains("beryl does not change a thin jail's release, layout or state directories"),
        "{all}"
    );
    assert_eq!(in_jail(&w, "cl", "cat /var/keep"), "kept-cl\n");
}
