//! Walking the inventory tree and enforcing the layout.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use super::listed::Tree;
use super::{
    Code, DEFAULT_STEM, DOMAIN_STEM, Domain, GROUP_STEM, Group, Host, Inventory, LevelFile,
};
use crate::diag::{Diag, Diags};

const ROOT_HELP: &str = "give the inventory with -i/--inventory DIR or BERYL_INVENTORY";

impl Inventory {
    /// Discovers the inventory under `root`, reporting every layout error.
    /// `root_display` is the root as the user wrote it, for messages.
    ///
    /// A root without `_default.yml` that has reclass's layout (`nodes/` or
    /// `targets/` beside `classes/`, or a `reclass-config.yml`) is discovered
    /// as a reclass inventory, with its config file's settings.
    pub fn discover(root: &Path, root_display: &str) -> Result<Inventory, Diags> {
        Self::discover_with(root, root_display, &crate::yaml::Limits::default())
    }

    /// [`Inventory::discover`] under a command's `limits`: a reclass root's
    /// config file and single-file inventory are read within them.
    pub fn discover_with(
        root: &Path,
        root_display: &str,
        limits: &crate::yaml::Limits,
    ) -> Result<Inventory, Diags> {
        if super::reclass::recognise(root) {
            return Self::discover_reclass(root, root_display, &Default::default(), limits);
        }
        let walk = Walk::new(root, root_display, None);
        let canonical = match fs::canonicalize(root) {
            Ok(c) if c.is_dir() => c,
            Ok(_) => {
                return Err(vec![
                    Diag::new(
                        Code::NotADirectory,
                        format!("the inventory {} is not a directory", walk.display),
                    )
                    .help(ROOT_HELP),
                ]);
            }
            Err(e) => {
                return Err(vec![
                    Diag::new(
                        Code::NotFound,
                        format!("cannot open the inventory {}: {e}", walk.display),
                    )
                    .help(ROOT_HELP),
                ]);
            }
        };
        walk.run(&canonical)
    }
}

impl Inventory {
    /// Discovers a reclass inventory based at `root`, with the command line's
    /// settings over its config file's (src/inventory/reclass/), its files
    /// read within `limits` (the command's `--max-*`).
    pub fn discover_reclass(
        root: &Path,
        root_display: &str,
        overrides: &super::reclass::Overrides,
        limits: &crate::yaml::Limits,
    ) -> Result<Inventory, Diags> {
        super::reclass::discover(root, root_display, overrides, limits)
    }
}

impl Inventory {
    /// Discovers a beryl inventory from the listing `tree`
    /// (src/inventory/listed.rs), reporting every layout error as
    /// [`Inventory::discover`] would on the same files written under `root`,
    /// whose paths its level files name. `None` for a tree without
    /// `_default.yml` (possibly a reclass layout, which only the disk walk
    /// recognises).
    pub(crate) fn discover_listed(
        root: &Path,
        root_display: &str,
        tree: Tree,
    ) -> Option<Result<Inventory, Diags>> {
        tree.has_default()
            .then(|| Walk::new(root, root_display, Some(tree)).run(root))
    }
}

struct Walk {
    root: PathBuf,
    display: String,
    errors: Diags,
    /// Stems of YAML names already reported as not being files, by
    /// directory (`example.org/_domain`), so that no "missing" error follows.
    broken: HashSet<String>,
    /// The files as listed, when the walk reads a listing rather than the
    /// disk: only regular files, so no entry needs following.
    listed: Option<Tree>,
}

enum Kind {
    Dir,
    Yaml(String),
    Other,
}

struct Item {
    name: String,
    rel: String,
    kind: Kind,
}

impl Walk {
    /// A walk of the inventory at `root`, shown as `root_display`: of the
    /// disk, or of `listed`.
    fn new(root: &Path, root_display: &str, listed: Option<Tree>) -> Walk {
        Walk {
            root: root.to_path_buf(),
            display: root_display.trim_end_matches('/').to_string(),
            errors: Vec::new(),
            broken: HashSet::new(),
            listed,
        }
    }

    /// The inventory under `root` (canonical for the disk), or every layout
    /// error.
    fn run(mut self, root: &Path) -> Result<Inventory, Diags> {
        let inv = self.root_dir(root);
        if self.errors.is_empty() {
            Ok(inv)
        } else {
            Err(self.errors)
        }
    }

    fn file(&self, rel: &str) -> LevelFile {
        LevelFile {
            path: self.root.join(rel),
            rel: rel.to_string(),
            display: self.display_of(rel),
        }
    }

    fn display_of(&self, rel: &str) -> String {
        if self.display.is_empty() || self.display == "." {
            rel.to_string()
        } else {
            format!("{}/{rel}", self.display)
        }
    }

    fn error(&mut self, code: Code, message: String, help: Option<&str>) {
        let mut d = Diag::new(code, message);
        if let Some(h) = help {
            d = d.help(h);
        }
        self.errors.push(d);
    }

    /// Lists a directory, sorted by name, skipping hidden entries. Entries are
    /// classified after following links; a link that leaves the inventory, or
    /// that cannot be followed, is an error. Only links are resolved: an entry
    /// that is not one lies where its (already checked) directory does, and
    /// its type comes from the directory listing, so a plain tree costs no
    /// system call per entry.
    fn list(&mut self, dir_rel: &str, canonical_root: &Path) -> Vec<Item> {
        if let Some(tree) = &self.listed {
            let entries = tree.entries(dir_rel);
            return entries
                .into_iter()
                .filter(|(name, _)| !name.starts_with('.'))
                .filter_map(|(name, is_dir)| self.item(dir_rel, name, is_dir, !is_dir))
                .collect();
        }
        let dir = self.root.join(dir_rel);
        let entries = match fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                let shown = self.display_of(dir_rel);
                self.error(Code::Io, format!("cannot list {shown}: {e}"), None);
                return Vec::new();
            }
        };
        let mut names: Vec<(String, Option<fs::FileType>)> = Vec::new();
        for entry in entries {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    let shown = self.display_of(dir_rel);
                    self.error(Code::Io, format!("cannot list {shown}: {e}"), None);
                    continue;
                }
            };
            match entry.file_name().into_string() {
                Ok(n) if n.starts_with('.') => {}
                Ok(n) => names.push((n, entry.file_type().ok())),
                Err(raw) => {
                    let shown = self.display_of(dir_rel);
                    self.error(
                        Code::Name,
                        format!("{shown} holds an entry whose name is not UTF-8: {raw:?}"),
                        None,
                    );
                }
            }
        }
        names.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut items = Vec::with_capacity(names.len());
        // A domain or group lists every host of the fleet: the path and the
        // name shown in messages are made only for a link or an error.
        for (name, file_type) in names {
            let (is_dir, is_file) = match file_type {
                Some(t) if !t.is_symlink() => (t.is_dir(), t.is_file()),
                _ => {
                    let rel = rel_of(dir_rel, &name);
                    let path = self.root.join(&rel);
                    let shown = self.display_of(&rel);
                    let Some(real) = self.follow(&path, &shown, canonical_root) else {
                        continue;
                    };
                    (real.is_dir(), real.is_file())
                }
            };
            items.extend(self.item(dir_rel, name, is_dir, is_file));
        }
        items
    }

    /// The entry `name` of the directory `dir_rel`, classified, or `None`
    /// (reported) when it is a level or host file that is not a file.
    fn item(&mut self, dir_rel: &str, name: String, is_dir: bool, is_file: bool) -> Option<Item> {
        let rel = rel_of(dir_rel, &name);
        let kind = if is_dir {
            if let Some(stem) = yaml_stem(&name) {
                // `host01.yml/` is a file gone wrong, not a group or a
                // domain with a strange name.
                let shown = self.display_of(&rel);
                self.error(
                    Code::NotAFile,
                    format!("{shown} is a directory, not a YAML file"),
                    Some("level and host files must be regular files (or links to them)"),
                );
                let dir = dir_rel.to_string();
                self.broken.insert(format!("{dir}/{stem}"));
                return None;
            }
            Kind::Dir
        } else if let Some(stem) = yaml_stem(&name) {
            if !is_file {
                let shown = self.display_of(&rel);
                self.error(
                    Code::NotAFile,
                    format!("{shown} is not a regular file"),
                    Some("level and host files must be regular files (or links to them)"),
                );
                return None;
            }
            Kind::Yaml(stem.to_string())
        } else {
            Kind::Other
        };
        Some(Item { name, rel, kind })
    }

    /// Resolves a link, which must stay inside the inventory.
    fn follow(&mut self, path: &Path, shown: &str, canonical_root: &Path) -> Option<PathBuf> {
        let real = match fs::canonicalize(path) {
            Ok(r) => r,
            Err(e) => {
                self.error(Code::Io, format!("cannot follow {shown}: {e}"), None);
                return None;
            }
        };
        if !real.starts_with(canonical_root) {
            self.error(
                Code::Outside,
                format!(
                    "{shown} is a link to {}, outside the inventory",
                    real.display()
                ),
                Some("inventory files must lie inside the inventory directory"),
            );
            return None;
        }
        Some(real)
    }

    fn root_dir(&mut self, canonical: &Path) -> Inventory {
        let mut default = None;
        let (mut classes_dir, mut settings) = (None, None);
        let mut domains = Vec::new();
        let mut groups = Vec::new();
        let mut hosts = Vec::new();
        for item in self.list("", canonical) {
            match item.kind {
                Kind::Yaml(stem) if stem == DEFAULT_STEM => match &default {
                    Some(first) => self.duplicate_level(first, &item.rel),
                    None => default = Some(self.file(&item.rel)),
                },
                Kind::Yaml(stem) if stem == super::SETTINGS_STEM => match &settings {
                    Some(first) => self.duplicate_level(first, &item.rel),
                    None => settings = Some(self.file(&item.rel)),
                },
                Kind::Yaml(stem) => self.misplaced(&stem, &item.rel, "the inventory root"),
                Kind::Dir if item.name == super::CLASSES_DIR => {
                    classes_dir = Some(self.file(&item.rel));
                }
                // `freebsd.files`' templates and sources (src/compile/files.rs).
                Kind::Dir if super::DATA_DIRS.contains(&item.name.as_str()) => {}
                Kind::Dir if jails_stem(&item.name).is_some() => {
                    let shown = self.display_of(&item.rel);
                    self.error(
                        Code::OrphanJails,
                        format!("{shown} is a jail folder at the inventory root; a host's jails live beside its host file"),
                        Some("move it beside <host>.yml, in a domain or group directory: <domain>/[<group>/]<host>.jails/"),
                    );
                }
                Kind::Dir => {
                    if let Err(why) = crate::freebsd::names::hostname(&item.name) {
                        let shown = self.display_of(&item.rel);
                        self.error(
                            Code::DomainName,
                            format!("{shown}: `{}` is not a valid DNS domain name: {why}", item.name),
                            Some("each directory directly under the inventory root is a domain, named like example.org"),
                        );
                        continue;
                    }
                    self.domain_dir(&item, canonical, &mut domains, &mut groups, &mut hosts);
                }
                Kind::Other => {}
            }
        }
        let default = default.unwrap_or_else(|| {
            if !self.broken.contains("/_default") {
                let shown = self.display_of("_default.yml");
                self.error(
                    Code::MissingDefault,
                    format!("{shown} is missing: every inventory needs a _default.yml at its root"),
                    None,
                );
            }
            self.file("_default.yml")
        });
        self.check_duplicate_fqdns(&hosts);
        hosts.sort_by(|a: &Host, b: &Host| a.fqdn.cmp(&b.fqdn));
        Inventory {
            root: self.root.clone(),
            default,
            classes_dir,
            settings,
            domains,
            groups,
            hosts,
            flavor: super::Flavor::Beryl,
            documents: None,
        }
    }

    /// Scans a domain or group directory: its level file (`_domain` or
    /// `_group`), its hosts, and its subdirectories, which the caller handles.
    fn level_dir(
        &mut self,
        dir: &Item,
        canonical: &Path,
        level: &str,
        domain: &str,
        group: Option<&str>,
        hosts: &mut Vec<Host>,
    ) -> (Option<LevelFile>, Vec<Item>) {
        let place = if group.is_some() {
            "a group directory"
        } else {
            "a domain directory"
        };
        let mut file = None;
        let mut dirs = Vec::new();
        let mut jail_dirs = Vec::new();
        let mut stems = HashSet::new();
        let first_host = hosts.len();
        for item in self.list(&dir.rel, canonical) {
            match &item.kind {
                Kind::Yaml(stem) if stem == level => match &file {
                    Some(first) => self.duplicate_level(first, &item.rel),
                    None => file = Some(self.file(&item.rel)),
                },
                Kind::Yaml(stem) if stem.starts_with('_') => self.misplaced(stem, &item.rel, place),
                Kind::Yaml(stem) => {
                    stems.insert(stem.clone());
                    if let Some(h) = self.host(stem, &item.rel, domain, group) {
                        hosts.push(h);
                    }
                }
                // `host01.jails/`: claimed before the group and depth rules,
                // which would refuse its dot or its place.
                Kind::Dir if jails_stem(&item.name).is_some() => jail_dirs.push(item),
                Kind::Dir => dirs.push(item),
                Kind::Other => {}
            }
        }
        for jails in jail_dirs {
            let stem = jails_stem(&jails.name).unwrap_or_default();
            let parent = hosts[first_host..]
                .iter()
                .find(|h| h.short == stem)
                .map(|h| h.fqdn.clone());
            match parent {
                Some(parent) => {
                    self.jails_dir(&jails, canonical, &parent, domain, group, hosts);
                }
                // A host file with a bad name was reported already.
                None if stems.contains(stem) => {}
                None => {
                    let shown = self.display_of(&jails.rel);
                    self.error(
                        Code::OrphanJails,
                        format!("{shown} holds jails, but there is no host file {stem}.yml beside it"),
                        Some("a host's jails live in <host>.jails/ beside <host>.yml; add the host file or move the folder"),
                    );
                }
            }
        }
        (file, dirs)
    }

    /// Scans `<host>.jails/`: each YAML file is a jail of the host `parent`,
    /// in its parent's domain and group. Nothing else belongs there.
    fn jails_dir(
        &mut self,
        dir: &Item,
        canonical: &Path,
        parent: &str,
        domain: &str,
        group: Option<&str>,
        hosts: &mut Vec<Host>,
    ) {
        let place = "a jail folder";
        for item in self.list(&dir.rel, canonical) {
            match &item.kind {
                Kind::Yaml(stem) if stem.starts_with('_') => {
                    self.misplaced(stem, &item.rel, place);
                }
                Kind::Yaml(stem) => {
                    if let Err(why) = crate::freebsd::names::jail_name(stem) {
                        let shown = self.display_of(&item.rel);
                        self.error(
                            Code::JailName,
                            format!("{shown}: `{stem}` is not a valid jail name: {why}"),
                            Some("a jail file is named <name>.yml, where <name> is a host name label that is not all digits (sys/kern/kern_jail.c)"),
                        );
                        continue;
                    }
                    hosts.push(Host {
                        short: stem.to_string(),
                        domain: domain.to_string(),
                        group: group.map(str::to_string),
                        fqdn: format!("{stem}.{parent}"),
                        file: self.file(&item.rel),
                        parent: Some(parent.to_string()),
                    });
                }
                Kind::Dir => {
                    let shown = self.display_of(&item.rel);
                    self.error(
                        Code::TooDeep,
                        format!("{shown} is a directory inside a jail folder; a jail folder holds only jail files"),
                        Some("the layout is <host>.jails/<jail>.yml; jails inside jails are not supported"),
                    );
                }
                Kind::Other => {}
            }
        }
    }

    fn domain_dir(
        &mut self,
        dir: &Item,
        canonical: &Path,
        domains: &mut Vec<Domain>,
        groups: &mut Vec<Group>,
        hosts: &mut Vec<Host>,
    ) {
        let domain = dir.name.clone();
        let (file, subdirs) = self.level_dir(dir, canonical, DOMAIN_STEM, &domain, None, hosts);
        for sub in subdirs {
            if let Some(why) = label_problem(&sub.name) {
                let shown = self.display_of(&sub.rel);
                self.error(
                    Code::GroupName,
                    format!("{shown}: `{}` is not a valid group name: {why}", sub.name),
                    Some("group names are letters, digits and `-`, like host names"),
                );
                continue;
            }
            let (file, deeper) =
                self.level_dir(&sub, canonical, GROUP_STEM, &domain, Some(&sub.name), hosts);
            for d in deeper {
                let shown = self.display_of(&d.rel);
                self.error(
                    Code::TooDeep,
                    format!("{shown} is a directory inside a group; the layout stops at groups"),
                    Some("the layout is <domain>/<group>/<host>.yml; move the hosts up or make it a group of the domain"),
                );
            }
            groups.push(Group {
                domain: domain.clone(),
                name: sub.name.clone(),
                file,
            });
        }
        match file {
            Some(file) => domains.push(Domain { name: domain, file }),
            None if self.broken.contains(&format!("{}/_domain", dir.rel)) => {}
            None => {
                let shown = self.display_of(&format!("{}/_domain.yml", dir.rel));
                self.error(
                    Code::MissingDomainFile,
                    format!("{shown} is missing: every domain needs a _domain.yml"),
                    Some("_domain.yml holds the domain's ssh_keys, which every user of its hosts receives"),
                );
            }
        }
    }

    fn host(&mut self, stem: &str, rel: &str, domain: &str, group: Option<&str>) -> Option<Host> {
        if let Some(why) = label_problem(stem) {
            let shown = self.display_of(rel);
            self.error(
                Code::HostName,
                format!("{shown}: `{stem}` is not a valid host name label: {why}"),
                Some("a host file is named <short>.yml, where <short> is 1 to 63 letters, digits or `-`, not starting or ending with `-`"),
            );
            return None;
        }
        Some(Host {
            short: stem.to_string(),
            domain: domain.to_string(),
            group: group.map(str::to_string),
            fqdn: format!("{stem}.{domain}"),
            file: self.file(rel),
            parent: None,
        })
    }

    fn misplaced(&mut self, stem: &str, rel: &str, place: &str) {
        let shown = self.display_of(rel);
        let home = match stem {
            DEFAULT_STEM => Some("the inventory root"),
            DOMAIN_STEM => Some("a domain directory (inventory/<domain>/_domain.yml)"),
            GROUP_STEM => Some("a group directory (inventory/<domain>/<group>/_group.yml)"),
            _ => None,
        };
        match home {
            Some(home) => self.error(
                Code::MisplacedLevel,
                format!("{shown}: {stem} is a level file in the wrong place: it belongs in {home}, not in {place}"),
                None,
            ),
            None if stem.starts_with('_') => self.error(
                Code::UnknownLevel,
                format!("{shown}: `{stem}` is not a level file name"),
                Some("level files are _default.yml (root), _domain.yml (domain) and _group.yml (group); other names starting with `_` are reserved"),
            ),
            None => self.error(
                Code::MisplacedHost,
                format!("{shown}: host files belong in a domain directory, not in {place}"),
                Some("move it to inventory/<domain>/ or inventory/<domain>/<group>/"),
            ),
        }
    }

    fn duplicate_level(&mut self, first: &LevelFile, rel: &str) {
        let shown = self.display_of(rel);
        self.error(
            Code::DuplicateFile,
            format!(
                "{shown} and {} are the same level file; keep one",
                first.display
            ),
            None,
        );
    }

    fn check_duplicate_fqdns(&mut self, hosts: &[Host]) {
        let mut seen: HashMap<String, &Host> = HashMap::with_capacity(hosts.len());
        for h in hosts {
            let key = h.fqdn.to_ascii_lowercase();
            if let Some(first) = seen.get(&key) {
                let message = format!(
                    "{} and {} both define the host {}",
                    first.file.display, h.file.display, h.fqdn
                );
                self.error(
                    Code::DuplicateHost,
                    message,
                    Some("a host is defined once: as <domain>/<host>.yml or <domain>/<group>/<host>.yml, with .yml or .yaml"),
                );
            } else {
                seen.insert(key, h);
            }
        }
    }
}

/// The path of the entry `name` of the directory `dir_rel`, relative to the
/// root: made once per entry, sized up front.
fn rel_of(dir_rel: &str, name: &str) -> String {
    if dir_rel.is_empty() {
        return name.to_string();
    }
    let mut rel = String::with_capacity(dir_rel.len() + 1 + name.len());
    rel.push_str(dir_rel);
    rel.push('/');
    rel.push_str(name);
    rel
}

/// The host stem of a jail folder's name (`host01` of `host01.jails`).
fn jails_stem(name: &str) -> Option<&str> {
    name.strip_suffix(super::JAILS_SUFFIX)
        .filter(|s| !s.is_empty())
}

/// The stem of a YAML file name (`.yml` or `.yaml`, in any case).
pub(super) fn yaml_stem(name: &str) -> Option<&str> {
    let ext = [".yml", ".yaml"].into_iter().find(|e| {
        name.len() >= e.len()
            && name.as_bytes()[name.len() - e.len()..].eq_ignore_ascii_case(e.as_bytes())
    })?;
    Some(&name[..name.len() - ext.len()]).filter(|s| !s.is_empty())
}

/// Why `s` is not a host name label (one label of an RFC 1123 name), if it is not.
pub(crate) fn label_problem(s: &str) -> Option<String> {
    if s.contains('.') {
        return Some(format!(
            "`{s}` contains a dot; a host or group name is a single label"
        ));
    }
    crate::freebsd::names::hostname(s).err()
}

#[cfg(test)]
mod tests {
    use super::{Inventory, Path, Tree, yaml_stem};

    #[test]
    fn yaml_stems_in_any_case() {
        for (name, stem) in [
            ("host01.yml", Some("host01")),
            ("host01.YML", Some("host01")),
            ("_group.Yaml", Some("_group")),
            ("hôte.yaml", Some("hôte")),
            ("a.yaml.yml", Some("a.yaml")),
            (".yml", None),
            ("yml", None),
            ("notes.txt", None),
            ("host01.yml.bak", None),
            ("é", None),
        ] {
            assert_eq!(yaml_stem(name), stem, "{name}");
        }
    }

    #[test]
    fn a_jail_folder_beside_a_host_file_holds_its_jails() {
        let root = Path::new("/nowhere");
        let ok = Tree::of([
            "_default.yml",
            "a.org/_domain.yml",
            "a.org/web/h1.yml",
            "a.org/web/h1.jails/www.yml",
            "a.org/web/h1.jails/notes.txt",
            "a.org/m.yml",
            "a.org/m.jails/db.yaml",
        ]);
        let inv = Inventory::discover_listed(root, "inv", ok)
            .unwrap()
            .unwrap();
        let rows: Vec<_> = inv
            .hosts
            .iter()
            .map(|h| {
                let group = h.group.as_deref();
                (
                    h.fqdn.as_str(),
                    h.short.as_str(),
                    group,
                    h.parent.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("db.m.a.org", "db", None, Some("m.a.org")),
                ("h1.a.org", "h1", Some("web"), None),
                ("m.a.org", "m", None, None),
                ("www.h1.a.org", "www", Some("web"), Some("h1.a.org")),
            ]
        );
        let jail = &inv.hosts[3];
        assert!(jail.is_jail() && !inv.hosts[1].is_jail());
        assert_eq!(jail.file.display, "inv/a.org/web/h1.jails/www.yml");
        let chain: Vec<_> = inv
            .chain(jail)
            .iter()
            .map(|l| (l.kind.name(), l.file.rel.as_str()))
            .collect();
        assert_eq!(
            chain,
            [
                ("default", "_default.yml"),
                ("domain", "a.org/_domain.yml"),
                ("jail", "a.org/web/h1.jails/www.yml"),
            ]
        );
    }

    #[test]
    fn misplaced_jail_folders_and_bad_jail_names_are_refused() {
        let root = Path::new("/nowhere");
        let bad = Tree::of([
            "_default.yml",
            "a.org/_domain.yml",
            "a.org/h1.yml",
            "a.org/h1.jails/42.yml",
            "a.org/h1.jails/x.y.yml",
            "a.org/h1.jails/_x.yml",
            "a.org/h1.jails/in/j.yml",
            "a.org/gone.jails/j.yml",
            "a.org/bad_name.yml",
            "a.org/bad_name.jails/j.yml",
            "h1.jails/j.yml",
        ]);
        let errors = Inventory::discover_listed(root, "inv", bad)
            .unwrap()
            .unwrap_err();
        let mut codes: Vec<_> = errors.iter().map(|d| d.code).collect();
        codes.sort_unstable();
        assert_eq!(
            codes,
            [
                "beryl::inventory::host_name",
                "beryl::inventory::jail_name",
                "beryl::inventory::jail_name",
                "beryl::inventory::orphan_jails",
                "beryl::inventory::orphan_jails",
                "beryl::inventory::too_deep",
                "beryl::inventory::unknown_level",
            ]
        );
    }

    #[test]
    fn discovery_from_a_listing_checks_the_layout() {
        let root = Path::new("/nowhere");
        let ok = Tree::of([
            "_default.yml",
            "a.org/_domain.yml",
            "a.org/web/h1.yml",
            "a.org/m.yml",
        ]);
        let inv = Inventory::discover_listed(root, "inv", ok)
            .unwrap()
            .unwrap();
        let names: Vec<_> = inv.hosts.iter().map(|h| h.fqdn.as_str()).collect();
        assert_eq!(names, ["h1.a.org", "m.a.org"]);
        assert_eq!(inv.hosts[0].file.path, root.join("a.org/web/h1.yml"));
        assert_eq!(inv.hosts[0].file.display, "inv/a.org/web/h1.yml");
        let bad = Tree::of(["_default.yml", "a.org/web/x/h1.yml"]);
        let errors = Inventory::discover_listed(root, "inv", bad)
            .unwrap()
            .unwrap_err();
        let codes: Vec<_> = errors.iter().map(|d| d.code).collect();
        assert!(codes.iter().any(|c| c.ends_with("too_deep")), "{codes:?}");
        assert!(
            codes.iter().any(|c| c.ends_with("missing_domain_file")),
            "{codes:?}"
        );
    }
}
