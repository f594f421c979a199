//! The disks of a ZFS pool and their layout: the boot pool's `freebsd.disks`
//! and `freebsd.raid` (rows of `fields::FREEBSD`), and each data pool's
//! `disks` and `raid` (zfs.rs), checked alike.

use crate::diag::Diag;
use crate::freebsd::names;
use crate::syntax::path;
use crate::value::Value;

use super::Code;
use super::ctx::{At, Ctx, Rule};
use super::model::{FreeBsd, Located, Raid};

const DISK: Rule = Rule {
    check: names::disk,
    code: Code::Disk,
    what: "disk",
    help: disk_help,
};

fn disk_help(s: &str) -> String {
    match s.strip_prefix("/dev/") {
        Some(rest) if names::disk(rest).is_ok() => {
            format!("drop the `/dev/` prefix: write `{rest}`")
        }
        Some(_) => "drop the `/dev/` prefix and list whole disks such as ada0 or nda0".into(),
        None => "list whole disks such as ada0 or nda0 (see `geom disk list`); \
                 zfsboot partitions them itself"
            .into(),
    }
}

/// The layouts with their disk needs, for helps.
const LAYOUTS: &str =
    "stripe (1+ disks), mirror (2+), raidz1 (3+), raid10 (4+, even), raidz2 (4+), raidz3 (5+)";

pub(super) fn raid(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    if let Value::Int(_) = at.node.value {
        let help = format!("write a ZFS layout word, not a RAID level number: {LAYOUTS}");
        cx.push(cx.type_error(&at.path, "a string", at.node).help(help));
        return;
    }
    let Some(s) = cx.string(&at.path, at.node) else {
        return;
    };
    match names::raid(s) {
        Ok(r) => out.raid = Some(Located::new(r, at.node.span.clone())),
        Err(reason) => cx.push(
            Diag::new(Code::Raid, format!("invalid {}: {reason}", at.path))
                .label(&at.node.span, "not a ZFS layout")
                .help(format!("write one of {LAYOUTS}")),
        ),
    }
}

/// Whole disks, without duplicates, and enough of them for `raid`.
pub(super) fn disks(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    let Some(items) = cx.list(&at.path, at.node, "a list of disk names") else {
        return;
    };
    let mut seen: Vec<(usize, &Located<String>)> = Vec::new();
    let checked: Vec<Option<Located<String>>> = items
        .iter()
        .enumerate()
        .map(|(i, item)| cx.checked(&path::item(&at.path, i), item, &DISK))
        .collect();
    for (i, disk) in checked.iter().enumerate() {
        let Some(disk) = disk else { continue };
        if let Some((first, prev)) = seen.iter().find(|(_, d)| d.value == disk.value) {
            cx.push(
                Diag::new(
                    Code::DuplicateDisk,
                    format!(
                        "{} {} is already listed as {}",
                        path::item(&at.path, i),
                        names::quote(&disk.value),
                        path::item(&at.path, *first)
                    ),
                )
                .label(&disk.span, "listed again here")
                .label(&prev.span, "first listed here")
                .help("list each disk once"),
            );
        } else {
            seen.push((i, disk));
        }
    }
    disk_count(cx, at, items.len());
    out.disks = checked.into_iter().flatten().collect();
}

/// The count rule: the layout named by the sibling `raid` (stripe when absent).
fn disk_count(cx: &mut Ctx, at: &At<'_>, count: usize) {
    let raid = match at.siblings.get("raid") {
        None => None,
        Some(entry) => match entry.node.as_str().map(Raid::parse) {
            Some(Some(r)) => Some((r, &entry.node.span)),
            // An invalid raid is reported at the raid key; nothing to compare.
            _ => return,
        },
    };
    let plural = |n: usize| if n == 1 { "disk" } else { "disks" };
    let listed = format!("{count} {} listed here", plural(count));
    let Some((raid, raid_span)) = raid else {
        if count == 0 {
            cx.push(
                Diag::new(Code::DiskCount, format!("{} is empty", at.path))
                    .label(&at.node.span, "no disks")
                    .help("list at least one whole disk, or remove the key"),
            );
        }
        return;
    };
    let min = raid.min_disks();
    let problem = if count < min {
        format!("needs at least {min} {}", plural(min))
    } else if raid.needs_even() && count % 2 == 1 {
        "needs an even number of disks (they are mirrored in pairs, in the order given)".to_string()
    } else {
        return;
    };
    cx.push(
        Diag::new(
            Code::DiskCount,
            format!(
                "{} lists {count} {}, but raid `{}` (set at {raid_span}) {problem}",
                at.path,
                plural(count),
                raid.name()
            ),
        )
        .label(&at.node.span, listed)
        .label(raid_span, format!("raid `{}` set here", raid.name()))
        .help(format!(
            "add disks, or choose a layout that fits: {LAYOUTS}"
        )),
    );
}
