//! An inventory tree known from a listing of its files (a git revision's
//! `ls-tree`) rather than from the disk: discovery walks it as it walks a
//! directory (`Inventory::discover_listed`, discover.rs), so that the layout
//! is checked on every file without one being written (`beryl diff git:A
//! git:B`, src/cli/diff/side.rs).

use std::collections::{BTreeMap, BTreeSet};

/// Each directory's entries, by the directory's path relative to the root
/// (`""` for the root): the name, and whether it is a directory.
#[derive(Debug, Default)]
pub(crate) struct Tree {
    dirs: BTreeMap<String, BTreeSet<(String, bool)>>,
}

impl Tree {
    /// The tree of the regular files `files` (relative paths, `/`
    /// separators); their directories are implied.
    pub(crate) fn of<'a>(files: impl IntoIterator<Item = &'a str>) -> Self {
        let mut tree = Tree::default();
        tree.dirs.entry(String::new()).or_default();
        for file in files {
            let mut dir = String::new();
            let mut parts = file.split('/').peekable();
            while let Some(name) = parts.next() {
                let is_dir = parts.peek().is_some();
                tree.dirs
                    .entry(dir.clone())
                    .or_default()
                    .insert((name.to_string(), is_dir));
                if is_dir {
                    if !dir.is_empty() {
                        dir.push('/');
                    }
                    dir.push_str(name);
                }
            }
        }
        tree
    }

    /// The entries of the directory `rel`, sorted by name: `(name, is_dir)`.
    pub(super) fn entries(&self, rel: &str) -> Vec<(String, bool)> {
        self.dirs
            .get(rel)
            .map(|e| e.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Whether the root holds a `_default.yml` (or `.yaml`): a beryl
    /// inventory, not a reclass one (src/inventory/reclass/).
    pub(crate) fn has_default(&self) -> bool {
        self.entries("").iter().any(|(name, is_dir)| {
            !is_dir
                && matches!(
                    name.to_ascii_lowercase().as_str(),
                    "_default.yml" | "_default.yaml"
                )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_implies_its_directories() {
        let t = Tree::of(["_default.yml", "a.org/_domain.yml", "a.org/web/h1.yml"]);
        assert_eq!(
            t.entries(""),
            vec![("_default.yml".into(), false), ("a.org".into(), true)]
        );
        assert_eq!(
            t.entries("a.org"),
            vec![("_domain.yml".into(), false), ("web".into(), true)]
        );
        assert_eq!(t.entries("a.org/web"), vec![("h1.yml".into(), false)]);
        assert!(t.has_default());
        assert!(!Tree::of(["nodes/n.yml"]).has_default());
    }
}
