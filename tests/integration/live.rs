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

use crate::fakebsd::{FakeBsd, Options, Run};
use crate::support::{args, beryl, example, example_hosts, example_jails, fixtures};

mod fidelity;

/// The PATH sshd gives a session on FreeBSD: the `path` capability of the
/// `default` class of /etc/login.conf (`/sbin /bin /usr/sbin /usr/bin
/// /usr/local/sbin /usr/local/bin ~/bin`), which sshd sets through
/// setusercontext(LOGIN_SETPATH) (crypto/openssh/session.c, do_setup_env).
pub const SSH_PATH: &str = "/sbin:/bin:/usr/sbin:/usr/bin:/usr/local/sbin:/usr/local/bin";

/// The example inventory plus a host `live.example.org` whose level file is
/// `yaml` (it inherits `_default.yml` and example.org's `_domain.yml`: the
/// login user `beryl` under sudo, two disks, DHCP).
pub fn fixture(yaml: &str) -> tempfile::TempDir {
    let dir = example();
    fs::write(dir.path().join("inventory/example.org/live.yml"), yaml).unwrap();
    dir
}

pub fn ok(dir: &Path, a: &[&str]) -> String {
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
pub fn machine(dir: &Path, host: &str) -> Options {
    let json: Value = serde_json::from_str(&ok(dir, &["plan", host, "--format", "json"])).unwrap();
    Options::for_plan(&json)
}

/// A fresh machine with `beryl plan HOST` installed and booted (see
/// [`FakeBsd::boot`]: its sysctls set, its enabled services started), or
/// `None` after a notice (see [`FakeBsd::new`]).
pub fn installed(dir: &Path, host: &str, test: &str) -> Option<FakeBsd> {
    installed_on(dir, host, machine(dir, host), test)
}

/// `beryl plan HOST` installed on the machine `opts`, which must install
/// and boot; `None` after a notice (see [`FakeBsd::new`]).
pub fn installed_on(dir: &Path, host: &str, opts: Options, test: &str) -> Option<FakeBsd> {
    let bsd = FakeBsd::new(&opts, test)?;
    let run = bsd.install(&ok(dir, &["plan", host]));
    assert!(
        run.status == 0 && run.hang.is_none(),
        "{host} does not install:\n{}",
        run.all()
    );
    let boot = bsd.boot();
    assert!(boot.hang.is_none(), "{host} does not boot:\n{}", boot.all());
    Some(bsd)
}

/// `beryl facts HOST` run as root on the live host: the snapshot, with what
/// the host's config names (its files, its services) looked at.
pub fn facts(bsd: &FakeBsd, dir: &Path, host: &str) -> Value {
    let run = bsd.run_in_target(&ok(dir, &["facts", host]), &[], "root");
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
pub fn pending(bsd: &FakeBsd, dir: &Path, host: &str) -> Vec<String> {
    pending_in(dir, host, &facts(bsd, dir, host))
}

/// [`pending`] for the jail `jail` (its FQDN) of the live host: its facts
/// script run in it as its host's script runs it, `jexec -l NAME /bin/sh
/// -s` (NAME: the jail's first label, its file's stem).
pub fn jail_pending(bsd: &FakeBsd, dir: &Path, jail: &str) -> Vec<String> {
    let name = jail.split('.').next().unwrap();
    let script = ok(dir, &["facts", jail]);
    let run = bsd.exec_in_target(&format!("jexec -l {name} /bin/sh -s"), &script, &[], "root");
    assert!(
        run.status == 0 && run.hang.is_none(),
        "{jail}: facts failed:\n{}",
        run.all()
    );
    let state: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{jail}: facts wrote no JSON ({e}):\n{}", run.all()));
    pending_in(dir, jail, &state)
}

/// The pending steps of the dry run of `host` against `state`.
fn pending_in(dir: &Path, host: &str, state: &Value) -> Vec<String> {
    let (status, report) = dry_run(dir, host, state);
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
            keep = matches!(c, '+' | '~' | '-' | '!');
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
pub fn apply(bsd: &FakeBsd, dir: &Path, host: &str) -> Run {
    apply_with(bsd, dir, host, &[])
}

/// [`apply`] with more options for `beryl apply HOST --script`.
pub fn apply_with(bsd: &FakeBsd, dir: &Path, host: &str, extra: &[&str]) -> Run {
    let mut a = vec!["apply", host, "--script"];
    a.extend(extra);
    let script = ok(dir, &a);
    let (user, command) = login(dir, host);
    bsd.exec_in_target(&command, &script, &[("PATH", SSH_PATH)], &user)
}

/// The `~ id` lines of a run.
pub fn changed(run: &Run) -> Vec<&str> {
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
pub fn pending_ids(bsd: &FakeBsd, dir: &Path, host: &str) -> Vec<String> {
    pending(bsd, dir, host)
        .into_iter()
        .filter(|l| !l.starts_with(' '))
        .collect()
}

/// The dry run against facts must predict exactly `want` (`+ id`, `~ id`,
/// `- id`); the apply (as the login user, elevated as ssh would) must then
/// change exactly those steps, a second apply nothing, and facts must then
/// find nothing pending.
pub fn agree(bsd: &FakeBsd, dir: &Path, host: &str, want: &[&str]) {
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
    // The script prints `~` for what it created or changed, `-` for what
    // it removed.
    let want_ids: Vec<String> = want
        .iter()
        .map(|w| match w.strip_prefix("- ") {
            Some(_) => w.to_string(),
            None => format!("~ {}", &w[2..]),
        })
        .collect();
    let done: Vec<&str> = first
        .stdout
        .lines()
        .filter(|l| l.starts_with("~ ") || l.starts_with("- "))
        .collect();
    assert_eq!(
        done,
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
    // Each jail's own summary too (`|ID apply: …`, issue 36).
    for line in second.stdout.lines().filter(|l| l.starts_with('|')) {
        if let Some((_, sum)) = line.split_once(" apply: ") {
            assert!(
                sum.starts_with("0 changed,"),
                "{host}: the second apply changed something in a jail: {line}\n{}",
                second.all()
            );
        }
    }
    assert_eq!(
        pending(bsd, dir, host),
        Vec::<String>::new(),
        "{host}: facts after the apply disagree with the dry run"
    );
}

/// Runs `script` as root on the live host; it must succeed. Its stdout.
pub fn sh(bsd: &FakeBsd, script: &str) -> String {
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
pub fn live(yaml: &str, test: &str) -> Option<(tempfile::TempDir, FakeBsd)> {
    let dir = fixture(yaml);
    let bsd = installed(dir.path(), "live", test)?;
    agree(&bsd, dir.path(), "live", &[]);
    Some((dir, bsd))
}

// ---------------------------------------------------------------- example

/// Drifts every example host has steps for: a package removed, a user's
/// comment changed, a key added to authorized_keys, the sudoers drop-in
/// opened, sshd disabled, another time zone (no example host is in UTC).
pub const DRIFT: &str = "pkg delete -y tmux >/dev/null && \
    pw usermod -n alice -c 'Someone Else' && \
    echo 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAvqVJ0lKb2B0bOldLaptopKeyRevokedIn2025xx old' \
        >> \"$(pw usershow -n alice | cut -d: -f9)/.ssh/authorized_keys\" && \
    chmod 644 /usr/local/etc/sudoers.d/beryl && \
    sysrc sshd_enable=NO >/dev/null && \
    tzsetup -s UTC";

/// What the first apply of host01 does on the host after its install: the
/// rows that make its two jails (the install makes no jail: the plan has
/// no jail kind).
const JAIL_ROWS: &[&str] = &[
    "~ rc:jail_enable",
    "~ rc:jail_list",
    "+ file:/boot/loader.conf.d/beryl.conf",
    "+ zfs:zroot/jails/api",
    "+ zfs:zroot/jails/www",
    "+ jail_base:www",
    "+ jail_base:api",
    "+ jail_conf:www",
    "+ jail_conf:api",
    "+ jail:www",
    "+ jail:api",
];

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
        let jails = example_jails(&host);
        if jails.is_empty() {
            // install = apply: nothing pending, nothing to change.
            agree(&bsd, d, &host, &[]);
        } else {
            // A host with jails (host01, issue 36): the install made the
            // host; one apply makes its jails (their rows on the host, and
            // each jail's own steps inside it), a second changes nothing,
            // and facts in every jail agree.
            agree(&bsd, d, &host, JAIL_ROWS);
            for jail in &jails {
                assert_eq!(
                    jail_pending(&bsd, d, jail),
                    Vec::<String>::new(),
                    "{jail}: facts after the apply disagree with the dry run"
                );
            }
        }
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

// ---------------------------------------------------------------- fixtures

/// A package named by origin. The old check was `pkg info -e -O ORIGIN`;
/// pkg's info.c forces a match for `-O` (ports compatibility) and exits 0
/// without a package database, so the check could pass for a package that
/// is not there. Now `pkg info -e ORIGIN` (a pattern with `/` matches the
/// origin) and facts' `origins` agree.
#[test]
fn a_package_named_by_origin() {
    let Some((dir, bsd)) = live(
        "freebsd:\n  packages: [databases/postgresql16-server]\n",
        "a_package_named_by_origin",
    ) else {
        return;
    };
    let d = dir.path();
    assert!(
        sh(&bsd, "pkg query %o").contains("databases/postgresql16-server\n"),
        "the install did not install it"
    );
    sh(&bsd, "pkg delete -y postgresql16-server");
    agree(&bsd, d, "live", &["+ pkg:databases/postgresql16-server"]);
    assert!(sh(&bsd, "pkg query %n").contains("postgresql16-server\n"));
}

/// `X_enable` variables that are not `service X enable`. The old code
/// turned every `NAME_enable: YES` into `service NAME enable`: gateway and
/// mysql have no script (service(8): "does not exist in /etc/rc.d or the
/// local startup directories"), firewall_enable is ipfw's rcvar,
/// nfs_server_enable nfsd's, clear_tmp_enable cleartmp's. Now sysrc sets the
/// variable, and rc(8) sees it: `service SCRIPT enabled`.
#[test]
fn misnamed_rcvars() {
    let Some((dir, bsd)) = live(
        "freebsd:\n  rc_conf:\n    gateway_enable: YES\n    firewall_enable: YES\n    \
         nfs_server_enable: YES\n    clear_tmp_enable: YES\n    mysql_enable: YES\n",
        "misnamed_rcvars",
    ) else {
        return;
    };
    let d = dir.path();
    // cleartmp has no rcvar (its start reads clear_tmp_enable itself), so
    // `service cleartmp enabled` says nothing; the variable does.
    let enabled = "for s in ipfw nfsd; do service $s enabled && echo $s; done; \
                   sysrc -n gateway_enable clear_tmp_enable mysql_enable";
    assert_eq!(sh(&bsd, enabled), "ipfw\nnfsd\nYES\nYES\nYES\n");
    sh(
        &bsd,
        "sysrc -x gateway_enable firewall_enable nfs_server_enable clear_tmp_enable mysql_enable",
    );
    agree(
        &bsd,
        d,
        "live",
        &[
            "~ rc:gateway_enable",
            "~ rc:firewall_enable",
            "~ rc:nfs_server_enable",
            "~ rc:clear_tmp_enable",
            "+ rc:mysql_enable",
        ],
    );
    assert_eq!(sh(&bsd, enabled), "ipfw\nnfsd\nYES\nYES\nYES\n");
}

/// Values equal to their `/etc/defaults/rc.conf` default. The old facts
/// read `sysrc -f /etc/rc.conf -a`, which lists only what rc.conf sets,
/// while the old check (`sysrc -c`) counts the defaults: with the
/// variables gone from rc.conf, the dry run said `+` for ever and the apply
/// `=`. Now facts read `sysrc -A` (the defaults too), as rc(8) does.
#[test]
fn rc_conf_values_equal_to_their_defaults() {
    let Some((dir, bsd)) = live(
        "freebsd:\n  rc_conf:\n    syslogd_flags: \"-s\"\n    sendmail_enable: NONE\n",
        "rc_conf_values_equal_to_their_defaults",
    ) else {
        return;
    };
    let d = dir.path();
    sh(&bsd, "sysrc -x syslogd_flags sendmail_enable");
    assert_eq!(sh(&bsd, "grep -c _flags= /etc/rc.conf || true"), "0\n");
    // The defaults say the same: nothing to do, and both sides agree.
    agree(&bsd, d, "live", &[]);
    // A value other than the default is seen and fixed.
    sh(&bsd, "sysrc syslogd_flags=-ss");
    agree(&bsd, d, "live", &["~ rc:syslogd_flags"]);
}

/// What rc(8) sees, not what /etc/rc.conf says: an override in
/// /etc/rc.conf.local (in `rc_conf_files`) and in `/etc/rc.conf.d/sshd`
/// (load_rc_config reads it for sshd). The old code checked and set
/// `sysrc -f /etc/rc.conf`, and its facts read rc.conf alone: both said
/// sshd was enabled while rc(8) saw NO.
#[test]
fn rc_conf_local_and_rc_conf_d_overrides() {
    let Some((dir, bsd)) = live(
        "freebsd:\n  packages: [tmux]\n",
        "rc_conf_local_and_rc_conf_d_overrides",
    ) else {
        return;
    };
    let d = dir.path();
    let enabled = "service sshd enabled && echo yes || echo no";
    sh(&bsd, "echo 'sshd_enable=\"NO\"' >> /etc/rc.conf.local");
    assert_eq!(sh(&bsd, enabled), "no\n");
    agree(&bsd, d, "live", &["~ rc:sshd_enable"]);
    assert_eq!(sh(&bsd, enabled), "yes\n");
    for file in ["/etc/rc.conf.d/sshd", "/usr/local/etc/rc.conf.d/sshd"] {
        let parent = file.rsplit_once('/').unwrap().0;
        sh(
            &bsd,
            &format!("mkdir -p {parent} && echo 'sshd_enable=\"NO\"' > {file}"),
        );
        assert_eq!(sh(&bsd, enabled), "no\n", "{file}");
        agree(&bsd, d, "live", &["~ rc:sshd_enable"]);
        assert_eq!(sh(&bsd, enabled), "yes\n", "{file}");
    }
}

/// A user whose home is not `/home/NAME`: created on the live host with
/// `pw useradd -d /srv/zoe` before the config names her. The old code
/// wrote `/home/NAME/.ssh/authorized_keys`; now the steps and facts take the
/// home from `pw usershow`.
#[test]
fn a_home_that_is_not_under_home() {
    let Some((dir, bsd)) = live(
        "freebsd:\n  packages: [tmux]\n",
        "a_home_that_is_not_under_home",
    ) else {
        return;
    };
    let d = dir.path();
    // Her uid is the config's: a home keeps the uid it was made with, and
    // apply writes keys only into a home that is the user's.
    sh(
        &bsd,
        "pw useradd -n zoe -u 1500 -d /srv/zoe -m -s /bin/sh -h -",
    );
    fs::write(
        d.join("inventory/example.org/live.yml"),
        "freebsd:\n  packages: [tmux]\n  users:\n    - name: zoe\n      uid: 1500\n      \
         comment: Zoe\n      shell: /bin/sh\n      ssh_keys: [alice]\n",
    )
    .unwrap();
    agree(&bsd, d, "live", &["~ user:zoe", "+ keys:zoe"]);
    let keys = sh(
        &bsd,
        "stat -f '%Lp %Su' /srv/zoe/.ssh/authorized_keys; ls -a /home",
    );
    assert_eq!(keys.lines().next(), Some("600 zoe"), "{keys}");
    assert!(
        !keys.lines().any(|l| l == "zoe"),
        "/home/zoe was made:\n{keys}"
    );
}

/// Users named like a group that other users join: `dba` and the service
/// account `git`, with erin a member of both, written first. Without `-g`,
/// `pw useradd -n dba` reuses the group `dba` only while it has no members
/// (usr.sbin/pw/pw_user.c `pw_gidpolicy`); erin is in it, so pw adds a
/// second `dba` line to /etc/group (pw_group.c `groupadd`, grupd.c
/// `addgrent`, lib/libutil/gr_util.c `gr_copy` matching lines by gid). The
/// install and apply's create branch pass `-g NAME`: one group per name, the
/// user's primary group, and a second apply changes nothing.
#[test]
fn users_named_like_a_group_others_join() {
    let Some((dir, bsd)) = live(
        "freebsd:\n  users:\n    - name: erin\n      uid: 1601\n      shell: /bin/sh\n      \
         groups: [dba, git]\n    - name: dba\n      uid: 1602\n      shell: /bin/sh\n    \
         - name: git\n      uid: 1603\n      shell: /usr/sbin/nologin\n",
        "users_named_like_a_group_others_join",
    ) else {
        return;
    };
    let d = dir.path();
    let groups = "for g in dba git; do grep -c \"^$g:\" /etc/group; \
                  [ \"$(pw usershow -n $g | cut -d: -f4)\" = \"$(pw groupshow -n $g | cut -d: -f3)\" ] && echo primary; \
                  pw groupshow -n $g | cut -d: -f4; done";
    assert_eq!(
        sh(&bsd, groups),
        "1\nprimary\ncarol,erin\n1\nprimary\nerin\n"
    );
    // The apply's create branch: the accounts gone, their groups kept (pw
    // userdel keeps a group that has members).
    sh(&bsd, "pw userdel -n dba -r && pw userdel -n git -r");
    agree(
        &bsd,
        d,
        "live",
        &["+ user:dba", "+ user:git", "+ keys:dba", "+ keys:git"],
    );
    assert_eq!(
        sh(&bsd, groups),
        "1\nprimary\ncarol,erin\n1\nprimary\nerin\n"
    );
    // A group the host has but beryl does not make (made by hand, erin in
    // it), and a user of its name written before erin: `-g` there too.
    sh(&bsd, "pw groupadd -n svc -M erin");
    fs::write(
        d.join("inventory/example.org/live.yml"),
        "freebsd:\n  users:\n    - name: svc\n      uid: 1604\n      shell: /usr/sbin/nologin\n    \
         - name: erin\n      uid: 1601\n      shell: /bin/sh\n      groups: [dba, git]\n    \
         - name: dba\n      uid: 1602\n      shell: /bin/sh\n    \
         - name: git\n      uid: 1603\n      shell: /usr/sbin/nologin\n",
    )
    .unwrap();
    agree(
        &bsd,
        d,
        "live",
        &["+ user:svc", "~ user:erin", "+ keys:svc"],
    );
    assert_eq!(
        sh(
            &bsd,
            "grep -c '^svc:' /etc/group; [ \"$(pw usershow -n svc | cut -d: -f4)\" = \"$(pw groupshow -n svc | cut -d: -f3)\" ] && echo primary"
        ),
        "1\nprimary\n"
    );
}

/// A non-root login with `become: sudo`: the apply runs as `deploy`, a
/// member of wheel, under `sudo -n sh -s` (the remote command of
/// apply::ssh). The old remote command was `sh -s`: the script ran as the
/// login user, and FreeBSD's tools refuse to change anything then.
#[test]
fn a_non_root_login_with_become_sudo() {
    let Some((dir, bsd)) = live(
        "ssh:\n  user: deploy\n  become: sudo\nfreebsd:\n  users:\n    - name: deploy\n      \
         uid: 1600\n      shell: /bin/sh\n      groups: [wheel]\n",
        "a_non_root_login_with_become_sudo",
    ) else {
        return;
    };
    let d = dir.path();
    assert_eq!(login(d, "live"), ("deploy".into(), "sudo -n sh -s".into()));
    sh(&bsd, "pw usermod -n alice -s /bin/csh");
    // Without elevation, as the old remote command ran it: the change fails.
    let script = ok(d, &["apply", "live", "--script"]);
    let plain = bsd.exec_in_target("sh -s", &script, &[("PATH", SSH_PATH)], "deploy");
    assert_eq!(plain.status, 1, "{}", plain.all());
    assert!(
        plain
            .stdout
            .contains("! user:alice FAILED: the change exited"),
        "{}",
        plain.all()
    );
    // Through sudo: the dry run's prediction, applied.
    agree(&bsd, d, "live", &["~ user:alice"]);
}

/// A non-root login with `become: doas`: the apply runs as `deploy`, in
/// wheel, under `doas -n sh -s`, which the doas model (the port's doas:
/// slicer69/doas doas.c, parse.y) lets through the doas.conf of
/// `freebsd.files`. Without that file doas refuses everything, which is why
/// `beryl check` refuses `become: doas` without one.
#[test]
fn a_non_root_login_with_become_doas() {
    let Some((dir, bsd)) = live(
        "ssh:\n  user: deploy\n  become: doas\nfreebsd:\n  packages: [doas]\n  users:\n    \
         - name: deploy\n      uid: 1600\n      shell: /bin/sh\n      groups: [wheel]\n  files:\n    \
         /usr/local/etc/doas.conf:\n      content: |\n        permit nopass :wheel as root\n",
        "a_non_root_login_with_become_doas",
    ) else {
        return;
    };
    let d = dir.path();
    assert_eq!(login(d, "live"), ("deploy".into(), "doas -n sh -s".into()));
    sh(&bsd, "pw usermod -n alice -s /bin/csh");
    agree(&bsd, d, "live", &["~ user:alice"]);
    // What the installed host does with what check refuses: a last rule
    // that asks for a password, a rule doas cannot parse, no file.
    let script = ok(d, &["apply", "live", "--script"]);
    for (conf, message) in [
        (
            "printf 'permit nopass :wheel as root\\npermit deploy\\n' >",
            "doas: Authorization required",
        ),
        (
            "printf 'permit nopass :wheel as root' >",
            "doas: syntax error at line 1",
        ),
        (
            "rm",
            "doas: doas is not enabled, /usr/local/etc/doas.conf: No such file or directory",
        ),
    ] {
        sh(&bsd, &format!("{conf} /usr/local/etc/doas.conf"));
        let run = bsd.exec_in_target("doas -n sh -s", &script, &[("PATH", SSH_PATH)], "deploy");
        assert_eq!(run.status, 1, "{}", run.all());
        assert!(run.stderr.contains(message), "{message}: {}", run.all());
    }
}

/// A host whose pkg is not bootstrapped (the base system alone, as
/// extracted): /usr/sbin/pkg is only pkg(7), the bootstrapper, which asks
/// before it fetches pkg, and refuses when its standard input is not a
/// terminal. The old apply had no bootstrap step: its first `pkg info -e`
/// ran the bootstrapper (refused, or on a terminal a question read from the
/// script itself); the old facts ran `pkg query` there too. Now facts say
/// `"pkg": false` without running pkg, and the apply's first step is
/// `pkg bootstrap` under ASSUME_ALWAYS_YES.
///
/// The apply runs as root with `sh -s`: such a host has no sudo yet, and
/// beryl refuses a root login (`beryl check`), so this is the script on the
/// console, not over ssh.
#[test]
fn an_unbootstrapped_pkg_is_bootstrapped_first() {
    let test = "an_unbootstrapped_pkg_is_bootstrapped_first";
    let dir = fixture("freebsd:\n  packages: [databases/postgresql16-server]\n");
    let d = dir.path();
    let Some(bsd) = FakeBsd::new(&machine(d, "live"), test) else {
        return;
    };
    bsd.extract_base();
    assert!(!bsd.target().join("usr/local/sbin/pkg").exists());

    // facts neither hangs nor reads its own standard input: a marker after
    // 64 KiB of padding (beyond what sh has buffered) still runs.
    let mut script = ok(d, &["facts", "live"]);
    script.push_str(&"#\n".repeat(32 * 1024));
    script.push_str("echo facts-stdin-intact >&2\n");
    let run = bsd.run_in_target(&script, &[], "root");
    assert!(
        run.status == 0 && run.hang.is_none() && run.stderr.contains("facts-stdin-intact"),
        "{}",
        run.all()
    );
    let state: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(state["pkg"], Value::Bool(false));

    let predicted = pending_ids(&bsd, d, "live");
    assert_eq!(predicted.first().map(String::as_str), Some("+ pkg"));
    assert!(
        predicted.contains(&"+ pkg:databases/postgresql16-server".to_string()),
        "{predicted:?}"
    );
    let script = ok(d, &["apply", "live", "--script"]);
    let apply = || bsd.exec_in_target("sh -s", &script, &[("PATH", SSH_PATH)], "root");
    let first = apply();
    assert!(first.status == 0 && first.hang.is_none(), "{}", first.all());
    let ids: Vec<&str> = predicted.iter().map(|p| &p[2..]).collect();
    assert_eq!(changed(&first), ids, "{}", first.all());
    assert_eq!(changed(&first).first(), Some(&"pkg"));
    let second = apply();
    assert!(
        summary(&second).starts_with("apply: 0 changed,"),
        "{}",
        second.all()
    );
    assert_eq!(pending(&bsd, d, "live"), Vec::<String>::new());
}

// ---------------------------------------------------------------- state fixtures

/// tests/fixtures/apply/HOST.json, the snapshots the dry-run tests of
/// apply.rs start from, are exactly what `beryl facts` reports on the host
/// installed from its plan (BERYL_UPDATE_FIXTURES=1 rewrites them).
#[test]
fn state_fixtures_are_what_facts_reports_on_the_installed_host() {
    let test = "state_fixtures_are_what_facts_reports_on_the_installed_host";
    let dir = example();
    let d = dir.path();
    for host in ["host01", "db02"] {
        let Some(bsd) = installed(d, host, test) else {
            return;
        };
        // A host with jails is applied once first: its jails are made by
        // apply, never by the install (the fixture is the converged host).
        let jails = example_jails(&format!("{host}.example.org"));
        if !jails.is_empty() {
            let run = apply(&bsd, d, host);
            assert_eq!(run.status, 0, "{host}: {}", run.all());
        }
        // Each jail's snapshot, as its facts script prints it inside the
        // jail (jexec -l), for the offline fleet tests.
        for jail in &jails {
            let name = jail.split('.').next().unwrap();
            let script = ok(d, &["facts", jail]);
            let run =
                bsd.exec_in_target(&format!("jexec -l {name} /bin/sh -s"), &script, &[], "root");
            assert_eq!(run.status, 0, "{jail}: {}", run.all());
            let path = fixtures().join(format!("apply/fleet/{jail}.json"));
            if std::env::var_os("BERYL_UPDATE_FIXTURES").is_some() {
                fs::write(&path, &run.stdout).unwrap();
            } else {
                assert_eq!(
                    fs::read_to_string(&path).unwrap_or_default(),
                    run.stdout,
                    "{}",
                    path.display()
                );
            }
        }
        let got = facts(&bsd, d, host);
        let path = fixtures().join(format!("apply/{host}.json"));
        if std::env::var_os("BERYL_UPDATE_FIXTURES").is_some() {
            let mut text = serde_json::to_string_pretty(&got).unwrap();
            text.push('\n');
            fs::write(&path, text).unwrap();
            continue;
        }
        let want: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        assert!(
            want == got,
            "{} is not what facts reports on the installed {host} (BERYL_UPDATE_FIXTURES=1 rewrites it):\n{}",
            path.display(),
            serde_json::to_string_pretty(&got).unwrap()
        );
    }
}

// ---------------------------------------------------------------- pruning

/// The record of what beryl created on the host (docs/apply.md §17).
fn record(bsd: &FakeBsd) -> String {
    sh(bsd, "cat /var/db/beryl/managed")
}

/// A package that left the config is removed when beryl created it (by the
/// install or by an apply), kept with --no-prune, and never removed when
/// someone else installed it first; the record follows.
#[test]
fn packages_that_left_the_config_are_pruned_when_beryl_created_them() {
    let Some((dir, bsd)) = live(
        "freebsd:\n  packages: [zsh, fish]\n",
        "packages_that_left_the_config_are_pruned_when_beryl_created_them",
    ) else {
        return;
    };
    let d = dir.path();
    let host_file = d.join("inventory/example.org/live.yml");
    let rec = record(&bsd);
    assert!(
        rec.contains("pkg zsh\n") && rec.contains("pkg fish\n"),
        "{rec}"
    );

    // nsd installed by hand, then named by the config: already there, so
    // apply does not record it.
    sh(
        &bsd,
        "env ASSUME_ALWAYS_YES=yes pkg install -y nsd >/dev/null",
    );
    fs::write(
        &host_file,
        "freebsd:\n  packages: [zsh, fish, nsd, haproxy]\n",
    )
    .unwrap();
    agree(&bsd, d, "live", &["+ pkg:haproxy"]);
    let rec = record(&bsd);
    assert!(rec.contains("pkg haproxy\n"), "{rec}");
    assert!(!rec.contains("pkg nsd"), "{rec}");

    // zsh (the install's), haproxy (an apply's) and nsd (the operator's)
    // leave the config.
    fs::write(&host_file, "freebsd:\n  packages: [fish]\n").unwrap();
    assert_eq!(
        pending_ids(&bsd, d, "live"),
        ["- pkg:haproxy", "- pkg:zsh"],
        "the dry run against facts"
    );
    // --no-prune keeps them, and says so.
    let kept = apply_with(&bsd, d, "live", &["--no-prune"]);
    assert_eq!(kept.status, 0, "{}", kept.all());
    assert!(
        kept.stdout.contains("\n= pkg:haproxy kept: --no-prune\n")
            && kept.stdout.contains("\n= pkg:zsh kept: --no-prune\n"),
        "{}",
        kept.stdout
    );
    assert!(sh(&bsd, "pkg query %n").contains("zsh\n"));
    // The dry run run on the host changes nothing either.
    let (user, command) = login(d, "live");
    let script = ok(d, &["apply", "live", "--script"]);
    let dry = bsd.exec_in_target(
        &command,
        &script,
        &[("PATH", SSH_PATH), ("BERYL_DRY_RUN", "1")],
        &user,
    );
    assert!(
        dry.stdout.contains("\n- pkg:haproxy would remove\n"),
        "{}",
        dry.all()
    );
    assert_eq!(record(&bsd), rec, "a dry run wrote the record");

    agree(&bsd, d, "live", &["- pkg:haproxy", "- pkg:zsh"]);
    let installed = sh(&bsd, "pkg query %n");
    assert!(!installed.contains("zsh\n") && !installed.contains("haproxy\n"));
    assert!(
        installed.contains("nsd\n"),
        "the operator's nsd was removed"
    );
    let rec = record(&bsd);
    assert!(
        !rec.contains("pkg zsh") && !rec.contains("pkg haproxy"),
        "{rec}"
    );
    assert!(rec.contains("pkg fish\n"), "{rec}");

    // A recorded package someone removed by hand is forgotten silently.
    fs::write(&host_file, "freebsd:\n  packages: []\n").unwrap();
    sh(&bsd, "pkg delete -y fish >/dev/null");
    agree(&bsd, d, "live", &[]);
    assert!(!record(&bsd).contains("pkg fish"));
}

/// A listed file that left the config is removed when beryl created it (at
/// install or by an apply), never when it was there before beryl wrote it;
/// the files beryl writes from other fields are never recorded.
#[test]
fn listed_files_that_left_the_config_are_pruned_when_beryl_created_them() {
    let Some((dir, bsd)) = live(
        "freebsd:\n  files:\n    /usr/local/etc/motd.d/beryl:\n      content: \"Managed by beryl.\\n\"\n",
        "listed_files_that_left_the_config_are_pruned_when_beryl_created_them",
    ) else {
        return;
    };
    let d = dir.path();
    let host_file = d.join("inventory/example.org/live.yml");
    let rec = record(&bsd);
    assert!(rec.contains("file /usr/local/etc/motd.d/beryl\n"), "{rec}");
    assert!(rec.contains("file /etc/pf.conf\n"), "{rec}");
    assert!(
        !rec.contains("sudoers.d"),
        "a built-in file is recorded:\n{rec}"
    );

    // The operator's own file, then listed with other content: changed in
    // place, but beryl did not create it.
    sh(&bsd, "printf 'mine\\n' > /usr/local/etc/ops.conf");
    fs::write(
        &host_file,
        "freebsd:\n  files:\n    /usr/local/etc/motd.d/beryl:\n      content: \"Managed by beryl.\\n\"\n    /usr/local/etc/ops.conf:\n      content: \"ours\\n\"\n    /usr/local/etc/new.conf:\n      content: \"new\\n\"\n",
    )
    .unwrap();
    agree(
        &bsd,
        d,
        "live",
        &[
            "~ file:/usr/local/etc/ops.conf",
            "+ file:/usr/local/etc/new.conf",
        ],
    );
    let rec = record(&bsd);
    assert!(rec.contains("file /usr/local/etc/new.conf\n"), "{rec}");
    assert!(!rec.contains("ops.conf"), "{rec}");

    // All three leave the config: beryl's two go, the operator's stays.
    fs::write(&host_file, "freebsd: {}\n").unwrap();
    agree(
        &bsd,
        d,
        "live",
        &[
            "- file:/usr/local/etc/motd.d/beryl",
            "- file:/usr/local/etc/new.conf",
        ],
    );
    let left = sh(
        &bsd,
        "for f in motd.d/beryl new.conf ops.conf; do [ -e /usr/local/etc/$f ] && echo $f; done; true",
    );
    assert_eq!(left, "ops.conf\n");
}

/// A package's own config file (nginx.conf, which the nginx package
/// installs from its `@sample`), listed in `freebsd.files`: the install
/// writes beryl's content but does not record the file, the dry run says
/// it is kept, and once it leaves the config nothing removes it.
#[test]
fn a_package_s_own_file_is_never_pruned() {
    let conf = "/usr/local/etc/nginx/nginx.conf";
    let listed = format!(
        "freebsd:\n  packages: [nginx]\n  files:\n    {conf}:\n      content: \"worker_processes 2;\\n\"\n"
    );
    let Some((dir, bsd)) = live(&listed, "a_package_s_own_file_is_never_pruned") else {
        return;
    };
    let d = dir.path();
    let rec = record(&bsd);
    assert!(rec.contains("pkg nginx\n"), "{rec}");
    assert!(!rec.contains("nginx.conf"), "recorded:\n{rec}");
    assert_eq!(sh(&bsd, &format!("cat {conf}")), "worker_processes 2;\n");
    let (status, report) = dry_run(d, "live", &facts(&bsd, d, "live"));
    assert_eq!(status, 0, "{report}");
    assert!(
        report.contains(&format!(
            "= file:{conf}\n    note: {}\n",
            beryl::resource::file::KEPT
        )),
        "{report}"
    );

    // Dropped from the config: nothing to remove, and the file stays as
    // beryl last wrote it.
    fs::write(
        d.join("inventory/example.org/live.yml"),
        "freebsd:\n  packages: [nginx]\n",
    )
    .unwrap();
    agree(&bsd, d, "live", &[]);
    assert_eq!(sh(&bsd, &format!("cat {conf}")), "worker_processes 2;\n");
}
