//! `validate` on the `freebsd` keys: typed results, error codes, messages and locations.
//! The helpers and the general keys are here; `network`, `services`, `storage` and
//! `users` hold the parts of the model.

use super::*;
use crate::value::Source;

mod jail;
mod network;
mod services;
mod storage;
mod system;
mod users;
mod zfs;

/// Parses `text` as `t.yml` and validates its `freebsd` key.
fn run(text: &str) -> Result<FreeBsd, Vec<Diag>> {
    let root = crate::yaml::parse(&Source::new("t.yml", text), &Default::default())
        .unwrap_or_else(|d| panic!("bad test YAML: {d}"));
    validate(root.get("freebsd"), None)
}

/// `file:line:col` of a diagnostic's primary label.
fn at(d: &Diag) -> String {
    d.span().map(|s| s.to_string()).unwrap_or_default()
}

/// Asserts exactly one error, with this code, message part and location.
fn fails(text: &str, code: Code, part: &str, loc: &str) -> Diag {
    let mut diags = run(text).expect_err("should be refused");
    assert_eq!(diags.len(), 1, "{text}: {diags:#?}");
    let d = diags.remove(0);
    assert_eq!(d.code, code.as_str(), "{text}: {}", d.message);
    assert!(
        d.message.contains(part),
        "{text}: {:?} lacks {part:?}",
        d.message
    );
    assert_eq!(at(&d), loc, "{text}: {}", d.message);
    d
}

fn ok(text: &str) -> FreeBsd {
    run(text).unwrap_or_else(|ds| {
        panic!(
            "{text}: {:#?}",
            ds.iter().map(|d| &d.message).collect::<Vec<_>>()
        )
    })
}

#[test]
fn absent_and_empty_are_fine() {
    let f = ok("other: 1\n");
    assert!(f.hostname.is_none() && f.disks.is_empty() && f.users.is_empty());
    assert!(ok("freebsd: {}\n").packages.is_empty());
}

#[test]
fn freebsd_must_be_a_mapping() {
    let d = fails(
        "freebsd: [a]\n",
        Code::Type,
        "freebsd must be a mapping, found a list",
        "t.yml:1:10",
    );
    assert!(d.help.is_some());
    let d = fails("freebsd: ~\n", Code::Type, "found null", "t.yml:1:10");
    assert!(
        d.help
            .unwrap_or_default()
            .contains("replaces the inherited settings")
    );
}

#[test]
fn a_full_valid_block() {
    let f = ok("freebsd:
  hostname: web01.example.org
  timezone: Europe/Berlin
  raid: mirror
  disks: [ada0, ada1]
  pool: zroot
  swap: 4g
  packages: [sudo, security/doas, devel/py-foo@py311]
  sudoers: ['%wheel ALL=(ALL:ALL) ALL']
  users:
    - name: alice
      uid: 1001
      shell: /usr/local/bin/bash
      groups: [wheel]
");
    assert_eq!(
        f.hostname.as_ref().map(|h| h.value.as_str()),
        Some("web01.example.org")
    );
    assert_eq!(
        f.hostname.as_ref().map(|h| h.span.to_string()).as_deref(),
        Some("t.yml:2:13")
    );
    assert_eq!(f.raid.as_ref().map(|r| r.value), Some(Raid::Mirror));
    assert_eq!(
        f.disks.iter().map(|d| d.value.as_str()).collect::<Vec<_>>(),
        ["ada0", "ada1"]
    );
    assert_eq!(f.swap.as_ref().map(|s| s.value.as_str()), Some("4g"));
    assert_eq!(f.packages.len(), 3);
    assert_eq!(f.users[0].uid.as_ref().map(|u| u.value), Some(1001));
    let json = serde_json::to_value(&f).unwrap_or_default();
    assert_eq!(json["raid"], "mirror");
    assert_eq!(json["users"][0]["state"], "present");
    assert_eq!(json["disks"][1], "ada1");
}

#[test]
fn hostname() {
    ok("freebsd: {hostname: web01.example.org}\n");
    fails(
        "freebsd:\n  hostname: web_01.example.org\n",
        Code::Hostname,
        "freebsd.hostname",
        "t.yml:2:13",
    );
    fails(
        "freebsd:\n  hostname: web01.\n",
        Code::Hostname,
        "trailing",
        "t.yml:2:13",
    );
    fails(
        "freebsd:\n  hostname: 42\n",
        Code::Type,
        "freebsd.hostname must be a string, found an integer",
        "t.yml:2:13",
    );
}

#[test]
fn timezone() {
    ok("freebsd: {timezone: US/Eastern}\n");
    let d = fails(
        "freebsd:\n  timezone: Europe/Pariss\n",
        Code::Timezone,
        "did you mean `Europe/Paris`?",
        "t.yml:2:13",
    );
    assert!(d.message.starts_with("invalid freebsd.timezone: "));
    fails(
        "freebsd:\n  timezone: ../etc/passwd\n",
        Code::Timezone,
        "`..`",
        "t.yml:2:13",
    );
}

#[test]
fn packages() {
    ok("freebsd:\n  packages: [sudo, security/sudo]\n");
    fails(
        "freebsd:\n  packages: sudo\n",
        Code::Type,
        "freebsd.packages must be a list of strings, found a string",
        "t.yml:2:13",
    );
    fails(
        "freebsd:\n  packages:\n",
        Code::Type,
        "freebsd.packages must be a list of strings, found null",
        "t.yml:2:11",
    );
    fails(
        "freebsd:\n  packages: [sudo, 'bad name']\n",
        Code::Package,
        "freebsd.packages.1",
        "t.yml:2:20",
    );
}

#[test]
fn sudoers() {
    ok("freebsd:\n  sudoers: ['alice ALL=(ALL) ALL']\n");
    fails(
        "freebsd:\n  sudoers: [\"a ALL\\nb ALL\"]\n",
        Code::Sudoers,
        "freebsd.sudoers.0",
        "t.yml:2:13",
    );
    fails(
        "freebsd:\n  sudoers: ['']\n",
        Code::Sudoers,
        "empty",
        "t.yml:2:13",
    );
    fails(
        "freebsd:\n  sudoers: {a: b}\n",
        Code::Type,
        "found a mapping",
        "t.yml:2:12",
    );
}

#[test]
fn unknown_key_suggests_from_the_table() {
    let d = fails(
        "freebsd:\n  timezon: UTC\n",
        Code::UnknownKey,
        "unknown key `timezon` in freebsd; did you mean `timezone`?",
        "t.yml:2:3",
    );
    assert!(
        d.help
            .unwrap_or_default()
            .contains("hostname, timezone, raid, disks")
    );
    fails(
        "freebsd:\n  swap_gb: 4\n",
        Code::UnknownKey,
        "did you mean `swap`?",
        "t.yml:2:3",
    );
    fails(
        "freebsd:\n  Hostname: x\n",
        Code::UnknownKey,
        "did you mean `hostname`?",
        "t.yml:2:3",
    );
    let d = fails(
        "freebsd:\n  kernel: GENERIC\n",
        Code::UnknownKey,
        "unknown key `kernel` in freebsd",
        "t.yml:2:3",
    );
    assert!(!d.message.contains("did you mean"), "{}", d.message);
}

#[test]
fn every_error_is_reported_in_document_order() {
    let diags = run("freebsd:
  hostname: -bad
  timezon: UTC
  disks: [ada0, ada0p1, ada0]
  raid: mirror
  swap: 10m
  packages: [sudo, 7]
  users:
    - name: alice
      shell: bash
      uid: yes
")
    .expect_err("should be refused");
    let got: Vec<(&str, String)> = diags.iter().map(|d| (d.code, at(d))).collect();
    assert_eq!(
        got,
        [
            (Code::Hostname.as_str(), "t.yml:2:13".to_string()),
            (Code::UnknownKey.as_str(), "t.yml:3:3".into()),
            (Code::Disk.as_str(), "t.yml:4:17".into()),
            (Code::DuplicateDisk.as_str(), "t.yml:4:25".into()),
            (Code::Swap.as_str(), "t.yml:6:9".into()),
            (Code::Type.as_str(), "t.yml:7:20".into()),
            (Code::Shell.as_str(), "t.yml:10:14".into()),
            (Code::Type.as_str(), "t.yml:11:12".into()),
        ]
    );
    assert!(
        diags[7]
            .message
            .contains("freebsd.users.alice.uid must be an integer, found a string")
    );
}

#[test]
fn install() {
    for (word, want) in [("dists", Install::Dists), ("pkgbase", Install::Pkgbase)] {
        let f = ok(&format!("freebsd:\n  install: {word}\n"));
        assert_eq!(f.install.as_ref().map(|i| i.value), Some(want));
        assert_eq!(
            f.install.as_ref().map(|i| i.span.to_string()).as_deref(),
            Some("t.yml:2:12")
        );
    }
    assert!(ok("freebsd: {}\n").install.is_none());
    let d = fails(
        "freebsd:\n  install: packages\n",
        Code::Install,
        "invalid freebsd.install: `packages` is not `dists`, `pkgbase` or `none`; did you mean `pkgbase`?",
        "t.yml:2:12",
    );
    assert!(
        d.help
            .unwrap_or_default()
            .contains("`pkgbase` (base system packages")
    );
    fails(
        "freebsd:\n  install: tarballs\n",
        Code::Install,
        "did you mean `dists`?",
        "t.yml:2:12",
    );
    fails(
        "freebsd:\n  install: true\n",
        Code::Type,
        "freebsd.install must be a string, found a boolean",
        "t.yml:2:12",
    );
    let json = serde_json::to_value(ok("freebsd: {install: pkgbase}\n")).unwrap_or_default();
    assert_eq!(json["install"], "pkgbase");
}

#[test]
fn version_as_a_string() {
    for v in ["15.0", "14.3", "13.5", "16.0", "9.3"] {
        let f = ok(&format!("freebsd:\n  version: '{v}'\n"));
        assert_eq!(f.version.as_ref().map(|v| v.value.as_str()), Some(v));
        assert_eq!(
            f.version.as_ref().map(|v| v.span.to_string()).as_deref(),
            Some("t.yml:2:12")
        );
    }
    let d = fails(
        "freebsd:\n  version: '14.10'\n",
        Code::Version,
        "invalid freebsd.version: `14.10` has the minor version `10`",
        "t.yml:2:12",
    );
    assert_eq!(
        d.help.as_deref(),
        Some("write the release as MAJOR.MINOR, such as \"15.0\" or \"14.3\"")
    );
    fails(
        "freebsd:\n  version: 15.0-RELEASE\n",
        Code::Version,
        "suffix `-RELEASE`; give only MAJOR.MINOR, such as `15.0`",
        "t.yml:2:12",
    );
    fails(
        "freebsd:\n  version: '15'\n",
        Code::Version,
        "no minor version; write `15.0`",
        "t.yml:2:12",
    );
}

#[test]
fn version_as_a_float_keeps_its_text() {
    // `15.0` is a float to YAML; its written text is MAJOR.MINOR, so it counts.
    let f = ok("freebsd:\n  version: 15.0\n");
    assert_eq!(f.version.as_ref().map(|v| v.value.as_str()), Some("15.0"));
    let f = ok("freebsd: {version: 14.3}\n");
    assert_eq!(f.version.as_ref().map(|v| v.value.as_str()), Some("14.3"));
    // The float 14.1 was written 14.10: the text shows what was meant.
    let d = fails(
        "freebsd:\n  version: 14.10\n",
        Code::Version,
        "`14.10` has the minor version `10`",
        "t.yml:2:12",
    );
    assert!(d.help.unwrap_or_default().contains("`version: \"15.0\"`"));
    fails(
        "freebsd:\n  version: 15.00\n",
        Code::Version,
        "`15.00` has the minor version `00`",
        "t.yml:2:12",
    );
    fails(
        "freebsd:\n  version: 1.5e1\n",
        Code::Version,
        "`1.5e1` is not MAJOR.MINOR",
        "t.yml:2:12",
    );
    // Through an alias the text is `*v`, not the number: refused, with the fix.
    let d = fails(
        "x: &v 15.0\nfreebsd:\n  version: *v\n",
        Code::Type,
        "freebsd.version must be a string such as \"15.0\", found a float",
        "t.yml:3:12",
    );
    assert!(d.help.unwrap_or_default().starts_with("quote it"));
}

#[test]
fn version_of_another_type() {
    let d = fails(
        "freebsd:\n  version: 15\n",
        Code::Type,
        "found an integer",
        "t.yml:2:12",
    );
    assert_eq!(
        d.help.as_deref(),
        Some("give the minor version too, in quotes: `version: \"15.0\"`")
    );
    fails(
        "freebsd:\n  version: [15, 0]\n",
        Code::Type,
        "found a list",
        "t.yml:2:12",
    );
}

#[test]
fn a_full_block_with_every_key() {
    let f = ok("freebsd:
  hostname: web01.example.org
  install: pkgbase
  version: '15.0'
  network:
    interfaces:
      vtnet0: {ipv4: 192.0.2.10/24, ipv6: '2001:db8::10/64'}
    defaultrouter: 192.0.2.1
    nameservers: [192.0.2.53]
  rc_conf:
    ntpd_enable: true
  sshd:
    permit_root_login: prohibit-password
    kbd_interactive_authentication: no
");
    assert_eq!(f.install.map(|i| i.value), Some(Install::Pkgbase));
    assert_eq!(f.version.map(|v| v.value).as_deref(), Some("15.0"));
    assert_eq!(f.network.map(|n| n.interfaces.len()), Some(1));
    assert_eq!(f.rc_conf[0].value.value, "YES");
    assert_eq!(f.sshd.permit_root_login.value, "prohibit-password");
    assert!(!f.sshd.kbd_interactive_authentication.value);
}

#[test]
fn unknown_key_suggests_the_new_keys() {
    for (key, meant) in [
        ("release", "version"),
        ("os_version", "version"),
        ("install_method", "install"),
        ("instal", "install"),
        ("interfaces", "network"),
        ("networking", "network"),
        ("rc", "rc_conf"),
        ("rcconf", "rc_conf"),
        ("sysrc", "rc_conf"),
        ("sshd_config", "sshd"),
    ] {
        let d = fails(
            &format!("freebsd:\n  {key}: x\n"),
            Code::UnknownKey,
            &format!("unknown key `{key}` in freebsd; did you mean `{meant}`?"),
            "t.yml:2:3",
        );
        assert!(d.help.unwrap_or_default().ends_with(
            "users, install, version, dist_site, root_password, network, rc_conf, sshd, files, services, zfs, sysctl, loader, cron, jail"
        ));
    }
    // The users' key list is not taken for sshd.
    let d = fails(
        "freebsd:\n  ssh_keys: [a]\n",
        Code::UnknownKey,
        "unknown key `ssh_keys` in freebsd",
        "t.yml:2:3",
    );
    assert!(!d.message.contains("sshd"), "{}", d.message);
}

#[test]
fn freebsd_key_docs_come_from_the_table() {
    let keys: Vec<&str> = freebsd_keys().iter().map(|(k, _)| *k).collect();
    assert_eq!(
        keys,
        [
            "hostname",
            "timezone",
            "raid",
            "disks",
            "pool",
            "swap",
            "packages",
            "sudoers",
            "users",
            "install",
            "version",
            "dist_site",
            "root_password",
            "network",
            "rc_conf",
            "sshd",
            "files",
            "services",
            "zfs",
            "sysctl",
            "loader",
            "cron",
            "jail"
        ]
    );
}
