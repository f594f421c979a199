use std::os::unix::fs::symlink;
use std::path::Path;

use super::*;

fn dists() -> JailBase {
    JailBase {
        name: "www".into(),
        dataset: "zroot/jails/www".into(),
        path: "/usr/local/jails/www".into(),
        release: "15.0-RELEASE".into(),
        site: "https://download.FreeBSD.org/releases/amd64/15.0-RELEASE".into(),
        method: Install::Dists,
        pkgbase: None,
        golden: None,
    }
}

fn pkgbase(path: &str, keys: &str) -> JailBase {
    let b = JailBase {
        path: path.into(),
        ..dists()
    };
    let mut b = pkgbase_want(&b, "15.0").unwrap();
    if let Some(p) = &mut b.pkgbase {
        p.keys = keys.into();
    }
    b
}

#[test]
fn pkgbase_installs_the_minimal_jail_set_from_the_releases_repository() {
    let b = pkgbase("/usr/local/jails/www", "/usr/share/keys/pkgbase-15");
    assert_eq!(b.site, "pkg+https://pkg.FreeBSD.org/${ABI}/base_release_0");
    let p = b.pkgbase.clone().unwrap();
    assert_eq!(
        (p.abi.as_str(), p.keys.as_str()),
        ("FreeBSD:15:amd64", "/usr/share/keys/pkgbase-15")
    );
    let change = JailBase::shell(&b).unwrap().change;
    let pkg = "pkg -C \"$_d/pkg.conf\" --rootdir /usr/local/jails/www --repo-conf-dir \"$_d/repos\" \
               -o IGNORE_OSVERSION=yes -o 'ABI=FreeBSD:15:amd64'";
    for want in [
        format!("{pkg} update &&"),
        format!("if {pkg} rquery -U -r FreeBSD-base %n | grep -qx pkg; then"),
        format!("{pkg} install -U -y -r FreeBSD-base FreeBSD-set-minimal-jail pkg; else"),
        format!("{pkg} install -U -y -r FreeBSD-base FreeBSD-set-minimal-jail; fi"),
        "cp -R /usr/share/keys/pkgbase-15 /usr/local/jails/www/usr/share/keys/".to_string(),
        "fingerprints: \"/usr/share/keys/pkgbase-15\"".to_string(),
        "zfs set 'beryl:base=15.0-RELEASE' zroot/jails/www".to_string(),
    ] {
        assert!(change.contains(&want), "{want}\nnot in\n{change}");
    }
    assert!(!change.contains("fetch"), "{change}");
    assert!(pkgbase_want(&dists(), "14.3").is_none());
}

#[test]
fn dists_keeps_its_fetch_check_and_extract() {
    let change = JailBase::shell(&dists()).unwrap().change;
    assert!(change.contains("tar -xpf \"$_d/base.txz\" -C /usr/local/jails/www &&"));
    assert!(change.contains("https://download.FreeBSD.org/releases/amd64/15.0-RELEASE/MANIFEST"));
    assert!(!change.contains("pkg "), "{change}");
}

#[test]
fn every_path_in_the_pkgbase_change_is_one_quoted_word() {
    let b = pkgbase("/jails/it's here", "/usr/share/keys/pkgbase-15");
    let change = JailBase::shell(&b).unwrap().change;
    assert!(
        change.contains("--rootdir \"/jails/it's here\""),
        "{change}"
    );
    assert!(
        change.contains("[ ! -L \"/jails/it's here/usr/share/keys\" ]"),
        "{change}"
    );
    let b = pkgbase("/jails/a\0b", "/usr/share/keys/pkgbase-15");
    assert!(JailBase::shell(&b).is_err());
}

/// Runs the change as the apply script does (a function), with `jls`
/// saying the jail is stopped, `zfs` an unset marker, the dataset mounted
/// on `$MOUNTED` (and logging `set`), and `pkg` logging its arguments, the
/// repository configuration it is given and, for `rquery`, listing the set
/// and `pkg`.
fn run(tmp: &Path, b: &JailBase) -> (bool, String, String) {
    run_mounted(tmp, b, &b.path)
}

fn run_mounted(tmp: &Path, b: &JailBase, mounted: &str) -> (bool, String, String) {
    let change = JailBase::shell(b).unwrap().change;
    crate::resource::sh_test::run(
        tmp,
        &[
            ("jls", "#!/bin/sh\nexit 1\n"),
            (
                "zfs",
                "#!/bin/sh\ncase \"$*\" in 'get -H -p -o value mounted,mountpoint '*) printf 'yes\\n%s\\n' \"$MOUNTED\"; exit 0 ;; esac\n\
                 [ \"$1\" = get ] && { echo -; exit 0; }\nprintf 'zfs %s\\n' \"$*\" >> \"$LOG\"\n",
            ),
            (
                "pkg",
                "#!/bin/sh\nprintf 'pkg %s\\n' \"$*\" >> \"$LOG\"\n[ \"$1\" = -N ] && exit 0\n\
             case \" $* \" in *' rquery '*) printf 'FreeBSD-set-minimal-jail\\npkg\\n' ;; \
             *' update '*) cat \"$6/FreeBSD-base.conf\" \"$2\" >> \"$LOG\" ;; \
             *' install '*) mkdir -p \"$4/etc\" ;; esac\n",
            ),
        ],
        "change",
        &change,
        "",
        &[("TMPDIR", tmp.to_str().unwrap()), ("MOUNTED", mounted)],
    )
}

/// The host's keys (a directory of the test standing for
/// /usr/share/keys/pkgbase-15) and an empty root.
fn setup(tmp: &Path) -> (String, String) {
    let keys = tmp.join("hostkeys/pkgbase-15");
    std::fs::create_dir_all(keys.join("trusted")).unwrap();
    std::fs::write(keys.join("trusted/k1"), "fingerprint: \"f1\"\n").unwrap();
    let root = tmp.join("root");
    std::fs::create_dir_all(&root).unwrap();
    (
        root.to_str().unwrap().to_string(),
        keys.to_str().unwrap().to_string(),
    )
}

#[test]
fn the_change_copies_the_hosts_keys_in_runs_pkg_and_sets_the_marker() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, keys) = setup(tmp.path());
    // A stale key in the root is replaced by the host's.
    let in_root = format!("{root}{keys}");
    std::fs::create_dir_all(format!("{in_root}/trusted")).unwrap();
    std::fs::write(format!("{in_root}/trusted/planted"), "x").unwrap();
    let b = pkgbase(&root, &keys);
    let (ok, log, err) = run(tmp.path(), &b);
    assert!(ok, "{err}\n{log}");
    let pkg = format!(
        "pkg -C {d}/pkg.conf --rootdir {root} --repo-conf-dir {d}/repos -o IGNORE_OSVERSION=yes -o ABI=FreeBSD:15:amd64",
        d = "DIR"
    );
    let log_norm: String = log
        .lines()
        .map(|l| {
            l.split(' ')
                .map(|w| match w.find("/beryl-base.") {
                    Some(_) if w.ends_with("/pkg.conf") => "DIR/pkg.conf",
                    Some(_) if w.ends_with("/repos") => "DIR/repos",
                    _ => w,
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n");
    let want = format!(
        "pkg -N\n{pkg} update\nFreeBSD-base: {{\n  url: \"pkg+https://pkg.FreeBSD.org/${{ABI}}/base_release_0\",\n  \
         mirror_type: \"srv\",\n  signature_type: \"fingerprints\",\n  fingerprints: \"{keys}\",\n  enabled: yes\n}}\n\
         # beryl: no pkg.conf is read from the jail's root\n{pkg} rquery -U -r FreeBSD-base %n\n\
         {pkg} install -U -y -r FreeBSD-base FreeBSD-set-minimal-jail pkg\nzfs set beryl:base=15.0-RELEASE zroot/jails/www"
    );
    assert_eq!(log_norm, want);
    let copied: Vec<_> = std::fs::read_dir(format!("{in_root}/trusted"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(copied, ["k1"]);
    assert_eq!(
        std::fs::read_to_string(format!("{root}/usr/local/etc/pkg/repos/FreeBSD.conf")).unwrap(),
        "FreeBSD-base: { enabled: yes }\n"
    );
    // The temporary directory is gone.
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("beryl-base."))
        .collect();
    assert!(left.is_empty());
}

#[test]
fn a_link_on_the_way_to_the_keys_in_the_root_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, keys) = setup(tmp.path());
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    // The first component of the keys' path inside the root is a link.
    let first = keys.trim_start_matches('/').split('/').next().unwrap();
    symlink(&elsewhere, format!("{root}/{first}")).unwrap();
    let (ok, log, err) = run(tmp.path(), &pkgbase(&root, &keys));
    assert!(!ok);
    assert!(err.contains("a symbolic link on the way to"), "{err}");
    assert!(
        !log.contains("install") && !log.contains("zfs set"),
        "{log}"
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

/// A dataset that is not mounted on the jail's path (unmounted, or
/// mounted elsewhere) is refused before anything is laid down: the base
/// would go into the file system under the path.
#[test]
fn a_dataset_not_mounted_on_the_path_is_refused_before_pkg_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, keys) = setup(tmp.path());
    let b = pkgbase(&root, &keys);
    let (ok, log, err) = run_mounted(tmp.path(), &b, "/elsewhere");
    assert!(!ok, "{log}");
    assert!(
        err.contains("zroot/jails/www is not mounted on ") && err.contains("another file system"),
        "{err}"
    );
    assert!(!log.contains("pkg "), "{log}");
    let (ok, log, _) = run(tmp.path(), &b);
    assert!(ok && log.contains("pkg "), "{log}");
}

#[test]
fn a_host_without_the_keys_is_refused_before_pkg_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, _) = setup(tmp.path());
    let missing = tmp.path().join("nokeys/pkgbase-15");
    let (ok, log, err) = run(tmp.path(), &pkgbase(&root, missing.to_str().unwrap()));
    assert!(!ok);
    assert!(err.contains("the host has no"), "{err}");
    assert_eq!(log, "pkg -N\n");
}

// The golden base of thin jails (src/resource/jail_state.rs).
fn thin_base(golden: bool) -> JailBase {
    JailBase {
        name: if golden { "_base/15.0-RELEASE" } else { "www" }.into(),
        dataset: if golden {
            "zroot/jails/_base/15.0-RELEASE"
        } else {
            "zroot/jails/www"
        }
        .into(),
        path: if golden {
            "/usr/local/jails/_base/15.0-RELEASE"
        } else {
            "/usr/local/jails/www"
        }
        .into(),
        release: "15.0-RELEASE".into(),
        site: "https://download.FreeBSD.org/releases/amd64/15.0-RELEASE".into(),
        method: Install::Dists,
        pkgbase: None,
        golden: golden.then(|| Golden {
            snapshot: "beryl".into(),
            jails: vec!["cl".into()],
        }),
    }
}

#[test]
fn a_thick_base_and_the_golden_one_are_laid_by_the_same_shell() {
    let thick = JailBase::shell(&thin_base(false)).unwrap().change;
    let golden = JailBase::shell(&thin_base(true)).unwrap();
    for (change, path) in [
        (&thick, "/usr/local/jails/www"),
        (&golden.change, "/usr/local/jails/_base/15.0-RELEASE"),
    ] {
        assert!(
            change.contains(
                &lay(&JailBase {
                    path: path.into(),
                    ..thin_base(false)
                })
                .unwrap()
            ),
            "{change}"
        );
    }
    assert!(thick.starts_with("if jls -j www"), "{thick}");
    assert!(!thick.contains("zfs snapshot"), "{thick}");
    // The golden one: snapshotted before it is marked, the snapshot
    // part of its check.
    let snap = golden
        .change
        .find("|| zfs snapshot zroot/jails/_base/15.0-RELEASE@beryl || return 1")
        .expect(&golden.change);
    let mark = golden
        .change
        .find("zfs set 'beryl:base=15.0-RELEASE' zroot/jails/_base/15.0-RELEASE")
        .expect(&golden.change);
    assert!(snap < mark, "{}", golden.change);
    assert!(
        golden
            .check
            .ends_with("&& zfs list -H -t snapshot -o name zroot/jails/_base/15.0-RELEASE@beryl >/dev/null 2>&1"),
        "{}",
        golden.check
    );
}

#[test]
fn the_golden_base_is_laid_until_a_jail_of_its_release_is_marked() {
    let b = thin_base(true);
    let mut s = State::default();
    assert_eq!(JailBase::judge(&b, &s).action, Action::Create);
    s.zfs.insert(b.dataset.clone(), Some(Default::default()));
    assert_eq!(JailBase::judge(&b, &s).action, Action::Create);
    s.jails.insert(
        "cl".into(),
        super::super::state::Jail {
            base: Some("15.0-RELEASE clone /etc".into()),
            ..Default::default()
        },
    );
    assert_eq!(JailBase::judge(&b, &s).action, Action::Noop);
}
