//! Interfaces and addresses: interface names, IPv4/IPv6 addresses and
//! address/prefix pairs, parsed with `std::net` (so leading zeros, zone ids and
//! other forms that tools read differently are refused, as std refuses them).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

use super::kinds::{Ipv4, Ipv6};
use super::{all_digits, quote, show};

/// The longest interface name (`IFNAMSIZ - 1`).
pub(crate) const MAX_IFNAME: usize = 15;

/// An interface name as FreeBSD drivers make them: lowercase letters, then a
/// unit number (`vtnet0`, `em0`, `igb1`, `lagg0`, `vlan10`).
pub(crate) fn interface_name(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("the interface name is empty".into());
    }
    if s.len() > MAX_IFNAME {
        return Err(format!(
            "{} is {} characters long; FreeBSD allows at most {MAX_IFNAME}",
            quote(s),
            s.len()
        ));
    }
    let lower = s.to_ascii_lowercase();
    if lower != s && interface_name(&lower).is_ok() {
        return Err(format!(
            "{} has capitals; interface names are lowercase, such as `{lower}`",
            quote(s)
        ));
    }
    if let Some(c) = s
        .chars()
        .find(|c| !c.is_ascii_lowercase() && !c.is_ascii_digit())
    {
        return Err(format!(
            "{} contains {}; interface names are lowercase letters then a unit number",
            quote(s),
            show(c)
        ));
    }
    let letters = s.find(|c: char| c.is_ascii_digit()).unwrap_or(s.len());
    if letters == 0 {
        return Err(format!(
            "{} must start with the driver name, such as em0",
            quote(s)
        ));
    }
    if letters == s.len() {
        return Err(format!("{} has no unit number, such as `{s}0`", quote(s)));
    }
    if !all_digits(&s[letters..]) {
        return Err(format!(
            "{} is not a driver name followed by a unit number (such as vtnet0, em0 or vlan10)",
            quote(s)
        ));
    }
    Ok(())
}

/// An IPv4 address (`192.0.2.1`), without a prefix length.
pub(crate) fn ipv4_address(s: &str) -> Result<Ipv4Addr, String> {
    if let Ok(a) = Ipv4Addr::from_str(s) {
        return Ok(a);
    }
    if s.contains('/') {
        return Err(format!(
            "{} has a prefix length; give the address alone",
            quote(s)
        ));
    }
    if Ipv6Addr::from_str(s).is_ok() {
        return Err(format!("{} is an IPv6 address, not IPv4", quote(s)));
    }
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() == 4
        && parts.iter().all(|p| all_digits(p))
        && parts.iter().any(|p| p.len() > 1 && p.starts_with('0'))
    {
        return Err(format!(
            "{} has a number with a leading zero, which some tools read as octal",
            quote(s)
        ));
    }
    Err(format!(
        "{} is not an IPv4 address (four numbers from 0 to 255, such as 192.0.2.10)",
        quote(s)
    ))
}

/// An IPv6 address (`2001:db8::1`), without a prefix length or zone id.
pub(crate) fn ipv6_address(s: &str) -> Result<Ipv6Addr, String> {
    if let Ok(a) = Ipv6Addr::from_str(s) {
        return Ok(a);
    }
    if let Some((_, zone)) = s.split_once('%') {
        return Err(format!(
            "{} has a zone id (`%{zone}`); give an address without a zone",
            quote(s)
        ));
    }
    if s.contains('/') {
        return Err(format!(
            "{} has a prefix length; give the address alone",
            quote(s)
        ));
    }
    if s.starts_with('[') || s.ends_with(']') {
        return Err(format!(
            "{} is in brackets; write the address without them",
            quote(s)
        ));
    }
    if Ipv4Addr::from_str(s).is_ok() {
        return Err(format!("{} is an IPv4 address, not IPv6", quote(s)));
    }
    Err(format!(
        "{} is not an IPv6 address (such as 2001:db8::10)",
        quote(s)
    ))
}

/// An IPv4 or IPv6 address, without a prefix length or zone id.
pub(crate) fn ip_address(s: &str) -> Result<IpAddr, String> {
    if let Ok(a) = IpAddr::from_str(s) {
        return Ok(a);
    }
    // Text with a `:` can only mean IPv6; dotted numbers mean IPv4.
    if s.contains(':') {
        return ipv6_address(s).map(IpAddr::V6);
    }
    if s.contains('/') || s.split('.').all(all_digits) {
        return ipv4_address(s).map(IpAddr::V4);
    }
    Err(format!(
        "{} is not an IP address (such as 192.0.2.53 or 2001:db8::53)",
        quote(s)
    ))
}

/// A prefix length from 0 to `max`, in decimal without leading zeros.
fn prefix(s: &str, p: &str, max: u8) -> Result<u8, String> {
    if p.is_empty() {
        return Err(format!("{} has nothing after `/`", quote(s)));
    }
    if p.contains('.') {
        return Err(format!(
            "{} has a netmask after `/`; write the prefix length instead (255.255.255.0 is /24)",
            quote(s)
        ));
    }
    if !all_digits(p) {
        return Err(format!(
            "{} has a prefix length {} that is not a number",
            quote(s),
            quote(p)
        ));
    }
    if p.len() > 1 && p.starts_with('0') {
        return Err(format!(
            "{} has a prefix length with a leading zero",
            quote(s)
        ));
    }
    match p.parse::<u8>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(format!(
            "{} has the prefix length /{p}; it must be from 0 to {max}",
            quote(s)
        )),
    }
}

/// An IPv4 address with its prefix length (`192.0.2.10/24`).
pub(crate) fn ipv4_cidr(s: &str) -> Result<(Ipv4Addr, u8), String> {
    let Some((addr, len)) = s.split_once('/') else {
        return match ipv4_address(s) {
            Ok(_) => Err(format!(
                "{} has no prefix length; write the address with it, such as `{s}/24`",
                quote(s)
            )),
            Err(reason) => Err(reason),
        };
    };
    let a = ipv4_address(addr)?;
    Ok((a, prefix(s, len, 32)?))
}

/// An IPv6 address with its prefix length (`2001:db8::10/64`).
pub(crate) fn ipv6_cidr(s: &str) -> Result<(Ipv6Addr, u8), String> {
    let Some((addr, len)) = s.split_once('/') else {
        return match ipv6_address(s) {
            Ok(_) => Err(format!(
                "{} has no prefix length; write the address with it, such as `{s}/64`",
                quote(s)
            )),
            Err(reason) => Err(reason),
        };
    };
    let a = ipv6_address(addr)?;
    Ok((a, prefix(s, len, 128)?))
}

/// An interface's IPv4 setting: `dhcp`, or an address with its prefix length.
pub(crate) fn ipv4(s: &str) -> Result<Ipv4, String> {
    if s == "dhcp" {
        return Ok(Ipv4::Dhcp);
    }
    if ["dhcp", "syncdhcp"].contains(&s.to_ascii_lowercase().as_str()) {
        return Err(format!(
            "{} is not a setting; did you mean `dhcp`?",
            quote(s)
        ));
    }
    ipv4_cidr(s).map(|_| Ipv4::Static(s.to_string()))
}

/// An interface's IPv6 setting: `slaac`, or an address with its prefix length.
pub(crate) fn ipv6(s: &str) -> Result<Ipv6, String> {
    if s == "slaac" {
        return Ok(Ipv6::Slaac);
    }
    let lower = s.to_ascii_lowercase();
    if ["slaac", "accept_rtadv", "rtadv", "auto", "autoconf"].contains(&lower.as_str()) {
        return Err(format!(
            "{} is not a setting; did you mean `slaac`?",
            quote(s)
        ));
    }
    if ["dhcp", "dhcp6", "dhcpv6"].contains(&lower.as_str()) {
        return Err(format!(
            "{} is not supported for IPv6; use `slaac` or a static address",
            quote(s)
        ));
    }
    ipv6_cidr(s).map(|_| Ipv6::Static(s.to_string()))
}
