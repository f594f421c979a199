//! `validate` on `freebsd.rc_conf` and `freebsd.sshd`.

use super::*;
use super::{at, fails, ok, run};

/// An `rc_conf` mapping with one `name: value` line.
fn rc(line: &str) -> String {
    format!("freebsd:\n  rc_conf:\n    {line}\n")
}

fn sshd(line: &str) -> String {
    format!("freebsd:\n  sshd:\n    {line}\n")
}

#[test]
fn rc_conf_values_as_text() {
    let f = ok("freebsd:
  rc_conf:
    ntpd_enable: true
    ntpd_sync_on_start: false
    kern_securelevel: 2
    syslogd_flags: -ss
    moused_nondefault_enable: 'NO'
    kld_list: zfs vmm
    ntpd_flags: ''
    _private: yes
");
    let vars: Vec<(&str, &str)> = f
        .rc_conf
        .iter()
        .map(|v| (v.name.value.as_str(), v.value.value.as_str()))
        .collect();
    assert_eq!(
        vars,
        [
            ("ntpd_enable", "YES"),
            ("ntpd_sync_on_start", "NO"),
            ("kern_securelevel", "2"),
            ("syslogd_flags", "-ss"),
            ("moused_nondefault_enable", "NO"),
            ("kld_list", "zfs vmm"),
            ("ntpd_flags", ""),
            // YAML 1.2: `yes` is a string, kept as written.
            ("_private", "yes"),
        ]
    );
    assert_eq!(f.rc_conf[0].name.span.to_string(), "t.yml:3:5");
    assert_eq!(f.rc_conf[0].value.span.to_string(), "t.yml:3:18");
    assert!(ok("freebsd: {rc_conf: {}}\n").rc_conf.is_empty());
    let json = serde_json::to_value(&f).unwrap_or_default();
    assert_eq!(json["rc_conf"][0]["name"], "ntpd_enable");
    assert_eq!(json["rc_conf"][0]["value"], "YES");
    assert_eq!(ok(&rc("n: -12")).rc_conf[0].value.value, "-12");
}

#[test]
fn rc_conf_must_be_a_mapping() {
    fails(
        "freebsd:\n  rc_conf: [ntpd_enable=YES]\n",
        Code::Type,
        "freebsd.rc_conf must be a mapping, found a list",
        "t.yml:2:12",
    );
    fails(
        "freebsd:\n  rc_conf:\n",
        Code::Type,
        "found null",
        "t.yml:2:10",
    );
}

#[test]
fn rc_conf_names() {
    let d = fails(
        &rc("ntpd-enable: true"),
        Code::RcName,
        "invalid variable name in freebsd.rc_conf: `ntpd-enable` contains `-`",
        "t.yml:3:5",
    );
    assert!(d.help.unwrap_or_default().contains("such as ntpd_enable"));
    fails(
        &rc("'1st': x"),
        Code::RcName,
        "starts with a digit",
        "t.yml:3:5",
    );
    fails(&rc("'': x"), Code::RcName, "empty", "t.yml:3:5");
    fails(&rc("'a b': x"), Code::RcName, "a space", "t.yml:3:5");
}

#[test]
fn rc_conf_refuses_managed_names() {
    let cases = [
        ("hostname", "set `freebsd.hostname` instead"),
        ("sshd_enable", "configure it under `freebsd.sshd`"),
        ("zfs_enable", "`freebsd.disks`"),
        (
            "defaultrouter",
            "set `freebsd.network.defaultrouter` instead",
        ),
        (
            "ipv6_defaultrouter",
            "set `freebsd.network.ipv6_defaultrouter` instead",
        ),
        ("ifconfig_em0", "`freebsd.network.interfaces`"),
        ("ifconfig_vtnet0_ipv6", "`freebsd.network.interfaces`"),
        ("ifconfig_DEFAULT", "`freebsd.network.interfaces`"),
    ];
    for (name, help) in cases {
        let d = fails(
            &rc(&format!("{name}: 'x'")),
            Code::RcManaged,
            &format!("`{name}` is set by beryl itself; it cannot be set in freebsd.rc_conf"),
            "t.yml:3:5",
        );
        assert!(
            d.help.as_deref().is_some_and(|h| h.contains(help)),
            "{name}: {:?}",
            d.help
        );
    }
    // Other cases and look-alikes are ordinary variables.
    ok(&rc("Hostname: x"));
    ok(&rc("cloned_interfaces: lagg0"));
    ok(&rc("sshd_flags: -4"));
}

#[test]
fn rc_conf_values_must_be_safe() {
    let d = fails(
        &rc("ntpd_flags: $(reboot)"),
        Code::RcValue,
        "invalid freebsd.rc_conf.ntpd_flags: `$(reboot)` contains `$`, which sh would interpret inside rc.conf's double quotes",
        "t.yml:3:17",
    );
    assert!(d.help.unwrap_or_default().contains("inside double quotes"));
    for (value, part) in [
        ("'a\"b'", "`\"`"),
        ("'a\\b'", "`\\`"),
        ("'`id`'", "```"),
        ("'${HOME}'", "`$`"),
        ("\"a\\nb\"", "a newline"),
        ("\"a\\tb\"", "a tab"),
        ("\"a\\0b\"", "U+0000"),
        ("\"a\\x1bb\"", "U+001B"),
    ] {
        let d = fails(
            &rc(&format!("x: {value}")),
            Code::RcValue,
            "invalid freebsd.rc_conf.x: ",
            "t.yml:3:8",
        );
        assert!(d.message.contains(part), "{value}: {}", d.message);
    }
    ok(&rc("x: \"it's -4 -s; a|b&c 'q' Zoë\""));
}

#[test]
fn rc_conf_values_must_be_scalars() {
    let d = fails(
        &rc("x: ~"),
        Code::Type,
        "freebsd.rc_conf.x must be a string, an integer or a boolean, found null",
        "t.yml:3:8",
    );
    assert!(d.help.unwrap_or_default().contains("`~rc_conf:`"));
    fails(&rc("x: [a, b]"), Code::Type, "found a list", "t.yml:3:8");
    fails(&rc("x: {a: b}"), Code::Type, "found a mapping", "t.yml:3:8");
    let d = fails(&rc("x: 1.10"), Code::Type, "found a float", "t.yml:3:8");
    assert!(d.help.unwrap_or_default().contains("quote the value"));
}

#[test]
fn rc_conf_reports_name_and_value() {
    let diags = run(&rc("hostname: $x")).expect_err("refused");
    let got: Vec<(&str, String)> = diags.iter().map(|d| (d.code, at(d))).collect();
    assert_eq!(
        got,
        [
            (Code::RcManaged.as_str(), "t.yml:3:5".to_string()),
            (Code::RcValue.as_str(), "t.yml:3:15".into()),
        ]
    );
}

#[test]
fn sshd_defaults_to_no() {
    let s = ok("freebsd: {}\n").sshd;
    assert_eq!(s.permit_root_login.value, "no");
    assert!(!s.password_authentication.value);
    assert!(!s.kbd_interactive_authentication.value);
    let s = ok("freebsd: {sshd: {}}\n").sshd;
    assert_eq!(s.permit_root_login.value, "no");
    // Setting one field keeps the defaults of the others.
    let s = ok(&sshd("password_authentication: true")).sshd;
    assert!(s.password_authentication.value);
    assert_eq!(s.password_authentication.span.to_string(), "t.yml:3:30");
    assert_eq!(s.permit_root_login.value, "no");
    assert_eq!(s.permit_root_login.span.to_string(), "<beryl>");
}

#[test]
fn permit_root_login() {
    for word in ["no", "yes", "prohibit-password", "forced-commands-only"] {
        let s = ok(&sshd(&format!("permit_root_login: {word}"))).sshd;
        assert_eq!(s.permit_root_login.value, word);
        assert_eq!(s.permit_root_login.span.to_string(), "t.yml:3:24");
    }
    assert_eq!(
        ok(&sshd("permit_root_login: false"))
            .sshd
            .permit_root_login
            .value,
        "no"
    );
    assert_eq!(
        ok(&sshd("permit_root_login: true"))
            .sshd
            .permit_root_login
            .value,
        "yes"
    );
    // OpenSSH's deprecated alias: accepted, written as the current word.
    assert_eq!(
        ok(&sshd("permit_root_login: without-password"))
            .sshd
            .permit_root_login
            .value,
        "prohibit-password"
    );
    let d = fails(
        &sshd("permit_root_login: Without-Password"),
        Code::Sshd,
        "invalid freebsd.sshd.permit_root_login: `Without-Password` is not a PermitRootLogin value",
        "t.yml:3:24",
    );
    assert!(d.message.ends_with("did you mean `prohibit-password`?"));
    assert!(d.help.unwrap_or_default().contains("forced-commands-only"));
    fails(
        &sshd("permit_root_login: 'No'"),
        Code::Sshd,
        "did you mean `no`?",
        "t.yml:3:24",
    );
    fails(
        &sshd("permit_root_login: 0"),
        Code::Type,
        "freebsd.sshd.permit_root_login must be a string, found an integer",
        "t.yml:3:24",
    );
}

#[test]
fn sshd_booleans() {
    for (key, col) in [
        ("password_authentication", 30),
        ("kbd_interactive_authentication", 37),
    ] {
        let get = |text: &str| {
            let s = ok(text).sshd;
            if key == "password_authentication" {
                s.password_authentication.value
            } else {
                s.kbd_interactive_authentication.value
            }
        };
        assert!(get(&sshd(&format!("{key}: true"))));
        assert!(get(&sshd(&format!("{key}: yes"))));
        assert!(!get(&sshd(&format!("{key}: no"))));
        assert!(!get(&sshd(&format!("{key}: false"))));
        let loc = format!("t.yml:3:{col}");
        let d = fails(
            &sshd(&format!("{key}: maybe")),
            Code::Sshd,
            &format!("invalid freebsd.sshd.{key}: `maybe` is neither `yes` nor `no`"),
            &loc,
        );
        assert_eq!(
            d.help.as_deref(),
            Some("write true or false (or yes or no)")
        );
        fails(
            &sshd(&format!("{key}: 'YES'")),
            Code::Sshd,
            "did you mean `yes`?",
            &loc,
        );
        fails(
            &sshd(&format!("{key}: 1")),
            Code::Type,
            &format!("freebsd.sshd.{key} must be a boolean, found an integer"),
            &loc,
        );
    }
}

#[test]
fn sshd_must_be_a_mapping() {
    fails(
        "freebsd:\n  sshd: no\n",
        Code::Type,
        "freebsd.sshd must be a mapping, found a string",
        "t.yml:2:9",
    );
}

#[test]
fn unknown_sshd_key_suggests() {
    for (key, meant) in [
        ("PermitRootLogin", "permit_root_login"),
        ("PasswordAuthentication", "password_authentication"),
        (
            "ChallengeResponseAuthentication",
            "kbd_interactive_authentication",
        ),
        ("permit_root_logon", "permit_root_login"),
        ("kbd_interactive", "kbd_interactive_authentication"),
    ] {
        let d = fails(
            &sshd(&format!("{key}: no")),
            Code::UnknownKey,
            &format!("unknown key `{key}` in freebsd.sshd; did you mean `{meant}`?"),
            "t.yml:3:5",
        );
        assert_eq!(
            d.help.as_deref(),
            Some(
                "freebsd.sshd accepts: permit_root_login, password_authentication, kbd_interactive_authentication, settings, match, reload"
            )
        );
    }
    let d = fails(
        &sshd("port: 2222"),
        Code::UnknownKey,
        "unknown key `port` in freebsd.sshd",
        "t.yml:3:5",
    );
    assert!(!d.message.contains("did you mean"), "{}", d.message);
    assert!(d.help.unwrap().contains("freebsd.sshd.settings"));
}

#[test]
fn sshd_settings_and_match_blocks() {
    let s = ok(&sshd(
        "settings: {AllowGroups: [wheel, staff], ClientAliveInterval: 300, X11Forwarding: false}\n    match:\n      - criteria: Group sftp\n        settings: {ForceCommand: internal-sftp}",
    ))
    .sshd;
    let lines: Vec<(String, Vec<String>)> = s
        .settings
        .iter()
        .map(|x| (x.keyword.value.clone(), x.values.clone()))
        .collect();
    assert_eq!(
        lines,
        vec![
            ("AllowGroups".into(), vec!["wheel".into(), "staff".into()]),
            ("ClientAliveInterval".into(), vec!["300".into()]),
            ("X11Forwarding".into(), vec!["no".into()]),
        ]
    );
    assert_eq!(s.matches.len(), 1);
    assert_eq!(s.matches[0].criteria.value, "Group sftp");
}

#[test]
fn sshd_keywords_are_checked_against_servconf() {
    let d = fails(
        &sshd("settings: {AllowGroup: wheel}"),
        Code::SshdKeyword,
        "unknown sshd_config keyword `AllowGroup` in freebsd.sshd.settings",
        "t.yml:3:16",
    );
    assert!(d.help.unwrap().contains("did you mean `allowgroups`?"));
    fails(
        &sshd("settings: {Protocol: 2}"),
        Code::SshdKeyword,
        "`Protocol` is deprecated: sshd ignores it",
        "t.yml:3:16",
    );
    fails(
        &sshd("settings: {KeepAlive: yes}"),
        Code::SshdKeyword,
        "`KeepAlive` is another name of `tcpkeepalive` in sshd_config",
        "t.yml:3:16",
    );
    fails(
        &sshd("match: [{criteria: Group x, settings: {Port: 22}}]"),
        Code::SshdMatchKeyword,
        "`Port` is not allowed inside a Match block (freebsd.sshd.match.0.settings)",
        "t.yml:3:44",
    );
    fails(
        &sshd("match: [{criteria: Colour blue, settings: {Banner: none}}]"),
        Code::SshdCriteria,
        "invalid freebsd.sshd.match.0.criteria: `Colour` is not a Match criterion (all, invalid-user, user, group, host, address, localaddress, localport, rdomain, version)",
        "t.yml:3:24",
    );
    fails(
        &sshd("settings: {Banner: '/etc/x # y'}"),
        Code::SshdValue,
        "invalid freebsd.sshd.settings.Banner: `#` is not allowed in a value",
        "t.yml:3:24",
    );
    fails(
        &sshd("settings: {Port: 22, port: 2222}"),
        Code::SshdDuplicate,
        "port is set twice in freebsd.sshd.settings",
        "t.yml:3:26",
    );
    fails(
        "freebsd:\n  sshd:\n    permit_root_login: no\n    settings: {PermitRootLogin: yes}\n",
        Code::SshdDuplicate,
        "PermitRootLogin is set twice in freebsd.sshd: by `permit_root_login` and in `settings`",
        "t.yml:4:16",
    );
}
