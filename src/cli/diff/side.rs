//! The two sides of an incremental diff before anything is compiled: what
//! each names (a `git:REV` or a directory), the id of each of its files
//! (git's blob id, or a sha256), and the side discovered (incremental.rs).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::{Context, Failure};
use crate::inventory::Inventory;
use crate::inventory::listed::Tree;
use crate::inventory::revision::{self, Listing, Place, Snapshot};
use crate::outdir;

/// A side before anything is compiled.
pub(super) enum Source {
    Git(Box<Listing>),
    Dir(PathBuf),
}

/// Each file of a side by path (relative to the inventory, or to the key
/// directory), with an id equal exactly when the content is: git's blob id
/// for a revision and for a directory compared with one, else a sha256.
pub(super) struct Ids {
    pub inventory: BTreeMap<String, String>,
    pub ssh: BTreeMap<String, String>,
}

/// A side discovered, nothing compiled yet.
pub(super) struct Prepared {
    pub inventory: &'static Inventory,
    /// A revision's listing and its scratch tree, still empty.
    pub git: Option<(Box<Listing>, Snapshot)>,
    pub ssh: Place,
    /// How diagnostics name the inventory.
    pub display: String,
}

/// The source a side names, or `None` when it is one the incremental diff
/// does not handle (a render directory, a path that is not a directory:
/// the full diff says why).
pub(super) fn source(ctx: &Context, spec: &str) -> Result<Option<Source>, Failure> {
    if let Some(rev) = spec.strip_prefix("git:") {
        let listing =
            revision::list(&ctx.inventory_dir, &ctx.ssh_dir, rev).map_err(|e| vec![e.into()])?;
        return Ok(listing
            .has_inventory()
            .then(|| Source::Git(Box::new(listing))));
    }
    let dir = PathBuf::from(spec);
    Ok((dir.is_dir() && !outdir::is_render_dir(&dir)).then_some(Source::Dir(dir)))
}

/// The ids of a side's files, as [`Ids`] says; `None` when one is not a
/// plain file (a link is followed only by the full diff's discovery).
/// `revision` is `Some` when a side is a `git:REV`, with whether its key
/// directory is in the repository.
pub(super) fn side_ids(
    ctx: &Context,
    source: &Source,
    revision: Option<bool>,
) -> Result<Option<Ids>, Failure> {
    let mut ids = Ids {
        inventory: BTreeMap::new(),
        ssh: BTreeMap::new(),
    };
    match source {
        Source::Git(listing) => {
            for (map, files) in [
                (&mut ids.inventory, listing.inventory().collect::<Vec<_>>()),
                (&mut ids.ssh, listing.ssh().collect()),
            ] {
                for f in files {
                    if !f.plain {
                        return Ok(None);
                    }
                    map.insert(f.rel.to_string(), f.id);
                }
            }
        }
        Source::Dir(dir) => {
            // The key directory of the command line, unless both sides read
            // it (two directories, or a revision without its own).
            let dirs = [
                (&mut ids.inventory, Some(dir.as_path())),
                (
                    &mut ids.ssh,
                    (revision == Some(true)).then_some(ctx.ssh_dir.as_path()),
                ),
            ];
            for (map, root) in dirs {
                let Some(root) = root else { continue };
                let mut paths = Vec::new();
                if root.exists() && !files(root, "", &mut paths) {
                    return Ok(None);
                }
                let full: Vec<PathBuf> = paths.iter().map(|p| root.join(p)).collect();
                let hashes = match revision {
                    Some(_) => revision::blob_ids(&full).map_err(|e| vec![e.into()])?,
                    None => full
                        .iter()
                        .map(|p| sha256(p))
                        .collect::<Option<_>>()
                        .unwrap_or_default(),
                };
                if hashes.len() != paths.len() {
                    return Ok(None);
                }
                map.extend(paths.into_iter().zip(hashes));
            }
        }
    }
    Ok(Some(ids))
}

/// The sha256 of a file's content, in hex.
pub(super) fn sha256(path: &Path) -> Option<String> {
    Some(crate::fsutil::sha256_hex_bytes(&std::fs::read(path).ok()?))
}

/// The files under `root/rel`, relative to `root`; false when an entry is
/// neither a file nor a directory (a link), or a directory is unreadable.
pub(super) fn files(root: &Path, rel: &str, out: &mut Vec<String>) -> bool {
    let Ok(entries) = std::fs::read_dir(root.join(rel)) else {
        return false;
    };
    for entry in entries {
        let Ok(entry) = entry else { return false };
        let Ok(name) = entry.file_name().into_string() else {
            return false;
        };
        if name == ".git" {
            continue;
        }
        let path = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        match entry.file_type() {
            Ok(t) if t.is_dir() => {
                if !files(root, &path, out) {
                    return false;
                }
            }
            Ok(t) if t.is_file() => out.push(path),
            _ => return false,
        }
    }
    true
}

/// The paths present on one side only, or with another id.
pub(super) fn differing<'a>(
    old: &'a BTreeMap<String, String>,
    new: &'a BTreeMap<String, String>,
) -> Vec<&'a str> {
    let mut paths: BTreeSet<&str> = BTreeSet::new();
    for (a, b) in [(old, new), (new, old)] {
        for (path, id) in a {
            if b.get(path) != Some(id) {
                paths.insert(path);
            }
        }
    }
    paths.into_iter().collect()
}

/// Discovers a side: a directory from the disk, a revision from its
/// listing (into an empty scratch tree). `None` for a reclass inventory.
pub(super) fn prepare(
    ctx: &Context,
    source: Source,
    spec: &str,
) -> Result<Option<Prepared>, Failure> {
    match source {
        Source::Git(listing) => {
            let snapshot = listing.snapshot().map_err(|e| vec![e.into()])?;
            let Some(place) = snapshot.inventory.clone() else {
                return Ok(None);
            };
            let tree = Tree::of(listing.inventory().map(|f| f.rel));
            let Some(found) = Inventory::discover_listed(&place.dir, &place.display, tree) else {
                return Ok(None);
            };
            Ok(Some(Prepared {
                inventory: Box::leak(Box::new(found?)),
                ssh: snapshot.ssh.clone(),
                git: Some((listing, snapshot)),
                display: place.display,
            }))
        }
        Source::Dir(dir) => {
            let inv = Inventory::discover(&dir, spec)?;
            if inv.flavor.reclass().is_some() {
                return Ok(None);
            }
            Ok(Some(Prepared {
                inventory: Box::leak(Box::new(inv)),
                git: None,
                ssh: Place {
                    dir: ctx.ssh_dir.clone(),
                    display: ctx.ssh_dir.display().to_string(),
                },
                display: spec.to_string(),
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_differs_when_its_id_does_or_one_side_lacks_it() {
        let map = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(p, i)| (p.to_string(), i.to_string()))
                .collect()
        };
        let old = map(&[("a.yml", "1"), ("b.yml", "2"), ("gone.yml", "3")]);
        let new = map(&[("a.yml", "1"), ("b.yml", "9"), ("new.yml", "4")]);
        assert_eq!(differing(&old, &new), ["b.yml", "gone.yml", "new.yml"]);
        assert!(differing(&old, &old).is_empty());
    }

    #[test]
    fn a_directory_is_listed_by_content() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a.org/web")).unwrap();
        std::fs::write(dir.path().join("a.org/web/h.yml"), "x: 1\n").unwrap();
        std::fs::write(dir.path().join("_default.yml"), "x: 1\n").unwrap();
        let mut found = Vec::new();
        assert!(files(dir.path(), "", &mut found));
        found.sort();
        let found: [String; 2] = found.try_into().unwrap();
        assert_eq!(found, ["_default.yml", "a.org/web/h.yml"]);
        let [a, b] = found.map(|f| sha256(&dir.path().join(f)));
        assert!(a.is_some());
        assert_eq!(a, b);
        std::os::unix::fs::symlink("_default.yml", dir.path().join("link.yml")).unwrap();
        assert!(!files(dir.path(), "", &mut Vec::new()));
    }
}
