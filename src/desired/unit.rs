//! A connection's unit (issue 36, docs/apply.md "Jails"): a host and the
//! jails it runs, converged over the host's one ssh connection. The host's
//! steps come first, then each jail's inside steps, run in the jail by
//! jexec(8) (src/apply/script.rs, `jail_apply`).
//!
//! A jail selected without its host runs only its own part on the host's
//! connection: its inside steps and the host's rows that make and run it
//! ([`jail_rows`]), never the host's other steps.

use crate::compile::Compiled;

/// The host-side kinds whose step id is `KIND:NAME`, NAME the jail's
/// jail(8) name: the rows that make and run one jail (the jail kinds of
/// src/resource/, docs/jails.md). A jail's dataset (`zfs:DATASET`) is its
/// row too, by the dataset's name.
pub(crate) const JAIL_KINDS: &[&str] = &["jail_base", "jail_state", "jail_conf", "jail"];

/// A jail's jail(8) name: its `jail.name`, else its file's stem.
pub(crate) fn jail_name(short: &str, c: &Compiled) -> String {
    c.freebsd
        .jail
        .as_ref()
        .map_or_else(|| short.to_string(), |j| j.name.value.clone())
}

/// The dataset of a jail's root, when its `jail` mapping says.
pub(crate) fn dataset(c: &Compiled) -> Option<&str> {
    c.freebsd
        .jail
        .as_ref()
        .map(|j| j.dataset.name.value.as_str())
}

/// Whether the host's step `id` (`KIND:ID`) belongs to one of the jails
/// `jails` (jail(8) name, dataset of its root): what a selection of those
/// jails alone runs on the host. The golden base of thin jails
/// (`zfs:POOL/jails/_base/RELEASE`, `jail_base:_base/RELEASE`) is every
/// jail's: shared, it is a no-op once laid down.
pub(crate) fn is_jail_row(id: &str, jails: &[(&str, Option<&str>)]) -> bool {
    let Some((kind, id)) = id.split_once(':') else {
        return false;
    };
    let golden = |rest: &str| rest.starts_with("jails/_base/") && !rest[12..].contains('/');
    if (kind == "jail_base" && id.starts_with("_base/"))
        || (kind == "zfs" && id.split_once('/').is_some_and(|(_, rest)| golden(rest)))
    {
        return !jails.is_empty();
    }
    jails.iter().any(|(name, dataset)| {
        (JAIL_KINDS.contains(&kind) && id == *name) || (kind == "zfs" && *dataset == Some(id))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jails_rows_are_its_kinds_by_its_name_and_its_dataset() {
        let jails = [("www", Some("zroot/jails/www"))];
        for yes in [
            "jail_conf:www",
            "jail:www",
            "jail_base:www",
            "jail_state:www",
            "zfs:zroot/jails/www",
            "zfs:zroot/jails/_base/15.0-RELEASE",
            "jail_base:_base/15.0-RELEASE",
        ] {
            assert!(is_jail_row(yes, &jails), "{yes}");
        }
        for no in [
            "jail:db",
            "pkg:www",
            "tz",
            "zfs:zroot/jails",
            "file:www",
            "zfs:zroot/jails/_base/15.0-RELEASE/x",
            "zfs:zroot/x/_base/15.0-RELEASE",
        ] {
            assert!(!is_jail_row(no, &jails), "{no}");
        }
    }
}
