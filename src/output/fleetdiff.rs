//! Comparing two states of a fleet: host lists, then manifest hashes, then
//! configs path by path. Entry point: [`compare`]; the report forms are
//! [`to_text`], [`to_stat`], [`to_markdown`] and [`to_json`].

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

/// One side of a diff: each host's hash, and a way to get its config.
pub struct Side {
    pub hosts: BTreeMap<String, HostState>,
}

pub struct HostState {
    pub hash: String,
    /// The config, loaded only when the hashes differ.
    pub load: Box<dyn Fn() -> Result<Value, crate::diag::Diag> + Send + Sync>,
    /// The install plan's text, for `--plan`.
    pub plan: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct PathChange {
    pub path: String,
    /// Absent when the path was added.
    pub old: Option<Value>,
    /// Absent when the path was removed.
    pub new: Option<Value>,
}

#[derive(Debug, Serialize)]
pub struct HostChange {
    pub host: String,
    pub paths: Vec<PathChange>,
    /// A unified diff of the install plans (`--plan`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan_diff: Option<String>,
}

#[derive(Debug, Default, Serialize)]
pub struct Summary {
    pub changed: usize,
    pub added: usize,
    pub removed: usize,
    pub unchanged: usize,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub format_version: u32,
    pub summary: Summary,
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<HostChange>,
}

impl Report {
    pub fn differs(&self) -> bool {
        self.summary.changed + self.summary.added + self.summary.removed > 0
    }
}

/// Compares two sides. With `plans`, hosts are compared by their install
/// plans instead of their configs.
pub fn compare(old: &Side, new: &Side, plans: bool) -> Result<Report, crate::diag::Diag> {
    let mut report = Report {
        format_version: 1,
        summary: Summary::default(),
        added: Vec::new(),
        removed: Vec::new(),
        changed: Vec::new(),
    };
    for fqdn in old.hosts.keys().filter(|h| !new.hosts.contains_key(*h)) {
        report.removed.push(fqdn.clone());
    }
    for (fqdn, n) in &new.hosts {
        let Some(o) = old.hosts.get(fqdn) else {
            report.added.push(fqdn.clone());
            continue;
        };
        if plans {
            let (a, b) = (
                o.plan.as_deref().unwrap_or_default(),
                n.plan.as_deref().unwrap_or_default(),
            );
            if a == b {
                report.summary.unchanged += 1;
            } else {
                let diff = similar::TextDiff::from_lines(a, b)
                    .unified_diff()
                    .header(&format!("old/{fqdn}"), &format!("new/{fqdn}"))
                    .to_string();
                report.changed.push(HostChange {
                    host: fqdn.clone(),
                    paths: Vec::new(),
                    plan_diff: Some(diff),
                });
            }
            continue;
        }
        if o.hash == n.hash {
            report.summary.unchanged += 1;
            continue;
        }
        let (a, b) = ((o.load)()?, (n.load)()?);
        let mut paths = Vec::new();
        walk(&mut Vec::new(), Some(&a), Some(&b), &mut paths);
        if paths.is_empty() {
            report.summary.unchanged += 1;
        } else {
            report.changed.push(HostChange {
                host: fqdn.clone(),
                paths,
                plan_diff: None,
            });
        }
    }
    report.summary.changed = report.changed.len();
    report.summary.added = report.added.len();
    report.summary.removed = report.removed.len();
    Ok(report)
}

/// Path by path: mappings by key, lists item by item.
fn walk(at: &mut Vec<String>, a: Option<&Value>, b: Option<&Value>, out: &mut Vec<PathChange>) {
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            for (k, v) in x {
                at.push(crate::path::segment(k));
                walk(at, Some(v), y.get(k), out);
                at.pop();
            }
            for (k, v) in y.iter().filter(|(k, _)| !x.contains_key(*k)) {
                at.push(crate::path::segment(k));
                walk(at, None, Some(v), out);
                at.pop();
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) => {
            for i in 0..x.len().max(y.len()) {
                let last = at.pop().unwrap_or_default();
                at.push(format!("{last}[{i}]"));
                walk(at, x.get(i), y.get(i), out);
                at.pop();
                at.push(last);
            }
        }
        (a, b) if a == b => {}
        (a, b) => out.push(PathChange {
            path: at.join("."),
            old: a.cloned(),
            new: b.cloned(),
        }),
    }
}

/// A value on one line: scalars as YAML writes them, collections as JSON
/// flow (which YAML also reads).
fn show(v: &Value) -> String {
    match v {
        Value::String(s) => serde_saphyr::to_string(s)
            .map(|t| t.trim_end().to_string())
            .unwrap_or_else(|_| s.clone()),
        other => other.to_string(),
    }
}

fn footer(s: &Summary) -> String {
    format!(
        "{} hosts changed, {} added, {} removed, {} unchanged\n",
        s.changed, s.added, s.removed, s.unchanged
    )
}

pub fn to_text(r: &Report) -> String {
    let mut out = String::new();
    for h in &r.added {
        out.push_str(&format!("+ {h} (added)\n"));
    }
    for h in &r.removed {
        out.push_str(&format!("- {h} (removed)\n"));
    }
    for c in &r.changed {
        out.push_str(&format!("~ {}\n", c.host));
        if let Some(d) = &c.plan_diff {
            for line in d.lines() {
                out.push_str(&format!("    {line}\n"));
            }
        }
        for p in &c.paths {
            out.push_str(&format!("  {}\n", p.path));
            if let Some(v) = &p.old {
                out.push_str(&format!("    - {}\n", show(v)));
            }
            if let Some(v) = &p.new {
                out.push_str(&format!("    + {}\n", show(v)));
            }
        }
    }
    out.push_str(&footer(&r.summary));
    out
}

pub fn to_stat(r: &Report) -> String {
    let mut rows: Vec<(String, String)> = Vec::new();
    for h in &r.added {
        rows.push((h.clone(), "added".into()));
    }
    for h in &r.removed {
        rows.push((h.clone(), "removed".into()));
    }
    for c in &r.changed {
        let what = match &c.plan_diff {
            Some(d) => {
                let plus = d
                    .lines()
                    .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
                    .count();
                let minus = d
                    .lines()
                    .filter(|l| l.starts_with('-') && !l.starts_with("---"))
                    .count();
                format!("+{plus} -{minus} lines")
            }
            None => format!(
                "{} path{}",
                c.paths.len(),
                if c.paths.len() == 1 { "" } else { "s" }
            ),
        };
        rows.push((c.host.clone(), what));
    }
    rows.sort();
    let width = rows.iter().map(|(h, _)| h.len()).max().unwrap_or(0);
    let mut out: String = rows
        .iter()
        .map(|(h, w)| format!("{h:width$} | {w}\n"))
        .collect();
    out.push_str(&footer(&r.summary));
    out
}

pub fn to_markdown(r: &Report) -> String {
    let s = &r.summary;
    let mut out = format!(
        "### beryl diff\n\n**{} hosts changed, {} added, {} removed, {} unchanged**\n\n",
        s.changed, s.added, s.removed, s.unchanged
    );
    if !r.differs() {
        return out;
    }
    out.push_str("| host | change |\n|---|---|\n");
    for h in &r.added {
        out.push_str(&format!("| `{h}` | added |\n"));
    }
    for h in &r.removed {
        out.push_str(&format!("| `{h}` | removed |\n"));
    }
    for c in &r.changed {
        let n = if c.plan_diff.is_some() {
            "plan changed".to_string()
        } else {
            format!("{} paths", c.paths.len())
        };
        out.push_str(&format!("| `{}` | {n} |\n", c.host));
    }
    for c in &r.changed {
        out.push_str(&format!(
            "\n<details><summary><code>{}</code></summary>\n\n```diff\n",
            c.host
        ));
        if let Some(d) = &c.plan_diff {
            out.push_str(d);
        }
        for p in &c.paths {
            out.push_str(&format!("@@ {} @@\n", p.path));
            if let Some(v) = &p.old {
                out.push_str(&format!("- {}\n", show(v)));
            }
            if let Some(v) = &p.new {
                out.push_str(&format!("+ {}\n", show(v)));
            }
        }
        out.push_str("```\n\n</details>\n");
    }
    out
}

pub fn to_json(r: &Report) -> String {
    let mut text = serde_json::to_string_pretty(r).unwrap_or_default();
    text.push('\n');
    text
}
