//! `beryl check`: compile hosts and report every error and warning.

use std::io::Write;

use super::context::Progress;
use super::{Context, Failure, Outcome, write_out};
use crate::compile;
use crate::diag::Diags;
use crate::diag::set::Set;
use crate::inventory::Host;
use crate::output::diagnostics::{self, Scope};

/// Check hosts (every host by default) and report every error and warning.
///
/// Beyond compiling, each host with a `freebsd` section is checked for what
/// its install and apply need, by the same code `plan` and `apply` run: the
/// disks, raid, release and time zone of an install and the network its
/// packages need, a known release and its disk names, no base account
/// reused, shells and sudo provided, and a way in for apply (the `ssh:`
/// block's user, key and sudo rule). `render` refuses the same hosts.
/// Warnings point at what is likely a mistake but compiles (a knockout that
/// removes nothing, a merge rule or a class that no host uses, …): they are
/// reported, and the exit code stays 0 unless --deny-warnings.
///
/// Each diagnostic is reported once, sorted by file, line and column, with
/// the hosts it was found on; an error that follows from another is folded
/// into it. Prints `checked N hosts: ok`, or the counts of errors and
/// failed hosts (exit 2).
/// The text report goes to stderr; json and github write it to stdout.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl check\n  \
    beryl check host01 mail.example.org\n  \
    beryl check example.org/web/ 'edge*' class:roles.web\n  \
    beryl check --deny-warnings\n  \
    beryl check --format github\n  \
    beryl check --format json > report.json")]
pub(crate) struct Args {
    /// Hosts to check (default: all): names, DOMAIN/, DOMAIN/GROUP/, quoted globs or class:NAME (docs/inventory.md §2).
    #[arg(value_name = "SELECTOR")]
    pub hosts: Vec<String>,

    #[command(flatten)]
    pub opts: super::options::CompileArgs,

    /// Treat warnings as errors: report them as errors and exit 2.
    #[arg(long, env = "BERYL_DENY_WARNINGS",
          value_parser = clap::builder::FalseyValueParser::new())]
    pub deny_warnings: bool,

    /// The report: text for people (on stderr), json, or github workflow
    /// commands that annotate a pull request's files (both on stdout).
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    Text,
    Json,
    Github,
}

pub(super) fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let inventory = ctx.inventory()?;
    let compiler = ctx.compiler(&inventory);
    let hosts = ctx.select(&compiler, &args.hosts, args.hosts.is_empty())?;
    let progress = Progress::new(hosts.len());
    let checked = compile::compile_many(&compiler, &hosts, |host, r| {
        let checked = crate::check::host(host, r.as_ref());
        progress.tick();
        checked
    });
    drop(progress);
    let mut check = crate::check::Check::new(&compiler, &ctx.keys, ctx.limits);
    for (host, checked) in hosts.iter().zip(checked) {
        check.add(host, checked);
    }
    let found = check.finish(|extra| {
        let sides = compile::compile_many(&compiler, extra, |host, r| {
            r.ok().map(|c| crate::lint::Side::of(&host.fqdn, &c))
        });
        sides.into_iter().flatten().collect()
    });
    let fleet = hosts.len() == inventory.hosts.len();
    report(ctx, args, &hosts, fleet, found, out)
}

fn report(
    ctx: &Context,
    args: &Args,
    hosts: &[&Host],
    fleet: bool,
    found: Diags,
    out: &mut dyn Write,
) -> Result<Outcome, Failure> {
    let mut set = Set::new(found);
    if args.deny_warnings {
        set.deny_warnings();
    }
    let names: Vec<String> = hosts.iter().map(|h| h.fqdn.clone()).collect();
    let own_file = |fqdn: &str| {
        let host = hosts.iter().find(|h| h.fqdn == fqdn)?;
        Some(host.file.display.clone())
    };
    let scope = Scope {
        hosts: &names,
        fleet,
        own_file: &own_file,
    };
    let text = match args.format {
        Format::Text => {
            let people = diagnostics::for_people(&set, &scope);
            let line = diagnostics::summary_line(&set, &scope);
            if set.failed() {
                // The counts on stdout, as on success, however few errors.
                write_out(out, &line)?;
                return Err(people);
            }
            ctx.warn(&people);
            line
        }
        Format::Json => diagnostics::json(&set, &scope)?,
        Format::Github => {
            let cwd = std::env::current_dir().unwrap_or_default();
            let workspace = std::env::var_os("GITHUB_WORKSPACE").map(std::path::PathBuf::from);
            let path = |shown: &str| diagnostics::workspace_path(shown, &cwd, workspace.as_deref());
            diagnostics::github(&set, &scope, &path)
        }
    };
    write_out(out, &text)?;
    Ok(if set.failed() {
        Outcome::Failed
    } else {
        Outcome::Ok
    })
}
