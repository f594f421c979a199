//! ZFS pools across the install and the first boot (issue 34, items 4, 5,
//! 12 and 17), on the fake FreeBSD (tests/fakebsd/): a host planned by the
//! built beryl, installed as `bsdinstall script` installs it, then booted
//! (rc.d/hostid, the root pool, rc.d/zpool, rc.d/zfs: the `boot` model).
//!
//! Skips with a notice where chroot is not permitted, unless
//! BERYL_REQUIRE_TOOLS is set.

use crate::fakebsd::{FakeBsd, Options};
use crate::live::{agree, installed_on, machine, ok, sh};
use crate::support::example;

/// Item 4: on a machine whose firmware reports a placeholder UUID (plain
/// QEMU without `-uuid`, some boards), libexec/rc/rc.d/hostid draws a
/// random hostid at every boot that has no /etc/hostid: the install media
/// (read-only root, nothing saved) and the first boot of the new system
/// get different ones. db01's data pool `tank` stays imported at the end
/// of the install (so that it is in the cache file), and an import of a
/// pool not exported whose label holds another hostid needs `-f`
/// (openzfs cmd/zpool/zpool_main.c zfs_force_import_required): rc.d/zpool
/// left tank out, and PostgreSQL's directory was the boot environment's.
/// The setup script now saves the installer's hostid in /etc/hostid.
#[test]
fn a_data_pool_imports_at_first_boot_without_a_firmware_uuid() {
    let test = "a_data_pool_imports_at_first_boot_without_a_firmware_uuid";
    let dir = example();
    let d = dir.path();
    let opts = Options {
        smbios_uuid: Some("03000200-0400-0500-0006-000700080009"),
        ..machine(d, "db01")
    };
    let Some(bsd) = installed_on(d, "db01", opts, test) else {
        return;
    };
    let pools = sh(&bsd, "zpool list -H -o name\n");
    assert!(
        pools.lines().any(|l| l == "tank"),
        "tank is not imported at first boot:\n{pools}"
    );
    let mounted = sh(&bsd, "zfs list -H -o name,mounted tank/pgdata\n");
    assert_eq!(mounted, "tank/pgdata\tyes\n");
    agree(&bsd, d, "db01", &[]);
}

/// Item 5: zfsboot creates the boot pool with
/// `altroot=$BSDINSTALL_CHROOT` (usr.sbin/bsdinstall/scripts/zfsboot
/// 00a35910), and libzfs puts the altroot in front of a mount point
/// (lib/libzfs/libzfs_dataset.c be7657e3, `zfs_prop_get`): a `zfs create`
/// of a boot-pool dataset in the setup script, which runs in the chroot,
/// mounted it at /mnt/var/db/app of the installer, /mnt/mnt/var/db/app,
/// while what the install wrote to /var/db/app went into the boot
/// environment, hidden by the dataset at first boot. The preamble now
/// hands the dataset to zfsboot in `ZFSBOOT_DATASETS`, so it is created
/// and mounted before the sets are extracted, where the new system sees
/// it.
#[test]
fn a_boot_pool_dataset_holds_at_first_boot_what_the_install_wrote() {
    let test = "a_boot_pool_dataset_holds_at_first_boot_what_the_install_wrote";
    let dir = crate::live::fixture(
        "freebsd:\n  zfs:\n    datasets:\n      zroot/var/db:\n        canmount: \"off\"\n      \
         zroot/var/db/app:\n        mountpoint: /var/db/app\n        recordsize: 16K\n  \
         files:\n    /var/db/app/app.conf:\n      content: \"written by the install\\n\"\n      \
         mode: \"0640\"\n",
    );
    let d = dir.path();
    let Some(bsd) = installed_on(d, "live", machine(d, "live"), test) else {
        return;
    };
    let seen = sh(
        &bsd,
        "zfs list -H -o name,mounted,mountpoint zroot/var/db/app; cat /var/db/app/app.conf; \
         ls -a /mnt 2>/dev/null || :\n",
    );
    assert_eq!(
        seen, "zroot/var/db/app\tyes\t/var/db/app\nwritten by the install\n",
        "the dataset does not hold what the install wrote, or a stray /mnt tree is left"
    );
    agree(&bsd, d, "live", &[]);
}

/// db01's plan, edited by `edit` (a line replaced), installed and booted on
/// its own machine: the machine and the install's run.
fn db01_with(
    test: &str,
    edit: (&str, &str),
) -> Option<(tempfile::TempDir, FakeBsd, crate::fakebsd::Run)> {
    let dir = example();
    let d = dir.path();
    let plan = ok(d, &["plan", "db01"]);
    assert!(plan.contains(edit.0), "db01's plan has no {:?}", edit.0);
    let bsd = FakeBsd::new(&machine(d, "db01"), test)?;
    let run = bsd.install(&plan.replacen(edit.0, edit.1, 1));
    Some((dir, bsd, run))
}

/// The pools the fake cache file at `path` of the installed system lists.
fn cached(bsd: &FakeBsd, path: &str) -> Option<String> {
    std::fs::read_to_string(bsd.target().join(path)).ok()
}

/// Item 12: OpenZFS writes a cache file with every pool whose `cachefile`
/// is the same string, in the root of the thread that writes it, and
/// removes it when no pool is left (module/zfs/spa_config.c eb9098ed,
/// `spa_write_cachefile`, `spa_config_write`). The setup script (in the
/// chroot) gives the boot pool and the data pool the string
/// /boot/zfs/zpool.cache, so the last write, `zpool create` in the chroot,
/// leaves both in the new system's /boot/zfs/zpool.cache, which rc.d/zpool
/// reads at first boot; the installer's final export writes that string in
/// its own root, not the new system's. Without the shared string, the
/// boot pool keeps zfsboot's `/mnt/boot/zfs/zpool.cache`, which the export
/// (in the installer's root: the same file) rewrites without any pool,
/// that is removes: the data pool is left out at first boot.
#[test]
fn the_data_pool_is_in_the_cache_file_that_first_boot_reads() {
    let test = "the_data_pool_is_in_the_cache_file_that_first_boot_reads";
    let keep = ("zpool create", "zpool create");
    let Some((_dir, bsd, run)) = db01_with(test, keep) else {
        return;
    };
    assert!(run.status == 0 && run.hang.is_none(), "{}", run.all());
    assert_eq!(
        cached(&bsd, "boot/zfs/zpool.cache").as_deref(),
        Some("pool zroot\npool tank\n")
    );
    assert!(
        sh(&bsd, "zpool list -H -o name\n")
            .lines()
            .any(|l| l == "tank")
    );

    // The hazard the shared string avoids, as the model has it.
    let unshared = ("zpool set cachefile=/boot/zfs/zpool.cache zroot\n", "");
    let Some((_dir, bsd, run)) = db01_with(test, unshared) else {
        return;
    };
    assert!(run.status == 0 && run.hang.is_none(), "{}", run.all());
    assert_eq!(cached(&bsd, "boot/zfs/zpool.cache"), None);
    assert!(
        !sh(&bsd, "zpool list -H -o name\n")
            .lines()
            .any(|l| l == "tank")
    );
}

/// Item 17: the setup script unmounts the data pool's file systems in the
/// chroot with `zfs unmount DS`. libzfs unmounts the path the mount table
/// gives (lib/libzfs/libzfs_mount.c `zfs_unmount`: `mnt_mountp`), which
/// FreeBSD records as the global path (sys/kern/vfs_mount.c, index id
/// 149982035: `vfs_domount` stores `vn_path_to_global_path`), here
/// /mnt/var/db/postgres; `kern_unmount` resolves the path in the caller's
/// root first and, when that fails, matches the string against the mount
/// table: so the unmount works from the chroot exactly when the chroot has
/// no /mnt/var/db/postgres of its own (the install leaves /mnt empty). A
/// directory there resolves to /mnt/mnt/var/db/postgres, no mount matches,
/// and the unmount fails.
#[test]
fn the_data_pools_unmount_in_the_chroot_matches_the_mount_table() {
    let test = "the_data_pools_unmount_in_the_chroot_matches_the_mount_table";
    let unmount = "zfs list -H -o name,mounted -r -t filesystem tank";
    let Some((_dir, _bsd, run)) = db01_with(test, (unmount, unmount)) else {
        return;
    };
    assert!(run.status == 0 && run.hang.is_none(), "{}", run.all());
    let planted = format!("mkdir -p /mnt/var/db/postgres\n{unmount}");
    let Some((_dir, _bsd, run)) = db01_with(test, (unmount, &planted)) else {
        return;
    };
    assert_ne!(run.status, 0, "{}", run.all());
    assert!(
        run.all()
            .contains("cannot unmount '/mnt/var/db/postgres': unmount failed"),
        "{}",
        run.all()
    );
}
