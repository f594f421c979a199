//! The module layers of docs/architecture.md hold in the code: every `crate::`
//! path of production code (test modules left out) names a top-level module
//! listed above its own in the document's table, so there is no cycle and no
//! stage reads a later one; every module of src/ has a row, and every row a
//! module.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const DOC: &str = "docs/architecture.md";

/// The `module` column of the layer table, in order.
fn layers() -> Vec<String> {
    let text = fs::read_to_string(DOC).expect("docs/architecture.md");
    let mut rows = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        let cells: Vec<&str> = line
            .trim()
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .collect();
        if cells.len() >= 2 && cells[0] == "layer" && cells[1] == "module" {
            in_table = true;
            continue;
        }
        if !in_table {
            continue;
        }
        if !line.trim_start().starts_with('|') {
            break;
        }
        if let Some(name) = cells[1].strip_prefix('`').and_then(|c| c.strip_suffix('`')) {
            rows.push(name.to_string());
        }
    }
    assert!(!rows.is_empty(), "{DOC} has no `| layer | module |` table");
    rows
}

/// Removes every `#[cfg(test)]` item (a `mod tests { … }` or a function) and
/// every comment, so that only production code is read.
fn production(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let Some(end) = after.find([';', '{']) else {
            rest = "";
            break;
        };
        if after.as_bytes()[end] == b';' {
            rest = &after[end + 1..];
            continue;
        }
        let mut depth = 0usize;
        let mut close = after.len();
        for (i, c) in after[end..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = end + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[close..];
    }
    out.push_str(rest);
    out.lines()
        .map(|l| l.find("//").map_or(l, |i| &l[..i]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The files of modules declared `#[cfg(test)] mod NAME;` (and everything
/// under a directory module of that name).
fn test_files(src: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for file in rust_files(src) {
        let text = fs::read_to_string(&file).unwrap();
        let dir = match file.file_name().and_then(|n| n.to_str()) {
            Some("mod.rs" | "lib.rs" | "main.rs") => file.parent().unwrap().to_path_buf(),
            _ => file.with_extension(""),
        };
        let mut rest = text.as_str();
        while let Some(at) = rest.find("#[cfg(test)]") {
            rest = &rest[at + "#[cfg(test)]".len()..];
            let item = rest.trim_start();
            let item = item.strip_prefix("pub(crate) ").unwrap_or(item);
            let Some(decl) = item.strip_prefix("mod ") else {
                continue;
            };
            let Some(name) = decl.split(';').next().filter(|n| !n.contains('{')) else {
                continue;
            };
            let name = name.trim();
            out.insert(dir.join(format!("{name}.rs")));
            out.extend(rust_files(&dir.join(name)));
        }
    }
    out
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The top-level modules a piece of code names after `crate::`, including
/// each first name of a `crate::{a, b::c}` group.
fn named_modules(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let bytes = code.as_bytes();
    for (at, _) in code.match_indices("crate::") {
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let mut paths = Vec::new();
        segments(&code[at + "crate::".len()..], Vec::new(), &mut paths);
        out.extend(paths.into_iter().filter_map(|p| p.into_iter().next()));
    }
    out
}

fn first_word(s: &str) -> Option<String> {
    let word: String = s
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!word.is_empty()).then_some(word)
}

/// Every production edge between top-level modules, with the files that make it.
fn edges() -> BTreeMap<(String, String), BTreeSet<String>> {
    let src = Path::new("src");
    let tests = test_files(src);
    let mut out: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(src) {
        if tests.contains(&file) {
            continue;
        }
        let rel = file
            .strip_prefix(src)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let top = rel
            .split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_string();
        if top == "lib" || top == "main" {
            continue;
        }
        let code = production(&fs::read_to_string(&file).unwrap());
        for module in named_modules(&code) {
            if module != top {
                out.entry((top.clone(), module))
                    .or_default()
                    .insert(rel.clone());
            }
        }
    }
    out
}

fn top_level_modules() -> BTreeSet<String> {
    fs::read_dir("src")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            match p.is_dir() {
                true => Some(name),
                false => name.strip_suffix(".rs").map(str::to_string),
            }
        })
        .filter(|n| n != "lib" && n != "main")
        .collect()
}

#[test]
fn every_module_has_a_row_and_every_row_a_module() {
    let rows: BTreeSet<String> = layers().into_iter().collect();
    let modules = top_level_modules();
    let unlisted: Vec<_> = modules.difference(&rows).collect();
    let gone: Vec<_> = rows.difference(&modules).collect();
    assert!(
        unlisted.is_empty() && gone.is_empty(),
        "{DOC}'s layer table is out of date: modules without a row {unlisted:?}, rows without a module {gone:?}"
    );
}

#[test]
fn no_module_imports_one_listed_after_it() {
    let order: BTreeMap<String, usize> = layers()
        .into_iter()
        .enumerate()
        .map(|(i, m)| (m, i))
        .collect();
    let mut wrong = Vec::new();
    for ((from, to), files) in edges() {
        let (Some(a), Some(b)) = (order.get(&from), order.get(&to)) else {
            continue; // the table test names modules without a row
        };
        if b >= a {
            let files: Vec<_> = files.into_iter().collect();
            wrong.push(format!("{from} -> {to} ({})", files.join(", ")));
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that run up {DOC}'s layer table (each module may import only rows above it):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_scanner_sees_imports_and_skips_tests() {
    let code = production(
        "use crate::{a::B, c};\nfn f() { crate::d::e(); } // crate::comment\n\
         #[cfg(test)]\nmod tests { use crate::hidden; }\n#[cfg(test)]\nmod more;\n",
    );
    let names: Vec<String> = named_modules(&code).into_iter().collect();
    assert_eq!(names, ["a", "c", "d"]);
}

/// The module paths a piece of code names from `crate::` or `super::` (each
/// item of a `{…}` group, nested groups included), resolved against the
/// module `here` (`["resource", "user"]` for src/resource/user.rs).
fn module_paths(code: &str, here: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for start in ["crate::", "super::"] {
        for (at, _) in code.match_indices(start) {
            if at > 0
                && (bytes[at - 1].is_ascii_alphanumeric()
                    || bytes[at - 1] == b'_'
                    || bytes[at - 1] == b':')
            {
                continue; // part of a longer path, counted from its start
            }
            let mut base: Vec<String> = match start {
                "crate::" => Vec::new(),
                _ => here[..here.len().saturating_sub(1)].to_vec(),
            };
            let mut rest = &code[at + start.len()..];
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop();
                rest = r;
            }
            segments(rest, base, &mut out);
        }
    }
    out
}

/// Reads `a::b::{c, d::e}` after a prefix into full paths.
fn segments(text: &str, mut path: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut rest = text.trim_start();
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0usize;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        segments(&item, path.clone(), out);
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            segments(&item, path, out);
            return;
        }
        let Some(word) = first_word(rest) else {
            out.push(path);
            return;
        };
        rest = &rest.trim_start()[word.len()..];
        if word != "self" {
            path.push(word);
        }
        match rest.strip_prefix("::") {
            Some(r) => rest = r,
            None => {
                out.push(path);
                return;
            }
        }
    }
}

/// The module path of a file of src/ (`resource/user.rs` → `resource::user`,
/// `resource/mod.rs` → `resource`).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// Within each module, the files beside one another (a child module's
/// folder counts as one) import each other without a circle: the module's
/// own `mod.rs` declares them and is left out, test modules too.
#[test]
fn no_circle_between_the_files_of_a_module() {
    let src = Path::new("src");
    let tests = test_files(src);
    // (module, sibling) -> siblings it names.
    let mut graph: BTreeMap<(Vec<String>, String), BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(src) {
        if tests.contains(&file) {
            continue;
        }
        let rel = file.strip_prefix(src).unwrap();
        let here = module_of(rel);
        if here.is_empty() || matches!(here[0].as_str(), "lib" | "main") {
            continue;
        }
        let code = production(&fs::read_to_string(&file).unwrap());
        // Every ancestor module in which this file belongs to a sibling node.
        for depth in 1..here.len() {
            let (parent, node) = (&here[..depth], &here[depth]);
            for path in module_paths(&code, &here) {
                if path.len() > depth && path[..depth] == *parent && path[depth] != *node {
                    graph
                        .entry((parent.to_vec(), node.clone()))
                        .or_default()
                        .insert(path[depth].clone());
                }
            }
        }
    }
    // The siblings of each module that exist as files or folders.
    let exists = |parent: &[String], name: &str| {
        let dir = src.join(parent.join("/"));
        dir.join(format!("{name}.rs")).is_file() || dir.join(name).is_dir()
    };
    let mut circles = Vec::new();
    for ((parent, node), names) in &graph {
        for name in names {
            if !exists(parent, name) {
                continue;
            }
            // A path back from `name` to `node` among the siblings.
            let mut seen = BTreeSet::new();
            let mut stack = vec![vec![name.clone()]];
            while let Some(trail) = stack.pop() {
                let last = trail.last().unwrap().clone();
                if last == *node {
                    circles.push(format!(
                        "{}: {node} -> {}",
                        parent.join("::"),
                        trail.join(" -> ")
                    ));
                    break;
                }
                if !seen.insert(last.clone()) {
                    continue;
                }
                for next in graph.get(&(parent.clone(), last)).into_iter().flatten() {
                    if exists(parent, next) {
                        let mut t = trail.clone();
                        t.push(next.clone());
                        stack.push(t);
                    }
                }
            }
        }
    }
    circles.sort();
    circles.dedup();
    assert!(
        circles.is_empty(),
        "files of one module that import each other in a circle:\n{circles:#?}"
    );
}

#[test]
fn the_path_scanner_resolves_super_and_groups() {
    let here: Vec<String> = ["resource", "user"].iter().map(|s| s.to_string()).collect();
    let code = "use super::{Input, state::State, verdict::{Verdict, change}};\nuse crate::shell::word;\nsuper::super::x::y();";
    let paths: Vec<String> = module_paths(code, &here)
        .iter()
        .map(|p| p.join("::"))
        .collect();
    assert!(
        paths.contains(&"resource::state::State".to_string()),
        "{paths:?}"
    );
    assert!(
        paths.contains(&"resource::verdict::change".to_string()),
        "{paths:?}"
    );
    assert!(paths.contains(&"shell::word".to_string()), "{paths:?}");
    assert!(paths.contains(&"x::y".to_string()), "{paths:?}");
}

/// Every resource kind of the `kinds!` list has a row in the registry
/// (`KINDS`) and a section in docs/resources.md's table of kinds.
#[test]
fn every_resource_kind_is_registered_and_documented() {
    let code = fs::read_to_string("src/resource/mod.rs").unwrap();
    let list = code
        .split("\nkinds! {\n")
        .nth(1)
        .and_then(|s| s.split("\n}\n").next())
        .expect("the kinds! list in src/resource/mod.rs");
    let modules: Vec<&str> = list
        .lines()
        .filter_map(|l| l.trim().split_once('(')?.1.split("::").next())
        .collect();
    assert!(modules.len() >= 16, "{modules:?}");
    let registry = code
        .split("pub(crate) const KINDS: &[Row] = &[")
        .nth(1)
        .and_then(|s| s.split("\n];").next())
        .expect("KINDS in src/resource/mod.rs");
    let docs = fs::read_to_string("docs/resources.md").unwrap();
    let mut missing = Vec::new();
    for m in &modules {
        if !registry.contains(&format!("row::<{m}::")) {
            missing.push(format!("{m}: no row in KINDS"));
        }
        let text = fs::read_to_string(format!("src/resource/{m}.rs")).unwrap();
        let name = text
            .split("const NAME: &'static str = \"")
            .nth(1)
            .and_then(|s| s.split('"').next())
            .unwrap_or_else(|| panic!("src/resource/{m}.rs names no kind"));
        if !docs.contains(&format!("| `{name}` | [src/resource/{m}.rs]")) {
            missing.push(format!(
                "{name}: no row `| `{name}` | [src/resource/{m}.rs](…) |` in docs/resources.md"
            ));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
