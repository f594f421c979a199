//! The text form of an explanation: the notes, then one block per path.

use super::{Entry, Explanation, count, outcome::describe};

/// A value short enough for one line of text: scalars, and short lists and
/// mappings of scalars, as JSON; larger values by their size (the entries below, or the
/// JSON form, show them whole).
fn brief(v: &serde_json::Value) -> String {
    let text = v.to_string();
    let scalar = |i: &serde_json::Value| !i.is_array() && !i.is_object();
    let flat = match v {
        serde_json::Value::Array(items) => items.iter().all(scalar),
        serde_json::Value::Object(m) => m.values().all(scalar),
        _ => true,
    };
    if flat && text.chars().count() <= 72 {
        return text;
    }
    match v {
        serde_json::Value::Array(items) => format!("[…] ({})", count(items.len(), "item")),
        serde_json::Value::Object(m) => match m.get("name").and_then(|n| n.as_str()) {
            Some(name) => format!("{{\"name\":{name:?}, …}} ({})", count(m.len(), "key")),
            None => format!("{{…}} ({})", count(m.len(), "key")),
        },
        _ => {
            let head: String = text.chars().take(60).collect();
            format!("{head}…")
        }
    }
}

/// The text form: the notes, then one block per path.
pub(crate) fn to_text(e: &Explanation) -> String {
    let mut out = String::new();
    for note in &e.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    if !e.notes.is_empty() {
        out.push('\n');
    }
    for (i, entry) in e.entries.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        block(entry, &mut out);
    }
    out
}

fn block(entry: &Entry, out: &mut String) {
    let value = entry.value.as_ref().map_or("(deleted)".to_string(), brief);
    out.push_str(&format!("{} = {value}\n", entry.path));
    if let Some(at) = &entry.at {
        out.push_str(&format!("  from:     {at}\n"));
    }
    for s in &entry.secrets {
        out.push_str(&format!(
            "  secret:   {} encrypted at {} ({}), to {} recipient(s):\n",
            s.token,
            s.at,
            s.kind,
            s.recipients.len()
        ));
        for r in &s.recipients {
            out.push_str(&format!("            {r}\n"));
        }
    }
    if let Some(cause) = &entry.removed_by {
        out.push_str(&format!("  removed:  by {}\n", describe(cause)));
    }
    if let Some(q) = &entry.query {
        let host = q
            .host
            .as_ref()
            .map_or(String::new(), |h| format!(", from the exports of {h}"));
        out.push_str(&format!("  query:    {} at {}{host}\n", q.text, q.at));
    }
    let s = &entry.strategy;
    let why = match s.source {
        "rule" => format!(
            "rule `{}` at {}",
            s.pattern.as_deref().unwrap_or_default(),
            s.at.as_deref().unwrap_or_default()
        ),
        "built-in" => format!(
            "built-in rule `{}`",
            s.pattern.as_deref().unwrap_or_default()
        ),
        "inherited" => format!("inherited from {}", s.from.as_deref().unwrap_or_default()),
        "whole" => format!("taken whole with {}", s.from.as_deref().unwrap_or_default()),
        "reclass" => "reclass concatenates lists".to_string(),
        _ => "the default".to_string(),
    };
    out.push_str(&format!("  strategy: {} ({why})\n", s.name));
    if let Some(r) = &entry.reference {
        let targets: Vec<String> = r
            .targets
            .iter()
            .map(|t| format!("{} ({})", t.path, t.at.as_deref().unwrap_or("computed")))
            .collect();
        out.push_str(&format!(
            "  reference: {:?} at {} → {}\n",
            r.text,
            r.at,
            targets.join(", ")
        ));
    }
    let width = entry
        .levels
        .iter()
        .map(|l| l.file.len() + l.at.as_ref().map_or(0, |a| a.len() + 1))
        .max()
        .unwrap_or(0);
    for l in &entry.levels {
        let place = match &l.at {
            Some(at) => format!("{}:{at}", l.file),
            None => l.file.clone(),
        };
        let value = l
            .value
            .as_ref()
            .map_or(String::new(), |v| format!("{}  ", brief(v)));
        out.push_str(&format!("  {place:width$}  {value}{}\n", l.outcome));
    }
    if !entry.items.is_empty() {
        out.push_str("  items:\n");
        for item in &entry.items {
            let at = item.at.as_deref().unwrap_or("computed");
            let value = brief(&item.value);
            match &item.note {
                Some(note) => out.push_str(&format!("    {value} ← {at} ({note})\n")),
                None => out.push_str(&format!("    {value} ← {at}\n")),
            }
        }
    }
}
