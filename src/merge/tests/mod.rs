//! The unit tests of `merge`: merges of small YAML levels here, the
//! properties of the algebra in `props`, and the regressions they and the
//! fuzz targets found in `regressions`.

use super::*;
use crate::merge::spec::Spec;
use crate::value::Source;

mod lookup;
mod props;
mod reclass;
mod regressions;

fn levels(texts: &[&str]) -> Vec<Node> {
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            crate::yaml::parse(&Source::new(format!("l{i}.yml"), *t), &Default::default()).unwrap()
        })
        .collect()
}

fn merged(texts: &[&str]) -> String {
    let nodes = levels(texts);
    let docs: Vec<&Node> = nodes.iter().collect();
    let out = merge_documents(&docs, &Policy::beryl(), None).unwrap().node;
    serde_json::to_string(&out).unwrap()
}

#[test]
fn mappings_merge_in_first_appearance_order() {
    assert_eq!(
        merged(&["a: 1\nb: {x: 1, y: 2}\n", "c: 3\nb: {z: 3, x: 9}\na: 2\n"]),
        r#"{"a":2,"b":{"x":9,"y":2,"z":3},"c":3}"#
    );
}

#[test]
fn other_values_are_replaced_including_null_and_type_changes() {
    assert_eq!(
        merged(&[
            "a: [1, 2]\nb: {x: 1}\nc: 1\nd: x\n",
            "a: [3]\nb: ~\nc: {y: 1}\nd: [z]\n"
        ]),
        r#"{"a":[3],"b":null,"c":{"y":1},"d":["z"]}"#
    );
}

#[test]
fn packages_append_dedup_typed_and_within_one_level() {
    assert_eq!(
        merged(&[
            "freebsd: {packages: [a, b, a, 1]}\n",
            "freebsd: {packages: [c, b, '1', 1]}\n"
        ]),
        r#"{"freebsd":{"packages":["a","b",1,"c","1"]}}"#
    );
}

#[test]
fn knockout_removes_inherited_and_is_dropped() {
    assert_eq!(
        merged(&[
            "freebsd: {packages: [a, b, c], sudoers: [r1, r2]}\n",
            "freebsd: {packages: [--b, d, --nothing], sudoers: [--r1]}\n",
        ]),
        r#"{"freebsd":{"packages":["a","c","d"],"sudoers":["r2"]}}"#
    );
    assert_eq!(
        merged(&["freebsd: {packages: [--a, a]}\n"]),
        r#"{"freebsd":{"packages":["a"]}}"#
    );
    // A knockout reaches the inherited list only, not its own level's items.
    assert_eq!(
        merged(&[
            "freebsd: {packages: [a, b]}\n",
            "freebsd: {packages: [c, --c, --a]}\n"
        ]),
        r#"{"freebsd":{"packages":["b","c"]}}"#
    );
}

#[test]
fn a_top_level_packages_key_is_ordinary_data() {
    assert_eq!(
        merged(&["packages: [a]\n", "packages: [b]\n"]),
        r#"{"packages":["b"]}"#
    );
}

#[test]
fn disks_are_replaced() {
    assert_eq!(
        merged(&[
            "freebsd: {disks: [ada0, ada1]}\n",
            "freebsd: {disks: [nvd0]}\n"
        ]),
        r#"{"freebsd":{"disks":["nvd0"]}}"#
    );
}

#[test]
fn users_merge_by_name() {
    let base = "freebsd:\n  users:\n    - {name: alice, shell: /bin/sh, groups: [wheel], ssh_keys: [a], extra: {x: 1}}\n    - {name: bob, shell: /bin/sh}\n";
    let over = "freebsd:\n  users:\n    - {name: carol}\n    - {name: alice, shell: /bin/tcsh, groups: [staff], extra: {y: 2}}\n";
    assert_eq!(
        merged(&[base, over]),
        concat!(
            r#"{"freebsd":{"users":["#,
            r#"{"name":"alice","shell":"/bin/tcsh","groups":["staff"],"ssh_keys":["a"],"extra":{"x":1,"y":2}},"#,
            r#"{"name":"bob","shell":"/bin/sh"},{"name":"carol"}]}}"#
        )
    );
}

#[test]
fn user_knockout_removes_the_inherited_user() {
    assert_eq!(
        merged(&[
            "freebsd: {users: [{name: alice}, {name: bob}]}\n",
            "freebsd: {users: [{name: --bob}]}\n"
        ]),
        r#"{"freebsd":{"users":[{"name":"alice"}]}}"#
    );
    // Only inherited users: a same-level user survives its own knockout.
    assert_eq!(
        merged(&[
            "freebsd: {users: [{name: a}]}\n",
            "freebsd: {users: [{name: b}, {name: --b}, {name: --a}]}\n"
        ]),
        r#"{"freebsd":{"users":[{"name":"b"}]}}"#
    );
}

#[test]
fn users_without_a_name_are_located_errors() {
    let nodes = levels(&[
        "freebsd:\n  users:\n    - {shell: /bin/sh}\n    - just-a-string\n    - {name: 7}\n",
    ]);
    let docs: Vec<&Node> = nodes.iter().collect();
    let errs = merge_documents(&docs, &Policy::beryl(), None).unwrap_err();
    let got: Vec<(String, String)> = errs
        .iter()
        .map(|d| (d.message.clone(), d.span().unwrap().to_string()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "freebsd.users.0 has no `name`".to_string(),
                "l0.yml:3:7".to_string()
            ),
            (
                "freebsd.users.1 must be a mapping with a `name`, found a string".into(),
                "l0.yml:4:7".into()
            ),
            (
                "freebsd.users.2: `name` must be a non-empty string, found an integer".into(),
                "l0.yml:5:14".into()
            ),
        ]
    );
}

#[test]
fn user_fields_follow_the_table_by_path() {
    // A rule addressed through the user's name applies inside the user.
    assert_eq!(
        merged(&[
            "merge: {freebsd.users.*.groups: append}\nfreebsd: {users: [{name: a, groups: [x]}]}\n",
            "freebsd: {users: [{name: a, groups: [y, x]}]}\n",
        ]),
        r#"{"freebsd":{"users":[{"name":"a","groups":["x","y"]}]}}"#
    );
}

#[test]
fn values_keep_the_span_of_the_level_that_wrote_them() {
    let nodes = levels(&["a: 1\nb: 2\n", "b: 3\n"]);
    let docs: Vec<&Node> = nodes.iter().collect();
    let out = merge_documents(&docs, &Policy::beryl(), None).unwrap().node;
    assert_eq!(out.get("a").unwrap().span.to_string(), "l0.yml:1:4");
    assert_eq!(out.get("b").unwrap().span.to_string(), "l1.yml:1:4");
}

/// Merges JSON documents (lowest first) with `spec` at the root; the result as
/// JSON, or the first error's message.
fn with(spec: &str, docs: &[&str]) -> String {
    let parse = |i: usize, t: &str| {
        crate::yaml::parse_any(&Source::new(format!("l{i}.json"), t), &Default::default()).unwrap()
    };
    let spec = Spec::parse(&parse(99, spec)).unwrap();
    let nodes: Vec<Node> = docs.iter().enumerate().map(|(i, t)| parse(i, t)).collect();
    let refs: Vec<&Node> = nodes.iter().collect();
    match merge_documents(&refs, &Policy::default(), Some(&spec)) {
        Ok(n) => serde_json::to_string(&n.node).unwrap(),
        Err(e) => format!("error: {}", e[0].message),
    }
}

/// Vectors observed with Puppet 7.23 and deep_merge 1.1.1 (tests/peers/).
#[test]
fn hiera_strategies_match_observed_puppet_results() {
    let cases: &[(&str, &[&str], &str)] = &[
        ("unique", &["[[1,2],3]", "[[1,2],[4]]"], "[1,2,4,3]"),
        ("unique", &["[1,\"1\",1.0]", "[2]"], "[2,1,\"1\",1.0]"),
        ("unique", &["[{\"a\":1}]", "[2]"], "[2,{\"a\":1}]"),
        ("unique", &["\"x\"", "null"], "[null,\"x\"]"),
        (
            "unique",
            &["{\"a\":1}", "[1]"],
            "error: the root: unique merge cannot merge hash values",
        ),
        (
            "hash",
            &["{\"b\":1,\"a\":1}", "{\"c\":1,\"a\":2}"],
            r#"{"b":1,"a":2,"c":1}"#,
        ),
        (
            "hash",
            &["{\"a\":1,\"b\":{\"x\":1}}", "{\"b\":{\"y\":2},\"c\":3}"],
            r#"{"a":1,"b":{"y":2},"c":3}"#,
        ),
        (
            "hash",
            &["[1]", "{\"a\":1}"],
            "error: the root: hash merge requires hash values, found a list",
        ),
        ("first", &["1", "null"], "null"),
        ("deep", &["[1]", "\"s\"", "[2]"], "[1,2]"),
        ("deep", &["{\"a\":[1,1]}", "{}"], r#"{"a":[1,1]}"#),
        ("deep", &["{}", "{\"a\":[1,1]}"], r#"{"a":[1]}"#),
        (
            "deep",
            &["{\"a\":1}", "{\"a\":{\"b\":[1,1]}}"],
            r#"{"a":{"b":[1,1]}}"#,
        ),
        ("deep", &["{\"a\":false}", "{\"a\":[1,1]}"], r#"{"a":[1]}"#),
        ("deep", &["false", "[1,1]"], "[1,1]"),
        (
            "deep",
            &["{\"a\":{\"x\":1}}", "{\"a\":\"s\"}", "{\"a\":{\"y\":2}}"],
            r#"{"a":{"x":1,"y":2}}"#,
        ),
        (
            "deep",
            &[
                "{\"b\":1,\"a\":1}",
                "{\"c\":1,\"a\":2}",
                "{\"d\":1,\"b\":2}",
            ],
            r#"{"b":2,"a":2,"c":1,"d":1}"#,
        ),
        ("deep", &["[3,2,3]", "[1]"], "[3,2,1]"),
        ("deep", &["{\"a\":\"\"}", "{\"a\":[1,1]}"], r#"{"a":[1,1]}"#),
        // An empty source mapping overwrites nothing.
        ("deep", &["{\"c\":[1]}", "{\"c\":{}}"], r#"{"c":[1]}"#),
        // A mapping over a list: every key but the first merges with itself.
        (
            "deep",
            &["{\"b\":[0]}", "{\"b\":{\"x\":[1,1],\"y\":[1,1]}}"],
            r#"{"b":{"x":[1,1],"y":[1]}}"#,
        ),
        // Under a merged mapping a null over a false stays null.
        (
            "deep",
            &["{\"k\":{\"c\":false}}", "{\"k\":{\"c\":null}}"],
            r#"{"k":{"c":null}}"#,
        ),
        (
            "{strategy: deep, merge_hash_arrays: true}",
            &[
                r#"[{"name":"a","v":1,"w":1},{"name":"b"}]"#,
                r#"[{"name":"a","v":2}]"#,
            ],
            r#"[{"name":"a","v":2,"w":1},{"name":"b"}]"#,
        ),
        (
            "{strategy: deep, merge_hash_arrays: true}",
            &[r#"[{"a":1}]"#, r#"[{"b":1},2]"#],
            r#"[{"a":1},{"b":1},2]"#,
        ),
        (
            "{strategy: deep, sort_merged_arrays: true}",
            &["[3,1]", "[2]"],
            "[1,2,3]",
        ),
        (
            "{strategy: deep, sort_merged_arrays: true}",
            &["[[2],[1]]", "[[0]]"],
            "[[0],[1],[2]]",
        ),
        (
            "{strategy: deep, knockout_prefix: '--'}",
            &[r#"["a","b"]"#, r#"["--b","c"]"#],
            r#"["a","c"]"#,
        ),
        (
            "{strategy: deep, knockout_prefix: '--'}",
            &[r#"{"k":["a",1,2]}"#, r#"{"k":["--2","--a"]}"#],
            r#"{"k":[1,2]}"#,
        ),
        (
            "{strategy: deep, knockout_prefix: '--'}",
            &[r#"{"k":["1","2","3","4"]}"#, r#"{"k":["7","--","6"]}"#],
            r#"{"k":["7","6"]}"#,
        ),
        (
            "{strategy: deep, knockout_prefix: '--'}",
            &[r#"{"k":"v"}"#, r#"{"k":"--foo"}"#],
            r#"{"k":""}"#,
        ),
        (
            "{strategy: deep, knockout_prefix: '--'}",
            &["{}", r#"{"k":["--a","a","b"]}"#],
            r#"{"k":["b","a"]}"#,
        ),
    ];
    for (spec, docs, want) in cases {
        assert_eq!(with(spec, docs), *want, "{spec} {docs:?}");
    }
}

/// Where beryl's knockouts deliberately differ (tests/peers/differences.yml).
#[test]
fn deep_knockouts_reach_every_lower_level() {
    let ko = "{strategy: deep, knockout_prefix: '--'}";
    // Puppet: ["x","y","z"] (the marker reaches the next level only).
    assert_eq!(
        with(ko, &[r#"["x","y"]"#, r#"["z"]"#, r#"["--x"]"#]),
        r#"["y","z"]"#
    );
    // Puppet leaks markers of the lowest level: ["--a","b","c"].
    assert_eq!(with(ko, &[r#"["--a","b"]"#, r#"["c"]"#]), r#"["b","c"]"#);
    // Puppet writes "" for a knocked-out key.
    assert_eq!(
        with(ko, &[r#"{"k":[1],"j":1}"#, r#"{"k":"--"}"#]),
        r#"{"j":1}"#
    );
    // A bare marker empties every lower list (Puppet: ["a"]).
    assert_eq!(
        with(ko, &[r#"{"k":["a"]}"#, r#"{"k":["b"]}"#, r#"{"k":["--"]}"#]),
        r#"{"k":[]}"#
    );
    // A knockout value in a middle level cuts off the levels below it.
    assert_eq!(
        with(
            ko,
            &[r#"{"k":{"x":1}}"#, r#"{"k":"--"}"#, r#"{"k":{"y":2}}"#]
        ),
        r#"{"k":{"y":2}}"#
    );
}

#[test]
fn patch_is_rfc7396_with_the_lowest_document_as_target() {
    assert_eq!(
        with("patch", &[r#"{"e":null}"#, r#"{"a":1}"#]),
        r#"{"e":null,"a":1}"#
    );
    assert_eq!(
        with(
            "patch",
            &[
                r#"{"a":"b","c":{"d":"e","f":"g"}}"#,
                r#"{"a":"z","c":{"f":null}}"#
            ]
        ),
        r#"{"a":"z","c":{"d":"e"}}"#
    );
    assert_eq!(
        with("patch", &["{}", r#"{"a":{"bb":{"ccc":null}}}"#]),
        r#"{"a":{"bb":{}}}"#
    );
    assert_eq!(
        with(
            "patch",
            &[
                r#"{"a":[1,2]}"#,
                r#"{"a":[3]}"#,
                r#"{"a":null}"#,
                r#"{"b":1}"#
            ]
        ),
        r#"{"b":1}"#
    );
    assert_eq!(with("patch", &[r#"{"a":"foo"}"#, "null"]), "null");
}

#[test]
fn beryl_strategies_append_concat_by_key() {
    assert_eq!(
        with("append", &[r#"{"l":[1,2,"a"]}"#, r#"{"l":["--a",2,3]}"#]),
        r#"{"l":[1,2,3]}"#
    );
    assert_eq!(
        with("concat", &[r#"{"l":[1,2]}"#, r#"{"l":[2,3]}"#]),
        r#"{"l":[1,2,2,3]}"#
    );
    assert_eq!(
        with(
            "{strategy: by_key, key: id}",
            &[
                r#"[{"id":"a","v":1},{"id":"b"}]"#,
                r#"[{"id":"a","w":2},{"id":"--b"},{"id":"c"}]"#
            ]
        ),
        r#"[{"id":"a","v":1,"w":2},{"id":"c"}]"#
    );
    assert_eq!(
        with("by_key", &[r#"[{"id":"a"}]"#]),
        "error: item 0 of the root list has no `name`"
    );
    assert_eq!(
        with(
            "default",
            &[r#"{"l":[1],"m":{"a":1}}"#, r#"{"l":[2],"m":{"b":null}}"#]
        ),
        r#"{"l":[2],"m":{"a":1,"b":null}}"#
    );
}

#[test]
fn prefixes_override_lock_and_escape() {
    assert_eq!(
        with(
            "default",
            &[r#"{"a":{"x":1},"l":[1]}"#, r#"{"~a":{"y":2}}"#]
        ),
        r#"{"a":{"y":2},"l":[1]}"#
    );
    assert_eq!(
        with("append", &[r#"{"l":[1]}"#, r#"{"~l":[2]}"#, r#"{"l":[3]}"#]),
        r#"{"l":[2,3]}"#
    );
    assert_eq!(
        with("default", &[r#"{"=c":1}"#, r#"{"c":1}"#]),
        r#"{"c":1}"#
    );
    assert_eq!(
        with("default", &[r#"{"=c":1}"#, r#"{"c":2}"#]),
        "error: `c` is a constant and cannot be changed"
    );
    assert_eq!(
        with(
            "first",
            &[r#"{"x":1}"#, r#"{"\\~a":1,"\\=b":2,"~c":{"=d":3}}"#]
        ),
        r#"{"~a":1,"=b":2,"c":{"d":3}}"#
    );
    assert_eq!(
        with("default", &[r#"{"a":1,"~a":2}"#]),
        "error: `~a` and another key both set `a` in one mapping"
    );
}

#[test]
fn tables_layer_and_select_by_path() {
    // A higher table's spec for the same pattern replaces the lower one.
    assert_eq!(
        with(
            "default",
            &[
                r#"{"merge":{"l":"append"},"l":[1]}"#,
                r#"{"merge":{"l":"first"},"l":[2]}"#
            ]
        ),
        r#"{"l":[2]}"#
    );
    assert_eq!(
        with(
            "default",
            &[
                r#"{"merge":{"^s\\.":"concat","s.*":"append","s.x":"first"},"s":{"x":[1],"y":[1],"z":{"w":[1]}}}"#,
                r#"{"s":{"x":[2],"y":[1,2],"z":{"w":[1]}}}"#
            ]
        ),
        r#"{"s":{"x":[2],"y":[1,2],"z":{"w":[1,1]}}}"#
    );
    // Strategies that don't recurse take their value whole: no rule below applies.
    assert_eq!(
        with(
            "default",
            &[
                r#"{"merge":{"h":"hash","h.a":"append"},"h":{"a":[1]}}"#,
                r#"{"h":{"a":[2]}}"#
            ]
        ),
        r#"{"h":{"a":[2]}}"#
    );
}
