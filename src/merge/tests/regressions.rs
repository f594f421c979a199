//! Regressions found by the merge properties (`props`) and the fuzz targets
//! (fuzz/, docs/fuzzing.md), each with the input that found it.

use super::*;

/// Found by `merging_a_value_with_itself_is_a_no_op`: a constant repeated
/// with the same value at a higher level is allowed, but when the merge
/// changes the written value (a `~` key inside it, or a list that `append`
/// deduplicates), the repeat was compared with the merged value and refused.
#[test]
fn a_repeated_constant_holds_even_when_the_merge_rewrites_it() {
    for (spec, doc, want) in [
        ("append", r#"{"=b":{"~a":null}}"#, r#"{"b":{"a":null}}"#),
        ("append", r#"{"=b":["x","x"]}"#, r#"{"b":["x"]}"#),
        ("default", r#"{"=b":{"~a":1}}"#, r#"{"b":{"a":1}}"#),
        ("deep", r#"{"=b":{"c":[1,1]}}"#, r#"{"b":{"c":[1,1]}}"#),
    ] {
        assert_eq!(with(spec, &[doc]), want, "{spec} {doc} once");
        assert_eq!(with(spec, &[doc, doc]), want, "{spec} {doc} twice");
        assert_eq!(
            with(spec, &[doc, "{}", doc]),
            want,
            "{spec} {doc} twice apart"
        );
    }
    // A different value is still refused.
    assert_eq!(
        with("append", &[r#"{"=b":["x","x"]}"#, r#"{"=b":["x"]}"#]),
        "error: `b` is a constant and cannot be changed"
    );
}

/// Found by `an_empty_document_is_an_identity_at_the_root`: under `deep` with
/// a knockout prefix, a list was deduplicated before the markers nested in
/// its items were cleaned, so two items that became equal (`{a: --}` is `{}`
/// once its marker key is deleted) both stayed: the "union" held an item
/// twice, and merging the result again changed it.
#[test]
fn a_deep_union_holds_no_item_twice_once_markers_are_cleaned() {
    let ko = r#"{"strategy":"deep","knockout_prefix":"--"}"#;
    let doc = r#"{"a":[{"a":"--"},{}]}"#;
    assert_eq!(with(ko, &["{}", doc]), r#"{"a":[{}]}"#);
    assert_eq!(with(ko, &[r#"{"a":[{}]}"#, doc]), r#"{"a":[{}]}"#);
    // Copied from one level, a list is left as written (as the gem leaves it).
    assert_eq!(with(ko, &[doc]), r#"{"a":[{},{}]}"#);
    let sorted = r#"{"strategy":"deep","knockout_prefix":"--","sort_merged_arrays":true}"#;
    assert_eq!(
        with(sorted, &["{}", r#"{"a":[{"a":"-"},{"a":"--z"}]}"#]),
        r#"{"a":[{"a":""},{"a":"-"}]}"#,
        "sorted once cleaned"
    );
}
