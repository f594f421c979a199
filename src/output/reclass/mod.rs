//! `beryl reclass`'s output, in the shape of kapicorp-reclass 2.0's (survey
//! §6 "Output shapes"): `--nodeinfo` keys in order `__reclass__`, classes,
//! applications, parameters, exports, environment; `--inventory` adds the
//! `classes` and `applications` indexes. JSON is Python's `json.dumps`
//! (indent 2, ASCII only); YAML has its keys sorted, as PyYAML's dump.

mod json;

use super::{Format, mapping};
use crate::compile::reclass::ReclassInfo;
use crate::diag::{Diag, Diags};
use crate::value::{Map, Node, Value};
use json::{json, streamed};

/// One node's output: its name, uri (`inventory::reclass::uri`), parameters
/// and reclass facts.
pub(crate) fn nodeinfo(
    name: &str,
    uri: &str,
    parameters: Node,
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
        Value::Map(_) => parameters,
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

/// One node of `--inventory` as the thread that compiled it leaves it: in
/// JSON already serialised, so that no node's tree outlives its compile and
/// the serialising runs in parallel; the writer only concatenates.
pub(crate) struct InventoryNode {
    name: String,
    body: Body,
    classes: Vec<String>,
    applications: Vec<String>,
}

enum Body {
    /// The JSON text, indented for its place in the document.
    Json(String),
    /// The tree, for YAML, whose keys are sorted over the whole document.
    Tree(Node),
}

/// Where a node's output sits in the `--inventory` document: in `nodes`.
const NODE_DEPTH: usize = 2;

impl InventoryNode {
    pub(crate) fn new(
        name: &str,
        uri: &str,
        parameters: Node,
        info: ReclassInfo,
        timestamp: &str,
        format: Format,
        pretty: bool,
    ) -> Result<Self, Diag> {
        let node = nodeinfo(name, uri, parameters, &info, timestamp);
        let body = match format {
            Format::Json => Body::Json(json(&node, pretty, NODE_DEPTH)?),
            Format::Yaml => Body::Tree(node),
        };
        Ok(Self {
            name: name.to_string(),
            body,
            classes: info.classes,
            applications: info.applications,
        })
    }
}

/// `--inventory`: every node's output, and which nodes have each class and
/// each application (in node order), serialised as [`to_string`] does and
/// handed to `emit` in pieces, in order.
pub(crate) fn inventory(
    nodes: Vec<InventoryNode>,
    timestamp: &str,
    format: Format,
    pretty: bool,
    emit: &mut dyn FnMut(&str) -> Result<(), Diags>,
) -> Result<(), Diags> {
    let header = mapping([("timestamp".into(), Node::str(timestamp.to_string()))]);
    let (classes, applications) = indexes(&nodes);
    match format {
        Format::Yaml => {
            let whole = tree(nodes, header, classes, applications);
            emit(&to_string(&whole, format, pretty)?)
        }
        Format::Json => streamed(&nodes, &header, &classes, &applications, pretty, emit),
    }
}

/// The `classes` and `applications` indexes: each name and its nodes.
fn indexes(nodes: &[InventoryNode]) -> (Node, Node) {
    let mut classes: Vec<(String, Vec<Node>)> = Vec::new();
    let mut applications: Vec<(String, Vec<Node>)> = Vec::new();
    let add = |index: &mut Vec<(String, Vec<Node>)>, key: &str, node: &str| {
        let n = Node::str(node.to_string());
        match index.iter_mut().find(|(k, _)| k == key) {
            Some((_, list)) => list.push(n),
            None => index.push((key.to_string(), vec![n])),
        }
    };
    for n in nodes {
        for c in &n.classes {
            add(&mut classes, c, &n.name);
        }
        for a in &n.applications {
            add(&mut applications, a, &n.name);
        }
    }
    let index = |i: Vec<(String, Vec<Node>)>| {
        mapping(
            i.into_iter()
                .map(|(k, v)| (k, Node::synthetic(Value::Seq(v)))),
        )
    };
    (index(classes), index(applications))
}

/// The whole document as one tree (the nodes made for YAML).
fn tree(nodes: Vec<InventoryNode>, header: Node, classes: Node, applications: Node) -> Node {
    let nodes = nodes.into_iter().map(|n| match n.body {
        Body::Tree(t) => (n.name, t),
        Body::Json(_) => (n.name, Node::synthetic(Value::Null)),
    });
    mapping([
        ("__reclass__".into(), header),
        ("nodes".into(), mapping(nodes)),
        ("classes".into(), classes),
        ("applications".into(), applications),
    ])
}

/// Serialises as reclass does: JSON with Python's separators and only
/// ASCII; YAML with sorted keys.
pub(crate) fn to_string(node: &Node, format: Format, pretty: bool) -> Result<String, Diag> {
    match format {
        Format::Json => {
            let mut text = json(node, pretty, 0)?;
            text.push('\n');
            Ok(text)
        }
        Format::Yaml => super::to_string(&sorted(node), Format::Yaml),
    }
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
    let (year, month, day, hour, minute, second) = crate::output::time::utc(secs);
    let days = secs.div_euclid(86_400);
    format!(
        "{} {} {day:>2} {:02}:{:02}:{:02} {year}",
        DAYS[days.rem_euclid(7) as usize],
        MONTHS[(month - 1) as usize],
        hour,
        minute,
        second
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

    /// The streamed JSON of `--inventory` is the text the whole tree gives,
    /// pretty and compact: nesting, empty maps and lists, escapes, non-ASCII.
    #[test]
    fn streamed_json_is_the_trees_json() {
        let params = [
            "a:\n  b: [1, {c: \"\u{e9}\\x7f\"}]\n  d: {}\n  e: []\n\"k\u{e9}y\\n\": x\n",
            "{}",
            "x: ~\n",
        ];
        let info = |i: usize| ReclassInfo {
            classes: vec!["common".into(), format!("c{}", i % 2)],
            applications: if i == 0 { vec![] } else { vec!["app".into()] },
            environment: "base".into(),
            exports: Node::synthetic(Value::Map(Map::new())),
        };
        let nodes = |format: Format, pretty: bool| -> Vec<InventoryNode> {
            params
                .iter()
                .enumerate()
                .map(|(i, text)| {
                    let source = crate::value::Source::new("t", text.to_string());
                    let p = crate::yaml::parse_any(&source, &Default::default()).unwrap();
                    let name = format!("n\u{e9}{i}");
                    let uri = "yaml_fs:///inv/nodes/n.yml";
                    InventoryNode::new(&name, uri, p, info(i), "T", format, pretty).unwrap()
                })
                .collect()
        };
        for pretty in [true, false] {
            let mut streamed = String::new();
            let mut emit = |piece: &str| {
                streamed.push_str(piece);
                Ok(())
            };
            inventory(
                nodes(Format::Json, pretty),
                "T",
                Format::Json,
                pretty,
                &mut emit,
            )
            .unwrap();
            let trees = nodes(Format::Yaml, pretty);
            let (classes, applications) = indexes(&trees);
            let header = mapping([("timestamp".into(), Node::str("T".to_string()))]);
            let whole = tree(trees, header, classes, applications);
            assert_eq!(streamed, to_string(&whole, Format::Json, pretty).unwrap());
        }
        let mut none = String::new();
        let mut emit = |piece: &str| {
            none.push_str(piece);
            Ok(())
        };
        inventory(Vec::new(), "T", Format::Json, true, &mut emit).unwrap();
        assert!(none.contains("\"nodes\": {},\n"), "{none}");
    }
}
