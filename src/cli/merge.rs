//! `beryl merge`: merge arbitrary YAML or JSON documents with a strategy.

use std::io::{Read, Write};
use std::path::PathBuf;

use super::options::ConfigFormat;
use super::{Context, Failure, Outcome, write_out};
use crate::diag::Diag;
use crate::merge::{self, Policy, Spec, Strategy};
use crate::output;
use crate::value::{Node, Source, Span};

/// Merge YAML or JSON documents, lowest priority first.
///
/// Each document's own root `merge:` table applies (and is left out of the
/// result); --strategy sets the strategy at the root and beats the tables
/// there. Without --strategy the root merges with `default`: mappings merge
/// recursively and anything else is replaced. Give `-` to read standard input.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl merge common.yaml role.yaml node.yaml --strategy deep --knockout-prefix=--\n  \
    beryl merge a.json b.json --strategy unique --format json\n  \
    beryl merge base.json patch.json --strategy patch\n\n\
    Strategies: default, first (alias replace), unique, hash, deep, append, concat, by_key, patch.\n\
    See docs/merge.md for each one and how it maps to Hiera, deep_merge, reclass and RFC 7396.")]
pub(crate) struct Args {
    /// The documents, lowest priority first (`-` for standard input).
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,

    /// The strategy at the root.
    #[arg(long, value_name = "NAME", value_parser = clap::builder::PossibleValuesParser::new(merge::spec::names()))]
    pub strategy: Option<String>,

    /// Knockout prefix (deep, append, by_key): an item `PREFIXx` removes `x`.
    #[arg(
        long,
        value_name = "P",
        requires = "strategy",
        allow_hyphen_values = true
    )]
    pub knockout_prefix: Option<String>,

    /// deep: merge lists whose elements are all mappings element by element.
    #[arg(long, requires = "strategy")]
    pub merge_hash_arrays: bool,

    /// deep, unique: sort merged lists.
    #[arg(long, requires = "strategy")]
    pub sort_merged_arrays: bool,

    /// by_key: the field that identifies an item (default `name`).
    #[arg(long, value_name = "FIELD", requires = "strategy")]
    pub key: Option<String>,

    /// The output format.
    #[arg(long, value_enum, default_value = "yaml")]
    pub format: ConfigFormat,

    #[command(flatten)]
    pub limits: super::options::LimitArgs,
}

pub(super) fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let root = args
        .strategy
        .as_deref()
        .map(|name| root_spec(name, args))
        .transpose()?;
    let mut docs = Vec::with_capacity(args.files.len());
    let mut errors = Vec::new();
    let patch = root.as_ref().is_some_and(|s| s.kind == Strategy::Patch);
    for path in &args.files {
        match load_text(ctx, path) {
            // An empty document is no data (as an empty level file in a
            // Hiera hierarchy), but RFC 7396 reads it as the patch null
            // (which the engine warns about where it deletes).
            Ok((node, text)) if is_empty_document(&node, &text) => {
                if patch {
                    docs.push(node);
                }
            }
            Ok((node, _)) => docs.push(node),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    if docs.is_empty() {
        // Nothing but empty documents: no data at all.
        let null = Node::synthetic(crate::value::Value::Null);
        let text = output::to_string(&null, args.format.into())?;
        write_out(out, &text)?;
        return Ok(Outcome::Ok);
    }
    let refs: Vec<&Node> = docs.iter().collect();
    let mut merged = merge::merge_documents(&refs, &Policy::default(), root.as_ref())?;
    crate::refs::resolve(&mut merged, &ctx.limits)?;
    ctx.warn(&merged.diags);
    let text = output::to_string(&merged.node, args.format.into())?;
    write_out(out, &text)?;
    Ok(Outcome::Ok)
}

/// The root spec from the command line, checked like a written one.
fn root_spec(name: &str, args: &Args) -> Result<Spec, Failure> {
    spec_from_flags(
        name,
        &Flags {
            knockout_prefix: args.knockout_prefix.as_deref(),
            merge_hash_arrays: args.merge_hash_arrays,
            sort_merged_arrays: args.sort_merged_arrays,
            key: args.key.as_deref(),
        },
    )
}

/// A strategy's options as command-line flags (`beryl merge`, `beryl lookup`).
pub(super) struct Flags<'a> {
    pub knockout_prefix: Option<&'a str>,
    pub merge_hash_arrays: bool,
    pub sort_merged_arrays: bool,
    pub key: Option<&'a str>,
}

/// A spec from a strategy name and flags, checked like a written one: a
/// flag the strategy does not take is an error naming the flag.
pub(super) fn spec_from_flags(name: &str, flags: &Flags<'_>) -> Result<Spec, Failure> {
    let kind = Strategy::from_name(name).unwrap_or(Strategy::Default);
    let mut spec = Spec::of(kind);
    let flag = |value: crate::value::Value| Node::synthetic(value);
    let mut set = |option: &str, value: Node| -> Result<(), Failure> {
        spec.set(option, &Span::synthetic(), &value)
            .map_err(|mut d| {
                d.message = format!("--{}: {}", option.replace('_', "-"), d.message);
                vec![d]
            })
    };
    if let Some(p) = flags.knockout_prefix {
        set("knockout_prefix", flag(crate::value::Value::Str(p.into())))?;
    }
    if flags.merge_hash_arrays {
        set("merge_hash_arrays", flag(crate::value::Value::Bool(true)))?;
    }
    if flags.sort_merged_arrays {
        set("sort_merged_arrays", flag(crate::value::Value::Bool(true)))?;
    }
    if let Some(k) = flags.key {
        set("key", flag(crate::value::Value::Str(k.into())))?;
    }
    Ok(spec)
}

/// Whether a document is empty: nothing but blank lines, comments and
/// document markers (an explicit `null` or `~` is a value).
fn is_empty_document(node: &Node, text: &str) -> bool {
    matches!(node.value, crate::value::Value::Null)
        && text.lines().all(|line| {
            let line = line.trim();
            let rest = ["---", "..."]
                .iter()
                .find_map(|m| line.strip_prefix(m))
                .filter(|r| r.is_empty() || r.starts_with([' ', '\t']))
                .unwrap_or(line)
                .trim_start();
            rest.is_empty() || rest.starts_with('#')
        })
}

/// A document read as [`load`] reads it, with its text.
fn load_text(ctx: &Context, path: &std::path::Path) -> Result<(Node, String), Diag> {
    let (name, text) = read(ctx, path)?;
    let node = crate::yaml::parse_any(&Source::new(name, text.clone()), &ctx.limits)?;
    Ok((node, text))
}

/// Reads a YAML or JSON document (`-` is standard input).
pub(super) fn load(ctx: &Context, path: &std::path::Path) -> Result<Node, Diag> {
    load_text(ctx, path).map(|(node, _)| node)
}

fn read(ctx: &Context, path: &std::path::Path) -> Result<(String, String), Diag> {
    let (name, text) = if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .take(ctx.limits.max_file_size.saturating_add(1))
            .read_to_string(&mut text)
            .map_err(|e| {
                Diag::new(
                    crate::diag::Common::Io,
                    format!("cannot read standard input: {e}"),
                )
            })?;
        if text.len() as u64 > ctx.limits.max_file_size {
            return Err(crate::limits::Limit::FileSize.diag(format!(
                "standard input is larger than the {}-byte file size cap",
                ctx.limits.max_file_size
            )));
        }
        ("<stdin>".to_string(), text)
    } else {
        let name = path.display().to_string();
        let text = crate::yaml::read_text(path, &name, ctx.limits.max_file_size)?;
        (name, text)
    };
    Ok((name, text))
}
