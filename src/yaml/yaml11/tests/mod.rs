//! The YAML 1.1 dialect against PyYAML's own answers. Every expected value
//! here was obtained by running PyYAML (6.0.4, the one kapicorp-reclass 2.0
//! installs, CSafeLoader and SafeLoader; 6.0.3 and 6.0 agree unless a test
//! says otherwise) on the document shown, and is written literally.

mod scalars;

use super::resolve::python_float;
use crate::diag::Diag;
use crate::value::{Node, Source};
use crate::yaml::{Limits, Loaded, Schema, parse_any_as, parse_as};

fn load(text: &str) -> Result<Loaded, Diag> {
    parse_as(
        &Source::new("t.yml", text),
        &Limits::default(),
        Schema::Yaml11,
    )
}

fn json(node: &Node) -> String {
    serde_json::to_string(node).unwrap()
}

/// The document as JSON, with no warnings expected.
fn render(text: &str) -> String {
    let loaded = load(text).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    json(&loaded.node)
}

fn code(text: &str) -> &'static str {
    load(text).unwrap_err().code
}

#[test]
fn quoted_and_block_scalars_are_strings() {
    // PyYAML: {"a": "yes\n", "b": "0777\n", "c": "on", "d": "~"}
    assert_eq!(
        render("a: |\n  yes\nb: >\n  0777\nc: 'on'\nd: \"~\"\n"),
        r#"{"a":"yes\n","b":"0777\n","c":"on","d":"~"}"#
    );
}

#[test]
fn a_block_scalar_ending_the_file_has_no_line_break() {
    // PyYAML: {"a": "x\ny"}
    assert_eq!(render("a: |\n  x\n  y"), r#"{"a":"x\ny"}"#);
}

#[test]
fn merge_keys_own_keys_win_then_the_first_of_a_list() {
    // PyYAML 6.0.3 and 6.0: {"yy": 2, "zz": 4, "x": 9, "k": 0}. PyYAML
    // 6.0.4 gives yy 3 and another order: its regression
    // yaml/pyyaml#953 (docs/reclass-yaml.md).
    assert_eq!(
        render(
            "base: &b {x: 1, yy: 2}\nother: &o {yy: 3, zz: 4}\nc:\n  k: 0\n  <<: [*b, *o]\n  x: 9\n"
        ),
        r#"{"base":{"x":1,"yy":2},"other":{"yy":3,"zz":4},"c":{"yy":2,"zz":4,"x":9,"k":0}}"#
    );
    // PyYAML: {"kk": 1, "m": 3}
    assert_eq!(
        render("c:\n  <<: [{kk: 1}, {kk: 2, m: 3}]\n"),
        r#"{"c":{"kk":1,"m":3}}"#
    );
    // A merged mapping is replaced whole, not merged deeply. PyYAML:
    // {"a": {"x": {"y": 1}}, "b": {"x": {"z": 2}}}
    assert_eq!(
        render("a: &a {x: {y: 1}}\nb:\n  <<: *a\n  x: {z: 2}\n"),
        r#"{"a":{"x":{"y":1}},"b":{"x":{"z":2}}}"#
    );
}

#[test]
fn two_merge_keys_the_later_wins_with_a_warning() {
    // PyYAML: {"kk": 2, "p": 1, "q": 2}
    let loaded =
        load("a: &a {kk: 1, p: 1}\nb: &b {kk: 2, q: 2}\nc:\n  <<: *a\n  <<: *b\n").unwrap();
    assert_eq!(
        json(&loaded.node),
        r#"{"a":{"kk":1,"p":1},"b":{"kk":2,"q":2},"c":{"kk":2,"p":1,"q":2}}"#
    );
    assert_eq!(loaded.warnings.len(), 1);
}

#[test]
fn merging_what_is_not_a_mapping_is_refused() {
    // PyYAML: ConstructorError for each.
    for text in [
        "c: {<<: 1}\n",
        "c: {<<: [1]}\n",
        "a: <<\n",
        "a: =\n",
        "- <<\n",
    ] {
        assert_eq!(code(text), "beryl::yaml::yaml11_value", "{text}");
    }
}

#[test]
fn duplicate_keys_keep_the_first_place_and_the_last_value() {
    // PyYAML: {"a": 2, "b": {"x": 3, "y": 2}}
    let loaded = load("a: 1\nb: {x: 1, y: 2, x: 3}\na: 2\n").unwrap();
    assert_eq!(json(&loaded.node), r#"{"a":2,"b":{"x":3,"y":2}}"#);
    let spans: Vec<Vec<String>> = loaded
        .warnings
        .iter()
        .map(|w| {
            assert_eq!(w.code, "beryl::yaml::duplicate_key_last_wins");
            assert!(!w.is_error());
            w.labels().iter().map(|(s, _)| s.to_string()).collect()
        })
        .collect();
    assert_eq!(
        spans,
        [
            vec!["t.yml:2:17".to_string(), "t.yml:2:5".to_string()],
            vec!["t.yml:3:1".to_string(), "t.yml:1:1".to_string()],
        ]
    );
}

#[test]
fn the_core_schema_still_refuses_duplicate_keys() {
    let d = parse_as(
        &Source::new("t.yml", "a: 1\na: 2\n"),
        &Limits::default(),
        Schema::Core,
    )
    .unwrap_err();
    assert_eq!(d.code, "beryl::yaml::duplicate_key");
    let core = parse_as(
        &Source::new("t.yml", "a: [yes, 0777]\n"),
        &Limits::default(),
        Schema::default(),
    )
    .unwrap();
    assert_eq!(json(&core.node), r#"{"a":["yes","0777"]}"#);
}

#[test]
fn keys_that_are_not_strings_are_written_as_json_writes_them() {
    // PyYAML's dict is {1: "b", None: "c", 1.5: "d", "0o17": "e", 511: "f",
    // "1e20": "g"}, which json.dumps writes with these keys; in Python
    // `true` and `1` are one key, in beryl two (docs/reclass-yaml.md).
    assert_eq!(
        render("1: a\n~: c\n1.5: d\n0o17: e\n0777: f\n1e20: g\n1.0e+20: h\n"),
        r#"{"1":"a","null":"c","1.5":"d","0o17":"e","511":"f","1e20":"g","1e+20":"h"}"#
    );
    assert_eq!(code("[1]: 2\n"), "beryl::yaml::key_type");
}

#[test]
fn tags_as_pyyaml_reads_them() {
    // PyYAML: {"a": "0777", "b": 31, "c": 1.0, "d": 12, "e": true, "f": null}
    assert_eq!(
        render(
            "a: !!str 0777\nb: !!int '0x1F'\nc: !!float '1'\nd: ! 12\ne: !!bool 'Yes'\nf: !!null ''\n"
        ),
        r#"{"a":"0777","b":31,"c":1.0,"d":12,"e":true,"f":null}"#
    );
    // PyYAML: ConstructorError.
    assert_eq!(code("a: !custom x\n"), "beryl::yaml::syntax");
    assert_eq!(render("=: 1\n"), r#"{"=":1}"#);
}

#[test]
fn empty_documents_are_empty_mappings() {
    // PyYAML: None for each, which reclass reads as {}.
    for text in ["", "---\n", "# c\n", "\n\n"] {
        assert_eq!(render(text), "{}", "{text:?}");
    }
    let any = parse_any_as(&Source::new("t", ""), &Limits::default(), Schema::Yaml11).unwrap();
    assert_eq!(json(&any.node), "null");
    assert_eq!(code("- a\n"), "beryl::yaml::root_not_mapping");
    assert_eq!(code("a: 1\n---\nb: 2\n"), "beryl::yaml::syntax");
}

#[test]
fn anchors_and_aliases_are_copies_within_the_budgets() {
    assert_eq!(
        render("a: &x [1, {b: yes}]\nc: *x\n"),
        r#"{"a":[1,{"b":true}],"c":[1,{"b":true}]}"#
    );
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let p = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    let d = load(&text).unwrap_err();
    assert!(d.code.starts_with("beryl::limit::"), "{}", d.code);
    let deep = format!("a: {}{}\n", "[".repeat(100), "]".repeat(100));
    assert!(load(&deep).is_err());
    let limits = Limits {
        max_list_items: 2,
        ..Limits::default()
    };
    let d = parse_as(&Source::new("t", "a: [1, 2, 3]\n"), &limits, Schema::Yaml11).unwrap_err();
    assert!(d.message.contains("more than 2 items"), "{}", d.message);
}

#[test]
fn spans_are_one_based() {
    let n = load("a:\n  b: ééx\n  c: 3\n").unwrap().node;
    let c = n.get("a").unwrap().get("c").unwrap();
    assert_eq!((c.span.line, c.span.col), (3, 6));
    assert_eq!(crate::yaml::written(c), Some("3"));
    let d = load("a: [1, 2\n").unwrap_err();
    assert_eq!(d.code, "beryl::yaml::syntax");
    assert!(d.span().is_some());
}

#[test]
fn floats_are_written_as_python_writes_them() {
    // Python 3.11: repr() of each.
    for (f, text) in [
        (1.5, "1.5"),
        (1e16, "1e+16"),
        (1.5e16, "1.5e+16"),
        (1e15, "1000000000000000.0"),
        (123.0, "123.0"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (-0.0, "-0.0"),
        (1.2345678901234568e17, "1.2345678901234568e+17"),
        (0.30000000000000004, "0.30000000000000004"),
        (1e-300, "1e-300"),
        (f64::INFINITY, "Infinity"),
        (f64::NAN, "NaN"),
    ] {
        assert_eq!(python_float(f), text);
    }
}
