//! `beryl facts`: the script that snapshots a host's state, and
//! `--gather`, which runs it over SSH on many hosts at once.

use std::io::Write;
use std::path::PathBuf;

use super::{Context, Failure, Outcome, write_out};
use crate::apply::gather::{self, JailTarget, Target};
use crate::diag::Diag;

crate::diag::codes! {
    /// The codes of the `facts` command.
    pub(crate) enum Code in "facts" {
        /// `--gather` could not take a host's snapshot (unreachable, the script failed, or it printed no snapshot); the others went on.
        Gather = "gather";
        /// The `--out` directory cannot be created, or the `--parallel` pool built.
        Out = "out";
        /// Without `--gather`, more than one host named.
        OneHost = "one_host";
    }
}

/// Print the POSIX sh script that snapshots a FreeBSD host's state as JSON,
/// or take the snapshots of many hosts over SSH (--gather).
///
/// The script is the host's own: it looks at what that host's config
/// manages (its users, packages, files, services, …) and at beryl's record
/// on the host, and its snapshot names the host and the script's digest.
/// `beryl apply HOST --dry-run --state FILE` compares the host's desired
/// state with it, offline, and refuses a snapshot of another host or one
/// taken by another script than the config generates now (take it again).
/// Run the script as root on the host (it reads /etc/master.passwd); it is
/// read-only and uses FreeBSD base tools only. --gather runs it on each
/// selected host over one ssh connection each, --parallel at a time, and
/// writes DIR/FQDN.json atomically, byte for byte as the host printed it; a
/// host that fails gets DIR/FQDN.error, and the others go on (exit 2 at the
/// end). A jail's snapshot is taken inside it over its host's connection
/// (jexec), into DIR/NAME.PARENT_FQDN.json; selecting a host takes its
/// jails' too. docs/apply.md §3 documents the snapshot.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl facts host01 | ssh beryl@host01.example.org sudo -n sh -s > host01.json\n  \
    beryl facts --gather --all --out facts/ --parallel 8\n  \
    beryl apply --all --dry-run --state-dir facts/")]
pub(crate) struct Args {
    /// The host whose script to print; with --gather, the hosts (names, DOMAIN/, globs, class:NAME).
    #[arg(value_name = "SELECTOR", required_unless_present = "all")]
    pub hosts: Vec<String>,

    /// Take the snapshots of the selected hosts over SSH, into --out DIR.
    #[arg(long, requires = "out")]
    pub gather: bool,

    /// With --gather: every host of the inventory.
    #[arg(long, requires = "gather", conflicts_with = "hosts")]
    pub all: bool,

    /// The directory the snapshots are written to (created if missing).
    #[arg(long, value_name = "DIR", requires = "gather")]
    pub out: Option<PathBuf>,

    /// How many hosts to gather from at once.
    #[arg(long, value_name = "N", default_value_t = 8, requires = "gather")]
    pub parallel: usize,

    /// An option passed to ssh as `-o OPTION` (repeatable).
    #[arg(long, value_name = "OPTION", requires = "gather")]
    pub ssh_option: Vec<String>,

    #[command(flatten)]
    pub opts: super::options::CompileArgs,
}

pub(super) fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    if args.gather {
        return gather(ctx, args, out);
    }
    match args.hosts.as_slice() {
        [one] => {
            let inventory = ctx.inventory()?;
            let compiler = ctx.compiler(&inventory);
            let host = ctx.select_one(&compiler, one, "facts")?;
            let plans = super::apply::compile(ctx, &compiler, &[host])?;
            write_out(out, &plans[0].facts.text)?;
        }
        // None is refused by clap: a snapshot is bound to a host.
        _ => {
            return Err(vec![
                Diag::new(
                    Code::OneHost,
                    "without --gather, facts prints one host's script",
                )
                .help("to take several hosts' snapshots: beryl facts --gather SELECTION --out DIR"),
            ]);
        }
    }
    Ok(Outcome::Ok)
}

fn gather(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let Some(dir) = &args.out else {
        return Ok(Outcome::Ok);
    };
    let inventory = ctx.inventory()?;
    let compiler = ctx.compiler(&inventory);
    let hosts = ctx.select(&compiler, &args.hosts, args.all)?;
    // By connection: a host's jails through the host's (issue 36).
    let conns = super::apply::connections(ctx, &compiler, &hosts, true)?;
    crate::fsutil::create_private_dir_all(dir).map_err(|e| {
        vec![Diag::new(
            Code::Out,
            format!("cannot create {}: {e}", dir.display()),
        )]
    })?;
    let targets: Vec<Target<'_>> = conns
        .iter()
        .map(|c| Target {
            fqdn: &c.host.host.fqdn,
            login: &c.host.login,
            script: &c.host.facts,
            own: c.host.own,
            jails: c
                .jails
                .iter()
                .map(|j| JailTarget {
                    name: j.jail.as_deref().unwrap_or(&j.host.short),
                    fqdn: &j.host.fqdn,
                    script: &j.facts,
                })
                .collect(),
        })
        .collect();
    let units: Vec<&str> = targets.iter().flat_map(Target::units).collect();
    let results = gather::gather(&targets, &args.ssh_option, args.parallel, dir)
        .map_err(|e| vec![Diag::new(Code::Out, e)])?;
    let mut text = String::new();
    let mut errors = Vec::new();
    for (fqdn, r) in units.iter().zip(&results) {
        match r {
            Ok((path, sha)) => {
                text.push_str(&format!(
                    "ok      {} {} sha256:{sha}\n",
                    fqdn,
                    path.display()
                ));
            }
            Err(why) => {
                text.push_str(&format!("failed  {fqdn} {why}\n"));
                errors.push(Diag::new(Code::Gather, format!("{fqdn}: {why}")));
            }
        }
    }
    text.push_str(&format!(
        "facts: {} gathered, {} failed, into {}\n",
        results.len() - errors.len(),
        errors.len(),
        dir.display()
    ));
    write_out(out, &text)?;
    if errors.is_empty() {
        Ok(Outcome::Ok)
    } else {
        Err(errors)
    }
}
