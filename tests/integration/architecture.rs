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
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0usize;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.extend(first_word(&item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            out.extend(first_word(&item));
        } else {
            out.extend(first_word(rest));
        }
    }
    out.remove("self");
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
