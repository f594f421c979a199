//! Naming a host on the command line: `short`, `fqdn`, `domain/short` or
//! `domain/group/short`.

use super::{Host, Inventory};
use crate::diag::Diag;

impl Inventory {
    /// Finds the host a command-line name refers to (ignoring ASCII case, as
    /// DNS does). An ambiguous short name
    /// lists the candidate FQDNs; an unknown name suggests the closest ones.
    pub fn select(&self, name: &str) -> Result<&Host, Diag> {
        let parts: Vec<&str> = name.split('/').collect();
        let found: Vec<&Host> = match parts.as_slice() {
            [one] => {
                let exact: Vec<&Host> = self
                    .hosts
                    .iter()
                    .filter(|h| h.fqdn.eq_ignore_ascii_case(one))
                    .collect();
                if exact.is_empty() {
                    self.hosts
                        .iter()
                        .filter(|h| h.short.eq_ignore_ascii_case(one))
                        .collect()
                } else {
                    exact
                }
            }
            [domain, short] => {
                self.known_domain(domain, name)?;
                self.hosts
                    .iter()
                    .filter(|h| {
                        h.domain.eq_ignore_ascii_case(domain) && h.short.eq_ignore_ascii_case(short)
                    })
                    .collect()
            }
            [domain, group, short] => {
                self.known_domain(domain, name)?;
                self.hosts
                    .iter()
                    .filter(|h| {
                        h.domain.eq_ignore_ascii_case(domain)
                            && h.group
                                .as_deref()
                                .is_some_and(|g| g.eq_ignore_ascii_case(group))
                            && h.short.eq_ignore_ascii_case(short)
                    })
                    .collect()
            }
            _ => {
                return Err(Diag::new(
                    "beryl::select::syntax",
                    format!("`{name}` is not a host name"),
                )
                .help("name a host as SHORT, FQDN, DOMAIN/SHORT or DOMAIN/GROUP/SHORT"));
            }
        };
        match found.as_slice() {
            [one] => Ok(one),
            [] => Err(self.unknown(name)),
            many => {
                let list: Vec<String> = many.iter().map(|h| format!("  {}", h.fqdn)).collect();
                Err(Diag::new(
                    "beryl::select::ambiguous",
                    format!(
                        "host name `{name}` is ambiguous; it matches:\n{}",
                        list.join("\n")
                    ),
                )
                .help("give the FQDN or DOMAIN/SHORT"))
            }
        }
    }

    fn known_domain(&self, domain: &str, name: &str) -> Result<(), Diag> {
        if self
            .domains
            .iter()
            .any(|d| d.name.eq_ignore_ascii_case(domain))
        {
            return Ok(());
        }
        let names = self.domains.iter().map(|d| d.name.as_str());
        let mut d = Diag::new(
            "beryl::select::unknown_domain",
            format!("unknown domain `{domain}` in `{name}`"),
        );
        if let Some(help) = closest(domain, names) {
            d = d.help(help);
        }
        Err(d)
    }

    fn unknown(&self, name: &str) -> Diag {
        let short = name.rsplit('/').next().unwrap_or(name);
        let candidates = self
            .hosts
            .iter()
            .flat_map(|h| [h.fqdn.as_str(), h.short.as_str()]);
        let mut d = Diag::new("beryl::select::unknown", format!("unknown host `{name}`"));
        match closest(short, candidates) {
            Some(help) => d = d.help(help),
            None => d = d.help("`beryl hosts` lists the hosts of the inventory"),
        }
        d
    }
}

/// "did you mean" text for the names closest to `wanted`, best first.
fn closest<'a>(wanted: &str, names: impl Iterator<Item = &'a str>) -> Option<String> {
    let mut scored: Vec<(f64, &str)> = names
        .map(|n| (strsim::jaro_winkler(wanted, n), n))
        .filter(|(score, _)| *score >= 0.75)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    let best: Vec<String> = scored
        .iter()
        .take(3)
        .map(|(_, n)| format!("`{n}`"))
        .collect();
    (!best.is_empty()).then(|| format!("did you mean {}?", best.join(" or ")))
}
