//! Classes under the reclass flavor: the class files' names (kapicorp
//! `storage/common.py`), relative class names (`yamldata.py:56-81`), and a
//! reclass file split into its classes, parameters, applications, exports
//! and environment (`yamldata.py:83-108`). Survey §6.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::{ClassedDoc, Code};
use crate::diag::{Diag, Diags};
use crate::inventory::LevelFile;
use crate::value::{Entry, Map, Node, Span, Value};

/// The top-level keys of a reclass file; any other is ignored with a warning.
pub(crate) const KEYS: &[&str] = &[
    "classes",
    "applications",
    PARAMETERS,
    "exports",
    "environment",
];

/// The key of a reclass file whose mapping is the data merged: a node's
/// config is its parameters.
pub(crate) const PARAMETERS: &str = "parameters";

/// The deepest folder of classes walked (a guard against link loops).
const MAX_DEPTH: usize = 64;

/// Every class file under `dir` by its class name: `a/b.yml` is `a.b`,
/// `a/init.yml` is `a`, a top-level `init.yml` is `init`, `a.b.yml` is
/// `a.b`. Two files of one name are an error naming both.
pub(crate) fn index(dir: &LevelFile) -> Result<HashMap<String, LevelFile>, Diags> {
    let mut found = Vec::new();
    walk(&dir.path, "", 0, &mut found);
    found.sort_by(|a, b| a.1.cmp(&b.1));
    let mut out: HashMap<String, LevelFile> = HashMap::new();
    let mut errors = Vec::new();
    for (name, rel) in found {
        let file = LevelFile {
            path: dir.path.join(&rel),
            rel: format!("{}/{rel}", dir.rel),
            display: format!("{}/{rel}", dir.display),
        };
        if let Some(first) = out.get(&name) {
            errors.push(
                Diag::new(
                    Code::Duplicate,
                    format!(
                        "the class `{name}` is defined twice: by {} and by {}",
                        first.display, file.display
                    ),
                )
                .help("keep one file per class"),
            );
            continue;
        }
        out.insert(name, file);
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// A class file's name from its folder (`a/b`, or empty at the top) and stem.
pub(crate) fn class_name(folder: &str, stem: &str) -> String {
    match (folder, stem) {
        ("", stem) => stem.to_string(),
        (folder, "init") => folder.replace('/', "."),
        (folder, stem) => format!("{}.{stem}", folder.replace('/', ".")),
    }
}

fn walk(dir: &Path, folder: &str, depth: usize, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let rel = if folder.is_empty() {
            name.clone()
        } else {
            format!("{folder}/{name}")
        };
        let path = entry.path();
        if path.is_dir() {
            if !name.starts_with('.')
                && !matches!(name.as_str(), "CVS" | "SCCS")
                && depth < MAX_DEPTH
            {
                walk(&path, &rel, depth + 1, out);
            }
        } else if let Some(stem) = name
            .strip_suffix(".yml")
            .or_else(|| name.strip_suffix(".yaml"))
            .filter(|s| !s.is_empty())
            && path.is_file()
        {
            out.push((class_name(folder, stem), rel));
        }
    }
}

/// A class name as written in the entity `entity` (a class name, or a node
/// name), made absolute: `n` leading dots go `n` levels up the entity's
/// dotted name (`.x` in `a.b` is `a.x`); past the top, the dots are dropped.
pub(crate) fn absolute(entity: &str, name: &str) -> String {
    let dots = name.chars().take_while(|&c| c == '.').count();
    if dots == 0 {
        return name.to_string();
    }
    let parts: Vec<&str> = entity.split('.').collect();
    let keep = parts.len().saturating_sub(dots);
    let parent = parts[..keep].join(".");
    if parent.is_empty() {
        name[dots..].to_string()
    } else {
        format!("{parent}{}", &name[dots - 1..])
    }
}

/// Why `name` is not a reclass class name: any character but a space or `/`
/// (kapicorp `datatypes/classes.py`).
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the name is empty".into());
    }
    match name.chars().find(|c| matches!(c, ' ' | '/')) {
        Some(c) => Err(format!("{c:?} is not allowed in a class name")),
        None => Ok(()),
    }
}

/// Splits a reclass file of the entity `entity`: its classes (relative names
/// made absolute), its parameters (the data merged), applications, exports
/// and environment. Other top-level keys give a warning.
pub(crate) fn split(node: &Arc<Node>, entity: &str) -> Result<ClassedDoc, Diags> {
    let empty = || Arc::new(Node::new(Value::Map(Map::new()), node.span.clone()));
    let mut doc = ClassedDoc {
        data: empty(),
        ..ClassedDoc::empty()
    };
    let Some(root) = node.as_map() else {
        return Ok(doc);
    };
    let mut errors = Vec::new();
    for (key, entry) in root {
        let n = &entry.node;
        match (key.as_str(), &n.value) {
            (_, Value::Null) => {}
            ("classes", Value::Seq(items)) => {
                for item in items {
                    match item.as_str() {
                        Some(s) => doc.classes.push(Node::new(
                            Value::Str(absolute(entity, s)),
                            item.span.clone(),
                        )),
                        None => errors.push(not_a(item, "a class name is a string")),
                    }
                }
            }
            ("applications", Value::Seq(items)) => {
                for item in items {
                    match item.as_str() {
                        Some(s) => doc.applications.push(s.to_string()),
                        None => errors.push(not_a(item, "an application is a string")),
                    }
                }
            }
            ("parameters", Value::Map(_)) => {
                let data = Arc::new(n.clone());
                doc.queries = crate::syntax::query::mentions_query(&data);
                doc.asks = doc.queries && crate::syntax::query::asks(&data);
                doc.data = data;
            }
            ("exports", Value::Map(_)) => doc.exports = Some(Arc::new(n.clone())),
            ("environment", Value::Str(s)) => doc.environment = Some(s.clone()),
            ("classes" | "applications", _) => errors.push(not_a(n, "expected a list")),
            ("parameters" | "exports", _) => errors.push(not_a(n, "expected a mapping")),
            ("environment", _) => errors.push(not_a(n, "expected a string")),
            (other, _) => doc.warnings.push(
                Diag::warning(
                    Code::UnknownKey,
                    format!("`{other}` is not a key of a reclass file: ignored, as reclass does"),
                )
                .label(&entry.key_span, "ignored")
                .help(format!(
                    "the keys of a reclass file are: {}",
                    KEYS.join(", ")
                )),
            ),
        }
    }
    // The exports go with the data, under `exports`, as in beryl's own
    // layout: their references resolve against the parameters, and the
    // compile takes them out (exports::take).
    if let Some(exports) = doc.exports.clone() {
        let mut data = doc.data.as_map().cloned().unwrap_or_default();
        data.insert(
            crate::syntax::root::EXPORTS.to_string(),
            Entry {
                key_span: Span::synthetic(),
                node: (*exports).clone(),
            },
        );
        doc.data = Arc::new(Node::new(Value::Map(data), doc.data.span.clone()));
    }
    if errors.is_empty() {
        Ok(doc)
    } else {
        Err(errors)
    }
}

fn not_a(n: &Node, what: &str) -> Diag {
    Diag::new(
        Code::NotAName,
        format!("{what}, found {}", n.value.type_name()),
    )
    .label(&n.span, "this value")
}

/// reclass's help for a missing class: its file under classes_uri (or a
/// class document of a single-file inventory), or reclass's own ways of
/// skipping missing classes (`-z`, or the config file's
/// `ignore_class_notfound`; kapicorp-reclass 2.0 `reclass/config.py`
/// `make_db_options_group`).
pub(super) fn missing_help(inventory: &crate::inventory::Inventory, name: &str) -> String {
    let skip = "or skip missing classes with -z (--ignore-class-notfound) or `ignore_class_notfound: true` in the reclass config file";
    match &inventory.classes_dir {
        Some(dir) => {
            let base = name.replace('.', "/");
            format!(
                "create {}/{base}.yml (or {base}/init.yml), {skip}",
                dir.display
            )
        }
        None => format!(
            "add a document `name: {name}` of `type: class` to {}, {skip}",
            inventory.default.display
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values from kapicorp-reclass 2.0 (survey §6 "Relative class
    /// names"; kr-data-02 and a probe inventory).
    #[test]
    fn relative_names_follow_the_entity_name() {
        assert_eq!(absolute("one.alpha", ".beta"), "one.beta");
        assert_eq!(absolute("one.alpha", "..four"), "four");
        assert_eq!(absolute("one.alpha", "..init"), "init");
        assert_eq!(absolute("relative", ".nested"), "nested");
        assert_eq!(absolute("web01.example.org", ".rel"), "web01.example.rel");
        assert_eq!(absolute("a.b.c", "..x.y"), "a.x.y");
        assert_eq!(absolute("a.b", "plain.name"), "plain.name");
    }

    #[test]
    fn file_names() {
        assert_eq!(class_name("", "init"), "init");
        assert_eq!(class_name("a", "init"), "a");
        assert_eq!(class_name("a/b", "c"), "a.b.c");
        assert_eq!(class_name("", "example.org"), "example.org");
        assert_eq!(class_name("hosted", "x@munich"), "hosted.x@munich");
    }

    #[test]
    fn names_allow_at_and_dollar() {
        assert!(check_name("hosted@munich").is_ok());
        assert!(check_name("${baz}").is_ok());
        assert!(check_name("a b").is_err());
        assert!(check_name("a/b").is_err());
    }

    #[test]
    fn split_takes_parameters_and_warns_on_other_keys() {
        let text = "classes: [.x, y]\napplications: [a, ~b]\nparameters: {k: 1}\nenvironment: dev\nfoo: 1\n";
        let source = crate::value::Source::new("c.yml", text);
        let node = Arc::new(crate::yaml::parse(&source, &crate::yaml::Limits::default()).unwrap());
        let doc = split(&node, "one.two").unwrap();
        let names: Vec<&str> = doc.classes.iter().filter_map(|n| n.as_str()).collect();
        assert_eq!(names, ["one.x", "y"]);
        assert_eq!(doc.applications, ["a", "~b"]);
        assert!(doc.data.get("k").is_some());
        assert_eq!(doc.environment.as_deref(), Some("dev"));
        assert_eq!(doc.warnings.len(), 1);
        assert_eq!(doc.warnings[0].code, "beryl::classes::unknown_key");
    }
}
