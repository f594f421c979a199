//! The beryl side: `beryl lookup`, one run per key and options for all the
//! nodes that need it (`--node` repeated), on two threads.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value as J;

use super::mapping::NODES;
use super::{Lookup, Reply, VALUES_HASH};
use crate::support::{Run, args, beryl};

/// The options of a lookup, which nodes share.
type Options = (
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    bool,
    bool,
    String,
);

fn options(l: &Lookup) -> Options {
    (
        l.beryl_key.clone(),
        l.merge.clone(),
        l.knockout_prefix.clone(),
        l.default.clone(),
        l.sort,
        l.values_hash,
        l.render_as.clone(),
    )
}

/// Every lookup's reply, as `beryl lookup KEY --node FQDN` alone would give
/// it. Nodes share a run when the output can be split by host (JSON); when
/// a shared run fails, each node runs alone.
pub fn run(dir: &Path, plans: &[Vec<Lookup>]) -> Vec<Vec<Reply>> {
    let mut jobs: BTreeMap<Options, Vec<(usize, usize)>> = BTreeMap::new();
    let mut single: Vec<Vec<(usize, usize)>> = Vec::new();
    for (n, plan) in plans.iter().enumerate() {
        for (i, l) in plan.iter().enumerate() {
            if l.render_as == "json" {
                jobs.entry(options(l)).or_default().push((n, i));
            } else {
                single.push(vec![(n, i)]);
            }
        }
    }
    let mut all: Vec<Vec<(usize, usize)>> = jobs.into_values().collect();
    all.extend(single);
    let half = all.len().div_ceil(2).max(1);
    let results: Vec<((usize, usize), Reply)> = std::thread::scope(|s| {
        let handles: Vec<_> = all
            .chunks(half)
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .flat_map(|job| shared(dir, plans, job))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let mut out: Vec<Vec<Option<Reply>>> = plans.iter().map(|p| vec![None; p.len()]).collect();
    for ((n, i), r) in results {
        out[n][i] = Some(r);
    }
    out.into_iter()
        .map(|v| v.into_iter().map(|r| r.expect("a reply")).collect())
        .collect()
}

/// One run for the nodes of `job`, split into one reply per node.
fn shared(
    dir: &Path,
    plans: &[Vec<Lookup>],
    job: &[(usize, usize)],
) -> Vec<((usize, usize), Reply)> {
    let (n0, i0) = job[0];
    let l = &plans[n0][i0];
    let fqdns: Vec<String> = job.iter().map(|&(n, _)| NODES[n].fqdn()).collect();
    let whole = lookup(dir, &fqdns, l);
    if job.len() == 1 {
        return vec![(job[0], whole)];
    }
    let split = |fqdn: &str| -> Option<Reply> {
        let found: J = serde_json::from_str(&whole.stdout).ok()?;
        if let Some(v) = found.get(fqdn) {
            return Some(Reply {
                exit: 0,
                stdout: format!("{v}\n"),
                stderr: String::new(),
            });
        }
        let line = format!("not found: {} on {fqdn}", l.beryl_key);
        whole.stderr.lines().any(|x| x == line).then(|| Reply {
            exit: 1,
            stdout: String::new(),
            stderr: format!("not found: {}\n", l.beryl_key),
        })
    };
    job.iter()
        .zip(&fqdns)
        .map(|(&at, fqdn)| {
            let alone = || lookup(dir, std::slice::from_ref(fqdn), &plans[at.0][at.1]);
            let reply = match whole.exit {
                0 | 1 => split(fqdn).unwrap_or_else(alone),
                _ => alone(),
            };
            (at, reply)
        })
        .collect()
}

/// `beryl lookup` for the hosts.
fn lookup(dir: &Path, fqdns: &[String], l: &Lookup) -> Reply {
    let mut a = vec!["lookup", l.beryl_key.as_str(), "--render-as", &l.render_as];
    for f in fqdns {
        a.extend(["--node", f]);
    }
    if let Some(m) = &l.merge {
        a.extend(["--merge", m]);
    }
    if let Some(p) = &l.knockout_prefix {
        a.extend(["--knock-out-prefix", p]);
    }
    if let Some(d) = &l.default {
        a.extend(["--default", d]);
    }
    if l.sort {
        a.push("--sort-merged-arrays");
    }
    if l.values_hash {
        a.extend(["--default-values-hash", VALUES_HASH]);
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
