//! Every class file of `_classes/`, for the check that each one is used.

use std::path::Path;

use crate::inventory::{Inventory, LevelFile};

/// The deepest folder under `_classes/` that is listed.
const MAX_DEPTH: usize = 32;

/// Each `.yml` or `.yaml` file under `_classes/` with its class name (a
/// folder's `init.yml` names the folder), sorted by path. Links to folders
/// are not followed.
pub(crate) fn list(inventory: &Inventory) -> Vec<(String, LevelFile)> {
    let mut out = Vec::new();
    if let Some(dir) = &inventory.classes_dir {
        walk(&dir.path, "", dir, 0, &mut out);
    }
    out.sort_by(|a, b| a.1.rel.cmp(&b.1.rel));
    out
}

/// Every file of the inventory a chain can read: `_default`, the domains,
/// the groups, the hosts and jails, then the class files, in that order.
pub(crate) fn every(inventory: &Inventory) -> Vec<LevelFile> {
    let mut all = vec![inventory.default.clone()];
    all.extend(inventory.domains.iter().map(|d| d.file.clone()));
    all.extend(inventory.groups.iter().filter_map(|g| g.file.clone()));
    all.extend(inventory.hosts.iter().map(|h| h.file.clone()));
    all.extend(list(inventory).into_iter().map(|(_, f)| f));
    all
}

fn walk(
    path: &Path,
    under: &str,
    dir: &LevelFile,
    depth: usize,
    out: &mut Vec<(String, LevelFile)>,
) {
    let Ok(entries) = std::fs::read_dir(path) else {
        return;
    };
    for entry in entries.flatten() {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        let rel = if under.is_empty() {
            name.clone()
        } else {
            format!("{under}/{name}")
        };
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if depth < MAX_DEPTH {
                walk(&entry.path(), &rel, dir, depth + 1, out);
            }
            continue;
        }
        let Some(stem) = name
            .strip_suffix(".yml")
            .or_else(|| name.strip_suffix(".yaml"))
        else {
            continue;
        };
        if !entry.path().is_file() {
            continue;
        }
        let class = match (stem, under) {
            ("init", "") => continue,
            ("init", folder) => folder.replace('/', "."),
            (stem, "") => stem.to_string(),
            (stem, folder) => format!("{}.{stem}", folder.replace('/', ".")),
        };
        out.push((
            class,
            LevelFile {
                path: entry.path(),
                rel: format!("{}/{rel}", dir.rel),
                display: format!("{}/{rel}", dir.display),
            },
        ));
    }
}
