//! `beryl diff --select`: the selection filters both sides. A host counts
//! when it matches on either side, so that a selected host that was added or
//! removed is still reported; its names and classes are read from the
//! `_beryl_` header of its config on that side.

use std::collections::HashSet;

use crate::cli::Failure;
use crate::output::fleetdiff::Side;
use crate::select::{self, Candidate, Universe};
use crate::value::Node;

/// What selection needs of a host of one side, read from its config.
struct Header {
    fqdn: String,
    short: String,
    domain: String,
    group: Option<String>,
    classes: Vec<String>,
}

/// Keeps, on both sides, the hosts that the selectors select on either side.
pub(super) fn filter(selectors: &[String], old: &mut Side, new: &mut Side) -> Result<(), Failure> {
    if selectors.is_empty() {
        return Ok(());
    }
    let headers = crate::diag::collect(
        [&*old, &*new]
            .into_iter()
            .flat_map(|side| &side.hosts)
            .map(|(fqdn, state)| (state.load)().map(|config| header(fqdn, &config.node))),
    )?;
    let universe = Universe::of_hosts(
        headers
            .iter()
            .map(|h| Candidate {
                fqdn: &h.fqdn,
                short: &h.short,
                domain: &h.domain,
                group: h.group.as_deref(),
            })
            .collect(),
    );
    let classes = |i: usize| Ok(headers[i].classes.clone());
    let found = select::resolve(&universe, selectors, &classes)?;
    let keep: HashSet<&str> = found.iter().map(|&i| headers[i].fqdn.as_str()).collect();
    old.hosts.retain(|fqdn, _| keep.contains(fqdn.as_str()));
    new.hosts.retain(|fqdn, _| keep.contains(fqdn.as_str()));
    Ok(())
}

/// A host's names and classes from its `_beryl_` header; a config without
/// one (a hand-made render directory) still has its FQDN.
fn header(fqdn: &str, config: &Node) -> Header {
    let h = config.get("_beryl_");
    let text = |key: &str| {
        h.and_then(|h| h.get(key))
            .and_then(Node::as_str)
            .map(str::to_string)
    };
    let short = text("short").unwrap_or_else(|| fqdn.split('.').next().unwrap_or(fqdn).into());
    let domain = text("domain").unwrap_or_else(|| fqdn.split_once('.').map_or("", |d| d.1).into());
    Header {
        fqdn: fqdn.to_string(),
        short,
        domain,
        group: text("group"),
        classes: h
            .and_then(|h| h.get("classes"))
            .and_then(Node::as_seq)
            .map(|list| {
                list.iter()
                    .filter_map(|c| c.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
    }
}
