//! `validate` on `freebsd.zfs`: data pools and datasets.

use super::*;
use super::{fails, ok};

#[test]
fn a_data_pool_and_datasets() {
    let f = ok("freebsd:
  disks: [ada0]
  zfs:
    pools:
      tank: {raid: mirror, disks: [ada1, ada2]}
    datasets:
      tank/pgdata: {recordsize: 16K, compression: lz4, atime: off}
      zroot/var/db: {quota: none}
      tank/old: {destroy: true}
");
    assert_eq!(f.zfs.pools[0].name.value, "tank");
    assert_eq!(f.zfs.pools[0].disks.len(), 2);
    let pg = &f.zfs.datasets[0];
    assert_eq!(pg.name.value, "tank/pgdata");
    let props: Vec<(&str, &str, &str)> = pg
        .props
        .iter()
        .map(|p| {
            (
                p.name.value.as_str(),
                p.value.value.as_str(),
                p.printed.as_str(),
            )
        })
        .collect();
    assert_eq!(
        props,
        [
            ("recordsize", "16K", "16384"),
            ("compression", "lz4", "lz4"),
            ("atime", "off", "off")
        ]
    );
    assert!(f.zfs.datasets[2].destroy);
}

#[test]
fn pools() {
    fails(
        "freebsd:\n  zfs:\n    pools:\n      zroot: {disks: [ada1]}\n",
        Code::Pool,
        "is the boot pool's name",
        "t.yml:4:7",
    );
    fails(
        "freebsd:\n  pool: data\n  zfs:\n    pools:\n      data: {disks: [ada1]}\n",
        Code::Pool,
        "`data` is the boot pool's name",
        "t.yml:5:7",
    );
    fails(
        "freebsd:\n  disks: [ada0]\n  zfs:\n    pools:\n      tank: {disks: [ada0]}\n",
        Code::DuplicateDisk,
        "freebsd.zfs.pools.tank.disks.0 `ada0` is already listed as freebsd.disks.0",
        "t.yml:5:22",
    );
    fails(
        "freebsd:\n  zfs:\n    pools:\n      a: {disks: [ada1]}\n      b: {disks: [ada1]}\n",
        Code::DuplicateDisk,
        "already listed as freebsd.zfs.pools.a.disks.0",
        "t.yml:5:19",
    );
    fails(
        "freebsd:\n  zfs:\n    pools:\n      tank: {raid: raidz2, disks: [ada1, ada2]}\n",
        Code::DiskCount,
        "needs at least 4 disks",
        "t.yml:4:35",
    );
    fails(
        "freebsd:\n  zfs:\n    pools:\n      tank: {raid: mirror}\n",
        Code::MissingKey,
        "freebsd.zfs.pools.tank has no `disks`",
        "t.yml:4:13",
    );
    fails(
        "freebsd:\n  zfs:\n    pools:\n      mirror: {disks: [ada1]}\n",
        Code::Pool,
        "reserved",
        "t.yml:4:7",
    );
    fails(
        "freebsd:\n  zfs:\n    pools:\n      tank: {disks: [ada1], vdev: mirror}\n",
        Code::UnknownKey,
        "unknown key `vdev`",
        "t.yml:4:29",
    );
}

#[test]
fn datasets() {
    let d = fails(
        "freebsd:\n  zfs:\n    datasets:\n      tank/a: {recordsize: 24K}\n",
        Code::ZfsProperty,
        "invalid freebsd.zfs.datasets.\"tank/a\".recordsize: `24K` is not a power of two",
        "t.yml:4:28",
    );
    assert!(d.help.unwrap_or_default().starts_with("recordsize: "));
    fails(
        "freebsd:\n  zfs:\n    datasets:\n      zroot/a: {compresion: lz4}\n",
        Code::UnknownKey,
        "unknown ZFS property `compresion` in freebsd.zfs.datasets.\"zroot/a\"; did you mean `compression`?",
        "t.yml:4:17",
    );
    fails(
        "freebsd:\n  zfs:\n    datasets:\n      tnak/a: {}\n",
        Code::Dataset,
        "freebsd.zfs.datasets.\"tnak/a\": no pool `tnak`",
        "t.yml:4:7",
    );
    fails(
        "freebsd:\n  zfs:\n    pools:\n      tank: {disks: [ada1]}\n    datasets:\n      tnak/a: {}\n",
        Code::Dataset,
        "no pool `tnak`; did you mean `tank`?",
        "t.yml:6:7",
    );
    fails(
        "freebsd:\n  zfs:\n    datasets:\n      zroot/a@snap: {}\n",
        Code::Dataset,
        "a snapshot",
        "t.yml:4:7",
    );
    fails(
        "freebsd:\n  zfs:\n    datasets:\n      zroot/a: {destroy: true, quota: 1G}\n",
        Code::Destroy,
        "has `destroy: true` and properties",
        "t.yml:4:32",
    );
    fails(
        "freebsd:\n  zfs:\n    datasets:\n      zroot: {destroy: true}\n",
        Code::Destroy,
        "a pool's root dataset cannot be destroyed",
        "t.yml:4:7",
    );
    fails(
        "freebsd:\n  zfs:\n    datasets:\n      zroot/a: {destroy: yes please}\n",
        Code::Type,
        "must be a boolean",
        "t.yml:4:26",
    );
    fails(
        "freebsd:\n  zfs:\n    datasets:\n      zroot/a: {mountpoint: var/db}\n",
        Code::ZfsProperty,
        "not an absolute path",
        "t.yml:4:29",
    );
}

/// `zfs create -p` makes each missing parent mounted where it inherits:
/// below zfsboot's `zroot/var` (mountpoint /var) that is a base directory.
#[test]
fn a_missing_parent_over_a_base_directory() {
    fails(
        "freebsd:\n  zfs:\n    datasets:\n      zroot/var/db/mysql: {recordsize: 16K}\n",
        Code::DatasetParent,
        "would create zroot/var/db mounted over the base system's /var/db",
        "t.yml:4:7",
    );
    // Through the boot environment (mountpoint /) and /usr (canmount=off).
    fails(
        "freebsd:\n  zfs:\n    datasets:\n      zroot/ROOT/default/var/x: {}\n",
        Code::DatasetParent,
        "zroot/ROOT/default/var mounted over the base system's /var",
        "t.yml:4:7",
    );
    fails(
        "freebsd:\n  zfs:\n    datasets:\n      zroot/usr/local/pgsql: {}\n",
        Code::DatasetParent,
        "over the base system's /usr/local",
        "t.yml:4:7",
    );
    // A listed parent's own mountpoint is inherited below it.
    fails(
        "freebsd:\n  disks: [ada0]\n  zfs:\n    pools:\n      tank: {disks: [ada1]}\n    datasets:\n      tank/sys: {mountpoint: /}\n      tank/sys/etc/x: {}\n",
        Code::DatasetParent,
        "tank/sys/etc mounted over the base system's /etc",
        "t.yml:8:7",
    );
}

/// The fix the help names, and parents that hide nothing.
#[test]
fn parents_that_hide_nothing() {
    // The parent listed unmounted: zfsboot's way for zroot/var.
    ok(
        "freebsd:\n  zfs:\n    datasets:\n      zroot/var/db: {canmount: \"off\"}\n      zroot/var/db/mysql: {recordsize: 16K}\n",
    );
    // zfsboot's own datasets exist already.
    ok("freebsd:\n  zfs:\n    datasets:\n      zroot/var/log/app: {}\n      zroot/usr/src/x: {}\n");
    // Below the pool's root (/zroot/data) or an unmounted BE root.
    ok("freebsd:\n  zfs:\n    datasets:\n      zroot/data/pg: {}\n      zroot/ROOT/x/y: {}\n");
    // A data pool mounts at /tank: tank/var/db is /tank/var/db.
    ok(
        "freebsd:\n  disks: [ada0]\n  zfs:\n    pools:\n      tank: {disks: [ada1]}\n    datasets:\n      tank/var/db/mysql: {}\n",
    );
    // A parent whose listed ancestor is not mounted.
    ok(
        "freebsd:\n  zfs:\n    datasets:\n      zroot/var/db: {canmount: \"off\", mountpoint: none}\n      zroot/var/db/a/b: {}\n",
    );
    // A dataset to destroy creates nothing.
    ok("freebsd:\n  zfs:\n    datasets:\n      zroot/var/db/old: {destroy: true}\n");
}

/// A boot-pool dataset the install hands to zfsboot (`ZFSBOOT_DATASETS`):
/// zfsboot splits its options at blanks and commas and `eval`s them
/// (usr.sbin/bsdinstall/scripts/zfsboot 00a35910), so a mount point with a
/// blank, a comma or a `$` is refused there, and accepted in a data pool.
#[test]
fn a_boot_pool_value_zfsboot_would_split() {
    fails(
        "freebsd:\n  zfs:\n    datasets:\n      zroot/srv: {mountpoint: \"/srv/a b\"}\n",
        Code::Dataset,
        "through zfsboot's ZFSBOOT_DATASETS, which splits and evaluates mountpoint=`/srv/a b`",
        "t.yml:4:31",
    );
    fails(
        "freebsd:\n  zfs:\n    datasets:\n      zroot/srv: {mountpoint: \"/srv/$(x),y\"}\n",
        Code::Dataset,
        "splits and evaluates",
        "t.yml:4:31",
    );
    ok("freebsd:
  disks: [ada0]
  zfs:
    pools:
      tank: {disks: [ada1]}
    datasets:
      tank/srv: {mountpoint: \"/srv/a b\"}
      zroot/srv: {mountpoint: /srv/x_1.2-3}
      zroot/var/log: {compression: zstd}
");
}
