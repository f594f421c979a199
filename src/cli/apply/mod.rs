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
        /// A jail that was not running when its host's script came to it (`jls -j NAME` found none): nothing in it was applied; the others went on.
        Absent = "absent";
        /// A unit whose steps hold secrets that could not be put back (no identity opens them, one is not text, or one stands where no plaintext can be written): nothing ran.
        Secrets = "secrets";
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

    /// How many jails of a host run their scripts at once, on the host's one connection (docs/jails.md, "One connection").
    #[arg(long, value_name = "N", default_value_t = crate::apply::script::JAILS_AT_ONCE, value_parser = at_least_one)]
    pub jail_parallel: usize,

    /// Identities that open the hosts' secrets (docs/secrets.md): only a
    /// real run decrypts, and only into the script it sends.
    #[command(flatten)]
    pub ids: crate::cli::secrets::Identities,

    #[command(flatten)]
    pub opts: super::options::CompileArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    Text,
    Json,
    Jsonl,
}

/// A count of at least 1.
fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
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

/// A compiled unit (a host, or a jail run through its host): its steps, how
/// to reach it, and what a saved plan is stamped with.
#[derive(Clone)]
pub(super) struct Planned<'a> {
    pub host: &'a Host,
    pub steps: Vec<Step>,
    /// For a jail: its host's login (a jail is reached through its host).
    pub login: Login,
    /// sha256 of the effective config as `render --format json` writes it.
    pub config_sha256: String,
    /// The unit's facts script (`beryl facts HOST`) and its digest, which
    /// its snapshots carry. A jail's runs inside the jail.
    pub facts: FactsScript,
    /// For a jail: its jail(8) name, which its host runs it by.
    pub jail: Option<String>,
    /// A jail's root dataset: its host's `zfs:` row for it is its row.
    pub dataset: Option<String>,
    /// False for a host only some of whose jails were selected: only their
    /// rows run on it, and nothing of its record is pruned.
    pub own: bool,
    /// The SOPS files of its chain: what a real run opens to put its
    /// secrets into its script (src/apply/reveal.rs).
    pub secrets: Vec<std::sync::Arc<crate::secrets::Sealed>>,
}

/// The units one ssh connection runs (issue 36): a host, then the jails it
/// runs (docs/apply.md "Jails").
#[derive(Clone)]
pub(super) struct Connection<'a> {
    /// The host (see [`Planned::own`]).
    pub host: Planned<'a>,
    pub jails: Vec<Planned<'a>>,
}

impl<'a> Connection<'a> {
    /// The units a report shows: the host when it was selected or has
    /// rows to run, then its jails.
    pub(super) fn units(&self) -> impl Iterator<Item = &Planned<'a>> {
        let host = (self.host.own || !self.host.steps.is_empty()).then_some(&self.host);
        host.into_iter().chain(&self.jails)
    }
}

/// Compiles exactly `hosts` (a host without its jails) into their units,
/// in the order given; every error at once.
pub(super) fn compile<'a>(
    ctx: &Context,
    compiler: &crate::compile::Compiler<'a>,
    hosts: &[&'a Host],
) -> Result<Vec<Planned<'a>>, Failure> {
    let conns = connections(ctx, compiler, hosts, false)?;
    let mut units: Vec<Planned<'a>> = Vec::with_capacity(hosts.len());
    for c in conns {
        if c.host.own {
            units.push(c.host);
        }
        units.extend(c.jails);
    }
    // In the order selected.
    let at = |fqdn: &str| hosts.iter().position(|h| h.fqdn == fqdn);
    units.sort_by_key(|p| at(&p.host.fqdn));
    Ok(units)
}

/// Groups a selection by connection: each selected jail's host is added
/// (and compiled), and with `with_jails` a selected host brings all its
/// jails. Every jail of a connection's host is compiled, selected or not:
/// the host's rows (`jail_list`…) are laid out from all of them.
pub(super) fn connections<'a>(
    ctx: &Context,
    compiler: &crate::compile::Compiler<'a>,
    selected: &[&'a Host],
    with_jails: bool,
) -> Result<Vec<Connection<'a>>, Failure> {
    let inventory = compiler.inventory();
    let jails_of = |fqdn: &str| -> Vec<&'a Host> {
        inventory
            .hosts
            .iter()
            .filter(|h| h.parent.as_deref() == Some(fqdn))
            .collect()
    };
    // (host, own, selected jails), in the order of first appearance.
    let mut groups: Vec<(&'a Host, bool, Vec<&'a Host>)> = Vec::new();
    for &h in selected {
        let parent = match &h.parent {
            None => h,
            Some(p) => match inventory.hosts.iter().find(|x| &x.fqdn == p) {
                Some(p) => p,
                None => continue,
            },
        };
        let at = match groups.iter().position(|g| g.0.fqdn == parent.fqdn) {
            Some(i) => i,
            None => {
                groups.push((parent, false, Vec::new()));
                groups.len() - 1
            }
        };
        let g = &mut groups[at];
        if h.parent.is_none() {
            g.1 = true;
            if with_jails {
                g.2.extend(jails_of(&h.fqdn));
            }
        } else {
            g.2.push(h);
        }
    }
    for g in &mut groups {
        // In the inventory's order, each once.
        let all = jails_of(&g.0.fqdn);
        g.2 = all
            .into_iter()
            .filter(|j| g.2.iter().any(|s| s.fqdn == j.fqdn))
            .collect();
    }
    let mut all: Vec<&'a Host> = Vec::new();
    for g in &groups {
        all.push(g.0);
        all.extend(jails_of(&g.0.fqdn));
    }
    let compiled = crate::diag::collect(ctx.compile_many(compiler, &all, |_, c| Ok(c)))?;
    let of = |fqdn: &str| -> &crate::compile::Compiled {
        let i = all.iter().position(|h| h.fqdn == fqdn).unwrap_or(0);
        &compiled[i]
    };
    let mut errors = Vec::new();
    let mut out = Vec::with_capacity(groups.len());
    for (host, own, jails) in groups {
        let siblings = jails_of(&host.fqdn);
        let jailed: Vec<crate::resource::Jailed<'_>> = siblings
            .iter()
            .map(|j| crate::resource::Jailed {
                fqdn: &j.fqdn,
                compiled: of(&j.fqdn),
            })
            .collect();
        let c = of(&host.fqdn);
        let built = desired::build_with(&host.fqdn, c, &jailed).and_then(|d| {
            let steps = apply::steps(&d).map_err(|e| quoting(&host.fqdn, e))?;
            let mut p = planned(host, c, steps, d.login, None)?;
            p.own = own;
            if !own {
                let names: Vec<(String, Option<&str>)> = jails
                    .iter()
                    .map(|j| {
                        let c = of(&j.fqdn);
                        (
                            desired::unit::jail_name(&j.short, c),
                            desired::unit::dataset(c),
                        )
                    })
                    .collect();
                let names: Vec<(&str, Option<&str>)> =
                    names.iter().map(|(n, d)| (n.as_str(), *d)).collect();
                p.steps
                    .retain(|s| desired::unit::is_jail_row(&s.id, &names));
            }
            Ok(p)
        });
        let host_plan = match built {
            Ok(p) => p,
            Err(e) => {
                errors.extend(e);
                continue;
            }
        };
        let mut inside = Vec::with_capacity(jails.len());
        for j in jails {
            let c = of(&j.fqdn);
            let name = desired::unit::jail_name(&j.short, c);
            let p = desired::build(&j.fqdn, c).and_then(|d| {
                let steps = apply::steps(&d).map_err(|e| quoting(&j.fqdn, e))?;
                planned(j, c, steps, host_plan.login.clone(), Some(name))
            });
            match p {
                Ok(p) => inside.push(p),
                Err(e) => errors.extend(e),
            }
        }
        out.push(Connection {
            host: host_plan,
            jails: inside,
        });
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(out)
}

/// A unit from its steps: its script must be writable, its config digest
/// and facts script are computed.
fn planned<'a>(
    host: &'a Host,
    c: &crate::compile::Compiled,
    steps: Vec<Step>,
    login: Login,
    jail: Option<String>,
) -> Result<Planned<'a>, crate::diag::Diags> {
    // The script must be writable: a value no word can hold fails here.
    script::script(&host.fqdn, &steps, script::Options::default())
        .map_err(|e| quoting(&host.fqdn, e))?;
    let config = crate::output::to_string(&c.config, crate::output::Format::Json)?;
    let facts = gather::facts_script(&host.fqdn, &steps).map_err(|e| quoting(&host.fqdn, e))?;
    Ok(Planned {
        host,
        steps,
        login,
        config_sha256: apply::sha256_hex(&config),
        facts,
        jail,
        dataset: desired::unit::dataset(c).map(str::to_string),
        own: true,
        secrets: c.secrets.clone(),
    })
}

/// The connection as a real run sends it: each unit's tokens replaced by
/// their plaintexts (its own chain's secrets, opened with the operator's
/// identities), and the plaintexts its output is cleaned of. A unit whose
/// steps hold no token needs no identity; one that does and cannot be
/// opened fails the run before anything is sent.
pub(super) fn revealed<'a>(
    c: &Connection<'a>,
    ids: &[crate::secrets::wrap::Identity],
) -> Result<(Connection<'a>, Vec<(String, String)>), Failure> {
    let mut out = c.clone();
    let mut pairs = Vec::new();
    let units = std::iter::once(&mut out.host).chain(out.jails.iter_mut());
    for p in units {
        if !apply::reveal::needed(&p.steps) {
            continue;
        }
        let mut reveal = apply::reveal::Reveal::default();
        for sealed in &p.secrets {
            let opened = crate::secrets::open(sealed, ids).map_err(|d| {
                vec![d.because(&Diag::new(
                    Code::Secrets,
                    format!("{}: its secrets must be opened to apply it", p.host.fqdn),
                ))]
            })?;
            for (s, v) in sealed.secrets.iter().zip(&opened.values) {
                let text = String::from_utf8(v.to_vec()).map_err(|_| {
                    vec![
                        Diag::new(
                            Code::Secrets,
                            format!("{}: {} is not text", sealed.file, s.place),
                        )
                        .label(&s.span, "this value"),
                    ]
                })?;
                reveal.insert(s.token.clone(), text);
            }
        }
        p.steps = apply::reveal::steps(&p.steps, &reveal)
            .map_err(|why| vec![Diag::new(Code::Secrets, format!("{}: {why}", p.host.fqdn))])?;
        pairs.extend(reveal.pairs());
    }
    Ok((out, pairs))
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
    if args.state.is_some() {
        // One unit, against its one snapshot: a host without its jails.
        let plans = compile(ctx, &compiler, &hosts)?;
        let units: Vec<&Planned<'_>> = plans.iter().collect();
        return dry::run(args, &units, out);
    }
    let conns = connections(ctx, &compiler, &hosts, true)?;
    if args.script {
        // A host's whole script (its jails' inside it), or a jail's own.
        let text = match (&conns[0], hosts[0].is_jail()) {
            (c, true) => script_of(!args.no_prune, &c.jails[0], None)?,
            (c, false) => connection_script(!args.no_prune, args.jail_parallel, c, None, None)?,
        };
        write_out(out, &text)?;
        return Ok(Outcome::Ok);
    }
    if args.dry_run {
        let units: Vec<&Planned<'_>> = conns.iter().flat_map(Connection::units).collect();
        return dry::run(args, &units, out);
    }
    let ids = args.ids.load()?;
    let sent = conns
        .iter()
        .map(|c| revealed(c, &ids))
        .collect::<Result<Vec<_>, Failure>>()?;
    let jobs = conns
        .iter()
        .zip(&sent)
        .map(|(c, (r, pairs))| {
            let script = connection_script(!args.no_prune, args.jail_parallel, r, None, None)?;
            Ok(run::Job::of(c, Some(script), None, Vec::new()).cleaned_of(pairs.clone()))
        })
        .collect::<Result<Vec<_>, Failure>>()?;
    let units: Vec<&Planned<'_>> = conns.iter().flat_map(Connection::units).collect();
    run::confirm(args, &units, &jobs)?;
    run::run(args, &jobs, out)
}

/// The apply script of a unit alone (a host without its jails, or a jail's
/// inside script), pruning or not, with a saved plan's guard.
pub(super) fn script_of(
    prune: bool,
    p: &Planned<'_>,
    guard: Option<script::Guard<'_>>,
) -> Result<String, Failure> {
    let options = script::Options { prune };
    script::script_guarded(&p.host.fqdn, &p.steps, options, guard)
        .map_err(|e| quoting(&p.host.fqdn, e))
}

/// A jail a connection runs: its unit, its saved plan's guard, and whether
/// it prunes.
pub(super) type JailRun<'p, 'a> = (&'p Planned<'a>, Option<script::Guard<'p>>, bool);

/// The script a connection runs: the host's steps (its guard first), then
/// each jail's inside script (with its own guard and pruning) through
/// jexec, `at_once` of them at a time. `jails`: the jails to run; `None`:
/// every jail, unguarded.
pub(super) fn connection_script(
    prune: bool,
    at_once: usize,
    c: &Connection<'_>,
    guard: Option<script::Guard<'_>>,
    jails: Option<&[JailRun<'_, '_>]>,
) -> Result<String, Failure> {
    let all: Vec<JailRun<'_, '_>> = match jails {
        None => c.jails.iter().map(|j| (j, None, prune)).collect(),
        Some(some) => some.to_vec(),
    };
    let texts = all
        .iter()
        .map(|(j, g, prune)| script_of(*prune, j, *g))
        .collect::<Result<Vec<_>, _>>()?;
    let scripts: Vec<script::JailScript<'_>> = all
        .iter()
        .zip(&texts)
        .map(|((j, _, _), text)| script::JailScript {
            name: j.jail.as_deref().unwrap_or(&j.host.short),
            id: &j.host.fqdn,
            text,
            dataset: j.dataset.as_deref(),
        })
        .collect();
    let unit = script::Unit {
        own: c.host.own,
        jails: &scripts,
        at_once,
    };
    let h = &c.host;
    script::script_unit(
        &h.host.fqdn,
        &h.steps,
        script::Options { prune },
        guard,
        unit,
    )
    .map_err(|e| quoting(&h.host.fqdn, e))
}

fn quoting(fqdn: &str, e: crate::shell::QuoteError) -> Failure {
    vec![apply::quote_error(fqdn, e)]
}
