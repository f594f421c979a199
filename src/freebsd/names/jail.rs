//! Jail names (issue 36).
//!
//! Follows sys/kern/kern_jail.c `kern_jail_set` in freebsd-src (read at
//! commit 002c06d2; the same rules at index id 91939068, a later version):
//! - the name is split at its last `.` (`strrchr(name, '.')`): `a.b` is the
//!   child `b` of a running jail `a`, so a dot is never part of one jail's
//!   own name;
//! - "name cannot be numeric (unless it is the jid)": an all-digit name is
//!   taken as a jid, so it is refused as a name;
//! - the name is copied within `MAXHOSTNAMELEN`.
//!
//! beryl's rule adds one of its own: a jail's name is also a label of its
//! identity `NAME.PARENT_FQDN` (src/inventory/), so it is a host name label
//! (letters, digits, `-`, at most 63), which is within `MAXHOSTNAMELEN`.

use super::{hostname, quote};

/// Why `s` cannot name a jail, if it cannot.
pub(crate) fn jail_name(s: &str) -> Result<(), String> {
    if s.contains('.') {
        return Err(format!(
            "{} contains a dot; jail(8) reads `a.b` as the jail `b` inside the jail `a`",
            quote(s)
        ));
    }
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "{} is all digits; the kernel takes a number as a jail id (jid), never as a name",
            quote(s)
        ));
    }
    hostname(s)
}

/// The MAC beryl derives for one side of a jail's epair: `02:` and the first
/// five bytes of sha256(`PARENT_FQDN/NAME/SIDE`), SIDE `a` (the host's end)
/// or `b` (the jail's). `02` sets the locally administered bit and clears
/// the group bit (IEEE 802: bit 1 and bit 0 of the first octet), so the
/// address is unicast and never a vendor's; it depends only on the names,
/// so a re-created jail keeps its MAC and its SLAAC address (bastille#716).
pub(crate) fn derived_mac(parent: &str, name: &str, side: char) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("{parent}/{name}/{side}").as_bytes());
    let mut out = String::from("02");
    for b in &digest[..5] {
        out.push_str(&format!(":{b:02x}"));
    }
    out
}

/// Why `s` is not a unicast MAC address written `xx:xx:xx:xx:xx:xx`.
pub(crate) fn mac(s: &str) -> Result<(), String> {
    let octets: Vec<&str> = s.split(':').collect();
    if octets.len() != 6
        || octets
            .iter()
            .any(|o| o.len() != 2 || !o.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        return Err(format!(
            "{} is not six hex octets separated by `:`",
            quote(s)
        ));
    }
    let first = u8::from_str_radix(octets[0], 16).map_err(|e| e.to_string())?;
    if first & 1 == 1 {
        return Err(format!(
            "{} is a group (multicast) address: its first octet is odd",
            quote(s)
        ));
    }
    if octets.iter().all(|o| *o == "00") {
        return Err("00:00:00:00:00:00 is not an interface address".into());
    }
    Ok(())
}

/// Why `s` is not a bridge interface name: if_bridge(4) clones `bridgeN`.
pub(crate) fn bridge_name(s: &str) -> Result<(), String> {
    match s.strip_prefix("bridge") {
        Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && n.len() <= 5 => Ok(()),
        _ => Err(format!(
            "{} is not `bridge` and a unit number, as `ifconfig bridge create` names it",
            quote(s)
        )),
    }
}

/// Why `s` is not a directory a jail can use (its root, a state directory,
/// a mount's source or target): an absolute, normalized path other than
/// `/`, without white space (an fstab(5) line splits fields at it).
pub(crate) fn jail_dir(s: &str) -> Result<(), String> {
    if s == "/" {
        return Err("`/` is the whole tree, never a jail's own directory".into());
    }
    if s.chars().any(char::is_whitespace) {
        return Err(format!(
            "{} contains white space, which fstab(5) reads as a field separator",
            quote(s)
        ));
    }
    super::file_path(s).map_err(|e| e.replace("names a directory, not a file", "ends with `/`"))
}

/// The dataset of a thin jail's state directory, below the jail's own:
/// the directory without its first `/`, the others as `_` (`/usr/local` →
/// `usr_local`), one ZFS name component.
pub(crate) fn state_dataset(dir: &str) -> String {
    dir.trim_start_matches('/').replace('/', "_")
}

#[cfg(test)]
mod tests {
    use super::{bridge_name, derived_mac, jail_name, mac};

    #[test]
    fn macs_are_derived_locally_administered_unicast_and_stable() {
        let a = derived_mac("host01.example.org", "www", 'b');
        assert_eq!(a, derived_mac("host01.example.org", "www", 'b'));
        assert_ne!(a, derived_mac("host01.example.org", "www", 'a'));
        assert_ne!(a, derived_mac("host02.example.org", "www", 'b'));
        assert!(a.starts_with("02:") && a.len() == 17, "{a}");
        assert_eq!(mac(&a), Ok(()));
        assert!(mac("01:00:5e:00:00:01").unwrap_err().contains("multicast"));
        assert!(mac("02:00:00:00:00").is_err());
        assert!(mac("00:00:00:00:00:00").is_err());
        assert_eq!(bridge_name("bridge0"), Ok(()));
        assert!(bridge_name("br0").is_err() && bridge_name("bridge").is_err());
    }

    #[test]
    fn jail_names_follow_the_kernel_and_the_label_rule() {
        for ok in ["www", "db-1", "a", "1www", "www1"] {
            assert_eq!(jail_name(ok), Ok(()), "{ok}");
        }
        for (bad, why) in [
            ("a.b", "contains a dot"),
            ("42", "all digits"),
            ("0", "all digits"),
            ("", "empty"),
            ("w_w", "may only use"),
            ("-www", "`-`"),
            (&"x".repeat(64), "63"),
        ] {
            let err = jail_name(bad).unwrap_err();
            assert!(err.contains(why), "{bad}: {err}");
        }
    }
}
