//! An incremental diff: compile, on each side, only the hosts whose inputs
//! differ between the sides (docs/diff.md §9).
//!
//! Both sides are listed first, each file with an id that is equal exactly
//! when its content is: git's blob id for `git:REV` (`ls-tree`, nothing
//! read) and for a directory compared with one (`git hash-object`, as CI's
//! `beryl diff git:main` compares the work tree), else a sha256 of the
//! content. The changed paths
//! go through the rules of `reach.rs`; the hosts they reach are compiled on
//! each side, the others get the same hash on both, so the comparison skips
//! them. A `git:REV` side is discovered from its listing, and only the files
//! the compiled hosts can read are written out of git.
//!
//! Whatever cannot be told soundly leaves the diff to the full path
//! (`None`): a render directory, a reclass inventory,
//! links, `--select`, a change the rules place on every host, a compiled
//! host with a query, or one whose exports differ between the sides.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::compiled::{Compiled, compile_side};
use super::{Context, Failure, Loaded, does_not_compile, reach};
use crate::inventory::Inventory;
use crate::inventory::listed::Tree;
use crate::inventory::revision::{self, Listing, Place, Snapshot};
use crate::output::fleetdiff::Files;
use crate::output::render_dir;

/// How many hosts were compiled, of how many on either side.
#[derive(Debug, Clone, Copy)]
pub(super) struct Count {
    pub compiled: usize,
    pub hosts: usize,
}

/// A side before anything is compiled.
enum Source {
    Git(Box<Listing>),
    Dir(PathBuf),
}

/// Each file of a side by path (relative to the inventory, or to the key
/// directory), with an id equal exactly when the content is: git's blob id
/// for a revision and for a directory compared with one, else a sha256.
struct Ids {
    inventory: BTreeMap<String, String>,
    ssh: BTreeMap<String, String>,
}

/// A side discovered, nothing compiled yet.
struct Prepared {
    inventory: &'static Inventory,
    /// A revision's listing and its scratch tree, still empty.
    git: Option<(Box<Listing>, Snapshot)>,
    ssh: Place,
    /// How diagnostics name the inventory.
    display: String,
}

/// Both sides (`(role, spec)`, old then new), compiled incrementally, or
/// `None` for the full diff.
pub(super) fn sides(
    ctx: &Context,
    specs: [(&str, &str); 2],
    plans: bool,
) -> Result<Option<([Loaded; 2], Count)>, Failure> {
    let mut sources = Vec::new();
    for (_, spec) in specs {
        match source(ctx, spec)? {
            Some(s) => sources.push(s),
            None => return Ok(None),
        }
    }
    // A directory is hashed as git hashes a blob when the other side is a
    // revision (`git diff git:main`), else by sha256; with a revision, its
    // key directory is compared when the revision holds one.
    let revision = sources.iter().find_map(|s| match s {
        Source::Git(l) => Some(l.ssh_in_repo()),
        Source::Dir(_) => None,
    });
    let mut ids = Vec::new();
    for source in &sources {
        match side_ids(ctx, source, revision)? {
            Some(i) => ids.push(i),
            None => return Ok(None),
        }
    }
    let mut sides = Vec::new();
    for ((role, spec), source) in specs.into_iter().zip(sources) {
        match prepare(ctx, source, spec).map_err(|e| does_not_compile(role, spec, e))? {
            Some(p) => sides.push(p),
            None => return Ok(None),
        }
    }
    let changed = differing(&ids[0].inventory, &ids[1].inventory);
    let keys = differing(&ids[0].ssh, &ids[1].ssh);
    let Some(reached) = reach::affected(&changed, &keys, sides[0].inventory, sides[1].inventory)
    else {
        return Ok(None);
    };
    let mut affected = reached.hosts;
    // A changed class file reaches the hosts whose closure holds it, on
    // either side: every host's classes are expanded, from the whole tree.
    let whole = !reached.classes.is_empty();
    if whole {
        // Only a chain with a file that can name a class can hold one: a
        // revision's level files are read in memory, and only the chains of
        // either side that can are written out and expanded.
        let mut candidates: Option<BTreeSet<String>> = None;
        for ((role, spec), side) in specs.into_iter().zip(&sides) {
            if let Some((listing, _)) = &side.git {
                let naming = naming_classes(listing, ctx)
                    .map_err(|e| does_not_compile(role, spec, vec![e.into()]))?;
                let inv = side.inventory;
                let can = inv
                    .hosts
                    .iter()
                    .filter(|h| inv.chain(h).iter().any(|l| naming.contains(&l.file.rel)));
                candidates
                    .get_or_insert_with(|| affected.clone())
                    .extend(can.map(|h| h.fqdn.clone()));
            }
        }
        let mut found = BTreeSet::new();
        for ((role, spec), side) in specs.into_iter().zip(&sides) {
            if let (Some((listing, snapshot)), Some(c)) = (&side.git, &candidates) {
                let keep = needed(listing, side.inventory, c);
                listing
                    .fill(snapshot, ctx.limits.max_file_size, |p| keep.contains(p))
                    .map_err(|e| does_not_compile(role, spec, vec![e.into()]))?;
            }
            found.extend(class_users(
                ctx,
                side.inventory,
                &reached.classes,
                candidates.as_ref(),
            ));
        }
        affected.extend(found);
    }
    let mut compiled: Vec<(Compiled, Option<Snapshot>)> = Vec::new();
    for ((role, spec), side) in specs.into_iter().zip(sides) {
        let snapshot = match side.git {
            Some((listing, snapshot)) => {
                if !whole {
                    let keep = needed(&listing, side.inventory, &affected);
                    listing
                        .fill(&snapshot, ctx.limits.max_file_size, |p| keep.contains(p))
                        .map_err(|e| does_not_compile(role, spec, vec![e.into()]))?;
                }
                Some(snapshot)
            }
            None => None,
        };
        let c = compile_side(
            ctx,
            side.inventory,
            &side.display,
            &side.ssh,
            plans,
            Some(&affected),
        )
        .map_err(|e| does_not_compile(role, spec, e))?;
        match c {
            Some(c) => compiled.push((c, snapshot)),
            None => return Ok(None),
        }
    }
    // A query of an unchanged host reads the compiled hosts' exports.
    if affected
        .iter()
        .any(|h| compiled[0].0.exports.get(h) != compiled[1].0.exports.get(h))
    {
        return Ok(None);
    }
    // An input that only the other side's compiled hosts read is still there,
    // unchanged: the full diff, whose hosts all read it, sees it on both.
    let ssh_shown = format!("{}/", ctx.ssh_dir.display());
    let unchanged = |name: &str| match name.strip_prefix(&ssh_shown) {
        Some(rel) if revision == Some(true) => {
            ids[0].ssh.contains_key(rel) && ids[0].ssh.get(rel) == ids[1].ssh.get(rel)
        }
        // Both sides read the key directory of the command line.
        Some(_) => true,
        None => {
            ids[0].inventory.contains_key(name)
                && ids[0].inventory.get(name) == ids[1].inventory.get(name)
        }
    };
    if let [(a, _), (b, _)] = &mut compiled[..]
        && let (Some(a), Some(b)) = (&mut a.side.files, &mut b.side.files)
    {
        share(a, b, &unchanged);
        share(b, a, &unchanged);
    }
    let hosts: BTreeSet<&String> = compiled
        .iter()
        .flat_map(|(c, _)| c.side.hosts.keys())
        .collect();
    let count = Count {
        compiled: affected.len(),
        hosts: hosts.len(),
    };
    let mut loaded = compiled.into_iter().map(|(c, snap)| (c.side, snap, None));
    let (Some(old), Some(new)) = (loaded.next(), loaded.next()) else {
        return Ok(None);
    };
    Ok(Some(([old, new], count)))
}

/// The hosts of `inv` whose class closure holds one of the class files
/// `classes`, or whose classes cannot be expanded (its compile says why).
fn class_users(
    ctx: &Context,
    inv: &Inventory,
    classes: &[&str],
    among: Option<&BTreeSet<String>>,
) -> Vec<String> {
    use rayon::prelude::*;
    // Expanding classes reads no key.
    let keys = crate::keys::KeyStore::new(&ctx.ssh_dir, "", ctx.limits.max_file_size);
    let compiler = crate::compile::Compiler::new(inv, &keys, ctx.limits);
    let names: Vec<String> = classes.iter().flat_map(|c| reach::class_names(c)).collect();
    let holds = |rel: &str, class: &Option<String>| {
        classes.contains(&rel)
            || classes.iter().any(|c| rel.ends_with(&format!("/{c}")))
            || class.as_ref().is_some_and(|c| names.contains(c))
    };
    inv.hosts
        .par_iter()
        .filter(|h| among.is_none_or(|a| a.contains(&h.fqdn)))
        .filter(|h| match compiler.class_files(h) {
            Ok(files) => files.iter().any(|(rel, class)| holds(rel, class)),
            Err(_) => true,
        })
        .map(|h| h.fqdn.clone())
        .collect()
}

/// The level files of a revision (not class files) that can name a class:
/// those whose text holds `classes`, or a double-quoted escape (which could
/// spell it).
fn naming_classes(
    listing: &Listing,
    ctx: &Context,
) -> Result<BTreeSet<String>, revision::RevisionError> {
    let is_class = |rel: &str| rel.starts_with(crate::inventory::CLASSES_DIR);
    let texts = listing.read_inventory(ctx.limits.max_file_size, |rel| !is_class(rel))?;
    // A key spelled with an escape needs a double-quoted scalar: a line
    // with both `"` and `\\` (an explicit `?` key starts such a line too).
    let escaped = |line: &[u8]| line.contains(&b'"') && line.contains(&b'\\');
    let can =
        |t: &[u8]| t.windows(7).any(|w| w == b"classes") || t.split(|&b| b == b'\n').any(escaped);
    Ok(texts
        .into_iter()
        .filter(|(_, t)| can(t))
        .map(|(rel, _)| rel)
        .collect())
}

/// Gives `to` the unchanged inputs that only `from` holds.
fn share(from: &Files, to: &mut Files, unchanged: &dyn Fn(&str) -> bool) {
    for (name, content) in &from.0 {
        if !to.0.contains_key(name) && unchanged(name) {
            to.0.insert(name.clone(), content.clone());
        }
    }
}

/// The repository paths a revision's scratch tree needs for compiling the
/// hosts `affected`: the root's files, the class files, the templates and
/// sources, the key files, and the chain files of those hosts.
fn needed(listing: &Listing, inv: &Inventory, affected: &BTreeSet<String>) -> BTreeSet<String> {
    let mut keep: BTreeSet<String> = BTreeSet::new();
    let shared = |rel: &str| {
        !rel.contains('/')
            || [crate::inventory::CLASSES_DIR]
                .iter()
                .chain(crate::inventory::DATA_DIRS)
                .any(|d| rel.strip_prefix(d).is_some_and(|r| r.starts_with('/')))
    };
    keep.extend(
        listing
            .inventory()
            .filter(|f| shared(f.rel))
            .filter_map(|f| listing.repo_path(false, f.rel)),
    );
    keep.extend(listing.ssh().filter_map(|f| listing.repo_path(true, f.rel)));
    for host in inv.hosts.iter().filter(|h| affected.contains(&h.fqdn)) {
        for level in inv.chain(host) {
            keep.extend(listing.repo_path(false, &level.file.rel));
        }
    }
    keep
}

/// The source a side names, or `None` when it is one the incremental diff
/// does not handle (a render directory, a path that is not a directory:
/// the full diff says why).
fn source(ctx: &Context, spec: &str) -> Result<Option<Source>, Failure> {
    if let Some(rev) = spec.strip_prefix("git:") {
        let listing =
            revision::list(&ctx.inventory_dir, &ctx.ssh_dir, rev).map_err(|e| vec![e.into()])?;
        return Ok(listing
            .has_inventory()
            .then(|| Source::Git(Box::new(listing))));
    }
    let dir = PathBuf::from(spec);
    Ok((dir.is_dir() && !render_dir::is_render_dir(&dir)).then_some(Source::Dir(dir)))
}

/// The ids of a side's files, as [`Ids`] says; `None` when one is not a
/// plain file (a link is followed only by the full diff's discovery).
/// `revision` is `Some` when a side is a `git:REV`, with whether its key
/// directory is in the repository.
fn side_ids(
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
fn sha256(path: &Path) -> Option<String> {
    Some(crate::fsutil::sha256_hex_bytes(&std::fs::read(path).ok()?))
}

/// The files under `root/rel`, relative to `root`; false when an entry is
/// neither a file nor a directory (a link), or a directory is unreadable.
fn files(root: &Path, rel: &str, out: &mut Vec<String>) -> bool {
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
fn differing<'a>(
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
fn prepare(ctx: &Context, source: Source, spec: &str) -> Result<Option<Prepared>, Failure> {
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
