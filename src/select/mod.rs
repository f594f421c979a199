//! Selecting hosts on the command line: one parser, one resolver, one error
//! type, for every command that takes hosts.
//!
//! Entry points: [`resolve`] (selectors to hosts) and [`one`] (for the
//! commands that take a single host). A selector is one of [`parse::FORMS`]:
//!
//! ```text
//! host01  host01.example.org             a host, by short name or FQDN
//! example.org/host01                     a host of a domain
//! example.org/web/host01                 a host of a group
//! example.org/                           every host of a domain
//! example.org/web/                       every host of a group
//! 'web*'  'host0?'  '*.example.net'      a glob over each host's names
//! class:roles.web                        the hosts that have a class, directly or not
//! ```
//!
//! Several selectors select the union, in the order given, each host once.
//! A selector that selects nothing is an error. Selection runs on a
//! [`Universe`], the hosts' names, so that it serves an inventory as well as
//! the two sides of a diff; the class lists come from the caller (they need
//! the class walk of src/classes/, which reads files).

mod error;
pub(crate) mod parse;

use std::collections::{BTreeSet, HashSet};

pub(crate) use error::Error;
pub(crate) use parse::{Selector, Target};

use crate::diag::Diags;
use crate::inventory::Inventory;

crate::diag::codes! {
    /// The codes of host selection.
    pub(crate) enum Code in "select" {
        /// A selector that is none of the forms.
        Syntax = "syntax";
        /// No host has that name.
        Unknown = "unknown";
        /// A short name that several domains have.
        Ambiguous = "ambiguous";
        /// No such domain.
        UnknownDomain = "unknown_domain";
        /// No such group in the domain.
        UnknownGroup = "unknown_group";
        /// A domain or group that holds no host.
        Empty = "empty";
        /// A glob that matches no host.
        NoMatch = "no_match";
        /// No host has the class.
        UnknownClass = "unknown_class";
        /// A class selector meets a host whose classes do not resolve.
        Classes = "classes";
        /// A command that takes one host is given a selection of several.
        Several = "several";
    }
}

/// A host as selection sees it: its names.
#[derive(Clone, Debug)]
pub(crate) struct Candidate<'a> {
    pub fqdn: &'a str,
    pub short: &'a str,
    pub domain: &'a str,
    pub group: Option<&'a str>,
}

impl Candidate<'_> {
    /// The names a glob is matched against: the short name, the FQDN,
    /// DOMAIN/SHORT and (in a group) DOMAIN/GROUP/SHORT.
    fn names(&self) -> Vec<String> {
        let mut names = vec![
            self.short.to_string(),
            self.fqdn.to_string(),
            format!("{}/{}", self.domain, self.short),
        ];
        if let Some(g) = self.group {
            names.push(format!("{}/{g}/{}", self.domain, self.short));
        }
        names
    }
}

/// What selectors are resolved against: the hosts (a host may appear more
/// than once, with the same FQDN: once per side of a diff), and the domains
/// and groups, which may hold no host.
#[derive(Debug, Default)]
pub(crate) struct Universe<'a> {
    pub hosts: Vec<Candidate<'a>>,
    pub domains: BTreeSet<&'a str>,
    /// (domain, group)
    pub groups: BTreeSet<(&'a str, &'a str)>,
}

impl<'a> From<&'a Inventory> for Universe<'a> {
    fn from(inventory: &'a Inventory) -> Self {
        Universe {
            hosts: inventory
                .hosts
                .iter()
                .map(|h| Candidate {
                    fqdn: &h.fqdn,
                    short: &h.short,
                    domain: &h.domain,
                    group: h.group.as_deref(),
                })
                .collect(),
            domains: inventory.domains.iter().map(|d| d.name.as_str()).collect(),
            groups: inventory
                .groups
                .iter()
                .map(|g| (g.domain.as_str(), g.name.as_str()))
                .collect(),
        }
    }
}

impl<'a> Universe<'a> {
    /// A universe of hosts alone: the domains and groups are the hosts'.
    pub(crate) fn of_hosts(hosts: Vec<Candidate<'a>>) -> Self {
        let domains = hosts.iter().map(|h| h.domain).collect();
        let groups = hosts
            .iter()
            .filter_map(|h| h.group.map(|g| (h.domain, g)))
            .collect();
        Universe {
            hosts,
            domains,
            groups,
        }
    }
}

/// The class list of the host at an index of the universe.
pub(crate) type Classes<'c> = dyn Fn(usize) -> Result<Vec<String>, Diags> + Sync + 'c;

/// Resolves selectors to indices into `universe.hosts`: the union, in the
/// order given, each FQDN once. Every selector that selects nothing is
/// reported, not only the first. `classes` is asked only for `class:`
/// selectors, once per host.
pub(crate) fn resolve(
    universe: &Universe<'_>,
    texts: &[String],
    classes: &Classes<'_>,
) -> Result<Vec<usize>, Diags> {
    let mut errors = Vec::new();
    let selectors: Vec<Selector> = texts
        .iter()
        .filter_map(|t| {
            parse::parse(t)
                .map_err(|e| errors.extend(e.into_diags()))
                .ok()
        })
        .collect();
    let lists = match selectors.iter().any(|s| matches!(s.kind, Target::Class(_))) {
        true => Some(class_lists(universe, classes)),
        false => None,
    };
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for s in &selectors {
        match matching(universe, s, lists.as_deref()) {
            Ok(found) => out.extend(
                found
                    .into_iter()
                    .filter(|&i| seen.insert(universe.hosts[i].fqdn.to_ascii_lowercase())),
            ),
            Err(e) => errors.extend(e.into_diags()),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// Whether selectors name one host by its name, so that a command may print
/// that host's result alone: otherwise (a domain, a group, a glob, a class,
/// several selectors) the output has the shape of a fleet's, however many
/// hosts matched, so that a script gets one shape whatever the inventory holds.
pub(crate) fn names_one(texts: &[String]) -> bool {
    match texts {
        [one] => parse::parse(one).is_ok_and(|s| {
            matches!(
                s.kind,
                Target::Name(_) | Target::InDomain { .. } | Target::InGroup { .. }
            )
        }),
        _ => false,
    }
}

/// The selection of a command that takes one host: the host, or an error
/// that lists what the selectors selected.
pub(crate) fn one(
    universe: &Universe<'_>,
    text: &str,
    command: &'static str,
    classes: &Classes<'_>,
) -> Result<usize, Diags> {
    let found = resolve(universe, &[text.to_string()], classes)?;
    match found.as_slice() {
        [i] => Ok(*i),
        many => Err(Error::Several {
            command,
            text: text.to_string(),
            fqdns: many
                .iter()
                .map(|&i| universe.hosts[i].fqdn.to_string())
                .collect(),
        }
        .into_diags()),
    }
}

/// Each host's class list, or the host's errors.
type Lists = Vec<Result<Vec<String>, Diags>>;

fn class_lists(universe: &Universe<'_>, classes: &Classes<'_>) -> Lists {
    use rayon::prelude::*;
    (0..universe.hosts.len())
        .into_par_iter()
        .map(classes)
        .collect()
}

/// The hosts one selector selects, in the universe's order.
fn matching(
    universe: &Universe<'_>,
    selector: &Selector,
    lists: Option<&[Result<Vec<String>, Diags>]>,
) -> Result<Vec<usize>, Error> {
    let text = selector.text.clone();
    let eq = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
    let hosts = &universe.hosts;
    let pick = |keep: &dyn Fn(&Candidate<'_>) -> bool| -> Vec<usize> {
        (0..hosts.len()).filter(|&i| keep(&hosts[i])).collect()
    };
    let domain_known = |domain: &str| -> Result<(), Error> {
        match universe.domains.iter().any(|d| eq(d, domain)) {
            true => Ok(()),
            false => Err(Error::UnknownDomain {
                text: text.clone(),
                domain: domain.to_string(),
                domains: universe.domains.iter().map(|d| d.to_string()).collect(),
            }),
        }
    };
    let group_known = |domain: &str, group: &str| -> Result<(), Error> {
        domain_known(domain)?;
        let groups: Vec<String> = universe
            .groups
            .iter()
            .filter(|(d, _)| eq(d, domain))
            .map(|(_, g)| g.to_string())
            .collect();
        match groups.iter().any(|g| eq(g, group)) {
            true => Ok(()),
            false => Err(Error::UnknownGroup {
                text: text.clone(),
                domain: domain.to_string(),
                group: group.to_string(),
                groups,
            }),
        }
    };
    let found = match &selector.kind {
        Target::Name(name) => {
            let exact = pick(&|h| eq(h.fqdn, name));
            let found = match exact.is_empty() {
                true => pick(&|h| eq(h.short, name)),
                false => exact,
            };
            let fqdns: BTreeSet<&str> = found.iter().map(|&i| hosts[i].fqdn).collect();
            if fqdns.len() > 1 {
                return Err(Error::Ambiguous {
                    text,
                    fqdns: fqdns.into_iter().map(str::to_string).collect(),
                });
            }
            found
        }
        Target::InDomain { domain, short } => {
            domain_known(domain)?;
            pick(&|h| eq(h.domain, domain) && eq(h.short, short))
        }
        Target::InGroup {
            domain,
            group,
            short,
        } => {
            group_known(domain, group)?;
            pick(&|h| {
                eq(h.domain, domain) && h.group.is_some_and(|g| eq(g, group)) && eq(h.short, short)
            })
        }
        Target::Domain(domain) => {
            domain_known(domain)?;
            let found = pick(&|h| eq(h.domain, domain));
            if found.is_empty() {
                return Err(Error::Empty {
                    text,
                    what: "domain",
                });
            }
            found
        }
        Target::Group { domain, group } => {
            group_known(domain, group)?;
            let found = pick(&|h| eq(h.domain, domain) && h.group.is_some_and(|g| eq(g, group)));
            if found.is_empty() {
                return Err(Error::Empty {
                    text,
                    what: "group",
                });
            }
            found
        }
        Target::Glob(glob) => {
            let found = pick(&|h| h.names().iter().any(|n| glob.is_match(n)));
            if found.is_empty() {
                return Err(Error::NoMatch { text });
            }
            found
        }
        Target::Class(class) => {
            let lists = lists.unwrap_or_default();
            let mut found = Vec::new();
            for (i, list) in lists.iter().enumerate() {
                match list {
                    Ok(names) if names.contains(class) => found.push(i),
                    Ok(_) => {}
                    Err(errors) => {
                        return Err(Error::Classes {
                            text,
                            fqdn: hosts[i].fqdn.to_string(),
                            errors: errors.clone(),
                        });
                    }
                }
            }
            if found.is_empty() {
                let all: BTreeSet<&String> = lists.iter().flatten().flatten().collect();
                return Err(Error::UnknownClass {
                    class: class.clone(),
                    classes: all.into_iter().cloned().collect(),
                });
            }
            found
        }
    };
    if found.is_empty() {
        return Err(unknown_host(universe, &text));
    }
    Ok(found)
}

/// An unknown host name: the closest names, or what the name is instead.
fn unknown_host(universe: &Universe<'_>, text: &str) -> Error {
    let last = text.rsplit('/').next().unwrap_or(text);
    let names: Vec<&str> = universe
        .hosts
        .iter()
        .flat_map(|h| [h.fqdn, h.short])
        .collect();
    // A domain or a group written without its trailing `/`.
    let domain = universe
        .domains
        .iter()
        .find(|d| d.eq_ignore_ascii_case(text));
    let group = universe.groups.iter().find(|(d, g)| {
        g.eq_ignore_ascii_case(text) || format!("{d}/{g}").eq_ignore_ascii_case(text)
    });
    let is = match (domain, group) {
        (Some(d), _) => Some(format!("`{d}` is a domain: `{d}/` selects its hosts")),
        (None, Some((d, g))) => Some(format!(
            "`{text}` is a group of {d}: `{d}/{g}/` selects its hosts"
        )),
        (None, None) => None,
    };
    Error::UnknownHost {
        text: text.to_string(),
        near: error::closest(last, &names),
        is,
    }
}

/// How the forms of selector ([`parse::FORMS`]) are listed in a help.
fn forms() -> String {
    let forms: Vec<&str> = parse::FORMS.iter().map(|f| f.example).collect();
    format!("a selector is one of: {}", forms.join(", "))
}

#[cfg(test)]
mod tests;
