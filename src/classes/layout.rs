//! How an inventory's flavor names, finds and reads its classes: one row
//! per flavor, chosen once per run ([`Layout::of`], in `Library::new`), so
//! that the library itself never asks which flavor it serves.

use std::sync::Arc;

use super::ClassedDoc;
use crate::diag::Diags;
use crate::inventory::Inventory;
use crate::value::Node;
use crate::yaml::Schema;

/// Where a class's file is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Find {
    /// beryl's: the path the name spells under `_classes/`.
    Paths,
    /// reclass's: an index of classes_uri (or of a single-file inventory's
    /// documents), walked once.
    Index,
}

/// A flavor's rules for classes.
#[derive(Clone, Copy)]
pub(super) struct Layout {
    /// The YAML its files are written in: beryl's YAML 1.2 core, or the
    /// YAML 1.1 of PyYAML that reclass reads (docs/reclass-yaml.md).
    pub schema: Schema,
    /// Whether a skipped missing class is reported (reclass's
    /// `ignore_class_notfound_warning`; beryl's layout skips silently).
    pub warns_skipped: bool,
    /// Why a name is not a class name.
    pub check_name: fn(&str) -> Result<(), String>,
    /// A document split into classes and data; the second argument is the
    /// entity's name, against which reclass resolves relative class names.
    pub split: fn(&Arc<Node>, &str) -> Result<ClassedDoc, Diags>,
    pub find: Find,
    /// The help of a missing class, in the flavor's own words: where to
    /// create it, and how its tool skips missing classes.
    pub missing_help: fn(&Inventory, &str) -> String,
}

impl Layout {
    /// The rules of `inventory`'s flavor.
    pub(super) fn of(inventory: &Inventory) -> Layout {
        match inventory.flavor.reclass() {
            None => Layout {
                schema: Schema::Core,
                warns_skipped: false,
                check_name: super::check_name,
                split: |node, _| ClassedDoc::split(node),
                find: Find::Paths,
                missing_help: |_, name| {
                    let base = name.replace('.', "/");
                    format!(
                        "create {}/{base}.yml (or {base}/init.yml), or allow missing classes with `ignore_class_notfound: true` in beryl.yml",
                        crate::inventory::CLASSES_DIR
                    )
                },
            },
            Some(options) => Layout {
                schema: Schema::Yaml11,
                warns_skipped: options.ignore_class_notfound_warning,
                check_name: super::reclass::check_name,
                split: super::reclass::split,
                find: Find::Index,
                missing_help: super::reclass::missing_help,
            },
        }
    }
}
