//! Output formats for effective configs.

pub(crate) mod annotate;
pub(crate) mod ansible;
pub(crate) mod diagnostics;
pub(crate) mod explain;
pub(crate) mod fleetdiff;
pub(crate) mod graph;
mod json;
pub(crate) mod lookup;
pub(crate) mod reclass;
pub(crate) mod time;

use crate::diag::Diag;
use crate::value::{Entry, Map, Node, Span, Value};

crate::diag::codes! {
    /// The codes of output.
    pub(crate) enum Code in "output" {
        /// A config or a report that cannot be serialised.
        Serialise = "beryl::output";
        /// `render --annotate` cannot place a value (a bug in beryl).
        Annotate = "annotate";
        /// `explain`: a path the host's config does not have, that no level writes.
        ExplainUnknownPath = "beryl::explain::unknown_path";
        /// `explain`: a root key (`classes`, `merge`) that is not part of the config.
        ExplainNotInConfig = "beryl::explain::not_in_config";
    }
}

/// The formats a config can be written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Yaml,
    Json,
}

/// Serialises a node. YAML quotes every string that a YAML 1.1 reader could
/// take for another type (`"yes"`, `"0644"`, `"null"`), so the output reads
/// back the same in any YAML parser. JSON is pretty-printed, with the
/// characters YAML does not take raw escaped (`json.rs`), so that it reads
/// back through beryl's loader too. Both end with a newline and keep the key
/// order of the node.
pub fn to_string(node: &Node, format: Format) -> Result<String, Diag> {
    let text = match format {
        Format::Yaml => {
            // Long one-line strings (SSH keys) stay on one line; strings with
            // newlines are written as literal blocks.
            let options = serde_saphyr::ser_options! { folded_wrap_chars: usize::MAX };
            serde_saphyr::to_string_with_options(node, options).map_err(|e| e.to_string())
        }
        Format::Json => json::to_string(node).map_err(|e| e.to_string()),
    };
    let mut text =
        text.map_err(|e| Diag::new(Code::Serialise, format!("cannot serialise the output: {e}")))?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// One host's part of a render: its config alone (`key` none), or the entry
/// `key: config` of the FQDN → config mapping of a render of several hosts,
/// annotated when `notes` are given (YAML only). Each host's part is
/// serialised on its own, as soon as it is compiled, so a fleet's configs are
/// never held as trees; [`join`] puts the entries together into the text
/// [`to_string`] gives for the whole mapping.
pub(crate) fn part(
    key: Option<&str>,
    config: Node,
    notes: Option<annotate::Notes>,
    format: Format,
) -> Result<String, Diag> {
    let (node, notes) = match key {
        None => (config, notes),
        Some(key) => (
            mapping([(key.to_string(), config)]),
            notes.map(|n| n.under(key)),
        ),
    };
    let text = match notes {
        Some(notes) => annotate::to_string(&node, &notes)?,
        None => to_string(&node, format)?,
    };
    let mut text = match (key, format) {
        // `{\n  "key": …\n}\n`: the entry is the lines between the braces.
        (Some(_), Format::Json) => text
            .strip_prefix("{\n")
            .and_then(|t| t.strip_suffix("\n}\n"))
            .map(str::to_string)
            .unwrap_or(text),
        _ => text,
    };
    // Kept until the whole fleet is written: no spare capacity.
    text.shrink_to_fit();
    Ok(text)
}

/// The text of the mapping whose entries [`part`] serialised, in order, as
/// the pieces to write one after another (a fleet's text is never copied
/// into one string).
pub(crate) fn join(entries: &[String], format: Format) -> impl Iterator<Item = &str> {
    let (open, between, close) = match (format, entries.is_empty()) {
        (_, true) => ("{}\n", "", ""),
        (Format::Yaml, false) => ("", "", ""),
        (Format::Json, false) => ("{\n", ",\n", "\n}\n"),
    };
    let body = (entries.iter().enumerate())
        .flat_map(move |(i, e)| [if i == 0 { "" } else { between }, e.as_str()]);
    std::iter::once(open)
        .chain(body)
        .chain(std::iter::once(close))
        .filter(|piece| !piece.is_empty())
}

/// A mapping of names to nodes, in the order given (callers sort it).
pub(crate) fn mapping(items: impl IntoIterator<Item = (String, Node)>) -> Node {
    let map: Map = items
        .into_iter()
        .map(|(k, node)| {
            (
                k,
                Entry {
                    key_span: Span::synthetic(),
                    node,
                },
            )
        })
        .collect();
    Node::synthetic(Value::Map(map))
}

/// Left-aligned columns separated by two spaces, no trailing blanks.
pub(crate) fn table<const N: usize>(rows: &[[&str; N]]) -> String {
    let mut widths = [0usize; N];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if i + 1 < N {
                line.push_str(&" ".repeat(widths[i] - cell.chars().count() + 2));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests;
