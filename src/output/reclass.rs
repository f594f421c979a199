//! `beryl reclass`'s output, in the shape of kapicorp-reclass 2.0's (survey
//! §6 "Output shapes"): `--nodeinfo` keys in order `__reclass__`, classes,
//! applications, parameters, exports, environment; `--inventory` adds the
//! `classes` and `applications` indexes. JSON is Python's `json.dumps`
//! (indent 2, ASCII only); YAML has its keys sorted, as PyYAML's dump.

use super::{Format, mapping};
use crate::compile::reclass::ReclassInfo;
use crate::diag::Diag;
use crate::value::{Map, Node, Value};

/// One node's output: its name, uri (`inventory::reclass::uri`), parameters
/// and reclass facts.
pub(crate) fn nodeinfo(
    name: &str,
    uri: &str,
    parameters: &Node,
    info: &ReclassInfo,
    timestamp: &str,
) -> Node {
    let s = |t: &str| Node::str(t.to_string());
    let list = |items: &[String]| Node::synthetic(Value::Seq(items.iter().map(|i| s(i)).collect()));
    let header = mapping([
        ("node".into(), s(name)),
        ("name".into(), s(name)),
        ("uri".into(), s(uri)),
        ("environment".into(), s(&info.environment)),
        ("timestamp".into(), s(timestamp)),
    ]);
    let parameters = match parameters.value {
        Value::Map(_) => parameters.clone(),
        _ => Node::synthetic(Value::Map(Map::new())),
    };
    mapping([
        ("__reclass__".into(), header),
        ("classes".into(), list(&info.classes)),
        ("applications".into(), list(&info.applications)),
        ("parameters".into(), parameters),
        ("exports".into(), info.exports.clone()),
        ("environment".into(), s(&info.environment)),
    ])
}

/// `--inventory`: every node's output, and which nodes have each class and
/// each application (in node order).
pub(crate) fn inventory(nodes: Vec<(String, Node, ReclassInfo)>, timestamp: &str) -> Node {
    let mut classes: Vec<(String, Vec<Node>)> = Vec::new();
    let mut applications: Vec<(String, Vec<Node>)> = Vec::new();
    let add = |index: &mut Vec<(String, Vec<Node>)>, key: &str, node: &str| {
        let n = Node::str(node.to_string());
        match index.iter_mut().find(|(k, _)| k == key) {
            Some((_, list)) => list.push(n),
            None => index.push((key.to_string(), vec![n])),
        }
    };
    let mut out = Vec::new();
    for (name, info_node, info) in nodes {
        for c in &info.classes {
            add(&mut classes, c, &name);
        }
        for a in &info.applications {
            add(&mut applications, a, &name);
        }
        out.push((name, info_node));
    }
    let index = |i: Vec<(String, Vec<Node>)>| {
        mapping(
            i.into_iter()
                .map(|(k, v)| (k, Node::synthetic(Value::Seq(v)))),
        )
    };
    mapping([
        (
            "__reclass__".into(),
            mapping([("timestamp".into(), Node::str(timestamp.to_string()))]),
        ),
        ("nodes".into(), mapping(out)),
        ("classes".into(), index(classes)),
        ("applications".into(), index(applications)),
    ])
}

/// Serialises as reclass does: JSON with Python's separators and only
/// ASCII; YAML with sorted keys.
pub(crate) fn to_string(node: &Node, format: Format, pretty: bool) -> Result<String, Diag> {
    match format {
        Format::Json => {
            let text = if pretty {
                super::to_string(node, Format::Json)?
            } else {
                let mut t = serde_json::to_string(node).map_err(|e| {
                    Diag::new(
                        super::Code::Serialise,
                        format!("cannot serialise the output: {e}"),
                    )
                })?;
                t.push('\n');
                t
            };
            Ok(ascii(&text))
        }
        Format::Yaml => super::to_string(&sorted(node), Format::Yaml),
    }
}

/// Python's `ensure_ascii`: every character past ASCII as `\uXXXX` (UTF-16).
/// Outside strings JSON holds only ASCII, so the whole text can be mapped.
fn ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        }
    }
    out
}

fn sorted(node: &Node) -> Node {
    let value = match &node.value {
        Value::Map(m) => {
            let mut entries: Vec<_> = m.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Map(
                entries
                    .into_iter()
                    .map(|(k, e)| {
                        let mut e = e.clone();
                        e.node = sorted(&e.node);
                        (k.clone(), e)
                    })
                    .collect(),
            )
        }
        Value::Seq(items) => Value::Seq(items.iter().map(sorted).collect()),
        other => other.clone(),
    };
    Node::new(value, node.span.clone())
}

/// `time.strftime('%c')` in the C locale, for the time `secs` after the
/// epoch in UTC: `Wed Dec  2 16:25:59 2026`.
pub(crate) fn timestamp(secs: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{} {} {day:>2} {:02}:{:02}:{:02} {year}",
        DAYS[days.rem_euclid(7) as usize],
        MONTHS[(month - 1) as usize],
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The format of kapicorp's `time.strftime('%c')` (C locale), as seen in
    /// its outputs: `Wed Dec  2 16:24:05 2026`.
    #[test]
    fn timestamps_are_c_locale() {
        assert_eq!(timestamp(0), "Thu Jan  1 00:00:00 1970");
        assert_eq!(timestamp(1_796_228_645), "Wed Dec  2 16:24:05 2026");
        assert_eq!(timestamp(951_782_400), "Tue Feb 29 00:00:00 2000");
    }

    #[test]
    fn json_is_ascii_only() {
        assert_eq!(ascii("\"é😀\""), "\"\\u00e9\\ud83d\\ude00\"");
    }
}
