//! `zpool`: a data pool of `freebsd.zfs.pools`. The install creates it from
//! its own disks, before anything is written into its file systems; apply
//! only checks that it is imported (creating one would take its disks), and
//! fails with how to make it otherwise.
//!
//! A data pool lists itself in the boot pool's cache file,
//! `/boot/zfs/zpool.cache` (the one zfsboot sets for the boot pool:
//! usr.sbin/bsdinstall/scripts/zfsboot 00a35910, "zpool.cache is required to
//! mount more than one pool at boot time"), which rc.d/zpool imports at boot
//! (libexec/rc/rc.d/zpool 0e3bd8aa: `zpool import -c FILE -a -N`, the first
//! readable of /etc/zfs/zpool.cache and /boot/zfs/zpool.cache). OpenZFS
//! writes a cache file with every pool whose cachefile property is the same
//! string (module/zfs/spa_config.c be7657e3, `spa_write_cachefile`), so the
//! setup script gives the boot pool and the data pools the same one.
//!
//! A data pool stays imported at the end of the install, so its label
//! names the hostid it was created under, and `zpool import` without `-f`
//! refuses a pool not exported whose label holds another hostid ("pool was
//! previously in use from another system": openzfs cmd/zpool/zpool_main.c
//! be7657e3, `zfs_force_import_required`, `do_import`). The new system's
//! hostid comes from /etc/hostid, else the firmware's UUID when
//! `valid_hostid` accepts it, else `uuidgen` (libexec/rc/rc.d/hostid
//! 023fc80e); the install media's root is read-only, so its own random one
//! is never saved. The setup script writes the installer's `kern.hostuuid`
//! to /etc/hostid before it creates the pool.

use serde::Serialize;

use super::state::State;
use super::verdict::{Action, Verdict, change};
use super::{Input, Kind, Resource, Shell, text};
use crate::schema::zfs::layout as raid;
use crate::shell::{QuoteError, word as w};

/// The cache file the boot pool and the data pools share, as the setup
/// script (in the new system's root) names it.
pub(crate) const CACHEFILE: &str = "/boot/zfs/zpool.cache";

/// A data pool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Zpool {
    pub name: String,
    pub disks: Vec<String>,
    pub raid: &'static str,
    /// The vdev words of `zpool create` (`mirror ada2 ada3`).
    pub vdevs: Vec<String>,
    /// The boot pool, which shares the cache file.
    pub boot_pool: String,
    pub cachefile: &'static str,
}

/// The data pools, in the order written.
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    let f = input.freebsd();
    let boot_pool = text(&f.pool).unwrap_or(crate::freebsd::zfs::DEFAULT_BOOT_POOL.into());
    super::items(f.zfs.pools.iter().map(|p| {
        let disks: Vec<String> = p.disks.iter().map(|d| d.value.clone()).collect();
        let raid = raid(p).name();
        Zpool {
            name: p.name.value.clone(),
            vdevs: vdevs(raid, &disks),
            disks,
            raid,
            boot_pool: boot_pool.clone(),
            cachefile: CACHEFILE,
        }
    }))
}

/// The vdev words of a layout: zfsboot's raid10 is mirrors of pairs, in
/// the order given; a stripe is the disks alone.
pub(crate) fn vdevs(raid: &str, disks: &[String]) -> Vec<String> {
    match raid {
        "stripe" => disks.to_vec(),
        "raid10" => disks
            .chunks(2)
            .flat_map(|pair| std::iter::once("mirror".to_string()).chain(pair.iter().cloned()))
            .collect(),
        other => std::iter::once(other.to_string())
            .chain(disks.iter().cloned())
            .collect(),
    }
}

impl Kind for Zpool {
    type Want = Zpool;
    const NAME: &'static str = "zpool";
    const TEMPLATE: Option<&'static str> = Some(include_str!("../../templates/steps/zpool.sh.j2"));

    fn id(&self) -> String {
        format!("zpool:{}", self.name)
    }

    fn wants(&self) -> Vec<Zpool> {
        vec![self.clone()]
    }

    fn step_id(want: &Zpool) -> String {
        want.id()
    }

    /// Imported, or a failure that says how to make it.
    fn shell(p: &Zpool) -> Result<Shell, QuoteError> {
        let name = w(&p.name)?;
        let by_hand = format!("zpool create {} {}", p.name, p.vdevs.join(" "));
        let reason = format!(
            "data pool {} is not imported: beryl creates data pools only at install, from their disks; \
             import it (zpool import {}) or create it by hand ({by_hand})",
            p.name, p.name
        );
        Ok(Shell {
            check: format!("zpool list -H -o name {name} >/dev/null 2>&1"),
            change: format!("{{ printf '%s\\n' {} >&2; false; }}", w(&reason)?),
        })
    }

    /// Nothing to do when it is imported, else the failure apply will
    /// report.
    fn judge(p: &Zpool, s: &State) -> Verdict {
        match &s.zpools {
            Some(pools) if pools.contains(&p.name) => Verdict::noop(),
            _ => Verdict::new(
                Action::Create,
                vec![change(
                    "pool",
                    "not imported",
                    "created only at install: apply fails",
                )],
                None,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vdev_words() {
        let d = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(vdevs("stripe", &d(&["a", "b"])), d(&["a", "b"]));
        assert_eq!(vdevs("mirror", &d(&["a", "b"])), d(&["mirror", "a", "b"]));
        assert_eq!(
            vdevs("raid10", &d(&["a", "b", "c", "d"])),
            d(&["mirror", "a", "b", "mirror", "c", "d"])
        );
        assert_eq!(
            vdevs("raidz2", &d(&["a", "b", "c", "d"])),
            d(&["raidz2", "a", "b", "c", "d"])
        );
    }
}
