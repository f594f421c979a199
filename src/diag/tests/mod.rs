//! The tests of diagnostics, and the catalogue of codes (catalogue.rs).

mod catalogue;

use super::*;
use crate::value::Source;

#[test]
fn labels_in_other_files_become_related_notes() {
    let a = Source::new("a.yml", "x: 1\n");
    let b = Source::new("b.yml", "x: 2\n");
    let sa = Span {
        source: Some(a),
        offset: 3,
        len: 1,
        line: 1,
        col: 4,
    };
    let sb = Span {
        source: Some(b),
        offset: 3,
        len: 1,
        line: 1,
        col: 4,
    };
    let d = Diag::new(TestCode("beryl::test"), "boom")
        .label(&sa, "here")
        .label(&sb, "and there");
    assert_eq!(d.labels.len(), 1);
    assert_eq!(d.related().len(), 1);
    assert_eq!(d.span().unwrap().to_string(), "a.yml:1:4");
    let report = Report::new(&d);
    let related: Vec<String> = miette::Diagnostic::related(&report)
        .unwrap()
        .map(|r| r.to_string())
        .collect();
    assert_eq!(related, ["and there (b.yml:1:4)"]);
}

#[test]
fn list_positions_do_not_tell_errors_apart() {
    let at = |m: &str| Diag::new(TestCode("beryl::test"), m).dedup_key();
    assert_eq!(at("invalid a.b.3: x"), at("invalid a.b.2: x"));
    assert_eq!(at("`a.b.12.c` is x"), at("`a.b.0.c` is x"));
    assert_eq!(
        without_indexes("a.12.0.b, \"x\".3: v.4 ."),
        "a...b, \"x\".: v. ."
    );
    // Not a position: a fraction, an address, a name that goes on.
    for text in [
        "15.0 and 14.3",
        "10.0.0.1",
        "host.3com",
        "a.1x",
        "a.1_",
        "é.1é",
    ] {
        assert_eq!(without_indexes(text), text);
    }
    assert_ne!(at("invalid a.b.3: x"), at("invalid a.c.3: x"));
    assert_ne!(at("release 15.0"), at("release 15.1"));
}
