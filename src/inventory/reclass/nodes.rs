//! The nodes of a reclass inventory: every `.yml`/`.yaml` file under
//! nodes_uri at any depth, walked in sorted order (kapicorp walks in
//! directory order; sorted is beryl's deterministic choice), with reclass's
//! names (survey §6 "Node names").

use std::collections::HashMap;
use std::path::Path;

use super::Code;
use crate::diag::{Diag, Diags};
use crate::inventory::{Host, LevelFile};

/// The deepest folder walked (a guard against link loops).
const MAX_DEPTH: usize = 64;

/// Folders reclass does not walk, besides hidden ones.
const SKIPPED: &[&str] = &["CVS", "SCCS"];

/// Every node under `dir`, sorted by name. Two files giving one name are an
/// error naming both.
pub(super) fn walk(dir: &LevelFile, compose: bool) -> Result<Vec<Host>, Diags> {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    list(&dir.path, &mut Vec::new(), &mut files, &mut errors);
    let mut hosts: Vec<Host> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (folders, stem, rel) in files {
        let name = node_name(&folders, &stem, compose);
        let file = LevelFile {
            path: dir.path.join(&rel),
            rel: format!("{}/{rel}", dir.rel),
            display: format!("{}/{rel}", dir.display),
        };
        if let Some(&i) = seen.get(&name) {
            errors.push(
                Diag::new(
                    Code::DuplicateNode,
                    format!(
                        "the node `{name}` is defined twice: by {} and by {}",
                        hosts[i].file.display, file.display
                    ),
                )
                .help("a node is defined once per inventory: rename or remove one file"),
            );
            continue;
        }
        seen.insert(name.clone(), hosts.len());
        hosts.push(Host {
            short: name.clone(),
            domain: String::new(),
            group: None,
            fqdn: name,
            file,
            parent: None,
        });
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    hosts.sort_by(|a, b| a.fqdn.cmp(&b.fqdn));
    Ok(hosts)
}

/// reclass's node name (kapicorp `storage/common.py`): the bare stem, or with
/// compose_node_name the folders and the stem joined by dots, unless the
/// first folder starts with `_`.
pub(crate) fn node_name(folders: &[String], stem: &str, compose: bool) -> String {
    match folders.first() {
        Some(first) if compose && !first.starts_with('_') => {
            format!("{}.{stem}", folders.join("."))
        }
        _ => stem.to_string(),
    }
}

/// The stem of a YAML file name.
pub(crate) fn strip_yaml(name: &str) -> Option<&str> {
    name.strip_suffix(".yml")
        .or_else(|| name.strip_suffix(".yaml"))
        .filter(|s| !s.is_empty())
}

type Found = Vec<(Vec<String>, String, String)>;

fn list(dir: &Path, folders: &mut Vec<String>, out: &mut Found, errors: &mut Diags) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(Diag::new(
                Code::Io,
                format!("cannot list {}: {e}", dir.display()),
            ));
            return;
        }
    };
    // The listing's own file types (no system call each; a 1k-node
    // inventory had 2,000 `stat`s on the main thread); a link, or a type the
    // file system does not give, is followed as before.
    let mut names: Vec<(String, Option<std::fs::FileType>)> = entries
        .flatten()
        .filter_map(|e| {
            let kind = e.file_type().ok().filter(|t| !t.is_symlink());
            e.file_name().into_string().ok().map(|n| (n, kind))
        })
        .collect();
    names.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, kind) in names {
        let path = dir.join(&name);
        let is_dir = kind.map_or_else(|| path.is_dir(), |t| t.is_dir());
        let is_file = || kind.map_or_else(|| path.is_file(), |t| t.is_file());
        if is_dir {
            if name.starts_with('.') || SKIPPED.contains(&name.as_str()) {
                continue;
            }
            if folders.len() < MAX_DEPTH {
                folders.push(name);
                list(&path, folders, out, errors);
                folders.pop();
            }
        } else if let Some(stem) = strip_yaml(&name)
            && is_file()
        {
            let mut rel = folders.join("/");
            if !rel.is_empty() {
                rel.push('/');
            }
            rel.push_str(&name);
            out.push((folders.clone(), stem.to_string(), rel));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    /// Expected names from kapicorp-reclass 2.0 on reclass-rs's
    /// inventory-compose-node-name (survey §6 "Node names").
    #[test]
    fn names_as_kapicorp_gives_them() {
        assert_eq!(node_name(&v(&["c", "_c"]), "1", true), "c._c.1");
        assert_eq!(node_name(&v(&["_d", "d"]), "d2", true), "d2");
        assert_eq!(node_name(&v(&["b"]), "1", true), "b.1");
        assert_eq!(node_name(&v(&[]), "a.1", true), "a.1");
        assert_eq!(node_name(&v(&["b"]), "1", false), "1");
        assert_eq!(
            node_name(&v(&["x", "y"]), "web01.example.org", false),
            "web01.example.org"
        );
    }

    #[test]
    fn duplicates_name_both_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a")).unwrap();
        std::fs::create_dir_all(dir.path().join("b")).unwrap();
        std::fs::write(dir.path().join("a/n.yml"), "").unwrap();
        std::fs::write(dir.path().join("b/n.yaml"), "").unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/h.yml"), "").unwrap();
        let nodes = LevelFile {
            path: dir.path().to_path_buf(),
            rel: "nodes".into(),
            display: "inv/nodes".into(),
        };
        let e = walk(&nodes, false).unwrap_err();
        assert_eq!(e.len(), 1);
        assert!(
            e[0].message.contains("inv/nodes/a/n.yml"),
            "{}",
            e[0].message
        );
        assert!(
            e[0].message.contains("inv/nodes/b/n.yaml"),
            "{}",
            e[0].message
        );
        let hosts = walk(&nodes, true).unwrap();
        let names: Vec<&str> = hosts.iter().map(|h| h.fqdn.as_str()).collect();
        assert_eq!(names, ["a.n", "b.n"]);
    }
}
