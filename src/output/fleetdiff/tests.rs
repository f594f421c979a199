use std::sync::Arc;

use serde_json::json;

use super::markdown::{code, esc, fenced};
use super::text::{lines, show, what};
use super::*;
use crate::value::{Node, Source};

fn parse(file: &str, yaml: &str) -> Node {
    let limits = crate::limits::Limits::for_output(1 << 20);
    crate::yaml::parse_any(&Source::new(format!("inv/{file}"), yaml), &limits).unwrap()
}

/// A config read from YAML text, located in `file`, with beryl's policy.
fn config(file: &str, yaml: &str) -> HostConfig {
    HostConfig {
        node: parse(file, yaml),
        policy: Some(Policy::beryl()),
        names: Some(Arc::new(Names::new("inv", "keys", "ssh"))),
        levels: Vec::new(),
    }
}

fn diff(a: &str, b: &str) -> Vec<Change> {
    walk::diff(
        &config("old.yml", a),
        &config("new.yml", b),
        &Policy::beryl(),
    )
}

fn brief(changes: &[Change]) -> Vec<String> {
    changes
        .iter()
        .map(|c| {
            let at = c.at.as_ref().map(|c| format!(" @{c}")).unwrap_or_default();
            format!("{}: {}{at}", c.path, what(c).0)
        })
        .collect()
}

#[test]
fn by_key_lists_are_diffed_by_their_key() {
    let old = "freebsd:\n  users:\n    - {name: alice, shell: /bin/sh}\n    - {name: bob, uid: 2}\n    - {name: carol, uid: 3}\n";
    let new = "freebsd:\n  users:\n    - {name: alice, shell: /usr/local/bin/bash}\n    - {name: carol, uid: 3}\n    - {name: dave, uid: 4}\n";
    assert_eq!(
        brief(&diff(old, new)),
        [
            "freebsd.users.alice.shell: /bin/sh → /usr/local/bin/bash @new.yml:3:28",
            "freebsd.users.bob: removed @old.yml:4:7",
            "freebsd.users.dave: added @new.yml:5:7",
        ]
    );
}

#[test]
fn a_knockout_is_the_cause_of_a_removal() {
    let base = "freebsd:\n  users:\n    - {name: alice}\n    - {name: bob}\n";
    let group_old = "freebsd:\n  packages: [nginx]\n";
    let group_new = "freebsd:\n  packages: [nginx]\n  users:\n    - name: --bob\n";
    let side = |group: &str, merged: &str| HostConfig {
        levels: vec![
            (
                Arc::from("_default.yml"),
                Arc::new(parse("_default.yml", base)),
            ),
            (
                Arc::from("g/_group.yml"),
                Arc::new(parse("g/_group.yml", group)),
            ),
        ],
        ..config("_default.yml", merged)
    };
    let old = side(group_old, base);
    let new = side(group_new, "freebsd:\n  users:\n    - {name: alice}\n");
    let changes = walk::diff(&old, &new, &Policy::beryl());
    assert_eq!(
        brief(&changes),
        ["freebsd.users.bob: removed @_default.yml:4:7"]
    );
    assert_eq!(
        changes[0]
            .cause
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("g/_group.yml:4:7"),
        "the knockout, not bob's definition"
    );
}

#[test]
fn other_lists_are_aligned() {
    let old = "freebsd:\n  packages: [sudo, vim, tmux]\n";
    let new = "freebsd:\n  packages: [nginx, sudo, tmux, git]\n";
    assert_eq!(
        brief(&diff(old, new)),
        [
            "freebsd.packages: + nginx @new.yml:2:14",
            "freebsd.packages: - vim @old.yml:2:20",
            "freebsd.packages: + git @new.yml:2:33",
        ]
    );
    let idx: Vec<Option<usize>> = diff(old, new).iter().map(|c| c.index).collect();
    assert_eq!(idx, [Some(0), Some(1), Some(3)]);
}

#[test]
fn a_by_key_list_without_distinct_keys_is_aligned() {
    let old = "freebsd:\n  users:\n    - {name: a}\n    - {name: a}\n";
    let new = "freebsd:\n  users:\n    - {name: a}\n";
    assert_eq!(
        brief(&diff(old, new)),
        ["freebsd.users: - {\"name\":\"a\"} @old.yml:4:7"]
    );
}

#[test]
fn paths_quote_what_explain_would() {
    let changes = diff("sysctl:\n  a.b: 1\n", "sysctl:\n  a.b: 2\n");
    assert_eq!(changes[0].path, r#"sysctl."a.b""#);
}

#[test]
fn types_and_nulls_are_told_apart() {
    let changes = diff("a: 1\nb: x\n", "a: \"1\"\nb: null\n");
    assert_eq!(
        brief(&changes),
        ["a: 1 → \"1\" @new.yml:1:4", "b: x → null @new.yml:2:4"]
    );
}

#[test]
fn strings_are_shown_whole_or_quoted() {
    let key = format!("ssh-ed25519 {} alice@example.org", "A".repeat(300));
    assert_eq!(show(&json!(key)), key, "a long string is never folded");
    for s in ["", " x", "1", "true", "yes", "null", "a\nb", "[x]", "a → b"] {
        assert_eq!(show(&json!(s)), json!(s).to_string(), "{s:?}");
    }
}

#[test]
fn a_multi_line_string_is_a_unified_diff_of_its_lines() {
    let changes = diff(
        "motd: |\n  one\n  two\n  three\n",
        "motd: |\n  one\n  2\n  three\n",
    );
    assert_eq!(what(&changes[0]).0, "changed");
    assert_eq!(
        lines(&changes[0]),
        ["@@ -1,3 +1,3 @@", " one", "-two", "+2", " three"]
    );
}

#[test]
fn names_show_files_relative_to_the_inventory() {
    let n = Names::new("/tmp/beryl-diff-1/inv", "/tmp/beryl-diff-1/inv/keys", "ssh");
    assert_eq!(
        n.show("/tmp/beryl-diff-1/inv/a/_domain.yml"),
        "a/_domain.yml"
    );
    assert_eq!(
        n.show("/tmp/beryl-diff-1/inv/keys/alice.pub"),
        "ssh/alice.pub"
    );
    assert_eq!(Names::new(".", "ssh", "ssh").show("a.yml"), "a.yml");
}

#[test]
fn fences_and_spans_outlast_any_backtick_run() {
    let body = "+ x```y````\n";
    let f = fenced("diff", body);
    assert!(
        f.starts_with("`````diff\n") && f.ends_with("\n`````\n"),
        "{f}"
    );
    assert_eq!(code("a`b"), "``a`b``");
    assert_eq!(code("`a"), "`` `a ``");
    assert_eq!(code("a\nb"), "`a\\nb`");
    assert_eq!(
        esc("<script>*x*</script>"),
        "&lt;script&gt;\\*x\\*&lt;/script&gt;"
    );
}

fn place(file: &str, line: u32, side: &'static str) -> Place {
    Place {
        file: file.into(),
        line,
        col: 13,
        side,
    }
}

fn group(n: usize) -> Group {
    let at = place("d/_domain.yml", 3, "new");
    Group {
        change: Change {
            path: "freebsd.timezone".into(),
            change: ChangeKind::Changed,
            old: Some(json!("UTC")),
            new: Some(json!("Europe/Paris")),
            index: None,
            at: Some(at.clone()),
            was: None,
            cause: Some(at),
        },
        hosts: (0..n).map(|i| format!("h{i}.d")).collect(),
        changed_inputs: Some(vec!["d/_domain.yml".into()]),
    }
}

#[test]
fn the_cause_then_where_the_value_is_when_elsewhere() {
    let id = |s: &str| s.to_string();
    let mut g = group(2);
    assert_eq!(
        text::why(&g, &id).as_deref(),
        Some("caused by d/_domain.yml:3:13")
    );
    g.change.cause = Some(place("d/h.yml", 2, "old"));
    assert_eq!(
        text::why(&g, &id).as_deref(),
        Some("caused by d/h.yml:2:13 (old version); it is now set at d/_domain.yml:3:13"),
        "an override removed from a host file"
    );
    g.change.cause = None;
    g.changed_inputs = Some(vec!["d/a.yml".into(), "d/b.yml".into()]);
    assert_eq!(
        text::why(&g, &id).as_deref(),
        Some("caused by a change to one of d/a.yml, d/b.yml; it is now set at d/_domain.yml:3:13")
    );
    g.change.at = None;
    g.changed_inputs = None;
    assert_eq!(text::why(&g, &id), None, "render directories");
    let none = Default::default();
    assert_eq!(text::hosts(&g.hosts, &none, &id), "on 2 hosts of d");
    assert_eq!(text::hosts(&g.hosts[..1], &none, &id), "on h0.d");
    // A jail `j.h0.d` is in its host's domain, as its side says.
    let jail = vec!["h0.d".to_string(), "j.h0.d".to_string()];
    let domains = [("h0.d", "d"), ("j.h0.d", "d")]
        .map(|(h, d)| (h.to_string(), d.to_string()))
        .into();
    assert_eq!(text::hosts(&jail, &none, &id), "on 2 hosts in 2 domains");
    assert_eq!(text::hosts(&jail, &domains, &id), "on 2 hosts of d");
}

fn report(groups: usize) -> Report {
    Report {
        format_version: FORMAT_VERSION,
        summary: Summary {
            changed: 1,
            ..Summary::default()
        },
        added: Vec::new(),
        removed: Vec::new(),
        changed: Vec::new(),
        groups: (0..groups)
            .map(|i| {
                let mut g = group(1);
                g.change.new = Some(json!(format!("{i}{}", "x".repeat(1000))));
                g
            })
            .collect(),
        domains: Default::default(),
    }
}

/// A report of one change per path `p0`, `p1`, … on one host each, the
/// values of the given lengths.
fn report_of(values: &[usize]) -> Report {
    let mut r = report(0);
    for (i, n) in values.iter().enumerate() {
        let mut g = group(1);
        g.change.path = format!("p{i}");
        g.hosts = vec![format!("h{i}.d")];
        g.change.new = Some(json!("x".repeat(*n)));
        r.groups.push(g);
    }
    r
}

#[test]
fn the_comment_is_cut_with_a_way_to_the_rest() {
    let small = to_markdown(&report_of(&[1000; 3]), "beryl diff git:main");
    assert!(!small.contains("not shown"), "{small}");
    assert!(small.starts_with("### beryl diff\n\n**1 host changed, 0 added"));
    // 200 values of 1,000 characters: every header, as many values as fit.
    let big = to_markdown(&report_of(&[1000; 200]), "beryl diff git:main");
    assert!(big.chars().count() < MAX_COMMENT, "{}", big.len());
    assert_eq!(big.matches("**`p").count(), 200, "every header");
    let shown = big.matches("```diff").count();
    assert!(shown > 20 && shown < 200, "{shown}");
    assert!(
        big.ends_with(&format!(
            "_the values of {} changes not shown, to keep this comment under 65,536 characters: run `beryl diff git:main` to see the whole diff._\n",
            200 - shown
        )),
        "{}",
        &big[big.len() - 300..]
    );
    // More headers than fit: the rest are counted.
    let many = to_markdown(&report_of(&[10; 2000]), "beryl diff git:main");
    assert!(many.chars().count() < MAX_COMMENT, "{}", many.len());
    let headers = many.matches("**`p").count();
    assert!(headers > 100 && headers < 2000, "{headers}");
    assert!(
        many.contains(&format!(
            "_{} more changes not shown",
            crate::textdiff::thousands((2000 - headers) as u64)
        )),
        "{}",
        &many[many.len() - 300..]
    );
}

/// One value larger than the comment among five small ones: all six
/// headers, the five small values, and the size of the one left out (it
/// emptied the comment: issue 35).
#[test]
fn one_oversize_value_costs_only_its_own_place() {
    let r = report_of(&[10, 10, 90_000, 10, 10, 10]);
    let md = to_markdown(&r, "beryl diff git:main");
    assert!(md.chars().count() < MAX_COMMENT);
    for i in 0..6 {
        assert!(
            md.contains(&format!("**`p{i}`** changed on h{i}.d, caused by")),
            "{md}"
        );
    }
    assert_eq!(md.matches("```diff").count(), 5, "{md}");
    assert!(
        md.contains("\n_value not shown: 90,021 characters_\n"),
        "{md}"
    );
    assert!(md.ends_with("_the value of 1 change not shown, to keep this comment under 65,536 characters: run `beryl diff git:main` to see the whole diff._\n"), "{md}");
}

/// Changes of one path by one cause with a value per host are one section,
/// with every value while they fit, else as many as fit.
#[test]
fn a_value_per_host_is_one_section() {
    let mut r = report(0);
    for (i, n) in [(0, 3usize), (1, 3), (2, 3)] {
        let mut g = group(1);
        g.hosts = vec![format!("h{i}.d")];
        g.change.new = Some(json!(format!("v{i}{}", "x".repeat(n))));
        r.groups.push(g);
    }
    let md = to_markdown(&r, "beryl diff git:main");
    assert!(
        md.contains("**`freebsd.timezone`** changed on 3 hosts of d, the value differs per host, caused by `d/_domain.yml:3:13`\n(h0.d, h1.d, h2.d)\n"),
        "{md}"
    );
    for i in 0..3 {
        assert!(
            md.contains(&format!(
                "The value on h{i}.d:\n\n```diff\n- UTC\n+ v{i}xxx\n```\n"
            )),
            "{md}"
        );
    }
    assert!(!md.contains("not shown"), "{md}");
    // 2,000 values of 100 characters: the first only, and the count.
    let mut r = report(0);
    for i in 0..2000 {
        let mut g = group(1);
        g.hosts = vec![format!("h{i:04}.d")];
        g.change.new = Some(json!(format!("v{i}{}", "x".repeat(100))));
        r.groups.push(g);
    }
    let md = to_markdown(&r, "beryl diff git:main");
    assert!(
        md.contains("changed on 2000 hosts of d, the value differs per host"),
        "{md}"
    );
    // As many as fit of 2,000, 1,000, 500, 250, …: 250 values.
    assert!(md.chars().count() < MAX_COMMENT);
    assert_eq!(md.matches("```diff").count(), 250, "{md}");
    assert!(md.contains("The value on h0000.d:"), "{md}");
    assert!(md.contains("The value on h0249.d:"), "{md}");
    assert!(!md.contains("The value on h0250.d:"), "{md}");
    assert!(
        md.contains("_and 1,750 other values, in the whole diff_"),
        "{md}"
    );
    assert!(md.ends_with("_1,750 values of changes that differ per host not shown, to keep this comment under 65,536 characters: run `beryl diff git:main` to see the whole diff._\n"), "{md}");
}

/// A plan diff larger than the comment: its host is named, its diff left
/// out, and the last line says so in those words.
#[test]
fn an_oversize_plan_diff_keeps_its_host() {
    let mut r = report_of(&[10]);
    r.changed.push(HostChange {
        host: "h0.d".into(),
        changed_inputs: None,
        changes: Vec::new(),
        plan_diff: Some("+x\n".repeat(40_000)),
    });
    let md = to_markdown(&r, "beryl diff --plan");
    assert!(md.contains("<details><summary>h0.d</summary>\n\n_value not shown: 120,012 characters_\n</details>\n"), "{md}");
    assert!(md.contains("**`p0`** changed"), "{md}");
    assert!(md.ends_with("_the plan diff of 1 host not shown, to keep this comment under 65,536 characters: run `beryl diff --plan` to see the whole diff._\n"), "{md}");
}

#[test]
fn a_value_cannot_break_out_of_its_block() {
    let mut r = report(0);
    let mut g = group(1);
    g.change.new = Some(json!("```\n<script>alert(1)</script>\n````"));
    g.hosts = vec!["<b>h</b>.d".into()];
    r.groups.push(g);
    let md = to_markdown(&r, "beryl diff git:main");
    assert!(md.contains("\n`````diff\n"), "{md}");
    assert!(!md.contains("<b>"), "{md}");
    // Outside the block, nothing of the value; inside, the fence is never
    // matched by a line of the value.
    let fence_lines = md.lines().filter(|l| l.starts_with("`````")).count();
    assert_eq!(fence_lines, 2, "{md}");
}

#[test]
fn groups_gather_identical_changes_most_hosts_first() {
    let change = |path: &str| Change {
        path: path.into(),
        change: ChangeKind::Removed,
        old: Some(json!(1)),
        new: None,
        index: None,
        at: None,
        was: None,
        cause: None,
    };
    let host = |name: &str, paths: &[&str]| HostChange {
        host: name.into(),
        changed_inputs: Some(vec!["a.yml".into(), name.into()]),
        changes: paths.iter().map(|p| change(p)).collect(),
        plan_diff: None,
    };
    let g = groups(&[host("h1", &["x", "y"]), host("h2", &["y"])]);
    assert_eq!(g[0].change.path, "y");
    assert_eq!(g[0].hosts, ["h1", "h2"]);
    assert_eq!(
        g[0].changed_inputs.as_deref(),
        Some(&["a.yml".to_string()][..])
    );
    assert_eq!(g[1].hosts, ["h1"]);
}

#[test]
fn identical_subtrees_are_skipped_and_order_of_keys_is_not_a_change() {
    assert!(diff("a: {x: 1, y: 2}\n", "a: {y: 2, x: 1}\n").is_empty());
    let _ = Node::str("");
}
