//! References in reclass's dialect. Every expected value was checked against
//! kapicorp-reclass 2.0.0: the same levels as a class (lowest) and a node
//! (highest), rendered with `Core.nodeinfo` (inventories in the issue 19
//! notes, `sem/*.inv`).

use crate::limits::Limits;
use crate::merge::{Allow, Dialect as MergeDialect, Policy, merge_documents};
use crate::refs::{Dialect, resolve_in};
use crate::value::{Node, Source};

/// Merges YAML levels (lowest first) and resolves them in reclass's
/// dialect; the JSON, or the error messages, then the warnings' codes.
fn reclass(texts: &[&str], refs: Dialect) -> String {
    let nodes: Vec<Node> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            crate::yaml::parse(&Source::new(format!("l{i}.yml"), *t), &Default::default()).unwrap()
        })
        .collect();
    let docs: Vec<&Node> = nodes.iter().collect();
    let policy = Policy::beryl().with_dialect(MergeDialect::reclass(Allow::default(), true));
    let mut merged = match merge_documents(&docs, &policy, None) {
        Ok(m) => m,
        Err(e) => return messages(&e),
    };
    let out = match resolve_in(&mut merged, &Limits::default(), refs) {
        Ok(_) => serde_json::to_string(&merged.node).unwrap(),
        Err(e) => messages(&e),
    };
    let warnings: Vec<&str> = merged.diags.iter().map(|d| d.code).collect();
    if warnings.is_empty() {
        out
    } else {
        format!("{out} + {}", warnings.join(", "))
    }
}

fn messages(e: &[crate::diag::Diag]) -> String {
    e.iter()
        .map(|d| d.message.clone())
        .collect::<Vec<_>>()
        .join(" | ")
}

fn r(texts: &[&str]) -> String {
    reclass(texts, Dialect::reclass())
}

#[test]
fn colon_paths_with_dots_as_key_characters() {
    assert_eq!(
        r(&[
            "dotted: {b.c: dot}\nk: {ey: nested}\nkk: ey\n",
            "d: ${dotted:b.c}\nn: ${k:${kk}}\n"
        ]),
        r#"{"dotted":{"b.c":"dot"},"k":{"ey":"nested"},"kk":"ey","d":"dot","n":"nested"}"#
    );
    // A list item by index, in the middle of a path.
    assert_eq!(
        r(&["lm: [{a: 7}]\nx: ${lm:0:a}\n"]),
        r#"{"lm":[{"a":7}],"x":7}"#
    );
    // A dotted path is one key.
    assert_eq!(
        r(&["a: {b: 1}\nx: ${a.b}\n"]),
        "`${a.b}`: nothing is set at `a.b`"
    );
}

#[test]
fn escapes() {
    assert_eq!(
        r(&[
            "b: true\ny: why\n'a}b': brace\n",
            "e1: '\\${b}'\ne2: '\\\\${b}'\ne3: '${a\\}b}'\ne4: '\\${x} \\\\${y}'\n"
        ]),
        r#"{"b":true,"y":"why","a}b":"brace","e1":"${b}","e2":"\\True","e3":"brace","e4":"${x} \\why"}"#
    );
}

#[test]
fn values_inside_a_longer_string_as_python_str() {
    let lower = "b: true\nz: null\no: 360\nl: [1, a]\nf: 1.0e+16\ni: -12\nd: {a: 1, b: [1, x], c: {}, n: null}\nq: \"it's\"\n";
    assert_eq!(
        r(&[
            lower,
            "r1: \"${b} ${z} ${o} ${l}\"\nr2: \"${f} ${i} ${q}\"\nr3: \"x ${d}\"\n"
        ]),
        concat!(
            r#"{"b":true,"z":null,"o":360,"l":[1,"a"],"f":1e+16,"i":-12,"#,
            r#""d":{"a":1,"b":[1,"x"],"c":{},"n":null},"q":"it's","#,
            r#""r1":"True None 360 [1, 'a']","r2":"1e+16 -12 it's","#,
            r#""r3":"x {'a': 1, 'b': [1, 'x'], 'c': {}, 'n': None}"}"#
        )
    );
    // A whole reference keeps its type.
    assert_eq!(
        r(&["d: {a: 1}\nb: true\nw: ${d}\nv: ${b}\n"]),
        r#"{"d":{"a":1},"b":true,"w":{"a":1},"v":true}"#
    );
}

#[test]
fn a_missing_reference_overwritten_by_a_scalar_is_a_warning() {
    let class = "r: ${missing}\nm: \"pre ${missing}\"\nrl: \"${missing}\"\n";
    assert_eq!(
        r(&[class, "r: 5\nm: post\nrl: 1\n"]),
        concat!(
            r#"{"r":5,"m":"post","rl":1} + beryl::refs::missing_overwritten, "#,
            "beryl::refs::missing_overwritten, beryl::refs::missing_overwritten"
        )
    );
    // The error stands when the final value is a mapping or a list
    // (reclass, too, warns first).
    let stands = "`${missing}`: nothing is set at `missing` + beryl::refs::missing_overwritten";
    assert_eq!(r(&["rd: ${missing}\n", "rd: {x: 1}\n"]), stands);
    assert_eq!(r(&["rl: ${missing}\n", "rl: [1]\n"]), stands);
    // ... and when the values below it merged into a mapping.
    assert_eq!(
        r(&["a: {x: 1}\n", "a: ${missing}\n", "a: 5\n"]),
        "`${missing}`: nothing is set at `missing`"
    );
    // Skipped, it is a null: a mapping then replaces it, and the next
    // scalar cannot merge over the mapping.
    assert_eq!(
        r(&["a: ${missing}\n", "a: {x: 1}\n", "a: 5\n"]),
        "Cannot merge scalar over dictionary, at a + beryl::refs::missing_overwritten"
    );
    // The last value's missing reference is an error.
    assert_eq!(
        r(&["a: 1\n", "a: ${missing}\n"]),
        "`${missing}`: nothing is set at `missing`"
    );
}

#[test]
fn without_ignore_overwritten_missing_references_every_value_resolves() {
    let strict = Dialect {
        missing_overwritten: false,
        ..Dialect::reclass()
    };
    assert_eq!(
        reclass(&["m: \"pre ${missing}\"\n", "m: post\n"], strict),
        "`${missing}`: nothing is set at `missing`"
    );
}

#[test]
fn overwritten_missing_references_of_a_real_node() {
    // reclass-rs's tests/inventory, node n26 with its classes `overridden`
    // and `overriding`: kapicorp-reclass 2.0.0 renders it (the survey's
    // out/rrs-inventory/kapicorp/n26.json, `_reclass_` left out).
    let overridden = "foo: ${bar}
baz: baz
base: base
complex:
  data:
    structure:
      with: ${complex:some:missing}
      some: ${data:another:missing}
      missing: ${complex:data:structure:invalid}
      overwritten: overwritten
      references: ${complex:data:structure:overwritten:references}
missing_top: ${missingref}
missing:
  nested: ${missingref}
  nested_list:
    - ${missing_list_entry}
list:
  - ${missingref}
";
    let overriding = "foo: bar
baz: ${qux}
base: ${cluster:data:base}
complex:
  data:
    structure:
      with: with
      some: some
      missing: ${complex:data:structure:invalider}
      references: ${complex:data:structure:overwritten:references}
extra: ${complex:data:structure:with}
nested:
  extra: ${complex:data:structure}
embedded: >-
  ${complex:data:structure:with}
  ${complex:data:structure:some}
  ${complex:data:structure:missing}
  ${complex:data:structure:overwritten}
  ${complex:data:structure:references}
~missing_top: hard override
missing:
  ~nested: hard override
  ~nested_list:
    - value2
~list:
  - value
  - ${foo}
";
    let node = "baz: qux
base: n26
complex:
  data:
    structure:
      missing: missing
      references: references
";
    let out = r(&[overridden, overriding, node]);
    let (json, warnings) = out.split_once(" + ").unwrap_or((&out, ""));
    let want = concat!(
        r#"{"foo":"bar","baz":"qux","base":"n26","complex":{"data":{"structure":"#,
        r#"{"with":"with","some":"some","missing":"missing","overwritten":"overwritten","#,
        r#""references":"references"}}},"missing_top":"hard override","#,
        r#""missing":{"nested":"hard override","nested_list":["value2"]},"#,
        r#""list":["value","bar"],"extra":"with","nested":{"extra":{"with":"with","#,
        r#""some":"some","missing":"missing","overwritten":"overwritten","#,
        r#""references":"references"}},"embedded":"with some missing overwritten references"}"#
    );
    let got: serde_json::Value = serde_json::from_str(json).unwrap();
    let want: serde_json::Value = serde_json::from_str(want).unwrap();
    assert_eq!(got, want);
    assert!(warnings.contains("missing_overwritten"), "{warnings}");
    // beryl's own dialect refuses it (the issue's `refs::missing`).
    let beryl = Dialect {
        missing_overwritten: false,
        ..Dialect::reclass()
    };
    assert!(reclass(&[overridden, overriding, node], beryl).contains("nothing is set"));
}
