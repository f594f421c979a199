//! The dialects a file may be read in, and the entry points that take one.

use std::path::Path;
use std::sync::Arc;

use super::{Limits, mapping_root, parse_any, read_text, yaml11};
use crate::diag::Diag;
use crate::value::{Node, Source};

/// The dialect a file is read in: how plain scalars resolve, and what a
/// key written twice does. The caller chooses (the compile stage, by the
/// inventory's flavor); every entry point without a schema reads [`Schema::Core`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Schema {
    /// YAML 1.2 core, beryl's own (see the module's documentation).
    #[default]
    Core,
    /// YAML 1.1 as PyYAML's SafeLoader reads it, reclass's dialect:
    /// `yes`/`on` are booleans, `0777` octal, `1:30` sexagesimal, a key
    /// written twice keeps its last value with a warning (docs/reclass-yaml.md).
    Yaml11,
}

/// A loaded document and the warnings found reading it (a key written
/// twice, in [`Schema::Yaml11`]).
#[derive(Debug)]
pub struct Loaded {
    pub node: Node,
    pub warnings: Vec<Diag>,
}

/// [`load_file`] in a given dialect.
pub fn load_file_as(
    path: &Path,
    name: &str,
    limits: &Limits,
    schema: Schema,
) -> Result<Loaded, Diag> {
    let text = read_text(path, name, limits.max_file_size)?;
    parse_as(&Source::new(name, text), limits, schema)
}

/// [`parse`] in a given dialect: a mapping root (an empty document is an
/// empty mapping).
pub fn parse_as(source: &Arc<Source>, limits: &Limits, schema: Schema) -> Result<Loaded, Diag> {
    let Loaded { node, warnings } = parse_any_as(source, limits, schema)?;
    Ok(Loaded {
        node: mapping_root(node)?,
        warnings,
    })
}

/// [`parse_any`] in a given dialect.
pub fn parse_any_as(source: &Arc<Source>, limits: &Limits, schema: Schema) -> Result<Loaded, Diag> {
    let (node, warnings) = match schema {
        Schema::Core => (parse_any(source, limits)?, Vec::new()),
        Schema::Yaml11 => yaml11::parse_any(source, limits)?,
    };
    Ok(Loaded { node, warnings })
}
