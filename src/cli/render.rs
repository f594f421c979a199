//! `beryl render`: print the effective config of hosts.

use std::io::Write;

use super::options::ConfigFormat;
use super::{Context, Failure, Outcome, write_out};
use crate::compile::Compiler;
use crate::diag::Diag;
use crate::inventory::Host;
use crate::output::annotate::{self, Notes};
use crate::output::render_dir;
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
    after_help = "Examples:\n  beryl render host01\n  beryl render example.org/web/host01 --format json\n  beryl render --all\n  beryl render example.org/web/ 'db*'\n  beryl render class:roles.web\n  beryl render host01 --annotate"
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
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,

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
        return render_dir(ctx, &compiler, &hosts, dir, args.format.into());
    }
    let mut configs = Vec::with_capacity(hosts.len());
    let mut errors = Vec::new();
    let mut notes = Vec::new();
    let results = ctx.compile_many(&compiler, &hosts, |host, c| {
        crate::validate::host(&host.fqdn, &c)?;
        let n = args.annotate.then(|| Notes::for_host(&c));
        Ok((host.fqdn.clone(), c.config, n))
    });
    for result in results {
        match result {
            Ok((fqdn, config, n)) => {
                if let Some(n) = n {
                    notes.push((fqdn.clone(), n));
                }
                configs.push((fqdn, config));
            }
            Err(e) => errors.extend(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let (node, notes) = if configs.len() == 1 && crate::select::names_one(&args.hosts) {
        let node = configs
            .pop()
            .map(|(_, c)| c)
            .unwrap_or_else(|| output::mapping([]));
        (node, notes.pop().map(|(_, n)| n).unwrap_or_default())
    } else {
        configs.sort_by(|a, b| a.0.cmp(&b.0));
        // Each host's notes, placed under its FQDN.
        let mut all = Notes::default();
        for (fqdn, n) in notes {
            all.extend(n.under(&fqdn));
        }
        (output::mapping(configs), all)
    };
    let text = if args.annotate {
        annotate::to_string(&node, &notes)
    } else {
        output::to_string(&node, args.format.into())
    };
    let text = text.map_err(|d| vec![d])?;
    write_out(out, &text)?;
    Ok(Outcome::Ok)
}

/// `--out DIR`: every host compiled (in parallel), then written with its
/// manifest; on any error nothing in DIR changes.
fn render_dir(
    ctx: &Context,
    compiler: &Compiler<'_>,
    hosts: &[&Host],
    dir: &std::path::Path,
    format: Format,
) -> Result<Outcome, Failure> {
    // Each host's file is staged as soon as it is rendered, so the writes
    // overlap the other hosts' compiles and no text is kept; nothing in DIR
    // changes until the commit, and dropping the writer undoes the stage.
    let writer = render_dir::DirWriter::begin(dir, format).map_err(|d| vec![d])?;
    let results = ctx.compile_many(compiler, hosts, |host, c| {
        crate::validate::host(&host.fqdn, &c)?;
        let text = output::to_string(&c.config, format).map_err(|d| vec![d])?;
        drop(c);
        let staged = writer.stage(&host.fqdn, &text);
        Ok((host.fqdn.clone(), staged))
    });
    let mut errors = Vec::new();
    let mut write_error = None;
    let mut hashes = std::collections::BTreeMap::new();
    for result in results {
        match result {
            Ok((fqdn, Ok(Some(hash)))) => {
                hashes.insert(fqdn, hash);
            }
            Ok((_, Ok(None))) => {}
            // The first failed write; the later ones were skipped.
            Ok((_, Err(d))) => write_error = write_error.or(Some(d)),
            Err(e) => errors.extend(e),
        }
    }
    errors.extend(write_error);
    if !errors.is_empty() {
        return Err(errors);
    }
    writer.commit(hashes).map_err(|d| vec![d])?;
    Ok(Outcome::Ok)
}
