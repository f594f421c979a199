//! An incremental diff: compile, on each side, only the hosts whose inputs
//! differ between the sides (docs/diff.md §9).
//!
//! Both sides are listed first, each file with an id that is equal exactly
//! when its content is: git's blob id for `git:REV` (`ls-tree`, nothing
//! read) and for a directory compared with one (`git hash-object`, as CI's
//! `beryl diff git:main` compares the work tree), else a sha256 of the
//! content (side.rs). The changed paths go through the inventory's rules
//! (reach.rs); the hosts they reach are compiled on each side, the others
//! get the same hash on both, so the comparison skips them. A `git:REV`
//! side is discovered from its listing, and only the files the compiled
//! hosts can read are written out of git.
//!
//! Whatever cannot be told soundly leaves the diff to the full path
//! (`None`): a render directory, a reclass inventory,
//! links, `--select`, a change the rules place on every host, a compiled
//! host with a query, or one whose exports differ between the sides.

use std::collections::BTreeSet;

use super::compiled::{Compiled, compile_side};
use super::side::{Source, differing, prepare, side_ids, source};
use super::{Context, Failure, Loaded, does_not_compile, reach};
use crate::inventory::Inventory;
use crate::inventory::revision::{self, Listing, Snapshot};
use crate::output::fleetdiff::Files;

/// How many hosts were compiled, of how many on either side.
#[derive(Debug, Clone, Copy)]
pub(super) struct Count {
    pub compiled: usize,
    pub hosts: usize,
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
