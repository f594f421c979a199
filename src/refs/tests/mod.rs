use super::*;
use crate::limits::Limits;
use crate::merge::{Policy, merge_documents};
use crate::syntax::template;
use crate::value::{Node, Source, Step};

/// Merges YAML levels with Beryl's rules, resolves, and returns JSON or the
/// error messages.
fn run(texts: &[&str]) -> String {
    let nodes: Vec<Node> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            crate::yaml::parse(&Source::new(format!("l{i}.yml"), *t), &Default::default()).unwrap()
        })
        .collect();
    let docs: Vec<&Node> = nodes.iter().collect();
    let mut merged = merge_documents(&docs, &Policy::beryl(), None).unwrap();
    let resolved = resolve(&mut merged, &Limits::default()).map(|_| ());
    shown(resolved, &merged.node)
}

/// The resolved tree as JSON, or the error messages.
fn shown(resolved: Result<(), crate::diag::Diags>, node: &Node) -> String {
    match resolved {
        Ok(()) => serde_json::to_string(node).unwrap(),
        Err(e) => e
            .iter()
            .map(|d| d.message.clone())
            .collect::<Vec<_>>()
            .join(" | "),
    }
}

#[test]
fn whole_references_keep_their_type() {
    assert_eq!(
        run(&["a: {x: 1}\nn: 3\nb: ${a}\nc: ${n}\nd: ${t}\nt: true\n"]),
        r#"{"a":{"x":1},"n":3,"b":{"x":1},"c":3,"d":true,"t":true}"#
    );
}

#[test]
fn embedded_references_join_as_text() {
    assert_eq!(
        run(&["n: 3\nf: 1.5\nh: web\ns: \"${h}-${n}/${f}\"\n"]),
        r#"{"n":3,"f":1.5,"h":"web","s":"web-3/1.5"}"#
    );
    assert_eq!(
        run(&["a: {x: 1}\ns: \"x ${a}\"\n"]),
        "`${a}` is a mapping, which cannot be part of a longer string"
    );
}

#[test]
fn nested_references_and_escapes() {
    assert_eq!(
        run(&["which: b\nv: {a: 1, b: 2}\nr: ${v.${which}}\n"]),
        r#"{"which":"b","v":{"a":1,"b":2},"r":2}"#
    );
    assert_eq!(
        run(&["x: 1\na: '\\${x}'\nb: '\\\\${x}'\n"]),
        r#"{"x":1,"a":"${x}","b":"\\1"}"#
    );
}

#[test]
fn references_see_the_final_merged_value() {
    // The reference is written low, its target overridden high.
    assert_eq!(
        run(&["port: 80\nurl: \"http://h:${port}\"\n", "port: 8080\n"]),
        r#"{"port":8080,"url":"http://h:8080"}"#
    );
}

#[test]
fn chains_resolve_in_any_order() {
    assert_eq!(
        run(&["a: ${b}\nb: ${c}\nc: [1]\n"]),
        r#"{"a":[1],"b":[1],"c":[1]}"#
    );
}

#[test]
fn list_items_by_name_and_index() {
    assert_eq!(
        run(&[
            "freebsd: {users: [{name: alice, shell: /bin/sh}]}\nl: [a, b]\ns: ${freebsd.users.alice.shell}\ni: ${l.1}\n"
        ]),
        r#"{"freebsd":{"users":[{"name":"alice","shell":"/bin/sh"}]},"l":["a","b"],"s":"/bin/sh","i":"b"}"#
    );
}

#[test]
fn missing_references_suggest_close_paths() {
    assert_eq!(
        run(&["site: {owner: x}\na: ${site.ownr}\n"]),
        "`${site.ownr}`: nothing is set at `site.ownr`"
    );
}

#[test]
fn cycles_list_every_step() {
    assert_eq!(run(&["a: ${b}\nb: ${a}\n"]), "reference cycle: a → b → a");
    assert_eq!(
        run(&["a: ${b}\nb: ${c}\nc: \"x${a}\"\n"]),
        "reference cycle: a → b → c → a"
    );
    assert_eq!(run(&["a:\n  x: ${a}\n"]), "reference cycle: a.x → a");
    // A list item is named as `explain` names it: by its key field.
    assert_eq!(
        run(&["users:\n  - name: alice\n    shell: ${users.alice.shell}\n"]),
        "reference cycle: users.alice.shell → users.alice.shell"
    );
}

#[test]
fn deferred_merge_of_a_mapping_and_a_reference() {
    // _default has a mapping, the host a reference to another mapping: both
    // are merged once the reference is known.
    assert_eq!(
        run(&[
            "common: {a: 1, b: 2}\nsettings: {b: 0, c: 3}\n",
            "settings: ${common}\n"
        ]),
        r#"{"common":{"a":1,"b":2},"settings":{"b":2,"c":3,"a":1}}"#
    );
    // The other way round: the reference is lower.
    assert_eq!(
        run(&[
            "common: {a: 1, b: 2}\nsettings: ${common}\n",
            "settings: {b: 9}\n"
        ]),
        r#"{"common":{"a":1,"b":2},"settings":{"a":1,"b":9}}"#
    );
    // A reference to a scalar simply replaces, as the strategy says.
    assert_eq!(run(&["x: 5\nv: {a: 1}\n", "v: ${x}\n"]), r#"{"x":5,"v":5}"#);
}

#[test]
fn lists_with_references_are_deduplicated_after_resolution() {
    assert_eq!(
        run(&["pkg: vim\nfreebsd: {packages: [vim, \"${pkg}\", tmux]}\n"]),
        r#"{"pkg":"vim","freebsd":{"packages":["vim","tmux"]}}"#
    );
}

#[test]
fn resolutions_record_where_each_reference_was_written() {
    let nodes = [crate::yaml::parse(
        &Source::new(
            "l.yml",
            "port: 80\nfreebsd: {users: [{name: a, shell: \"/bin/${sh}\"}]}\nsh: sh\n",
        ),
        &Default::default(),
    )
    .unwrap()];
    let docs: Vec<&Node> = nodes.iter().collect();
    let mut merged = merge_documents(&docs, &Policy::beryl(), None).unwrap();
    let res = resolve(&mut merged, &Limits::default()).unwrap();
    assert_eq!(res.len(), 1);
    assert_eq!(res[0].path, ["freebsd", "users", "a", "shell"]);
    assert_eq!(
        *res[0].loc,
        [
            Step::Key("freebsd".into()),
            Step::Key("users".into()),
            Step::Index(0),
            Step::Key("shell".into()),
        ]
    );
    assert_eq!(
        res[0].loc.at(&merged.node).and_then(Node::as_str),
        Some("/bin/sh")
    );
    assert_eq!(res[0].text, "/bin/${sh}");
    assert_eq!(res[0].targets[0].0, "sh");
    assert_eq!(res[0].targets[0].1.to_string(), "l.yml:3:5");
}

/// Like `run`, with limits, returning the codes of the errors.
fn codes_with(text: &str, limits: Limits) -> Vec<&'static str> {
    let node = crate::yaml::parse(&Source::new("l0.yml", text), &Default::default()).unwrap();
    let mut merged = merge_documents(&[&node], &Policy::beryl(), None).unwrap();
    match resolve(&mut merged, &limits) {
        Ok(_) => Vec::new(),
        Err(e) => e.iter().map(|d| d.code).collect(),
    }
}

/// `k0: ${k1}`, `k1: ${k2}`, … `kN: end`.
fn chain(n: usize) -> String {
    let mut t: String = (0..n).map(|i| format!("k{i}: ${{k{}}}\n", i + 1)).collect();
    t.push_str(&format!("k{n}: end\n"));
    t
}

#[test]
fn reference_chains_stop_at_the_depth_limit_with_one_error() {
    let limits = Limits {
        max_ref_depth: 10,
        ..Limits::default()
    };
    assert!(codes_with(&chain(10), limits).is_empty());
    // Every one of the 500 strings is past the limit; one error says so.
    assert_eq!(codes_with(&chain(500), limits), ["beryl::limit::ref_depth"]);
    assert_eq!(
        codes_with(&chain(500), Limits::default()),
        ["beryl::limit::ref_depth"]
    );
}

/// Each `k{i}` doubles `k{i-1}`: 2^40 bytes, or 2^40 values, if unchecked.
#[test]
fn reference_bombs_stop_at_the_expansion_budget() {
    let mut strings = String::from("k0: xxxxxxxxxx\n");
    let mut lists = String::from("k0: [a, b, c, d]\n");
    for i in 1..40 {
        strings.push_str(&format!("k{i}: '${{k{p}}}${{k{p}}}'\n", p = i - 1));
        lists.push_str(&format!("k{i}: ['${{k{p}}}', '${{k{p}}}']\n", p = i - 1));
    }
    let code = ["beryl::limit::ref_expansion"];
    assert_eq!(codes_with(&strings, Limits::default()), code);
    assert_eq!(codes_with(&lists, Limits::default()), code);
    // Below the budget, the same shape resolves.
    let small: String = strings.lines().take(8).map(|l| format!("{l}\n")).collect();
    assert!(codes_with(&small, Limits::default()).is_empty());
}

/// References can nest a config deeper than any file does.
#[test]
fn a_reference_may_not_nest_the_config_past_the_depth_limit() {
    let limits = Limits {
        max_depth: 5,
        ..Limits::default()
    };
    let ok = "a: {b: {c: 1}}\nx: {y: '${a}'}\n";
    assert!(codes_with(ok, limits).is_empty());
    let deep = "a: {b: {c: {d: 1}}}\nx: {y: {z: '${a}'}}\n";
    assert_eq!(codes_with(deep, limits), ["beryl::limit::depth"]);
}

/// A copied target's own references are resolved first: the strings below
/// it are found as a range of the sorted pending set (`l` and its items, not
/// `la`, whose key only starts with the same letter).
#[test]
fn references_below_a_target_are_resolved_before_it_is_copied() {
    assert_eq!(
        run(&["c: ${l}\nla: ['${w}']\nl: ['${v}', {x: '${w}'}]\nv: 1\nw: 2\nd: ${la}\n"]),
        r#"{"c":[1,{"x":2}],"la":[2],"l":[1,{"x":2}],"v":1,"w":2,"d":[2]}"#
    );
}

/// Only the first missing references get suggestions, each of which
/// compares with every path.
#[test]
fn missing_references_are_each_reported() {
    let text: String = (0..100).map(|i| format!("k{i}: ${{nope{i}}}\n")).collect();
    let codes = codes_with(&text, Limits::default());
    assert_eq!(codes.len(), 100);
    assert!(codes.iter().all(|c| *c == "beryl::refs::missing"));
}

/// Found while sizing the `refs` fuzz target: the template parser recursed
/// once per `${`, so a string of 200,000 nested `${` (a 600 kB file)
/// overflowed the stack. Nesting deeper than template::MAX_NESTING is a
/// syntax error.
#[test]
fn references_are_limited_in_nesting() {
    use template::MAX_NESTING;
    let nested = |n: usize| format!("x: \"{}a{}\"\na: 1\n", "${".repeat(n), "}".repeat(n));
    let at_limit = format!("{}a{}", "${".repeat(MAX_NESTING), "}".repeat(MAX_NESTING));
    assert!(template::parse(&at_limit).is_ok());
    let over = run(&[&nested(MAX_NESTING + 1)]);
    assert!(over.contains("references nest more than 64 deep"), "{over}");
    let far = run(&[&nested(200_000)]);
    assert!(far.contains("references nest more than 64 deep"), "{far}");
}

/// Many deferred merges (a reference meeting a mapping of another level,
/// 300 times): each reference looks up the deferred merges at and below its
/// target in a sorted map (it scanned them all, which made 20,000 of them
/// take half a minute in a debug build). The results are what they were.
#[test]
fn many_deferred_merges_resolve_as_before() {
    let mut low = String::from("v: 1\nm: {a: 1}\n");
    let mut high = String::new();
    for i in 0..300 {
        low.push_str(&format!("r{i}: \"${{v}}-{i}\"\nd{i}: {{b: {i}}}\n"));
        high.push_str(&format!("d{i}: ${{m}}\n"));
    }
    high.push_str("e: ${d7}\n");
    let out = run(&[&low, &high]);
    assert!(
        out.contains(r#""r0":"1-0""#) && out.contains(r#""r299":"1-299""#),
        "{out}"
    );
    assert!(out.contains(r#""d7":{"b":7,"a":1}"#), "{out}");
    assert!(out.contains(r#""e":{"b":7,"a":1}"#), "{out}");
}

mod reclass;

/// Resolves one level with an outer tree named `parent`; counts how often
/// the outer tree was asked for.
fn run_outer(text: &str, outer: Result<&str, &str>) -> (String, usize) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let node = crate::yaml::parse(&Source::new("l.yml", text), &Default::default()).unwrap();
    let mut merged = merge_documents(&[&node], &Policy::beryl(), None).unwrap();
    let asked = AtomicUsize::new(0);
    let read = || {
        asked.fetch_add(1, Ordering::Relaxed);
        match outer {
            Ok(t) => Ok(std::sync::Arc::new(
                crate::yaml::parse(&Source::new("p.yml", t), &Default::default()).unwrap(),
            )),
            Err(why) => Err(vec![crate::diag::Diag::new(Code::Path, why)]),
        }
    };
    let outer = Outer {
        name: "parent",
        node: &read,
    };
    let resolved = resolve_with(
        &mut merged,
        &Limits::default(),
        Dialect::beryl(),
        Some(outer),
    )
    .map(|_| ());
    (shown(resolved, &merged.node), asked.into_inner())
}

#[test]
fn an_outer_tree_is_read_once_as_it_is_and_only_when_referenced() {
    let parent = "site: par1\nlit: \"${not.resolved}\"\nl: [1, 2]\n";
    assert_eq!(
        run_outer(
            "a: \"in ${parent.site}\"\nb: ${parent.l}\nc: ${parent.lit}\nd: ${parent.site}\n",
            Ok(parent)
        ),
        (
            r#"{"a":"in par1","b":[1,2],"c":"${not.resolved}","d":"par1"}"#.to_string(),
            1
        )
    );
    assert_eq!(
        run_outer("a: 1\n", Err("broken")),
        (r#"{"a":1}"#.to_string(), 0)
    );
    let (missing, _) = run_outer("a: ${parent.nope}\n", Ok(parent));
    assert_eq!(
        missing,
        "`parent.nope`: the parent's config sets nothing there"
    );
    let (broken, _) = run_outer("a: ${parent.site}\n", Err("broken"));
    assert_eq!(
        broken,
        "`parent.site` reads the parent's config, which cannot be read"
    );
    // Without an outer tree, `parent` is a key like any other.
    assert_eq!(
        run(&["parent: {x: 1}\na: ${parent.x}\n"]),
        r#"{"parent":{"x":1},"a":1}"#
    );
}
