//! Exports and inventory queries (reclass's `exports:` and `$[ … ]`).
//!
//! A root `exports:` mapping at any level or class merges like any data (its
//! paths are `exports.…` while merging, so `merge:` rules and references
//! apply); once the host's references are resolved, [`take`] moves it out
//! of the config, and the compiler renders it under `_beryl_.exports`.
//!
//! A string that is exactly `$[ … ]` is a query over every host's exports
//! ([`query`]). Queries are resolved in a second pass: the exports of every
//! host are computed first (a [`AllExports`]), then [`substitute`] replaces each
//! query of a document by its result before the documents merge, so a
//! result merges with the levels around it as if it had been written there.
//! Exports may not hold queries. `\$[` is a literal `$[`.

use crate::diag::{Diag, Diags};
use crate::value::{Entry, Map, Node, Span, Value};

use crate::syntax::query::{self, Scan};

crate::diag::codes! {
    /// The codes of exports and inventory queries.
    pub(crate) enum Code in "exports" {
        /// A host's merged `exports` that is not a mapping.
        NotAMapping = "not_a_mapping";
        /// An inventory query inside exports.
        Query = "query";
        /// An inventory query (`$[ … ]`) that does not parse.
        QuerySyntax = "beryl::query::syntax";
        /// A query that needs the exports of a host whose exports could not be computed.
        QueryHostFailed = "beryl::query::host_failed";
    }
}

/// The root key of a document's exports.
pub(crate) const KEY: &str = crate::syntax::root::EXPORTS;

/// Whether a document writes exports at its root (`exports`, `~exports`, …).
pub(crate) fn writes_exports(doc: &Node) -> bool {
    doc.as_map()
        .is_some_and(|m| crate::syntax::prefix::get(m, KEY).is_some())
}

/// Takes the merged exports out of a host's resolved config: a mapping (an
/// absent or null `exports` is an empty one). Exports may not hold queries.
pub(crate) fn take(root: &mut Node) -> Result<Node, Diags> {
    let Value::Map(map) = &mut root.value else {
        return Ok(empty());
    };
    match map.shift_remove(KEY) {
        Some(entry) => checked(entry.node),
        None => Ok(empty()),
    }
}

/// The exports as merged and resolved, checked: a mapping (null is an empty
/// one) without queries.
pub(crate) fn checked(node: Node) -> Result<Node, Diags> {
    match node.value {
        Value::Map(_) => {}
        Value::Null => return Ok(empty()),
        ref other => {
            return Err(vec![
                Diag::new(
                    Code::NotAMapping,
                    format!("`exports` must be a mapping, found {}", other.type_name()),
                )
                .label(&node.span, "the host's exports")
                .help("write the exported values as keys: exports: {ip: 192.0.2.1}"),
            ]);
        }
    }
    let mut errors = Vec::new();
    check_exports(&node, &mut errors);
    if errors.is_empty() {
        Ok(node)
    } else {
        Err(errors)
    }
}

/// No exports: an empty mapping.
pub(crate) fn empty() -> Node {
    Node::synthetic(Value::Map(Map::new()))
}

/// A query that reached the exports through a reference (the documents'
/// own exports are checked by [`substitute`]).
fn check_exports(node: &Node, errors: &mut Diags) {
    match &node.value {
        Value::Str(s) if s.contains("$[") && matches!(query::scan(s), Scan::Query(_)) => {
            errors.push(in_exports(&node.span));
        }
        Value::Seq(items) => items.iter().for_each(|n| check_exports(n, errors)),
        Value::Map(m) => m.values().for_each(|e| check_exports(&e.node, errors)),
        _ => {}
    }
}

fn in_exports(span: &Span) -> Diag {
    Diag::new(
        Code::Query,
        "exports cannot hold an inventory query",
    )
    .label(span, "a query in the exports")
    .help(
        "the exports of every host are computed before any query is answered; export plain values",
    )
}

/// Every host's exports (or why they could not be computed), by FQDN.
#[derive(Debug, Default)]
pub(crate) struct AllExports {
    /// Sorted by FQDN.
    pub hosts: Vec<(String, Result<Node, Diags>)>,
}

/// Prepares a document that mentions `$[`: undoes `\$[` escapes and, with
/// a fleet, replaces every query by its result. Without one (while the
/// exports themselves are computed) queries stay as written. A query in the
/// root `exports` is an error either way.
pub(crate) fn substitute(doc: &Node, fleet: Option<&AllExports>) -> Result<Node, Diags> {
    let mut out = doc.clone();
    let mut errors = Vec::new();
    if let Value::Map(m) = &mut out.value {
        for (key, entry) in m.iter_mut() {
            let exported = crate::syntax::prefix::split(key).0 == KEY;
            walk(&mut entry.node, fleet, exported, &mut errors);
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

fn walk(node: &mut Node, fleet: Option<&AllExports>, exported: bool, errors: &mut Diags) {
    match &mut node.value {
        Value::Str(s) if s.contains("$[") => match query::scan(s) {
            Scan::Literal(text) => *s = text,
            Scan::Query(_) if exported => errors.push(in_exports(&node.span)),
            Scan::Query(text) => match fleet.map(|f| answer(&text, &node.span, f)) {
                Some(Ok(value)) => *node = Node::new(value, node.span.clone()),
                Some(Err(d)) => errors.push(d),
                None => {}
            },
            Scan::Bad(why) => errors.push(
                Diag::new(Code::QuerySyntax, format!("bad inventory query: {why}"))
                    .label(&node.span, "in this string")
                    .help("a query is a whole string: $[ exports.ip if exports.role == backup ]"),
            ),
        },
        Value::Seq(items) => items
            .iter_mut()
            .for_each(|n| walk(n, fleet, exported, errors)),
        Value::Map(m) => m
            .values_mut()
            .for_each(|e| walk(&mut e.node, fleet, exported, errors)),
        _ => {}
    }
}

/// The result of one query over the fleet.
fn answer(text: &str, span: &Span, fleet: &AllExports) -> Result<Value, Diag> {
    let q = query::parse(text).map_err(|why| {
        Diag::new(
            Code::QuerySyntax,
            format!("bad inventory query `$[{text}]`: {why}"),
        )
        .label(span, "this query")
        .help("the forms: $[ exports.PATH ], $[ exports.PATH if TEST ], $[ if TEST ]; a TEST is exports.PATH == VALUE or !=, joined by and/or")
    })?;
    let mut map = Map::new();
    let mut list = Vec::new();
    for (fqdn, exports) in &fleet.hosts {
        let exports = match exports {
            Ok(e) => e,
            Err(_) if q.ignore_errors => continue,
            Err(e) => return Err(failed(text, span, fqdn, e)),
        };
        if !q.passes(exports) {
            continue;
        }
        match &q.value {
            None => list.push(Node::str(fqdn.clone())),
            Some(path) => {
                if let Some(v) = query::lookup(exports, path) {
                    map.insert(
                        fqdn.clone(),
                        Entry {
                            key_span: Span::synthetic(),
                            node: v.clone(),
                        },
                    );
                }
            }
        }
    }
    Ok(match q.value {
        None => Value::Seq(list),
        Some(_) => Value::Map(map),
    })
}

fn failed(text: &str, span: &Span, fqdn: &str, errors: &Diags) -> Diag {
    let mut d = Diag::new(
        Code::QueryHostFailed,
        format!(
            "the query `$[{text}]` needs the exports of every host, and those of {fqdn} could not be computed{}",
            errors
                .first()
                .map(|e| format!(": {}", e.message))
                .unwrap_or_default()
        ),
    )
    .label(span, "this query");
    if let Some(at) = errors.first().and_then(|e| e.span()) {
        d = d.label(at, format!("{fqdn} fails here"));
    }
    if let Some(cause) = errors.first() {
        d = d.because(cause);
    }
    d.help(format!(
        "fix {fqdn} (`beryl check {fqdn}` shows every error), or write `$[ +IgnoreErrors … ]` to skip hosts that fail"
    ))
}
