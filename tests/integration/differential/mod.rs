//! The differential suite: beryl's strategies against the real peer programs.
//!
//! - `deep` with and without each option against the deep_merge gem;
//! - `first`, `unique`, `hash` and `deep` against Puppet's own
//!   `Puppet::Pops::MergeStrategy`;
//! - `patch` against the 15 RFC 7396 Appendix A vectors and the `json-patch`
//!   crate's `merge`.
//!
//! Each configuration gets 2,000 seeded random sequences of 2 to 4 levels.
//! Every disagreement must be a deliberate difference listed in
//! tests/peers/differences.yml. Without the Ruby peers the Puppet and gem
//! parts are skipped with a notice, unless BERYL_REQUIRE_PEERS is set (as in
//! `.ci/run`), where a missing peer fails the suite.
//!
//! `reclass/` holds classes, references and queries to kapicorp-reclass,
//! `yaml11/` the YAML 1.1 dialect of reclass inventories to PyYAML,
//! `lookup/` `beryl lookup` to `puppet lookup` on a real Hiera repository.

mod cases;
mod differences;
mod lookup;
mod peers;
mod reclass;
mod reclass_cli;
mod reclass_real;
mod sops;
mod yaml11;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use beryl::merge::{Policy, Spec};
use beryl::value::{Node, Source};
use serde_json::{Value as J, json};

use cases::Profile;
use differences::{Failed, Tally, list};
use peers::{Answer, Driver};

use crate::support::repo;

const CASES: usize = 2000;

/// One column of the agreement table.
struct Config {
    peer: &'static str,
    spec: J,
    profile: Profile,
    markers: bool,
}

fn configs() -> Vec<Config> {
    let c = |peer, spec: J, profile, markers| Config {
        peer,
        spec,
        profile,
        markers,
    };
    let ko = json!({"strategy": "deep", "knockout_prefix": "--"});
    let mha = json!({"strategy": "deep", "merge_hash_arrays": true});
    let sort = json!({"strategy": "deep", "sort_merged_arrays": true});
    let all = json!({"strategy": "deep", "knockout_prefix": "--", "merge_hash_arrays": true, "sort_merged_arrays": true});
    vec![
        c("puppet", json!({"strategy": "first"}), Profile::Maps, false),
        c(
            "puppet",
            json!({"strategy": "unique"}),
            Profile::Lists,
            false,
        ),
        c("puppet", json!({"strategy": "hash"}), Profile::Maps, false),
        c("puppet", json!({"strategy": "deep"}), Profile::Maps, false),
        c("puppet", ko.clone(), Profile::Maps, true),
        c("puppet", mha.clone(), Profile::HashArrays, false),
        c("puppet", sort.clone(), Profile::Maps, false),
        c(
            "deep_merge",
            json!({"strategy": "deep"}),
            Profile::Maps,
            false,
        ),
        c(
            "deep_merge",
            json!({"strategy": "deep"}),
            Profile::HashArrays,
            false,
        ),
        c("deep_merge", ko, Profile::Maps, true),
        c("deep_merge", mha, Profile::HashArrays, false),
        c("deep_merge", sort, Profile::Lists, false),
        c("deep_merge", all, Profile::HashArrays, true),
        c(
            "json-patch",
            json!({"strategy": "patch"}),
            Profile::Maps,
            false,
        ),
    ]
}

fn node(value: &J, name: &str) -> Node {
    let source = Source::new(name, value.to_string());
    beryl::yaml::parse_any(&source, &Default::default()).expect("generated JSON parses")
}

/// beryl's answer for one case, through the library entry point `beryl merge` uses.
fn beryl_merge(spec: &J, levels: &[J]) -> Answer {
    let spec = Spec::parse(&node(spec, "spec")).expect("spec");
    let docs: Vec<Node> = levels
        .iter()
        .enumerate()
        .map(|(i, l)| node(l, &format!("level{i}.json")))
        .collect();
    let refs: Vec<&Node> = docs.iter().collect();
    match beryl::merge::merge_documents(&refs, &Policy::default(), Some(&spec)) {
        Ok(n) => Answer::Ok(serde_json::to_value(&n.node).expect("serialise")),
        Err(e) => Answer::Error(e[0].message.clone()),
    }
}

/// RFC 7396 as the `json-patch` crate implements it: the lowest level is the
/// target, each higher one a patch applied in turn.
fn json_patch(levels: &[J]) -> Answer {
    let mut doc = levels[0].clone();
    for level in &levels[1..] {
        json_patch::merge(&mut doc, level);
    }
    Answer::Ok(doc)
}

#[test]
fn strategies_agree_with_the_peers() {
    let differences = differences::load();
    let required = std::env::var_os("BERYL_REQUIRE_PEERS").is_some();
    let drivers: [&Driver; 2] = [&peers::HIERA, &peers::GEM];
    let mut skipped = Vec::new();
    for d in drivers {
        if let Some(why) = peers::unavailable(d) {
            assert!(
                !required,
                "BERYL_REQUIRE_PEERS is set but a peer is missing: {why}"
            );
            skipped.push(d.name);
            eprintln!(
                "notice: differential suite skips {} ({why}); install it to run (see tests/peers/README.md)",
                d.name
            );
        }
    }
    let configs = configs();
    let mut report = String::new();
    let mut failures = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut ran = Vec::new();
    for (index, config) in configs.iter().enumerate() {
        if skipped.contains(&config.peer) {
            continue;
        }
        let cases: Vec<(J, Vec<J>)> =
            cases::sequences(index as u64 + 1, CASES, config.profile, config.markers)
                .into_iter()
                .map(|levels| (config.spec.clone(), levels))
                .collect();
        let theirs = match config.peer {
            "puppet" => peers::run(&peers::HIERA, &cases),
            "deep_merge" => peers::run(&peers::GEM, &cases),
            _ => cases.iter().map(|(_, l)| json_patch(l)).collect(),
        };
        let mut tally = Tally::default();
        for ((spec, levels), peer) in cases.iter().zip(&theirs) {
            let ours = beryl_merge(spec, levels);
            let v = differences::judge(&differences, config.peer, spec, levels, &ours, peer);
            match tally.count(v, &mut seen) {
                None => {}
                Some(Failed::ExactButAgree(id)) => failures.push(format!(
                    "{}: `{id}` is exact but this case agrees: {spec} {}",
                    config.peer,
                    J::from(levels.clone())
                )),
                Some(Failed::Unexplained) => failures.push(format!(
                    "{} {spec}\n  levels: {}\n  peer:   {peer:?}\n  beryl:  {ours:?}",
                    config.peer,
                    J::from(levels.clone())
                )),
            }
        }
        let _ = writeln!(
            report,
            "| {} | {} | {} | {} | {} | {} |",
            config.peer,
            spec_text(&config.spec),
            tally.cases,
            tally.agree,
            list(&tally.explained),
            list(&tally.flagged_but_agree),
        );
        ran.push(config.peer);
    }
    for d in &differences {
        let applies = d.peers.iter().any(|p| ran.contains(&p.as_str()));
        if applies && !seen.contains_key(&d.id) {
            failures.push(format!(
                "listed difference `{}` was never observed: remove it or fix the generator",
                d.id
            ));
        }
    }
    let table = format!(
        "| peer | strategy | cases | agree | differ (listed difference: count) | selected by a difference but agree |\n|---|---|---|---|---|---|\n{report}"
    );
    conclude(
        "Merge strategies against Puppet, the deep_merge gem and json-patch",
        &table,
        &failures,
        20,
    );
}

#[test]
fn patch_passes_rfc7396_appendix_a() {
    let text = std::fs::read_to_string(repo().join("tests/peers/rfc7396-appendix-a.json"))
        .expect("vectors");
    let vectors: Vec<J> = serde_json::from_str(&text).expect("vectors parse");
    assert_eq!(vectors.len(), 15);
    for v in &vectors {
        let got = beryl_merge(&json!("patch"), &[v["target"].clone(), v["patch"].clone()]);
        match got {
            Answer::Ok(got) => assert!(
                differences::ordered_eq(&got, &v["result"]),
                "{v}: got {got}"
            ),
            Answer::Error(e) => panic!("{v}: {e}"),
        }
    }
}

/// Writes `table` as the report's section `title` and prints it, then fails
/// on any unexplained result (showing the first `shown`).
fn conclude(title: &str, table: &str, failures: &[String], shown: usize) {
    let path = report_section(title, table);
    eprintln!("{table}\n(report written to {})", path.display());
    assert!(
        failures.is_empty(),
        "{} unexplained result(s):\n{}",
        failures.len(),
        failures[..failures.len().min(shown)].join("\n")
    );
}

/// Writes one section of the agreement report (`differential.md` in the
/// test temp dir, which `.ci/run` prints), keeping the other tests' sections.
/// Returns the report's path.
pub(super) fn report_section(title: &str, body: &str) -> std::path::PathBuf {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("differential.md");
    // A report from before the sections (or none) starts afresh.
    let old = std::fs::read_to_string(&path)
        .ok()
        .filter(|t| t.starts_with("## "))
        .unwrap_or_default();
    let mut sections: BTreeMap<String, String> = BTreeMap::new();
    for part in old.split("\n## ").filter(|p| !p.trim().is_empty()) {
        let part = part.trim_start_matches("## ");
        if let Some((head, rest)) = part.split_once('\n') {
            sections.insert(head.to_string(), rest.trim().to_string());
        }
    }
    sections.insert(title.to_string(), body.trim().to_string());
    let text: String = sections
        .iter()
        .map(|(head, rest)| format!("## {head}\n\n{rest}\n"))
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&path, text).expect("write the report");
    path
}

fn spec_text(spec: &J) -> String {
    let mut s = spec["strategy"].as_str().unwrap_or("?").to_string();
    let opts: Vec<String> = spec
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| *k != "strategy")
        .map(|(k, v)| {
            if v.is_boolean() {
                k.clone()
            } else {
                format!("{k}={v}")
            }
        })
        .collect();
    if !opts.is_empty() {
        s = format!("{s} ({})", opts.join(", "));
    }
    s
}
