//! Valid and invalid values for each rule.

use super::*;
use crate::schema::{Raid, UserState};

/// Asserts that `rule` refuses `value` with a reason containing `part`.
fn refused<T: std::fmt::Debug>(rule: fn(&str) -> Result<T, String>, value: &str, part: &str) {
    match rule(value) {
        Ok(v) => panic!("{value:?} was accepted as {v:?}"),
        Err(reason) => assert!(
            reason.contains(part),
            "{value:?}: {reason:?} lacks {part:?}"
        ),
    }
}

fn accepted<T: std::fmt::Debug>(rule: fn(&str) -> Result<T, String>, values: &[&str]) {
    for v in values {
        assert!(rule(v).is_ok(), "{v:?}: {:?}", rule(v).err());
    }
}

#[test]
fn hostname() {
    let long_label = "a".repeat(63);
    let too_long = format!("{}.example.org", vec!["a".repeat(63); 4].join("."));
    accepted(
        super::hostname,
        &["web01", "web01.example.org", "1host.x-y.z", &long_label],
    );
    refused(super::hostname, "", "empty");
    refused(super::hostname, "web_01.example.org", "`_`");
    refused(super::hostname, "web01.example.org.", "trailing");
    refused(super::hostname, "web01..org", "empty label");
    refused(super::hostname, ".web01", "empty label");
    refused(super::hostname, "-web.org", "starts or ends with `-`");
    refused(super::hostname, "web-.org", "starts or ends with `-`");
    refused(super::hostname, "wéb", "non-ASCII");
    refused(super::hostname, "a b", "a space");
    refused(super::hostname, &format!("{long_label}a.org"), "at most 63");
    refused(super::hostname, &too_long, "at most 253");
}

#[test]
fn timezone() {
    accepted(
        super::timezone,
        &[
            "Europe/Berlin",
            "UTC",
            "US/Eastern",
            "Etc/GMT+5",
            "America/Argentina/Buenos_Aires",
        ],
    );
    refused(super::timezone, "", "empty");
    refused(
        super::timezone,
        "/usr/share/zoneinfo/UTC",
        "starts with `/`",
    );
    refused(super::timezone, "Europe/../etc", "`..`");
    refused(super::timezone, "Europe/Berlin ", "a space");
    refused(super::timezone, "Europe/Berlin;rm", "`;`");
    refused(super::timezone, "Mars/Olympus", "not a zone");
    refused(
        super::timezone,
        "europe/berlin",
        "did you mean `Europe/Berlin`?",
    );
    refused(super::timezone, "Berlin", "did you mean `Europe/Berlin`?");
    refused(
        super::timezone,
        "Europe/Berln",
        "did you mean `Europe/Berlin`?",
    );
}

#[test]
fn raid() {
    for r in Raid::ALL {
        assert_eq!(super::raid(r.name()), Ok(r));
    }
    refused(super::raid, "raidz", "did you mean `raidz1`?");
    refused(super::raid, "raid1", "did you mean `mirror`?");
    refused(super::raid, "Mirror", "did you mean `mirror`?");
    refused(super::raid, "raid5x", "not a ZFS layout");
}

#[test]
fn disk() {
    accepted(
        super::disk,
        &[
            "ada0",
            "da12",
            "nvd0",
            "nda1",
            "vtbd0",
            "xbd3",
            "mmcsd0",
            "mfid0",
            "mfisyspd2",
            "md0",
        ],
    );
    refused(super::disk, "/dev/ada0", "without `/dev/`");
    refused(super::disk, "ada0p2", "partition or slice of ada0");
    refused(super::disk, "da0s1", "partition or slice of da0");
    refused(super::disk, "cd0", "CD/DVD");
    refused(super::disk, "ada", "not a whole-disk");
    refused(super::disk, "sda", "not a whole-disk");
    refused(super::disk, "", "not a whole-disk");
}

#[test]
fn pool() {
    accepted(
        super::pool,
        &["zroot", "tank", "z1_data.pool:x-y", "mirrored", "logs"],
    );
    refused(super::pool, "", "empty");
    refused(super::pool, "1pool", "start with a letter");
    refused(super::pool, "_pool", "start with a letter");
    refused(super::pool, "my pool", "a space");
    refused(super::pool, "a/b", "`/`");
    for word in [
        "mirror", "raidz", "raidz2", "draid", "draid1", "spare", "log", "cache",
    ] {
        refused(super::pool, word, "reserved");
    }
    refused(super::pool, &"p".repeat(256), "at most 255");
}

#[test]
fn swap() {
    assert_eq!(super::swap("0"), Ok(0));
    assert_eq!(super::swap("4g"), Ok(4 << 30));
    assert_eq!(super::swap("2G"), Ok(2 << 30));
    assert_eq!(super::swap("100m"), Ok(100 << 20));
    assert_eq!(super::swap("1t"), Ok(1 << 40));
    assert_eq!(super::swap("104857600"), Ok(100 << 20));
    refused(super::swap, "50m", "below the 100m minimum");
    refused(super::swap, "1k", "below");
    refused(super::swap, "4gb", "not a size");
    refused(super::swap, "g", "not a size");
    refused(super::swap, "", "not a size");
    refused(super::swap, "-1g", "not a size");
    refused(super::swap, "1.5g", "not a size");
    refused(super::swap, "99999999999999999999t", "too large");
    refused(super::swap, "99999999999t", "too large");
}

#[test]
fn package() {
    accepted(
        super::package,
        &[
            "sudo",
            "py311-ansible",
            "p5-Foo",
            "gtk+3",
            "0ad",
            "security/sudo",
            "devel/py-foo@py311",
            "x11-wm/i3",
        ],
    );
    refused(super::package, "", "empty");
    refused(super::package, "-sudo", "start with a letter or digit");
    refused(super::package, "sudo bash", "a space");
    refused(super::package, "py-foo@py311", "flavors need an origin");
    refused(super::package, "Security/sudo", "category");
    refused(super::package, "/sudo", "category");
    refused(super::package, "security/", "port");
    refused(super::package, "a/b/c", "port");
    refused(super::package, "devel/py-foo@", "flavor");
    refused(super::package, "devel/py-foo@py-3", "flavor");
}

#[test]
fn sudoers_line() {
    accepted(
        super::sudoers_line,
        &["%wheel ALL=(ALL:ALL) ALL", "alice ALL=(ALL) NOPASSWD: ALL"],
    );
    refused(super::sudoers_line, "", "empty");
    refused(super::sudoers_line, "   ", "empty");
    refused(super::sudoers_line, "a ALL\nb ALL", "a newline");
    refused(super::sudoers_line, "a ALL\r", "U+000D");
    refused(super::sudoers_line, "a\0", "U+0000");
}

#[test]
fn user_and_group_names() {
    let max = "a".repeat(32);
    for rule in [super::user_name, super::group_name] {
        accepted(rule, &["alice", "_www", "bob-2", "host$", "Ops", &max]);
        refused(rule, "", "empty");
        refused(rule, "-alice", "starts with `-`");
        refused(rule, "a$b", "`$` before the end");
        refused(rule, &"a".repeat(33), "at most 32");
        refused(rule, "jo\u{eb}l", "non-ASCII");
        refused(rule, "a\u{7f}", "U+007F");
        refused(rule, "a\tb", "a tab");
        for c in [
            ' ', ',', ':', '+', '&', '#', '%', '^', '(', ')', '!', '@', '~', '*', '?', '<', '>',
            '=', '|', '\\', '/', '"',
        ] {
            refused(rule, &format!("a{c}b"), "refuses");
        }
    }
}

#[test]
fn uid() {
    assert_eq!(super::uid(0), Ok(0));
    assert_eq!(super::uid(1001), Ok(1001));
    assert_eq!(super::uid(4_294_967_294), Ok(u32::MAX - 1));
    for bad in [-1, 4_294_967_295, i64::MAX, i64::MIN] {
        assert!(
            super::uid(bad).unwrap_err().contains("out of range"),
            "{bad}"
        );
    }
}

#[test]
fn comment() {
    accepted(super::comment, &["", "Alice Example", "Zoë, room 4"]);
    refused(super::comment, "a:b", "`:`");
    refused(super::comment, "a\nb", "a newline");
    refused(super::comment, "a\0", "U+0000");
}

#[test]
fn shell() {
    accepted(
        super::shell,
        &["/bin/sh", "/usr/local/bin/bash", "/usr/sbin/nologin"],
    );
    refused(super::shell, "bash", "not an absolute path");
    refused(super::shell, "", "not an absolute path");
    refused(super::shell, "/bin/sh -l", "a space");
    refused(super::shell, "/bin/sh\n", "a newline");
    refused(super::shell, "/bin:/sh", "`:`");
    refused(super::shell, "/usr/bin/", "ends with `/`");
}

#[test]
fn user_state() {
    assert_eq!(super::user_state("present"), Ok(UserState::Present));
    assert_eq!(super::user_state("absent"), Ok(UserState::Absent));
    refused(super::user_state, "gone", "neither");
    refused(super::user_state, "Present", "neither");
}

#[test]
fn quote_escapes_and_truncates() {
    assert_eq!(quote("a\nb"), "`a\\nb`");
    assert_eq!(quote(&"x".repeat(70)), format!("`{}…`", "x".repeat(60)));
}

#[test]
fn no_rule_panics_on_odd_text() {
    let odd = "é ada0é 4é é4g $ - / @ a/b@ \0 \u{7f} \u{10ffff} .. ada99999999999999999999 9t9";
    let rules: [fn(&str) -> bool; 11] = [
        |s| super::hostname(s).is_ok(),
        |s| super::timezone(s).is_ok(),
        |s| super::raid(s).is_ok(),
        |s| super::disk(s).is_ok(),
        |s| super::pool(s).is_ok(),
        |s| super::swap(s).is_ok(),
        |s| super::package(s).is_ok(),
        |s| super::sudoers_line(s).is_ok(),
        |s| super::user_name(s).is_ok(),
        |s| super::comment(s).is_ok(),
        |s| super::shell(s).is_ok(),
    ];
    for s in odd.split(' ').chain([""]) {
        for rule in rules {
            rule(s);
        }
        quote(s);
    }
}
