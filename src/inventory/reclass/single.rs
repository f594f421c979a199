//! Ferroclass's single-file backend (`storage_type: yaml_file`): the whole
//! inventory in one YAML file, one document per node or class, split on
//! `---` (Ferroclass `storage/file_system/yaml_file_repository.rs`).
//!
//! - Each document has a `name`; `type: node` makes it a node, and no
//!   `type` (or `type: class`) a class. `name` and `type` are removed; the
//!   rest is a reclass file as the folder backend reads one (`classes`,
//!   `parameters`, `environment`, ...).
//! - A first document without `name` is the file's metadata (Ferroclass
//!   reads `classes_uri` and `nodes_uri` there and uses neither), and is
//!   skipped.
//! - Deliberate differences from Ferroclass: a later document without
//!   `name`, an unknown `type` and a name given twice are errors (Ferroclass
//!   skips the first, reads the second as a class and keeps both); a line
//!   `---` is a document start only at the start of a line and followed by a
//!   blank or the end of the line, as YAML says (Ferroclass splits on any
//!   `\n---`).
//!
//! Each document is read alone and its spans moved into the whole file, so
//! every diagnostic points at the file's own lines. Entry point: [`load`].

use std::collections::HashMap;
use std::sync::Arc;

use super::Code;
use crate::diag::{Diag, Diags};
use crate::inventory::{Host, LevelFile};
use crate::value::{Node, Source, Span, Value};
use crate::yaml::{Limits, Loaded, Schema};

/// The documents of a single-file inventory, as the later stages read them.
#[derive(Debug, Default)]
pub struct Documents {
    /// Each node's and class's document (less `name` and `type`), with the
    /// warnings of reading it, by the `rel` of its [`LevelFile`].
    pub(crate) loaded: HashMap<String, Loaded>,
    /// The classes, by name.
    pub(crate) classes: HashMap<String, LevelFile>,
}

/// What a document is, by its `type`.
const KINDS: &[(&str, Kind)] = &[("node", Kind::Node), ("class", Kind::Class)];

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Kind {
    Node,
    Class,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Node => "node",
            Kind::Class => "class",
        }
    }
}

/// Reads `file` and splits it into hosts (sorted by name) and documents.
pub(crate) fn load(file: &LevelFile, limits: &Limits) -> Result<(Vec<Host>, Documents), Diags> {
    let text = crate::yaml::read_text(&file.path, &file.display, limits.max_file_size)?;
    let whole = Source::new(file.display.clone(), text);
    let mut docs = Documents::default();
    let mut hosts: Vec<Host> = Vec::new();
    let mut seen: HashMap<(Kind, String), Span> = HashMap::new();
    let mut errors = Vec::new();
    let mut first = true;
    for (at, lines) in starts(&whole.text) {
        let end = next_start(&whole.text, at);
        let slice = &whole.text[at..end];
        if blank(slice) {
            continue;
        }
        let mut loaded = match read(&whole, slice, at, lines, limits) {
            Ok(l) => l,
            Err(d) => {
                errors.push(d);
                continue;
            }
        };
        let metadata_allowed = std::mem::take(&mut first);
        let (name, kind) = match identify(&mut loaded.node, metadata_allowed) {
            Ok(Some(found)) => found,
            Ok(None) => continue,
            Err(d) => {
                errors.push(d);
                continue;
            }
        };
        if let Some(first) = seen.get(&(kind, name.0.clone())) {
            errors.push(
                Diag::new(
                    Code::DuplicateNode,
                    format!(
                        "the {} `{}` is defined twice in {}",
                        kind.word(),
                        name.0,
                        file.display
                    ),
                )
                .label(first, "first here")
                .label(&name.1, "again here")
                .help("each node and class is one document: rename or remove one"),
            );
            continue;
        }
        seen.insert((kind, name.0.clone()), name.1.clone());
        let rel = format!("{}#{}:{}", file.rel, kind.word(), name.0);
        let level = LevelFile {
            path: file.path.clone(),
            rel: rel.clone(),
            display: format!("{}#{}:{}", file.display, kind.word(), name.0),
        };
        match kind {
            Kind::Node => hosts.push(Host {
                short: name.0.clone(),
                domain: String::new(),
                group: None,
                fqdn: name.0,
                file: level,
                parent: None,
            }),
            Kind::Class => {
                docs.classes.insert(name.0, level);
            }
        }
        docs.loaded.insert(rel, loaded);
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    hosts.sort_by(|a, b| a.fqdn.cmp(&b.fqdn));
    Ok((hosts, docs))
}

/// Whether the file at `path` is a single-file inventory: it declares a
/// node (a line `type: node`), so that another YAML file given where an
/// inventory folder is expected is still refused as not a folder. A file
/// too large to read here is let through, so that the size cap reports it.
pub(crate) fn declares_nodes(path: &std::path::Path) -> bool {
    let too_large =
        std::fs::metadata(path).is_ok_and(|m| m.len() > crate::yaml::DEFAULT_MAX_FILE_SIZE);
    too_large
        || std::fs::read_to_string(path).is_ok_and(|text| {
            text.lines()
                .any(|l| l.split('#').next().unwrap_or("").trim_end() == "type: node")
        })
}

/// The byte offset and 0-based line of each document start: the file's
/// start, and every line that is `---` alone or followed by a blank.
fn starts(text: &str) -> Vec<(usize, u32)> {
    let mut out = vec![(0, 0)];
    let mut offset = 0;
    for (line, l) in text.split_inclusive('\n').enumerate() {
        if line > 0 && marks_start(l) {
            out.push((offset, line as u32));
        }
        offset += l.len();
    }
    out
}

fn next_start(text: &str, at: usize) -> usize {
    let rest = &text[at..];
    let mut offset = 0;
    for (i, l) in rest.split_inclusive('\n').enumerate() {
        if i > 0 && marks_start(l) {
            return at + offset;
        }
        offset += l.len();
    }
    text.len()
}

fn marks_start(line: &str) -> bool {
    line.strip_prefix("---")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\r', '\n']))
}

/// Whether a document holds nothing but blanks, comments and markers.
fn blank(slice: &str) -> bool {
    slice.lines().all(|l| {
        let t = l.trim();
        t.is_empty() || t.starts_with('#') || t == "---" || t == "..."
    })
}

/// One document read alone, in reclass's YAML, its spans moved into `whole`.
fn read(
    whole: &Arc<Source>,
    slice: &str,
    at: usize,
    lines: u32,
    limits: &Limits,
) -> Result<Loaded, Diag> {
    let alone = Source::new(whole.name.clone(), slice.to_string());
    match crate::yaml::parse_as(&alone, limits, Schema::Yaml11) {
        Ok(mut loaded) => {
            loaded.node.rebase(whole, at, lines);
            for w in &mut loaded.warnings {
                w.rebase(whole, at, lines);
            }
            Ok(loaded)
        }
        Err(mut d) => {
            d.rebase(whole, at, lines);
            Err(d)
        }
    }
}

/// A document's name and where it is written.
type Named = (String, Span);

/// A document's name (with its place) and kind, `name` and `type` taken out;
/// `None` for the metadata document (the first, when it has no `name`).
fn identify(node: &mut Node, first: bool) -> Result<Option<(Named, Kind)>, Diag> {
    let span = node.span.clone();
    let Value::Map(map) = &mut node.value else {
        return Err(Diag::new(
            Code::Document,
            "a document of a single-file inventory is not a mapping",
        )
        .label(&span, "this document"));
    };
    let kind = match map.shift_remove("type") {
        None => Kind::Class,
        Some(e) => match e
            .node
            .as_str()
            .and_then(|t| KINDS.iter().find(|(k, _)| *k == t))
        {
            Some((_, kind)) => *kind,
            None => {
                return Err(
                    Diag::new(Code::Document, "a document's `type` is `node` or `class`")
                        .label(&e.node.span, "this type"),
                );
            }
        },
    };
    match map.shift_remove("name") {
        Some(e) => match e.node.as_str() {
            Some(name) if !name.is_empty() => {
                Ok(Some(((name.to_string(), e.node.span.clone()), kind)))
            }
            _ => Err(
                Diag::new(Code::Document, "a document's `name` is a non-empty string")
                    .label(&e.node.span, "this name"),
            ),
        },
        None if first => Ok(None),
        None => Err(Diag::new(
            Code::Document,
            "a document of a single-file inventory has no `name`",
        )
        .label(&span, "this document")
        .help("give each node and class document a `name:`, and each node `type: node`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn load_text(text: &str) -> Result<(Vec<Host>, Documents), Diags> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("inv.yml");
        std::fs::write(&path, text).unwrap();
        let file = LevelFile {
            path: PathBuf::from(&path),
            rel: "inv.yml".into(),
            display: "inv.yml".into(),
        };
        load(&file, &Limits::default())
    }

    fn messages(errors: &Diags) -> Vec<String> {
        errors
            .iter()
            .map(|d| {
                let at = d.labels().first().map(|(s, _)| (s.line, s.col));
                format!("{} {at:?}", d.message)
            })
            .collect()
    }

    #[test]
    fn documents_start_at_a_marker_line_only() {
        let text = "a: 1\n---\nb: 2\n--- # c\n---x: 3\n  ---\n--- {d: 4}\n";
        let found: Vec<(usize, u32)> = starts(text);
        assert_eq!(found, [(0, 0), (5, 1), (14, 3), (36, 6)]);
        assert_eq!(next_start(text, 14), 36);
        assert_eq!(next_start(text, 36), text.len());
    }

    #[test]
    fn nodes_and_classes_by_type_with_their_lines() {
        let text = "---\nclasses_uri: x\n---\nname: base\nparameters: {a: 1}\n---\n# a node\nname: web\ntype: node\nclasses: [base]\nparameters:\n  b: yes\n";
        let (hosts, docs) = load_text(text).unwrap();
        let names: Vec<&str> = hosts.iter().map(|h| h.fqdn.as_str()).collect();
        assert_eq!(names, ["web"]);
        assert_eq!(hosts[0].file.rel, "inv.yml#node:web");
        assert_eq!(docs.classes["base"].rel, "inv.yml#class:base");
        let web = &docs.loaded["inv.yml#node:web"].node;
        // `name` and `type` are gone; YAML 1.1's `yes` is true.
        let keys: Vec<&String> = web.as_map().unwrap().keys().collect();
        assert_eq!(keys, ["classes", "parameters"]);
        let b = web.get("parameters").and_then(|p| p.get("b")).unwrap();
        assert!(matches!(b.value, Value::Bool(true)));
        // Spans are the whole file's: `b` is on line 12, column 6.
        assert_eq!((b.span.line, b.span.col), (12, 6));
        assert_eq!(&*b.span.source.as_ref().unwrap().text, text);
    }

    #[test]
    fn a_file_is_an_inventory_when_it_declares_a_node() {
        let dir = tempfile::tempdir().unwrap();
        let file = |text: &str| {
            let path = dir.path().join("f.yml");
            std::fs::write(&path, text).unwrap();
            declares_nodes(&path)
        };
        assert!(file("name: a\ntype: node  # here\n"));
        assert!(!file("freebsd:\n  type: node\n"));
        assert!(!file("ssh: {user: root}\n"));
    }

    #[test]
    fn a_first_document_may_be_named() {
        let (hosts, docs) = load_text("name: n\ntype: node\n---\nname: c\n").unwrap();
        assert_eq!(hosts.len(), 1);
        assert!(docs.classes.contains_key("c"));
    }

    #[test]
    fn bad_documents_are_errors_at_their_lines() {
        let errors = load_text(
            "meta: 1\n---\nparameters: {}\n---\nname: a\ntype: host\n---\nname: b\n---\nname: b\n---\nname: [x]\n---\nname: c\nparameters: {x: [}\n",
        )
        .unwrap_err();
        let found = messages(&errors);
        assert_eq!(
            found[..4],
            [
                "a document of a single-file inventory has no `name` Some((3, 1))",
                "a document's `type` is `node` or `class` Some((6, 7))",
                "the class `b` is defined twice in inv.yml Some((8, 7))",
                "a document's `name` is a non-empty string Some((12, 7))",
            ]
        );
        assert_eq!(found.len(), 5, "{found:?}");
        // The syntax error of the last document is on its own line.
        let last = errors.last().unwrap();
        assert_eq!(
            last.labels().first().map(|(s, _)| s.line),
            Some(15),
            "{last:?}"
        );
    }
}
