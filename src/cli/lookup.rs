//! `beryl lookup`: one key of one or more hosts, as `puppet lookup` looks a
//! key up (docs/lookup.md).

use std::io::Write;
use std::path::PathBuf;

use super::merge::{Flags, spec_from_flags};
use super::{Context, Failure, Outcome, write_out};
use crate::compile::{Compiler, Looked};
use crate::diag::{Diag, Diags};
use crate::inventory::Host;
use crate::merge::{self, Lookup};
use crate::output::lookup::{RenderAs, describe, render};
use crate::output::{self, explain};
use crate::value::{Loc, Node, Source, Value};

crate::diag::codes! {
    /// The codes of the `lookup` command.
    pub(crate) enum Code in "lookup" {
        /// A KEY that does not parse as a dotted path.
        Key = "key";
        /// A `--default` that does not parse as YAML, or a `--default-values-hash` that is not a mapping.
        Default = "default";
        /// `--explain` with a selection of more than one host.
        ExplainMany = "explain_many";
    }
}

/// Look a key up for hosts, as `puppet lookup` does.
///
/// KEY is a dotted path (docs/references.md). The merge is chosen as Hiera
/// chooses it: --merge if given (it beats every table at KEY and below);
/// else the `merge:`/`lookup_options` rule for KEY (an exact pattern, a `*`
/// pattern, a `^regex`, or the rule of an ancestor such as the root key);
/// else `first`, the highest level that writes KEY. Only the levels that
/// write KEY take part. Prints the value; with several hosts, a mapping of
/// FQDN to value. Exits 0 when found, 1 with `not found: KEY` on stderr when
/// a host has no value and no default, 2 on error. See docs/lookup.md.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl lookup freebsd.timezone --node host01\n  \
    beryl lookup freebsd.packages --node web/ --merge unique\n  \
    beryl lookup site --node host01 --merge deep --knock-out-prefix=--\n  \
    beryl lookup motd --node host01 --default 'Welcome to ${_beryl_.fqdn}'\n  \
    beryl lookup freebsd.hostname --all --render-as json")]
#[group(id = "hosts", required = true, multiple = true)]
pub(crate) struct Args {
    /// The key: a dotted path (quote segments holding `.`, `*` or `"`); list
    /// items by key, value or position, dotted or in brackets.
    #[arg(value_name = "KEY")]
    pub key: String,

    /// A host selector (docs/inventory.md §2); repeat for more.
    #[arg(long, value_name = "SELECTOR", group = "hosts")]
    pub node: Vec<String>,

    /// Every host of the inventory.
    #[arg(long, group = "hosts", conflicts_with = "node")]
    pub all: bool,

    /// The merge at KEY, beating every rule at KEY and below.
    #[arg(long, value_name = "NAME", value_parser = clap::builder::PossibleValuesParser::new(merge::spec::names()))]
    pub merge: Option<String>,

    /// Knockout prefix (deep, append, by_key): an item `PREFIXx` removes `x`.
    #[arg(long, value_name = "P", requires = "merge", allow_hyphen_values = true)]
    pub knock_out_prefix: Option<String>,

    /// deep, unique: sort merged lists.
    #[arg(long, requires = "merge")]
    pub sort_merged_arrays: bool,

    /// deep: merge lists whose elements are all mappings element by element.
    #[arg(long, requires = "merge")]
    pub merge_hash_arrays: bool,

    /// The value when KEY is not found: YAML, its `${…}` resolved against
    /// the host (a null default is a value).
    #[arg(long, value_name = "VALUE", allow_hyphen_values = true)]
    pub default: Option<String>,

    /// A YAML mapping consulted by KEY's root key when KEY is not found and
    /// no --default is given; its value is returned as written.
    #[arg(long, value_name = "FILE")]
    pub default_values_hash: Option<PathBuf>,

    /// The output: yaml (`--- value`), json (one line) or s (plain text).
    #[arg(long, value_enum, default_value = "yaml")]
    pub render_as: Render,

    /// Print `beryl explain`'s report for KEY, and how the lookup chose its merge.
    #[arg(long)]
    pub explain: bool,

    #[command(flatten)]
    pub opts: super::options::CompileArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Render {
    Yaml,
    Json,
    S,
}

pub(crate) fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let path = parse_key(&args.key)?;
    let explicit = args
        .merge
        .as_deref()
        .map(|name| {
            spec_from_flags(
                name,
                &Flags {
                    knockout_prefix: args.knock_out_prefix.as_deref(),
                    merge_hash_arrays: args.merge_hash_arrays,
                    sort_merged_arrays: args.sort_merged_arrays,
                    key: None,
                },
            )
            .map_err(|mut ds| {
                // Puppet's spelling of the flag.
                for d in &mut ds {
                    d.message = d.message.replace("--knockout-prefix", "--knock-out-prefix");
                }
                ds
            })
        })
        .transpose()?;
    let default = args.default.as_deref().map(parse_default).transpose()?;
    let values_hash = match (&args.default, &args.default_values_hash) {
        (None, Some(file)) => Some(values_hash(ctx, file)?),
        _ => None,
    };
    let lookup = Lookup { path, explicit };
    let inventory = ctx.inventory()?;
    let compiler = ctx.compiler(&inventory);
    let hosts = ctx.select(&compiler, &args.node, args.all)?;
    if args.explain && hosts.len() != 1 {
        return Err(vec![
            Diag::new(
                Code::ExplainMany,
                format!(
                    "--explain explains one host; the selection has {}",
                    hosts.len()
                ),
            )
            .help("give one --node that selects one host"),
        ]);
    }
    let looked = lookup_all(&compiler, &hosts, &lookup, default.as_ref())?;
    let mut found = Vec::with_capacity(hosts.len());
    let mut missing = Vec::new();
    for (host, l) in hosts.iter().zip(&looked) {
        ctx.warn(&l.diags);
        let value = l.value.clone().or_else(|| l.default.clone()).or_else(|| {
            values_hash
                .as_ref()
                .and_then(|h| from_values_hash(h, &lookup.path))
        });
        match value {
            Some(v) => found.push((host.fqdn.clone(), v)),
            None => missing.push(host.fqdn.as_str()),
        }
    }
    let how = match args.render_as {
        Render::Yaml => RenderAs::Yaml,
        Render::Json => RenderAs::Json,
        Render::S => RenderAs::Text,
    };
    let one = hosts.len() == 1 && crate::select::names_one(&args.node);
    let mut text = String::new();
    if let (true, Some(host), Some(l)) = (args.explain, hosts.first(), looked.first()) {
        text.push_str(&explained(&compiler, host, &lookup.path, &args.key, l));
    }
    text.push_str(&if one {
        match found.pop() {
            Some((_, v)) => render(&v, how)?,
            None => String::new(),
        }
    } else {
        found.sort_by(|a, b| a.0.cmp(&b.0));
        render(&output::mapping(found), how)?
    });
    write_out(out, &text)?;
    if missing.is_empty() {
        return Ok(Outcome::Ok);
    }
    // Puppet prints nothing; the issue asks for this line (docs/lookup.md §6).
    let mut err = std::io::stderr().lock();
    for fqdn in missing {
        let line = if one {
            format!("not found: {}\n", args.key)
        } else {
            format!("not found: {} on {fqdn}\n", args.key)
        };
        let _ = err.write_all(line.as_bytes());
    }
    Ok(Outcome::Differences)
}

/// Each host's lookup, in parallel when there are several, in host order.
fn lookup_all(
    compiler: &Compiler<'_>,
    hosts: &[&Host],
    lookup: &Lookup,
    default: Option<&Node>,
) -> Result<Vec<Looked>, Failure> {
    use rayon::prelude::*;
    let one = |h: &&Host| compiler.lookup(h, lookup, default);
    let results: Vec<Result<Looked, Diags>> = if hosts.len() < 2 {
        hosts.iter().map(one).collect()
    } else {
        hosts.par_iter().map(one).collect()
    };
    crate::diag::collect(results)
}

/// `beryl explain`'s report for the path (when the rendered config has it),
/// then the lookup's choice.
fn explained(
    compiler: &Compiler<'_>,
    host: &Host,
    path: &[String],
    key: &str,
    looked: &Looked,
) -> String {
    let mut text = String::new();
    // explain reads the rendered config: a host that does not validate has
    // none, and a path render does not have (the lookup's fold differs) is
    // not explained. The lookup goes on either way.
    if looked.value.is_some()
        && let Ok(compiled) = crate::compile::compile(compiler, host)
        && let Ok(e) = explain::explain(&host.fqdn, &compiled, path)
    {
        text.push_str(&explain::to_text(&e));
        text.push('\n');
    }
    text.push_str(&describe(key, &looked.choice));
    text.push('\n');
    if looked.value.is_none() {
        let source = if looked.default.is_some() {
            "not found: the default"
        } else {
            "not found"
        };
        text.push_str(&format!("lookup {key}: {source}\n"));
    }
    text
}

fn parse_key(key: &str) -> Result<Vec<String>, Failure> {
    let segments = crate::syntax::path::parse_place(key).map_err(|e| {
        vec![
            Diag::new(Code::Key, format!("bad key `{key}`: {e}"))
                .help("a dotted path such as freebsd.users.alice.shell"),
        ]
    })?;
    Ok(segments.into_iter().map(|s| s.text).collect())
}

fn parse_default(text: &str) -> Result<Node, Failure> {
    crate::yaml::parse_any(&Source::new("--default", text), &Default::default()).map_err(|d| {
        vec![
            Diag::new(
                Code::Default,
                format!("--default is not YAML: {}", d.message),
            )
            .help("quote a string that YAML would read otherwise: --default \"'a: b'\""),
        ]
    })
}

fn values_hash(ctx: &Context, file: &std::path::Path) -> Result<Node, Failure> {
    let node = super::merge::load(ctx, file)?;
    match node.value {
        Value::Map(_) => Ok(node),
        Value::Null => Ok(output::mapping([])),
        ref other => Err(vec![
            Diag::new(
                Code::Default,
                format!(
                    "--default-values-hash must hold a mapping of root key to value, found {}",
                    other.type_name()
                ),
            )
            .label(&node.span, "expected a mapping"),
        ]),
    }
}

/// The default-values hash at the key: its root key's entry, dug into
/// along the rest of the path.
fn from_values_hash(hash: &Node, path: &[String]) -> Option<Node> {
    let loc = Loc::locate(hash, path, |_| Some(crate::merge::spec::DEFAULT_KEY))?;
    loc.at(hash).cloned()
}
