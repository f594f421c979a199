//! `freebsd.zfs`: a data pool made at install from its own disks, datasets
//! with properties in it and in the boot pool, on the fake FreeBSD
//! (tests/fakebsd/README.md: zfs(8) and zpool(8) modelled from OpenZFS).
//!
//! - install = apply: after the install and the first boot (the pool listed
//!   in the cache file rc.d/zpool imports), facts and the dry run find
//!   nothing pending;
//! - a property drifted (set elsewhere, or only inherited) is set again,
//!   and a second apply changes nothing;
//! - `destroy: true` destroys a dataset beryl created, and refuses one it
//!   did not;
//! - a data pool missing on a live host fails the apply, never created.

use crate::live::{agree, apply, fixture, installed, live, pending_ids, sh};

/// A host with a mirrored data pool on two disks of its own and datasets
/// in it and in the boot pool.
const HOST: &str = "\
freebsd:
  zfs:
    pools:
      tank:
        raid: mirror
        disks: [ada2, ada3]
    datasets:
      tank/pgdata:
        recordsize: 16K
        compression: lz4
        atime: \"off\"
        mountpoint: /var/db/postgres
      tank/backup/daily:
        quota: 10G
      zroot/var/cache:
        compression: zstd
";

#[test]
fn a_data_pool_and_datasets_install_to_what_apply_converges_to() {
    let Some((dir, bsd)) = live(HOST, "zfs_install") else {
        return;
    };
    let d = dir.path();
    // The first boot imported the data pool from the boot pool's cache file.
    let pools = sh(&bsd, "zpool list -H -o name\n");
    assert_eq!(pools, "zroot\ntank\n");
    let got = sh(
        &bsd,
        "zfs get -H -p -o name,property,value,source recordsize,compression,atime,quota tank/pgdata tank/backup/daily zroot/var/cache\n",
    );
    assert_eq!(
        got,
        "tank/pgdata\trecordsize\t16384\tlocal\n\
         tank/pgdata\tcompression\tlz4\tlocal\n\
         tank/pgdata\tatime\toff\tlocal\n\
         tank/pgdata\tquota\t0\tdefault\n\
         tank/backup/daily\trecordsize\t131072\tdefault\n\
         tank/backup/daily\tcompression\ton\tdefault\n\
         tank/backup/daily\tatime\ton\tdefault\n\
         tank/backup/daily\tquota\t10737418240\tlocal\n\
         zroot/var/cache\trecordsize\t131072\tdefault\n\
         zroot/var/cache\tcompression\tzstd\tlocal\n\
         zroot/var/cache\tatime\toff\tinherited from zroot\n\
         zroot/var/cache\tquota\t0\tdefault\n"
    );
    // Drift: a property set to another value, one only inherited (the
    // same value, but not set on the dataset), a dataset gone.
    sh(
        &bsd,
        "zfs set recordsize=128K tank/pgdata && zfs destroy zroot/var/cache && zfs create -o compression=zstd zroot/var/cache && zfs set compression=zstd zroot/var\n",
    );
    sh(&bsd, "zfs destroy tank/backup/daily\n");
    agree(
        &bsd,
        d,
        "live",
        &["+ zfs:tank/backup/daily", "~ zfs:tank/pgdata"],
    );
}

#[test]
fn an_inherited_value_is_not_a_set_one() {
    let Some((dir, bsd)) = live(HOST, "zfs_inherited") else {
        return;
    };
    // zroot/var/cache gets compression=zstd from its parent only.
    sh(
        &bsd,
        "zfs destroy zroot/var/cache && zfs set compression=zstd zroot/var && zfs create zroot/var/cache\n",
    );
    let pending = crate::live::pending(&bsd, dir.path(), "live");
    assert_eq!(
        pending,
        vec![
            "~ zfs:zroot/var/cache".to_string(),
            "    compression: \"zstd (inherited from zroot/var)\" -> \"zstd\"".to_string(),
            // Every compression step says what a change of it reaches.
            "    note: recordsize, compression, copies, checksum and dedup apply to data written from now on: what the dataset holds keeps its old ones until it is rewritten".to_string(),
        ]
    );
    agree(&bsd, dir.path(), "live", &["~ zfs:zroot/var/cache"]);
}

#[test]
fn destroy_true_destroys_only_what_beryl_created() {
    let Some((dir, bsd)) = live(HOST, "zfs_destroy") else {
        return;
    };
    let d = dir.path();
    let config = |extra: &str| {
        std::fs::write(
            d.join("inventory/example.org/live.yml"),
            format!("{HOST}{extra}"),
        )
        .unwrap();
    };
    // The install recorded the datasets it created, not zfsboot's.
    let record = sh(&bsd, "cat /var/db/beryl/managed\n");
    for line in [
        "zfs tank/pgdata",
        "zfs tank/backup/daily",
        "zfs zroot/var/cache",
    ] {
        assert!(record.lines().any(|l| l == line), "{record}");
    }
    assert!(!record.contains("zfs zroot/var\n"), "{record}");

    // Created by apply, so recorded; then destroyed on request.
    config("      tank/old: {}\n");
    agree(&bsd, d, "live", &["+ zfs:tank/old"]);
    // The destroy is a step (the script prints `~` for a step it ran).
    config("      tank/old: {destroy: true}\n");
    assert_eq!(pending_ids(&bsd, d, "live"), vec!["- zfs:tank/old"]);
    let run = apply(&bsd, d, "live");
    assert!(
        run.status == 0 && run.stdout.contains("\n~ zfs:tank/old\n"),
        "{}",
        run.all()
    );
    agree(&bsd, d, "live", &[]);
    assert_eq!(
        sh(&bsd, "zfs list -H -o name -r tank\n"),
        "tank\ntank/backup\ntank/backup/daily\ntank/pgdata\n"
    );
    assert!(!sh(&bsd, "cat /var/db/beryl/managed\n").contains("zfs tank/old"));

    // Removed from the config: left alone, and said so.
    std::fs::write(
        d.join("inventory/example.org/live.yml"),
        HOST.replace("      tank/backup/daily:\n        quota: 10G\n", ""),
    )
    .unwrap();
    assert_eq!(pending_ids(&bsd, d, "live"), Vec::<String>::new());
    let run = apply(&bsd, d, "live");
    assert_eq!(run.status, 0, "{}", run.all());
    assert!(
        run.stdout.contains(
            "= zfs:tank/backup/daily kept: left alone: a dataset is destroyed only by destroy: true"
        ),
        "{}",
        run.all()
    );
    assert_eq!(
        sh(&bsd, "zfs list -H -o name tank/backup/daily\n"),
        "tank/backup/daily\n"
    );

    // Not beryl's: refused, and kept.
    sh(&bsd, "zfs create tank/theirs\n");
    config("      tank/theirs: {destroy: true}\n");
    assert_eq!(pending_ids(&bsd, d, "live"), vec!["- zfs:tank/theirs"]);
    let run = apply(&bsd, d, "live");
    assert_eq!(run.status, 1, "{}", run.all());
    assert!(
        run.stdout.contains("tank/theirs was not created by beryl"),
        "{}",
        run.all()
    );
    assert!(
        run.stdout.contains("! zfs:tank/theirs FAILED"),
        "{}",
        run.all()
    );
    assert_eq!(
        sh(&bsd, "zfs list -H -o name tank/theirs\n"),
        "tank/theirs\n"
    );
}

#[test]
fn a_data_pool_is_never_created_on_a_live_host() {
    let dir = fixture("freebsd: {}\n");
    let d = dir.path();
    let Some(bsd) = installed(d, "live", "zfs_no_pool") else {
        return;
    };
    let yaml = "freebsd:\n  zfs:\n    pools:\n      tank: {disks: [ada2]}\n    datasets:\n      tank/data: {}\n";
    std::fs::write(d.join("inventory/example.org/live.yml"), yaml).unwrap();
    assert_eq!(
        pending_ids(&bsd, d, "live"),
        vec!["+ zpool:tank", "+ zfs:tank/data"]
    );
    let run = apply(&bsd, d, "live");
    assert_eq!(run.status, 1, "{}", run.all());
    assert!(
        run.stdout
            .contains("data pool tank is not imported: beryl creates data pools only at install"),
        "{}",
        run.all()
    );
    assert!(
        run.stdout.contains("zpool create tank ada2"),
        "{}",
        run.all()
    );
}
