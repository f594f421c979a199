//! `beryl render --annotate` on every host of the bundled example inventory:
//! the comments strip to the plain render byte for byte, the annotated text
//! reads back as the same YAML, every scalar and list item carries a comment,
//! and each `file:line` names a line of that file that holds the value.

use std::fs;

use beryl::value::{Node, Source, Value};
use beryl::yaml::{Limits, parse_any};
use regex::Regex;

use crate::support::{args, beryl, example_hosts, repo};

/// A comment as `--annotate` writes them, at the end of a line.
fn comment() -> Regex {
    Regex::new(
        r"^(?P<line>.*)  # (?P<note>computed|injected: (?P<inj>\S+:\d+)|(?P<at>\S+):(?P<n>\d+)|.+ at \S+:\d+ ← .+)$",
    )
    .unwrap()
}

fn parse(name: &str, text: &str) -> Node {
    parse_any(&Source::new(name, text), &Limits::default())
        .unwrap_or_else(|e| panic!("{name} does not parse: {}\n{text}", e.message))
}

/// The 1-based line of every scalar (block scalars: their header) and of
/// every list item.
fn value_lines(node: &Node, lines: &[&str], out: &mut Vec<(u32, String)>) {
    match &node.value {
        Value::Map(m) if !m.is_empty() => {
            for e in m.values() {
                value_lines(&e.node, lines, out);
            }
        }
        Value::Seq(items) if !items.is_empty() => {
            for item in items {
                out.push((item.span.line, "a list item".into()));
                value_lines(item, lines, out);
            }
        }
        Value::Str(s) if s.contains('\n') => {
            // The span is the content; the header is the nearest line above
            // that ends with a block indicator (before its comment).
            let header = (1..=node.span.line)
                .rev()
                .find(|&l| {
                    let text = lines[l as usize - 1];
                    let text = text.split("  # ").next().unwrap_or(text);
                    text.trim_end().ends_with(['|', '-', '+'])
                })
                .unwrap_or(node.span.line);
            out.push((header, format!("{s:?}")));
        }
        v => out.push((node.span.line, format!("{v:?}"))),
    }
}

#[test]
fn annotate_strips_to_the_plain_render_for_every_example_host() {
    let re = comment();
    let hosts = example_hosts();
    assert!(hosts.len() >= 6, "{hosts:?}");
    for host in &hosts {
        let plain = beryl(&repo(), &args(&["render", host]));
        assert_eq!(plain.status, 0, "{host}: {}", plain.stderr);
        let annotated = beryl(&repo(), &args(&["render", host, "--annotate"]));
        assert_eq!(annotated.status, 0, "{host}: {}", annotated.stderr);
        assert!(annotated.stderr.is_empty(), "{host}: {}", annotated.stderr);
        let text = &annotated.stdout;

        // Stripped of its comments, the text is the plain render.
        let stripped: String = text
            .split_inclusive('\n')
            .map(|l| {
                let (body, nl) = l.strip_suffix('\n').map_or((l, ""), |b| (b, "\n"));
                let body = re
                    .captures(body)
                    .map_or(body, |c| c.name("line").unwrap().as_str());
                format!("{body}{nl}")
            })
            .collect();
        assert_eq!(stripped, plain.stdout, "{host}: stripped --annotate output");

        // It reads back as YAML, and as the same data.
        let parsed = parse("annotated", text);
        let again = parse("plain", &plain.stdout);
        assert!(parsed.value.same(&again.value), "{host}: the data differ");

        // Every scalar and list item has a comment on its line.
        let lines: Vec<&str> = text.lines().collect();
        let mut wanted = Vec::new();
        value_lines(&parsed, &lines, &mut wanted);
        assert!(wanted.len() > 50, "{host}: only {} values", wanted.len());
        for (line, what) in &wanted {
            let l = lines[*line as usize - 1];
            assert!(
                re.is_match(l),
                "{host}: line {line} ({what}) has no annotation: {l:?}"
            );
        }
    }
}

/// The value written on a rendered line: after the dashes and the key,
/// without the quotes the render added.
fn value_of(line: &str) -> &str {
    let mut v = line.trim_start();
    while let Some(rest) = v.strip_prefix("- ") {
        v = rest;
    }
    if !v.starts_with('"')
        && let Some((_, rest)) = v.split_once(": ")
    {
        v = rest;
    }
    v.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(v)
}

#[test]
fn annotate_points_at_lines_that_hold_the_value() {
    let re = comment();
    let mut checked = 0;
    for host in example_hosts() {
        let run = beryl(&repo(), &args(&["render", &host, "--annotate"]));
        assert_eq!(run.status, 0, "{host}: {}", run.stderr);
        for line in run.stdout.lines() {
            let Some(c) = re.captures(line) else {
                continue;
            };
            let (Some(file), Some(n)) = (c.name("at"), c.name("n")) else {
                continue;
            };
            let value = value_of(c.name("line").unwrap().as_str());
            // Keys are named in the YAML by file name, not pasted.
            if value.starts_with("ssh-") || value.starts_with("ecdsa-") || value.contains('\\') {
                continue;
            }
            let source = fs::read_to_string(repo().join(file.as_str()))
                .unwrap_or_else(|e| panic!("{host}: {line}: {e}"));
            let n: usize = n.as_str().parse().unwrap();
            let at = source.lines().nth(n - 1).unwrap_or_default();
            assert!(
                at.contains(value),
                "{host}: {line}\n  but {}:{n} is {at:?}",
                file.as_str()
            );
            checked += 1;
        }
    }
    assert!(checked > 200, "only {checked} values checked");
}
