//! The bundled example inventory: what a new user sees first must work.

use crate::support::{args, beryl, repo};

#[test]
fn example_inventory_checks() {
    let run = beryl(&repo(), &args(&["check"]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("checked ") && run.stdout.ends_with(" hosts: ok\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn example_host01_renders() {
    let a = args(&["render", "host01"]);
    let run = beryl(&repo(), &a);
    assert_eq!(run.status, 0, "{}", run.stderr);
    insta::assert_snapshot!(run.transcript(&a));
}

#[test]
fn example_has_two_domains_three_groups_six_hosts() {
    let run = beryl(&repo(), &args(&["hosts", "--format", "json"]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    let hosts: Vec<serde_json::Value> = serde_json::from_str(&run.stdout).unwrap();
    let set = |key: &str| {
        let mut v: Vec<String> = hosts.iter().map(|h| h[key].to_string()).collect();
        v.sort();
        v.dedup();
        v
    };
    assert!(hosts.len() >= 6, "{} hosts", hosts.len());
    assert!(set("domain").len() >= 2);
    let groups: Vec<String> = set("group").into_iter().filter(|g| g != "null").collect();
    assert!(groups.len() >= 3, "{groups:?}");
}

#[test]
fn rendering_is_deterministic() {
    let a = args(&["render", "--all"]);
    let first = beryl(&repo(), &a);
    assert_eq!(first.status, 0, "{}", first.stderr);
    for _ in 0..3 {
        assert_eq!(beryl(&repo(), &a).stdout, first.stdout);
    }
}

/// `beryl explain` on the example inventory: a by-key user with injected keys,
/// an appended list with a knockout, an interpolated value; text and JSON.
#[test]
fn example_explain() {
    let cases: &[(&str, &[&str])] = &[
        (
            "explain_user",
            &["explain", "host01", "freebsd.users.alice"],
        ),
        (
            "explain_packages",
            &["explain", "host01", "freebsd.packages"],
        ),
        ("explain_interpolated", &["explain", "host01", "motd"]),
        (
            "explain_packages_json",
            &["explain", "host01", "freebsd.packages", "--format", "json"],
        ),
        (
            "explain_keys_json",
            &[
                "explain",
                "host01",
                "freebsd.users.alice.ssh_keys",
                "--format",
                "json",
            ],
        ),
        (
            "explain_reference_json",
            &["explain", "edge01", "monitoring.target", "--format", "json"],
        ),
        // Issue 16, item 13: the knockout `name: --bob` of the edge group is
        // named, with where bob was written.
        (
            "explain_knockout",
            &["explain", "edge01", "freebsd.users.bob"],
        ),
        // A value gathered by the edge group's query cites the class file
        // that exports it, and the query.
        (
            "explain_query",
            &[
                "explain",
                "edge01",
                "haproxy.backends.\"host01.example.org\"",
            ],
        ),
        // A user named by position is read as the user's name.
        (
            "explain_position",
            &["explain", "host01", "freebsd.users.0"],
        ),
        // The exports are explained where they went: `_beryl_.exports`.
        ("explain_exports", &["explain", "host01", "exports"]),
    ];
    for (name, a) in cases {
        let a = args(a);
        let run = beryl(&repo(), &a);
        assert_eq!(run.status, 0, "{}", run.stderr);
        insta::assert_snapshot!(*name, run.transcript(&a));
    }
}

/// A typo in an explained path gets a did-you-mean.
#[test]
fn example_explain_typo() {
    let run = beryl(&repo(), &args(&["explain", "host01", "freebsd.timezon"]));
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("did you mean `freebsd.timezone`?"),
        "{}",
        run.stderr
    );
}

/// `render --annotate` on the example inventory: every value names its origin.
#[test]
fn example_host01_annotated() {
    let a = args(&["render", "host01", "--annotate"]);
    let run = beryl(&repo(), &a);
    assert_eq!(run.status, 0, "{}", run.stderr);
    insta::assert_snapshot!(run.transcript(&a));
}
