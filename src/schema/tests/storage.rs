//! `validate` on the boot-pool keys: raid, disks, pool, swap.

use super::*;
use super::{fails, ok};

#[test]
fn raid() {
    ok("freebsd: {raid: raidz2, disks: [da0, da1, da2, da3]}\n");
    fails(
        "freebsd:\n  raid: raidz\n",
        Code::Raid,
        "did you mean `raidz1`?",
        "t.yml:2:9",
    );
    let d = fails(
        "freebsd:\n  raid: 1\n",
        Code::Type,
        "must be a string, found an integer",
        "t.yml:2:9",
    );
    assert!(d.help.unwrap_or_default().contains("mirror (2+)"));
}

#[test]
fn disks() {
    ok("freebsd: {disks: [ada0]}\n");
    let d = fails(
        "freebsd:\n  disks:\n    - ada0\n    - /dev/ada1\n",
        Code::Disk,
        "freebsd.disks.1",
        "t.yml:4:7",
    );
    assert_eq!(
        d.help.as_deref(),
        Some("drop the `/dev/` prefix: write `ada1`")
    );
    fails(
        "freebsd:\n  disks: [ada0p2]\n",
        Code::Disk,
        "partition",
        "t.yml:2:11",
    );
    fails(
        "freebsd:\n  disks: ada0\n",
        Code::Type,
        "freebsd.disks must be a list of disk names, found a string",
        "t.yml:2:10",
    );
    fails(
        "freebsd:\n  disks: [ada0, 1]\n",
        Code::Type,
        "freebsd.disks.1 must be a string",
        "t.yml:2:17",
    );
    // An empty value is null, located at its key's colon.
    fails(
        "freebsd:\n  disks:\n",
        Code::Type,
        "found null",
        "t.yml:2:8",
    );
}

#[test]
fn duplicate_disk_points_at_the_second() {
    let d = fails(
        "freebsd:\n  raid: mirror\n  disks: [ada0, ada1, ada0]\n",
        Code::DuplicateDisk,
        "freebsd.disks.2 `ada0` is already listed as freebsd.disks.0",
        "t.yml:3:23",
    );
    assert_eq!(d.help.as_deref(), Some("list each disk once"));
}

#[test]
fn disk_count_follows_raid() {
    let enough = [
        ("stripe", 1),
        ("mirror", 2),
        ("raidz1", 3),
        ("raid10", 4),
        ("raidz2", 4),
        ("raidz3", 5),
    ];
    for (raid, n) in enough {
        let list = (0..n)
            .map(|i| format!("ada{i}"))
            .collect::<Vec<_>>()
            .join(", ");
        ok(&format!("freebsd:\n  raid: {raid}\n  disks: [{list}]\n"));
        if n > 1 {
            let short = (0..n - 1)
                .map(|i| format!("ada{i}"))
                .collect::<Vec<_>>()
                .join(", ");
            let text = format!("freebsd:\n  raid: {raid}\n  disks: [{short}]\n");
            fails(
                &text,
                Code::DiskCount,
                &format!("needs at least {n} disks"),
                "t.yml:3:10",
            );
        }
    }
    // The disks list, then where raid was set (even when it comes later).
    let d = fails(
        "freebsd:\n  disks: [ada0, ada1, ada2, ada3, ada4]\n  raid: raid10\n",
        Code::DiskCount,
        "freebsd.disks lists 5 disks, but raid `raid10` (set at t.yml:3:9) needs an even number",
        "t.yml:2:10",
    );
    assert!(d.help.unwrap_or_default().contains("raid10 (4+, even)"));
    fails(
        "freebsd:\n  disks: []\n",
        Code::DiskCount,
        "freebsd.disks is empty",
        "t.yml:2:10",
    );
    // An invalid raid is reported once, at raid; no count error on top.
    fails(
        "freebsd:\n  raid: raid5\n  disks: [ada0]\n",
        Code::Raid,
        "raidz1",
        "t.yml:2:9",
    );
}

#[test]
fn pool() {
    ok("freebsd: {pool: tank}\n");
    fails(
        "freebsd:\n  pool: raidz-pool\n",
        Code::Pool,
        "reserved",
        "t.yml:2:9",
    );
    fails(
        "freebsd:\n  pool: 2tank\n",
        Code::Pool,
        "start with a letter",
        "t.yml:2:9",
    );
}

#[test]
fn swap() {
    for good in ["4g", "2G", "0", "100m"] {
        ok(&format!("freebsd: {{swap: {good}}}\n"));
    }
    assert_eq!(
        ok("freebsd: {swap: 0}\n").swap.map(|s| s.value).as_deref(),
        Some("0")
    );
    fails(
        "freebsd:\n  swap: 50m\n",
        Code::Swap,
        "below the 100m minimum",
        "t.yml:2:9",
    );
    fails(
        "freebsd:\n  swap: 4 GB\n",
        Code::Swap,
        "not a size",
        "t.yml:2:9",
    );
    fails(
        "freebsd:\n  swap: 1.5\n",
        Code::Type,
        "found a float",
        "t.yml:2:9",
    );
}

#[test]
fn dev_prefix_help_only_suggests_a_valid_disk() {
    let d = fails(
        "freebsd:\n  disks: [/dev/ada0p2]\n",
        Code::Disk,
        "/dev/",
        "t.yml:2:11",
    );
    assert_eq!(
        d.help.as_deref(),
        Some("drop the `/dev/` prefix and list whole disks such as ada0 or nda0")
    );
}
