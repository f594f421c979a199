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
        restart: false,
    }
}

/// Runs the step's change as the apply script does (a function), with
/// `jls` saying the jail is not running and `jail` logging its arguments;
/// beryl's state directory moved under `tmp`.
fn run_change(tmp: &Path, j: &Jail) -> (bool, String, String) {
    let bin = tmp.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for (name, body) in [
        ("jls", "#!/bin/sh\nexit 1\n"),
        ("jail", "#!/bin/sh\nprintf '%s\\n' \"$*\" >> \"$LOG\"\n"),
    ] {
        let p = bin.join(name);
        std::fs::write(&p, body).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let change = Jail::shell(j)
        .unwrap()
        .change
        .replace(STATE_DIR, tmp.join("state").to_str().unwrap());
    let log = tmp.join("log");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("change() {{\n\t{change}\n}}\nchange"))
        .env("PATH", format!("{}:/bin:/usr/bin", bin.display()))
        .env("LOG", &log)
        .output()
        .unwrap();
    (
        out.status.success(),
        std::fs::read_to_string(&log).unwrap_or_default(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
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
    }
}

#[test]
fn the_check_needs_the_jail_running_from_this_conf_with_its_live_values() {
    let tmp = tempfile::tempdir().unwrap();
    let Shell { check, change } = Jail::shell(&www(tmp.path())).unwrap();
    assert!(
        check
            .starts_with("jls -j www >/dev/null 2>&1 && { [ \"$(cat /var/db/beryl/jails/www.start"),
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
    let stop = change.find("-r www && for _p in").unwrap();
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

#[test]
fn judge_reads_the_snapshot() {
    let tmp = tempfile::tempdir().unwrap();
    let j = www(tmp.path());
    let mut s = State::default();
    assert_eq!(Jail::judge(&j, &s).action, Action::Create);
    s.jails.insert(
        "www".into(),
        crate::resource::state::Jail {
            running: true,
            started: Some("k0".into()),
            params: vec![
                "host.hostname=www.example.org".into(),
                "enforce_statfs=2".into(),
            ],
            ..Default::default()
        },
    );
    let v = Jail::judge(&j, &s);
    assert_eq!(v.action, Action::Update);
    assert_eq!(v.note, Some(RESTART));
    s.jails.get_mut("www").unwrap().pending = Some("k1".into());
    assert_eq!(Jail::judge(&j, &s).action, Action::Noop);
}
