//! Where each release's cron(8) reads drop-in crontabs, keyed by
//! `freebsd.version`.
//!
//! Read in freebsd/freebsd-src: `usr.sbin/cron/cron/pathnames.h` (6a86fec7
//! and the newer vixie-cron 4 import, index id 381167377) defines
//! `SYSCRONTABS "/etc/cron.d"` and `LOCALSYSCRONTABS _PATH_LOCALBASE
//! "/etc/cron.d"`; `usr.sbin/cron/cron/database.c` (e4452d45, the 15.x line)
//! reads both directories on every load: each entry whose name starts with
//! `.` is skipped, and so is anything but a regular file; every file is read
//! as a *system* crontab (five time fields, a user, the command), and a
//! changed modification time makes cron reload its database, where every
//! system crontab has the one name `SYS_NAME`: a file may then take another
//! file's old entry, so apply restarts cron after adding or removing one
//! ([`crate::resource::cron`]). The 1996
//! database.c (5e74a0a1) reads only `/etc/crontab` and `/var/cron/tabs`:
//! a release with that cron has no drop-in directory.

/// One release's cron.
#[derive(Debug)]
pub(crate) struct Cron {
    /// `MAJOR.MINOR`, as [`super::release::RELEASES`] spells it.
    pub version: &'static str,
    /// The drop-in directory beryl writes to, if cron reads one.
    pub dir: Option<&'static str>,
    /// The source that says so.
    pub source: &'static str,
}

/// The directories whose every non-dot regular file cron reads as a system
/// crontab (`SYSCRONTABS` and `LOCALSYSCRONTABS` of pathnames.h 6a86fec7,
/// read by database.c e4452d45): a file added to or removed from one
/// restarts cron.
pub(crate) const DROP_IN_DIRS: &[&str] = &["/etc/cron.d", "/usr/local/etc/cron.d"];

/// The files beryl writes there are `beryl-NAME`; a file being written is
/// staged under a name starting with `.`, which cron skips.
pub(crate) const PREFIX: &str = "beryl-";

const MAIN_LINE: &str = "usr.sbin/cron/cron/database.c e4452d45 and pathnames.h 6a86fec7 \
    (the 15.x line): /etc/cron.d and /usr/local/etc/cron.d, dot files and non-regular files skipped";
const STABLE_14: &str = "the same database.c code path as the 15.x line (read at e4452d45); \
    the 14.3 file itself was not read: the cron.d directories predate stable/14";

/// The releases' crons, oldest first: one row per row of `RELEASES`.
pub(crate) const CRONS: &[Cron] = &[
    Cron {
        version: "14.3",
        dir: Some("/usr/local/etc/cron.d"),
        source: STABLE_14,
    },
    Cron {
        version: "15.0",
        dir: Some("/usr/local/etc/cron.d"),
        source: MAIN_LINE,
    },
    Cron {
        version: "15.1",
        dir: Some("/usr/local/etc/cron.d"),
        source: MAIN_LINE,
    },
];

/// The cron of release `version`, if beryl knows it.
pub(crate) fn find(version: &str) -> Option<&'static Cron> {
    CRONS.iter().find(|c| c.version == version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_release_has_a_cron_row() {
        for r in super::super::release::RELEASES {
            let c = find(r.version).unwrap_or_else(|| panic!("no cron row for {}", r.version));
            assert_eq!(c.dir, Some("/usr/local/etc/cron.d"), "{}", r.version);
        }
        assert_eq!(CRONS.len(), super::super::release::RELEASES.len());
        assert!(find("13.0").is_none());
    }
}
