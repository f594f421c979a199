//! A reclass inventory as it is (issue 19): `nodes/` and `classes/` (or
//! Kapitan's `targets/` and `classes/`), reclass's settings from a config file
//! and the command line, and every node found under `nodes_uri` at any depth.
//!
//! Entry points: [`recognise`] (is this root a reclass one?) and
//! [`discover`], which returns an [`Inventory`] whose flavor is
//! [`Flavor::Reclass`]: each node is a host whose chain is its node file.
//! The later stages read the settings from the flavor, in one place each.

mod config;
pub(crate) mod mapping;
mod nodes;
pub(crate) mod single;

use std::path::{Component, Path, PathBuf};

pub use config::Overrides;
pub use config::ReclassOptions;
pub(crate) use config::STORAGE_TYPES;
pub use config::StorageType;

use super::{Inventory, LevelFile};
use crate::diag::{Diag, Diags};
use crate::yaml::Limits;

/// Which semantics an inventory is compiled with: beryl's own, or reclass
/// 2.0's (chosen by the layout, never by flags scattered in the stages).
#[derive(Clone, Debug, Default)]
pub enum Flavor {
    #[default]
    Beryl,
    Reclass(Box<ReclassOptions>),
}

impl Flavor {
    /// reclass's options, under the reclass flavor.
    pub fn reclass(&self) -> Option<&ReclassOptions> {
        match self {
            Flavor::Beryl => None,
            Flavor::Reclass(o) => Some(o),
        }
    }
}

crate::diag::codes! {
    /// The codes of a reclass layout.
    pub(crate) enum Code in "reclass" {
        /// `nodes_uri` or `classes_uri` is not a directory.
        MissingDir = "missing_dir";
        /// A node or class folder cannot be listed.
        Io = "io";
        /// One node name given by two files.
        DuplicateNode = "duplicate_node";
        /// A setting of the config file with a value of the wrong type.
        Setting = "setting";
        /// A `class_mappings` rule that cannot be read.
        Mapping = "mapping";
        /// nodes_uri and classes_uri are the same folder, or one holds the other.
        Overlap = "overlap";
        /// A document of a single-file inventory without a usable `name` or `type`.
        Document = "document";
        /// A config file's `nodes_uri`, `classes_uri` or `inventory_base_uri`
        /// outside the folder of the config file and the inventory base.
        Outside = "outside";
    }
}

/// The config file names looked for in the inventory base, first found wins
/// ([`find_config`]).
const CONFIG_NAMES: &[&str] = &["reclass-config.yml", "kapicorp-reclass-config.yml"];

/// Whether `root` is a reclass inventory: a file that declares nodes
/// (Ferroclass's single-file inventory), or a folder with no
/// `_default.yml`, and a config file, or `nodes/` (or Kapitan's `targets/`)
/// beside `classes/`.
pub(crate) fn recognise(root: &Path) -> bool {
    if root.is_file() {
        return single::declares_nodes(root);
    }
    if ["_default.yml", "_default.yaml"]
        .iter()
        .any(|f| root.join(f).exists())
    {
        return false;
    }
    find_config(Some(root)).is_some()
        || (root.join("classes").is_dir()
            && (root.join("nodes").is_dir() || root.join("targets").is_dir()))
}

/// Discovers a reclass inventory based at `root`: the settings (built-in
/// defaults < Kapitan's when the layout is Kapitan's < the config file <
/// `overrides`), then the nodes.
pub(crate) fn discover(
    root: &Path,
    display: &str,
    overrides: &Overrides,
    limits: &Limits,
) -> Result<Inventory, Diags> {
    let options = config::settle(root, overrides, limits)?;
    if options.storage_type == StorageType::YamlFile {
        return single_file(root, display, options, limits);
    }
    let display = display.trim_end_matches('/').to_string();
    let shown = |p: &Path| -> (String, String) {
        let rel = p
            .strip_prefix(root)
            .map(|r| r.to_string_lossy().into_owned())
            .unwrap_or_else(|_| p.to_string_lossy().into_owned());
        let outside = p.is_absolute() && !p.starts_with(root);
        let disp = if outside || display.is_empty() || display == "." {
            rel.clone()
        } else {
            format!("{display}/{rel}")
        };
        (rel, disp)
    };
    let mut errors = Vec::new();
    for (what, dir) in [
        ("nodes_uri", &options.nodes_uri),
        ("classes_uri", &options.classes_uri),
    ] {
        if !dir.is_dir() {
            errors.push(
                Diag::new(
                    Code::MissingDir,
                    format!("{what} {} is not a directory", shown(dir).1),
                )
                .help("set nodes_uri and classes_uri in reclass-config.yml, or give -u/-c"),
            );
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let (n, c) = (
        canonical(&options.nodes_uri),
        canonical(&options.classes_uri),
    );
    if n.starts_with(&c) || c.starts_with(&n) {
        return Err(vec![Diag::new(
            Code::Overlap,
            format!(
                "nodes_uri {} and classes_uri {} overlap: one holds the other",
                shown(&options.nodes_uri).1,
                shown(&options.classes_uri).1
            ),
        )]);
    }
    let file = |p: &Path| {
        let (rel, display) = shown(p);
        LevelFile {
            path: p.to_path_buf(),
            rel,
            display,
        }
    };
    let nodes_dir = file(&options.nodes_uri);
    let classes_dir = file(&options.classes_uri);
    let hosts = nodes::walk(&nodes_dir, options.compose_node_name)?;
    Ok(Inventory {
        root: root.to_path_buf(),
        default: nodes_dir,
        classes_dir: Some(classes_dir),
        settings: None,
        domains: Vec::new(),
        groups: Vec::new(),
        hosts,
        flavor: Flavor::Reclass(Box::new(options)),
        documents: None,
    })
}

/// A single-file inventory (src/inventory/reclass/single.rs): `file` is the
/// inventory base.
fn single_file(
    file: &Path,
    display: &str,
    options: ReclassOptions,
    limits: &Limits,
) -> Result<Inventory, Diags> {
    if !file.is_file() {
        return Err(vec![
            Diag::new(
                Code::MissingDir,
                format!("the inventory {display} is not a file"),
            )
            .help(
                "with storage_type yaml_file, the inventory base (-b) is the inventory's one file",
            ),
        ]);
    }
    let rel = file
        .file_name()
        .map_or_else(|| display.to_string(), |n| n.to_string_lossy().into_owned());
    let level = LevelFile {
        path: file.to_path_buf(),
        rel,
        display: display.to_string(),
    };
    let (hosts, documents) = single::load(&level, limits)?;
    Ok(Inventory {
        root: file.parent().unwrap_or(Path::new(".")).to_path_buf(),
        default: level,
        classes_dir: None,
        settings: None,
        domains: Vec::new(),
        groups: Vec::new(),
        hosts,
        flavor: Flavor::Reclass(Box::new(options)),
        documents: Some(std::sync::Arc::new(documents)),
    })
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The path a class mapping matches under `class_mappings_match_path`: the
/// node file's path under nodes_uri without its extension; for a node at the
/// top with compose_node_name off, `./name` (kapicorp's `os.path.join` of a
/// `.` folder, survey §6 "Match path").
pub(crate) fn match_path(options: &ReclassOptions, host: &super::Host) -> String {
    let node = &host.file;
    // A node of a single-file inventory is a top-level node.
    let rel = match options.storage_type {
        StorageType::YamlFile => host.fqdn.clone(),
        StorageType::YamlFs => node
            .path
            .strip_prefix(&options.nodes_uri)
            .map(|r| r.to_string_lossy().into_owned())
            .unwrap_or_else(|_| node.rel.clone()),
    };
    let stem = nodes::strip_yaml(&rel).unwrap_or(&rel).to_string();
    if !stem.contains('/') && !options.compose_node_name {
        format!("./{stem}")
    } else {
        stem
    }
}

/// The `uri` reclass prints for a node: `yaml_fs://` and its file's absolute
/// path, `.` and `..` folded away as Python's `os.path.abspath` does (links
/// are not followed); in a single-file inventory Ferroclass's
/// `yaml_file://PATH#node:NAME`.
pub(crate) fn uri(options: &ReclassOptions, host: &super::Host) -> String {
    let file = &host.file.path;
    let absolute = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    let mut clean = PathBuf::new();
    for part in absolute.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                clean.pop();
            }
            other => clean.push(other),
        }
    }
    match options.storage_type {
        StorageType::YamlFs => format!("yaml_fs://{}", clean.display()),
        StorageType::YamlFile => format!("yaml_file://{}#node:{}", clean.display(), host.fqdn),
    }
}

/// Where reclass's config file is in the inventory `base` (Kapitan's
/// `reclass-config.yml`, then `kapicorp-reclass-config.yml`), the first
/// found.
fn find_config(base: Option<&Path>) -> Option<PathBuf> {
    let base = base?;
    CONFIG_NAMES
        .iter()
        .map(|n| base.join(n))
        .find(|p| p.is_file())
}

/// kapicorp-reclass's config file name (`reclass/defaults.py`
/// `CONFIG_FILE_NAME`: `RECLASS_NAME + '-config.yml'`).
const CONFIG_FILE_NAME: &str = "kapicorp-reclass-config.yml";

/// Whose a config file is, by where it was found: one that a pull request
/// can write (the current directory, the inventory, `--config`'s) keeps its
/// uris inside its folder and the base; the operator's own (`~`,
/// `/etc/kapicorp-reclass`, beryl's folder) may point anywhere, as the
/// command line may (docs/reclass.md "The config file").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Trust {
    #[default]
    Inventory,
    Operator,
}

/// A folder of the search, if it can be known.
type Folder = fn() -> Option<PathBuf>;

/// The folders `beryl reclass` searches for [`CONFIG_FILE_NAME`], in
/// kapicorp-reclass 2.0's order (`reclass/defaults.py`
/// `CONFIG_FILE_SEARCH_PATH`, read by `reclass/config.py`
/// `find_and_read_configfile`), whatever `-b` says; one row per place.
/// kapicorp's last place is its script's folder (`sys.argv[0]`); beryl's
/// is the folder of the beryl executable.
const SEARCH: &[(Folder, Trust)] = &[
    (|| std::env::current_dir().ok(), Trust::Inventory),
    (
        || std::env::var_os("HOME").map(PathBuf::from),
        Trust::Operator,
    ),
    (
        || Some(PathBuf::from("/etc/kapicorp-reclass")),
        Trust::Operator,
    ),
    (
        || {
            std::env::current_exe()
                .ok()?
                .parent()
                .map(Path::to_path_buf)
        },
        Trust::Operator,
    ),
];

/// The first config file of kapicorp's search, and whose it is.
fn search_config() -> Option<(PathBuf, Trust)> {
    SEARCH.iter().find_map(|(dir, trust)| {
        let file = dir()?.join(CONFIG_FILE_NAME);
        file.is_file().then_some((file, *trust))
    })
}

/// The inventory base and the config file of `beryl reclass`: `--config`'s
/// file, else the first of kapicorp's search ([`SEARCH`]), else none (then
/// discovery reads the base's own, [`find_config`]); the base given, else
/// that config file's `inventory_base_uri`, else the current directory.
pub(crate) fn locate(
    base: Option<&Path>,
    config: Option<&Path>,
    limits: &Limits,
) -> Result<(PathBuf, Option<(PathBuf, Trust)>), Diags> {
    let config = match config {
        Some(c) => Some((c.to_path_buf(), Trust::Inventory)),
        None => search_config(),
    };
    let base = match (base, &config) {
        (Some(b), _) => b.to_path_buf(),
        (None, Some((c, trust))) => {
            base_uri(c, *trust, limits)?.unwrap_or_else(|| PathBuf::from("."))
        }
        (None, None) => PathBuf::from("."),
    };
    Ok((base, config))
}

/// A config file's `inventory_base_uri`, relative to the file's folder
/// (kapicorp joins it to the current directory: the same when reclass is run
/// where its config is); inside that folder unless the file is the
/// operator's.
fn base_uri(config: &Path, trust: Trust, limits: &Limits) -> Result<Option<PathBuf>, Diags> {
    let node = crate::yaml::load_file(config, &config.display().to_string(), limits)?;
    let Some(entry) = node.get("inventory_base_uri") else {
        return Ok(None);
    };
    let Some(base) = entry.as_str() else {
        return Ok(None);
    };
    let dir = config.parent().unwrap_or(Path::new("."));
    let path = dir.join(base);
    if trust == Trust::Inventory {
        config::fence(&[dir], "inventory_base_uri", &path, &entry.span)?;
    }
    Ok(Some(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(path: &str) -> crate::inventory::Host {
        crate::inventory::Host {
            short: "n".into(),
            domain: String::new(),
            group: None,
            fqdn: "n".into(),
            file: LevelFile {
                path: PathBuf::from(path),
                rel: String::new(),
                display: String::new(),
            },
            parent: None,
        }
    }

    #[test]
    fn uris_are_absolute_and_folded() {
        let mut options = ReclassOptions::defaults(Path::new("/a"));
        assert_eq!(
            uri(&options, &host("/a/b/../c/./n.yml")),
            "yaml_fs:///a/c/n.yml"
        );
        options.storage_type = StorageType::YamlFile;
        assert_eq!(
            uri(&options, &host("/a/./inv.yml")),
            "yaml_file:///a/inv.yml#node:n"
        );
    }
}
