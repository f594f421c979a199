//! A connection's unit (issue 36, docs/apply.md "Jails"): a host and the
//! jails it runs, converged over the host's one ssh connection. The host's
//! steps come first, then each jail's inside steps, run in the jail by
//! jexec(8) (src/apply/script.rs, `jail_apply`).
//!
//! A jail selected without its host runs only its own part on the host's
//! connection: its inside steps and the host's rows that make and run it
//! ([`jail_rows`]), never the host's other steps.

use crate::apply::Step;
use crate::compile::Compiled;

/// The host-side kinds whose step id is `KIND:NAME`, NAME the jail's
/// jail(8) name: the rows that make and run one jail (the jail kinds of
/// src/resource/, docs/jails.md). A jail's dataset (`zfs:DATASET`) is its
/// row too, by the dataset's name.
pub(crate) const JAIL_KINDS: &[&str] = &["jail_base", "jail_conf", "jail"];

/// A jail's jail(8) name: its `jail.name`, else its file's stem.
pub(crate) fn jail_name(short: &str, c: &Compiled) -> String {
    c.freebsd
        .jail
        .as_ref()
        .map_or_else(|| short.to_string(), |j| j.name.value.clone())
}

/// The dataset of a jail's root, when its `jail` mapping says.
fn dataset(c: &Compiled) -> Option<&str> {
    c.freebsd
        .jail
        .as_ref()
        .map(|j| j.dataset.name.value.as_str())
}

/// The host's steps that belong to the jails `jails` (name, compiled), in
/// the host's order: what a selection of those jails alone runs on the
/// host.
pub(crate) fn jail_rows(host: Vec<Step>, jails: &[(&str, &Compiled)]) -> Vec<Step> {
    host.into_iter()
        .filter(|s| {
            let Some((kind, id)) = s.id.split_once(':') else {
                return false;
            };
            jails.iter().any(|(name, c)| {
                (JAIL_KINDS.contains(&kind) && id == *name)
                    || (kind == "zfs" && dataset(c) == Some(id))
            })
        })
        .collect()
}
