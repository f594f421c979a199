//! Unit tests of the comparison with a snapshot and of the apply script's
//! frame. The whole commands run in tests/integration/apply.rs, on stubs.

use super::diff::{Action, compare};
use super::state::State;
use super::{Desired, Kind, Step, sha256_hex};

fn step(id: &str, kind: Kind, desired: Desired) -> Step {
    Step {
        id: id.into(),
        kind,
        desired,
        check: "true".into(),
        change: "true".into(),
    }
}

fn state(json: &str) -> State {
    serde_json::from_str(json).unwrap()
}

fn keys(content: &str) -> Step {
    step(
        "keys:alice",
        Kind::Keys,
        Desired::File {
            path: "/home/alice/.ssh/authorized_keys".into(),
            content: content.into(),
            mode: "600".into(),
            owner: "alice".into(),
            group: "staff".into(),
            dir_mode: Some("700".into()),
        },
    )
}

fn alice(ssh_dir: &str, content: &str) -> State {
    let file = serde_json::json!({
        "sha256": sha256_hex(content), "mode": "600", "owner": "alice",
        "group": "staff", "content": content,
    });
    let mut user =
        serde_json::json!({"uid": "1001", "home": "/home/alice", "authorized_keys": file});
    if !ssh_dir.is_empty() {
        user["ssh_dir"] = serde_json::from_str(ssh_dir).unwrap();
    }
    state(&serde_json::json!({"users": {"alice": user}}).to_string())
}

#[test]
fn a_package_named_by_origin_is_judged_by_origin() {
    let want = step(
        "pkg:databases/postgresql16-server",
        Kind::Package,
        Desired::Package {
            name: "databases/postgresql16-server".into(),
        },
    );
    // The origin is installed under another name: it counts.
    let s = state(
        r#"{"packages": ["postgresql16-server-16.4"], "origins": ["databases/postgresql16-server"]}"#,
    );
    assert_eq!(
        compare(std::slice::from_ref(&want), Some(&s))[0].action,
        Action::Noop
    );
    // A package of that name from another origin does not.
    let s =
        state(r#"{"packages": ["postgresql16-server"], "origins": ["misc/postgresql16-server"]}"#);
    assert_eq!(
        compare(std::slice::from_ref(&want), Some(&s))[0].action,
        Action::Create
    );
    // A snapshot without origins: the origin's last part as the name.
    let s = state(r#"{"packages": ["postgresql16-server"]}"#);
    assert_eq!(compare(&[want], Some(&s))[0].action, Action::Noop);
}

#[test]
fn the_ssh_directory_of_authorized_keys_is_compared() {
    let content = "ssh-ed25519 AAAA alice@example.org\n";
    let s = alice(r#"{"mode": "700", "owner": "alice"}"#, content);
    assert_eq!(compare(&[keys(content)], Some(&s))[0].action, Action::Noop);
    let s = alice(r#"{"mode": "755", "owner": "root"}"#, content);
    let out = compare(&[keys(content)], Some(&s));
    assert_eq!(out[0].action, Action::Update);
    assert_eq!(out[0].changes.len(), 1);
    let c = &out[0].changes[0];
    assert_eq!(c.field, "directory");
    assert_eq!(
        (c.before.as_str(), c.after.as_str()),
        (Some("755 root"), Some("700 alice"))
    );
    // An older snapshot without the directory: only the file is compared.
    let s = alice("", content);
    assert_eq!(compare(&[keys(content)], Some(&s))[0].action, Action::Noop);
}

#[test]
fn a_file_diff_keeps_final_newlines() {
    let have = "ssh-ed25519 AAAA old@example.org\n";
    let want = "ssh-ed25519 AAAA alice@example.org\n";
    let s = alice(r#"{"mode": "700", "owner": "alice"}"#, have);
    let out = compare(&[keys(want)], Some(&s));
    let diff = out[0].diff.as_deref().unwrap();
    assert!(!diff.contains("No newline"), "{diff}");
    assert!(
        diff.contains("-ssh-ed25519 AAAA old@example.org\n+ssh-ed25519 AAAA alice@example.org\n")
    );
}

#[test]
fn the_script_feeds_no_standard_input_to_checks_and_changes() {
    // The script is itself standard input under `ssh HOST sh -s`: a command
    // that read it (pkg asking to bootstrap itself) would eat the next steps.
    let s = super::script::script(
        "h",
        &[step(
            "tz",
            Kind::Timezone,
            Desired::Timezone { zone: "UTC".into() },
        )],
    );
    for call in ["\"$2\" </dev/null", "\"$3\" </dev/null"] {
        assert!(s.contains(call), "{call} in\n{s}");
    }
    assert!(!s.contains("\"$2\" >"), "{s}");
}

#[test]
fn a_users_groups_change_as_lists() {
    let want = step(
        "user:carol",
        Kind::User,
        Desired::User(super::UserSpec {
            name: "carol".into(),
            uid: None,
            shell: None,
            comment: None,
            primary_group: None,
            groups: vec!["dba".into(), "wheel".into()],
        }),
    );
    let s = state(
        r#"{"users": {"carol": {"uid": "1003"}},
            "groups": {"wheel": {"gid": "0", "members": "root,carol"}, "dba": {"gid": "1000", "members": ""}}}"#,
    );
    let out = compare(&[want], Some(&s));
    let c = &out[0].changes[0];
    assert_eq!(c.field, "groups");
    assert_eq!(c.before, serde_json::json!(["wheel"]));
    assert_eq!(c.after, serde_json::json!(["dba", "wheel"]));
    let text = super::diff::to_text("h", &out, true);
    assert!(
        text.contains("\n    groups: [wheel] -> [dba, wheel]\n"),
        "{text}"
    );
}
