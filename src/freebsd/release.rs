//! The FreeBSD releases beryl installs, keyed by `freebsd.version`.

/// What one release's installer and kernel do, as far as an unattended
/// install depends on it.
#[derive(Debug)]
pub struct Release {
    /// `MAJOR.MINOR`, as `freebsd.version` spells it.
    pub version: &'static str,
    /// Disk driver prefixes this release does not use by default, each with
    /// the one it uses instead and why (a row of [`RENAMED_DISKS`]).
    pub renamed_disks: &'static [RenamedDisk],
    /// Whether `bsdinstall script` can install the base system from
    /// packages (pkgbase) without a dialog.
    pub unattended_pkgbase: bool,
    /// The source that says so.
    pub pkgbase_source: &'static str,
    /// Where a jail's base comes from when it is laid down with pkgbase
    /// (`pkg --rootdir`), or `None` when the release has no signed
    /// FreeBSD-base repository of its own.
    pub jail_pkgbase: Option<PkgbaseRepo>,
}

/// A release's FreeBSD-base repository, as its own pkg configuration
/// defines it: usr.sbin/pkg/FreeBSD.conf.quarterly-release (0dcfecbf,
/// index id 677987006) writes `url:
/// "pkg+https://pkg.FreeBSD.org/${ABI}/base_release_${VERSION_MINOR}"`,
/// `mirror_type: "srv"`, `signature_type: "fingerprints"` and
/// `fingerprints: "/usr/share/keys/pkgbase-${VERSION_MAJOR}"`. beryl
/// writes the minor and major of the jail's release itself, since pkg
/// expands them from the host's ABI, which need not be the jail's.
#[derive(Debug)]
pub struct PkgbaseRepo {
    /// The repository's last path component: `base_release_0`.
    pub repo: &'static str,
    /// The directory of its fingerprints under `/usr/share/keys`:
    /// `pkgbase-15` (share/keys/pkgbase-15/trusted, 0dcfecbf).
    pub keys: &'static str,
}

/// A disk driver that a release names otherwise.
#[derive(Debug)]
pub struct RenamedDisk {
    /// The prefix an inventory may still use (`nvd`).
    pub old: &'static str,
    /// The prefix the release uses (`nda`).
    pub new: &'static str,
    /// Why, with the source.
    pub why: &'static str,
}

/// NVMe namespaces are `nda*` (CAM) from 14.0 on: `sys/dev/nvme/nvme_sysctl.c`
/// defines `NVME_USE_NVD 0`, so `hw.nvme.use_nvd` defaults to 0, and the
/// loader tunable that brings `nvd*` back is not set while installing. A
/// name zfsboot does not find loops its "Missing one or more scripted disks"
/// box for ever (`usr.sbin/bsdinstall/scripts/zfsboot` 00a35910,
/// `dialog_menu_layout`).
pub(crate) const RENAMED_DISKS: &[RenamedDisk] = &[RenamedDisk {
    old: "nvd",
    new: "nda",
    why: "FreeBSD 14 and later name NVMe disks nda* (hw.nvme.use_nvd defaults to 0, \
          sys/dev/nvme/nvme_sysctl.c); zfsboot would wait for ever for a disk named nvd*",
}];

const NO_PKGBASE_15_0: &str = "usr.sbin/bsdinstall/scripts/script (731704f5, the 15.0 installer) \
    has no scripted pkgbase path and never reads BSDINSTALL_PKG_REPOS_DIR";
const NO_PKGBASE_DIALOG: &str = "usr.sbin/bsdinstall/scripts/pkgbase.in (cff8d75e) always asks \
    for the components in a bsddialog checklist, which an unattended install cannot answer";

/// The releases, oldest first.
pub(crate) const RELEASES: &[Release] = &[
    Release {
        version: "14.3",
        renamed_disks: RENAMED_DISKS,
        unattended_pkgbase: false,
        pkgbase_source: NO_PKGBASE_15_0,
        // share/keys holds only pkgbase-15 (0dcfecbf): no FreeBSD 14
        // FreeBSD-base repository has keys a host carries.
        jail_pkgbase: None,
    },
    Release {
        version: "15.0",
        renamed_disks: RENAMED_DISKS,
        unattended_pkgbase: false,
        pkgbase_source: NO_PKGBASE_15_0,
        jail_pkgbase: Some(PkgbaseRepo {
            repo: "base_release_0",
            keys: "pkgbase-15",
        }),
    },
    Release {
        version: "15.1",
        renamed_disks: RENAMED_DISKS,
        unattended_pkgbase: false,
        pkgbase_source: NO_PKGBASE_DIALOG,
        jail_pkgbase: Some(PkgbaseRepo {
            repo: "base_release_1",
            keys: "pkgbase-15",
        }),
    },
];

/// The release spelled `version`, if beryl knows it.
pub(crate) fn find(version: &str) -> Option<&'static Release> {
    RELEASES.iter().find(|r| r.version == version)
}

/// The known versions, for helps: `14.3, 15.0, 15.1`.
pub(crate) fn known() -> String {
    RELEASES
        .iter()
        .map(|r| r.version)
        .collect::<Vec<_>>()
        .join(", ")
}

impl Release {
    /// The renaming that applies to `disk`, if its driver is one this
    /// release names otherwise (`nvd0` → the `nvd`→`nda` row).
    pub(crate) fn renamed(&self, disk: &str) -> Option<&'static RenamedDisk> {
        self.renamed_disks.iter().find(|r| {
            disk.strip_prefix(r.old)
                .is_some_and(|unit| !unit.is_empty() && unit.bytes().all(|b| b.is_ascii_digit()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_release_knows_nvme_disks_as_nda() {
        for r in RELEASES {
            assert_eq!(
                r.renamed("nvd0").map(|x| x.new),
                Some("nda"),
                "{}",
                r.version
            );
            assert!(r.renamed("nda0").is_none());
            assert!(r.renamed("nvdx").is_none());
        }
        assert!(find("15.0").is_some());
        assert!(find("13.0").is_none());
        assert_eq!(known(), "14.3, 15.0, 15.1");
    }

    #[test]
    fn a_jails_pkgbase_repository_is_its_releases_minor_and_major() {
        let repo = |v: &str| find(v).and_then(|r| r.jail_pkgbase.as_ref());
        assert!(repo("14.3").is_none());
        for (v, minor) in [("15.0", "base_release_0"), ("15.1", "base_release_1")] {
            let r = repo(v).unwrap();
            assert_eq!((r.repo, r.keys), (minor, "pkgbase-15"), "{v}");
        }
    }
}
