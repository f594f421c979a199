//! The dry run of several hosts: one report for the whole run, as text (each
//! host's plan, then a fleet footer), as one JSON document, or as JSON
//! Lines. docs/apply.md ("A fleet dry run") and
//! docs/schemas/dry-run.schema.json document the data.

use std::collections::BTreeMap;

use serde::Serialize;

use super::diff::{Outcome, Summary, summary};

/// The version of the dry-run document (3: one document for the whole run).
pub(crate) const FORMAT_VERSION: u32 = 3;

/// One host of a dry run.
#[derive(Debug, Serialize)]
pub(crate) struct HostReport<'a> {
    pub host: &'a str,
    /// `known` (compared with a snapshot) or `unknown` (each step `?`).
    pub state: &'static str,
    /// The snapshot file compared with; `null` when the state is unknown.
    pub snapshot: Option<String>,
    pub summary: Summary,
    pub steps: &'a [Outcome],
}

impl<'a> HostReport<'a> {
    pub(crate) fn new(host: &'a str, snapshot: Option<String>, steps: &'a [Outcome]) -> Self {
        HostReport {
            host,
            state: if snapshot.is_some() {
                "known"
            } else {
                "unknown"
            },
            snapshot,
            summary: summary(steps),
            steps,
        }
    }

    fn pending(&self) -> bool {
        self.summary.pending() > 0
    }
}

/// What the run found, over all hosts.
#[derive(Debug, Default, Serialize)]
pub(crate) struct FleetSummary {
    pub hosts: usize,
    /// Hosts with a step to add, change or remove.
    pub with_changes: Vec<String>,
    /// Hosts without a snapshot.
    pub unknown: Vec<String>,
    pub totals: Summary,
    /// The counts per kind of step, by kind name.
    pub kinds: BTreeMap<String, Summary>,
}

fn add(into: &mut Summary, s: &Summary) {
    into.add += s.add;
    into.change += s.change;
    into.remove += s.remove;
    into.unchanged += s.unchanged;
    into.unknown += s.unknown;
    into.refused += s.refused;
}

fn kind_name(o: &Outcome) -> String {
    match serde_json::to_value(o.kind) {
        Ok(serde_json::Value::String(s)) => s,
        _ => format!("{:?}", o.kind),
    }
}

pub(crate) fn fleet_summary(hosts: &[HostReport<'_>]) -> FleetSummary {
    let mut f = FleetSummary {
        hosts: hosts.len(),
        ..Default::default()
    };
    for h in hosts {
        add(&mut f.totals, &h.summary);
        if h.state == "unknown" {
            f.unknown.push(h.host.to_string());
        } else if h.pending() {
            f.with_changes.push(h.host.to_string());
        }
        for o in h.steps {
            let k = f.kinds.entry(kind_name(o)).or_default();
            add(k, &summary(std::slice::from_ref(o)));
        }
    }
    f
}

/// The whole run as one JSON document.
#[derive(Debug, Serialize)]
struct Document<'a> {
    format: &'static str,
    format_version: u32,
    hosts: &'a [HostReport<'a>],
    summary: FleetSummary,
}

/// The one JSON document of a dry run (pretty, newline-terminated).
pub(crate) fn to_json(hosts: &[HostReport<'_>]) -> String {
    let doc = Document {
        format: "beryl-dry-run",
        format_version: FORMAT_VERSION,
        hosts,
        summary: fleet_summary(hosts),
    };
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Line<'a> {
    Host(&'a HostReport<'a>),
    Summary(FleetSummary),
}

/// The dry run as JSON Lines: a `host` line per host, then a `summary`.
pub(crate) fn to_jsonl(hosts: &[HostReport<'_>]) -> String {
    let mut out = String::new();
    for h in hosts {
        out.push_str(&serde_json::to_string(&Line::Host(h)).unwrap_or_default());
        out.push('\n');
    }
    let s = Line::Summary(fleet_summary(hosts));
    out.push_str(&serde_json::to_string(&s).unwrap_or_default());
    out.push('\n');
    out
}

/// The fleet footer of the text report: hosts with changes, hosts whose
/// state is unknown, and a table of the counts per kind of step.
pub(crate) fn footer(hosts: &[HostReport<'_>]) -> String {
    let f = fleet_summary(hosts);
    let mut out = format!(
        "Fleet: {} hosts, {} with changes, {} with the state unknown.\n",
        f.hosts,
        f.with_changes.len(),
        f.unknown.len()
    );
    for h in &f.with_changes {
        out.push_str(&format!("  changes: {h}\n"));
    }
    for h in &f.unknown {
        out.push_str(&format!("  unknown: {h}\n"));
    }
    let row = |name: &str, s: &Summary| {
        format!(
            "  {name:<10} {:>5} {:>7} {:>7} {:>10} {:>8}\n",
            s.add, s.change, s.remove, s.unchanged, s.unknown
        )
    };
    out.push_str(&format!(
        "  {:<10} {:>5} {:>7} {:>7} {:>10} {:>8}\n",
        "kind", "add", "change", "remove", "unchanged", "unknown"
    ));
    for (k, s) in &f.kinds {
        out.push_str(&row(k, s));
    }
    out.push_str(&row("total", &f.totals));
    if f.totals.refused > 0 {
        out.push_str(&format!(
            "  refused: {} steps would fail (a link where a file should be)\n",
            f.totals.refused
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apply::Step;
    use crate::apply::diff::compare;
    use crate::resource::verdict::Action;
    use crate::resource::{Want, packages};

    fn outcomes(action: Action) -> Vec<Outcome> {
        let want = Want::Packages(packages::Want::Package {
            name: "sudo".into(),
        });
        let step = Step::new(want, None).unwrap();
        let mut o = compare(&[step], None, true);
        o[0].action = action;
        o
    }

    #[test]
    fn the_footer_counts_hosts_and_kinds() {
        let (a, b, c) = (
            outcomes(Action::Create),
            outcomes(Action::Noop),
            outcomes(Action::Unknown),
        );
        let hosts = [
            HostReport::new("a", Some("a.json".into()), &a),
            HostReport::new("b", Some("b.json".into()), &b),
            HostReport::new("c", None, &c),
        ];
        let f = fleet_summary(&hosts);
        assert_eq!(f.with_changes, ["a"]);
        assert_eq!(f.unknown, ["c"]);
        assert_eq!(f.kinds["package"].add, 1);
        assert_eq!(f.kinds["package"].unchanged, 1);
        assert_eq!(f.totals.unknown, 1);
        let text = footer(&hosts);
        assert!(
            text.starts_with("Fleet: 3 hosts, 1 with changes, 1 with the state unknown.\n"),
            "{text}"
        );
        assert!(
            text.contains("\n  package        1       0       0          1        1\n"),
            "{text}"
        );
    }

    #[test]
    fn json_is_one_document_and_jsonl_one_per_line() {
        let a = outcomes(Action::Create);
        let hosts = [
            HostReport::new("a", Some("a.json".into()), &a),
            HostReport::new("b", None, &a),
        ];
        let doc: serde_json::Value = serde_json::from_str(&to_json(&hosts)).unwrap();
        assert_eq!(doc["hosts"].as_array().unwrap().len(), 2);
        let lines: Vec<serde_json::Value> = to_jsonl(&hosts)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let types: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
        assert_eq!(types, ["host", "host", "summary"]);
    }
}
