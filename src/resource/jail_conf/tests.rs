use super::*;
use crate::schema::{
    Dataset, Install, JailBase as Base, JailLayout, JailMount, JailNetwork, JailParam, JailRestart,
    Located, Vnet,
};
use crate::value::Span;

fn l<T>(v: T) -> Located<T> {
    Located::new(v, Span::default())
}

/// A jail as the schema's checker fills the model: `www` on aliases of
/// em0, one read-only mount, a dependency, an rctl rule and two parameters.
pub(crate) fn www() -> Jail {
    Jail {
        name: l("www".into()),
        base: Base {
            method: l(Install::Dists),
            layout: l(JailLayout::Thick),
            state: Vec::new(),
        },
        dataset: Dataset {
            name: l("zroot/jails/www".into()),
            props: Vec::new(),
            destroy: false,
        },
        path: l("/jails/www".into()),
        network: JailNetwork {
            ip4: vec![l("192.0.2.21/24".into())],
            ip6: vec![l("2001:db8::21/64".into())],
            interface: Some(l("em0".into())),
            vnet: None,
        },
        parameters: vec![
            JailParam {
                name: l("enforce_statfs".into()),
                value: l("2".into()),
            },
            JailParam {
                name: l("allow.raw_sockets".into()),
                value: l("true".into()),
            },
            JailParam {
                name: l("allow.set_hostname".into()),
                value: l("false".into()),
            },
        ],
        mounts: vec![JailMount {
            source: l("/data/www".into()),
            target: l("/usr/local/www".into()),
            ro: true,
        }],
        rctl: vec![l("memoryuse:deny=2G".into())],
        boot: l(true),
        depend: vec![l("db".into())],
        restart: l(JailRestart::Never),
        span: Span::default(),
    }
}

#[test]
fn the_conf_holds_every_field_once_each_value_quoted() {
    let text = conf_text("www.host01.example.org", &www(), "www.example.org");
    assert_eq!(
        text,
        "# Written by beryl for www.host01.example.org: replaced on every apply; edit the inventory.
www {
\texec.start = '/bin/sh /etc/rc';
\texec.stop = '/bin/sh /etc/rc.shutdown';
\texec.consolelog = '/var/log/jail_www_console.log';
\texec.clean;
\tmount.devfs;
\tpath = '/jails/www';
\thost.hostname = 'www.example.org';
\tip4.addr = 'em0|192.0.2.21/24';
\tip6.addr = 'em0|2001:db8::21/64';
\tmount.fstab = '/etc/fstab.www';
\texec.prestart += '/usr/bin/rctl -a jail:www:memoryuse:deny=2G';
\texec.poststop += '/usr/bin/rctl -r jail:www || true';
\tenforce_statfs = '2';
\tallow.raw_sockets;
\tallow.noset_hostname;
}
"
    );
}

#[test]
fn a_vnet_jail_gets_its_epair_made_at_start_and_destroyed_after_stop() {
    let mut j = www();
    j.network = JailNetwork {
        vnet: Some(Vnet {
            bridge: l("bridge0".into()),
            epair: l(3),
            mac: l("02:aa:bb:cc:dd:0b".into()),
            mac_host: "02:aa:bb:cc:dd:0a".into(),
            gateway: None,
            gateway6: None,
        }),
        ..JailNetwork::default()
    };
    let text = conf_text("www.h", &j, "www");
    assert!(
        text.contains("\tvnet;\n\tvnet.interface = 'epair3b';\n"),
        "{text}"
    );
    assert!(
        text.contains("exec.prestart += '/sbin/ifconfig epair3a >/dev/null 2>&1 || { /sbin/ifconfig epair3 create >/dev/null && /sbin/ifconfig epair3a ether 02:aa:bb:cc:dd:0a up && /sbin/ifconfig epair3b ether 02:aa:bb:cc:dd:0b && /sbin/ifconfig bridge0 addm epair3a; }';"),
        "{text}"
    );
    assert!(
        text.contains("exec.poststop += '/sbin/ifconfig epair3a destroy';"),
        "{text}"
    );
    assert!(!text.contains("ip4.addr"), "{text}");
}

#[test]
fn quotes_escape_what_jaillex_reads_as_an_escape() {
    assert_eq!(quote("a'b\\c"), "'a\\'b\\\\c'");
    assert_eq!(quote("x\ny\t"), "'x\\012y\\011'");
    assert_eq!(quote("$name ${x}"), "'$name ${x}'");
}

#[test]
fn the_fstab_has_one_nullfs_line_per_mount_under_the_root() {
    let mut j = www();
    j.mounts.push(JailMount {
        source: l("/srv/a b".into()),
        target: l("/mnt/x".into()),
        ro: false,
    });
    assert_eq!(
        fstab_text(&j, None).unwrap(),
        "# Written by beryl: the jail's nullfs mounts (mount.fstab).
/data/www\t/jails/www/usr/local/www\tnullfs\tro\t0\t0
/srv/a\\040b\t/jails/www/mnt/x\tnullfs\trw\t0\t0
"
    );
    j.mounts.clear();
    assert_eq!(fstab_text(&j, None), None);
}

#[test]
fn the_change_validates_the_staged_conf_before_it_replaces_the_old() {
    let j = JailConf {
        name: "www".into(),
        dataset: "zroot/jails/www".into(),
        conf: conf_path("www"),
        conf_text: "www {\n}\n".into(),
        fstab: None,
    };
    let Shell { check, change } = JailConf::shell(&j).unwrap();
    assert!(
        check.starts_with("[ -f /etc/jail.conf.d/www.conf ] && [ ! -L /etc/jail.conf.d/www.conf ]"),
        "{check}"
    );
    let validate = change
        .find("jail -f /etc/jail.conf.d/.beryl-www.conf -e")
        .unwrap();
    let replace = change
        .find("mv -f /etc/jail.conf.d/.beryl-www.conf /etc/jail.conf.d/www.conf")
        .unwrap();
    assert!(validate < replace, "{change}");
    assert!(change.contains("[ -z \"$_err\" ]"), "{change}");
    assert_eq!(
        j.records(),
        vec![Record::new("jail", "www zroot/jails/www")]
    );
}

/// `www`'s files as the step wants them.
fn want() -> JailConf {
    let jail = www();
    JailConf {
        name: "www".into(),
        dataset: "zroot/jails/www".into(),
        conf: conf_path("www"),
        conf_text: conf_text("www.host01.example.org", &jail, "www.example.org"),
        fstab: fstab_text(&jail, None).map(|t| (fstab_path("www"), t)),
    }
}

/// A file of the snapshot holding `text`.
fn held(text: &str) -> crate::resource::state::File {
    crate::resource::state::File {
        sha256: sha256_hex(text),
        mode: "0644".into(),
        owner: "root".into(),
        group: "wheel".into(),
        content: text.into(),
        ..Default::default()
    }
}

fn with(conf: Option<crate::resource::state::File>, fstab: Option<&str>) -> State {
    let mut s = State::default();
    s.jails.insert(
        "www".into(),
        crate::resource::state::Jail {
            conf,
            fstab: fstab.map(held),
            ..Default::default()
        },
    );
    s
}

#[test]
fn judge_creates_an_absent_conf_showing_its_lines() {
    let j = want();
    let v = JailConf::judge(&j, &State::default());
    assert_eq!(v.action, Action::Create);
    let diff = v.diff.unwrap();
    assert!(
        diff.starts_with("--- /dev/null\n+++ /etc/jail.conf.d/www.conf\n"),
        "{diff}"
    );
    assert!(diff.contains("+\tpath = '/jails/www';\n"), "{diff}");
    assert!(diff.contains("+++ /etc/fstab.www\n"), "{diff}");
}

#[test]
fn judge_is_unchanged_when_both_files_hold_the_text() {
    let j = want();
    let s = with(Some(held(&j.conf_text)), Some(&j.fstab.as_ref().unwrap().1));
    let v = JailConf::judge(&j, &s);
    assert_eq!(v.action, Action::Noop, "{:?}", v.changes);
}

#[test]
fn judge_shows_an_edited_conf_as_a_diff_of_its_lines() {
    let j = want();
    let edited = j
        .conf_text
        .replace("enforce_statfs = '2'", "enforce_statfs = '1'");
    let s = with(Some(held(&edited)), Some(&j.fstab.as_ref().unwrap().1));
    let v = JailConf::judge(&j, &s);
    assert_eq!(v.action, Action::Update);
    assert_eq!(v.changes.len(), 1);
    assert_eq!(v.changes[0].field, "/etc/jail.conf.d/www.conf");
    let diff = v.diff.unwrap();
    assert!(
        diff.contains("-\tenforce_statfs = '1';\n+\tenforce_statfs = '2';\n"),
        "{diff}"
    );
    // A missing fstab is its own line, and its own diff.
    let s = with(Some(held(&j.conf_text)), None);
    let v = JailConf::judge(&j, &s);
    assert_eq!(v.changes[0].field, "/etc/fstab.www");
    assert_eq!(v.changes[0].before, "absent");
}

#[test]
fn judge_replaces_a_link_where_the_conf_should_be() {
    let j = want();
    let link = crate::resource::state::File {
        kind: Type::Link,
        ..Default::default()
    };
    let s = with(Some(link), Some(&j.fstab.as_ref().unwrap().1));
    let v = JailConf::judge(&j, &s);
    assert_eq!(v.action, Action::Update);
    assert_eq!(v.changes[0].before, "symbolic link");
    assert!(v.diff.is_none());
}

/// Runs the conf step's change as the apply script does (a function, under
/// `set -u`) with `shell`, its conf directory moved under `tmp`, and stubs
/// for `mkdir` (when given) and `jail` (`jail -e` prints `jail_err` on
/// stderr and exits `jail_exit`): whether it succeeded, and its stderr.
fn run_conf_change(
    shell: &str,
    tmp: &std::path::Path,
    mkdir: Option<&str>,
    jail_err: &str,
    jail_exit: i32,
) -> (bool, String) {
    use std::os::unix::fs::PermissionsExt;
    let bin = tmp.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let jail = format!(
        "#!/bin/sh\n[ -n '{jail_err}' ] && printf '%s\\n' '{jail_err}' >&2\nexit {jail_exit}\n"
    );
    let mut stubs = vec![("jail", jail)];
    stubs.extend(mkdir.map(|m| ("mkdir", m.to_string())));
    for (name, body) in stubs {
        let p = bin.join(name);
        std::fs::write(&p, body).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let j = JailConf {
        name: "www".into(),
        dataset: "zroot/jails/www".into(),
        conf: conf_path("www"),
        conf_text: "www {\n}\n".into(),
        fstab: None,
    };
    let dir = tmp.join("conf.d");
    let change = JailConf::shell(&j)
        .unwrap()
        .change
        .replace(CONF_DIR, dir.to_str().unwrap());
    let out = std::process::Command::new(shell)
        .arg("-c")
        .arg(format!(
            "set -eu\nchange() {{\n\t{change}\n}}\nif change; then exit 0; else exit 1; fi"
        ))
        .env("PATH", format!("{}:/bin:/usr/bin", bin.display()))
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Each failure of the conf's change says what failed: a failed mkdir or
/// stage is not "jail -e refused", and `$_err` is never read unset (under
/// `set -u` that killed the script: "parameter not set").
#[test]
fn each_failure_of_the_conf_change_says_what_failed() {
    for shell in ["sh", "dash"] {
        if std::process::Command::new(shell)
            .arg("-c")
            .arg(":")
            .status()
            .is_err()
        {
            continue;
        }
        let unset = |err: &str| err.contains("not set") || err.contains("unbound");
        // mkdir fails: its own words, nothing of jail -e.
        let tmp = tempfile::tempdir().unwrap();
        let mkdir = "#!/bin/sh\nprintf '%s\\n' 'mkdir: read-only file system' >&2\nexit 1\n";
        let (ok, err) = run_conf_change(shell, tmp.path(), Some(mkdir), "", 0);
        assert!(!ok, "{shell}: {err}");
        assert!(err.contains("mkdir: read-only"), "{shell}: {err}");
        assert!(
            !err.contains("jail -e refused") && !unset(&err),
            "{shell}: {err}"
        );
        // The stage fails (a directory where the staged file goes).
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("conf.d/.beryl-www.conf/x")).unwrap();
        let (ok, err) = run_conf_change(shell, tmp.path(), None, "", 0);
        assert!(!ok, "{shell}: {err}");
        assert!(
            !err.contains("jail -e refused") && !unset(&err),
            "{shell}: {err}"
        );
        // jail -e refuses: its words, the staged conf removed, the old kept.
        let tmp = tempfile::tempdir().unwrap();
        let (ok, err) = run_conf_change(shell, tmp.path(), None, "line 1: syntax error", 1);
        assert!(!ok, "{shell}: {err}");
        assert!(
            err.contains("jail -e refused the new conf: line 1: syntax error"),
            "{shell}: {err}"
        );
        assert!(!tmp.path().join("conf.d/.beryl-www.conf").exists());
        assert!(!tmp.path().join("conf.d/www.conf").exists());
        // jail -e exits 0 but says something: refused too.
        let tmp = tempfile::tempdir().unwrap();
        let (ok, err) = run_conf_change(shell, tmp.path(), None, "warning: x", 0);
        assert!(
            !ok && err.contains("jail -e refused the new conf: warning: x"),
            "{shell}: {err}"
        );
        // All well: the conf is in place.
        let tmp = tempfile::tempdir().unwrap();
        let (ok, err) = run_conf_change(shell, tmp.path(), None, "", 0);
        assert!(ok, "{shell}: {err}");
        assert_eq!(
            std::fs::read_to_string(tmp.path().join("conf.d/www.conf")).unwrap(),
            "www {\n}\n"
        );
    }
}
