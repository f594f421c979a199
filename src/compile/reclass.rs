//! What a reclass node merges besides its node file and classes (survey §6
//! "Class order, merge order"; kapicorp `core.py:166-230`), lowest first:
//! the classes of the class mappings, the input data (`--input-data`), then
//! `_reclass_`; and what `beryl reclass` prints besides the parameters.

use std::path::PathBuf;
use std::sync::Arc;

use super::Compiler;
use crate::classes::ClassedDoc;
use crate::diag::Diags;
use crate::inventory::{Host, LevelFile, LevelKind, ReclassOptions};
use crate::value::{Entry, Map, Node, Span, Value};

/// A node's reclass facts beside its parameters (`beryl reclass`'s output).
#[derive(Clone, Debug)]
pub struct ReclassInfo {
    /// The classes in reclass's order: each merged file's list as written.
    pub classes: Vec<String>,
    pub applications: Vec<String>,
    pub environment: String,
    /// The exports, merged and resolved.
    pub exports: Node,
}

/// The levels below a node's own classes: (file, document) pairs, lowest
/// first. `node` is the node file's document.
pub(super) fn base_levels(
    compiler: &Compiler<'_>,
    options: &ReclassOptions,
    host: &Host,
    node: &ClassedDoc,
) -> Result<Vec<(LevelFile, Arc<ClassedDoc>)>, Diags> {
    let synthetic = |what: &str| LevelFile {
        path: PathBuf::new(),
        rel: format!("({what})"),
        display: format!("({what})"),
    };
    let name = if options.class_mappings_match_path {
        crate::inventory::reclass::match_path(options, host)
    } else {
        host.fqdn.clone()
    };
    let mapped = crate::inventory::reclass::mapping::classes(
        &options.class_mappings,
        &name,
        &options.mapping_budget,
    )?;
    let mapped = mapped.into_iter().map(Node::str).collect();
    let mut out = vec![(
        synthetic("class mappings"),
        Arc::new(ClassedDoc::naming(mapped)),
    )];
    if let Some(path) = &options.input_data {
        let shown = path.display().to_string();
        let file = LevelFile {
            path: path.clone(),
            rel: shown.clone(),
            display: shown,
        };
        let data = compiler.load(LevelKind::Default, &file)?;
        out.push((file, Arc::new(ClassedDoc::data(data))));
    }
    let environment = environment(options, node.environment.as_deref());
    let auto = if options.automatic_parameters {
        automatic(&host.fqdn, &environment)
    } else {
        Node::synthetic(Value::Map(Map::new()))
    };
    out.push((
        synthetic("_reclass_"),
        Arc::new(ClassedDoc::data(Arc::new(auto))),
    ));
    Ok(out)
}

/// The node's environment: its file's `environment:`, else the default (a
/// class's never wins).
pub(super) fn environment(options: &ReclassOptions, node: Option<&str>) -> String {
    node.unwrap_or(&options.default_environment).to_string()
}

/// `_reclass_`: `{name: {full, short, path, parts}, environment}`, where
/// `short` is the last dotted part and `path` the parts joined by `/`.
pub(crate) fn automatic(name: &str, environment: &str) -> Node {
    let parts: Vec<&str> = name.split('.').collect();
    let s = |t: &str| Node::str(t.to_string());
    let names = map(vec![
        ("full", s(name)),
        ("short", s(parts.last().copied().unwrap_or_default())),
        ("path", s(&parts.join("/"))),
        (
            "parts",
            Node::synthetic(Value::Seq(parts.iter().map(|p| s(p)).collect())),
        ),
    ]);
    let inner = map(vec![("name", names), ("environment", s(environment))]);
    map(vec![("_reclass_", inner)])
}

fn map(items: Vec<(&str, Node)>) -> Node {
    let m: Map = items
        .into_iter()
        .map(|(k, node)| {
            (
                k.to_string(),
                Entry {
                    key_span: Span::synthetic(),
                    node,
                },
            )
        })
        .collect();
    Node::synthetic(Value::Map(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// kapicorp-reclass 2.0 on a node `web01.example.org` (survey D1).
    #[test]
    fn automatic_parameters_split_the_name() {
        let n = automatic("web01.example.org", "base");
        let name = n.get("_reclass_").and_then(|r| r.get("name")).unwrap();
        assert_eq!(name.get("short").and_then(Node::as_str), Some("org"));
        assert_eq!(
            name.get("path").and_then(Node::as_str),
            Some("web01/example/org")
        );
        assert_eq!(
            name.get("parts").and_then(Node::as_seq).map(<[Node]>::len),
            Some(3)
        );
        let keys: Vec<&String> = n
            .get("_reclass_")
            .unwrap()
            .as_map()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(keys, ["name", "environment"]);
    }
}
