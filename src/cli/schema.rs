//! `beryl schema`: the JSON Schema of level files, for editors.

use std::io::Write;

use super::{Context, Failure, Outcome, write_out};
use crate::inventory::LevelKind;
use crate::jsonschema;

/// Print the JSON Schema (2020-12) of inventory level files.
///
/// The schema is generated from beryl's own types: it knows every key of
/// `freebsd` with its description, the domain's `ssh_keys` and `merge`
/// tables, and leaves the other root keys free-form. Editors use it through
/// yaml-language-server (docs/editors.md). Without --level, it fits every
/// level file; with it, it adds that level's rules (`_domain.yml` needs
/// `ssh_keys`, the others may not have it). It checks the shape of each file
/// alone: `beryl check` still validates each host's merged config.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl schema > beryl.schema.json\n  \
    beryl schema --level domain > beryl-domain.schema.json\n\n\
    Then put `# yaml-language-server: $schema=../beryl.schema.json` at the top of a level file,\n\
    or map the files to the schema in the editor's settings (docs/editors.md).")]
pub(crate) struct Args {
    /// The level whose rules to add (default: a schema every level file fits).
    #[arg(long, value_enum, value_name = "LEVEL")]
    pub level: Option<LevelArg>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LevelArg {
    /// `_default.yml`.
    Default,
    /// A domain's `_domain.yml`.
    Domain,
    /// A group's `_group.yml`.
    Group,
    /// A host file.
    Host,
}

pub(super) fn run(_ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let level = args.level.map(|level| match level {
        LevelArg::Default => LevelKind::Default,
        LevelArg::Domain => LevelKind::Domain,
        LevelArg::Group => LevelKind::Group,
        LevelArg::Host => LevelKind::Host,
    });
    let mut text = serde_json::to_string_pretty(&jsonschema::level_file(level)).unwrap_or_default();
    text.push('\n');
    write_out(out, &text)?;
    Ok(Outcome::Ok)
}
