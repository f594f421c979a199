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
use crate::apply::gather::{self, JailTarget, Taken, Target};
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
            // A host brings the plans of its jails (issue 36).
            for j in plan
                .hosts
                .iter()
                .filter(|p| p.parent.as_deref() == Some(&h.fqdn))
            {
                if !found.iter().any(|f| f.host == j.host) {
                    found.push(j);
                }
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
    // By connection: a jail's plan runs on its host's (issue 36).
    let conns = super::connections(ctx, &compiler, &hosts, false)?;
    let find = |fqdn: &str| wanted.iter().find(|w| w.host == fqdn).copied();
    // First offline: each unit's plan must hold against the inventory. A
    // host run only for its jails needs none when it has no rows to run.
    let held: Vec<(Held<'_>, Vec<Held<'_>>)> = conns
        .iter()
        .map(|c| {
            let host = match find(&c.host.host.fqdn) {
                None if !c.host.own && c.host.steps.is_empty() => Ok(None),
                None => Err(Stale::Steps("the host is not in the plan".into())),
                Some(saved) => holds(saved, &c.host).map(Some),
            };
            let jails = c
                .jails
                .iter()
                .map(|j| match find(&j.host.fqdn) {
                    None => Err(Stale::Steps("the jail is not in the plan".into())),
                    Some(saved) => holds(saved, j).map(Some),
                })
                .collect();
            (host, jails)
        })
        .collect();
    // Then, for a real run, each unit that holds: its facts are taken
    // again (a jail's in it, over its host's connection), and the plan runs
    // only if its steps and removals would do exactly what they did
    // against the plan's facts.
    let fresh = match args.script {
        true => Vec::new(),
        false => fresh_facts(args, &conns, &held)?,
    };
    if args.script {
        return print_script(args, &conns, &held, out);
    }
    let ids = args.ids.load()?;
    let sent = conns
        .iter()
        .map(|c| super::revealed(c, &ids))
        .collect::<Result<Vec<_>, Failure>>()?;
    let mut scripts = Vec::with_capacity(conns.len());
    for (i, (c, (host, jails))) in conns.iter().zip(&held).enumerate() {
        let (r, pairs) = &sent[i];
        let mut taken = fresh[i].iter();
        let host = decide(host, &c.host, &mut taken);
        let jails: Vec<Decided<'_>> = c
            .jails
            .iter()
            .zip(jails)
            .map(|(j, h)| decide(h, j, &mut taken))
            .collect();
        let job = match host {
            Err(refused) => Job::of(c, None, Some(refused), Vec::new()),
            Ok(saved) => {
                let guard = saved.as_ref().map(|(_, sha)| Guard {
                    facts_script: &c.host.facts.text,
                    facts_sha256: sha,
                });
                let prune = saved.as_ref().is_none_or(|(s, _)| s.prune);
                let mut runs = Vec::new();
                let mut refused = Vec::new();
                for (j, d) in r.jails.iter().zip(&jails) {
                    match d {
                        Ok(Some((s, sha))) => runs.push((
                            j,
                            Some(Guard {
                                facts_script: &j.facts.text,
                                facts_sha256: sha,
                            }),
                            s.prune,
                        )),
                        Ok(None) => {}
                        Err(why) => refused.push((j.host.fqdn.as_str(), why.clone())),
                    }
                }
                let script =
                    super::connection_script(prune, args.jail_parallel, r, guard, Some(&runs))?;
                Job::of(c, Some(script), None, refused).cleaned_of(pairs.clone())
            }
        };
        scripts.push(job);
    }
    run::run(args, &scripts, out)
}

/// A unit's saved plan, when it holds offline (`None`: a host that needs
/// none), or why it is stale.
type Held<'p> = Result<Option<&'p HostPlan>, Stale>;

/// A unit's saved plan against the unit compiled now.
fn holds<'p>(saved: &'p HostPlan, p: &super::Planned<'_>) -> Result<&'p HostPlan, Stale> {
    let now = saved::Stamp {
        config_sha256: &p.config_sha256,
        facts_sha256: &saved.facts_sha256,
        facts_script_sha256: &p.facts.sha256,
    };
    saved::check(saved, &p.steps, &now).map(|()| saved)
}

/// What [`decide`] says of a unit.
type Decided<'p> = Result<Option<(&'p HostPlan, String)>, (Status, String)>;

/// Whether a unit runs: with its plan and the sha256 its guard holds it
/// to (the facts just taken, or with `--script` the plan's own), without
/// one (a host run only for its jails' rows), or refused and why. Takes the
/// unit's fresh facts from `taken` when it held offline.
fn decide<'p>(
    held: &Held<'p>,
    p: &super::Planned<'_>,
    taken: &mut std::slice::Iter<'_, Taken>,
) -> Decided<'p> {
    let saved = match held {
        Err(why) => return Err((Status::Stale, stale_reason(why))),
        Ok(None) => return Ok(None),
        Ok(Some(saved)) => *saved,
    };
    match taken.next() {
        None => Ok(Some((saved, saved.facts_sha256.clone()))),
        Some(Err(missed)) => Err(missed.clone()),
        Some(Ok((sha, state))) => match saved::still_holds(saved, &p.steps, state) {
            // The guard then holds the unit to the facts just taken.
            Ok(()) => Ok(Some((saved, sha.clone()))),
            Err(why) => Err((Status::Stale, stale_reason(&why))),
        },
    }
}

/// The facts of each unit whose plan holds, taken now over ssh, a
/// connection's in the order of its units.
fn fresh_facts(
    args: &Args,
    conns: &[super::Connection<'_>],
    held: &[(Held<'_>, Vec<Held<'_>>)],
) -> Result<Vec<Vec<Taken>>, Failure> {
    let targets: Vec<Target<'_>> = conns
        .iter()
        .zip(held)
        .map(|(c, (host, jails))| Target {
            fqdn: &c.host.host.fqdn,
            login: &c.host.login,
            script: &c.host.facts,
            own: matches!(host, Ok(Some(_))),
            jails: c
                .jails
                .iter()
                .zip(jails)
                .filter(|(_, h)| matches!(h, Ok(Some(_))) && host.is_ok())
                .map(|(j, _)| JailTarget {
                    name: j.jail.as_deref().unwrap_or(&j.host.short),
                    fqdn: &j.host.fqdn,
                    script: &j.facts,
                })
                .collect(),
        })
        .collect();
    let counts: Vec<usize> = targets.iter().map(|t| t.units().len()).collect();
    let some: Vec<Target<'_>> = targets
        .into_iter()
        .filter(|t| !t.units().is_empty())
        .collect();
    let mut taken = gather::take_all(&some, &args.ssh_option, args.parallel)
        .map_err(|e| vec![Diag::new(Code::Parallel, e)])?
        .into_iter();
    Ok(counts
        .into_iter()
        .map(|n| taken.by_ref().take(n).collect())
        .collect())
}

/// `--plan PLAN --script HOST`: the script a saved plan runs on one
/// connection, its guards first (each against the plan's own facts); for a
/// jail alone, its inside script.
fn print_script(
    args: &Args,
    conns: &[super::Connection<'_>],
    held: &[(Held<'_>, Vec<Held<'_>>)],
    out: &mut dyn Write,
) -> Result<Outcome, Failure> {
    let ([c], [(host, jails)]) = (conns, held) else {
        return Err(vec![
            Diag::new(
                Code::OneHost,
                format!(
                    "--script takes exactly one host; the selection holds {}",
                    conns.iter().map(|c| c.units().count()).sum::<usize>()
                ),
            )
            .help("name one host of the plan"),
        ]);
    };
    let stale = |fqdn: &str, why: &Stale| {
        vec![Diag::new(
            Code::Stale,
            format!("{fqdn}: is stale: {}", stale_reason(why)),
        )]
    };
    fn guard<'g>(p: &'g super::Planned<'_>, h: &'g HostPlan) -> Guard<'g> {
        Guard {
            facts_script: &p.facts.text,
            facts_sha256: &h.facts_sha256,
        }
    }
    let one_jail = !c.host.own && c.jails.len() == 1 && args.hosts.len() == 1;
    let text = if one_jail {
        let j = &c.jails[0];
        match &jails[0] {
            Err(why) => return Err(stale(&j.host.fqdn, why)),
            Ok(saved) => {
                let saved = saved
                    .ok_or_else(|| stale(&j.host.fqdn, &Stale::Steps("not in the plan".into())))?;
                script_of(saved.prune, j, Some(guard(j, saved)))?
            }
        }
    } else {
        let host = match host {
            Err(why) => return Err(stale(&c.host.host.fqdn, why)),
            Ok(h) => *h,
        };
        let mut runs = Vec::new();
        for (j, h) in c.jails.iter().zip(jails) {
            match h {
                Err(why) => return Err(stale(&j.host.fqdn, why)),
                Ok(Some(s)) => runs.push((j, Some(guard(j, s)), s.prune)),
                Ok(None) => {}
            }
        }
        super::connection_script(
            host.is_none_or(|h| h.prune),
            args.jail_parallel,
            c,
            host.map(|h| guard(&c.host, h)),
            Some(&runs),
        )?
    };
    crate::cli::write_out(out, &text)?;
    Ok(Outcome::Ok)
}

/// Why a unit is stale, as its recap, diagnostic and event say it: the
/// facts' own words (a removal's id from the host's record) shown, never
/// obeyed.
fn stale_reason(why: &Stale) -> String {
    let why = match why {
        Stale::Config => "the inventory now compiles to another config than the plan's".into(),
        Stale::FactsScript => {
            "the facts script is not the one the plan's facts were taken with".into()
        }
        Stale::Steps(what) => format!("the steps are not the plan's ({what})"),
        Stale::Edited(what) => format!("the plan was edited after it was made: {what}"),
        Stale::Host(what) => format!("the host changed since the plan: {what}"),
    };
    crate::value::repr::visible(&why, &[])
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A stale reason quotes the facts (a removal's id from the host's
    /// record): its escapes are shown in the recap, diagnostic and event.
    #[test]
    fn a_stale_reason_shows_the_facts_escapes() {
        let why = stale_reason(&Stale::Host(
            "removal pkg:\u{1b}]0;pwned\u{7} would now do otherwise".into(),
        ));
        assert_eq!(
            why,
            "the host changed since the plan: removal pkg:\\u{1b}]0;pwned\\u{7} would now do otherwise"
        );
    }
}
