//! The converter: a beryl inventory that uses classes, references, `~`/`=`
//! prefixes, exports and queries, as the equivalent reclass inventory.
//!
//! - Each level file becomes a class `beryl_levels.…` whose `classes` are the
//!   level's and whose `parameters` are its data; a host becomes
//!   `nodes/<fqdn>.yml`, naming its chain's level classes, then its own
//!   classes. reclass's walk (a class's classes first, each class once, the
//!   node last) then merges exactly beryl's chain.
//! - `_classes/` files become `classes/` files (init.yml kept).
//! - `exports:` stays a top-level section; `freebsd`, `ssh_keys` and `merge`
//!   are dropped (the comparison leaves them out; the differential's
//!   `_default.yml` sets `concat` everywhere, reclass's list rule).
//! - Paths: `${a.b}` becomes `${a:b}`, `exports.x` in a query `exports:x`.
//! - `beryl.yml`'s options become reclass settings.
//!
//! Files are written as JSON, which reclass's YAML loader reads.

use std::fs;
use std::path::Path;

use beryl::inventory::{Inventory, LevelFile};
use beryl::value::{Node, Value};
use serde_json::{Map, Value as J, json};

/// Writes the reclass inventory of `inv` under `out` (nodes/ and classes/)
/// and returns the reclass settings.
pub fn convert(inv: &Inventory, out: &Path) -> J {
    let classes = out.join("classes");
    let nodes = out.join("nodes");
    fs::create_dir_all(&nodes).unwrap();
    let mut levels = vec![(inv.default.clone(), "beryl_levels.default".to_string())];
    for d in &inv.domains {
        levels.push((
            d.file.clone(),
            format!("beryl_levels.domains.{}", mangle(&d.name)),
        ));
    }
    for g in &inv.groups {
        if let Some(f) = &g.file {
            let name = format!("beryl_levels.groups.{}.{}", mangle(&g.domain), g.name);
            levels.push((f.clone(), name));
        }
    }
    for (file, name) in &levels {
        let body = document(file, &[]);
        write(
            &classes.join(format!("{}.yml", name.replace('.', "/"))),
            &body,
        );
    }
    if let Some(dir) = &inv.classes_dir {
        copy_classes(&dir.path, &dir.path, &classes);
    }
    for host in &inv.hosts {
        let mut chain: Vec<String> = vec!["beryl_levels.default".into()];
        chain.push(format!("beryl_levels.domains.{}", mangle(&host.domain)));
        if let Some(g) = &host.group
            && inv.group(&host.domain, g).is_some_and(|g| g.file.is_some())
        {
            chain.push(format!("beryl_levels.groups.{}.{g}", mangle(&host.domain)));
        }
        let body = document(&host.file, &chain);
        write(&nodes.join(format!("{}.yml", host.fqdn)), &body);
    }
    settings(inv)
}

fn mangle(domain: &str) -> String {
    domain.replace(['.', '-'], "_")
}

fn write(path: &Path, body: &J) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, serde_json::to_string_pretty(body).unwrap()).unwrap();
}

fn load(path: &Path) -> Node {
    let text = fs::read_to_string(path).unwrap();
    let source = beryl::value::Source::new(path.display().to_string(), text);
    beryl::yaml::parse(&source, &Default::default()).expect("a level parses")
}

/// A level or class as a reclass document; `before` are classes listed
/// ahead of the document's own.
fn document(file: &LevelFile, before: &[String]) -> J {
    convert_node(&load(&file.path), before)
}

fn convert_node(node: &Node, before: &[String]) -> J {
    let mut classes: Vec<String> = before.to_vec();
    let mut parameters = Map::new();
    let mut exports = None;
    for (key, entry) in node.as_map().into_iter().flatten() {
        match key.as_str() {
            "classes" => classes.extend(
                entry
                    .node
                    .as_seq()
                    .unwrap_or_default()
                    .iter()
                    .map(|n| path_syntax(n.as_str().unwrap_or_default())),
            ),
            "exports" => exports = Some(value(&entry.node)),
            "merge" | "freebsd" | "ssh_keys" => {}
            _ => {
                parameters.insert(key.clone(), value(&entry.node));
            }
        }
    }
    let mut doc = Map::new();
    doc.insert("classes".into(), json!(classes));
    doc.insert("parameters".into(), J::Object(parameters));
    if let Some(e) = exports {
        doc.insert("exports".into(), e);
    }
    J::Object(doc)
}

fn copy_classes(root: &Path, dir: &Path, out: &Path) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            copy_classes(root, &path, out);
            continue;
        }
        let rel = path.strip_prefix(root).unwrap().with_extension("yml");
        let body = convert_node(&load(&path), &[]);
        write(&out.join(rel), &body);
    }
}

/// A value with beryl's path syntax turned into reclass's.
fn value(n: &Node) -> J {
    match &n.value {
        Value::Null => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::Int(i) => J::from(*i),
        Value::Float(f) => J::from(*f),
        Value::Str(s) => J::String(path_syntax(s)),
        Value::Seq(items) => J::Array(items.iter().map(value).collect()),
        Value::Map(m) => J::Object(m.iter().map(|(k, e)| (k.clone(), value(&e.node))).collect()),
    }
}

/// `${a.b}` → `${a:b}` (nested references too) and, in a `$[ … ]` query,
/// `exports.x.y` → `exports:x:y`. Escapes are the same in both.
pub fn path_syntax(s: &str) -> String {
    if let Some(inner) = s.strip_prefix("$[").and_then(|r| r.strip_suffix(']')) {
        let words: Vec<String> = inner
            .split(' ')
            .map(|w| {
                if w.starts_with("exports.") {
                    w.replace('.', ":")
                } else {
                    w.to_string()
                }
            })
            .collect();
        return format!("$[{}]", words.join(" "));
    }
    let mut out = String::new();
    let mut depth = 0usize;
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"\\${") {
            out.push_str("\\${");
            i += 3;
        } else if bytes[i..].starts_with(b"${") {
            out.push_str("${");
            depth += 1;
            i += 2;
        } else {
            let c = s[i..].chars().next().unwrap();
            match c {
                '}' if depth > 0 => depth -= 1,
                '.' if depth > 0 => {
                    out.push(':');
                    i += 1;
                    continue;
                }
                _ => {}
            }
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn settings(inv: &Inventory) -> J {
    let Some(file) = &inv.settings else {
        return json!({});
    };
    let node = load(&file.path);
    let mut out = Map::new();
    for (k, e) in node.as_map().into_iter().flatten() {
        out.insert(k.clone(), value(&e.node));
    }
    J::Object(out)
}

#[test]
fn paths_convert() {
    assert_eq!(
        path_syntax("${a.b} and ${c.${d.e}}"),
        "${a:b} and ${c:${d:e}}"
    );
    assert_eq!(path_syntax("x.y \\${a.b}"), "x.y \\${a.b}");
    assert_eq!(
        path_syntax("$[ exports.ip if exports.a.b == x.y ]"),
        "$[ exports:ip if exports:a:b == x.y ]"
    );
}
