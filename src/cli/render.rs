//! `beryl render`: print the effective config of hosts.

use std::io::Write;

use super::options::ConfigFormat;
use super::{Context, Failure, Outcome, write_out};
use crate::compile::Compiler;
use crate::diag::Diag;
use crate::inventory::Host;
use crate::outdir::{self, reuse};
use crate::output::annotate::Notes;
use crate::output::{self, Format};

crate::diag::codes! {
    /// The codes of the `render` command.
    pub(crate) enum Code in "render" {
        /// `--annotate` with `--format json`, which has no comments.
        AnnotateJson = "annotate_json";
    }
}

/// Print the effective config of one or more hosts.
///
/// With one host named, prints its config. Otherwise (several selectors, a
/// domain, a group, a glob, a class, or --all) prints a mapping from FQDN to
/// config, sorted by FQDN, however many hosts match. Nothing is printed unless
/// every host compiles and passes what `check` checks: a host with a `freebsd`
/// section must be one that `plan` can install and `apply` can reach.
///
/// With --annotate, every scalar and list item ends with a comment naming the
/// file:line of the value that won (`injected: …` for the domain keys of a
/// user, `${…} at … ← …` for a string with references, `computed` for
/// `_beryl_`). Stripping the comments gives the plain YAML output.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  beryl render host01\n  beryl render example.org/web/host01 --format json\n  beryl render --all\n  beryl render example.org/web/ 'db*'\n  beryl render class:roles.web\n  beryl render host01 --annotate\n  beryl render --all --out out/"
)]
pub(crate) struct Args {
    /// Hosts: names, DOMAIN/, DOMAIN/GROUP/, quoted globs or class:NAME (docs/inventory.md §2).
    #[arg(value_name = "SELECTOR", required_unless_present = "all")]
    pub hosts: Vec<String>,

    /// Render every host of the inventory.
    #[arg(long, conflicts_with = "hosts")]
    pub all: bool,

    /// The output format.
    #[arg(long, value_enum, default_value = "yaml")]
    pub format: ConfigFormat,

    /// End each value with a comment giving the file:line it came from (YAML only).
    #[arg(long, conflicts_with = "out")]
    pub annotate: bool,

    /// Write one file per host into DIR (`<fqdn>.yml` or `.json`) and a hash
    /// manifest, `beryl-manifest.json`. Nothing changes unless every host compiles.
    /// Only the hosts whose inputs changed since the manifest are compiled.
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,

    /// With --out: compile and write every host, even those whose inputs
    /// did not change since the manifest was written.
    #[arg(long, requires = "out")]
    pub full: bool,

    #[command(flatten)]
    pub opts: super::options::CompileArgs,
}

pub(crate) fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    if args.annotate && args.format == ConfigFormat::Json {
        return Err(vec![
            Diag::new(
                Code::AnnotateJson,
                "--annotate writes YAML comments, and JSON has no comments",
            )
            .help("drop --format json (YAML is the default), or drop --annotate"),
        ]);
    }
    let inventory = ctx.inventory()?;
    let compiler = ctx.compiler(&inventory);
    let hosts = ctx.select(&compiler, &args.hosts, args.all)?;
    if let Some(dir) = &args.out {
        return render_dir(ctx, &compiler, &hosts, dir, args.format.into(), args.full);
    }
    // One host named prints its config alone; else the FQDN → config
    // mapping, each host's entry serialised as soon as it is compiled.
    let bare = hosts.len() == 1 && crate::select::names_one(&args.hosts);
    let format = args.format.into();
    let results = ctx.compile_many(&compiler, &hosts, |host, c| {
        crate::validate::host(&host.fqdn, &c)?;
        let notes = args.annotate.then(|| Notes::for_host(&c));
        let key = (!bare).then_some(host.fqdn.as_str());
        let text = output::part(key, c.config, notes, format)?;
        Ok((host.fqdn.clone(), text))
    });
    let mut parts = crate::diag::collect(results)?;
    parts.sort_by(|a, b| a.0.cmp(&b.0));
    let parts: Vec<String> = parts.into_iter().map(|(_, text)| text).collect();
    let pieces: Box<dyn Iterator<Item = &str>> = if bare {
        Box::new(parts.iter().map(String::as_str))
    } else {
        Box::new(output::join(&parts, format))
    };
    for piece in pieces {
        write_out(out, piece)?;
    }
    Ok(Outcome::Ok)
}

/// `--out DIR`: every host whose inputs changed since DIR's manifest (every
/// host with `full`) compiled in parallel, then written with the manifest;
/// on any error nothing in DIR changes (outdir/reuse.rs).
fn render_dir(
    ctx: &Context,
    compiler: &Compiler<'_>,
    hosts: &[&Host],
    dir: &std::path::Path,
    format: Format,
    full: bool,
) -> Result<Outcome, Failure> {
    // Each host's file is staged as soon as it is rendered, so the writes
    // overlap the other hosts' compiles and no text is kept; nothing in DIR
    // changes until the commit, and dropping the writer undoes the stage.
    let writer = outdir::DirWriter::begin(dir, format)?;
    let inventory = compiler.inventory();
    let options = options(ctx, inventory, format);
    // A reclass inventory records nothing: its hosts are always compiled.
    let records = inventory.flavor.reclass().is_none() && inventory.documents.is_none();
    let roots = reuse::Roots {
        inventory: inventory.root.clone(),
        ssh: ctx.ssh_dir.clone(),
    };
    let mut plan = if full || !records {
        reuse::Plan::default()
    } else {
        let current: Vec<reuse::Current<'_>> = hosts
            .iter()
            .map(|h| reuse::Current {
                fqdn: &h.fqdn,
                chain: inventory
                    .chain(h)
                    .iter()
                    .map(|l| l.file.rel.as_str())
                    .collect(),
            })
            .collect();
        let fleet = hosts.len() == inventory.hosts.len();
        reuse::Plan::new(writer.old(), &options, &current, fleet, &roots, dir)
    };
    let mut done = Done::default();
    // The fleet hosts whose own inputs did not change wait for the others:
    // reused if their exports did not change (reuse.rs), else compiled.
    let first: Vec<&Host> = (hosts.iter().copied())
        .filter(|h| !plan.reused.contains_key(&h.fqdn) && !plan.pending.contains_key(&h.fqdn))
        .collect();
    let stage = |host: &Host, c: crate::compile::Compiled| {
        crate::validate::host(&host.fqdn, &c)?;
        let text = output::to_string(&c.config, format)?;
        let record = records.then(|| record(c.inputs, &c.config));
        // A host compiled again to the same bytes keeps its file.
        let hash = outdir::hash(&text);
        let staged = if !full && writer.unchanged(&host.fqdn, &hash) {
            Ok(Some((hash, false)))
        } else {
            (writer.stage(&host.fqdn, &text)).map(|h| h.map(|h| (h, true)))
        };
        Ok((host.fqdn.clone(), staged, record))
    };
    done.add(ctx.compile_many(compiler, &first, stage))?;
    let rest = plan.settle(&done.compiled);
    let second: Vec<&Host> = (hosts.iter().copied())
        .filter(|h| rest.contains(&h.fqdn))
        .collect();
    done.add(ctx.compile_many(compiler, &second, stage))?;
    done.kept.extend(plan.reused.keys().cloned());
    eprintln!(
        "recompiled {} of {} hosts, wrote {}",
        first.len() + second.len(),
        hosts.len(),
        hosts.len() - done.kept.len()
    );
    for (fqdn, (hash, _)) in &plan.reused {
        done.hashes.insert(fqdn.clone(), hash.clone());
    }
    let table = plan.records(done.compiled, &roots);
    let manifest = outdir::Manifest::new(format, options, done.hashes, table);
    writer.commit(manifest, &done.kept)?;
    Ok(Outcome::Ok)
}

/// One host compiled for `--out`: its FQDN, its hash and whether it was
/// staged (or the write error), and its record.
type Staged = (
    String,
    Result<Option<(String, bool)>, Diag>,
    Option<reuse::Record>,
);

/// What the compiles of a `--out` write gave.
#[derive(Default)]
struct Done {
    hashes: std::collections::BTreeMap<String, String>,
    compiled: std::collections::BTreeMap<String, reuse::Record>,
    /// The hosts whose file stays as it is.
    kept: std::collections::BTreeSet<String>,
}

impl Done {
    /// Takes in compiled hosts; every error, the first failed write last.
    fn add(&mut self, results: Vec<Result<Staged, crate::diag::Diags>>) -> Result<(), Failure> {
        let mut errors = Vec::new();
        let mut write_error = None;
        for result in results {
            match result {
                Ok((fqdn, Ok(Some((hash, staged))), record)) => {
                    if let Some(r) = record {
                        self.compiled.insert(fqdn.clone(), r);
                    }
                    if !staged {
                        self.kept.insert(fqdn.clone());
                    }
                    self.hashes.insert(fqdn, hash);
                }
                Ok((_, Ok(None), _)) => {}
                // The first failed write; the later ones were skipped.
                Ok((_, Err(d), _)) => write_error = write_error.or(Some(d)),
                Err(e) => errors.extend(e),
            }
        }
        errors.extend(write_error);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

/// A compile's inputs as the manifest records them, with the sha256 of the
/// host's exports (reuse.rs).
fn record(inputs: crate::compile::Inputs, config: &crate::value::Node) -> reuse::Record {
    let keys = inputs.keys.iter().map(|k| format!("{}{k}", reuse::SSH));
    let exports = config.get("_beryl_").and_then(|b| b.get("exports"));
    let exports = exports.and_then(|e| output::to_string(e, Format::Json).ok());
    reuse::Record {
        chain: inputs.chain,
        reads: inputs.files.into_iter().chain(keys).collect(),
        fleet: inputs.fleet,
        exports: exports.map(|text| outdir::hash(&text)),
    }
}

/// Everything a host's output depends on besides its own inputs: a change
/// here compiles every host. Not the paths of the inventory or of the SSH key
/// directory: the inputs are recorded relative to them, by content, so that
/// a checkout elsewhere (a CI runner's) still reuses.
fn options(
    ctx: &Context,
    inventory: &crate::inventory::Inventory,
    format: Format,
) -> std::collections::BTreeMap<String, String> {
    let settings = ["yml", "yaml"].map(|ext| {
        let name = format!("{}.{ext}", crate::inventory::SETTINGS_STEM);
        let digest = reuse::digest(&inventory.root.join(&name));
        format!("{name}={}", digest.unwrap_or_else(|| "none".into()))
    });
    [
        ("beryl", env!("CARGO_PKG_VERSION").to_string()),
        ("format", format!("{format:?}").to_lowercase()),
        ("limits", format!("{:?}", ctx.limits)),
        ("settings", settings.join(" ")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}
