//! The ZFS boot pool: layout, disks, pool name, swap size.

use super::kinds::Raid;
use super::{all_digits, quote, show};

/// The smallest non-zero swap size zfsboot accepts, in bytes (100 MiB).
pub(crate) const MIN_SWAP: u64 = 100 << 20;
/// Drivers whose devices are whole disks (`ada0`, `nda1`, …).
pub(crate) const DISK_DRIVERS: &[&str] = &[
    "ada", "da", "nvd", "nda", "vtbd", "xbd", "mmcsd", "mfid", "mfisyspd", "md",
];

/// A ZFS layout word; common RAID spellings get a hint.
pub(crate) fn raid(s: &str) -> Result<Raid, String> {
    if let Some(r) = Raid::parse(s) {
        return Ok(r);
    }
    let lower = s.to_ascii_lowercase();
    let hint = match lower.as_str() {
        "raid0" | "0" => Some(Raid::Stripe),
        "raid1" | "1" => Some(Raid::Mirror),
        "raidz" | "raid5" | "5" => Some(Raid::Raidz1),
        "raid6" | "6" => Some(Raid::Raidz2),
        "raid7" | "7" => Some(Raid::Raidz3),
        "10" | "raid1+0" => Some(Raid::Raid10),
        other => Raid::parse(other),
    };
    let hint = hint
        .map(|r| format!("; did you mean `{}`?", r.name()))
        .unwrap_or_default();
    Err(format!(
        "{} is not a ZFS layout (stripe, mirror, raid10, raidz1, raidz2 or raidz3){hint}",
        quote(s)
    ))
}

/// The driver and unit of a whole-disk name (`ada0` → `("ada", "0")`), and what follows.
fn disk_parts(s: &str) -> Option<(&'static str, &str, &str)> {
    DISK_DRIVERS.iter().find_map(|d| {
        let rest = s.strip_prefix(d)?;
        let end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        (end > 0).then(|| (*d, &rest[..end], &rest[end..]))
    })
}

/// A whole-disk device name such as `ada0` (no partition, slice or `/dev/`).
pub(crate) fn disk(s: &str) -> Result<(), String> {
    if let Some((_, _, "")) = disk_parts(s) {
        return Ok(());
    }
    if s.starts_with("/dev/") {
        return Err(format!(
            "{} is a device path; name the disk without `/dev/`",
            quote(s)
        ));
    }
    if let Some((driver, unit, rest)) = disk_parts(s)
        && (rest.starts_with('p') || rest.starts_with('s'))
    {
        return Err(format!(
            "{} is a partition or slice of {driver}{unit}, not a whole disk",
            quote(s)
        ));
    }
    if s.strip_prefix("cd").is_some_and(all_digits) {
        return Err(format!("{} is a CD/DVD drive, not a disk", quote(s)));
    }
    Err(format!(
        "{} is not a whole-disk device name (such as ada0, da0, nda0, nvd0 or vtbd0)",
        quote(s)
    ))
}

/// A ZFS pool name: a letter, then letters, digits and `_ . : -`; not a reserved word.
pub(crate) fn pool(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("the pool name is empty".into());
    }
    if s.len() > 255 {
        return Err(format!(
            "the pool name is {} characters long; at most 255 are allowed",
            s.len()
        ));
    }
    if !s.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Err(format!("{} must start with a letter", quote(s)));
    }
    if let Some(c) = s
        .chars()
        .find(|c| !c.is_ascii_alphanumeric() && !"_.:-".contains(*c))
    {
        return Err(format!(
            "{} contains {}; pool names use letters, digits and `_ . : -`",
            quote(s),
            show(c)
        ));
    }
    let reserved = ["mirror", "spare", "log", "cache"].contains(&s)
        || s.starts_with("raidz")
        || s.starts_with("draid");
    if reserved {
        return Err(format!(
            "{} is reserved by ZFS (mirror, raidz*, draid*, spare, log, cache)",
            quote(s)
        ));
    }
    Ok(())
}

/// A size such as `4g` (suffix k, m, g or t, any case, powers of 1024; bare = bytes).
/// Returns the bytes: 0 (no swap) or at least [`MIN_SWAP`].
pub(crate) fn swap(s: &str) -> Result<u64, String> {
    let (digits, shift) = match s.char_indices().last() {
        Some((i, c)) if "kmgtKMGT".contains(c) => {
            let shift = match c.to_ascii_lowercase() {
                'k' => 10,
                'm' => 20,
                'g' => 30,
                _ => 40,
            };
            (&s[..i], shift)
        }
        _ => (s, 0),
    };
    if !all_digits(digits) {
        return Err(format!(
            "{} is not a size; write a number with an optional k, m, g or t suffix, such as 4g",
            quote(s)
        ));
    }
    let bytes = digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .ok_or_else(|| format!("{} is too large", quote(s)))?;
    if bytes != 0 && bytes < MIN_SWAP {
        return Err(format!(
            "{} is below the 100m minimum of zfsboot; use 0 for no swap",
            quote(s)
        ));
    }
    Ok(bytes)
}
