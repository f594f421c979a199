//! Judging each lookup and writing the counts.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::super::differences::{self, Failed, list};
use super::judge::{self, Outcome};
use super::mapping::NODES;
use super::{Lookup, Reply, TITLE};

/// A variant's counts, and how many lookups Puppet found.
#[derive(Default)]
struct Tally {
    counts: differences::Tally,
    found: usize,
}

pub fn judge_all(
    plans: &[Vec<Lookup>],
    theirs: &[Vec<Reply>],
    ours: &[Vec<Reply>],
    twice: &[bool],
) {
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
            t.found += usize::from(matches!(p, Outcome::Value(_) | Outcome::Text(_)));
            let case = judge::Case {
                lookup: l,
                twice: twice[n],
            };
            match t
                .counts
                .count(judge::judge(&differences, &case, &b, &p), &mut seen)
            {
                None => {}
                Some(Failed::ExactButAgree(id)) => failures.push(format!(
                    "{} {l:?}: `{id}` is exact but this lookup agrees",
                    NODES[n].short
                )),
                Some(Failed::Unexplained) => failures.push(format!(
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
            t.counts.cases,
            t.found,
            t.counts.agree,
            list(&t.counts.explained),
            list(&t.counts.flagged_but_agree)
        );
        total.counts.cases += t.counts.cases;
        total.found += t.found;
        total.counts.agree += t.counts.agree;
    }
    let _ = writeln!(
        table,
        "| all | {} | {} | {} | {} | |",
        total.counts.cases,
        total.found,
        total.counts.agree,
        list(&seen)
    );
    let _ = write!(
        table,
        "\n{} nodes; keys are every root key of the data and the dotted paths into its mappings.",
        NODES.len()
    );
    super::super::report_section(TITLE, &table);
    // Every unexplained lookup, for reading (the failure shows the first 30).
    let all = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("lookup-unexplained.txt");
    std::fs::write(&all, failures.join("\n")).expect("write the list");
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
