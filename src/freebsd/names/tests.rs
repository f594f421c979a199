//! Valid and invalid values for each rule.

use super::*;
use crate::schema::{Install, Ipv4, Ipv6, Raid, UserState};

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
        accepted(
            rule,
            &[
                "alice", "_www", "bob-2", "host$", "Ops", "a.b", ".x", "...", &max,
            ],
        );
        refused(rule, "", "empty");
        refused(rule, "-alice", "starts with `-`");
        refused(rule, ".", "names a directory");
        refused(rule, "..", "names a directory");
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
fn install() {
    assert_eq!(super::install("dists"), Ok(Install::Dists));
    assert_eq!(super::install("pkgbase"), Ok(Install::Pkgbase));
    refused(super::install, "packages", "did you mean `pkgbase`?");
    refused(super::install, "PkgBase", "did you mean `pkgbase`?");
    refused(super::install, "tarballs", "did you mean `dists`?");
    refused(super::install, "Dists", "did you mean `dists`?");
    refused(super::install, "net", "is not `dists`, `pkgbase` or `none`");
    refused(super::install, "", "is not");
    assert_eq!(super::install("none"), Ok(Install::None));
    refused(super::install, "adopted", "did you mean `none`");
    refused(super::install, "None", "did you mean `none`");
}

#[test]
fn version() {
    assert_eq!(super::version("15.0"), Ok((15, 0)));
    assert_eq!(super::version("14.3"), Ok((14, 3)));
    accepted(super::version, &["13.5", "16.0", "9.3", "99.9", "1.0"]);
    refused(super::version, "", "empty");
    refused(super::version, "15", "no minor version; write `15.0`");
    refused(super::version, "14.10", "minor version `10`");
    refused(super::version, "15.00", "minor version `00`");
    refused(super::version, "015.0", "major version `015`");
    refused(super::version, "05.0", "leading zero");
    refused(super::version, "100.0", "one or two digits");
    refused(super::version, "15.0.1", "more parts");
    refused(super::version, "15.0-RELEASE", "suffix `-RELEASE`");
    refused(super::version, "14.3-RELEASE-p2", "such as `14.3`");
    refused(super::version, "15.x", "not MAJOR.MINOR");
    refused(super::version, "v15.0", "not MAJOR.MINOR");
    refused(super::version, "15.", "not MAJOR.MINOR");
    refused(super::version, ".5", "not MAJOR.MINOR");
    refused(super::version, "fifteen", "not MAJOR.MINOR");
    refused(super::version, "+15.0", "not MAJOR.MINOR");
}

#[test]
fn permit_root_login() {
    accepted(super::permit_root_login, &super::PERMIT_ROOT_LOGIN);
    // OpenSSH's alias is accepted, and means the current word.
    assert_eq!(
        super::permit_root_login("without-password"),
        Ok("prohibit-password")
    );
    refused(
        super::permit_root_login,
        "Without-Password",
        "did you mean `prohibit-password`?",
    );
    refused(super::permit_root_login, "No", "did you mean `no`?");
    refused(super::permit_root_login, "true", "did you mean `yes`?");
    refused(
        super::permit_root_login,
        "maybe",
        "not a PermitRootLogin value",
    );
    refused(super::permit_root_login, "", "not a PermitRootLogin value");
}

#[test]
fn yes_no() {
    assert_eq!(super::yes_no("yes"), Ok(true));
    assert_eq!(super::yes_no("no"), Ok(false));
    refused(super::yes_no, "YES", "did you mean `yes`?");
    refused(super::yes_no, "off", "did you mean `no`?");
    refused(super::yes_no, "false", "did you mean `no`?");
    refused(super::yes_no, "maybe", "neither `yes` nor `no`");
}

#[test]
fn interface_name() {
    accepted(
        super::interface_name,
        &[
            "vtnet0",
            "em0",
            "igb1",
            "lagg0",
            "vlan10",
            "ix12",
            "bridge0",
            "wg0",
            "abcdefghijklm99",
        ],
    );
    refused(super::interface_name, "", "empty");
    refused(super::interface_name, "em", "no unit number, such as `em0`");
    refused(super::interface_name, "0em", "start with the driver name");
    refused(super::interface_name, "Em0", "lowercase, such as `em0`");
    refused(super::interface_name, "em0.10", "contains `.`");
    refused(super::interface_name, "em-0", "contains `-`");
    refused(super::interface_name, "vtnet 0", "a space");
    refused(
        super::interface_name,
        "enp0s3",
        "driver name followed by a unit number",
    );
    refused(super::interface_name, "lo0\n", "a newline");
    refused(super::interface_name, "abcdefghijklmn99", "at most 15");
}

#[test]
fn ipv4_address() {
    assert_eq!(
        super::ipv4_address("192.0.2.1"),
        Ok(std::net::Ipv4Addr::new(192, 0, 2, 1))
    );
    accepted(
        super::ipv4_address,
        &["0.0.0.0", "255.255.255.255", "10.0.0.1"],
    );
    refused(super::ipv4_address, "192.0.2.1/24", "has a prefix length");
    refused(super::ipv4_address, "2001:db8::1", "IPv6 address, not IPv4");
    refused(super::ipv4_address, "192.000.2.1", "leading zero");
    refused(super::ipv4_address, "010.0.0.1", "leading zero");
    refused(super::ipv4_address, "192.0.2.256", "not an IPv4 address");
    refused(super::ipv4_address, "192.0.2", "not an IPv4 address");
    refused(super::ipv4_address, "192.0.2.1.5", "not an IPv4 address");
    refused(super::ipv4_address, " 192.0.2.1", "not an IPv4 address");
    refused(super::ipv4_address, "", "not an IPv4 address");
}

#[test]
fn ipv6_address() {
    accepted(
        super::ipv6_address,
        &[
            "2001:db8::1",
            "::1",
            "::",
            "fe80::1",
            "2001:DB8:0:0:0:0:0:1",
            "::ffff:192.0.2.1",
        ],
    );
    refused(super::ipv6_address, "fe80::1%em0", "zone id (`%em0`)");
    refused(super::ipv6_address, "2001:db8::1/64", "has a prefix length");
    refused(super::ipv6_address, "[2001:db8::1]", "brackets");
    refused(super::ipv6_address, "192.0.2.1", "IPv4 address, not IPv6");
    refused(super::ipv6_address, "2001:db8:::1", "not an IPv6 address");
    refused(super::ipv6_address, "2001:db8::g", "not an IPv6 address");
    refused(super::ipv6_address, "", "not an IPv6 address");
}

#[test]
fn ip_address() {
    accepted(super::ip_address, &["192.0.2.53", "2001:db8::53", "::1"]);
    refused(super::ip_address, "ns1.example.org", "not an IP address");
    refused(super::ip_address, "", "not an IP address");
    refused(super::ip_address, "192.0.2.53/32", "prefix length");
    refused(super::ip_address, "1.2.3", "not an IPv4 address");
    refused(super::ip_address, "01.2.3.4", "leading zero");
    refused(super::ip_address, "fe80::1%em0", "zone id");
}

#[test]
fn cidrs() {
    assert_eq!(
        super::ipv4_cidr("192.0.2.10/24"),
        Ok((std::net::Ipv4Addr::new(192, 0, 2, 10), 24))
    );
    accepted(
        super::ipv4_cidr,
        &["0.0.0.0/0", "10.0.0.1/32", "10.0.0.1/8"],
    );
    refused(
        super::ipv4_cidr,
        "192.0.2.10",
        "no prefix length; write the address with it, such as `192.0.2.10/24`",
    );
    refused(super::ipv4_cidr, "192.0.2.10/33", "from 0 to 32");
    refused(super::ipv4_cidr, "192.0.2.10/999", "from 0 to 32");
    refused(super::ipv4_cidr, "192.0.2.10/024", "leading zero");
    refused(super::ipv4_cidr, "192.0.2.10/", "nothing after `/`");
    refused(super::ipv4_cidr, "192.0.2.10/255.255.255.0", "netmask");
    refused(super::ipv4_cidr, "192.0.2.10/-1", "not a number");
    refused(super::ipv4_cidr, "192.0.2.10/24/8", "not a number");
    refused(super::ipv4_cidr, "192.0.2.300/24", "not an IPv4 address");
    refused(super::ipv4_cidr, "2001:db8::1/64", "IPv6 address, not IPv4");
    accepted(super::ipv6_cidr, &["2001:db8::10/64", "::/0", "::1/128"]);
    refused(
        super::ipv6_cidr,
        "2001:db8::10",
        "such as `2001:db8::10/64`",
    );
    refused(super::ipv6_cidr, "2001:db8::10/129", "from 0 to 128");
    refused(super::ipv6_cidr, "fe80::1%em0/64", "zone id");
    refused(super::ipv6_cidr, "192.0.2.10/24", "IPv4 address, not IPv6");
}

#[test]
fn interface_settings() {
    assert_eq!(super::ipv4("dhcp"), Ok(Ipv4::Dhcp));
    assert_eq!(
        super::ipv4("192.0.2.10/24"),
        Ok(Ipv4::Static("192.0.2.10/24".into()))
    );
    refused(super::ipv4, "DHCP", "did you mean `dhcp`?");
    refused(super::ipv4, "SYNCDHCP", "did you mean `dhcp`?");
    refused(super::ipv4, "static", "not an IP");
    refused(super::ipv4, "192.0.2.10", "no prefix length");
    assert_eq!(super::ipv6("slaac"), Ok(Ipv6::Slaac));
    assert_eq!(
        super::ipv6("2001:db8::10/64"),
        Ok(Ipv6::Static("2001:db8::10/64".into()))
    );
    refused(super::ipv6, "accept_rtadv", "did you mean `slaac`?");
    refused(super::ipv6, "SLAAC", "did you mean `slaac`?");
    refused(super::ipv6, "dhcp", "not supported for IPv6");
    refused(super::ipv6, "2001:db8::10", "no prefix length");
}

#[test]
fn rc_name() {
    accepted(
        super::rc_name,
        &[
            "ntpd_enable",
            "_x",
            "A1",
            "kld_list",
            "HOSTNAME",
            "cloned_interfaces",
        ],
    );
    refused(super::rc_name, "", "empty");
    refused(super::rc_name, "1abc", "starts with a digit");
    refused(super::rc_name, "ntpd-enable", "contains `-`");
    refused(super::rc_name, "a.b", "contains `.`");
    refused(super::rc_name, "a b", "a space");
    refused(super::rc_name, "na\u{ef}ve", "non-ASCII");
}

#[test]
fn rc_managed() {
    for name in [
        "hostname",
        "sshd_enable",
        "zfs_enable",
        "defaultrouter",
        "ipv6_defaultrouter",
    ] {
        assert!(super::rc_managed(name).is_some(), "{name}");
    }
    for name in [
        "ifconfig_em0",
        "ifconfig_vtnet0_ipv6",
        "ifconfig_em0_alias0",
        "ifconfig_DEFAULT",
    ] {
        assert!(
            super::rc_managed(name).is_some_and(|h| h.contains("freebsd.network.interfaces")),
            "{name}"
        );
    }
    assert!(super::rc_managed("hostname").is_some_and(|h| h.contains("freebsd.hostname")));
    for name in [
        "ntpd_enable",
        "Hostname",
        "sshd_flags",
        "ifconfig",
        "cloned_interfaces",
    ] {
        assert_eq!(super::rc_managed(name), None, "{name}");
    }
}

#[test]
fn rc_value() {
    accepted(
        super::rc_value,
        &[
            "",
            "YES",
            "-4 -s",
            "zfs vmm",
            "it's fine",
            "Zoë",
            "a=b;c|d&e",
        ],
    );
    for c in ['"', '\\', '`', '$'] {
        refused(
            super::rc_value,
            &format!("a{c}b"),
            "which sh would interpret",
        );
    }
    refused(super::rc_value, "$(reboot)", "`$`");
    refused(super::rc_value, "a\nb", "a newline");
    refused(super::rc_value, "a\0b", "U+0000");
    refused(super::rc_value, "a\tb", "a tab");
    refused(super::rc_value, "a\rb", "U+000D");
    refused(super::rc_value, "a\u{7f}", "U+007F");
    refused(super::rc_value, "a\u{85}", "U+0085");
}

#[test]
fn quote_escapes_and_truncates() {
    assert_eq!(quote("a\nb"), "`a\\nb`");
    assert_eq!(quote(&"x".repeat(70)), format!("`{}…`", "x".repeat(60)));
}

#[test]
fn no_rule_panics_on_odd_text() {
    let odd = "é ada0é 4é é4g $ - / @ a/b@ \0 \u{7f} \u{10ffff} .. ada99999999999999999999 9t9 \
               1.2.3.4/é ::/é é.é 1é.0 15.é- % /% é%é 1.2.3.4/99999999999999999999 em0é";
    let rules: [fn(&str) -> bool; 24] = [
        |s| super::install(s).is_ok(),
        |s| super::version(s).is_ok(),
        |s| super::permit_root_login(s).is_ok(),
        |s| super::yes_no(s).is_ok(),
        |s| super::interface_name(s).is_ok(),
        |s| super::ip_address(s).is_ok(),
        |s| super::ipv4(s).is_ok(),
        |s| super::ipv6(s).is_ok(),
        |s| super::ipv4_cidr(s).is_ok(),
        |s| super::ipv6_cidr(s).is_ok(),
        |s| super::rc_name(s).is_ok(),
        |s| super::rc_managed(s).is_some(),
        |s| super::rc_value(s).is_ok(),
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

#[test]
fn dist_site() {
    accepted(
        super::dist_site,
        &[
            "https://download.freebsd.org/releases/amd64/15.0-RELEASE",
            "http://mirror.par1.example.net:8080/freebsd/releases/amd64/15.0-RELEASE",
            "file:///usr/freebsd-dist",
        ],
    );
    refused(
        super::dist_site,
        "download.freebsd.org/releases",
        "not a URL",
    );
    refused(
        super::dist_site,
        "gopher://x/y",
        "not an http, https, ftp or file URL",
    );
    refused(super::dist_site, "https:///x", "has no host");
    // Credentials are refused, and never quoted back, whatever else is
    // wrong with the value.
    for url in [
        "https://me:s3cret@mirror/x",
        "ftp://me@mirror/x",
        "HTTPS://me:s3cret@mirror/x",
        "https:/me:s3cret@mirror/x",
        "https://me:s3/cret@mirror/x",
        "https://mirror/a@b/15.0-RELEASE",
    ] {
        let why = super::dist_site(url).unwrap_err();
        assert!(why.contains("credentials"), "{why}");
        assert!(!why.contains("s3") && !why.contains("me"), "{why}");
    }
    refused(super::dist_site, "https://x/y?z=1", "holds '?'");
    refused(super::dist_site, "https://x/y#z", "holds '#'");
    refused(super::dist_site, "https://x/$(reboot)", "holds '$'");
    refused(super::dist_site, "https://x/a b", "holds ' '");
}

#[test]
fn password_hash() {
    accepted(
        super::password_hash,
        &[
            "$6$salt$abcdefABCDEF0123./",
            "$2b$12$abc",
            "$6$rounds=5000$s$h",
        ],
    );
    refused(super::password_hash, "hunter2", "not a crypt(3) hash");
    refused(super::password_hash, "$6$a b", "never writes");
    refused(super::password_hash, "$6$a:b", "never writes");
}
