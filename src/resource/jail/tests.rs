use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;

use super::*;

fn www(tmp: &Path) -> Jail {
    let root = tmp.join("jails/www");
    let root = root.to_str().unwrap();
    Jail {
        name: "www".into(),
        conf: "/etc/jail.conf.d/www.conf".into(),
        path: root.into(),
        key: "k1".into(),
        live: vec![
            "host.hostname=www.example.org".into(),
            "enforce_statfs=2".into(),
        ],
        mount_paths: components(root, "/usr/local/www"),
        mount_targets: vec![format!("{root}/usr/local/www")],
        restart: false,
        private: vec![tmp.join("jails").to_str().unwrap().to_string()],
        console_log: tmp
            .join("jail_www_console.log")
            .to_str()
            .unwrap()
            .to_string(),
    }
}

/// Runs the step's change as the apply script does (a function), with
/// `jls` saying the jail is not running and `jail` logging its arguments;
/// beryl's state directory moved under `tmp`.
fn run_change(tmp: &Path, j: &Jail) -> (bool, String, String) {
    run_change_with(tmp, j, "#!/bin/sh\nexit 1\n")
}

/// [`run_change`] with the jail running: `jls -n P` answers `P=old`, so
/// every live parameter has drifted.
fn run_change_running(tmp: &Path, j: &Jail) -> (bool, String, String) {
    run_change_with(
        tmp,
        j,
        "#!/bin/sh\n[ \"$3\" = -n ] && printf '%s=old\\n' \"$4\"\nexit 0\n",
    )
}

fn run_change_with(tmp: &Path, j: &Jail, jls: &str) -> (bool, String, String) {
    let change = Jail::shell(j)
        .unwrap()
        .change
        .replace(STATE_DIR, tmp.join("state").to_str().unwrap());
    crate::resource::sh_test::run(
        tmp,
        &[
            // FreeBSD's `stat -f FORMAT`, for the two formats the step asks.
            (
                "stat",
                "#!/bin/sh\ncase $2 in\n'%Su %Lp') exec /usr/bin/stat -c '%U %a' \"$3\" ;;\n%Su) exec /usr/bin/stat -c %U \"$3\" ;;\nesac\nexit 2\n",
            ),
            ("jls", jls),
            ("jail", "#!/bin/sh\nprintf '%s\\n' \"$*\" >> \"$LOG\"\n"),
        ],
        "change",
        &change,
        "",
        &[],
    )
}

#[test]
fn a_stopped_jail_is_started_from_its_conf_and_its_start_remembered() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("jails/www/usr/local/www")).unwrap();
    let j = www(tmp.path());
    let (ok, log, err) = run_change(tmp.path(), &j);
    assert!(ok, "{err}");
    assert_eq!(log, "-q -f /etc/jail.conf.d/www.conf -c www\n");
    let started = std::fs::read_to_string(tmp.path().join("state/www.start")).unwrap();
    assert_eq!(started, "k1\n");
}

/// A mount target the base does not have is made before the start:
/// jail(8) would refuse it (command.c check_path). Found in the harness:
/// host01's jail www mounts /srv/www on /usr/local/www/site.
#[test]
fn a_missing_mount_target_is_made_before_the_start() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("jails/www")).unwrap();
    let j = www(tmp.path());
    let (ok, log, err) = run_change(tmp.path(), &j);
    assert!(ok, "{err}");
    assert!(tmp.path().join("jails/www/usr/local/www").is_dir());
    assert_eq!(log, "-q -f /etc/jail.conf.d/www.conf -c www\n");
}

/// The attack: the jail's root (who owns its tree) plants a link where a
/// nullfs mount will land; the host must not start the jail on it.
#[test]
fn a_link_planted_on_a_mount_target_path_refuses_the_start() {
    for planted in ["usr", "usr/local", "usr/local/www"] {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("jails/www");
        let (parent, _) = planted.rsplit_once('/').unwrap_or(("", planted));
        std::fs::create_dir_all(root.join(parent)).unwrap();
        symlink("/etc", root.join(planted)).unwrap();
        let j = www(tmp.path());
        let (ok, log, err) = run_change(tmp.path(), &j);
        assert!(!ok, "{planted}: started through a link");
        assert_eq!(log, "", "{planted}: jail(8) was run");
        assert!(err.contains("is a symbolic link"), "{planted}: {err}");
        assert!(!Path::new("/etc/local").exists(), "made through the link");
    }
}

/// A running jail started from this conf whose live parameters drifted
/// gets `jail -m` only, whatever its restart policy: no stop, no second
/// start, its start digest kept and nothing acknowledged.
#[test]
fn a_running_jail_from_this_conf_is_only_modified() {
    for restart in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("state")).unwrap();
        std::fs::create_dir_all(tmp.path().join("jails")).unwrap();
        std::fs::write(tmp.path().join("state/www.start"), "k1\n").unwrap();
        let mut j = www(tmp.path());
        j.restart = restart;
        let (ok, log, err) = run_change_running(tmp.path(), &j);
        assert!(ok, "restart {restart}: {err}");
        assert_eq!(
            log, "-q -f /etc/jail.conf.d/www.conf -m www\n",
            "restart {restart}"
        );
        assert!(
            !tmp.path().join("state/www.pending").exists(),
            "restart {restart}"
        );
    }
}

/// Started from another conf: `restart: on_change` stops and starts it
/// and records the new start; `never` acknowledges the digest in
/// `NAME.pending` and modifies what it can live.
#[test]
fn a_running_jail_from_another_conf_follows_its_restart_policy() {
    for (restart, want_log, start, pending) in [
        (
            true,
            "-q -f /etc/jail.conf.d/www.conf -r www\n-q -f /etc/jail.conf.d/www.conf -c www\n-q -f /etc/jail.conf.d/www.conf -m www\n",
            "k1\n",
            None,
        ),
        (
            false,
            "-q -f /etc/jail.conf.d/www.conf -m www\n",
            "k0\n",
            Some("k1\n"),
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("jails/www/usr/local/www")).unwrap();
        std::fs::create_dir_all(tmp.path().join("state")).unwrap();
        std::fs::write(tmp.path().join("state/www.start"), "k0\n").unwrap();
        let mut j = www(tmp.path());
        j.restart = restart;
        let (ok, log, err) = run_change_running(tmp.path(), &j);
        assert!(ok, "restart {restart}: {err}");
        assert_eq!(log, want_log, "restart {restart}");
        let read = |f: &str| std::fs::read_to_string(tmp.path().join("state").join(f)).ok();
        assert_eq!(
            read("www.start").as_deref(),
            Some(start),
            "restart {restart}"
        );
        assert_eq!(read("www.pending").as_deref(), pending, "restart {restart}");
    }
}

#[test]
fn the_check_needs_the_jail_running_from_this_conf_with_its_live_values() {
    let tmp = tempfile::tempdir().unwrap();
    let Shell { check, change } = Jail::shell(&www(tmp.path())).unwrap();
    assert!(
        check.contains(
            " && jls -j www >/dev/null 2>&1 && { [ \"$(cat /var/db/beryl/jails/www.start"
        ),
        "{check}"
    );
    assert!(
        check.contains("[ \"$(jls -j www -n enforce_statfs 2>/dev/null)\" = 'enforce_statfs=2' ]"),
        "{check}"
    );
    assert!(
        change.ends_with("|| jail -q -f /etc/jail.conf.d/www.conf -m www"),
        "{change}"
    );
    // restart: never acknowledges; on_change restarts, checking the
    // mounts between stop and start.
    assert!(
        change.contains("> /var/db/beryl/jails/www.pending"),
        "{change}"
    );
    let mut j = www(tmp.path());
    j.restart = true;
    let change = Jail::shell(&j).unwrap().change;
    let stop = change
        .find(&format!(
            "-r www && [ ! -L {log} ] && (umask 077 && : >> {log}) && chown 0:0 {log} && chmod 0600 {log} && for _p in",
            log = j.console_log
        ))
        .unwrap_or_else(|| panic!("{change}"));
    assert!(change[stop..].contains("-c www"), "{change}");
}

#[test]
fn the_restart_key_ignores_live_parameters_only() {
    let live = vec!["enforce_statfs=2".to_string(), "persist".to_string()];
    let a = "www {\n\tpath = '/j/www';\n\tenforce_statfs = '2';\n\tpersist;\n}\n";
    let b = "www {\n\tpath = '/j/www';\n\tenforce_statfs = '1';\n\tnopersist;\n}\n";
    let c = "www {\n\tpath = '/j/other';\n\tenforce_statfs = '2';\n\tpersist;\n}\n";
    assert_eq!(
        restart_key(a, None, &live),
        restart_key(b, None, &["enforce_statfs=1".into(), "nopersist".into()])
    );
    assert_ne!(restart_key(a, None, &live), restart_key(c, None, &live));
    assert_ne!(
        restart_key(a, None, &live),
        restart_key(a, Some("x"), &live)
    );
}

#[test]
fn at_start_parameters_are_never_changed_live() {
    for p in [
        "path",
        "vnet",
        "exec.start",
        "mount.devfs",
        "vnet.interface",
        "depend",
    ] {
        assert!(at_start(p), "{p}");
    }
    for p in [
        "enforce_statfs",
        "allow.raw_sockets",
        "securelevel",
        "host.hostname",
        "vnetx",
    ] {
        assert!(!at_start(p), "{p}");
    }
}

/// A snapshot of `www` running, started from `started`, with these `jls
/// -n` answers.
/// `j` running, started from `started`, with these live values and the
/// directories above its tree closed.
fn running(j: &Jail, started: &str, params: &[(&str, &str)]) -> State {
    let mut s = State::default();
    s.jails.insert(
        "www".into(),
        crate::resource::state::Jail {
            running: true,
            started: Some(started.into()),
            dirs: j
                .private
                .iter()
                .map(|d| (d.clone(), PRIVATE.to_string()))
                .collect(),
            params: params
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Default::default()
        },
    );
    s
}

const CONVERGED: &[(&str, &str)] = &[
    ("host.hostname", "host.hostname=www.example.org"),
    ("enforce_statfs", "enforce_statfs=2"),
];

#[test]
fn judge_says_start_when_the_jail_is_not_running() {
    let tmp = tempfile::tempdir().unwrap();
    let j = www(tmp.path());
    let v = Jail::judge(&j, &State::default());
    assert_eq!(v.action, Action::Create);
    assert_eq!(v.changes[0].field, "running");
    // Stopped, with a conf: still a start.
    let mut s = running(&j, "k1", CONVERGED);
    s.jails.get_mut("www").unwrap().running = false;
    assert_eq!(Jail::judge(&j, &s).action, Action::Create);
}

#[test]
fn judge_is_unchanged_when_started_from_this_conf_with_its_live_values() {
    let tmp = tempfile::tempdir().unwrap();
    let j = www(tmp.path());
    let v = Jail::judge(&j, &running(&j, "k1", CONVERGED));
    assert_eq!(v.action, Action::Noop, "{:?}", v.changes);
    // A restart acknowledged (restart: never) is no change either.
    let mut s = running(&j, "k0", CONVERGED);
    s.jails.get_mut("www").unwrap().pending = Some("k1".into());
    assert_eq!(Jail::judge(&j, &s).action, Action::Noop);
}

#[test]
fn judge_says_jail_m_for_each_live_parameter_that_drifted() {
    let tmp = tempfile::tempdir().unwrap();
    let j = www(tmp.path());
    let s = running(
        &j,
        "k1",
        &[
            ("host.hostname", "host.hostname=www.example.org"),
            ("enforce_statfs", "enforce_statfs=1"),
        ],
    );
    let v = Jail::judge(&j, &s);
    assert_eq!(v.action, Action::Update);
    assert_eq!(v.changes.len(), 1, "{:?}", v.changes);
    assert_eq!(v.changes[0].field, "jail -m enforce_statfs");
    assert_eq!(v.changes[0].before, "enforce_statfs=1");
    assert_eq!(v.changes[0].after, "enforce_statfs=2");
    assert_eq!(v.note, None, "no restart for a live change");
}

#[test]
fn judge_says_the_restart_when_started_from_another_conf() {
    let tmp = tempfile::tempdir().unwrap();
    let mut j = www(tmp.path());
    let v = Jail::judge(&j, &running(&j, "k0", CONVERGED));
    assert_eq!(v.action, Action::Update);
    assert_eq!(v.changes[0].field, "start");
    assert_eq!(v.changes[0].after, "restart needed (restart: never)");
    assert_eq!(v.note, Some(RESTART));
    j.restart = true;
    let v = Jail::judge(&j, &running(&j, "k0", CONVERGED));
    assert_eq!(
        v.changes[0].after,
        "restarted from this conf (jail -r, jail -c)"
    );
    assert_eq!(v.note, None);
}

#[test]
fn a_boolean_is_asked_by_its_own_name() {
    for (word, name) in [
        ("persist", "persist"),
        ("nopersist", "persist"),
        ("allow.noraw_sockets", "allow.raw_sockets"),
        ("allow.raw_sockets", "allow.raw_sockets"),
        ("host.hostname=no.example", "host.hostname"),
        ("enforce_statfs=2", "enforce_statfs"),
    ] {
        assert_eq!(asked(word), name, "{word}");
    }
    let j = www(Path::new("/j"));
    let q = Jail::query(&j).unwrap();
    assert_eq!(q.kind, "jail_live");
    assert_eq!(q.id, "www host.hostname enforce_statfs");
}

/// Runs PRUNE's removal of `old zroot/jails/old` under sh, with `jls`
/// saying it runs and `jail`/`zfs` logging; the record and the conf
/// directory moved under `tmp`. Returns the log.
fn run_prune(tmp: &Path, recorded: bool, desired: &str) -> String {
    let record = tmp.join("managed");
    let lines = if recorded {
        "jail old zroot/jails/old\nzfs zroot/jails/old\n"
    } else {
        "jail old zroot/jails/old\n"
    };
    std::fs::write(&record, lines).unwrap();
    let remove = PRUNE
        .remove
        .replace("/var/db/beryl/managed", record.to_str().unwrap())
        .replace("/etc/", &format!("{}/etc/", tmp.display()))
        .replace("/var/db/beryl/jails", tmp.to_str().unwrap());
    let (ok, log, err) = crate::resource::sh_test::run(
        tmp,
        &[
            ("jls", "#!/bin/sh\nexit 0\n"),
            (
                "jail",
                "#!/bin/sh\nprintf 'jail %s\\n' \"$*\" >> \"$LOG\"\n",
            ),
            (
                "zfs",
                "#!/bin/sh\ncase $1 in\nlist) [ \"$5\" != -r ] || printf '%s\\n' \"$6\" \"$6/etc\" \"$6/keep\" ;;\n\
             get) case $6 in */etc) echo 15.0-RELEASE ;; *) echo - ;; esac ;;\n\
             *) printf 'zfs %s\\n' \"$*\" >> \"$LOG\" ;;\nesac\n",
            ),
        ],
        "remove",
        &remove,
        "'old zroot/jails/old'",
        &[("desired", desired)],
    );
    assert!(ok, "{err}");
    log
}

/// A jail beryl made is stopped; its dataset is destroyed only when beryl
/// created it and the config no longer declares it, and never with `-r`
/// (a child or a snapshot someone made stops the destroy).
#[test]
fn pruning_destroys_only_a_dataset_beryl_made_and_no_longer_declared() {
    let tmp = tempfile::tempdir().unwrap();
    let log = run_prune(tmp.path(), true, "pkg sudo\n");
    assert!(log.contains("jail -q -r old\n"), "{log}");
    // The state dataset beryl filled first, by name; not the other child.
    assert!(
        log.ends_with("zfs destroy zroot/jails/old/etc\nzfs destroy zroot/jails/old\n"),
        "{log}"
    );
    assert!(!log.contains("-r zroot") && !log.contains("keep"), "{log}");
    for (recorded, desired) in [(true, "zfs zroot/jails/old\n"), (false, "")] {
        let tmp = tempfile::tempdir().unwrap();
        let log = run_prune(tmp.path(), recorded, desired);
        assert!(log.contains("jail -q -r old\n"), "{log}");
        assert!(!log.contains("destroy"), "{recorded} {desired:?}: {log}");
    }
}

/// The directory above a jail's tree is closed to everyone but root before
/// the jail starts (a jail's root may leave setuid-root programs in its
/// tree); one root does not own is refused, and nothing is started.
#[test]
fn the_directory_above_the_tree_is_closed_before_a_start() {
    let tmp = tempfile::tempdir().unwrap();
    let jails = tmp.path().join("jails");
    std::fs::create_dir_all(jails.join("www/usr/local/www")).unwrap();
    std::fs::set_permissions(&jails, std::fs::Permissions::from_mode(0o755)).unwrap();
    let j = www(tmp.path());
    let check = Jail::shell(&j).unwrap().check;
    assert!(
        check.starts_with(&format!(
            "[ \"$(stat -f '%Su %Lp' {} 2>/dev/null)\" = 'root 700' ] && jls -j www",
            jails.display()
        )),
        "{check}"
    );
    let (ok, log, err) = run_change(tmp.path(), &j);
    assert!(ok, "{err}");
    assert_eq!(log, "-q -f /etc/jail.conf.d/www.conf -c www\n");
    let mode = std::fs::metadata(&jails).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
    // Someone else's directory: refused, nothing started.
    std::fs::set_permissions(&jails, std::fs::Permissions::from_mode(0o755)).unwrap();
    if std::os::unix::fs::chown(&jails, Some(1000), None).is_err() {
        eprintln!("notice: the refusal of a directory root does not own needs root: skipped");
        return;
    }
    std::fs::remove_file(tmp.path().join("log")).ok();
    let (ok, log, err) = run_change(tmp.path(), &j);
    assert!(!ok, "started under someone else's directory");
    assert_eq!(log, "");
    assert!(err.contains("must be root's, closed to others"), "{err}");
}

#[test]
fn judge_says_the_directory_above_the_tree_is_closed() {
    let tmp = tempfile::tempdir().unwrap();
    let j = www(tmp.path());
    let mut s = running(
        &j,
        "k1",
        &[
            ("host.hostname", "host.hostname=www.example.org"),
            ("enforce_statfs", "enforce_statfs=2"),
        ],
    );
    let dir = j.private[0].clone();
    s.jails
        .get_mut("www")
        .unwrap()
        .dirs
        .insert(dir.clone(), "root 755".into());
    let v = Jail::judge(&j, &s);
    assert_eq!(v.action, Action::Update);
    assert_eq!(v.changes[0].field, format!("directory {dir}"));
    s.jails
        .get_mut("www")
        .unwrap()
        .dirs
        .insert(dir, "root 700".into());
    assert_eq!(Jail::judge(&j, &s).action, Action::Noop);
}
