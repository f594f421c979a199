//! The registry's own rules: every kind has a row, a name that is its
//! serialised tag, a template, and steps that render.

use super::*;

/// Every kind's name, as the `kinds!` list makes them.
fn names() -> Vec<&'static str> {
    TEMPLATES.iter().map(|(name, _)| *name).collect()
}

#[test]
fn every_kind_has_a_row_and_every_row_a_kind() {
    let rows: std::collections::BTreeSet<&str> = KINDS.iter().map(|r| r.kind).collect();
    let kinds: std::collections::BTreeSet<&str> = names().into_iter().collect();
    assert_eq!(rows, kinds);
    assert_eq!(kinds.len(), TEMPLATES.len(), "a kind named twice");
}

#[test]
fn every_kind_has_an_install_template() {
    // A jail is made by apply, on its running host (issue 36).
    const APPLY_ONLY: &[&str] = &["jail_base", "jail_state", "jail_conf", "jail"];
    for (name, text) in TEMPLATES {
        if APPLY_ONLY.contains(name) {
            assert!(text.is_none(), "{name}: the install never sets it up");
            continue;
        }
        let text = text.unwrap_or_else(|| panic!("{name} has no template"));
        assert!(!text.trim().is_empty(), "steps/{name}.sh.j2 is empty");
    }
}

/// The name a kind gives itself is the `kind` its items serialise with
/// (the install plan's JSON and the template's file name).
#[test]
fn each_kind_serialises_under_its_name() {
    let items: Vec<Resource> = vec![
        packages::Packages {
            packages: vec!["sudo".into()],
        }
        .into(),
        group::Group { name: "ops".into() }.into(),
        root_password::RootPassword { hash: None }.into(),
        timezone::Timezone { zone: "UTC".into() }.into(),
        zfs_unmount::ZfsUnmount {
            pools: vec!["tank".into()],
        }
        .into(),
        sysctl::Sysctl {
            name: "a.b".into(),
            value: "1".into(),
        }
        .into(),
    ];
    for r in items {
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["kind"], r.kind(), "{json}");
    }
}

/// A want's desired value is `type` first, then its own fields; a unit
/// want is its type alone.
#[test]
fn desired_values_are_tagged_by_type_first() {
    let bootstrap = Want::Packages(packages::Want::Bootstrap);
    assert_eq!(bootstrap.to_json().to_string(), r#"{"type":"bootstrap"}"#);
    let absent = Want::User(user::User::Absent { name: "bob".into() });
    assert_eq!(
        absent.to_json().to_string(),
        r#"{"type":"absent","name":"bob"}"#
    );
    assert_eq!(absent.kind(), "user");
    let root = Want::RootPassword(root_password::RootPassword { hash: None });
    assert_eq!(
        (root.kind(), root.to_json().to_string().as_str()),
        ("root", r#"{"type":"root_password","hash":null}"#)
    );
}

/// The records of a resource are its last steps, one each: packages record
/// each package and not pkg's bootstrap.
#[test]
fn records_match_the_last_wants() {
    let p = packages::Packages {
        packages: vec!["a".into(), "b".into()],
    };
    assert_eq!(p.wants().len(), p.records().len() + 1);
    // Every record kind's pruning row belongs to a kind.
    for p in pruned_kinds() {
        assert!(
            TEMPLATES
                .iter()
                .any(|(k, _)| { *k == p.kind || (*k == "packages" && p.kind == "pkg") }),
            "{}",
            p.kind
        );
    }
}

#[test]
fn only_loader_steps_carry_a_note() {
    let loader = Want::Loader(loader::Loader {
        name: "a".into(),
        value: "1".into(),
    });
    assert_eq!(loader.note(), Some(loader::REBOOT));
    let sysctl = Want::Sysctl(sysctl::Sysctl {
        name: "a".into(),
        value: "1".into(),
    });
    assert_eq!(sysctl.note(), None);
}

#[test]
fn dirname_of_paths() {
    assert_eq!(dirname("/a/b/c"), "/a/b");
    assert_eq!(dirname("/c"), "/");
}

/// A file is staged as a dot-file beside it: cron reads every file of
/// /etc/cron.d that does not start with a dot (usr.sbin/cron/cron/database.c
/// @e4452d45), newsyslog includes `newsyslog.conf.d/[!.]*`.
#[test]
fn files_are_staged_as_dot_files_beside_them() {
    use super::file::staged;
    assert_eq!(staged("/etc/cron.d/backup"), "/etc/cron.d/.beryl-backup");
    assert_eq!(staged("/a.conf"), "/.beryl-a.conf");
    assert_eq!(
        staged("/usr/local/etc/sudoers.d/beryl"),
        "/usr/local/etc/sudoers.d/.beryl-beryl"
    );
}
