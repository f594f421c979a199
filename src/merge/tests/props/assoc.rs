//! Associativity of folding: `(a∘b)∘c == a∘(b∘c) == fold(a, b, c)`, where
//! `x∘y` merges two documents (`y` the higher) and `fold` merges the three at
//! once.
//!
//! Where the law does not hold, the generator leaves the cause out; each
//! exclusion has its counterexample here and in docs/merge.md, "Algebra":
//!
//! - **`~` and `=` keys** (every strategy). A merge consumes the prefix, so
//!   `b∘c` no longer tells `a` to give way: with `a = {k: {x: 1}}`,
//!   `b = {~k: {y: 1}}`, `c = {}`, the left side is `{k: {y: 1}}` and the
//!   right side `{k: {x: 1, y: 1}}`. reclass behaves the same.
//! - **A change of kind between two values that merge** (a mapping, or for
//!   `deep`, `append` and `concat` a list, then a value of another kind, then
//!   a mapping or list again, at one path). The middle value replaces the
//!   lower one on the left, but on the right it is itself replaced first:
//!   `{k: {x: 1}}`, `{k: 5}`, `{k: {y: 1}}` gives `{k: {y: 1}}` on the left
//!   and `{k: {x: 1, y: 1}}` on the right. `deep` skips the middle value
//!   (Hiera folds from the top), so its three-way fold equals the right side.
//!   Nulls do not count for `deep`: a higher null keeps the lower value.
//!   With `merge_hash_arrays`, a list of mappings merges by index but any
//!   other list by union, so the two are kinds of their own (and the
//!   elements of lists of mappings are paths): `[{}]`, `[{a: 1}]`,
//!   `[{}, null]` gives `[{a: 1}, {}, null]` on the left and
//!   `[{}, {a: 1}, null]` on the right.
//! - **Duplicates in `deep` lists** (and unsorted lists, with
//!   `sort_merged_arrays`). As in the gem, a list merged with nothing is
//!   copied as written, but one whose level below lacks the key is merged
//!   with itself, deduplicated and sorted; which of the two happens depends
//!   on the grouping: `{}`, `{k: 0}`, `{k: [1, 1]}` gives `{k: [1, 1]}` on
//!   the left and `{k: [1]}` on the right. The generator's lists are
//!   deduplicated (and sorted) first.
//! - **`false` between two `deep` values.** The gem takes `false` for a
//!   value when it is the highest, but for an absent key below a mapping,
//!   and an empty mapping overwrites nothing (a lower value shows through):
//!   `{k: []}`, `{k: false}`, `{k: {}}` gives `{k: {}}` on the left and
//!   `{k: []}` on the right.
//! - **Knockout markers** (`deep` with `knockout_prefix`, `append`). A marker
//!   does its work in the first merge it takes part in and is dropped, so in
//!   `b∘c` it never meets `a`: `[x]`, `[]`, `[--x]` gives `[]` on the left
//!   and `[x]` on the right.
//! - **Nulls in `patch`** (the two higher documents). In RFC 7396 a null in
//!   a patch deletes, but in the target it is data, and `b∘c` makes `b` a
//!   target: `a = {k: {y: 1}}`, `b = {k: null}`, `c = {k: {x: 1}}` gives
//!   `{k: {x: 1}}` on the left and `{k: {y: 1, x: 1}}` on the right. The
//!   RFC's own composition of patches is not a merge patch either.

use proptest::prelude::*;
use serde_json::Value as J;

use super::docs::{self, Shape};
use super::{Policy, Spec, Strategy, fold, fold_json, spec, text};

/// Cases per strategy; each case checks three folds.
const CASES: u32 = 512;

/// Whether a value merges with others of its kind under `kind` (rather than
/// being replaced): its kind, if so.
fn merging(kind: Strategy, v: &J) -> Option<u8> {
    match v {
        J::Object(_) => Some(0),
        J::Array(_) if matches!(kind, Strategy::Deep | Strategy::Append | Strategy::Concat) => {
            Some(1)
        }
        _ => None,
    }
}

fn kind_of(v: &J) -> u8 {
    match v {
        J::Object(_) => 0,
        J::Array(_) => 1,
        _ => 2,
    }
}

fn list_of_maps(v: &J) -> bool {
    v.as_array()
        .is_some_and(|items| items.iter().all(J::is_object))
}

/// Whether, at some path, a value of another kind stands between two values
/// that merge (levels lowest first; `None`: the level lacks the path). With
/// `by_index` (`merge_hash_arrays`), lists of mappings merge element by
/// element, so their elements are paths too, and a list of mappings meeting
/// another list counts as a change of kind.
fn has_cut(s: &Spec, values: &[Option<&J>]) -> bool {
    let kind = s.kind;
    let written: Vec<&J> = values
        .iter()
        .flatten()
        .copied()
        .filter(|v| !(kind == Strategy::Deep && v.is_null()))
        .collect();
    // `deep`: a false between two values (see the module docs), a null
    // above it counting as one: below a mapping the false is absent, so the
    // null takes its place (the gem: `{a: false}` then `{a: nil}` gives
    // `{a: nil}`), where `b∘c` keeps the null as no value at all.
    let given: Vec<&J> = values.iter().flatten().copied().collect();
    if kind == Strategy::Deep
        && given.len() > 2
        && given[1..given.len() - 1].contains(&&J::Bool(false))
    {
        return true;
    }
    for (i, low) in written.iter().enumerate() {
        let Some(m) = merging(kind, low) else {
            continue;
        };
        let later = &written[i + 1..];
        if let Some(j) = later.iter().position(|v| kind_of(v) != m)
            && later[j + 1..].iter().any(|v| merging(kind, v) == Some(m))
        {
            return true;
        }
    }
    let lists: Vec<&J> = written.iter().copied().filter(|v| v.is_array()).collect();
    if s.merge_hash_arrays && !lists.is_empty() {
        let maps = lists.iter().filter(|v| list_of_maps(v)).count();
        if maps != 0 && maps != lists.len() {
            return true;
        }
        let longest = lists
            .iter()
            .filter_map(|v| v.as_array())
            .map(Vec::len)
            .max();
        if maps == lists.len()
            && (0..longest.unwrap_or(0)).any(|i| {
                let column: Vec<Option<&J>> = values
                    .iter()
                    .map(|v| v.and_then(J::as_array).and_then(|items| items.get(i)))
                    .collect();
                has_cut(s, &column)
            })
        {
            return true;
        }
    }
    let mut keys: Vec<&String> = Vec::new();
    for v in values.iter().flatten() {
        if let J::Object(m) = v {
            keys.extend(m.keys().filter(|k| !keys.contains(k)).collect::<Vec<_>>());
        }
    }
    keys.into_iter().any(|k| {
        let children: Vec<Option<&J>> = values
            .iter()
            .map(|v| v.and_then(|v| v.as_object()).and_then(|m| m.get(k)))
            .collect();
        has_cut(s, &children)
    })
}

/// Checks the law for one strategy at the root.
fn check(s: &Spec, a: &J, b: &J, c: &J) -> Result<(), TestCaseError> {
    prop_assume!(!has_cut(s, &[Some(a), Some(b), Some(c)]));
    let p = Policy::default();
    let root = Some(s);
    let ab = fold_json(&[a, b], &p, root).map_err(TestCaseError::fail)?;
    let bc = fold_json(&[b, c], &p, root).map_err(TestCaseError::fail)?;
    let c_node = super::node(c, "c.json");
    let a_node = super::node(a, "a.json");
    let left = text(&fold(&[&ab, &c_node], &p, root));
    let right = text(&fold(&[&a_node, &bc], &p, root));
    let flat = text(&fold_json(&[a, b, c], &p, root));
    prop_assert_eq!(&left, &right, "{}: (a∘b)∘c vs a∘(b∘c)", s);
    prop_assert_eq!(&flat, &left, "{}: fold(a, b, c) vs (a∘b)∘c", s);
    Ok(())
}

/// Three levels without `~`/`=` keys or markers; nulls as given.
fn triple(low: Shape, high: Shape) -> impl proptest::strategy::Strategy<Value = (J, J, J)> {
    (docs::doc(low), docs::doc(high), docs::doc(high))
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: CASES,
        max_global_rejects: 20 * CASES,
        ..ProptestConfig::default()
    })]

    /// `default`: nulls in.
    #[test]
    fn default_folds_associatively((a, b, c) in triple(Shape::NULLS, Shape::NULLS)) {
        check(&spec(Strategy::Default, None, false, false), &a, &b, &c)?;
    }

    /// `append` (no markers; with and without the knockout prefix) and
    /// `concat`: nulls in.
    #[test]
    fn append_and_concat_fold_associatively((a, b, c) in triple(Shape::NULLS, Shape::NULLS)) {
        check(&spec(Strategy::Append, None, false, false), &a, &b, &c)?;
        check(&spec(Strategy::Append, Some(None), false, false), &a, &b, &c)?;
        check(&spec(Strategy::Concat, None, false, false), &a, &b, &c)?;
    }

    /// `deep`, and with `merge_hash_arrays` and `sort_merged_arrays`: nulls
    /// in, lists without duplicates (and sorted, for `sort_merged_arrays`).
    #[test]
    fn deep_folds_associatively((a, b, c) in triple(Shape::NULLS, Shape::NULLS)) {
        let n = |v: &J, sort| docs::normal(v, sort);
        check(&spec(Strategy::Deep, None, false, false), &n(&a, false), &n(&b, false), &n(&c, false))?;
        check(&spec(Strategy::Deep, None, true, false), &n(&a, false), &n(&b, false), &n(&c, false))?;
        check(&spec(Strategy::Deep, None, false, true), &n(&a, true), &n(&b, true), &n(&c, true))?;
    }

    /// `patch`: nulls in the lowest document (the target) only.
    #[test]
    fn patch_folds_associatively((a, b, c) in triple(Shape::NULLS, Shape::PLAIN)) {
        check(&spec(Strategy::Patch, None, false, false), &a, &b, &c)?;
    }
}
