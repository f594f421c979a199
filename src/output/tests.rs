//! Render → parse round trips (issue 8): any tree beryl can hold, written as
//! YAML or JSON by [`to_string`], reads back through beryl's own loader as
//! the same tree, key order included. The strings and keys are the ones a
//! YAML writer gets wrong: YAML 1.1 booleans, numbers in every base,
//! indicators, blanks at the ends, line breaks, control and non-ASCII
//! characters, plus arbitrary text.

use proptest::prelude::*;

use super::{Format, join, mapping, part, to_string};
use crate::value::{Entry, Map, Node, Source, Span, Value};

/// Cases per format.
const CASES: u32 = 1000;

const TRICKY: &[&str] = &[
    "",
    " ",
    "yes",
    "No",
    "ON",
    "off",
    "y",
    "n",
    "true",
    "True",
    "FALSE",
    "null",
    "Null",
    "NULL",
    "~",
    "0644",
    "0x1F",
    "0o17",
    "0b11",
    "1_000",
    "1e3",
    "1E-3",
    "-1",
    "+1",
    "-0",
    ".5",
    "5.",
    ".inf",
    "-.Inf",
    ".NaN",
    "1.0",
    "12:30:00",
    "2001-12-14",
    "- a",
    "a: b",
    "a:b",
    "#c",
    "a #b",
    " lead",
    "trail ",
    "\t",
    "a\tb",
    "a\nb",
    "a\n",
    "\n",
    "multi\nline\n\n",
    "\r",
    "a\rb",
    "a\r\nb",
    "'",
    "\"",
    "\\",
    "\\n",
    "\u{feff}x",
    "\u{85}",
    "\u{2028}",
    "\u{a0}",
    "é",
    "🦀",
    "[a]",
    "{a}",
    "*a",
    "&a",
    "!tag",
    "!!str",
    "%x",
    "@x",
    "`x",
    "|",
    ">",
    "---",
    "...",
    "-",
    "?",
    "? a",
    ":",
    "::",
    ",",
    "a,b",
    "=",
    "<<",
    "\u{7}",
    "\u{7f}",
    "\u{1b}[0m",
    "${x}",
    "\\${x}",
];

fn string() -> BoxedStrategy<String> {
    prop_oneof![
        4 => prop::sample::select(TRICKY).prop_map(str::to_string),
        1 => any::<String>(),
        1 => "[ -~\n\t]{0,12}",
    ]
    .boxed()
}

/// Finite floats only: the loader refuses `.inf` and `.nan`
/// (`the_loader_refuses_non_finite_floats`), so no tree holds one.
fn float() -> BoxedStrategy<f64> {
    prop_oneof![
        prop::sample::select(vec![
            0.0,
            -0.0,
            0.5,
            1.0,
            -2.5,
            1e300,
            -1e-300,
            3.0e10,
            123456789.125,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::EPSILON,
        ]),
        any::<f64>().prop_filter("finite", |f| f.is_finite()),
    ]
    .boxed()
}

fn leaf() -> BoxedStrategy<Value> {
    prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        2 => prop_oneof![Just(i64::MIN), Just(i64::MAX), Just(0), any::<i64>()].prop_map(Value::Int),
        2 => float().prop_map(Value::Float),
        6 => string().prop_map(Value::Str),
    ]
    .boxed()
}

fn node(v: Value) -> Node {
    Node::new(v, Span::synthetic())
}

fn tree() -> BoxedStrategy<Node> {
    leaf()
        .prop_map(node)
        .prop_recursive(4, 48, 5, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(|v| node(Value::Seq(v))),
                prop::collection::vec((string(), inner), 0..5).prop_map(|pairs| {
                    let mut m = Map::new();
                    for (k, n) in pairs {
                        m.entry(k).or_insert(Entry {
                            key_span: Span::synthetic(),
                            node: n,
                        });
                    }
                    node(Value::Map(m))
                }),
            ]
        })
        .boxed()
}

fn round_trip(n: &Node, format: Format) -> Result<(), TestCaseError> {
    let text = to_string(n, format).map_err(|d| TestCaseError::fail(d.message))?;
    let back = crate::yaml::parse_any(&Source::new("out", text.clone()), &Default::default())
        .map_err(|d| {
            TestCaseError::fail(format!(
                "{format:?} does not read back: {}\n{text}",
                d.message
            ))
        })?;
    prop_assert!(
        n.value.same_ordered(&back.value),
        "{:?} reads back otherwise:\n{}\nwrote {:?}\nread  {:?}",
        format,
        text,
        serde_json::to_string(n).ok(),
        serde_json::to_string(&back).ok()
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn yaml_reads_back_as_written(n in tree()) {
        round_trip(&n, Format::Yaml)?;
    }

    #[test]
    fn json_reads_back_as_written(n in tree()) {
        round_trip(&n, Format::Json)?;
    }

    /// A fleet render serialises each host alone (`part`) and joins the
    /// parts: the text must be the whole mapping's, in both formats, for
    /// any configs (empty ones, scalars, none at all).
    #[test]
    fn joined_parts_are_the_whole_mapping(hosts in prop::collection::vec(tree(), 0..4)) {
        let named: Vec<(String, Node)> = (hosts.into_iter().enumerate())
            .map(|(i, n)| (format!("host{i}.example.org"), n))
            .collect();
        for format in [Format::Yaml, Format::Json] {
            let whole = to_string(&mapping(named.clone()), format)
                .map_err(|d| TestCaseError::fail(d.message))?;
            let parts: Vec<String> = named
                .iter()
                .map(|(k, n)| part(Some(k), n.clone(), None, format))
                .collect::<Result<_, _>>()
                .map_err(|d| TestCaseError::fail(d.message))?;
            prop_assert_eq!(join(&parts, format).collect::<String>(), whole);
        }
    }
}

#[test]
fn the_loader_refuses_non_finite_floats() {
    for text in ["[.inf]", "[-.inf]", "[.nan]", "[.NaN]"] {
        let r = crate::yaml::parse_any(&Source::new("t", text), &Default::default());
        assert!(r.is_err(), "{text} loaded");
    }
}
