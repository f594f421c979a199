//! Running `beryl lookup`, judging each lookup and writing the counts.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use super::super::differences;
use super::judge::{self, Outcome, Verdict};
use super::mapping::NODES;
use super::{Lookup, Reply, TITLE};
use crate::support::{Run, args, beryl};

/// Runs every lookup through `beryl lookup`, on two threads.
pub fn run_beryl(dir: &Path, plans: &[Vec<Lookup>]) -> Vec<Vec<Reply>> {
    let jobs: Vec<(usize, usize)> = plans
        .iter()
        .enumerate()
        .flat_map(|(n, p)| (0..p.len()).map(move |i| (n, i)))
        .collect();
    let mut out: Vec<Vec<Option<Reply>>> = plans.iter().map(|p| vec![None; p.len()]).collect();
    let results: Vec<Vec<((usize, usize), Reply)>> = std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .chunks(jobs.len().div_ceil(2).max(1))
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|&(n, i)| ((n, i), beryl_lookup(dir, &NODES[n].fqdn(), &plans[n][i])))
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for ((n, i), r) in results.into_iter().flatten() {
        out[n][i] = Some(r);
    }
    out.into_iter()
        .map(|v| v.into_iter().map(Option::unwrap).collect())
        .collect()
}

fn beryl_lookup(dir: &Path, fqdn: &str, l: &Lookup) -> Reply {
    let mut a = vec![
        "lookup",
        &l.beryl_key,
        "--node",
        fqdn,
        "--render-as",
        &l.render_as,
    ];
    if let Some(m) = &l.merge {
        a.extend(["--merge", m]);
    }
    if let Some(p) = &l.knockout_prefix {
        a.extend(["--knock-out-prefix", p]);
    }
    if let Some(d) = &l.default {
        a.extend(["--default", d]);
    }
    let Run {
        status,
        stdout,
        stderr,
    } = beryl(dir, &args(&a));
    Reply {
        exit: status,
        stdout,
        stderr,
    }
}

#[derive(Default)]
struct Tally {
    cases: usize,
    agree: usize,
    found: usize,
    explained: BTreeMap<String, usize>,
    flagged_but_agree: BTreeMap<String, usize>,
}

pub fn judge_all(plans: &[Vec<Lookup>], theirs: &[Vec<Reply>], ours: &[Vec<Reply>]) {
    let differences: Vec<_> = differences::load()
        .into_iter()
        .filter(|d| d.peers.iter().any(|p| p == "puppet-lookup"))
        .collect();
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (n, plan) in plans.iter().enumerate() {
        for (i, l) in plan.iter().enumerate() {
            let json = l.render_as == "json";
            let p = judge::puppet(&theirs[n][i], json);
            let b = judge::beryl(&ours[n][i], json, &l.beryl_key);
            let t = tallies.entry(l.variant).or_default();
            t.cases += 1;
            t.found += usize::from(matches!(p, Outcome::Value(_) | Outcome::Text(_)));
            match judge::judge(&differences, &b, &p) {
                Verdict::Agree { flagged } => {
                    t.agree += 1;
                    for id in flagged {
                        *t.flagged_but_agree.entry(id).or_default() += 1;
                    }
                }
                Verdict::Explained(id) => {
                    *seen.entry(id.clone()).or_default() += 1;
                    *t.explained.entry(id).or_default() += 1;
                }
                Verdict::ExactButAgree(id) => failures.push(format!(
                    "{} {l:?}: `{id}` is exact but this lookup agrees",
                    NODES[n].short
                )),
                Verdict::Unexplained => failures.push(format!(
                    "{} {} [{}]\n  puppet: {p:?}\n  beryl:  {b:?}",
                    NODES[n].short, l.beryl_key, l.variant
                )),
            }
        }
    }
    for d in &differences {
        if !seen.contains_key(&d.id) {
            failures.push(format!(
                "listed difference `{}` was never observed: remove it",
                d.id
            ));
        }
    }
    let mut table = String::from(
        "| variant | lookups | puppet found | agree | differ (listed difference: count) | selected by a difference but agree |\n|---|---|---|---|---|---|\n",
    );
    let mut total = Tally::default();
    for (variant, t) in &tallies {
        let _ = writeln!(
            table,
            "| {variant} | {} | {} | {} | {} | {} |",
            t.cases,
            t.found,
            t.agree,
            list(&t.explained),
            list(&t.flagged_but_agree)
        );
        total.cases += t.cases;
        total.found += t.found;
        total.agree += t.agree;
    }
    let _ = writeln!(
        table,
        "| all | {} | {} | {} | {} | |",
        total.cases,
        total.found,
        total.agree,
        list(&seen)
    );
    let _ = write!(
        table,
        "\n{} nodes; keys are every root key of the data and the dotted paths into its mappings.",
        NODES.len()
    );
    super::super::report_section(TITLE, &table);
    eprintln!("{table}");
    assert!(
        failures.is_empty(),
        "{} unexplained result(s):\n{}",
        failures.len(),
        failures[..failures.len().min(30)].join("\n")
    );
}

/// Puppet's side alone: lookups per variant and how many found a value.
pub fn puppet_only_table(plans: &[Vec<Lookup>], theirs: &[Vec<Reply>]) -> String {
    let mut rows: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
    for (plan, replies) in plans.iter().zip(theirs) {
        for (l, r) in plan.iter().zip(replies) {
            let row = rows.entry(l.variant).or_default();
            row[0] += 1;
            match judge::puppet(r, l.render_as == "json") {
                Outcome::Value(_) | Outcome::Text(_) => row[1] += 1,
                Outcome::NotFound => row[2] += 1,
                Outcome::Error(_) => row[3] += 1,
            }
        }
    }
    let mut t = String::from(
        "| variant | lookups | puppet found | not found | lookup error |\n|---|---|---|---|---|\n",
    );
    for (v, [a, b, c, d]) in rows {
        let _ = writeln!(t, "| {v} | {a} | {b} | {c} | {d} |");
    }
    t
}

fn list(m: &BTreeMap<String, usize>) -> String {
    if m.is_empty() {
        return "0".into();
    }
    m.iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}
