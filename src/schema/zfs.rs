//! `freebsd.zfs`: data pools (checked by the [`ZFS`] and [`POOL`] tables) and
//! datasets, whose keys are the properties of
//! [`crate::freebsd::zfs::PROPS`] plus `destroy`.
//!
//! Rules across fields: a data pool is not the boot pool (`freebsd.pool`,
//! zroot when absent) and takes none of its disks (`freebsd.disks`) nor
//! another data pool's; a dataset lives in the boot pool or a data pool.

use crate::diag::Diag;
use crate::freebsd::names;
use crate::freebsd::zfs;
use crate::syntax::path;
use crate::value::{Map, Node, Value};

use super::Code;
use super::ctx::{At, Ctx, Field, KeyRule};
use super::model::{DataPool, Dataset, FreeBsd, Located, Raid, Zfs, ZfsProp};

/// The keys of `freebsd.zfs`.
pub(crate) const ZFS: &[Field<Zfs>] = &[
    Field {
        key: "pools",
        doc: "data pools the install creates, by name, each with its disks and raid; never created on a live host",
        aliases: &["pool", "zpools", "data_pools"],
        check: pools,
    },
    Field {
        key: "datasets",
        doc: "datasets by name (POOL/NAME), each with ZFS properties, or destroy: true",
        aliases: &["dataset", "filesystems", "fs"],
        check: datasets,
    },
];

/// The keys of a data pool.
pub(crate) const POOL: &[Field<DataPool>] = &[
    Field {
        key: "disks",
        doc: "whole disks of the pool, such as [ada2, ada3]; the install wipes them",
        aliases: &["disk", "devices", "drives", "vdevs"],
        check: pool_disks,
    },
    Field {
        key: "raid",
        doc: "layout: stripe (the default), mirror, raid10, raidz1, raidz2 or raidz3",
        aliases: &["vdev_type", "layout", "raid_level", "type"],
        check: pool_raid,
    },
];

/// The key of a dataset besides its properties.
pub(crate) const DESTROY: &str = "destroy";

/// `base.key`, the key quoted when it holds a `/` (a dataset, as the docs
/// and `explain` write it: `freebsd.zfs.datasets."tank/data"`) or anything
/// the path syntax needs quoted.
/// The keys of `zfs.pools`.
const POOL_NAME: KeyRule = KeyRule {
    check: names::pool,
    code: Code::Pool,
    what: "pool name",
    label: "not a pool name",
    help: "start with a letter, then use letters, digits and `_ . : -`, such as tank",
};

/// The keys of `zfs.datasets`.
const DATASET_NAME: KeyRule = KeyRule {
    check: |name| zfs::dataset(name).map(|_| ()),
    code: Code::Dataset,
    what: "dataset name",
    label: "not a dataset name",
    help: "name the dataset with its pool, such as tank/pgdata or zroot/var/db/mysql",
};

/// The whole mapping, then the rules across fields.
pub(crate) fn zfs(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    let Some(map) = cx.mapping(&at.path, at.node) else {
        return;
    };
    cx.walk(&at.path, map, ZFS, &mut out.zfs);
    across(cx, at, &out.zfs);
    let boot = sibling_str(at.siblings, "pool").map_or(zfs::DEFAULT_BOOT_POOL, |(s, _)| s);
    parents(cx, &path::child(&at.path, "datasets"), boot, &out.zfs);
    through_zfsboot(cx, &path::child(&at.path, "datasets"), boot, &out.zfs);
}

/// A dataset of the boot pool that zfsboot does not make is created by
/// zfsboot all the same, from the preamble's `ZFSBOOT_DATASETS`
/// ([`zfs::zfsboot_datasets`]): zfsboot splits its options at blanks and
/// commas, drops what follows a `#` and `eval`s the command
/// (usr.sbin/bsdinstall/scripts/zfsboot 00a35910, `zfs_create_boot`), so a
/// value must be one those leave alone ([`zfs::zfsboot_safe`]).
fn through_zfsboot(cx: &mut Ctx, datasets_path: &str, boot: &str, z: &Zfs) {
    for d in z.datasets.iter().filter(|d| !d.destroy) {
        let Some(rel) = d
            .name
            .value
            .strip_prefix(boot)
            .and_then(|r| r.strip_prefix('/'))
        else {
            continue;
        };
        if zfs::zfsboot(rel).is_some() {
            continue;
        }
        for p in d
            .props
            .iter()
            .filter(|p| !zfs::zfsboot_safe(&p.value.value))
        {
            cx.push(
                Diag::new(
                    Code::Dataset,
                    format!(
                        "{}: the install creates {} through zfsboot's ZFSBOOT_DATASETS, which splits and evaluates {}={}",
                        path::child(datasets_path, &d.name.value),
                        d.name.value,
                        p.name.value,
                        names::quote(&p.value.value)
                    ),
                )
                .label(&p.value.span, "split or evaluated by zfsboot")
                .help(format!(
                    "in the boot pool ({boot}) write values of letters, digits and `/ . _ - + : @`, or put the dataset in a data pool"
                )),
            );
        }
    }
}

/// No parent that `zfs create -p` makes is mounted over a directory of the
/// base system. `-p` creates each missing parent with no property of its
/// own: it inherits its mount point and is mounted there. A parent is
/// missing unless it is listed under datasets, or zfsboot makes it
/// ([`zfs::ZFSBOOT_DATASETS`], boot pool only); it mounts at the nearest
/// listed or zfsboot ancestor's `mountpoint` with the rest of its name
/// appended (`/POOL/…` below the pool's root), and hides the base
/// directory there ([`crate::freebsd::base::BASE_DIRS`]): `zroot/var/db/mysql`
/// alone creates `zroot/var/db` over `/var/db`.
fn parents(cx: &mut Ctx, datasets_path: &str, boot: &str, z: &Zfs) {
    let mut reported: Vec<String> = Vec::new();
    for d in z.datasets.iter().filter(|d| !d.destroy) {
        let name = &d.name.value;
        let cuts = name.match_indices('/').map(|(i, _)| i).skip(1);
        for parent in cuts.map(|i| &name[..i]) {
            if listed(z, parent).is_some() || made_by_zfsboot(boot, parent).is_some() {
                continue;
            }
            let Some(mount) = inherited_mount(z, boot, parent) else {
                continue;
            };
            let Some((dir, source)) = crate::freebsd::base::base_dir(&mount) else {
                continue;
            };
            if reported.iter().any(|r| r == parent) {
                continue;
            }
            reported.push(parent.to_string());
            cx.push(
                Diag::new(
                    Code::DatasetParent,
                    format!(
                        "{}: `zfs create -p` would create {parent} mounted over the base system's {dir}",
                        path::child(datasets_path, name)
                    ),
                )
                .label(&d.name.span, format!("creates its missing parent {parent}"))
                .help(format!(
                    "list the parent unmounted, as zfsboot lists {boot}/var: `{parent}: {{canmount: \"off\"}}` under freebsd.zfs.datasets ({dir} is in FreeBSD's etc/mtree/{source})"
                )),
            );
        }
    }
}

/// The listed dataset `name`, if any.
fn listed<'z>(z: &'z Zfs, name: &str) -> Option<&'z Dataset> {
    z.datasets.iter().find(|d| d.name.value == name)
}

/// zfsboot's row for `name`, when it is in the boot pool.
fn made_by_zfsboot(boot: &str, name: &str) -> Option<&'static zfs::ZfsbootDataset> {
    let rel = name.strip_prefix(boot)?.strip_prefix('/')?;
    zfs::zfsboot(rel)
}

/// Where a dataset created without a `mountpoint` mounts: its nearest
/// listed or zfsboot ancestor's mount point, the rest of its name
/// appended; `None` when that is `none` or `legacy` (not mounted).
fn inherited_mount(z: &Zfs, boot: &str, name: &str) -> Option<String> {
    let mut base = name;
    let mount = loop {
        let Some((up, _)) = base.rsplit_once('/') else {
            // The pool's root: mounted at /POOL (zpool create's default).
            break format!("/{base}");
        };
        base = up;
        let set = listed(z, base)
            .and_then(|d| d.props.iter().find(|p| p.name.value == "mountpoint"))
            .map(|p| p.value.value.clone());
        if let Some(m) = set
            .or_else(|| made_by_zfsboot(boot, base).and_then(|r| r.mountpoint.map(str::to_string)))
        {
            break m;
        }
    };
    if mount == "none" || mount == "legacy" {
        return None;
    }
    let rest = &name[base.len()..];
    Some(match mount.as_str() {
        "/" => rest.to_string(),
        _ => format!("{mount}{rest}"),
    })
}

fn pools(cx: &mut Ctx, at: &At<'_>, z: &mut Zfs) {
    let Some(map) = cx.mapping(&at.path, at.node) else {
        return;
    };
    for (name, entry) in map {
        let path = path::child(&at.path, name);
        let mut good = cx.key(&POOL_NAME, &at.path, name, entry);
        let Some(pmap) = entry.node.as_map() else {
            cx.push(cx.type_error(&path, "a mapping", &entry.node).help(format!(
                "give the pool its disks: `{name}: {{disks: [ada2, ada3], raid: mirror}}`"
            )));
            continue;
        };
        let mut pool = DataPool {
            name: Located::new(name.clone(), entry.key_span.clone()),
            disks: Vec::new(),
            raid: None,
        };
        cx.walk(&path, pmap, POOL, &mut pool);
        if !pmap.contains_key("disks") {
            cx.push(
                Diag::new(Code::MissingKey, format!("{path} has no `disks`"))
                    .label(&entry.node.span, "this pool needs its disks")
                    .help(
                        "list the whole disks the install makes the pool from: disks: [ada2, ada3]",
                    ),
            );
            good = false;
        }
        if good {
            z.pools.push(pool);
        }
    }
}

fn pool_disks(cx: &mut Ctx, at: &At<'_>, pool: &mut DataPool) {
    let mut boot = FreeBsd::default();
    super::disks::disks(cx, at, &mut boot);
    pool.disks = boot.disks;
}

fn pool_raid(cx: &mut Ctx, at: &At<'_>, pool: &mut DataPool) {
    let mut boot = FreeBsd::default();
    super::disks::raid(cx, at, &mut boot);
    pool.raid = boot.raid;
}

fn datasets(cx: &mut Ctx, at: &At<'_>, z: &mut Zfs) {
    let Some(map) = cx.mapping(&at.path, at.node) else {
        return;
    };
    for (name, entry) in map {
        let path = path::child(&at.path, name);
        let good = cx.key(&DATASET_NAME, &at.path, name, entry);
        let Some(dmap) = entry.node.as_map() else {
            cx.push(cx.type_error(&path, "a mapping", &entry.node).help(
                "give the dataset's properties, such as `{compression: lz4}`, or `{}` for none",
            ));
            continue;
        };
        let d = dataset(cx, &path, name, &entry.key_span, dmap);
        if good && let Some(d) = d {
            z.datasets.push(d);
        }
    }
}

/// One dataset: its properties and `destroy`.
pub(super) fn dataset(
    cx: &mut Ctx,
    path: &str,
    name: &str,
    key_span: &crate::value::Span,
    map: &Map,
) -> Option<Dataset> {
    let mut d = Dataset {
        name: Located::new(name.to_string(), key_span.clone()),
        props: Vec::new(),
        destroy: false,
    };
    let mut good = true;
    for (key, entry) in map {
        let at = path::child(path, key);
        if key == DESTROY {
            match entry.node.value {
                Value::Bool(b) => d.destroy = b,
                _ => {
                    good = false;
                    cx.push(
                        cx.type_error(&at, "a boolean", &entry.node)
                            .help("write `destroy: true` to destroy a dataset beryl created"),
                    );
                }
            }
            continue;
        }
        let Some(prop) = zfs::prop(key) else {
            good = false;
            unknown_property(cx, path, key, entry);
            continue;
        };
        let Some(text) = prop_text(cx, &at, &entry.node) else {
            good = false;
            continue;
        };
        match zfs::value(prop, &text) {
            Ok(v) => d.props.push(ZfsProp {
                name: Located::new(key.clone(), entry.key_span.clone()),
                value: Located::new(v.set, entry.node.span.clone()),
                printed: v.printed,
            }),
            Err(reason) => {
                good = false;
                cx.push(
                    Diag::new(Code::ZfsProperty, format!("invalid {at}: {reason}"))
                        .label(&entry.node.span, format!("not a value of {key}"))
                        .help(format!("{key}: {}", prop.doc)),
                );
            }
        }
    }
    if d.destroy && !d.props.is_empty() {
        good = false;
        let first = &d.props[0].name;
        cx.push(
            Diag::new(
                Code::Destroy,
                format!("{path} has `destroy: true` and properties"),
            )
            .label(&first.span, "a property of a dataset to destroy")
            .help("remove the properties, or remove `destroy: true` to keep the dataset"),
        );
    }
    if d.destroy && !name.contains('/') {
        good = false;
        cx.push(
            Diag::new(
                Code::Destroy,
                format!("{path}: a pool's root dataset cannot be destroyed"),
            )
            .label(key_span, "the pool itself")
            .help("beryl destroys datasets it created inside a pool, never a pool"),
        );
    }
    good.then_some(d)
}

/// A property value as text: a string as written, an integer in decimal
/// (`recordsize: 512`), a boolean as `on`/`off` (YAML 1.1 reads a bare
/// `off` as false).
fn prop_text(cx: &mut Ctx, path: &str, node: &Node) -> Option<String> {
    match &node.value {
        Value::Str(s) => Some(s.clone()),
        Value::Int(n) if *n >= 0 => Some(n.to_string()),
        Value::Bool(b) => Some(if *b { "on" } else { "off" }.into()),
        _ => {
            cx.push(cx.type_error(path, "a string", node).help(
                "write the value as zfs(8) takes it, such as lz4, 16K, off or /var/db/postgres",
            ));
            None
        }
    }
}

fn unknown_property(cx: &mut Ctx, path: &str, key: &str, entry: &crate::value::Entry) {
    let lower = key.to_ascii_lowercase();
    let known: Vec<&str> = zfs::PROPS.iter().map(|p| p.name).chain([DESTROY]).collect();
    let hint = super::ctx::closest(&lower, known.iter().map(|k| (*k, k)))
        .map(|k| format!("; did you mean `{k}`?"))
        .unwrap_or_default();
    cx.push(
        Diag::new(
            Code::UnknownKey,
            format!("unknown ZFS property {} in {path}{hint}", names::quote(key)),
        )
        .label(&entry.key_span, "not a property beryl manages")
        .help(format!(
            "a dataset accepts: {} (from {})",
            known.join(", "),
            zfs::SOURCE
        )),
    );
}

/// A scalar sibling of `freebsd.zfs` as text.
fn sibling_str<'a>(siblings: &'a Map, key: &str) -> Option<(&'a str, &'a crate::value::Span)> {
    let entry = siblings.get(key)?;
    Some((entry.node.as_str()?, &entry.node.span))
}

/// The rules across fields.
fn across(cx: &mut Ctx, at: &At<'_>, z: &Zfs) {
    let boot_written = sibling_str(at.siblings, "pool");
    let boot = boot_written.map_or(zfs::DEFAULT_BOOT_POOL, |(s, _)| s);
    let pools_path = path::child(&at.path, "pools");
    // Disks already taken: (disk, where, span).
    let mut taken: Vec<(String, String, crate::value::Span)> = Vec::new();
    if let Some(entry) = at.siblings.get("disks")
        && let Some(items) = entry.node.as_seq()
    {
        for (i, item) in items.iter().enumerate() {
            if let Some(s) = item.as_str() {
                taken.push((
                    s.to_string(),
                    path::item("freebsd.disks", i),
                    item.span.clone(),
                ));
            }
        }
    }
    for pool in &z.pools {
        let path = path::child(&pools_path, &pool.name.value);
        let disks = path::child(&path, "disks");
        if pool.name.value == boot {
            let mut d = Diag::new(
                Code::Pool,
                format!("{path}: {} is the boot pool's name", names::quote(boot)),
            )
            .label(&pool.name.span, "named like the boot pool");
            if let Some((_, span)) = boot_written {
                d = d.label(span, "the boot pool is named here");
            }
            cx.push(d.help(format!(
                "give the data pool another name, such as tank; datasets of the boot pool go under datasets as {boot}/NAME"
            )));
        }
        for (i, disk) in pool.disks.iter().enumerate() {
            if let Some((_, place, span)) = taken.iter().find(|(d, _, _)| *d == disk.value) {
                cx.push(
                    Diag::new(
                        Code::DuplicateDisk,
                        format!(
                            "{} {} is already listed as {place}",
                            path::item(&disks, i),
                            names::quote(&disk.value)
                        ),
                    )
                    .label(&disk.span, "listed again here")
                    .label(span, "first listed here")
                    .help("each disk belongs to one pool: give the data pool disks of its own"),
                );
            } else {
                taken.push((disk.value.clone(), path::item(&disks, i), disk.span.clone()));
            }
        }
    }
    let mut known: Vec<&str> = std::iter::once(boot)
        .chain(z.pools.iter().map(|p| p.name.value.as_str()))
        .collect();
    known.dedup();
    let datasets_path = path::child(&at.path, "datasets");
    for d in &z.datasets {
        let pool = d.name.value.split('/').next().unwrap_or_default();
        if known.contains(&pool) {
            continue;
        }
        let hint = super::ctx::closest(pool, known.iter().map(|k| (*k, k)))
            .map(|k| format!("; did you mean `{k}`?"))
            .unwrap_or_default();
        cx.push(
            Diag::new(
                Code::Dataset,
                format!(
                    "{}: no pool {}{hint}",
                    path::child(&datasets_path, &d.name.value),
                    names::quote(pool)
                ),
            )
            .label(&d.name.span, "in no pool of this host")
            .help(format!(
                "a dataset lives in the boot pool ({boot}) or a data pool under freebsd.zfs.pools: {}",
                known.join(", ")
            )),
        );
    }
}

/// The layout of a data pool, stripe when absent.
pub(crate) fn layout(pool: &DataPool) -> Raid {
    pool.raid.as_ref().map_or(Raid::Stripe, |r| r.value)
}
