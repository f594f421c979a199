//! Where each release's loader reads drop-in files of variables, keyed by
//! `freebsd.version`: beryl writes the dotted tunables of `freebsd.loader`
//! (`kern.maxusers`, `vfs.zfs.arc_max`), which sysrc cannot write, as
//! `NAME="VALUE"` lines in a file of its own there ([`FILE`]).
//!
//! Read in freebsd/freebsd-src: `stand/lua/config.lua` (5a2d3205, a copy
//! that still carries `$FreeBSD$`, so older than 14.0) reads the directories
//! of `loader_conf_dirs` at the top-level `readConf`, after
//! `loader_conf_files`, and parses each `*.conf` file in them as it parses
//! loader.conf: a line `NAME="VALUE"` (the `env_var` row of `pattern_table`,
//! a name `[%w][%w%d-_.]*`) sets the variable, with `\` escaping the next
//! character, `$NAME` and `${NAME}` expanded and a `"` inside the value a
//! syntax error (`processEnvVar`). `stand/defaults/loader.conf` at
//! 023fc80e (the commit ../shared/freebsd/PROVENANCE.md cites for it) sets
//! `loader_conf_dirs="/boot/loader.conf.d"`; an older copy (f328ad48) has
//! no such variable. That 14.3 and 15.x boot the Lua loader, not the Forth
//! one, was not read (the Forth loader's reading of the directory was not
//! checked).

/// The file beryl owns in the directory: written whole, one line per
/// dotted tunable, and removed when none is left.
pub(crate) const FILE: &str = "beryl.conf";

/// One release's loader.
#[derive(Debug)]
pub(crate) struct LoaderD {
    /// `MAJOR.MINOR`, as [`super::release::RELEASES`] spells it.
    pub version: &'static str,
    /// The drop-in directory the loader reads, if any.
    pub dir: Option<&'static str>,
    /// The source that says so.
    pub source: &'static str,
}

const LUA: &str = "stand/lua/config.lua 5a2d3205 (loader_conf_dirs read at the top-level \
    readConf; older than 14.0); stand/defaults/loader.conf 023fc80e \
    (loader_conf_dirs=\"/boot/loader.conf.d\")";

/// The releases' loaders, oldest first: one row per row of `RELEASES`.
pub(crate) const LOADER_DS: &[LoaderD] = &[
    LoaderD {
        version: "14.3",
        dir: Some("/boot/loader.conf.d"),
        source: LUA,
    },
    LoaderD {
        version: "15.0",
        dir: Some("/boot/loader.conf.d"),
        source: LUA,
    },
    LoaderD {
        version: "15.1",
        dir: Some("/boot/loader.conf.d"),
        source: LUA,
    },
];

/// The loader of release `version`, if beryl knows it.
pub(crate) fn find(version: &str) -> Option<&'static LoaderD> {
    LOADER_DS.iter().find(|c| c.version == version)
}

/// The path of beryl's file for release `version`, if its loader reads a
/// drop-in directory.
pub(crate) fn path(version: &str) -> Option<String> {
    find(version)
        .and_then(|l| l.dir)
        .map(|d| format!("{d}/{FILE}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_per_release() {
        assert_eq!(LOADER_DS.len(), super::super::release::RELEASES.len());
        for r in super::super::release::RELEASES {
            assert!(find(r.version).is_some(), "{}", r.version);
        }
        assert_eq!(
            path("15.0").as_deref(),
            Some("/boot/loader.conf.d/beryl.conf")
        );
        assert_eq!(path("13.0"), None);
        // freebsd.files refuses beryl's file, whatever the release.
        for l in LOADER_DS {
            if let Some(dir) = l.dir {
                let file = format!("{dir}/{FILE}");
                assert!(super::super::names::managed_file(&file).is_some(), "{file}");
            }
        }
    }
}
