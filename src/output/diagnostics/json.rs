//! `check --format json`: the report as one versioned JSON document.

use serde::Serialize;

use super::{FORMAT_VERSION, Place, Scope, Summary, summary};
use crate::diag::Diag;
use crate::diag::set::Set;

#[derive(Serialize)]
struct Report<'a> {
    format_version: u32,
    hosts: &'a [String],
    fleet: bool,
    summary: Summary,
    diagnostics: Vec<Entry<'a>>,
}

#[derive(Serialize)]
struct Entry<'a> {
    severity: &'static str,
    code: &'static str,
    message: &'a str,
    help: Option<&'a str>,
    #[serde(flatten)]
    at: Place,
    label: Option<&'a str>,
    related: Vec<Related>,
    hosts: &'a [String],
    consequence_of: Option<usize>,
}

#[derive(Serialize)]
struct Related {
    message: String,
    #[serde(flatten)]
    at: Place,
}

/// The JSON report (docs/inventory.md, "check --format json").
pub(crate) fn json(set: &Set, scope: &Scope<'_>) -> Result<String, Diag> {
    let diagnostics = set
        .items
        .iter()
        .map(|item| {
            let d = &item.diag;
            let mut related: Vec<Related> = d
                .labels()
                .iter()
                .skip(1)
                .map(|(span, text)| Related {
                    message: text.clone(),
                    at: Place::of(Some(span)),
                })
                .collect();
            related.extend(d.related().iter().map(|r| Related {
                message: r.message.clone(),
                at: Place::of(r.span()),
            }));
            Entry {
                severity: d.severity.name(),
                code: d.code,
                message: &d.message,
                help: d.help.as_deref(),
                at: Place::of(d.span()),
                label: d.labels().first().map(|(_, t)| t.as_str()),
                related,
                hosts: d.hosts(),
                consequence_of: item.consequence_of,
            }
        })
        .collect();
    let report = Report {
        format_version: FORMAT_VERSION,
        hosts: scope.hosts,
        fleet: scope.fleet,
        summary: summary(set, scope),
        diagnostics,
    };
    let mut text = crate::output::json::to_string(&report).map_err(|e| {
        Diag::new(
            crate::output::Code::Serialise,
            format!("cannot serialise the report: {e}"),
        )
    })?;
    text.push('\n');
    Ok(text)
}
