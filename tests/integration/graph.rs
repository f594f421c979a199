//! `beryl graph`: the inheritance graph of the example inventory, drawn by
//! Graphviz, restricted to chains, and consistent with each host's chain.

use std::process::Command;

use crate::support::{args, beryl, example, example_hosts, repo, tool, with_stdin};

/// The node labels of a DOT graph, in order (each a list of lines).
fn dot_labels(dot: &str) -> Vec<Vec<String>> {
    dot.lines()
        .filter(|l| l.contains(" [label=") && !l.contains(" -> "))
        .map(|l| {
            let start = l.find("[label=\"").unwrap() + 8;
            let end = start + l[start..].find('"').unwrap();
            l[start..end].split("\\n").map(String::from).collect()
        })
        .collect()
}

#[test]
fn dot_draws_every_host() {
    let run = beryl(&repo(), &args(&["graph"]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stdout.contains("digraph beryl {"), "{}", run.stdout);
    if !tool("dot", "-V") {
        return;
    }
    let out = with_stdin(Command::new("dot").arg("-Tsvg"), run.stdout.as_bytes());
    assert!(
        out.status.success(),
        "dot -Tsvg: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = String::from_utf8(out.stdout).unwrap();
    assert!(svg.contains("<svg"), "not an SVG");
    let hosts = example_hosts();
    assert!(hosts.len() >= 6);
    for fqdn in &hosts {
        assert!(svg.contains(fqdn.as_str()), "{fqdn} is not in the SVG");
    }
    assert!(svg.contains("_default.yml"));
}

#[test]
fn the_whole_graph_is_a_tree_and_deterministic() {
    let dot = beryl(&repo(), &args(&["graph"]));
    let mermaid = beryl(&repo(), &args(&["graph", "--format", "mermaid"]));
    assert_eq!(mermaid.status, 0, "{}", mermaid.stderr);
    // Each node but _default has one parent.
    let nodes = dot_labels(&dot.stdout).len();
    let edges = dot.stdout.lines().filter(|l| l.contains(" -> ")).count();
    assert_eq!(edges, nodes - 1);
    assert_eq!(mermaid.stdout.matches(" -->|").count(), edges);
    for fqdn in example_hosts() {
        assert!(
            mermaid.stdout.contains(&fqdn),
            "{fqdn} not in the Mermaid chart"
        );
    }
    for _ in 0..2 {
        assert_eq!(beryl(&repo(), &args(&["graph"])).stdout, dot.stdout);
    }
    insta::assert_snapshot!("graph_dot", dot.stdout);
    insta::assert_snapshot!("graph_mermaid", mermaid.stdout);
}

/// The path to a host is its chain: the files `render` lists in `_beryl_`.
#[test]
fn a_host_argument_draws_its_chain() {
    for fqdn in example_hosts() {
        let run = beryl(&repo(), &args(&["graph", &fqdn]));
        assert_eq!(run.status, 0, "{}", run.stderr);
        let files: Vec<String> = dot_labels(&run.stdout)
            .into_iter()
            .map(|l| l.last().unwrap().clone())
            .collect();
        let render = beryl(&repo(), &args(&["render", &fqdn, "--format", "json"]));
        let config: serde_json::Value = serde_json::from_str(&render.stdout).unwrap();
        let chain: Vec<String> = config["_beryl_"]["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_string())
            .collect();
        assert_eq!(files, chain, "{fqdn}");
        let edges: Vec<&str> = run.stdout.lines().filter(|l| l.contains(" -> ")).collect();
        assert_eq!(edges.len(), chain.len() - 1, "{fqdn}");
        assert!(edges.last().unwrap().ends_with("[label=\"host\"];"));
    }
    // Several hosts: the union of their chains, each level once.
    let run = beryl(&repo(), &args(&["graph", "host01", "host02", "mail"]));
    let labels = dot_labels(&run.stdout);
    assert_eq!(labels.len(), 6, "{}", run.stdout);
    assert!(!run.stdout.contains("example.net"), "{}", run.stdout);
    // An unknown host is an error, with suggestions.
    let bad = beryl(&repo(), &args(&["graph", "host1"]));
    assert_eq!(bad.status, 2);
    assert!(
        bad.stderr.contains("unknown host `host1`"),
        "{}",
        bad.stderr
    );
}

#[test]
fn a_group_without_its_file_is_drawn_dashed() {
    let tmp = example();
    std::fs::remove_file(tmp.path().join("inventory/example.org/web/_group.yml")).unwrap();
    let run = beryl(tmp.path(), &args(&["graph", "host01"]));
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(
            "\"group:example.org/web\" [label=\"example.org/web/ (no _group.yml)\", fillcolor=\"#ffffff\", style=\"rounded,dashed\"];"
        ),
        "{}",
        run.stdout
    );
}

/// docs/graph.svg (drawn by `just graph`) shows every host of the example
/// inventory: adding a host means redrawing it.
#[test]
fn the_committed_svg_is_current() {
    let svg = std::fs::read_to_string(repo().join("docs/graph.svg")).unwrap();
    for fqdn in example_hosts() {
        assert!(
            svg.contains(&fqdn),
            "docs/graph.svg lacks {fqdn}: run `just graph`"
        );
    }
}
