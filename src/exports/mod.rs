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
    /// Each host's environment (reclass: its own, else the default
    /// environment), by FQDN. Empty for a beryl inventory.
    pub environments: std::collections::HashMap<String, String>,
}

/// How a document's queries read: the path syntax, and the environment of
/// the host that asks. reclass's `--nodeinfo` sees the hosts of the asking
/// host's environment only, unless one of that host's queries says
/// `+AllEnvs` (then all of them see every host: [`asks_all_envs`]); `None`
/// sees every host, as `--inventory` does.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Scope {
    /// reclass's delimiter (`exports:a:b`), or beryl's dotted paths (`None`).
    pub delimiter: Option<char>,
    pub environment: Option<String>,
}

impl Scope {
    /// The scope of a dialect of references, for every environment.
    pub(crate) fn of(paths: crate::refs::Paths) -> Self {
        Scope {
            delimiter: match paths {
                crate::refs::Paths::Dotted => None,
                crate::refs::Paths::Delimited { delimiter } => Some(delimiter),
            },
            environment: None,
        }
    }
}

/// Prepares a document that mentions `$[`: undoes `\$[` escapes and, with
/// a fleet, replaces every query by its result. Without one (while the
/// exports themselves are computed) queries stay as written. A query in the
/// root `exports` is an error either way.
pub(crate) fn substitute(
    doc: &Node,
    fleet: Option<&AllExports>,
    scope: &Scope,
) -> Result<Node, Diags> {
    let mut out = doc.clone();
    let mut errors = Vec::new();
    if let Value::Map(m) = &mut out.value {
        for (key, entry) in m.iter_mut() {
            let exported = crate::syntax::prefix::split(key).0 == KEY;
            let fleet = fleet.map(|f| (f, scope));
            walk(&mut entry.node, fleet, exported, &mut errors);
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

fn walk(node: &mut Node, fleet: Option<(&AllExports, &Scope)>, exported: bool, errors: &mut Diags) {
    match &mut node.value {
        Value::Str(s) if s.contains("$[") => match query::scan(s) {
            Scan::Literal(text) => *s = text,
            Scan::Query(_) if exported => errors.push(in_exports(&node.span)),
            Scan::Query(text) => {
                match fleet.map(|(f, scope)| answer(&text, &node.span, f, scope)) {
                    Some(Ok(value)) => *node = Node::new(value, node.span.clone()),
                    Some(Err(d)) => errors.push(d),
                    None => {}
                }
            }
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

/// Whether a document holds a query with `+AllEnvs` (reclass's grammar):
/// then every query of the host sees every environment (kapicorp-reclass
/// 2.0 builds one inventory per node, `core.py` `_nodeinfo`).
pub(crate) fn asks_all_envs(doc: &Node, delimiter: Option<char>) -> bool {
    match &doc.value {
        Value::Str(s) if s.contains("$[") => match query::scan(s) {
            Scan::Query(text) => query::parse_in(&text, delimiter).is_ok_and(|q| q.all_envs),
            _ => false,
        },
        Value::Seq(items) => items.iter().any(|n| asks_all_envs(n, delimiter)),
        Value::Map(m) => m.values().any(|e| asks_all_envs(&e.node, delimiter)),
        _ => false,
    }
}

/// The result of one query over the fleet.
fn answer(text: &str, span: &Span, fleet: &AllExports, scope: &Scope) -> Result<Value, Diag> {
    let q = query::parse_in(text, scope.delimiter).map_err(|why| {
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
        // reclass: a host of another environment is left out (a host whose
        // environment is unknown, because its own files fail, is kept: its
        // error is the answer).
        if let Some(mine) = &scope.environment
            && fleet.environments.get(fqdn).is_some_and(|e| e != mine)
        {
            continue;
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Source;

    fn yaml(t: &str) -> Node {
        crate::yaml::parse(&Source::new("t.yml", t), &Default::default()).unwrap()
    }

    /// Hosts a (dev), b (prod), c (dev), d (base), as in the issue 19 notes'
    /// `sem/envs.inv`, which kapicorp-reclass 2.0.0 renders: node a (dev)
    /// gets `mine: {c: 10.0.0.3, a: 10.0.0.1}` and `listed: []`; a node with
    /// `+AllEnvs` gets all four.
    fn fleet() -> AllExports {
        let host = |n: &str, ip: &str, role: &str| {
            (
                n.to_string(),
                Ok(yaml(&format!("{{ip: {ip}, role: {role}}}"))),
            )
        };
        AllExports {
            hosts: vec![
                host("a", "10.0.0.1", "db"),
                host("b", "10.0.0.2", "web"),
                host("c", "10.0.0.3", "db"),
                host("d", "10.0.0.4", "web"),
            ],
            environments: [("a", "dev"), ("b", "prod"), ("c", "dev"), ("d", "base")]
                .into_iter()
                .map(|(h, e)| (h.to_string(), e.to_string()))
                .collect(),
        }
    }

    fn answered(doc: &str, environment: Option<&str>) -> String {
        let doc = yaml(doc);
        let scope = Scope {
            delimiter: Some(':'),
            environment: environment.map(str::to_string),
        };
        let out = substitute(&doc, Some(&fleet()), &scope).unwrap();
        serde_json::to_string(&out).unwrap()
    }

    /// A host whose own files fail has no known environment: it stays in
    /// every environment's answers, so that its error is what a query meets.
    #[test]
    fn a_host_of_unknown_environment_is_kept_with_its_error() {
        let mut fleet = fleet();
        fleet.environments.remove("b");
        fleet.hosts[1].1 = Err(vec![Diag::new(Code::QuerySyntax, "b fails")]);
        let scope = Scope {
            delimiter: Some(':'),
            environment: Some("dev".into()),
        };
        let doc = yaml("mine: $[ exports:ip ]\n");
        let errors = substitute(&doc, Some(&fleet), &scope).unwrap_err();
        assert!(format!("{errors:?}").contains("b fails"), "{errors:?}");
    }

    #[test]
    fn queries_see_the_asking_hosts_environment() {
        let doc = "mine: $[ exports:ip ]\nlisted: $[ if exports:role == web ]\n";
        assert_eq!(
            answered(doc, Some("dev")),
            r#"{"mine":{"a":"10.0.0.1","c":"10.0.0.3"},"listed":[]}"#
        );
        assert_eq!(
            answered("mine: $[ exports:ip ]\n", Some("base")),
            r#"{"mine":{"d":"10.0.0.4"}}"#
        );
        // Every environment (`--inventory`, or a host asking `+AllEnvs`).
        assert_eq!(
            answered(doc, None),
            concat!(
                r#"{"mine":{"a":"10.0.0.1","b":"10.0.0.2","c":"10.0.0.3","d":"10.0.0.4"},"#,
                r#""listed":["b","d"]}"#
            )
        );
        assert!(asks_all_envs(
            &yaml("x:\n  - $[ +AllEnvs exports:ip ]\n"),
            Some(':')
        ));
        assert!(!asks_all_envs(&yaml("x: $[ exports:ip ]\n"), Some(':')));
    }
}
