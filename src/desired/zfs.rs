//! `freebsd.zfs` as resources: the data pools first (the install creates
//! them before anything is written into their file systems), then the
//! datasets, parents before children.
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

use serde::Serialize;

use crate::schema::FreeBsd;
use crate::schema::zfs::layout;

use super::Resource;

/// The cache file the boot pool and the data pools share, as the setup
/// script (in the new system's root) names it.
pub(crate) const CACHEFILE: &str = "/boot/zfs/zpool.cache";

/// A data pool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pool {
    pub name: String,
    pub disks: Vec<String>,
    pub raid: &'static str,
    /// The vdev words of `zpool create` (`mirror ada2 ada3`).
    pub vdevs: Vec<String>,
    /// The boot pool, which shares the cache file.
    pub boot_pool: String,
    pub cachefile: &'static str,
}

/// A dataset: created with its properties, or destroyed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Dataset {
    pub name: String,
    pub props: Vec<Prop>,
    /// `destroy: true`: destroyed when beryl created it.
    pub destroy: bool,
}

/// A property: as `zfs set` takes it and as `zfs get -H -p` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prop {
    pub name: String,
    pub value: String,
    pub printed: String,
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

/// The pools, then the datasets sorted by name (a parent sorts before its
/// children).
pub(crate) fn resources(f: &FreeBsd, boot_pool: &str) -> Vec<Resource> {
    let mut out = Vec::new();
    for p in &f.zfs.pools {
        let disks: Vec<String> = p.disks.iter().map(|d| d.value.clone()).collect();
        let raid = layout(p).name();
        out.push(Resource::Zpool(Pool {
            name: p.name.value.clone(),
            vdevs: vdevs(raid, &disks),
            disks,
            raid,
            boot_pool: boot_pool.to_string(),
            cachefile: CACHEFILE,
        }));
    }
    let mut datasets: Vec<Dataset> = f
        .zfs
        .datasets
        .iter()
        .map(|d| Dataset {
            name: d.name.value.clone(),
            props: d
                .props
                .iter()
                .map(|p| Prop {
                    name: p.name.value.clone(),
                    value: p.value.value.clone(),
                    printed: p.printed.clone(),
                })
                .collect(),
            destroy: d.destroy,
        })
        .collect();
    datasets.sort_by(|a, b| a.name.split('/').cmp(b.name.split('/')));
    out.extend(datasets.into_iter().map(Resource::Dataset));
    out
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
