//! ZFS pools across the install and the first boot (issue 34, items 4, 5,
//! 12 and 17), on the fake FreeBSD (tests/fakebsd/): a host planned by the
//! built beryl, installed as `bsdinstall script` installs it, then booted
//! (rc.d/hostid, the root pool, rc.d/zpool, rc.d/zfs: the `boot` model).
//!
//! Skips with a notice where chroot is not permitted, unless
//! BERYL_REQUIRE_TOOLS is set.

use std::path::Path;

use crate::fakebsd::{FakeBsd, Options};
use crate::live::{agree, machine, ok, sh};
use crate::support::example;

/// `beryl plan HOST` installed on `opts`' machine, which must install and
/// boot; `None` when skipped.
fn installed_on(dir: &Path, host: &str, opts: Options, test: &str) -> Option<FakeBsd> {
    let bsd = FakeBsd::new(&opts, test)?;
    let run = bsd.install(&ok(dir, &["plan", host]));
    assert!(
        run.status == 0 && run.hang.is_none(),
        "{host} does not install:\n{}",
        run.all()
    );
    let boot = bsd.boot();
    assert!(boot.hang.is_none(), "{host} does not boot:\n{}", boot.all());
    Some(bsd)
}

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
