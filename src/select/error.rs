//! The one error type of selection, each kind with its help: a did-you-mean
//! for names, the list of domains, groups or classes to choose from.

use super::{Code, forms};
use crate::diag::{Diag, Diags};

/// Why a selector selects nothing, or too much.
#[derive(Debug)]
pub(crate) enum Error {
    /// The text is none of the forms.
    Syntax { text: String, why: String },
    /// No host has that name. `near`: the closest names; `is`: what the name
    /// is instead (a domain or a group), when it is one.
    UnknownHost {
        text: String,
        near: Vec<String>,
        is: Option<String>,
    },
    /// A short name that several domains have.
    Ambiguous { text: String, fqdns: Vec<String> },
    UnknownDomain {
        text: String,
        domain: String,
        domains: Vec<String>,
    },
    UnknownGroup {
        text: String,
        domain: String,
        group: String,
        groups: Vec<String>,
    },
    /// A domain or group that exists but holds no host.
    Empty { text: String, what: &'static str },
    /// A glob that matches no host.
    NoMatch { text: String },
    /// No host has the class. `classes`: every class some host has.
    UnknownClass { class: String, classes: Vec<String> },
    /// A host whose class list cannot be computed: its own errors follow.
    Classes {
        text: String,
        fqdn: String,
        errors: Diags,
    },
    /// A command that takes one host was given a selection of several.
    Several {
        command: &'static str,
        text: String,
        fqdns: Vec<String>,
    },
}

fn list(items: &[String]) -> String {
    items
        .iter()
        .map(|i| format!("  {i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

impl Error {
    pub(crate) fn into_diags(self) -> Diags {
        let d = match self {
            Error::Syntax { text, why } => Diag::new(
                Code::Syntax,
                format!("`{text}` is not a selector: {why}"),
            )
            .help(forms()),
            Error::UnknownHost { text, near, is } => {
                let d = Diag::new(Code::Unknown, format!("unknown host `{text}`"));
                match (is, did_you_mean(&near)) {
                    (Some(is), _) => d.help(is),
                    (None, Some(help)) => d.help(help),
                    (None, None) => d.help("`beryl hosts` lists the hosts of the inventory"),
                }
            }
            Error::Ambiguous { text, fqdns } => Diag::new(
                Code::Ambiguous,
                format!("host name `{text}` is ambiguous; it matches:\n{}", list(&fqdns)),
            )
            .help(format!(
                "give the FQDN or DOMAIN/SHORT, or select them all with the glob '{text}.*'"
            )),
            Error::UnknownDomain {
                text,
                domain,
                domains,
            } => {
                let d = Diag::new(
                    Code::UnknownDomain,
                    format!("unknown domain `{domain}` in `{text}`"),
                );
                d.help(
                    did_you_mean(&closest(&domain, &domains))
                        .unwrap_or_else(|| format!("the domains are: {}", domains.join(", "))),
                )
            }
            Error::UnknownGroup {
                text,
                domain,
                group,
                groups,
            } => {
                let d = Diag::new(
                    Code::UnknownGroup,
                    format!("unknown group `{group}` of {domain} in `{text}`"),
                );
                d.help(did_you_mean(&closest(&group, &groups)).unwrap_or_else(|| {
                    match groups.is_empty() {
                        true => format!("{domain} has no groups"),
                        false => format!("the groups of {domain} are: {}", groups.join(", ")),
                    }
                }))
            }
            Error::Empty { text, what } => Diag::new(
                Code::Empty,
                format!("the {what} `{text}` holds no host"),
            )
            .help("`beryl hosts` lists the hosts with their domain and group"),
            Error::NoMatch { text } => Diag::new(
                Code::NoMatch,
                format!("the glob `{text}` matches no host"),
            )
            .help("a glob is matched against each host's short name, FQDN, DOMAIN/SHORT and DOMAIN/GROUP/SHORT; `beryl hosts` lists them"),
            Error::UnknownClass {
                class,
                classes,
            } => {
                let d = Diag::new(
                    Code::UnknownClass,
                    format!("no host has the class `{class}`"),
                );
                let help = match (did_you_mean(&closest(&class, &classes)), classes.is_empty()) {
                    (Some(help), _) => help,
                    (None, true) => "no host has any class".to_string(),
                    (None, false) => format!("the classes of the hosts are: {}", classes.join(", ")),
                };
                d.help(help)
            }
            Error::Classes { text, fqdn, errors } => {
                let mut all = errors;
                all.push(
                    Diag::new(
                        Code::Classes,
                        format!("cannot tell whether {fqdn} is in `{text}`: its classes do not resolve"),
                    )
                    .help("fix the errors above, or select the hosts another way"),
                );
                return all;
            }
            Error::Several {
                command,
                text,
                fqdns,
            } => Diag::new(
                Code::Several,
                format!(
                    "`{text}` selects {} hosts, and `beryl {command}` takes one:\n{}",
                    fqdns.len(),
                    list(&fqdns)
                ),
            )
            .help("name one host, for instance by its FQDN"),
        };
        vec![d]
    }
}

/// "did you mean" text for a list of names, best first.
fn did_you_mean(near: &[String]) -> Option<String> {
    let quoted: Vec<String> = near.iter().map(|n| format!("`{n}`")).collect();
    (!quoted.is_empty()).then(|| format!("did you mean {}?", quoted.join(" or ")))
}

/// The (up to three) names closest to `wanted`, best first.
pub(super) fn closest<S: AsRef<str>>(wanted: &str, names: &[S]) -> Vec<String> {
    let wanted = wanted.to_ascii_lowercase();
    let mut scored: Vec<(f64, &str)> = names
        .iter()
        .map(|n| n.as_ref())
        .map(|n| (strsim::jaro_winkler(&wanted, &n.to_ascii_lowercase()), n))
        .filter(|(score, _)| *score >= 0.75)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.iter().take(3).map(|(_, n)| n.to_string()).collect()
}
