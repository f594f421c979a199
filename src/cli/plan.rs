//! `beryl plan`: compile hosts into bsdinstall installerconfig files.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{Context, Failure, Outcome, write_out};
use crate::diag::{Common, Diag};
use crate::install::{self, render::Templates};

crate::diag::codes! {
    /// The codes of the `plan` command.
    pub(crate) enum Code in "plan" {
        /// Several hosts (or a selection that is not one host name) without `--out DIR`.
        Out = "out";
    }
}

/// Compile the unattended-install file (a bsdinstall installerconfig) of hosts.
///
/// Checks that each host can be installed unattended before writing anything:
/// disks, raid, timezone and a release beryl knows, its disk names, no base
/// account reused, shells and sudo provided, and a way in for apply. With one
/// host named, writes to stdout or --out FILE; otherwise (several selectors, a
/// domain, a group, a glob, a class, or --all), --out is a directory holding
/// one file per FQDN, however many hosts match. docs/install.md explains the file and how to
/// feed it to the installer.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl plan host01 > installerconfig\n  \
    beryl plan --all --out plans/\n  \
    beryl plan 'edge*' --out plans/\n  \
    beryl plan host01 --format json")]
pub(crate) struct Args {
    /// Hosts: names, DOMAIN/, DOMAIN/GROUP/, quoted globs or class:NAME (docs/inventory.md §2). Several hosts need --out DIR.
    #[arg(value_name = "SELECTOR", required_unless_present = "all")]
    pub hosts: Vec<String>,

    /// Every host of the inventory.
    #[arg(long, conflicts_with = "hosts")]
    pub all: bool,

    /// A file (one host) or a directory (several hosts) to write.
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,

    /// Read the templates from DIR instead of the built-in ones.
    #[arg(long, value_name = "DIR")]
    pub templates: Option<PathBuf>,

    /// `sh`: the installerconfig; `json`: the same plan as data.
    #[arg(long, value_enum, default_value = "sh")]
    pub format: Format,

    #[command(flatten)]
    pub opts: super::options::CompileArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    Sh,
    Json,
}

/// What a host of the selection gives.
enum Planned {
    /// Its plan: the FQDN and the file's text.
    File(String, String),
    /// Left out, said in a warning: beryl never installs it.
    Adopted,
    /// Left out silently: a jail, laid down by its host's apply.
    Jail,
}

pub(crate) fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let templates = Templates::new(args.templates.as_deref(), ctx.limits.max_file_size)?;
    let inventory = ctx.inventory()?;
    let compiler = ctx.compiler(&inventory);
    let hosts = ctx.select(&compiler, &args.hosts, args.all)?;
    let several = !crate::select::names_one(&args.hosts) || args.all;
    if several && args.out.is_none() {
        return Err(vec![
            Diag::new(
                Code::Out,
                match hosts.len() {
                    1 => "a selection that is not one host name needs --out DIR: one file per host",
                    _ => "several hosts need --out DIR: one file per host",
                },
            )
            .help("beryl plan --all --out plans/"),
        ]);
    }
    let results = ctx.compile_many(&compiler, &hosts, |host, c| {
        // Of several hosts, one beryl never installs is left out, said
        // once below; named alone, `build` refuses it. A jail is left out
        // without a word: it is never installed, its host lays it down.
        if several && c.parent.is_some() {
            return Ok(Planned::Jail);
        }
        if several && c.freebsd.adopted() {
            return Ok(Planned::Adopted);
        }
        let p = install::build(&host.fqdn, &c)?;
        let text = render(&templates, &p, args.format)?;
        Ok(Planned::File(host.fqdn.clone(), text))
    });
    let planned = crate::diag::collect(results)?;
    let skipped: Vec<String> = hosts
        .iter()
        .zip(&planned)
        .filter(|(_, p)| matches!(p, Planned::Adopted))
        .map(|(h, _)| format!("\n  {}", h.fqdn))
        .collect();
    if !skipped.is_empty() {
        ctx.warn(&[Diag::warning(
            install::Code::Skipped,
            format!(
                "not planned: beryl never installs {} (freebsd.install: none):{}",
                if skipped.len() == 1 {
                    "this host"
                } else {
                    "these hosts"
                },
                skipped.concat()
            ),
        )
        .help("beryl apply manages them (docs/apply.md §19); a plan written for one earlier is left in the --out directory as it was")]);
    }
    let files: Vec<(String, String)> = planned
        .into_iter()
        .filter_map(|p| match p {
            Planned::File(fqdn, text) => Some((fqdn, text)),
            Planned::Adopted | Planned::Jail => None,
        })
        .collect();
    match (&args.out, several) {
        (None, _) => write_out(
            out,
            &files.iter().map(|(_, t)| t.as_str()).collect::<String>(),
        )?,
        (Some(path), false) => write_atomic(path, &files[0].1)?,
        (Some(dir), true) => {
            crate::fsutil::create_private_dir_all(dir).map_err(|e| io(dir, e))?;
            let ext = match args.format {
                Format::Sh => "sh",
                Format::Json => "json",
            };
            for (fqdn, text) in &files {
                write_atomic(&dir.join(format!("{fqdn}.{ext}")), text)?;
            }
        }
    }
    Ok(Outcome::Ok)
}

fn render(t: &Templates, p: &install::InstallerConfig, format: Format) -> Result<String, Diag> {
    match format {
        Format::Sh => t.installerconfig(p),
        Format::Json => {
            let mut text = serde_json::to_string_pretty(&t.json(p)?).unwrap_or_default();
            text.push('\n');
            Ok(text)
        }
    }
}

/// Writes to a temporary name beside the file, then renames it into place.
fn write_atomic(path: &Path, text: &str) -> Result<(), Failure> {
    crate::fsutil::write_atomic(path, text).map_err(|(p, e)| io(&p, e))
}

fn io(path: &Path, e: std::io::Error) -> Failure {
    vec![Diag::new(
        Common::Io,
        format!("cannot write {}: {e}", path.display()),
    )]
}
