//! `beryl reclass`: a drop-in for the `reclass` command (kapicorp-reclass
//! 2.0's options and output), on a reclass inventory as it is.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{Context, Failure, Outcome, write_out};
use crate::compile::Compiler;
use crate::diag::Diag;
use crate::inventory::Inventory;
use crate::inventory::reclass::Overrides;
use crate::output::{self, Format};

crate::diag::codes! {
    /// The codes of the `reclass` command.
    pub(crate) enum Code in "reclass" {
        /// Neither --nodeinfo nor --inventory, or both.
        Mode = "mode";
        /// --nodeinfo names no node of the inventory.
        UnknownNode = "unknown_node";
    }
}

/// Print a reclass node's info, or the whole inventory, as reclass does.
///
/// The inventory is a reclass one as it is: `nodes/` and `classes/` (or
/// Kapitan's `targets/`) under the base, and its settings from the first
/// config file found: --config; `kapicorp-reclass-config.yml` in the current
/// directory, `~`, `/etc/kapicorp-reclass`, beryl's folder (kapicorp's
/// search, whatever -b says); else the base's `reclass-config.yml` or
/// `kapicorp-reclass-config.yml`. A config file's uris stay inside its folder
/// or the base, unless it is in `~`, `/etc/kapicorp-reclass` or beryl's
/// folder. The options below win over the file (docs/reclass.md).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl reclass -b inventory --nodeinfo web01 -o json\n  \
    beryl reclass -b inventory --inventory\n  \
    beryl reclass -b inventory -u targets -n mytarget\n  \
    beryl reclass -b inventory.yml -n web01     (one file, one document per node or class)")]
pub(crate) struct Args {
    /// The inventory base: nodes_uri and classes_uri are under it (default:
    /// the config file's inventory_base_uri, else the current directory).
    /// A file is a single-file inventory (`--storage-type yaml_file`).
    #[arg(short = 'b', long, value_name = "DIR")]
    pub inventory_base_uri: Option<PathBuf>,

    /// yaml_fs: nodes and classes in folders; yaml_file: the whole
    /// inventory in one YAML file, one document per node or class
    /// (Ferroclass's; docs/reclass.md). Default: the config file's, else
    /// yaml_file when the base is a file.
    #[arg(short = 's', long, value_name = "TYPE", value_parser = storage_type)]
    pub storage_type: Option<crate::inventory::reclass::StorageType>,

    /// The nodes folder, relative to the base (default: nodes).
    #[arg(short = 'u', long, value_name = "DIR")]
    pub nodes_uri: Option<PathBuf>,

    /// The classes folder, relative to the base (default: classes).
    #[arg(short = 'c', long, value_name = "DIR")]
    pub classes_uri: Option<PathBuf>,

    /// Print the info of one node.
    #[arg(short = 'n', long, value_name = "NODE")]
    pub nodeinfo: Option<String>,

    /// Print the whole inventory.
    #[arg(short = 'i', long)]
    pub inventory: bool,

    /// The output format.
    #[arg(short = 'o', long, value_enum, default_value = "yaml")]
    pub output: Output,

    /// Pretty-print (the default; reclass's `-y`).
    #[arg(short = 'y', long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub pretty_print: Option<bool>,

    /// Skip missing classes. As in reclass it takes a value, and any value
    /// turns it on; without a value it is on too.
    #[arg(short = 'z', long, num_args = 0..=1, default_missing_value = "true", value_name = "VALUE")]
    pub ignore_class_notfound: Option<String>,

    /// Which missing classes may be skipped (a regex matched from the start).
    #[arg(short = 'x', long, value_name = "REGEXP")]
    pub ignore_class_notfound_regexp: Option<String>,

    /// Name nodes by their folders too (`dir.sub.name`).
    #[arg(short = 'a', long)]
    pub compose_node_name: bool,

    /// Let `~` null replace a dict or a list.
    #[arg(long)]
    pub allow_none_override: bool,

    /// Parameters merged above the class mappings' classes and below
    /// `_reclass_` (Salt's input data), from a YAML file.
    #[arg(long, value_name = "FILE")]
    pub input_data: Option<PathBuf>,

    /// The config file to read instead of searching for one.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// The timestamp printed (default: now, as `time.strftime('%c')` in UTC).
    #[arg(long, value_name = "TEXT")]
    pub timestamp: Option<String>,

    #[command(flatten)]
    pub limits: super::options::LimitArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Output {
    Yaml,
    Json,
}

pub(super) fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    if args.nodeinfo.is_some() == args.inventory {
        return Err(vec![
            Diag::new(Code::Mode, "give either --nodeinfo NODE or --inventory")
                .help("beryl reclass -b DIR --nodeinfo NODE, or beryl reclass -b DIR --inventory"),
        ]);
    }
    let (base, config) = crate::inventory::reclass::locate(
        args.inventory_base_uri.as_deref(),
        args.config.as_deref(),
        &ctx.limits,
    )?;
    let (config, config_trust) = match config {
        Some((c, t)) => (Some(c), t),
        None => (None, Default::default()),
    };
    let overrides = Overrides {
        config,
        config_trust,
        storage_type: args.storage_type,
        nodes_uri: args.nodes_uri.clone(),
        classes_uri: args.classes_uri.clone(),
        ignore_class_notfound: args.ignore_class_notfound.as_ref().map(|v| !v.is_empty()),
        ignore_class_notfound_regexp: args.ignore_class_notfound_regexp.clone().map(|r| vec![r]),
        compose_node_name: args.compose_node_name.then_some(true),
        allow_none_override: args.allow_none_override.then_some(true),
        input_data: args.input_data.clone(),
    };
    let inventory = Inventory::discover_reclass(&base, &shown(&base), &overrides, &ctx.limits)?;
    // reclass's data as reclass outputs it: no FreeBSD meaning (SSH keys,
    // the `freebsd` section) is given to it here.
    let compiler = ctx.compiler(&inventory).data_only();
    // reclass answers `--inventory`'s queries over every environment, and
    // `--nodeinfo`'s over the node's own (unless it asks `+AllEnvs`).
    let compiler = match args.nodeinfo {
        Some(_) => compiler,
        None => compiler.every_environment(),
    };
    let stamp = args.timestamp.clone().unwrap_or_else(now);
    let format = match args.output {
        Output::Yaml => Format::Yaml,
        Output::Json => Format::Json,
    };
    let pretty = args.pretty_print.unwrap_or(true);
    match &args.nodeinfo {
        Some(name) => {
            let Some(host) = inventory.hosts.iter().find(|h| h.fqdn == *name) else {
                return Err(vec![
                    Diag::new(
                        Code::UnknownNode,
                        format!("no node `{name}` under {}", inventory.default.display),
                    )
                    .help("the nodes are the .yml files under nodes_uri, at any depth"),
                ]);
            };
            let c = crate::compile::compile(&compiler, host)?;
            ctx.warn(&c.diags);
            let info = c.reclass.unwrap_or_else(unreachable_info);
            let uri = uri(&inventory, host);
            let node = output::reclass::nodeinfo(&host.fqdn, &uri, c.config, &info, &stamp);
            let text = output::reclass::to_string(&node, format, pretty)?;
            write_out(out, &text)?;
        }
        None => {
            let nodes = inventory_nodes(ctx, &compiler, &inventory, &stamp, format, pretty)?;
            // Pieces of a few bytes between texts of a few KiB: buffered,
            // they reach stdout in large writes.
            let mut buffered = std::io::BufWriter::with_capacity(1 << 16, &mut *out);
            let mut emit = |piece: &str| write_out(&mut buffered, piece);
            output::reclass::inventory(nodes, &stamp, format, pretty, &mut emit)?;
            flush(&mut buffered)?;
        }
    }
    // The process exits after this command: freeing the compiler's cache
    // (every file parsed) and the inventory would only cost time, 3-5% of a
    // 1k-node --inventory (docs/performance.md §9).
    std::mem::forget(compiler);
    std::mem::forget(inventory);
    Ok(Outcome::Ok)
}

/// Every node's output, compiled and serialised in parallel, in node order.
fn inventory_nodes(
    ctx: &Context,
    compiler: &Compiler<'_>,
    inventory: &Inventory,
    stamp: &str,
    format: Format,
    pretty: bool,
) -> Result<Vec<output::reclass::InventoryNode>, Failure> {
    let hosts: Vec<_> = inventory.hosts.iter().collect();
    let results = ctx.compile_many(compiler, &hosts, |host, c| {
        let info = c.reclass.unwrap_or_else(unreachable_info);
        let uri = uri(inventory, host);
        output::reclass::InventoryNode::new(&host.fqdn, &uri, c.config, info, stamp, format, pretty)
            .map_err(Failure::from)
    });
    crate::diag::collect(results)
}

/// The `uri` of a node of a reclass inventory.
fn uri(inventory: &Inventory, host: &crate::inventory::Host) -> String {
    match inventory.flavor.reclass() {
        Some(options) => crate::inventory::reclass::uri(options, host),
        None => String::new(),
    }
}

/// A reclass inventory's compile always gives its info; an empty one
/// otherwise.
fn unreachable_info() -> crate::compile::reclass::ReclassInfo {
    crate::compile::reclass::ReclassInfo {
        classes: Vec::new(),
        applications: Vec::new(),
        environment: String::new(),
        exports: crate::value::Node::synthetic(crate::value::Value::Null),
    }
}

/// `--storage-type`: a name of the table of storage types.
fn storage_type(name: &str) -> Result<crate::inventory::reclass::StorageType, String> {
    let types = crate::inventory::reclass::STORAGE_TYPES;
    match types.iter().find(|(n, _)| *n == name) {
        Some((_, t)) => Ok(*t),
        None => Err(format!(
            "one of {}",
            types.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
        )),
    }
}

fn now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    output::reclass::timestamp(secs)
}

/// Flushes `out` as [`write_out`] writes: a closed pipe is not an error.
fn flush(out: &mut dyn Write) -> Result<(), Failure> {
    match out.flush() {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(vec![Diag::new(
            crate::diag::Common::Io,
            format!("cannot write the output: {e}"),
        )]),
        _ => Ok(()),
    }
}

fn shown(p: &Path) -> String {
    p.display().to_string()
}
