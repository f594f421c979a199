//! The engine's fold for a lookup (`merge_for_lookup`): the spec imposed at
//! the key, the tables ignored below it, the rules above it yielding, and the
//! levels that do not write the key left out.

use super::*;

/// The lookup of `key` over YAML levels (lowest first) with `table` layered
/// on Beryl's rules: the merged tree as JSON.
fn lookup(table: &str, key: &str, explicit: Option<Strategy>, texts: &[&str]) -> String {
    let mut all = vec![table];
    all.extend_from_slice(texts);
    let nodes = levels(&all);
    let docs: Vec<&Node> = nodes.iter().collect();
    let l = Lookup {
        path: key.split('.').map(str::to_string).collect(),
        explicit: explicit.map(Spec::of),
    };
    let out = merge_for_lookup(&docs, &Policy::beryl(), &l).unwrap().node;
    serde_json::to_string(&out).unwrap()
}

#[test]
fn first_takes_the_highest_level_that_writes_the_key_and_the_rest_merges_as_usual() {
    assert_eq!(
        lookup(
            "{}",
            "a.b",
            None,
            &["a: {b: {x: 1}, c: 1}\n", "a: {c: 2}\n", "a: {b: {y: 2}}\n"]
        ),
        r#"{"a":{"b":{"y":2},"c":2}}"#
    );
}

#[test]
fn an_explicit_strategy_ignores_the_rules_below_the_key() {
    let table = "merge: {a.l: append}\n";
    let texts = &["a: {l: [1]}\n", "a: {l: [2]}\n"];
    assert_eq!(lookup(table, "a", None, texts), r#"{"a":{"l":[2]}}"#);
    assert_eq!(
        lookup(table, "a.l", None, texts),
        r#"{"a":{"l":[1,2]}}"#,
        "the rule for the key itself"
    );
    assert_eq!(
        lookup(table, "a", Some(Strategy::Default), texts),
        r#"{"a":{"l":[2]}}"#
    );
    assert_eq!(
        lookup(table, "a", Some(Strategy::Deep), texts),
        r#"{"a":{"l":[1,2]}}"#
    );
}

#[test]
fn a_rule_above_that_takes_values_whole_yields_to_an_explicit_strategy() {
    let table = "merge: {a: first}\n";
    let texts = &["a: {b: [1], c: 1}\n", "a: {b: [2]}\n"];
    assert_eq!(lookup(table, "a.b", None, texts), r#"{"a":{"b":[2]}}"#);
    assert_eq!(
        lookup(table, "a.b", Some(Strategy::Deep), texts),
        r#"{"a":{"b":[1,2],"c":1}}"#
    );
}

/// Puppet returns a value one level holds untouched; the engine's `deep`
/// merges a key a lower mapping lacks with itself. A lookup leaves that
/// level out, so its value keeps its duplicates (Puppet 7.23:
/// `lookup k --merge deep` with only the node holding `k: [1, 1]`).
#[test]
fn levels_without_the_key_do_not_take_part() {
    let texts = &["x: 0\n", "k: [1, 1]\n"];
    assert_eq!(
        lookup("{}", "k", Some(Strategy::Deep), texts),
        r#"{"x":0,"k":[1,1]}"#
    );
    let nodes = levels(&["{}", "x: 0\n", "k: [1, 1]\n"]);
    let docs: Vec<&Node> = nodes.iter().collect();
    let render = merge_documents(&docs, &Policy::beryl(), Some(&Spec::of(Strategy::Deep)))
        .unwrap()
        .node;
    assert_eq!(
        serde_json::to_string(&render).unwrap(),
        r#"{"x":0,"k":[1]}"#
    );
}

#[test]
fn the_choice_is_reported() {
    let nodes = levels(&["lookup_options: {k: {merge: unique}}\n", "k: [1]\n"]);
    let docs: Vec<&Node> = nodes.iter().collect();
    let l = Lookup {
        path: vec!["k".into()],
        explicit: None,
    };
    let merged = merge_for_lookup(&docs, &Policy::beryl(), &l).unwrap();
    assert!(
        matches!(&merged.choice, Some(Choice::Rule { spec, from: None, .. }) if spec.kind == Strategy::Unique),
        "{:?}",
        merged.choice
    );
    assert!(merged.node.get("lookup_options").is_none());
}
