//! A document split into its class list and its data ([`ClassedDoc`]).

use std::sync::Arc;

use super::{Code, KEY};
use crate::diag::{Diag, Diags};
use crate::value::{Map, Node, Value};

/// A document split into its class list and its data.
#[derive(Debug)]
pub(crate) struct ClassedDoc {
    /// The document without its `classes` key (the same node when it has none).
    pub data: Arc<Node>,
    /// The class names as written: string nodes, with their spans.
    pub classes: Vec<Node>,
    /// Whether the data holds a string with `$[` (an inventory query, or an
    /// escaped `\$[`): it goes through `exports::substitute`.
    pub queries: bool,
    /// Whether the data holds an inventory query: the host needs the fleet.
    pub asks: bool,
    /// A reclass file's `applications`, as written (`~x` removes x).
    pub applications: Vec<String>,
    /// A reclass file's `exports`.
    pub exports: Option<Arc<Node>>,
    /// A reclass file's `environment`.
    pub environment: Option<String>,
    /// What reading the file found that is not an error.
    pub warnings: Diags,
}

impl ClassedDoc {
    /// Splits a loaded document. `classes` must be a list of strings (or
    /// null); a prefixed `~classes` or `=classes` is refused.
    pub(crate) fn split(node: &Arc<Node>) -> Result<ClassedDoc, Diags> {
        let queries = crate::syntax::query::mentions_query(node);
        let asks = queries && crate::syntax::query::asks(node);
        // A document that is not a mapping, or names no classes, is all data.
        let Some((root, entry)) = node.as_map().and_then(|r| r.get(KEY).map(|e| (r, e))) else {
            return Ok(ClassedDoc {
                data: node.clone(),
                classes: Vec::new(),
                queries,
                asks,
                ..ClassedDoc::empty()
            });
        };
        // A prefixed `~classes` is refused by inventory::levels::check.
        let mut errors = Vec::new();
        let classes = match &entry.node.value {
            Value::Null => Vec::new(),
            Value::Seq(items) => {
                for item in items.iter().filter(|i| i.as_str().is_none()) {
                    errors.push(
                        Diag::new(
                            Code::NotAName,
                            format!("a class name is a string, not {}", item.value.type_name()),
                        )
                        .label(&item.span, "expected a class name such as roles.backup"),
                    );
                }
                items.clone()
            }
            other => {
                errors.push(
                    Diag::new(
                        Code::NotAList,
                        format!(
                            "`classes` must be a list of class names, found {}",
                            other.type_name()
                        ),
                    )
                    .label(
                        &entry.node.span,
                        "expected a list such as [roles.backup, monitoring]",
                    ),
                );
                Vec::new()
            }
        };
        if !errors.is_empty() {
            return Err(errors);
        }
        let data: Map = root
            .iter()
            .filter(|(k, _)| *k != KEY)
            .map(|(k, e)| (k.clone(), e.clone()))
            .collect();
        Ok(ClassedDoc {
            data: Arc::new(Node::new(Value::Map(data), node.span.clone())),
            classes,
            queries,
            asks,
            ..ClassedDoc::empty()
        })
    }

    /// A document with no data, classes or reclass keys.
    pub(crate) fn empty() -> ClassedDoc {
        ClassedDoc {
            data: Arc::new(Node::synthetic(Value::Null)),
            classes: Vec::new(),
            queries: false,
            asks: false,
            applications: Vec::new(),
            exports: None,
            environment: None,
            warnings: Vec::new(),
        }
    }

    /// A document of data alone (`_reclass_`, input data), with no classes.
    pub(crate) fn data(data: Arc<Node>) -> ClassedDoc {
        ClassedDoc {
            data,
            ..ClassedDoc::empty()
        }
    }

    /// A document that only names classes (a reclass node's class mappings).
    pub(crate) fn naming(classes: Vec<Node>) -> ClassedDoc {
        ClassedDoc {
            data: Arc::new(Node::synthetic(Value::Map(Map::new()))),
            classes,
            ..ClassedDoc::empty()
        }
    }
}
