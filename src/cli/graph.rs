//! `beryl graph`: the inheritance graph of the inventory.

use std::io::Write;

use super::{Context, Failure, Outcome, write_out};
use crate::output::graph::Graph;

/// Draw the inheritance graph: _default → domains → groups → hosts.
///
/// Each node is a level file (hosts also show their FQDN); each edge is
/// labelled with the level it leads to. A host's chain is the path from
/// _default.yml to it: the levels `beryl explain` goes through. With HOST
/// arguments, only their chains are drawn. The output is DOT for Graphviz
/// (`dot -Tsvg`) or a Mermaid flowchart.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl graph | dot -Tsvg -o graph.svg\n  \
    beryl graph host01 mail --format mermaid\n  \
    beryl graph --format mermaid > docs/inventory.mmd")]
pub(crate) struct Args {
    /// Hosts whose chains to draw (default: all): names, DOMAIN/, DOMAIN/GROUP/, quoted globs or class:NAME (docs/inventory.md §2).
    #[arg(value_name = "SELECTOR")]
    pub hosts: Vec<String>,

    /// The output format.
    #[arg(long, value_enum, default_value = "dot")]
    pub format: Format,

    #[command(flatten)]
    pub inventory: super::options::InventoryArgs,

    #[command(flatten)]
    pub limits: super::options::LimitArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// Graphviz DOT.
    Dot,
    /// A Mermaid flowchart.
    Mermaid,
}

pub(super) fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let inventory = ctx.inventory()?;
    let graph = if args.hosts.is_empty() {
        Graph::of(&inventory, None)
    } else {
        let hosts = ctx.select(&ctx.compiler(&inventory), &args.hosts, false)?;
        Graph::of(&inventory, Some(&hosts))
    };
    let text = match args.format {
        Format::Dot => graph.to_dot(),
        Format::Mermaid => graph.to_mermaid(),
    };
    write_out(out, &text)?;
    Ok(Outcome::Ok)
}
