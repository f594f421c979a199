//! Identity, idempotence, and the host's scalar under `default`.

use proptest::prelude::*;
use proptest::strategy::Strategy as _;
use serde_json::{Value as J, json};

use super::docs::{self, Shape};
use super::{Policy, Strategy, every_spec, fold, fold_json, rule_at_k, spec, text};

/// Cases per property: each case runs every strategy, so this is 512 × 16
/// merges for identity.
const CASES: u32 = 512;

/// A level that sets `k` (to any value, or to a list of `by_key` items), and
/// a few other keys.
fn level_with_k(s: Shape) -> impl proptest::strategy::Strategy<Value = J> {
    let k = prop_oneof![2 => docs::value(s), 1 => docs::items(s)];
    (docs::doc(s), k).prop_map(|(mut doc, k)| {
        if let J::Object(m) = &mut doc {
            m.retain(|key, _| crate::syntax::prefix::split(key).0 != "k");
            m.insert("k".into(), k);
        }
        doc
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    /// Identity, in an inventory's terms: with any strategy at `k` (a rule
    /// of the table), an empty level above or below changes nothing. The
    /// documents hold everything the generator has: nulls, knockout markers,
    /// `~` and `=` keys, lists of items.
    ///
    /// Two exceptions below, each the peer's own rule (docs/merge.md,
    /// "Algebra"):
    /// - `deep`: a level below that lacks a key makes the value merge with
    ///   itself (the deep_merge gem does), which deduplicates (and with
    ///   `sort_merged_arrays` sorts) its lists and empties strings that start
    ///   with the knockout prefix: `[{}, {k: [1, 1]}]` gives `{k: [1]}` where
    ///   `[{k: [1, 1]}]` gives `{k: [1, 1]}`. So under `deep` the empty level
    ///   below is an identity on values merged so once (without `~`/`=`
    ///   keys, which reset the levels below and so copy instead).
    /// - `patch`: over an empty level, the value is a patch onto nothing, so
    ///   its null members delete (RFC 7396; a target's nulls are data):
    ///   `[{}, {k: {a: null}}]` gives `{k: {}}`. The result is the value
    ///   without its null members, or, when a null member is a constant
    ///   (`=a: null`), the error that the constant was removed.
    #[test]
    fn an_empty_level_is_an_identity_under_every_strategy(v in level_with_k(Shape::ALL)) {
        let empty = json!({});
        for s in every_spec() {
            let p = rule_at_k(&s);
            let one = text(&fold_json(&[&v], &p, None));
            let above = text(&fold_json(&[&v, &empty], &p, None));
            prop_assert_eq!(&above, &one, "{} with an empty level above", s);
            match s.kind {
                Strategy::Deep => {
                    let Ok(once) = fold_json(&[&empty, &docs::plain_keys(&v)], &p, None) else {
                        continue;
                    };
                    let again = text(&fold(&[&super::node(&empty, "e"), &once], &p, None));
                    prop_assert_eq!(again, text(&Ok(once)), "{} below, merged once", s);
                }
                Strategy::Patch if docs::null_constant(&json!({"k": v["k"]})) => {
                    let below = text(&fold_json(&[&empty, &v], &p, None));
                    prop_assert_eq!(below, "error beryl::merge::constant", "{} below", s);
                }
                Strategy::Patch => {
                    let mut stripped = v.clone();
                    match docs::without_null_members(&v["k"]) {
                        Some(k) => stripped["k"] = k,
                        None => { stripped.as_object_mut().map(|m| m.remove("k")); }
                    }
                    let want = text(&fold_json(&[&stripped], &p, None));
                    prop_assert_eq!(text(&fold_json(&[&empty, &v], &p, None)), want, "{} below", s);
                }
                _ => {
                    let below = text(&fold_json(&[&empty, &v], &p, None));
                    prop_assert_eq!(below, one, "{} with an empty level below", s);
                }
            }
        }
    }

    /// Identity at the root (`beryl merge --strategy S`): an empty mapping
    /// above or below a mapping changes nothing, for every strategy, with the
    /// root's own exceptions:
    /// - `first` takes the highest value whole, `{}` included: `{}` is only
    ///   a left identity (`[{a: 1}, {}]` gives `{}`, as Hiera's `first`);
    /// - `unique` refuses mappings (Hiera's "unique merge cannot merge hash
    ///   values"); its identity is the empty list, checked on lists;
    /// - `deep` and `patch` below, as above.
    #[test]
    fn an_empty_document_is_an_identity_at_the_root(
        v in docs::doc(Shape::ALL),
        list in prop::collection::vec(docs::value(Shape::ALL), 0..5),
    ) {
        let p = Policy::default();
        let (empty, nothing, list) = (json!({}), json!([]), J::Array(list));
        for s in every_spec() {
            let (v, e) = if s.kind == Strategy::Unique { (&list, &nothing) } else { (&v, &empty) };
            let one = text(&fold_json(&[v], &p, Some(&s)));
            if s.kind != Strategy::First {
                prop_assert_eq!(text(&fold_json(&[v, e], &p, Some(&s))), one.clone(), "{} above", s);
            }
            let below = text(&fold_json(&[e, v], &p, Some(&s)));
            match s.kind {
                Strategy::Deep => {
                    let Ok(once) = fold_json(&[e, &docs::plain_keys(v)], &p, Some(&s)) else {
                        continue;
                    };
                    let again = text(&fold(&[&super::node(e, "e"), &once], &p, Some(&s)));
                    prop_assert_eq!(again, text(&Ok(once)), "{} below, merged once", s);
                }
                Strategy::Patch if docs::null_constant(v) => {
                    prop_assert_eq!(below, "error beryl::merge::constant", "{} below", s);
                }
                Strategy::Patch => {
                    let want = docs::without_null_members(v).expect("a mapping");
                    prop_assert_eq!(below, text(&fold_json(&[&want], &p, Some(&s))), "{} below", s);
                }
                _ => prop_assert_eq!(below, one, "{} below", s),
            }
        }
    }

    /// Idempotence of `unique` (on lists: it refuses mappings) and `append`:
    /// a merged value `m` merged with itself is itself. Markers, nulls and
    /// `~`/`=` keys are all in.
    ///
    /// Merging any value with itself also gives what it merges to alone,
    /// with one exception in `append`: a list that knocks out its own item
    /// (`[a, b, --a]`) keeps it, but merged with itself its marker removes
    /// the lower copy, so the item moves to its own place: `[a, b]` alone,
    /// `[b, a]` with itself. So that claim is checked without markers, or
    /// with `knockout_prefix: null`.
    #[test]
    fn unique_and_append_are_idempotent(
        v in docs::doc(Shape::ALL),
        list in prop::collection::vec(docs::value(Shape::ALL), 0..5),
    ) {
        let p = Policy::default();
        let list = J::Array(list);
        let specs = [
            spec(Strategy::Unique, None, false, false),
            spec(Strategy::Unique, None, false, true),
            spec(Strategy::Append, None, false, false),
            spec(Strategy::Append, Some(None), false, false),
        ];
        for s in specs {
            let v = if s.kind == Strategy::Unique { &list } else { &v };
            let twice = fold_json(&[v, v], &p, Some(&s));
            if !(s.knockout_prefix.is_some() && docs::has_marker(v)) {
                prop_assert_eq!(text(&twice), text(&fold_json(&[v], &p, Some(&s))), "{} on v, v", s);
            }
            let Ok(m) = twice else { continue };
            prop_assert_eq!(text(&fold(&[&m, &m], &p, Some(&s))), text(&Ok(m.clone())), "{} on m, m", s);
        }
    }

    /// Idempotence of `deep` (with each option): a value merged with itself
    /// is itself, for values in the form a deep merge leaves them: lists
    /// without duplicates (sorted, for `sort_merged_arrays`), and no knockout
    /// markers or `~`/`=` keys (a merge consumes them). Nulls are in.
    ///
    /// Why the form: as in the gem, a value taken from one level is copied,
    /// duplicates and order kept, while a value merged with itself is
    /// deduplicated and sorted (`[0, null]` with itself, sorted, is
    /// `[null, 0]`). Even a merged result may hold such copies, where a
    /// marker emptied the lower list (`[--, {a: [b, null]}]` with itself
    /// keeps `[b, null]` unsorted), so results are not fixpoints either.
    #[test]
    fn deep_is_idempotent(v in docs::doc(Shape::NULLS)) {
        let p = Policy::default();
        let specs = [
            spec(Strategy::Deep, None, false, false),
            spec(Strategy::Deep, Some(Some("--")), false, false),
            spec(Strategy::Deep, None, true, false),
            spec(Strategy::Deep, None, false, true),
            spec(Strategy::Deep, Some(Some("--")), true, true),
        ];
        for s in specs {
            let n = docs::normal(&v, s.sort_merged_arrays);
            let twice = text(&fold_json(&[&n, &n], &p, Some(&s)));
            prop_assert_eq!(twice, serde_json::to_string(&n).expect("json"), "{} on n, n", s);
        }
    }

    /// Under `default`, every scalar the host level writes (at any path of
    /// mappings) is the result there, whatever the lower levels hold: other
    /// types, lists, nulls, knockout markers, `~` keys. Constants (`=`) are
    /// left out: a host that changes a lower constant is an error by design.
    #[test]
    fn a_host_scalar_always_wins_under_default(
        lower in prop::collection::vec(docs::doc(Shape { constants: false, ..Shape::ALL }), 0..4),
        host in docs::doc(Shape { constants: false, ..Shape::ALL }),
    ) {
        let mut levels: Vec<&J> = lower.iter().collect();
        levels.push(&host);
        let merged = fold_json(&levels, &crate::merge::Policy::beryl(), None);
        let merged = serde_json::to_value(merged.expect("default merges anything")).expect("json");
        let mut scalars = Vec::new();
        scalar_paths(&host, &mut Vec::new(), &mut scalars);
        for (path, want) in scalars {
            let got = path.iter().try_fold(&merged, |n, k| n.get(k));
            prop_assert_eq!(got, Some(&want), "at {:?}", path);
        }
    }
}

/// Every scalar of a document under mappings only, with its path (key
/// prefixes stripped: `~a` sets `a`).
fn scalar_paths(v: &J, at: &mut Vec<String>, out: &mut Vec<(Vec<String>, J)>) {
    match v {
        J::Object(m) => {
            for (k, child) in m {
                at.push(crate::syntax::prefix::split(k).0.to_string());
                scalar_paths(child, at, out);
                at.pop();
            }
        }
        J::Array(_) => {}
        scalar => out.push((at.clone(), scalar.clone())),
    }
}
