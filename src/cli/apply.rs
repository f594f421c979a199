//! `beryl apply`: the idempotent step plan of hosts, dry or for real.

use std::io::Write;
use std::path::PathBuf;

use super::{Context, Failure, Outcome, write_out};
use crate::apply::{self, diff, script, ssh, state::State};
use crate::desired::{self, Login};
use crate::diag::Diag;
use crate::inventory::Host;

crate::diag::codes! {
    /// The codes of the `apply` command.
    pub(crate) enum Code in "apply" {
        /// `--state` or `--script` given a selection of several hosts.
        OneHost = "one_host";
        /// The `--parallel` thread pool cannot be built.
        Parallel = "parallel";
        /// The apply script failed on a host (its exit status is given).
        Failed = "failed";
        /// An `--state` file that is not a state snapshot, or one of another format version.
        State = "state";
    }
}

/// Bring hosts to their effective config, or show what that would change.
///
/// The steps run in a fixed order (pkg, packages, groups, users, root's
/// password, authorized_keys, files, sshd_config, rc.conf, time zone): the
/// state the install set up. Each checks, changes only if needed, and checks
/// again. --dry-run prints the plan offline: against a snapshot from `beryl
/// facts` with --state, else with every step undecided. --script prints the
/// apply script. Otherwise the script runs on each host over SSH (`ssh -o
/// BatchMode=yes USER@HOST sudo -n sh -s`), as the host's `ssh:` block says.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl apply host01 --dry-run\n  \
    beryl apply host01 --dry-run --state host01.json --format json\n  \
    beryl apply host01 --script > apply.sh\n  \
    beryl apply host01 --exit-code\n  \
    beryl apply example.org/web/ --dry-run\n  \
    beryl apply --all --parallel 4")]
pub(crate) struct Args {
    /// Hosts: names, DOMAIN/, DOMAIN/GROUP/, quoted globs or class:NAME (docs/inventory.md §2). --state and --script take one host.
    #[arg(value_name = "SELECTOR", required_unless_present = "all")]
    pub hosts: Vec<String>,

    /// Every host of the inventory.
    #[arg(long, conflicts_with = "hosts")]
    pub all: bool,

    /// Print the plan instead of changing anything.
    #[arg(long)]
    pub dry_run: bool,

    /// A state snapshot (the output of `beryl facts`) to compare with (one host).
    #[arg(long, value_name = "FILE", requires = "dry_run")]
    pub state: Option<PathBuf>,

    /// The dry-run format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,

    /// Print the POSIX sh apply script (one host).
    #[arg(long, conflicts_with = "dry_run")]
    pub script: bool,

    /// Exit 1 when changes were made or are pending.
    #[arg(long)]
    pub exit_code: bool,

    /// An option passed to ssh as `-o OPTION` (repeatable).
    #[arg(long, value_name = "OPTION")]
    pub ssh_option: Vec<String>,

    /// A variable for the remote script, `NAME=VALUE` (repeatable).
    #[arg(long, value_name = "NAME=VALUE", value_parser = parse_env)]
    pub remote_env: Vec<(String, String)>,

    /// Keep recorded items that left the config instead of removing them.
    #[arg(long)]
    pub no_prune: bool,

    /// How many hosts to apply at once.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub parallel: usize,

    #[command(flatten)]
    pub opts: super::options::CompileArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    Text,
    Json,
}

fn parse_env(s: &str) -> Result<(String, String), String> {
    let (k, v) = s.split_once('=').ok_or("expected NAME=VALUE")?;
    let ok = k
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok {
        return Err(format!("`{k}` is not a variable name"));
    }
    Ok((k.to_string(), v.to_string()))
}

pub(crate) fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let inventory = ctx.inventory()?;
    let compiler = ctx.compiler(&inventory);
    let hosts = ctx.select(&compiler, &args.hosts, args.all)?;
    if (args.state.is_some() || args.script) && hosts.len() != 1 {
        let listed: Vec<String> = hosts.iter().map(|h| format!("\n  {}", h.fqdn)).collect();
        return Err(vec![
            Diag::new(
                Code::OneHost,
                format!(
                    "--state and --script take exactly one host; the selection holds {}:{}",
                    hosts.len(),
                    listed.concat()
                ),
            )
            .help("name one host, for instance by its FQDN"),
        ]);
    }
    let state = match &args.state {
        Some(path) => Some(load_state(path)?),
        None => None,
    };
    let results = ctx.compile_many(&compiler, &hosts, |host, c| {
        let h = desired::build(&host.fqdn, &c)?;
        let steps = apply::steps(&h).map_err(|e| quoting(&host.fqdn, e))?;
        let opts = script::Options {
            prune: !args.no_prune,
        };
        let text = script::script(&host.fqdn, &steps, opts).map_err(|e| quoting(&host.fqdn, e))?;
        Ok((steps, text, h.login))
    });
    let mut plans = Vec::with_capacity(hosts.len());
    let mut errors = Vec::new();
    for (host, result) in hosts.iter().zip(results) {
        match result {
            Ok((steps, text, login)) => plans.push((*host, steps, text, login)),
            Err(e) => errors.extend(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    if args.script {
        write_out(out, &plans[0].2)?;
        return Ok(Outcome::Ok);
    }
    if args.dry_run {
        let mut pending = 0;
        for (host, steps, _, _) in &plans {
            let outcomes = diff::compare(steps, state.as_ref(), !args.no_prune);
            let s = diff::summary(&outcomes);
            pending += s.add + s.change + s.remove + s.unknown;
            let text = match args.format {
                Format::Text => diff::to_text(&host.fqdn, &outcomes, state.is_some()),
                Format::Json => diff::to_json(&host.fqdn, &outcomes, state.is_some()),
            };
            write_out(out, &text)?;
        }
        return Ok(if args.exit_code && pending > 0 {
            Outcome::Differences
        } else {
            Outcome::Ok
        });
    }
    run_remote(args, &plans, out)
}

/// A host, its steps, its apply script and how to reach it.
type Planned<'a> = (&'a Host, Vec<apply::Step>, String, Login);

fn quoting(fqdn: &str, e: crate::shell::QuoteError) -> Failure {
    vec![apply::quote_error(fqdn, e)]
}

/// A host's result: its FQDN, the exit status and change count (or the
/// error), and the lines held back while hosts ran concurrently.
type HostResult = (String, Result<(i32, usize), Diag>, Vec<String>);

/// Runs the script on each host, `--parallel` at a time, streaming lines.
fn run_remote(args: &Args, plans: &[Planned<'_>], out: &mut dyn Write) -> Result<Outcome, Failure> {
    let prefix = plans.len() > 1;
    let results: Vec<HostResult> = if args.parallel <= 1 {
        plans
            .iter()
            .map(|p| {
                // One host after another: lines are streamed as they arrive.
                let r = apply_one(args, p, &mut |line| {
                    let line = if prefix {
                        format!("{}: {line}", p.0.fqdn)
                    } else {
                        line.to_string()
                    };
                    let _ = write_out(out, &format!("{line}\n"));
                    let _ = out.flush();
                });
                (p.0.fqdn.clone(), r, Vec::new())
            })
            .collect()
    } else {
        // Concurrent hosts: each host's lines are printed when it is done.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(args.parallel)
            .build()
            .map_err(|e| vec![Diag::new(Code::Parallel, e.to_string())])?;
        use rayon::prelude::*;
        pool.install(|| {
            plans
                .par_iter()
                .map(|p| {
                    let mut lines = Vec::new();
                    let r = apply_one(args, p, &mut |line| {
                        lines.push(format!("{}: {line}", p.0.fqdn))
                    });
                    (p.0.fqdn.clone(), r, lines)
                })
                .collect()
        })
    };
    let mut errors = Vec::new();
    let mut changed = 0;
    for (fqdn, result, lines) in results {
        for line in lines {
            write_out(out, &format!("{line}\n"))?;
        }
        match result {
            Ok((0, c)) => {
                changed += c;
                if prefix {
                    write_out(out, &format!("{fqdn}: done, {c} changed\n"))?;
                }
            }
            Ok((code, _)) => errors.push(Diag::new(
                Code::Failed,
                format!("{fqdn}: the apply script failed (exit {code})"),
            )),
            Err(d) => errors.push(d),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(if args.exit_code && changed > 0 {
        Outcome::Differences
    } else {
        Outcome::Ok
    })
}

fn apply_one(
    args: &Args,
    p: &Planned<'_>,
    emit: &mut dyn FnMut(&str),
) -> Result<(i32, usize), Diag> {
    let (_, _, text, target) = p;
    let mut changed = 0;
    let code = ssh::run(
        target,
        &args.ssh_option,
        &args.remote_env,
        text,
        &mut |line| {
            if line.starts_with("~ ") {
                changed += 1;
            }
            emit(line);
        },
    )?;
    Ok((code, changed))
}

fn load_state(path: &std::path::Path) -> Result<State, Failure> {
    let name = path.display().to_string();
    let text = crate::yaml::read_output(path, &name).map_err(|d| vec![d])?;
    let help = "write one with: beryl facts | ssh USER@HOST sudo -n sh -s > FILE";
    let state: State = serde_json::from_str(&text).map_err(|e| {
        vec![
            Diag::new(
                Code::State,
                format!(
                    "{name}:{}:{}: not a beryl state snapshot: {e}",
                    e.line(),
                    e.column()
                ),
            )
            .help(help),
        ]
    })?;
    if state.format_version != crate::apply::state::FORMAT_VERSION {
        return Err(vec![
            Diag::new(
                Code::State,
                format!(
                    "{name}: a snapshot of format {}, and this beryl reads format {}",
                    state.format_version,
                    crate::apply::state::FORMAT_VERSION
                ),
            )
            .help(help),
        ]);
    }
    Ok(state)
}
