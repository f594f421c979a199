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
    assert_eq!(at("invalid a.b[3]: x"), at("invalid a.b[2]: x"));
    assert_eq!(without_indexes("a[12][0].b [x] [] ["), "a[][].b [x] [] [");
    assert_ne!(at("invalid a.b[3]: x"), at("invalid a.c[3]: x"));
}
