//! reclass's settings: built-in defaults (kapicorp-reclass 2.0's
//! `defaults.py`), Kapitan's when the layout is Kapitan's, the config file,
//! then the command line. One table row per setting of the config file.

use std::path::{Path, PathBuf};

use super::Code;
use crate::diag::{Diag, Diags};
use crate::value::{Node, Span, Value};
use crate::yaml::Limits;

/// The settings of reclass 2.0 that change a result (survey §6 "Settings
/// and defaults"), the folders resolved.
#[derive(Clone, Debug)]
pub struct ReclassOptions {
    /// Where the nodes and classes are: folders, or one file.
    pub storage_type: StorageType,
    pub nodes_uri: PathBuf,
    pub classes_uri: PathBuf,
    pub ignore_class_notfound: bool,
    pub ignore_class_notfound_regexp: Vec<String>,
    pub ignore_class_notfound_warning: bool,
    pub ignore_overwritten_missing_references: bool,
    pub strict_constant_parameters: bool,
    pub allow_none_override: bool,
    pub allow_scalar_over_dict: bool,
    pub allow_scalar_over_list: bool,
    pub allow_list_over_scalar: bool,
    pub allow_dict_over_scalar: bool,
    pub automatic_parameters: bool,
    pub default_environment: String,
    /// The rules as written, each `PATTERN CLASS…` (src/inventory/reclass/mapping.rs).
    pub class_mappings: Vec<Node>,
    pub class_mappings_match_path: bool,
    pub compose_node_name: bool,
    /// `--input-data FILE`: parameters merged above the class mappings'
    /// classes and below `_reclass_` (Salt's `set_input_data`).
    pub input_data: Option<PathBuf>,
    /// The config file read, if any.
    pub config_file: Option<PathBuf>,
    /// The backtracking budget of the class mappings' regexes, shared by
    /// every node of the run (src/inventory/reclass/mapping.rs).
    pub mapping_budget: std::sync::Arc<super::mapping::Budget>,
}

impl ReclassOptions {
    /// reclass 2.0's defaults for an inventory based at `base`.
    pub(crate) fn defaults(base: &Path) -> Self {
        ReclassOptions {
            storage_type: StorageType::YamlFs,
            nodes_uri: base.join("nodes"),
            classes_uri: base.join("classes"),
            ignore_class_notfound: false,
            ignore_class_notfound_regexp: vec![".*".into()],
            ignore_class_notfound_warning: true,
            ignore_overwritten_missing_references: true,
            strict_constant_parameters: true,
            allow_none_override: false,
            allow_scalar_over_dict: false,
            allow_scalar_over_list: false,
            allow_list_over_scalar: false,
            allow_dict_over_scalar: false,
            automatic_parameters: true,
            default_environment: "base".into(),
            class_mappings: Vec::new(),
            class_mappings_match_path: false,
            compose_node_name: false,
            input_data: None,
            config_file: None,
            mapping_budget: Default::default(),
        }
    }
}

/// reclass's `storage_type`: kapicorp's folders, or Ferroclass's single
/// file (src/inventory/reclass/single.rs), whose path is the inventory base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StorageType {
    YamlFs,
    YamlFile,
}

/// The storage types, by the name the config file and `-s` give them.
pub(crate) const STORAGE_TYPES: &[(&str, StorageType)] = &[
    ("yaml_fs", StorageType::YamlFs),
    ("yaml_file", StorageType::YamlFile),
];

/// What the command line sets (`beryl reclass`'s options); `None` leaves the
/// config file's value, or the default.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub config: Option<PathBuf>,
    /// Whose `config` is (a config found in the base is the inventory's).
    pub config_trust: super::Trust,
    pub storage_type: Option<StorageType>,
    pub nodes_uri: Option<PathBuf>,
    pub classes_uri: Option<PathBuf>,
    pub ignore_class_notfound: Option<bool>,
    pub ignore_class_notfound_regexp: Option<Vec<String>>,
    pub compose_node_name: Option<bool>,
    pub allow_none_override: Option<bool>,
    pub input_data: Option<PathBuf>,
}

type Flag = fn(&mut ReclassOptions) -> &mut bool;

/// The boolean settings of the config file.
const FLAGS: &[(&str, Flag)] = &[
    ("ignore_class_notfound", |o| &mut o.ignore_class_notfound),
    ("ignore_class_notfound_warning", |o| {
        &mut o.ignore_class_notfound_warning
    }),
    ("ignore_overwritten_missing_references", |o| {
        &mut o.ignore_overwritten_missing_references
    }),
    ("strict_constant_parameters", |o| {
        &mut o.strict_constant_parameters
    }),
    ("allow_none_override", |o| &mut o.allow_none_override),
    ("allow_scalar_over_dict", |o| &mut o.allow_scalar_over_dict),
    ("allow_scalar_over_list", |o| &mut o.allow_scalar_over_list),
    ("allow_list_over_scalar", |o| &mut o.allow_list_over_scalar),
    ("allow_dict_over_scalar", |o| &mut o.allow_dict_over_scalar),
    ("automatic_parameters", |o| &mut o.automatic_parameters),
    ("class_mappings_match_path", |o| {
        &mut o.class_mappings_match_path
    }),
    ("compose_node_name", |o| &mut o.compose_node_name),
];

/// Builds the settings of an inventory based at `base`.
pub(super) fn settle(
    base: &Path,
    over: &Overrides,
    limits: &Limits,
) -> Result<ReclassOptions, Diags> {
    let mut o = ReclassOptions::defaults(base);
    let (config, trust) = match &over.config {
        Some(c) => (Some(c.clone()), over.config_trust),
        None => (super::find_config(Some(base)), super::Trust::Inventory),
    };
    // Kapitan's layout: targets/ beside classes/, and no nodes/.
    if !base.join("nodes").is_dir() && base.join("targets").is_dir() {
        o.nodes_uri = base.join("targets");
        o.allow_none_override = true;
    }
    if let Some(path) = &config {
        let shown = path.display().to_string();
        let node = crate::yaml::load_file(path, &shown, limits)?;
        let uris = read(&mut o, &node, base)?;
        o.config_file = Some(path.clone());
        // A uri the command line does not replace stays inside the config
        // file's folder or the base, unless the file is the operator's own.
        let replaced = |key: &str| match key {
            "nodes_uri" => over.nodes_uri.is_some(),
            _ => over.classes_uri.is_some(),
        };
        if trust == super::Trust::Inventory {
            let dir = path.parent().unwrap_or(Path::new("."));
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            let errors: Diags = uris
                .iter()
                .filter(|(key, _, _)| !replaced(key))
                .filter_map(|(key, p, span)| fence(&[dir, base], key, p, span).err())
                .flatten()
                .collect();
            if !errors.is_empty() {
                return Err(errors);
            }
        }
    }
    let uri = |p: &PathBuf| {
        if p.is_absolute() {
            p.clone()
        } else {
            base.join(p)
        }
    };
    // A file is an inventory of one file, whatever the config file says.
    if base.is_file() {
        o.storage_type = StorageType::YamlFile;
    }
    if let Some(v) = over.storage_type {
        o.storage_type = v;
    }
    if let Some(p) = &over.nodes_uri {
        o.nodes_uri = uri(p);
    }
    if let Some(p) = &over.classes_uri {
        o.classes_uri = uri(p);
    }
    if let Some(v) = over.ignore_class_notfound {
        o.ignore_class_notfound = v;
    }
    if let Some(v) = &over.ignore_class_notfound_regexp {
        o.ignore_class_notfound_regexp = v.clone();
    }
    if let Some(v) = over.compose_node_name {
        o.compose_node_name = v;
    }
    if let Some(v) = over.allow_none_override {
        o.allow_none_override = v;
    }
    o.input_data = over.input_data.clone();
    Ok(o)
}

/// A uri a config file sets: its key, the path and where it is written.
type Uri = (&'static str, PathBuf, Span);

/// Reads a config file's settings into `o`, and returns the uris it sets.
/// Keys reclass does not know are ignored, as reclass does.
fn read(o: &mut ReclassOptions, node: &Node, base: &Path) -> Result<Vec<Uri>, Diags> {
    let mut errors = Vec::new();
    let mut uris = Vec::new();
    for (key, entry) in node.as_map().into_iter().flatten() {
        let n = &entry.node;
        if let Some((_, flag)) = FLAGS.iter().find(|(k, _)| k == key) {
            match truth(n) {
                Some(b) => *flag(o) = b,
                None => errors.push(wrong(n, key, "true or false")),
            }
            continue;
        }
        let uri = |p: &str| {
            let p = PathBuf::from(p);
            if p.is_absolute() { p } else { base.join(p) }
        };
        match (key.as_str(), &n.value) {
            ("nodes_uri", Value::Str(s)) => {
                o.nodes_uri = uri(s);
                uris.push(("nodes_uri", o.nodes_uri.clone(), n.span.clone()));
            }
            ("classes_uri", Value::Str(s)) => {
                o.classes_uri = uri(s);
                uris.push(("classes_uri", o.classes_uri.clone(), n.span.clone()));
            }
            ("default_environment", Value::Str(s)) => o.default_environment = s.clone(),
            ("ignore_class_notfound_regexp", Value::Str(s)) => {
                o.ignore_class_notfound_regexp = vec![s.clone()];
            }
            ("ignore_class_notfound_regexp", Value::Seq(items)) => {
                o.ignore_class_notfound_regexp = items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_string))
                    .collect();
            }
            ("class_mappings", Value::Seq(items)) => o.class_mappings = items.clone(),
            ("class_mappings", Value::Null) => o.class_mappings = Vec::new(),
            ("storage_type", Value::Str(s)) => {
                match STORAGE_TYPES.iter().find(|(name, _)| name == s) {
                    Some((_, t)) => o.storage_type = *t,
                    None => errors.push(
                        Diag::new(
                            Code::Setting,
                            format!("the storage type `{s}` is not supported here"),
                        )
                        .label(&n.span, "this storage type")
                        .help("yaml_fs (folders) or yaml_file (one file); not yaml_git or mixed"),
                    ),
                }
            }
            (
                "nodes_uri"
                | "classes_uri"
                | "storage_type"
                | "default_environment"
                | "ignore_class_notfound_regexp"
                | "class_mappings",
                _,
            ) => errors.push(wrong(n, key, "a string or a list")),
            _ => {}
        }
    }
    if errors.is_empty() {
        Ok(uris)
    } else {
        Err(errors)
    }
}

/// Refuses `path`, which a config file sets at `span` for `key`, unless it
/// is inside one of `roots` once links are followed (both sides
/// canonicalised; a path that does not exist is folded as written, `..`
/// and all). The error quotes the config file's line only, nothing of the
/// place it names.
pub(crate) fn fence(roots: &[&Path], key: &str, path: &Path, span: &Span) -> Result<(), Diags> {
    let resolved = |p: &Path| {
        std::fs::canonicalize(p).unwrap_or_else(|_| {
            let absolute = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
            let mut clean = PathBuf::new();
            for part in absolute.components() {
                match part {
                    std::path::Component::CurDir => {}
                    std::path::Component::ParentDir => {
                        clean.pop();
                    }
                    other => clean.push(other),
                }
            }
            clean
        })
    };
    let target = resolved(path);
    if roots.iter().any(|r| target.starts_with(resolved(r))) {
        return Ok(());
    }
    Err(vec![
        Diag::new(
            Code::Outside,
            format!(
                "the config file's `{key}` leaves the inventory: it must be inside the config file's folder or the inventory base"
            ),
        )
        .label(span, "this folder is outside (links followed)")
        .help(
            "a config file a pull request can write reads only inside the inventory; \
             give the folder on the command line (-b, -u, -c) if it is meant",
        ),
    ])
}

/// A setting's truth value: a boolean, or a YAML 1.1 spelling (reclass reads
/// its config with PyYAML).
fn truth(n: &Node) -> Option<bool> {
    match &n.value {
        Value::Bool(b) => Some(*b),
        Value::Str(s) => match s.to_ascii_lowercase().as_str() {
            "yes" | "on" | "true" => Some(true),
            "no" | "off" | "false" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

fn wrong(n: &Node, key: &str, what: &str) -> Diag {
    Diag::new(
        Code::Setting,
        format!(
            "the setting `{key}` expects {what}, found {}",
            n.value.type_name()
        ),
    )
    .label(&n.span, "this value")
}
