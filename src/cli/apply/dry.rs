//! The dry run: each host's plan against its snapshot (or undecided), the
//! fleet footer, the one JSON document or JSON Lines, and `--out`.

use std::io::Write;

use super::state::{self, Snapshot};
use super::{Args, Code, Format, Planned};
use crate::apply::diff::{self, Outcome as StepOutcome};
use crate::apply::fleet::{self, HostReport};
use crate::apply::saved;
use crate::cli::{Failure, Outcome, write_out};
use crate::diag::Diag;

pub(super) fn run(
    args: &Args,
    plans: &[&Planned<'_>],
    out: &mut dyn Write,
) -> Result<Outcome, Failure> {
    if let Some(dir) = &args.state_dir {
        state::exists(dir)?;
    }
    let snapshots: Vec<Option<Snapshot>> =
        crate::diag::collect(plans.iter().map(|p| match (&args.state, &args.state_dir) {
            (Some(file), _) => state::load_for(file, &p.host.fqdn, &p.facts).map(Some),
            (None, Some(dir)) => state::from_dir(dir, &p.host.fqdn, &p.facts),
            (None, None) => Ok(None),
        }))?;
    let outcomes: Vec<Vec<StepOutcome>> = plans
        .iter()
        .zip(&snapshots)
        .map(|(p, s)| diff::compare(&p.steps, s.as_ref().map(|s| &s.state), prune(args, p)))
        .collect();
    if let Some(path) = &args.out {
        save(args, path, plans, &snapshots, &outcomes)?;
    }
    // The jails beryl did not make, as apply reports them after its
    // pruning: in the report, not in a saved plan (nothing is done to them).
    let mut outcomes = outcomes;
    for ((p, s), o) in plans.iter().zip(&snapshots).zip(&mut outcomes) {
        if let Some(s) = s.as_ref().filter(|_| p.own) {
            o.extend(diff::foreign_jails(&p.steps, &s.state));
        }
    }
    let reports: Vec<HostReport<'_>> = plans
        .iter()
        .zip(&snapshots)
        .zip(&outcomes)
        .map(|((p, s), o)| HostReport::new(&p.host.fqdn, s.as_ref().map(|s| s.path.clone()), o))
        .collect();
    let text = match args.format {
        Format::Json => fleet::to_json(&reports),
        Format::Jsonl => fleet::to_jsonl(&reports),
        Format::Text => text(args, &reports, plans),
    };
    write_out(out, &text)?;
    let totals = fleet::fleet_summary(&reports).totals;
    let pending = totals.pending();
    Ok(if args.exit_code && pending > 0 {
        crate::cli::Outcome::Differences
    } else {
        Outcome::Ok
    })
}

/// Whether a unit's removals are planned: not with `--no-prune`, and not
/// on a host only some of whose jails were selected.
fn prune(args: &Args, p: &Planned<'_>) -> bool {
    !args.no_prune && p.own
}

/// Each host's plan; with several hosts, the fleet footer after them.
fn text(args: &Args, reports: &[HostReport<'_>], plans: &[&Planned<'_>]) -> String {
    let mut out = String::new();
    for (r, p) in reports.iter().zip(plans) {
        let mut t = diff::to_text(r.host, r.steps, r.snapshot.is_some());
        if let Some(parent) = &p.host.parent {
            // Said under the jail's name: what its report is, and is not.
            let note = format!(
                "jail of {parent}: the steps run inside it, against its own snapshot; \
                 the rows that make and run it are in {parent}'s report\n"
            );
            let at = t.find('\n').map_or(t.len(), |i| i + 1);
            t.insert_str(at, &note);
        }
        if r.snapshot.is_none()
            && let Some(dir) = &args.state_dir
        {
            // Said at once, under the host's name: no snapshot was found.
            let note = format!(
                "state unknown: no snapshot {}\n",
                dir.join(format!("{}.json", r.host)).display()
            );
            let at = t.find('\n').map_or(t.len(), |i| i + 1);
            t.insert_str(at, &note);
        }
        out.push_str(&t);
    }
    if reports.len() > 1 {
        out.push_str(&fleet::footer(reports));
    }
    out
}

/// `--out`: the plan of every host, stamped; refused while a host's state
/// is unknown (nothing could tell a stale plan from a good one).
fn save(
    args: &Args,
    path: &std::path::Path,
    plans: &[&Planned<'_>],
    snapshots: &[Option<Snapshot>],
    outcomes: &[Vec<StepOutcome>],
) -> Result<(), Failure> {
    let unknown: Vec<String> = plans
        .iter()
        .zip(snapshots)
        .filter(|(_, s)| s.is_none())
        .map(|(p, _)| format!("\n  {}", p.host.fqdn))
        .collect();
    if !unknown.is_empty() {
        let help = if args.state_dir.is_some() {
            "gather them first (beryl facts --gather SELECTION --out DIR), or leave them out of the selection"
        } else {
            "give each host's snapshot: --state FILE (one host) or --state-dir DIR"
        };
        return Err(vec![
            Diag::new(
                Code::Unknown,
                format!(
                    "--out saves a plan only for hosts whose state is known; no snapshot for:{}",
                    unknown.concat()
                ),
            )
            .help(help),
        ]);
    }
    let hosts = plans
        .iter()
        .zip(snapshots)
        .zip(outcomes)
        .filter_map(|((p, s), o)| {
            let s = s.as_ref()?;
            let stamp = saved::Stamp {
                config_sha256: &p.config_sha256,
                facts_sha256: &s.sha256,
                facts_script_sha256: &p.facts.sha256,
            };
            let mut plan = saved::host_plan(
                &p.host.fqdn,
                &p.steps,
                o,
                prune(args, p),
                &stamp,
                saved::Facts { text: &s.text },
            );
            plan.parent.clone_from(&p.host.parent);
            Some(plan)
        })
        .collect();
    let plan = saved::plan(env!("BERYL_VERSION"), hosts);
    let mut text = serde_json::to_string_pretty(&plan).unwrap_or_default();
    text.push('\n');
    crate::fsutil::write_atomic(path, text).map_err(|(p, e)| {
        vec![Diag::new(
            crate::diag::Common::Io,
            format!("cannot write {}: {e}", p.display()),
        )]
    })
}
