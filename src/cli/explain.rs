//! `beryl explain`: where a host's value came from, and which rule put it there.

use std::io::Write;

use super::{Context, Failure, Outcome, write_out};
use crate::diag::Diag;
use crate::output::explain;

crate::diag::codes! {
    /// The codes of the `explain` command.
    pub(crate) enum Code in "explain" {
        /// A PATH that does not parse.
        Path = "path";
    }
}

/// Explain a value of a host's effective config.
///
/// Prints the final value at PATH and, for each level of the host's chain,
/// where the level wrote it, the value it wrote (or "not set") and what became
/// of it; the strategy in force and where that rule was set; the origin of
/// each list item (injected keys say so); the reference of an interpolated
/// value; the inventory query that gathered a value; and, for a value that is
/// gone, what removed it (a knockout, a `~` key, a replacing value) and where.
/// A PATH that holds a mapping or a list merged by key explains its whole
/// subtree, deleted keys included.
///
/// HOST is one host: a selector that selects several (a domain, a group, a
/// glob, a class) is an error that lists them. To compare a value across
/// hosts, use `beryl render` or `beryl diff`.
///
/// PATH is dotted keys; list items are named by key (`freebsd.users.alice`)
/// or by value (`freebsd.packages.vim`), and a position is read as that name.
/// Every spelling beryl prints is read, and an item in brackets too
/// (`freebsd.users[alice].shell`). The syntax is documented in
/// docs/references.md.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl explain host01 freebsd.packages\n  \
    beryl explain host01 freebsd.users.alice\n  \
    beryl explain edge01 freebsd.users.bob\n  \
    beryl explain host01 'sysctl.\"net.inet.ip.forwarding\"' --format json")]
pub(crate) struct Args {
    /// The host: a selector (docs/inventory.md §2) that selects exactly one host.
    #[arg(value_name = "HOST")]
    pub host: String,

    /// A dotted path (quote segments holding `.`, `*` or `"`); list items by
    /// key or value, dotted or in brackets.
    #[arg(value_name = "PATH")]
    pub path: String,

    /// The output format (the JSON form is documented in docs/references.md).
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,

    #[command(flatten)]
    pub opts: super::options::CompileArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    Text,
    Json,
}

pub(crate) fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let bad = |why: String, help: &str| {
        vec![
            Diag::new(Code::Path, format!("bad path `{}`: {why}", args.path))
                .help(help.to_string()),
        ]
    };
    let segments = crate::syntax::path::parse_place(&args.path).map_err(|e| {
        bad(
            e.to_string(),
            "a dotted path such as freebsd.users.alice.shell",
        )
    })?;
    // `*` is a wildcard in merge patterns, not here: explain names one path.
    if segments.iter().any(|s| s.text == "*" && !s.quoted) {
        return Err(bad(
            "`*` is not a wildcard here: explain names one path".into(),
            "name the key (freebsd.users.alice), or write \"*\" for a key named *",
        ));
    }
    let path: Vec<String> = segments.into_iter().map(|s| s.text).collect();
    let inventory = ctx.inventory()?;
    let compiler = ctx.compiler(&inventory);
    let host = ctx.select_one(&compiler, &args.host, "explain")?;
    let compiled = crate::compile::compile(&compiler, host)?;
    ctx.warn(&compiled.diags);
    let explanation = explain::explain(&host.fqdn, &compiled, &path)?;
    let text = match args.format {
        Format::Text => explain::to_text(&explanation),
        Format::Json => {
            let mut t = serde_json::to_string_pretty(&explanation).unwrap_or_default();
            t.push('\n');
            t
        }
    };
    write_out(out, &text)?;
    Ok(Outcome::Ok)
}
