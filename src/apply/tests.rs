//! Unit tests of the comparison with a snapshot and of the apply script's
//! frame. The whole scripts run in tests/integration/, on a fake FreeBSD
//! root whose tools behave as FreeBSD's sources say.

use super::diff::compare;
use super::{Step, sha256_hex};
use crate::resource::file::{File, Notify};
use crate::resource::rc::Rc;
use crate::resource::state::State;
use crate::resource::user::{Account, User};
use crate::resource::verdict::Action;
use crate::resource::{Want, keys, packages, root_password, service, sshd, timezone};

fn step(desired: Want) -> Step {
    Step::new(desired, None).unwrap()
}

fn state(json: &str) -> State {
    serde_json::from_str(json).unwrap()
}

fn keys(content: &str) -> Step {
    step(Want::Keys(keys::Want {
        user: "alice".into(),
        group: "staff".into(),
        content: content.into(),
    }))
}

fn alice(ssh_dir: &str, content: &str) -> State {
    let file = serde_json::json!({
        "sha256": sha256_hex(content), "mode": "0600", "owner": "alice",
        "group": "staff", "content": content,
    });
    let mut user =
        serde_json::json!({"uid": "1001", "home": "/usr/home/alice", "authorized_keys": file});
    if !ssh_dir.is_empty() {
        user["ssh_dir"] = serde_json::from_str(ssh_dir).unwrap();
    }
    state(&serde_json::json!({"users": {"alice": user}}).to_string())
}

fn action(step: &Step, s: &State) -> Action {
    compare(std::slice::from_ref(step), Some(s), true)[0].action
}

/// `pkg info -e -O ORIGIN` exits 0 whether or not the package is installed
/// (pkg src/info.c): the check matches the pattern, which matches the origin
/// when it holds `/`.
#[test]
fn a_package_named_by_origin_is_checked_by_pattern_and_judged_by_origin() {
    let want = step(Want::Packages(packages::Want::Package {
        name: "databases/postgresql16-server".into(),
    }));
    assert_eq!(want.check, "pkg info -e databases/postgresql16-server");
    assert!(!want.check.contains("-O"));
    let s = state(
        r#"{"packages": ["postgresql16-server"], "origins": ["databases/postgresql16-server"]}"#,
    );
    assert_eq!(action(&want, &s), Action::Noop);
    let s =
        state(r#"{"packages": ["postgresql16-server"], "origins": ["misc/postgresql16-server"]}"#);
    assert_eq!(action(&want, &s), Action::Create);
}

#[test]
fn pkg_is_bootstrapped_first_and_without_a_question() {
    let s = step(Want::Packages(packages::Want::Bootstrap));
    assert_eq!(s.change, "env ASSUME_ALWAYS_YES=yes pkg bootstrap");
    assert_eq!(action(&s, &state(r#"{"pkg": false}"#)), Action::Create);
    assert_eq!(action(&s, &state(r#"{"pkg": true}"#)), Action::Noop);
}

/// authorized_keys live under the home the account has, which is not
/// always /home/NAME.
#[test]
fn keys_go_under_the_users_real_home() {
    let k = keys("ssh-ed25519 AAAA alice@example.org\n");
    assert!(k.check.contains("pw usershow -n alice"), "{}", k.check);
    assert!(!k.change.contains("/home/alice"), "{}", k.change);
    // Run as alice from the home pw gave, never by root through it.
    assert!(
        k.change.contains("as_user alice ") && k.change.contains(" sh \"$home\" "),
        "{}",
        k.change
    );
}

#[test]
fn the_ssh_directory_of_authorized_keys_is_compared() {
    let content = "ssh-ed25519 AAAA alice@example.org\n";
    let s = alice(r#"{"mode": "0700", "owner": "alice"}"#, content);
    assert_eq!(action(&keys(content), &s), Action::Noop);
    let s = alice(r#"{"mode": "0755", "owner": "root"}"#, content);
    let out = compare(&[keys(content)], Some(&s), true);
    assert_eq!(out[0].action, Action::Update);
    assert_eq!(out[0].changes.len(), 1);
    let c = &out[0].changes[0];
    assert_eq!(c.field, "directory");
    assert_eq!(
        (c.before.as_str(), c.after.as_str()),
        (Some("0755 root"), Some("0700 alice"))
    );
}

#[test]
fn a_file_diff_keeps_final_newlines() {
    let have = "ssh-ed25519 AAAA old@example.org\n";
    let want = "ssh-ed25519 AAAA alice@example.org\n";
    let s = alice(r#"{"mode": "0700", "owner": "alice"}"#, have);
    let out = compare(&[keys(want)], Some(&s), true);
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
        &[step(Want::Timezone(timezone::Timezone {
            zone: "UTC".into(),
        }))],
        Default::default(),
    )
    .unwrap();
    let at = s.find("\nstep() {").expect("the step function");
    let body = &s[at..at + s[at..].find("\n}\n").expect("its end")];
    for call in ["\"$2\" </dev/null", "\"$3\" </dev/null"] {
        assert!(body.contains(call), "{call} in\n{body}");
    }
    assert!(!body.contains("\"$2\" >"), "{body}");
    assert!(s.contains("\nPATH=/sbin:/bin:/usr/sbin:/usr/bin:/usr/local/sbin:/usr/local/bin\n"));
}

#[test]
fn a_users_groups_change_as_lists() {
    let want = step(Want::User(User::Present(Account {
        name: "carol".into(),
        uid: None,
        shell: None,
        comment: None,
        primary_group: None,
        groups: vec!["wheel".into(), "dba".into()],
    })));
    let s = state(
        r#"{"users": {"carol": {"uid": "1003"}},
            "groups": {"wheel": {"gid": "0", "members": "root,carol"}, "dba": {"gid": "1000", "members": ""}}}"#,
    );
    let out = compare(&[want], Some(&s), true);
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

fn rc(name: &str, value: &str) -> Step {
    step(Want::Rc(Rc {
        name: name.into(),
        value: value.into(),
        owners: crate::freebsd::rcd::owners(name),
        restart: None,
    }))
}

/// An `X_enable` variable is set with sysrc, never with `service X enable`:
/// gateway_enable has no script, firewall_enable belongs to ipfw.
#[test]
fn enable_variables_are_set_with_sysrc() {
    for name in [
        "gateway_enable",
        "firewall_enable",
        "nfs_server_enable",
        "clear_tmp_enable",
        "mysql_enable",
    ] {
        let s = rc(name, "YES");
        assert!(!s.change.contains("service"), "{}", s.change);
        assert!(
            s.change.starts_with(&format!("sysrc '{name}=YES'")),
            "{}",
            s.change
        );
    }
    let ipfw = rc("firewall_enable", "YES");
    assert!(
        ipfw.change.contains("/etc/rc.conf.d/ipfw"),
        "{}",
        ipfw.change
    );
}

/// The snapshot's values are the effective ones: a value equal to its
/// default is no change, and rc.conf.d overrides rc.conf.
#[test]
fn rc_values_are_judged_as_rc_sees_them() {
    let s = state(
        r#"{"rc_conf": {"syslogd_flags": "-s", "sshd_enable": "YES", "ntpd_enable": "YES"},
            "rc_conf_d": {"/etc/rc.conf.d/sshd": {"sshd_enable": "NO"}}}"#,
    );
    assert_eq!(action(&rc("syslogd_flags", "-s"), &s), Action::Noop);
    assert_eq!(action(&rc("ntpd_enable", "YES"), &s), Action::Noop);
    let out = compare(&[rc("sshd_enable", "YES")], Some(&s), true);
    assert_eq!(out[0].action, Action::Update);
    assert_eq!(out[0].changes[0].before, "NO");
    assert_eq!(action(&rc("gateway_enable", "YES"), &s), Action::Create);
}

#[test]
fn roots_password_is_locked_unless_a_hash_is_given() {
    let locked = step(Want::RootPassword(root_password::RootPassword {
        hash: None,
    }));
    assert_eq!(locked.change, "pw usermod -n root -h -");
    assert_eq!(
        action(&locked, &state(r#"{"root_password": "*"}"#)),
        Action::Noop
    );
    let empty = format!(r#"{{"root_password": "sha256:{}"}}"#, sha256_hex(""));
    let out = compare(&[locked], Some(&state(&empty)), true);
    assert_eq!(out[0].action, Action::Update);
    assert_eq!(out[0].changes[0].before, "empty");
    let hash = "$6$salt$abc";
    let set = step(Want::RootPassword(root_password::RootPassword {
        hash: Some(hash.into()),
    }));
    assert!(
        set.change.ends_with("| pw usermod -n root -H 0"),
        "{}",
        set.change
    );
    let have = format!(r#"{{"root_password": "sha256:{}"}}"#, sha256_hex(hash));
    assert_eq!(action(&set, &state(&have)), Action::Noop);
}

#[test]
fn sshd_keeps_match_blocks() {
    let settings = vec![("PermitRootLogin".to_string(), "no".to_string())];
    let s = step(Want::Sshd(sshd::Sshd {
        settings: settings.clone(),
        matches: Vec::new(),
        reload: false,
    }));
    let have = "# Set by beryl.\nPermitRootLogin no\n# End of the settings set by beryl.\nMatch User x\n\tPermitRootLogin yes\n";
    let snap = serde_json::json!({"files": {"/etc/ssh/sshd_config": {
        "sha256": sha256_hex(have), "mode": "0644", "owner": "root", "group": "wheel", "content": have}}});
    assert_eq!(action(&s, &state(&snap.to_string())), Action::Noop);
}

fn nginx(enable: bool) -> Step {
    step(Want::Service(service::Service {
        name: "nginx".into(),
        rcvar: "nginx_enable".into(),
        owners: vec!["nginx".into()],
        enable,
    }))
}

/// A service is judged by its rcvar as rc(8) sees it and by whether it
/// runs; the step starts it only when `status` says it does not run.
#[test]
fn a_service_is_enabled_and_running() {
    let on = nginx(true);
    assert_eq!(on.id, "service:nginx");
    assert!(
        on.check
            .contains("[ \"$(rcvalue nginx_enable nginx)\" = YES ] && service nginx onestatus"),
        "{}",
        on.check
    );
    assert!(
        on.change.starts_with("sysrc 'nginx_enable=YES'"),
        "{}",
        on.change
    );
    assert!(
        on.change
            .ends_with("{ service nginx onestatus >/dev/null 2>&1 || service nginx start; }"),
        "{}",
        on.change
    );
    let off = nginx(false);
    assert!(
        off.check.contains("= NO ] && ! service nginx onestatus"),
        "{}",
        off.check
    );
    assert!(
        off.change.ends_with("|| service nginx onestop; }"),
        "{}",
        off.change
    );

    let running =
        state(r#"{"rc_conf": {"nginx_enable": "YES"}, "services": {"nginx": {"running": true}}}"#);
    assert_eq!(action(&on, &running), Action::Noop);
    let stopped =
        state(r#"{"rc_conf": {"nginx_enable": "YES"}, "services": {"nginx": {"running": false}}}"#);
    let out = compare(std::slice::from_ref(&on), Some(&stopped), true);
    assert_eq!(out[0].action, Action::Update);
    assert_eq!(out[0].changes[0].field, "running");
    let unset = state(r#"{"services": {"nginx": {"running": false}}}"#);
    assert_eq!(action(&on, &unset), Action::Create);
    assert_eq!(action(&off, &running), Action::Update);
}

fn file(path: &str, content: &str, notify: &[(&str, &str)]) -> Step {
    step(Want::File(File {
        path: path.into(),
        content: content.into(),
        mode: "0644".into(),
        owner: "root".into(),
        group: "wheel".into(),
        validate: Some(vec!["nginx".into(), "-t".into(), "-c".into(), "%s".into()]),
        notify: notify
            .iter()
            .map(|(s, a)| Notify {
                service: s.to_string(),
                action: a.to_string(),
            })
            .collect(),
        listed: true,
        note: None,
    }))
}

/// The validator gets the staged file in place of `%s`; a changing file's
/// services are notified once each, a restart covering a reload, in the
/// order first notified, and only for steps that change.
#[test]
fn notify_handlers_run_once_after_the_steps() {
    let a = file("/a.conf", "a\n", &[("nginx", "reload"), ("pf", "reload")]);
    let b = file("/b.conf", "b\n", &[("nginx", "restart")]);
    let c = file("/c.conf", "c\n", &[("sshd", "restart")]);
    assert!(
        a.change.contains("staged=/.beryl-a.conf\n")
            && a.change.contains(" && nginx -t -c \"$staged\" &&"),
        "{}",
        a.change
    );
    let have = |content: &str| serde_json::json!({"sha256": sha256_hex(content), "mode": "0644", "owner": "root", "group": "wheel", "content": content});
    let s = state(
        &serde_json::json!({"files": {"/a.conf": have("old\n"), "/b.conf": have("old\n"), "/c.conf": have("c\n")}})
            .to_string(),
    );
    let out = compare(&[a.clone(), b.clone(), c.clone()], Some(&s), true);
    assert_eq!(
        super::diff::handlers(&out),
        [
            ("nginx".to_string(), "restart".to_string()),
            ("pf".to_string(), "reload".to_string())
        ]
    );
    let text = super::diff::to_text("h", &out, true);
    assert!(text.contains("    notify: nginx reload\n"), "{text}");
    assert!(
        text.contains("\n~ notify:nginx restart\n~ notify:pf reload\nPlan:"),
        "{text}"
    );
    assert!(!text.contains("sshd"), "{text}");

    let script = super::script::script("h", &[a, b, c], Default::default()).unwrap();
    assert!(
        script.contains("step file:/a.conf check_0 change_0\n[ \"$stepped\" = 0 ] || notify nginx reload\n[ \"$stepped\" = 0 ] || notify pf reload\n"),
        "{script}"
    );
    assert!(
        script.contains("\nprune_all\nforeign_jails\nhandlers\nsave_record\n"),
        "{script}"
    );
}

/// The guard is written in one pass: a facts script that holds the guard's
/// own placeholders (a managed path may) stays one quoted word, and the
/// planned digest and the stale status are the plan's. Replacing
/// placeholders one after another rewrote the inserted facts script.
#[test]
fn the_guard_keeps_a_facts_script_that_holds_its_placeholders() {
    let facts = "q_file='/srv/@SHA256@/@STALE@/@FACTS@'\necho {}\n";
    let sha = "ab".repeat(32);
    let guard = super::script::Guard {
        facts_script: facts,
        facts_sha256: &sha,
    };
    let text = super::script::script_guarded(
        "h",
        &[step(Want::Timezone(timezone::Timezone {
            zone: "UTC".into(),
        }))],
        Default::default(),
        Some(guard),
    )
    .unwrap();
    let quoted = crate::shell::word(facts).unwrap();
    assert!(
        text.contains(&format!("/bin/sh -c {quoted} </dev/null")),
        "{text}"
    );
    assert!(text.contains(&format!("\nberyl_planned={sha}\n")), "{text}");
    assert_eq!(text.matches("\n\texit 3\n").count(), 1, "{text}");
    assert!(!text.contains("@SHA256@\n"), "{text}");
}

/// root's hash is in the script, which sets it, and in no report: the dry
/// run's check and change, its JSON and a saved plan show its digest, and a
/// saved plan still holds against the steps it was made from (issue 32).
#[test]
fn root_s_hash_reaches_the_script_and_no_report() {
    let hash = "$6$canary$hash";
    let root = step(Want::RootPassword(root_password::RootPassword {
        hash: Some(hash.into()),
    }));
    assert!(root.change.contains(hash), "{}", root.change);
    let digest = format!("sha256:{}", sha256_hex(hash));
    let s = state(r#"{"root_password": "*"}"#);
    for known in [None, Some(&s)] {
        let out = compare(std::slice::from_ref(&root), known, true);
        let text = super::diff::to_text("h", &out, known.is_some());
        let json = serde_json::to_string(&out).unwrap();
        for shown in [&out[0].check, &out[0].change, &text, &json] {
            assert!(!shown.contains("canary"), "{shown}");
        }
        assert!(out[0].change.contains(&digest), "{}", out[0].change);
    }
    let steps = vec![root];
    let facts = r#"{"host": "h", "script": "5555555555555555555555555555555555555555555555555555555555555555", "root_password": "*"}"#;
    let stamp = super::saved::Stamp {
        config_sha256: &"c".repeat(64),
        facts_sha256: &sha256_hex(facts),
        facts_script_sha256: &"5".repeat(64),
    };
    let outcomes = compare(&steps, Some(&s), true);
    let facts = super::saved::Facts { text: facts };
    let plan = super::saved::host_plan("h", &steps, &outcomes, true, &stamp, facts);
    let saved = serde_json::to_string(&plan).unwrap();
    assert!(!saved.contains("canary"), "{saved}");
    assert!(saved.contains(&digest), "{saved}");
    assert_eq!(super::saved::check(&plan, &steps, &stamp), Ok(()));
}

/// A file's content comes from the host: the dry run's diff shows its
/// escape sequences (which hid lines or set the title) and keeps its tabs.
#[test]
fn the_dry_run_shows_a_host_s_control_characters() {
    let want = file("/etc/motd", "hello\n", &[]);
    let have = "\u{1b}[2K\u{1b}[1Ahidden\tline\n\u{7}\n";
    let s = state(
        &serde_json::json!({"files": {"/etc/motd": {
            "sha256": sha256_hex(have), "mode": "0644", "owner": "root",
            "group": "wheel", "content": have}}})
        .to_string(),
    );
    let out = compare(std::slice::from_ref(&want), Some(&s), true);
    let text = super::diff::to_text("h", &out, true);
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text:?}"
    );
    assert!(text.contains("-\\u{1b}[2K\\u{1b}[1Ahidden\tline"), "{text}");
    assert!(text.contains("-\\u{7}"), "{text}");
}

/// A link where `~/.ssh` or `authorized_keys` should be is refused, and the
/// dry run says which and why (apply follows no link a user planted).
#[test]
fn a_link_in_the_home_is_refused_with_its_reason() {
    let k = keys("ssh-ed25519 AAAA alice@example.org\n");
    let s = alice(
        r#"{"type": "link", "mode": "0755", "owner": "alice"}"#,
        "x\n",
    );
    let out = compare(std::slice::from_ref(&k), Some(&s), true);
    assert_eq!(out[0].action, Action::Refuse);
    let text = super::diff::to_text("h", &out, true);
    assert!(
        text.contains("! keys:alice\n    directory type: \"link\" -> \"directory\"\n"),
        "{text}"
    );
    assert!(text.contains("Refused: 1 steps would fail"), "{text}");
    let mut s = alice(r#"{"mode": "0700", "owner": "alice"}"#, "");
    s.users.get_mut("alice").unwrap().authorized_keys = Some(
        serde_json::from_str(
            r#"{"type": "link", "mode": "0755", "owner": "alice", "group": "staff"}"#,
        )
        .unwrap(),
    );
    let out = compare(std::slice::from_ref(&k), Some(&s), true);
    assert_eq!(out[0].action, Action::Refuse);
    assert!(out[0].diff.is_none(), "no content of a link is shown");
}

/// A listed file of mode 600, which others may not read.
fn private_file(path: &str, content: &str) -> Step {
    let mut f = file(path, content, &[]);
    if let Want::File(w) = &mut f.desired {
        w.mode = "0600".into();
    }
    step(f.desired)
}

/// A file others may not read is a secret: the dry run compares it by its
/// digests, shows no line of it, and its content is in no check, change or
/// desired value it reports; the script keeps it.
#[test]
fn a_private_file_is_judged_by_its_digest() {
    let f = private_file("/etc/db.conf", "password=canary\n");
    assert!(f.change.contains("password=canary"));
    let have = serde_json::json!({"files": {"/etc/db.conf": {
        "sha256": sha256_hex("old\n"), "mode": "0600", "owner": "root", "group": "wheel", "private": true}}});
    let out = compare(
        std::slice::from_ref(&f),
        Some(&state(&have.to_string())),
        true,
    );
    assert_eq!(out[0].action, Action::Update);
    assert!(out[0].diff.is_none());
    let text = super::diff::to_text("h", &out, true);
    let json = serde_json::to_string(&out).unwrap();
    for shown in [&text, &json, &out[0].check, &out[0].change] {
        assert!(!shown.contains("canary"), "{shown}");
    }
    assert!(
        text.contains(&format!(
            "content: \"sha256:{}\" -> \"sha256:{}\"",
            sha256_hex("old\n"),
            sha256_hex("password=canary\n")
        )),
        "{text}"
    );
    assert!(crate::resource::private_mode("0640") && !crate::resource::private_mode("644"));
}

/// What is not live when apply is done says so: sshd until it reloads, the
/// network until it restarts or the host boots, ZFS properties that only
/// new data sees; a variable read at once (the host name is restarted by
/// apply) carries no note.
#[test]
fn changes_that_are_not_live_yet_say_so() {
    let rc = |name: &str| {
        step(Want::Rc(crate::resource::rc::Rc {
            name: name.into(),
            value: "x".into(),
            owners: Vec::new(),
            restart: None,
        }))
    };
    for (s, has) in [
        (rc("ifconfig_vtnet0"), Some("service netif restart")),
        (rc("ifconfig_vtnet0_ipv6"), Some("service netif restart")),
        (rc("defaultrouter"), Some("service routing restart")),
        (rc("hostname"), None),
        (rc("ifconfig_"), None),
        (
            step(Want::Sshd(crate::resource::sshd::Sshd {
                settings: vec![("PermitRootLogin".into(), "no".into())],
                matches: Vec::new(),
                reload: false,
            })),
            Some("service sshd reload"),
        ),
    ] {
        match (s.desired.note(), has) {
            (Some(note), Some(want)) => assert!(note.contains(want), "{}: {note}", s.id),
            (None, None) => {}
            (got, _) => panic!("{}: {got:?}", s.id),
        }
    }
}

/// A file to be created shows its lines (a diff from /dev/null), bounded in
/// text; a private one only its digest.
#[test]
fn a_new_file_shows_its_content() {
    let f = file("/etc/motd", "hello\nworld\n", &[]);
    let none = state(r#"{"files": {}}"#);
    let out = compare(std::slice::from_ref(&f), Some(&none), true);
    assert_eq!(out[0].action, Action::Create);
    let text = super::diff::to_text("h", &out, true);
    assert!(
        text.contains("+ file:/etc/motd\n    --- /dev/null\n    +++ desired\n"),
        "{text}"
    );
    assert!(text.contains("    +hello\n    +world\n"), "{text}");
    let long: String = (0..500).map(|i| format!("line {i}\n")).collect();
    let out = compare(&[file("/etc/long", &long, &[])], Some(&none), true);
    let text = super::diff::to_text("h", &out, true);
    assert!(text.contains("    … 303 more lines of diff"), "{text}");
    assert!(!text.contains("line 300\n"), "{text}");
    let out = compare(
        &[private_file("/etc/db.conf", "password=canary\n")],
        Some(&none),
        true,
    );
    let text = super::diff::to_text("h", &out, true);
    assert!(!text.contains("canary"), "{text}");
    assert!(text.contains("    content: \"\" -> \"sha256:"), "{text}");
}

/// The script's messages print ids and reasons as they are: dash's echo
/// reads `\c` and `\n` in its arguments (FreeBSD's sh does not), so every
/// message goes through `printf '%s\n'`.
#[test]
fn messages_print_backslashes_verbatim() {
    let body = script_functions();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "{body}\nstep 'file:/a\\cb\\n' true false\nfail 'x:\\c\\\\y' 'why\\n\\t'"
        ))
        .env("BERYL_DRY_RUN", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("= file:/a\\cb\\n\n"), "{stdout}");
    assert!(
        stdout.contains("! x:\\c\\\\y FAILED: why\\n\\t\n"),
        "{stdout}"
    );
}

/// notify and handlers under sh: a port script's hyphenated name
/// (`mysql-server`) is notified like any other, once, a restart covering a
/// reload, in the order first notified. Built from variable names, it
/// made the shell run `notify_mysql-server=restart` as a command and stop
/// under `set -u` before the record was saved.
#[test]
fn notify_takes_hyphenated_script_names() {
    let body = script_functions();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "{body}\nnotify mysql-server reload\nnotify nginx reload\nnotify mysql-server restart\nnotify mysql-server reload\nnotify nginx reload\nhandlers\nprintf 'done\\n'"
        ))
        .env("BERYL_DRY_RUN", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout,
        "apply h\n~ notify:mysql-server would restart\n~ notify:nginx would reload\ndone\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A file of a cron.d directory restarts cron when it is written or
/// pruned, as beryl's own cron entries do (cron files every drop-in under
/// one name: src/freebsd/cron.rs); a file elsewhere notifies nothing.
#[test]
fn a_cron_d_file_restarts_cron_when_it_comes_or_goes() {
    let cron = file("/etc/cron.d/backup", "0 3 * * * root true\n", &[]);
    let local = file("/usr/local/etc/cron.d/x", "x\n", &[("cron", "restart")]);
    let other = file("/etc/cron.daily", "y\n", &[]);
    let have = |content: &str| serde_json::json!({"sha256": sha256_hex(content), "mode": "0644", "owner": "root", "group": "wheel", "content": content});
    let s = state(
        &serde_json::json!({"files": {"/etc/cron.d/backup": have("old\n"), "/usr/local/etc/cron.d/x": have("old\n"), "/etc/cron.daily": have("old\n")}})
            .to_string(),
    );
    let out = compare(&[cron, local, other], Some(&s), true);
    assert_eq!(
        super::diff::handlers(&out),
        [("cron".to_string(), "restart".to_string())]
    );
    let body = script_functions();
    let run = |removals: &str| {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{body}\n{removals}\nhandlers"))
            .env("BERYL_DRY_RUN", "1")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // cron's own entries notify whatever their id; a file only in cron.d.
    let restart = "apply h\n~ notify:cron would restart\n";
    assert_eq!(run("removed file /etc/cron.d/old"), restart);
    assert_eq!(run("removed file /usr/local/etc/cron.d/old"), restart);
    assert_eq!(run("removed cron x"), restart);
    assert_eq!(run("removed file /etc/cron.dx/old"), "apply h\n");
    assert_eq!(run("removed file /etc/crontab"), "apply h\n");
    let text = super::prune::functions();
    assert!(
        text.contains("removed_file() {\n\tcase $1 in\n\t/etc/cron.d/* | /usr/local/etc/cron.d/*) notify cron restart ;;\n\tesac\n}\n"),
        "{text}"
    );
    let cron_d = crate::resource::pruned("file")
        .unwrap()
        .removal_notify
        .as_ref()
        .unwrap();
    assert!(cron_d.covers("/etc/cron.d/a") && cron_d.covers("/usr/local/etc/cron.d/b"));
    assert!(!cron_d.covers("/etc/cron.dx/a") && !cron_d.covers("/etc/cron.d"));
}

/// The functions of an apply script without steps (its prune, handlers and
/// record calls dropped), for tests that call them under sh.
fn script_functions() -> String {
    let text = super::script::script("h", &[], super::script::Options::default()).unwrap();
    let body = text.replace("\nprune_all\n", "\n");
    body.strip_suffix("save_record\nfinish\n[ \"$failed\" -eq 0 ]\n")
        .unwrap()
        .strip_suffix("handlers\n")
        .unwrap_or_else(|| panic!("no handlers call:\n{body}"))
        .to_string()
}
