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

#[cfg(test)]
mod tests {
    use super::jail_name;

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
