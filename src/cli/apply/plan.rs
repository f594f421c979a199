//! `apply --plan PLAN.json [SELECTION]`: a saved plan applied exactly. Each
//! host is recompiled; one whose effective config, facts script or steps
//! are no longer the plan's is refused as stale without running. The
//! others' facts are taken again over ssh, and a host where a step or a
//! removal would now do otherwise is refused as stale; the rest run a
//! script whose guard holds the host to those fresh facts (docs/apply.md
//! §12).

use std::io::Write;
use std::path::Path;

use super::run::{self, Job};
use super::{Args, Code, script_of};
use crate::apply::gather::{self, Taken, Target};
use crate::apply::recap::Status;
use crate::apply::saved::{self, HostPlan, Stale, Unreadable};
use crate::apply::script::Guard;
use crate::cli::{Context, Failure, Outcome};
use crate::diag::Diag;

pub(super) fn apply(
    ctx: &Context,
    args: &Args,
    path: &Path,
    out: &mut dyn Write,
) -> Result<Outcome, Failure> {
    let plan = read(path)?;
    let inventory = ctx.inventory()?;
    let compiler = ctx.compiler(&inventory);
    // The plan's hosts, or those of the selection, which must be in it.
    let wanted: Vec<&HostPlan> = if args.hosts.is_empty() {
        plan.hosts.iter().collect()
    } else {
        let chosen = ctx.select(&compiler, &args.hosts, false)?;
        let mut missing = Vec::new();
        let mut found = Vec::new();
        for h in chosen {
            match plan.hosts.iter().find(|p| p.host == h.fqdn) {
                Some(p) => found.push(p),
                None => missing.push(format!("\n  {}", h.fqdn)),
            }
        }
        if !missing.is_empty() {
            return Err(vec![Diag::new(
                Code::Plan,
                format!(
                    "{}: the plan has no host{}",
                    path.display(),
                    missing.concat()
                ),
            )]);
        }
        found
    };
    let names: Vec<String> = wanted.iter().map(|p| p.host.clone()).collect();
    let hosts = ctx.select(&compiler, &names, false).map_err(|mut e| {
        e.insert(
            0,
            Diag::new(
                Code::Plan,
                format!(
                    "{}: a host of the plan is not in the inventory",
                    path.display()
                ),
            ),
        );
        e
    })?;
    let plans = super::compile(ctx, &compiler, &hosts)?;
    // First offline: each host's plan must hold against the inventory.
    let held: Vec<Result<&HostPlan, Stale>> = plans
        .iter()
        .map(|p| {
            // Every compiled host was selected from the plan's.
            let Some(saved) = wanted.iter().find(|w| w.host == p.host.fqdn).copied() else {
                return Err(Stale::Steps("the host is not in the plan".into()));
            };
            let now = saved::Stamp {
                config_sha256: &p.config_sha256,
                facts_sha256: &saved.facts_sha256,
                facts_script_sha256: &p.facts.sha256,
            };
            saved::check(saved, &p.steps, &now).map(|()| saved)
        })
        .collect();
    // Then, for a real run, each host that holds: its facts are taken
    // again, and the plan runs only if its steps and removals would do
    // exactly what they did against the plan's facts.
    let fresh = match args.script {
        true => Vec::new(),
        false => fresh_facts(args, &plans, &held)?,
    };
    let mut scripts = Vec::with_capacity(plans.len());
    for (i, (p, held)) in plans.iter().zip(&held).enumerate() {
        let job = match (held, fresh.get(i)) {
            (Err(why), _) => (None, Some((Status::Stale, stale_reason(why)))),
            (Ok(saved), None | Some(None)) => {
                // --script: the guard compares the plan's own facts.
                (Some(guarded(saved, p, &saved.facts_sha256)?), None)
            }
            (Ok(_), Some(Some(Err(missed)))) => (None, Some(missed.clone())),
            (Ok(saved), Some(Some(Ok((sha, state))))) => {
                match saved::still_holds(saved, &p.steps, state) {
                    // The guard then holds the host to the facts just taken.
                    Ok(()) => (Some(guarded(saved, p, sha)?), None),
                    Err(why) => (None, Some((Status::Stale, stale_reason(&why)))),
                }
            }
        };
        scripts.push(job);
    }
    let jobs: Vec<Job<'_>> = plans
        .iter()
        .zip(scripts)
        .map(|(p, (script, refused))| Job {
            fqdn: &p.host.fqdn,
            login: &p.login,
            script,
            refused,
        })
        .collect();
    if args.script {
        return print_script(&jobs, out);
    }
    run::run(args, &jobs, out)
}

/// The script of a host whose plan holds, its guard comparing the facts
/// the host prints when it runs with `facts_sha256`.
fn guarded(
    saved: &HostPlan,
    p: &super::Planned<'_>,
    facts_sha256: &str,
) -> Result<String, Failure> {
    let guard = Guard {
        facts_script: &p.facts.text,
        facts_sha256,
    };
    // The plan's own choice: pruning as when it was made.
    script_of(saved.prune, p, Some(guard))
}

/// The facts of each host whose plan holds, taken now over ssh (`None` for
/// the others).
fn fresh_facts(
    args: &Args,
    plans: &[super::Planned<'_>],
    held: &[Result<&HostPlan, Stale>],
) -> Result<Vec<Option<Taken>>, Failure> {
    let targets: Vec<(usize, Target<'_>)> = plans
        .iter()
        .zip(held)
        .enumerate()
        .filter(|(_, (_, h))| h.is_ok())
        .map(|(i, (p, _))| {
            let t = Target {
                fqdn: &p.host.fqdn,
                login: &p.login,
                script: &p.facts,
            };
            (i, t)
        })
        .collect();
    let only: Vec<Target<'_>> = targets.iter().map(|(_, t)| t.clone()).collect();
    let taken = gather::take_all(&only, &args.ssh_option, args.parallel)
        .map_err(|e| vec![Diag::new(Code::Parallel, e)])?;
    let mut out: Vec<Option<Taken>> = (0..plans.len()).map(|_| None).collect();
    for ((i, _), t) in targets.iter().zip(taken) {
        out[*i] = Some(t);
    }
    Ok(out)
}

/// `--plan PLAN --script HOST`: the script a saved plan runs on one host,
/// its guard first.
fn print_script(jobs: &[Job<'_>], out: &mut dyn Write) -> Result<Outcome, Failure> {
    let [job] = jobs else {
        return Err(vec![
            Diag::new(
                Code::OneHost,
                format!(
                    "--script takes exactly one host; the selection holds {}",
                    jobs.len()
                ),
            )
            .help("name one host of the plan"),
        ]);
    };
    match (&job.script, &job.refused) {
        (Some(text), _) => {
            crate::cli::write_out(out, text)?;
            Ok(Outcome::Ok)
        }
        (None, why) => Err(vec![Diag::new(
            Code::Stale,
            format!(
                "{}: is stale: {}",
                job.fqdn,
                why.as_ref().map_or("", |(_, w)| w.as_str())
            ),
        )]),
    }
}

fn stale_reason(why: &Stale) -> String {
    match why {
        Stale::Config => "the inventory now compiles to another config than the plan's".into(),
        Stale::FactsScript => {
            "the facts script is not the one the plan's facts were taken with".into()
        }
        Stale::Steps(what) => format!("the steps are not the plan's ({what})"),
        Stale::Edited(what) => format!("the plan was edited after it was made: {what}"),
        Stale::Host(what) => format!("the host changed since the plan: {what}"),
    }
}

/// Reads a saved plan, naming what it is when it is not one of ours.
fn read(path: &Path) -> Result<saved::SavedPlan, Failure> {
    let name = path.display().to_string();
    let text = crate::yaml::read_output(path, &name)?;
    let version = env!("BERYL_VERSION");
    saved::parse(&text, version).map_err(|e| {
        let (message, help) = match e {
            Unreadable::Shape(e) => (
                format!("{name}: not a beryl plan: {e}"),
                "save one with: beryl apply SELECTION --dry-run --state-dir DIR --out PLAN.json"
                    .to_string(),
            ),
            Unreadable::Format { format, version: v } => (
                format!(
                    "{name}: a plan of format {format:?} version {v}, and this beryl reads {:?} version {}",
                    saved::FORMAT,
                    saved::FORMAT_VERSION
                ),
                "make the plan again with this beryl".to_string(),
            ),
            Unreadable::Version(made_by) => (
                format!("{name}: a plan made by beryl {made_by}, and this is beryl {version}"),
                "a plan is applied by the beryl that made it: make it again with this one"
                    .to_string(),
            ),
        };
        vec![Diag::new(Code::Plan, message).help(help)]
    })
}
