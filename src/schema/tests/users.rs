//! `validate` on `freebsd.users`.

use super::*;
use super::{at, fails, ok, run};

fn user(fields: &str) -> String {
    format!("freebsd:\n  users:\n    - name: alice\n{fields}")
}

#[test]
fn a_full_user() {
    let f = ok(&user(
        "      uid: 1001\n      comment: Alice Example\n      shell: /bin/sh\n      primary_group: staff\n      groups: [wheel, operator]\n      ssh_keys: [alice.pub, {inline: x}]\n      state: absent\n",
    ));
    let u = &f.users[0];
    assert_eq!(u.name.value, "alice");
    assert_eq!(u.name.span.to_string(), "t.yml:3:13");
    assert_eq!(
        u.comment.as_ref().map(|c| c.value.as_str()),
        Some("Alice Example")
    );
    assert_eq!(
        u.primary_group.as_ref().map(|g| g.value.as_str()),
        Some("staff")
    );
    assert_eq!(u.groups.len(), 2);
    assert_eq!(u.ssh_keys.len(), 2);
    assert_eq!(u.state, UserState::Absent);
    assert_eq!(ok(&user("")).users[0].state, UserState::Present);
}

#[test]
fn users_must_be_a_list_of_mappings() {
    fails(
        "freebsd:\n  users: alice\n",
        Code::Type,
        "freebsd.users must be a list of users, found a string",
        "t.yml:2:10",
    );
    fails(
        "freebsd:\n  users:\n",
        Code::Type,
        "found null",
        "t.yml:2:8",
    );
    fails(
        "freebsd:\n  users: [alice]\n",
        Code::Type,
        "freebsd.users.0 must be a mapping, found a string",
        "t.yml:2:11",
    );
}

#[test]
fn name() {
    fails(
        "freebsd:\n  users:\n    - shell: /bin/sh\n",
        Code::MissingKey,
        "freebsd.users.0 has no `name`",
        "t.yml:3:7",
    );
    fails(
        "freebsd:\n  users:\n    - name: 'bad:name'\n",
        Code::UserName,
        "freebsd.users.0.name",
        "t.yml:3:13",
    );
    fails(
        "freebsd:\n  users:\n    - name: 7\n",
        Code::Type,
        "freebsd.users.0.name must be a string",
        "t.yml:3:13",
    );
    fails(
        "freebsd:\n  users:\n    - name: a$b\n",
        Code::UserName,
        "`$`",
        "t.yml:3:13",
    );
    ok("freebsd:\n  users:\n    - name: host$\n");
}

#[test]
fn duplicate_user_points_at_the_second() {
    fails(
        "freebsd:\n  users:\n    - name: alice\n    - name: bob\n    - name: alice\n",
        Code::DuplicateUser,
        "user `alice` is defined twice in freebsd.users",
        "t.yml:5:13",
    );
}

#[test]
fn uid() {
    ok(&user("      uid: 1001\n"));
    fails(
        &user("      uid: 0\n"),
        Code::DuplicateUid,
        "user `alice` has uid 0, the uid of the base account `root`",
        "t.yml:4:12",
    );
    ok(&user("      uid: 4294967294\n"));
    fails(
        &user("      uid: 4294967295\n"),
        Code::Uid,
        "freebsd.users.alice.uid: 4294967295 is out of range",
        "t.yml:4:12",
    );
    fails(
        &user("      uid: -1\n"),
        Code::Uid,
        "out of range",
        "t.yml:4:12",
    );
    fails(
        &user("      uid: true\n"),
        Code::Type,
        "must be an integer, found a boolean",
        "t.yml:4:12",
    );
    fails(
        &user("      uid: '1000'\n"),
        Code::Type,
        "found a string",
        "t.yml:4:12",
    );
    fails(
        &user("      uid: 1000.0\n"),
        Code::Type,
        "found a float",
        "t.yml:4:12",
    );
}

#[test]
fn comment() {
    ok(&user("      comment: 'Zoë Example, room 4'\n"));
    fails(
        &user("      comment: 'a:b'\n"),
        Code::Comment,
        "freebsd.users.alice.comment",
        "t.yml:4:16",
    );
    fails(
        &user("      comment: \"a\\nb\"\n"),
        Code::Comment,
        "a newline",
        "t.yml:4:16",
    );
}

#[test]
fn shell() {
    ok(&user("      shell: /usr/local/bin/zsh\n"));
    let d = fails(
        &user("      shell: bash\n"),
        Code::Shell,
        "freebsd.users.alice.shell: `bash` is not an absolute path",
        "t.yml:4:14",
    );
    assert!(d.help.unwrap_or_default().contains("/usr/local/bin/bash"));
    fails(
        &user("      shell: '/bin/sh -x'\n"),
        Code::Shell,
        "a space",
        "t.yml:4:14",
    );
}

#[test]
fn groups() {
    ok(&user("      primary_group: staff\n      groups: [wheel]\n"));
    fails(
        &user("      primary_group: 'a b'\n"),
        Code::Group,
        "freebsd.users.alice.primary_group",
        "t.yml:4:22",
    );
    fails(
        &user("      groups: [wheel, '-ops']\n"),
        Code::Group,
        "freebsd.users.alice.groups.1",
        "t.yml:4:23",
    );
    fails(
        &user("      groups: wheel\n"),
        Code::Type,
        "must be a list of strings, found a string",
        "t.yml:4:15",
    );
}

#[test]
fn ssh_keys_must_be_a_list() {
    ok(&user("      ssh_keys: []\n"));
    fails(
        &user("      ssh_keys: alice.pub\n"),
        Code::Type,
        "freebsd.users.alice.ssh_keys must be a list of SSH keys, found a string",
        "t.yml:4:17",
    );
    fails(
        &user("      ssh_keys:\n"),
        Code::Type,
        "found null",
        "t.yml:4:15",
    );
}

#[test]
fn state() {
    ok(&user("      state: present\n"));
    fails(
        &user("      state: gone\n"),
        Code::State,
        "neither `present` nor `absent`",
        "t.yml:4:14",
    );
    fails(
        &user("      state: false\n"),
        Code::Type,
        "found a boolean",
        "t.yml:4:14",
    );
}

#[test]
fn unknown_user_key() {
    let d = fails(
        &user("      secondary_groups: [wheel]\n"),
        Code::UnknownKey,
        "in freebsd.users.alice; did you mean `groups`?",
        "t.yml:4:7",
    );
    assert!(
        d.help
            .unwrap_or_default()
            .contains("name, uid, comment, shell")
    );
    fails(
        &user("      shel: /bin/sh\n"),
        Code::UnknownKey,
        "did you mean `shell`?",
        "t.yml:4:7",
    );
}

#[test]
fn errors_in_several_users_keep_their_order() {
    let diags = run("freebsd:\n  users:\n    - name: alice\n      state: gone\n    - {shell: x}\n    - name: bob\n      uid: -5\n")
        .expect_err("refused");
    let got: Vec<(&str, String)> = diags.iter().map(|d| (d.code, at(d))).collect();
    assert_eq!(
        got,
        [
            (Code::State.as_str(), "t.yml:4:14".to_string()),
            (Code::Shell.as_str(), "t.yml:5:15".into()),
            (Code::MissingKey.as_str(), "t.yml:5:7".into()),
            (Code::Uid.as_str(), "t.yml:7:12".into()),
        ]
    );
}

#[test]
fn shell_help_guesses_the_path() {
    let help = |sh: &str| {
        let d = fails(
            &user(&format!("      shell: {sh}\n")),
            Code::Shell,
            "absolute",
            "t.yml:4:14",
        );
        d.help.unwrap_or_default()
    };
    assert!(help("sh").contains("/bin/sh:"));
    assert!(help("nologin").contains("/usr/sbin/nologin"));
    assert!(help("zsh").contains("/usr/local/bin/zsh"));
    assert!(help("'x y'").contains("such as /bin/sh or"));
}

#[test]
fn key_docs_come_from_the_tables() {
    let keys: Vec<&str> = user_keys().iter().map(|(k, _)| *k).collect();
    assert_eq!(
        keys,
        [
            "name",
            "uid",
            "comment",
            "shell",
            "primary_group",
            "groups",
            "ssh_keys",
            "state"
        ]
    );
    assert!(freebsd_keys().iter().all(|(_, doc)| !doc.is_empty()));
}

/// The ports tree's uids (and, for a user without `primary_group`, the
/// gid its own group would get) are warned of, naming the port's user or
/// group; a user named like the port's user, with its uid, is that user.
#[test]
fn a_uid_the_ports_tree_reserves() {
    let warned = |fields: &str| {
        let f = ok(&user(fields));
        f.warnings
            .iter()
            .filter(|w| w.code == Code::PortsId.as_str())
            .map(|w| w.message.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        warned("      uid: 88\n      primary_group: staff\n"),
        ["user `alice` has uid 88, the ports tree's uid for the user `mysql`"]
    );
    // 229 is free in UIDs, but GIDs gives it to kismet.
    assert_eq!(
        warned("      uid: 229\n"),
        [
            "user `alice` has uid 229, and its group would get gid 229, the ports tree's gid for the group `kismet`"
        ]
    );
    assert!(warned("      uid: 229\n      primary_group: staff\n").is_empty());
    assert!(warned("      uid: 320\n").is_empty());
    assert!(warned("      uid: 1001\n").is_empty());
    let f = ok("freebsd:\n  users:\n    - name: postgres\n      uid: 770\n");
    assert!(f.warnings.is_empty());
}

/// A port's user as an owner: an error on a host without packages, a
/// warning with some; a name no port has is an error either way.
#[test]
fn an_owner_only_a_package_creates() {
    let file = |owner: &str| {
        format!("freebsd:\n  files:\n    /etc/x.conf:\n      content: x\n      owner: {owner}\n")
    };
    fails(
        &file("postgres"),
        Code::NoSuchOwner,
        "is a port's (uid 770 in the ports tree), and none of this host's packages creates it",
        "t.yml:5:14",
    );
    let f = ok(&format!(
        "{}  packages: [postgresql17-server]\n",
        file("postgres")
    ));
    assert_eq!(f.warnings.len(), 1, "{:?}", f.warnings);
    assert_eq!(f.warnings[0].code, Code::PackageOwner.as_str());
    fails(
        &format!("{}  packages: [nginx]\n", file("nosuchuser")),
        Code::NoSuchOwner,
        "exists nowhere",
        "t.yml:5:14",
    );
    // A user marked absent is no owner.
    fails(
        &format!(
            "{}  users:\n    - {{name: bob, state: absent}}\n",
            file("bob")
        ),
        Code::NoSuchOwner,
        "exists nowhere",
        "t.yml:5:14",
    );
    ok(&format!("{}  users:\n    - {{name: bob}}\n", file("bob")));
}
