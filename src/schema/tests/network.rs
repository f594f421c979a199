//! `validate` on `freebsd.network`: interfaces, routers, name servers.

use super::*;
use super::{at, fails, ok, run};

/// A `network` mapping with `body` indented under it.
fn net(body: &str) -> String {
    let body: String = body.lines().map(|l| format!("    {l}\n")).collect();
    format!("freebsd:\n  network:\n{body}")
}

/// One interface `vtnet0` with `fields` (flow mapping body).
fn iface(fields: &str) -> String {
    net(&format!("interfaces:\n  vtnet0: {{{fields}}}"))
}

#[test]
fn a_full_network() {
    let f = ok(&net("interfaces:
  vtnet0:
    ipv4: 192.0.2.10/24
    ipv6: 2001:db8::10/64
  em1: {ipv4: dhcp}
  lagg0: {ipv6: slaac}
defaultrouter: 192.0.2.1
ipv6_defaultrouter: 2001:db8::1
nameservers: [192.0.2.53, '2001:db8::53', ::1]"));
    let n = f.network.expect("network");
    assert_eq!(n.span.to_string(), "t.yml:3:5");
    let names: Vec<&str> = n.interfaces.iter().map(|i| i.name.value.as_str()).collect();
    assert_eq!(names, ["vtnet0", "em1", "lagg0"]);
    let vtnet0 = &n.interfaces[0];
    assert_eq!(vtnet0.name.span.to_string(), "t.yml:4:7");
    assert_eq!(
        vtnet0.ipv4.as_ref().map(|v| &v.value),
        Some(&Ipv4::Static("192.0.2.10/24".into()))
    );
    assert_eq!(
        vtnet0.ipv4.as_ref().map(|v| v.span.to_string()).as_deref(),
        Some("t.yml:5:15")
    );
    assert_eq!(
        vtnet0.ipv6.as_ref().map(|v| &v.value),
        Some(&Ipv6::Static("2001:db8::10/64".into()))
    );
    assert_eq!(
        n.interfaces[1].ipv4.as_ref().map(|v| &v.value),
        Some(&Ipv4::Dhcp)
    );
    assert!(n.interfaces[1].ipv6.is_none());
    assert_eq!(
        n.interfaces[2].ipv6.as_ref().map(|v| &v.value),
        Some(&Ipv6::Slaac)
    );
    assert_eq!(
        n.defaultrouter.as_ref().map(|r| r.value.as_str()),
        Some("192.0.2.1")
    );
    assert_eq!(
        n.ipv6_defaultrouter.as_ref().map(|r| r.value.as_str()),
        Some("2001:db8::1")
    );
    let ns: Vec<&str> = n.nameservers.iter().map(|a| a.value.as_str()).collect();
    assert_eq!(ns, ["192.0.2.53", "2001:db8::53", "::1"]);
}

#[test]
fn absent_or_empty_network() {
    assert!(ok("freebsd: {}\n").network.is_none());
    let n = ok("freebsd: {network: {}}\n").network.expect("network");
    assert!(n.interfaces.is_empty() && n.nameservers.is_empty());
    assert!(n.defaultrouter.is_none() && n.ipv6_defaultrouter.is_none());
    // A router without a static interface is fine: DHCP may still be used.
    ok(&net("defaultrouter: 192.0.2.1"));
    ok(&net("interfaces: {}\nnameservers: []"));
}

#[test]
fn network_must_be_a_mapping() {
    fails(
        "freebsd:\n  network: [vtnet0]\n",
        Code::Type,
        "freebsd.network must be a mapping, found a list",
        "t.yml:2:12",
    );
    fails(
        &net("interfaces: [vtnet0]"),
        Code::Type,
        "freebsd.network.interfaces must be a mapping, found a list",
        "t.yml:3:17",
    );
}

#[test]
fn interface_names() {
    for name in ["em0", "igb1", "lagg0", "vlan10", "vtnet12"] {
        ok(&net(&format!("interfaces: {{{name}: {{ipv4: dhcp}}}}")));
    }
    let d = fails(
        &net("interfaces:\n  eth0.5: {ipv4: dhcp}"),
        Code::Interface,
        "invalid interface name in freebsd.network.interfaces: `eth0.5` contains `.`",
        "t.yml:4:7",
    );
    assert!(d.help.unwrap_or_default().contains("vtnet0, em0"));
    fails(
        &net("interfaces:\n  Em0: {ipv4: dhcp}"),
        Code::Interface,
        "such as `em0`",
        "t.yml:4:7",
    );
    fails(
        &net("interfaces:\n  em: {ipv4: dhcp}"),
        Code::Interface,
        "no unit number",
        "t.yml:4:7",
    );
    fails(
        &net("interfaces:\n  enp0s3: {ipv4: dhcp}"),
        Code::Interface,
        "`enp0s3` is not a driver name followed by a unit number",
        "t.yml:4:7",
    );
}

#[test]
fn a_bad_name_does_not_hide_its_settings() {
    let diags = run(&net("interfaces:\n  eth-0: {ipv4: bad}")).expect_err("refused");
    let got: Vec<(&str, String)> = diags.iter().map(|d| (d.code, at(d))).collect();
    assert_eq!(
        got,
        [
            (Code::Interface.as_str(), "t.yml:4:7".to_string()),
            (Code::Ipv4.as_str(), "t.yml:4:21".into()),
        ]
    );
    assert!(
        diags[1]
            .message
            .starts_with("invalid freebsd.network.interfaces.eth-0.ipv4: ")
    );
}

#[test]
fn an_interface_needs_ipv4_or_ipv6() {
    let d = fails(
        &net("interfaces:\n  em0: {}"),
        Code::MissingKey,
        "freebsd.network.interfaces.em0 has neither `ipv4` nor `ipv6`",
        "t.yml:4:12",
    );
    assert!(d.help.unwrap_or_default().contains("ipv4: dhcp"));
    let d = fails(
        &net("interfaces:\n  em0:"),
        Code::Type,
        "freebsd.network.interfaces.em0 must be a mapping, found null",
        "t.yml:4:10",
    );
    assert_eq!(
        d.help.as_deref(),
        Some("give `em0` an `ipv4` and/or an `ipv6`, such as `em0: {ipv4: dhcp}`")
    );
    fails(
        &net("interfaces:\n  em0: dhcp"),
        Code::Type,
        "found a string",
        "t.yml:4:12",
    );
}

#[test]
fn unknown_interface_key_suggests() {
    let diags = run(&iface("inet: dhcp")).expect_err("refused");
    let got: Vec<(&str, String)> = diags.iter().map(|d| (d.code, at(d))).collect();
    assert_eq!(
        got,
        [
            (Code::UnknownKey.as_str(), "t.yml:4:16".to_string()),
            (Code::MissingKey.as_str(), "t.yml:4:15".into()),
        ]
    );
    assert_eq!(
        diags[0].message,
        "unknown key `inet` in freebsd.network.interfaces.vtnet0; did you mean `ipv4`?"
    );
    assert_eq!(
        diags[0].help.as_deref(),
        Some("freebsd.network.interfaces.vtnet0 accepts: ipv4, ipv6")
    );
    let d = fails(
        &iface("ipv4: dhcp, inet6: slaac"),
        Code::UnknownKey,
        "did you mean `ipv6`?",
        "t.yml:4:28",
    );
    assert!(d.message.contains("`inet6`"));
}

#[test]
fn ipv4() {
    let d = fails(
        &iface("ipv4: 192.0.2.10/33"),
        Code::Ipv4,
        "invalid freebsd.network.interfaces.vtnet0.ipv4: `192.0.2.10/33` has the prefix length /33; it must be from 0 to 32",
        "t.yml:4:22",
    );
    assert_eq!(
        d.help.as_deref(),
        Some("write `dhcp`, or the address with its prefix length, such as 192.0.2.10/24")
    );
    fails(
        &iface("ipv4: 192.0.2.10"),
        Code::Ipv4,
        "has no prefix length",
        "t.yml:4:22",
    );
    fails(
        &iface("ipv4: 192.0.2.256/24"),
        Code::Ipv4,
        "`192.0.2.256` is not an IPv4 address",
        "t.yml:4:22",
    );
    fails(
        &iface("ipv4: 192.0.02.1/24"),
        Code::Ipv4,
        "leading zero",
        "t.yml:4:22",
    );
    fails(
        &iface("ipv4: 192.0.2.1/255.255.255.0"),
        Code::Ipv4,
        "netmask",
        "t.yml:4:22",
    );
    fails(
        &iface("ipv4: DHCP"),
        Code::Ipv4,
        "did you mean `dhcp`?",
        "t.yml:4:22",
    );
    fails(
        &iface("ipv4: '2001:db8::1/64'"),
        Code::Ipv4,
        "IPv6 address, not IPv4",
        "t.yml:4:22",
    );
    fails(
        &iface("ipv4: true"),
        Code::Type,
        "freebsd.network.interfaces.vtnet0.ipv4 must be a string, found a boolean",
        "t.yml:4:22",
    );
    ok(&iface("ipv4: 0.0.0.0/0"));
    ok(&iface("ipv4: 10.1.2.3/32"));
}

#[test]
fn ipv6() {
    let d = fails(
        &iface("ipv6: '2001:db8::10/129'"),
        Code::Ipv6,
        "invalid freebsd.network.interfaces.vtnet0.ipv6: `2001:db8::10/129` has the prefix length /129; it must be from 0 to 128",
        "t.yml:4:22",
    );
    assert!(d.help.unwrap_or_default().contains("2001:db8::10/64"));
    fails(
        &iface("ipv6: 'fe80::1%vtnet0/64'"),
        Code::Ipv6,
        "`fe80::1%vtnet0` has a zone id (`%vtnet0`)",
        "t.yml:4:22",
    );
    fails(
        &iface("ipv6: '2001:db8::10'"),
        Code::Ipv6,
        "has no prefix length",
        "t.yml:4:22",
    );
    fails(
        &iface("ipv6: accept_rtadv"),
        Code::Ipv6,
        "did you mean `slaac`?",
        "t.yml:4:22",
    );
    fails(
        &iface("ipv6: dhcp"),
        Code::Ipv6,
        "not supported for IPv6",
        "t.yml:4:22",
    );
    fails(
        &iface("ipv6: 192.0.2.1/24"),
        Code::Ipv6,
        "IPv4 address, not IPv6",
        "t.yml:4:22",
    );
    ok(&iface("ipv6: '::/0'"));
    ok(&iface("ipv6: '::1/128'"));
}

#[test]
fn defaultrouter() {
    let d = fails(
        &net("defaultrouter: '2001:db8::1'"),
        Code::Address,
        "invalid freebsd.network.defaultrouter: `2001:db8::1` is an IPv6 address, not IPv4",
        "t.yml:3:20",
    );
    assert_eq!(
        d.help.as_deref(),
        Some("this is an IPv6 address: set it as `ipv6_defaultrouter`")
    );
    let d = fails(
        &net("defaultrouter: 192.0.2.1/24"),
        Code::Address,
        "has a prefix length; give the address alone",
        "t.yml:3:20",
    );
    assert!(d.help.unwrap_or_default().contains("such as 192.0.2.1"));
    fails(
        &net("defaultrouter: router.example.org"),
        Code::Address,
        "not an IPv4 address",
        "t.yml:3:20",
    );
    fails(
        &net("defaultrouter: [192.0.2.1]"),
        Code::Type,
        "must be a string, found a list",
        "t.yml:3:20",
    );
}

#[test]
fn ipv6_defaultrouter() {
    let d = fails(
        &net("ipv6_defaultrouter: 192.0.2.1"),
        Code::Address,
        "is an IPv4 address, not IPv6",
        "t.yml:3:25",
    );
    assert_eq!(
        d.help.as_deref(),
        Some("this is an IPv4 address: set it as `defaultrouter`")
    );
    let d = fails(
        &net("ipv6_defaultrouter: 'fe80::1%em0'"),
        Code::Address,
        "zone id (`%em0`)",
        "t.yml:3:25",
    );
    assert!(d.help.unwrap_or_default().contains("without a zone id"));
    fails(
        &net("ipv6_defaultrouter: '2001:db8::1/64'"),
        Code::Address,
        "prefix length",
        "t.yml:3:25",
    );
}

#[test]
fn nameservers() {
    let d = fails(
        &net("nameservers: [192.0.2.53, ns1.example.org]"),
        Code::Address,
        "invalid freebsd.network.nameservers.1: `ns1.example.org` is not an IP address",
        "t.yml:3:31",
    );
    assert!(d.help.unwrap_or_default().contains("(not a host name)"));
    fails(
        &net("nameservers: 192.0.2.53"),
        Code::Type,
        "freebsd.network.nameservers must be a list of addresses, found a string",
        "t.yml:3:18",
    );
    fails(
        &net("nameservers: [192.0.2.53, 53]"),
        Code::Type,
        "freebsd.network.nameservers.1 must be a string, found an integer",
        "t.yml:3:31",
    );
    fails(
        &net("nameservers: ['fe80::53%em0']"),
        Code::Address,
        "zone id",
        "t.yml:3:19",
    );
}

#[test]
fn duplicate_nameserver_points_at_the_second() {
    let d = fails(
        &net("nameservers: [192.0.2.53, '2001:db8::53', '2001:DB8:0::53', 192.0.2.54]"),
        Code::DuplicateNameserver,
        "freebsd.network.nameservers.2 `2001:DB8:0::53` is already listed as freebsd.network.nameservers.1",
        "t.yml:3:47",
    );
    assert_eq!(d.help.as_deref(), Some("list each name server once"));
    fails(
        &net("nameservers: [192.0.2.53, 192.0.2.53]"),
        Code::DuplicateNameserver,
        "nameservers.1",
        "t.yml:3:31",
    );
}

#[test]
fn unknown_network_key_suggests() {
    for (key, meant) in [
        ("gateway", "defaultrouter"),
        ("default_router", "defaultrouter"),
        ("gateway6", "ipv6_defaultrouter"),
        ("dns", "nameservers"),
        ("nameserver", "nameservers"),
        ("interface", "interfaces"),
    ] {
        let d = fails(
            &net(&format!("{key}: x")),
            Code::UnknownKey,
            &format!("unknown key `{key}` in freebsd.network; did you mean `{meant}`?"),
            "t.yml:3:5",
        );
        assert_eq!(
            d.help.as_deref(),
            Some(
                "freebsd.network accepts: interfaces, defaultrouter, ipv6_defaultrouter, nameservers, bridges"
            )
        );
    }
}

#[test]
fn network_serializes() {
    let f = ok(&net(
        "interfaces:\n  em0: {ipv4: dhcp, ipv6: '2001:db8::2/64'}\nnameservers: [192.0.2.53]",
    ));
    let json = serde_json::to_value(&f).unwrap_or_default();
    let em0 = &json["network"]["interfaces"][0];
    assert_eq!(em0["name"], "em0");
    assert_eq!(em0["ipv4"], "dhcp");
    assert_eq!(em0["ipv6"]["static"], "2001:db8::2/64");
    assert_eq!(json["network"]["nameservers"][0], "192.0.2.53");
}
