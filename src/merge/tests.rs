use super::*;
use crate::value::Source;

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
    let out = merge_documents(&docs, &Policy::beryl(), None).unwrap();
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
                "freebsd.users[0] has no `name`".to_string(),
                "l0.yml:3:7".to_string()
            ),
            (
                "freebsd.users[1] must be a mapping with a `name`, found a string".into(),
                "l0.yml:4:7".into()
            ),
            (
                "freebsd.users[2]: `name` must be a non-empty string, found an integer".into(),
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
    let out = merge_documents(&docs, &Policy::beryl(), None).unwrap();
    assert_eq!(out.get("a").unwrap().span.to_string(), "l0.yml:1:4");
    assert_eq!(out.get("b").unwrap().span.to_string(), "l1.yml:1:4");
}
