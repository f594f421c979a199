//! Inventory discovery: the layout rules and the chain of a host (selecting
//! hosts on the command line is src/select/); by the same layout, which
//! hosts a changed file reaches (`Inventory::reach`, reach.rs).
//!
//! Entry point: [`Inventory::discover`]. Discovery only lists directories; it
//! never reads a file, so rendering one host reads only the files of its chain.
//!
//! ```text
//! inventory/              root
//!   _default.yml          level 1, required
//!   example.org/          a domain
//!     _domain.yml         level 2, required
//!     mail.yml            a host directly in the domain
//!     web/                a group
//!       _group.yml        level 3, optional
//!       host01.yml        level 4
//!       host01.jails/     the jails of host01 (issue 36, in progress)
//!         www.yml         the jail www.host01.example.org: level 4 of its chain
//! ```

mod discover;
pub(crate) mod levels;
pub(crate) mod listed;
mod overlay;
mod reach;
pub mod reclass;
pub(crate) mod revision;
pub(crate) mod settings;

pub(crate) use discover::label_problem;
pub(crate) use overlay::Overlay;
pub(crate) use reach::Reach;
pub use reclass::{Flavor, ReclassOptions};
pub(crate) use settings::{SETTINGS_STEM, Settings};

crate::diag::codes! {
    /// The codes of the inventory's layout.
    pub(crate) enum Code in "inventory" {
        /// The inventory given is not a directory.
        NotADirectory = "not_a_directory";
        /// The inventory given cannot be opened.
        NotFound = "not_found";
        /// A directory of the inventory cannot be listed, or a link followed.
        Io = "io";
        /// An entry whose name is not UTF-8.
        Name = "name";
        /// A level or host file that is a directory, or not a regular file.
        NotAFile = "not_a_file";
        /// A link that leads outside the inventory.
        Outside = "outside";
        /// A directory under the root that is not a valid DNS domain name.
        DomainName = "domain_name";
        /// The root has no `_default.yml`.
        MissingDefault = "missing_default";
        /// A group directory whose name is not a valid host name label.
        GroupName = "group_name";
        /// A directory inside a group: the layout stops at groups.
        TooDeep = "too_deep";
        /// A domain without its `_domain.yml`.
        MissingDomainFile = "missing_domain_file";
        /// A host file whose name is not a valid host name label.
        HostName = "host_name";
        /// A level file (`_domain.yml`, `_group.yml`, …) in the wrong place.
        MisplacedLevel = "misplaced_level";
        /// A file named `_…` that is not a level file.
        UnknownLevel = "unknown_level";
        /// A host file outside a domain directory.
        MisplacedHost = "misplaced_host";
        /// A level file (or `beryl.yml`) present twice, as `.yml` and `.yaml`.
        DuplicateFile = "duplicate_file";
        /// One host defined by two files.
        DuplicateHost = "duplicate_host";
        /// A `NAME.jails/` folder without the host file `NAME.yml` beside it.
        OrphanJails = "orphan_jails";
        /// A jail file whose name is not a valid jail name.
        JailName = "jail_name";
    }
}

/// The stem of the first level's file, at the inventory root (`_default.yml`).
pub(crate) const DEFAULT_STEM: &str = "_default";

/// The stem of a domain's level file (`<domain>/_domain.yml`).
pub(crate) const DOMAIN_STEM: &str = "_domain";

/// The stem of a group's level file (`<domain>/<group>/_group.yml`).
pub(crate) const GROUP_STEM: &str = "_group";

/// The suffix of a host's jail folder: `host01.jails/` beside `host01.yml`
/// holds the jails of host01. A dot cannot be in a group's name, so no group
/// is mistaken for it.
pub(crate) const JAILS_SUFFIX: &str = ".jails";

/// The folder of class files, at the inventory root (src/classes/).
pub(crate) const CLASSES_DIR: &str = "_classes";

/// The folders of `freebsd.files`' templates and sources at the inventory
/// root (src/compile/files.rs): not domains, even though `files` and
/// `templates` are valid DNS names.
pub(crate) const DATA_DIRS: &[&str] = &["templates", "files"];

use std::path::PathBuf;

/// A file of the inventory: where it is and how it is named.
#[derive(Clone, Debug)]
pub struct LevelFile {
    /// The path to open (the inventory root as given, joined with `rel`).
    pub path: PathBuf,
    /// The path relative to the inventory root, with `/` separators.
    pub rel: String,
    /// How diagnostics show it: the root as the user gave it, joined with `rel`.
    pub display: String,
}

/// The kind of a level in a host's chain, most general first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelKind {
    Default,
    Domain,
    Group,
    Host,
    /// A class file under `_classes/` (src/classes/), mixed into a chain.
    Class,
    /// A jail's own file, `<host>.jails/<name>.yml`: the last level of a
    /// jail's chain, where a host's chain has its host file.
    Jail,
}

impl LevelKind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            LevelKind::Default => "default",
            LevelKind::Domain => "domain",
            LevelKind::Group => "group",
            LevelKind::Host => "host",
            LevelKind::Class => "class",
            LevelKind::Jail => "jail",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Level<'a> {
    pub kind: LevelKind,
    pub file: &'a LevelFile,
}

#[derive(Clone, Debug)]
pub struct Domain {
    pub name: String,
    pub file: LevelFile,
}

#[derive(Clone, Debug)]
pub struct Group {
    pub domain: String,
    pub name: String,
    pub file: Option<LevelFile>,
}

#[derive(Clone, Debug)]
pub struct Host {
    pub short: String,
    pub domain: String,
    pub group: Option<String>,
    pub fqdn: String,
    pub file: LevelFile,
    /// For a jail, the FQDN of the host it runs on; `None` for a host. A
    /// jail's `short` is its jail name, its `domain` and `group` its
    /// parent's, its `fqdn` `NAME.PARENT_FQDN`.
    pub parent: Option<String>,
}

impl Host {
    /// Whether this is a jail of another host of the inventory.
    pub fn is_jail(&self) -> bool {
        self.parent.is_some()
    }
}

/// A discovered inventory: every domain, group and host, sorted by name.
#[derive(Debug)]
pub struct Inventory {
    pub root: PathBuf,
    pub default: LevelFile,
    /// `_classes/` at the root, when there is one: the class files
    /// (src/classes/), read only when a chain names a class.
    pub classes_dir: Option<LevelFile>,
    /// `beryl.yml` at the root, when there is one: the inventory's settings
    /// (src/inventory/settings.rs).
    pub settings: Option<LevelFile>,
    pub domains: Vec<Domain>,
    pub groups: Vec<Group>,
    /// Sorted by FQDN.
    pub hosts: Vec<Host>,
    /// beryl's semantics, or reclass's (a reclass layout, src/inventory/reclass/).
    pub flavor: Flavor,
    /// A single-file inventory's documents, read at discovery; the later
    /// stages read a node's or class's document here rather than a file.
    pub documents: Option<std::sync::Arc<reclass::single::Documents>>,
}

impl Inventory {
    pub(crate) fn domain(&self, name: &str) -> Option<&Domain> {
        self.domains.iter().find(|d| d.name == name)
    }

    pub fn group(&self, domain: &str, name: &str) -> Option<&Group> {
        self.groups
            .iter()
            .find(|g| g.domain == domain && g.name == name)
    }

    /// The chain of a host: `_default` → `_domain` → `_group` (when the host is
    /// in a group and the group has a file) → the host file. A jail's chain
    /// is its parent's shared levels, then the jail's own file (not the
    /// parent's host file: a jail inherits nothing the parent host writes).
    ///
    /// A reclass node's chain is its node file alone: its classes, and what
    /// reclass merges below them, come in with the class walk (src/classes/).
    pub fn chain<'a>(&'a self, host: &'a Host) -> Vec<Level<'a>> {
        if let Flavor::Reclass(_) = self.flavor {
            return vec![Level {
                kind: LevelKind::Host,
                file: &host.file,
            }];
        }
        let mut chain = vec![Level {
            kind: LevelKind::Default,
            file: &self.default,
        }];
        if let Some(d) = self.domain(&host.domain) {
            chain.push(Level {
                kind: LevelKind::Domain,
                file: &d.file,
            });
        }
        if let Some(g) = host
            .group
            .as_deref()
            .and_then(|g| self.group(&host.domain, g))
            && let Some(file) = &g.file
        {
            chain.push(Level {
                kind: LevelKind::Group,
                file,
            });
        }
        chain.push(Level {
            kind: if host.is_jail() {
                LevelKind::Jail
            } else {
                LevelKind::Host
            },
            file: &host.file,
        });
        chain
    }
}

#[cfg(test)]
mod tests;
