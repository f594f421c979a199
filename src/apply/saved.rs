//! Saved plans (`apply --dry-run --out PLAN.json`, `apply --plan
//! PLAN.json`): per host, the steps the dry run computed from a facts
//! snapshot, stamped with the digests that make a stale plan refusable. The
//! format is documented in docs/apply.md ("Saved plans") and
//! docs/schemas/plan.schema.json.
//!
//! A plan is applied only as it was made: beryl recompiles each host and
//! refuses it when its effective config or its steps are no longer the
//! plan's ([`check`]); takes its facts again and refuses it when a step or a
//! removal would now do otherwise ([`still_holds`]); on the host, the apply
//! script first re-takes the facts and stops (exit
//! [`super::script::STALE_STATUS`]) when their sha256 is not that of the
//! facts just taken.

use serde::{Deserialize, Serialize};

use super::Step;
use super::diff::Outcome;
use crate::resource::state::{State, Unbound};

/// The `format` of a saved plan.
pub(crate) const FORMAT: &str = "beryl-plan";

/// The version of the format this beryl writes and reads (2: the facts
/// snapshot itself is in the plan, so that every action and removal is
/// recomputed from it before the plan runs).
pub(crate) const FORMAT_VERSION: u32 = 2;

/// A saved plan: what `--out` writes.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SavedPlan {
    pub format: String,
    pub format_version: u32,
    /// `beryl --version` of the beryl that made it; another one refuses it.
    pub beryl_version: String,
    pub hosts: Vec<HostPlan>,
}

/// One host of a saved plan.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct HostPlan {
    pub host: String,
    /// For a jail (issue 36): the host it runs on, whose connection runs
    /// its plan; its steps are those run inside it, its facts taken in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// sha256 of the host's effective config (`beryl render HOST --format
    /// json`, byte for byte).
    pub config_sha256: String,
    /// sha256 of the facts snapshot's bytes, as the host printed them.
    pub facts_sha256: String,
    /// The facts snapshot itself, byte for byte: what every `action`, the
    /// `removals` and `prune` are checked against before the plan runs.
    pub facts: String,
    /// The digest of the facts script the host runs (`beryl facts HOST`),
    /// which its facts carry (`script`).
    pub facts_script_sha256: String,
    /// The steps in run order.
    pub steps: Vec<PlannedStep>,
    /// Whether the run removes the recorded items that left the config
    /// (false: the plan was made with `--no-prune`).
    pub prune: bool,
    /// The recorded items that left the config, which the run removes
    /// (action `delete`; empty without `prune`).
    pub removals: Vec<PlannedStep>,
}

/// One step of a saved plan: what it wants, what the dry run found, and the
/// commands the apply script runs.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PlannedStep {
    pub id: String,
    pub kind: String,
    /// `create`, `update`, `delete` or `noop`.
    pub action: String,
    pub desired: serde_json::Value,
    pub check: String,
    pub change: String,
}

/// The digests a host's plan is stamped with.
#[derive(Debug)]
pub(crate) struct Stamp<'a> {
    pub config_sha256: &'a str,
    pub facts_sha256: &'a str,
    pub facts_script_sha256: &'a str,
}

/// The snapshot a host's plan is computed from: its bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Facts<'a> {
    pub text: &'a str,
}

fn text<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

/// A host's plan from its steps and the dry run's outcomes: one per step in
/// the same order, then the removals of pruning.
pub(crate) fn host_plan(
    host: &str,
    steps: &[Step],
    outcomes: &[Outcome],
    prune: bool,
    stamp: &Stamp<'_>,
    facts: Facts<'_>,
) -> HostPlan {
    let removals = outcomes
        .get(steps.len()..)
        .unwrap_or_default()
        .iter()
        .map(|o| PlannedStep {
            id: o.id.clone(),
            kind: o.kind.to_string(),
            action: text(&o.action),
            desired: serde_json::json!({ "type": "removed" }),
            check: o.check.clone(),
            change: o.change.clone(),
        })
        .collect();
    HostPlan {
        prune,
        removals,
        host: host.to_string(),
        parent: None,
        config_sha256: stamp.config_sha256.to_string(),
        facts_sha256: stamp.facts_sha256.to_string(),
        facts: facts.text.to_string(),
        facts_script_sha256: stamp.facts_script_sha256.to_string(),
        steps: steps
            .iter()
            .zip(outcomes)
            .map(|(s, o)| planned(s, &text(&o.action)))
            .collect(),
    }
}

fn planned(s: &Step, action: &str) -> PlannedStep {
    let (check, change) = s.shown();
    PlannedStep {
        id: s.id.clone(),
        kind: s.kind().to_string(),
        action: action.to_string(),
        desired: s.desired.to_json(),
        check,
        change,
    }
}

/// A whole plan, stamped with this beryl's version.
pub(crate) fn plan(version: &str, hosts: Vec<HostPlan>) -> SavedPlan {
    SavedPlan {
        format: FORMAT.to_string(),
        format_version: FORMAT_VERSION,
        beryl_version: version.to_string(),
        hosts,
    }
}

/// Why a plan cannot be read.
#[derive(Debug, PartialEq)]
pub(crate) enum Unreadable {
    /// Not JSON, or not a plan's shape.
    Shape(String),
    /// Another format, or another version of it.
    Format { format: String, version: u64 },
    /// Made by another beryl.
    Version(String),
}

/// Reads a plan: the format, its version and beryl's version are checked
/// first, so that a plan of another kind is named as such.
pub(crate) fn parse(text: &str, version: &str) -> Result<SavedPlan, Unreadable> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| Unreadable::Shape(e.to_string()))?;
    let Some(format) = value.get("format").and_then(|v| v.as_str()) else {
        return Err(Unreadable::Shape(
            "it has no \"format\" (a saved plan's is \"beryl-plan\")".into(),
        ));
    };
    let fv = value
        .get("format_version")
        .and_then(|v| v.as_u64())
        .unwrap_or(0);
    if format != FORMAT || fv != u64::from(FORMAT_VERSION) {
        return Err(Unreadable::Format {
            format: format.to_string(),
            version: fv,
        });
    }
    let made_by = value
        .get("beryl_version")
        .and_then(|v| v.as_str())
        .unwrap_or("");
    if made_by != version {
        return Err(Unreadable::Version(made_by.to_string()));
    }
    let plan: SavedPlan =
        serde_json::from_value(value).map_err(|e| Unreadable::Shape(e.to_string()))?;
    // A digest is written into the apply script (the guard's
    // `beryl_planned=`): only a digest's characters may reach it.
    for h in &plan.hosts {
        for (field, digest) in [
            ("config_sha256", &h.config_sha256),
            ("facts_sha256", &h.facts_sha256),
            ("facts_script_sha256", &h.facts_script_sha256),
        ] {
            if !is_sha256(digest) {
                return Err(Unreadable::Shape(format!(
                    "host {}: {field} is not a sha256 (64 lowercase hex digits): {digest:?}",
                    h.host
                )));
            }
        }
        if crate::fsutil::sha256_hex(&h.facts) != h.facts_sha256 {
            return Err(Unreadable::Shape(format!(
                "host {}: its facts are not those of facts_sha256: the plan was edited",
                h.host
            )));
        }
    }
    Ok(plan)
}

/// Whether a text is a sha256 as beryl and sha256(1) print it.
fn is_sha256(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Why a host's plan no longer holds, found before anything runs.
#[derive(Debug, PartialEq)]
pub(crate) enum Stale {
    /// The inventory now compiles to another effective config.
    Config,
    /// The facts script is not the one the plan's facts were taken with.
    FactsScript,
    /// Same config, other steps: the plan was edited, or made by other code.
    Steps(String),
    /// An action, a removal or `prune` that the plan's own facts do not
    /// give: the plan was edited after it was made.
    Edited(String),
    /// The host now shows another state than the plan saw, in what a step
    /// or a removal reads (named).
    Host(String),
}

/// Checks a host's saved plan against what it compiles to now.
pub(crate) fn check(saved: &HostPlan, steps: &[Step], now: &Stamp<'_>) -> Result<(), Stale> {
    if saved.config_sha256 != now.config_sha256 {
        return Err(Stale::Config);
    }
    if saved.facts_script_sha256 != now.facts_script_sha256 {
        return Err(Stale::FactsScript);
    }
    if saved.steps.len() != steps.len() {
        return Err(Stale::Steps(format!(
            "{} steps saved, {} now",
            saved.steps.len(),
            steps.len()
        )));
    }
    for (s, step) in saved.steps.iter().zip(steps) {
        let now = planned(step, &s.action);
        if *s != now {
            return Err(Stale::Steps(format!("step {} differs", s.id)));
        }
    }
    // What the plan says the run does, recomputed from its own facts: each
    // action, the removals, and no removal without `prune`.
    let edited = |what: String| Err(Stale::Edited(what));
    if !saved.prune && !saved.removals.is_empty() {
        return edited("removals in a plan made with --no-prune".into());
    }
    let Ok(state) = State::parse(saved.facts.as_bytes()) else {
        return edited("its facts are not a snapshot".into());
    };
    match state.bound_to(&saved.host, &saved.facts_script_sha256) {
        Ok(()) => {}
        Err(u @ Unbound::Host(_)) => return edited(format!("its facts are {}", u.what())),
        Err(u @ Unbound::Script) => {
            return edited(format!("its facts were {} than the plan's", u.what()));
        }
    }
    let outcomes = super::diff::compare(steps, Some(&state), saved.prune);
    let facts = Facts { text: &saved.facts };
    let again = host_plan(&saved.host, steps, &outcomes, saved.prune, now, facts);
    for (s, a) in saved.steps.iter().zip(&again.steps) {
        if s.action != a.action {
            return edited(format!(
                "step {}: action {:?}, and its facts give {:?}",
                s.id, s.action, a.action
            ));
        }
    }
    if saved.removals != again.removals {
        return edited(format!(
            "removals {:?}, and its facts give {:?}",
            ids(&saved.removals),
            ids(&again.removals)
        ));
    }
    Ok(())
}

/// Whether the host, as `fresh` facts show it now, is still the host the
/// plan was made for, in everything its steps and removals read: each step
/// would do the same (its action, the values it changes from and to, its
/// diff) and the same items would be removed. What no step reads (a
/// group nobody is in, a file beryl does not manage, `/etc/resolv.conf`
/// rewritten by dhclient) may change. `saved` has passed [`check`].
pub(crate) fn still_holds(saved: &HostPlan, steps: &[Step], fresh: &State) -> Result<(), Stale> {
    let Ok(then) = State::parse(saved.facts.as_bytes()) else {
        return Err(Stale::Edited("its facts are not a snapshot".into()));
    };
    let before = super::diff::compare(steps, Some(&then), saved.prune);
    let now = super::diff::compare(steps, Some(fresh), saved.prune);
    let seen = |o: &Outcome| serde_json::json!([o.id, text(&o.action), o.changes, o.diff]);
    for (i, (b, n)) in before.iter().zip(&now).enumerate() {
        if seen(b) != seen(n) {
            let what = if i < steps.len() { "step" } else { "removal" };
            return Err(Stale::Host(format!(
                "{what} {} would now do otherwise ({}: {})",
                b.id,
                text(&n.action),
                serde_json::to_string(&n.changes).unwrap_or_default()
            )));
        }
    }
    if before.len() != now.len() {
        let ids = |o: &[Outcome]| o.iter().map(|o| o.id.clone()).collect::<Vec<_>>();
        return Err(Stale::Host(format!(
            "the removals are now {:?}, and the plan's {:?}",
            ids(&now[steps.len().min(now.len())..]),
            ids(&before[steps.len().min(before.len())..])
        )));
    }
    Ok(())
}

fn ids(steps: &[PlannedStep]) -> Vec<&str> {
    steps.iter().map(|s| s.id.as_str()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apply::diff;
    use crate::resource::{Want, timezone::Timezone};

    fn steps() -> Vec<Step> {
        let want = Want::Timezone(Timezone { zone: "UTC".into() });
        vec![Step::new(want, None).unwrap()]
    }

    const C: &str = "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc";
    const S: &str = "5555555555555555555555555555555555555555555555555555555555555555";
    /// The host the plans are made for: another time zone, and a package
    /// beryl installed that has left the config (a removal).
    const FACTS: &str = r#"{"format_version": 4, "host": "h",
        "script": "5555555555555555555555555555555555555555555555555555555555555555",
        "timezone": "Europe/Paris", "pkg": true,
        "packages": ["tmux"], "managed": [["pkg", "tmux"]]}"#;

    fn f() -> &'static str {
        static F: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        F.get_or_init(|| crate::fsutil::sha256_hex(FACTS))
    }

    fn stamp() -> Stamp<'static> {
        Stamp {
            config_sha256: C,
            facts_sha256: f(),
            facts_script_sha256: S,
        }
    }

    /// A digest is written into the guard of the apply script: anything but
    /// 64 lowercase hex digits is refused when the plan is read, before any
    /// command is made (it once ran `$(…)` as root).
    #[test]
    fn a_digest_that_is_not_a_sha256_is_refused() {
        let text = serde_json::to_string(&plan("1.0", vec![saved()])).unwrap();
        assert!(parse(&text, "1.0").is_ok());
        for bad in [
            "$(touch /tmp/PWNED)",
            "",
            &f()[1..],
            &f().to_uppercase(),
            &format!("{}0", f()),
        ] {
            for field in [C, f(), S] {
                let edited = text.replace(field, bad);
                let Err(Unreadable::Shape(why)) = parse(&edited, "1.0") else {
                    panic!("{bad:?} in place of {field} was accepted");
                };
                assert!(why.contains("is not a sha256"), "{why}");
            }
        }
    }

    fn saved() -> HostPlan {
        made(true)
    }

    /// The plan `--dry-run --out` makes from FACTS, with or without prune.
    fn made(prune: bool) -> HostPlan {
        let s = steps();
        let state: State = serde_json::from_str(FACTS).unwrap();
        let outcomes = diff::compare(&s, Some(&state), prune);
        host_plan("h", &s, &outcomes, prune, &stamp(), Facts { text: FACTS })
    }

    /// What the plan says the run does is what its facts give: a plan
    /// edited to prune, to remove nothing, to do nothing, or with other
    /// facts, is refused before anything runs (issue 32).
    #[test]
    fn an_edited_action_removal_prune_or_facts_is_refused() {
        let good = saved();
        assert_eq!(good.steps[0].action, "update");
        assert_eq!(ids(&good.removals), ["pkg:tmux"]);
        assert_eq!(check(&good, &steps(), &stamp()), Ok(()));
        let no_prune = made(false);
        assert!(no_prune.removals.is_empty());
        assert_eq!(check(&no_prune, &steps(), &stamp()), Ok(()));
        type Edit = fn(&mut HostPlan);
        // Other facts with their digest: the plan's own sha256 holds, and
        // the snapshot is still not the host's, or not its script's.
        fn refacts(p: &mut HostPlan, from: &str, to: &str) {
            p.facts = p.facts.replace(from, to);
            p.facts_sha256 = crate::fsutil::sha256_hex(&p.facts);
        }
        let edits: [(&str, Edit); 7] = [
            ("prune turned on", |p| p.prune = true),
            ("removals emptied", |p| p.removals.clear()),
            ("action to noop", |p| p.steps[0].action = "noop".into()),
            ("removals without prune", |p| p.prune = false),
            ("facts edited", |p| {
                p.facts = p.facts.replace("Europe/Paris", "UTC");
            }),
            ("facts of another host", |p| {
                refacts(p, r#""host": "h""#, r#""host": "g""#)
            }),
            ("facts of another script", |p| refacts(p, "55555", "55556")),
        ];
        for (what, edit) in edits {
            let mut p = if what == "prune turned on" {
                made(false)
            } else {
                saved()
            };
            edit(&mut p);
            let text = serde_json::to_string(&plan("1.0", vec![p])).unwrap();
            let refused = match parse(&text, "1.0") {
                Err(Unreadable::Shape(why)) => why,
                Ok(back) => match check(&back.hosts[0], &steps(), &stamp()) {
                    Err(Stale::Edited(why)) => why,
                    other => panic!("{what}: {other:?}"),
                },
                Err(other) => panic!("{what}: {other:?}"),
            };
            assert!(
                refused.contains("edited")
                    || refused.contains("give")
                    || refused.contains("prune")
                    || refused.contains("snapshot of g")
                    || refused.contains("another facts script"),
                "{what}: {refused}"
            );
        }
    }

    /// A plan holds while the host shows the same in what its steps and
    /// removals read; anything else may change (issue 33: a DHCP lease
    /// renewal rewriting resolv.conf made every plan stale).
    #[test]
    fn a_plan_goes_stale_only_when_what_it_reads_changed() {
        let plan = saved();
        let fresh = |edit: &str, to: &str| -> State {
            serde_json::from_str(&FACTS.replace(edit, to)).unwrap()
        };
        let same = fresh("", "");
        assert_eq!(still_holds(&plan, &steps(), &same), Ok(()));
        // What no step reads: a group, a file beryl does not manage.
        let unrelated = fresh(
            r#""pkg": true,"#,
            r#""pkg": true, "groups": {"latecomer": {"gid": "1999", "members": ""}},
            "files": {"/etc/resolv.conf": {"sha256": "x", "mode": "644", "owner": "root", "group": "wheel"}},"#,
        );
        assert_eq!(still_holds(&plan, &steps(), &unrelated), Ok(()));
        // The zone the tz step changes from.
        match still_holds(&plan, &steps(), &fresh("Europe/Paris", "Asia/Tokyo")) {
            Err(Stale::Host(why)) => assert!(why.contains("step tz"), "{why}"),
            other => panic!("{other:?}"),
        }
        // The recorded package that the plan removes is gone already.
        match still_holds(
            &plan,
            &steps(),
            &fresh(r#""packages": ["tmux"]"#, r#""packages": []"#),
        ) {
            Err(Stale::Host(why)) => assert!(why.contains("removals"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_plan_reads_back_and_holds_against_the_same_steps() {
        let p = plan("1.0", vec![saved()]);
        let text = serde_json::to_string(&p).unwrap();
        let back = parse(&text, "1.0").unwrap();
        assert_eq!(back.hosts[0].steps[0].id, "tz");
        assert_eq!(back.hosts[0].steps[0].action, "update");
        assert_eq!(check(&back.hosts[0], &steps(), &stamp()), Ok(()));
    }

    #[test]
    fn another_version_or_format_is_refused_by_name() {
        let text = serde_json::to_string(&plan("1.0", vec![])).unwrap();
        assert_eq!(
            parse(&text, "2.0").unwrap_err(),
            Unreadable::Version("1.0".into())
        );
        let other = text.replace("\"format_version\":2", "\"format_version\":9");
        assert!(matches!(
            parse(&other, "1.0"),
            Err(Unreadable::Format { version: 9, .. })
        ));
        assert!(matches!(parse("[]", "1.0"), Err(Unreadable::Shape(_))));
        let other = text.replace("beryl-plan", "terraform");
        assert!(matches!(
            parse(&other, "1.0"),
            Err(Unreadable::Format { .. })
        ));
        assert!(matches!(parse("{", "1.0"), Err(Unreadable::Shape(_))));
    }

    #[test]
    fn a_changed_config_script_or_step_is_stale() {
        let s = saved();
        let mut now = stamp();
        now.config_sha256 = "other";
        assert_eq!(check(&s, &steps(), &now), Err(Stale::Config));
        let mut now = stamp();
        now.facts_script_sha256 = "other";
        assert_eq!(check(&s, &steps(), &now), Err(Stale::FactsScript));
        let mut edited = steps();
        edited[0].change = "rm -rf /".into();
        assert!(matches!(check(&s, &edited, &stamp()), Err(Stale::Steps(_))));
    }
}
