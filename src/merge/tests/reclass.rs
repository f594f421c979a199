//! Merges in reclass's dialect. Every expected value was checked against
//! kapicorp-reclass 2.0.0: the levels as classes (lowest first) and a node,
//! rendered with `Core.nodeinfo` (inventories in the issue 19 notes,
//! `sem/merge.inv`).

use super::*;

fn reclass_with(texts: &[&str], allow: Allow, strict: bool) -> String {
    let nodes = levels(texts);
    let docs: Vec<&Node> = nodes.iter().collect();
    let policy = Policy::beryl().with_dialect(Dialect::reclass(allow, strict));
    match merge_documents(&docs, &policy, None) {
        Ok(m) => serde_json::to_string(&m.node).unwrap(),
        Err(e) => e
            .iter()
            .map(|d| d.message.clone())
            .collect::<Vec<_>>()
            .join(" | "),
    }
}

fn reclass(texts: &[&str]) -> String {
    reclass_with(texts, Allow::default(), true)
}

const BELOW: &str = "a: {x: 1}\nl: [1]\ns: str\nz: null\nzl: null\n";

#[test]
fn a_change_of_kind_is_an_error() {
    let cases = [
        ("a: 5\n", "Cannot merge scalar over dictionary, at a"),
        ("a: [1]\n", "Cannot merge list over dictionary, at a"),
        ("l: {x: 1}\n", "Cannot merge dictionary over list, at l"),
        ("l: 5\n", "Cannot merge scalar over list, at l"),
        ("s: [1]\n", "Cannot merge list over scalar, at s"),
        ("s: {x: 1}\n", "Cannot merge dictionary over scalar, at s"),
        ("a: null\n", "Cannot merge scalar over dictionary, at a"),
        ("l: null\n", "Cannot merge scalar over list, at l"),
    ];
    for (node, want) in cases {
        assert_eq!(reclass(&[BELOW, node]), want, "{node}");
    }
}

#[test]
fn lists_concatenate_and_null_gives_way() {
    assert_eq!(
        reclass(&[BELOW, "l: [2, 1]\n"]),
        r#"{"a":{"x":1},"l":[1,2,1],"s":"str","z":null,"zl":null}"#
    );
    assert_eq!(
        reclass(&[BELOW, "z: {y: 2}\nzl: [3]\ns: null\n"]),
        r#"{"a":{"x":1},"l":[1],"s":null,"z":{"y":2},"zl":[3]}"#
    );
}

#[test]
fn tilde_replaces_whatever_the_kind() {
    assert_eq!(
        reclass(&[BELOW, "~a: [9]\n~l: [2]\n~s: {k: v}\n"]),
        r#"{"a":[9],"l":[2],"s":{"k":"v"},"z":null,"zl":null}"#
    );
    assert_eq!(
        reclass(&[BELOW, "~a: {y: 2}\n"]),
        r#"{"a":{"y":2},"l":[1],"s":"str","z":null,"zl":null}"#
    );
}

#[test]
fn allow_options() {
    let all = Allow {
        scalar_over_dict: true,
        scalar_over_list: true,
        list_over_scalar: true,
        dict_over_scalar: true,
        none_override: true,
    };
    let cases = [
        ("a: 5\n", r#""a":5"#),
        ("l: 5\n", r#""l":5"#),
        ("s: {x: 1}\n", r#""s":{"x":1}"#),
        ("s: [1]\n", r#""s":["str",1]"#),
        ("a: null\n", r#""a":null"#),
        ("l: null\n", r#""l":null"#),
    ];
    for (node, want) in cases {
        let out = reclass_with(&[BELOW, node], all, true);
        assert!(out.contains(want), "{node}: {out}");
    }
    assert_eq!(
        reclass_with(&[BELOW, "l: {x: 1}\n"], all, true),
        "Cannot merge dictionary over list, at l"
    );
    let none = Allow {
        none_override: true,
        ..Allow::default()
    };
    assert!(reclass_with(&[BELOW, "a: null\n"], none, true).contains(r#""a":null"#));
    assert_eq!(
        reclass_with(&[BELOW, "a: 5\n"], none, true),
        "Cannot merge scalar over dictionary, at a"
    );
}

#[test]
fn constants_take_the_lower_values_and_refuse_any_later_one() {
    let constant = "=c: 1\n=cd: {x: 1}\n";
    assert_eq!(
        reclass(&["cd: {y: 2}\n", constant]),
        r#"{"cd":{"y":2,"x":1},"c":1}"#
    );
    assert_eq!(
        reclass(&[constant, "c: 1\n"]),
        "`c` is a constant and cannot be changed"
    );
    // Not strict: a later setting is ignored.
    assert_eq!(
        reclass_with(&[constant, "c: 2\ncd: {y: 2}\n"], Allow::default(), false),
        r#"{"c":1,"cd":{"x":1}}"#
    );
    // beryl's own dialect is unchanged: a repeat is allowed.
    assert_eq!(merged(&[constant, "c: 1\n"]), r#"{"c":1,"cd":{"x":1}}"#);
}

/// reclass has no merge tables: a root `merge:` key is a parameter like any
/// other (kapicorp renders `parameters: {merge: …}` as data), merged across
/// the levels; beryl reads the same key as the level's table.
#[test]
fn a_root_merge_key_is_data() {
    let texts = ["merge: {a: 1, l: [x]}\n", "merge: {b: 2, l: [y]}\n"];
    assert_eq!(reclass(&texts), r#"{"merge":{"a":1,"l":["x","y"],"b":2}}"#);
    let nodes = levels(&texts);
    let docs: Vec<&Node> = nodes.iter().collect();
    let beryl = merge_documents(&docs, &Policy::beryl(), None);
    assert!(beryl.is_err(), "beryl reads `merge:` as a table");
}
