//! `beryl apply`: the idempotent step plan of hosts, dry or for real.
//!
//! This file holds the options and compiles the selection; [`dry`] is the
//! dry run (per-host plans, the fleet footer, `--out`), [`plan`] reads a
//! saved plan back (`--plan`), [`run`] applies over SSH (confirmation,
//! events, recap), and [`state`] reads snapshots (`--state`, `--state-dir`).

mod dry;
mod plan;
mod run;
mod state;

use std::io::Write;
use std::path::PathBuf;

use super::{Context, Failure, Outcome, write_out};
use crate::apply::{self, Step, gather, script};
use crate::desired::{self, Login};
use crate::diag::Diag;
use crate::inventory::Host;
use crate::resource::state::FactsScript;

crate::diag::codes! {
    /// The codes of the `apply` command.
    pub(crate) enum Code in "apply" {
        /// `--state` or `--script` given a selection of several hosts.
        OneHost = "one_host";
        /// The `--parallel` thread pool cannot be built.
        Parallel = "parallel";
        /// The apply script failed on a host (its exit status is given).
        Failed = "failed";
        /// An `--state` file or a `--state-dir` snapshot that is not a state snapshot, is of another format version, or is another host's or another facts script's; or a `--state-dir` that does not exist.
        State = "state";
        /// A `--plan` file that is not a saved plan, is of another format, or was made by another beryl.
        Plan = "plan";
        /// A host of a saved plan whose config, steps or facts changed since the plan: it was left as it was.
        Stale = "stale";
        /// A real apply without a terminal to confirm on, and neither `--yes` nor `--plan`; or the answer was not `yes`.
        Confirm = "confirm";
        /// A host ssh could not reach (ssh's own words follow); the others went on.
        Unreachable = "unreachable";
        /// `--out` for a host whose state is unknown (no snapshot).
        Unknown = "unknown";
    }
}

/// Bring hosts to their effective config, or show what that would change.
///
/// The steps run in a fixed order (pools and datasets, pkg, packages,
/// groups, users, root's password, authorized_keys, the sudoers and
/// resolver files, sshd_config, rc.conf, time zone, sysctls, loader.conf,
/// cron entries, the listed files, services; then the services they
/// notify, and the pruning of what beryl created and the config dropped):
/// the state the install set up. Each checks, changes only if needed, and checks
/// again. --dry-run prints the plan offline: against snapshots from `beryl
/// facts` (--state for one host, --state-dir for many), else with every step
/// undecided; --out saves it, and --plan applies exactly a saved plan,
/// refusing a host whose config, or whose state in what a step reads,
/// changed since. --script prints the
/// apply script. Otherwise the script runs on each host over SSH (`ssh -o
/// BatchMode=yes USER@HOST sudo -n sh -s`), as the host's `ssh:` block says,
/// after a `yes` on the terminal (or --yes).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl apply host01 --dry-run\n  \
    beryl apply host01 --dry-run --state host01.json --format json\n  \
    beryl facts --gather --all --out facts/\n  \
    beryl apply --all --dry-run --state-dir facts/ --out plan.json\n  \
    beryl apply --plan plan.json\n  \
    beryl apply host01 --script > apply.sh\n  \
    beryl apply host01 --yes --exit-code\n  \
    beryl apply --all --yes --parallel 4 --format json")]
pub(crate) struct Args {
    /// Hosts: names, DOMAIN/, DOMAIN/GROUP/, quoted globs or class:NAME (docs/inventory.md §2). --state and --script take one host; with --plan, the plan's hosts to apply.
    #[arg(value_name = "SELECTOR", required_unless_present_any = ["all", "plan"])]
    pub hosts: Vec<String>,

    /// Every host of the inventory.
    #[arg(long, conflicts_with = "hosts")]
    pub all: bool,

    /// Print the plan instead of changing anything.
    #[arg(long)]
    pub dry_run: bool,

    /// A state snapshot of the host (the output of `beryl facts HOST`, or `beryl facts --gather`) to compare with (one host).
    #[arg(
        long,
        value_name = "FILE",
        requires = "dry_run",
        conflicts_with = "state_dir"
    )]
    pub state: Option<PathBuf>,

    /// A directory of snapshots, DIR/FQDN.json (`beryl facts --gather --out DIR`).
    #[arg(long, value_name = "DIR", requires = "dry_run")]
    pub state_dir: Option<PathBuf>,

    /// Save the dry run as a plan for `--plan` (every host needs a snapshot).
    #[arg(long, value_name = "PLAN.json", requires = "dry_run")]
    pub out: Option<PathBuf>,

    /// Apply a saved plan exactly, refusing each host that changed since.
    #[arg(long, value_name = "PLAN.json", conflicts_with_all = ["dry_run", "all", "no_prune"])]
    pub plan: Option<PathBuf>,

    /// The output format: json is one document (a dry run's report, or a
    /// real run's events once it is done), jsonl is JSON Lines (one line a
    /// host for a dry run; a real run's events as they happen).
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,

    /// Print the POSIX sh apply script (one host; with --plan, the plan's script with its guard).
    #[arg(long, conflicts_with_all = ["dry_run", "format"])]
    pub script: bool,

    /// Apply without asking for `yes` first.
    #[arg(long)]
    pub yes: bool,

    /// Exit 1 when changes were made or are pending (0 none, 2 any failure).
    #[arg(long)]
    pub exit_code: bool,

    /// Keep recorded items that left the config instead of removing them.
    #[arg(long)]
    pub no_prune: bool,

    /// An option passed to ssh as `-o OPTION` (repeatable).
    #[arg(long, value_name = "OPTION")]
    pub ssh_option: Vec<String>,

    /// A variable for the remote script, `NAME=VALUE` (repeatable).
    #[arg(long, value_name = "NAME=VALUE", value_parser = parse_env)]
    pub remote_env: Vec<(String, String)>,

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
    Jsonl,
}

pub(crate) fn parse_env(s: &str) -> Result<(String, String), String> {
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

/// A compiled host: its steps, how to reach it, and what a saved plan is
/// stamped with.
pub(super) struct Planned<'a> {
    pub host: &'a Host,
    pub steps: Vec<Step>,
    pub login: Login,
    /// sha256 of the effective config as `render --format json` writes it.
    pub config_sha256: String,
    /// The host's facts script (`beryl facts HOST`) and its digest, which
    /// its snapshots carry.
    pub facts: FactsScript,
}

/// Compiles `hosts` into their steps; every host's errors at once.
pub(super) fn compile<'a>(
    ctx: &Context,
    compiler: &crate::compile::Compiler<'_>,
    hosts: &[&'a Host],
) -> Result<Vec<Planned<'a>>, Failure> {
    let results = ctx.compile_many(compiler, hosts, |host, c| {
        let h = desired::build(&host.fqdn, &c)?;
        let steps = apply::steps(&h).map_err(|e| quoting(&host.fqdn, e))?;
        // The script must be writable: a value no word can hold fails here.
        script::script(&host.fqdn, &steps, script::Options::default())
            .map_err(|e| quoting(&host.fqdn, e))?;
        let config = crate::output::to_string(&c.config, crate::output::Format::Json)?;
        let facts_script =
            gather::facts_script(&host.fqdn, &steps).map_err(|e| quoting(&host.fqdn, e))?;
        Ok((steps, h.login, apply::sha256_hex(&config), facts_script))
    });
    let plans = crate::diag::collect(results)?;
    Ok(hosts
        .iter()
        .zip(plans)
        .map(
            |(host, (steps, login, config_sha256, facts_script))| Planned {
                host,
                steps,
                login,
                config_sha256,
                facts: facts_script,
            },
        )
        .collect())
}

pub(crate) fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    if let Some(path) = &args.plan {
        return plan::apply(ctx, args, path, out);
    }
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
    if !args.dry_run && !args.script {
        // Refused before compiling: nothing is asked of a pipe.
        run::may_run(args)?;
    }
    let plans = compile(ctx, &compiler, &hosts)?;
    if args.script {
        let p = &plans[0];
        let text = script_of(!args.no_prune, p, None)?;
        write_out(out, &text)?;
        return Ok(Outcome::Ok);
    }
    if args.dry_run {
        return dry::run(args, &plans, out);
    }
    let scripts = plans
        .iter()
        .map(|p| script_of(!args.no_prune, p, None))
        .collect::<Result<Vec<_>, _>>()?;
    let jobs: Vec<run::Job<'_>> = plans
        .iter()
        .zip(scripts)
        .map(|(p, script)| run::Job {
            fqdn: &p.host.fqdn,
            login: &p.login,
            script: Some(script),
            refused: None,
        })
        .collect();
    run::confirm(args, &plans, &jobs)?;
    run::run(args, &jobs, out)
}

/// The apply script of a host, pruning or not, with a saved plan's guard.
pub(super) fn script_of(
    prune: bool,
    p: &Planned<'_>,
    guard: Option<script::Guard<'_>>,
) -> Result<String, Failure> {
    let options = script::Options { prune };
    script::script_guarded(&p.host.fqdn, &p.steps, options, guard)
        .map_err(|e| quoting(&p.host.fqdn, e))
}

fn quoting(fqdn: &str, e: crate::shell::QuoteError) -> Failure {
    vec![apply::quote_error(fqdn, e)]
}
