//! Seeded random document sequences for the differential suite.
//!
//! Documents are small on purpose: a few keys from a tiny alphabet, so levels
//! collide on keys and list items, with nested lists of mappings, mixed types,
//! nulls and (for knockout configurations) knockout markers.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Map, Value as J};

/// The shape of the levels a configuration is fed.
#[derive(Clone, Copy, Debug)]
pub enum Profile {
    /// Mostly mappings at the root, anything below.
    Maps,
    /// Lists and scalars at the root (the food of `unique`), now and then a mapping.
    Lists,
    /// Lists of mappings, at the root and under keys (for merge_hash_arrays).
    HashArrays,
}

fn leaf(markers: bool) -> BoxedStrategy<J> {
    let mut strings = vec!["a", "b", "c", "x", "1", ""];
    if markers {
        strings.extend(["--a", "--b", "--x", "--1", "--"]);
    }
    prop_oneof![
        1 => Just(J::Null),
        1 => any::<bool>().prop_map(J::Bool),
        3 => (0i64..4).prop_map(J::from),
        1 => prop::sample::select(vec![0.5f64, 1.5]).prop_map(J::from),
        5 => prop::sample::select(strings).prop_map(J::from),
    ]
    .boxed()
}

fn object(inner: BoxedStrategy<J>, max: usize) -> BoxedStrategy<J> {
    prop::collection::vec(
        (prop::sample::select(vec!["a", "b", "c", "k"]), inner),
        0..max,
    )
    .prop_map(|pairs| {
        let mut m = Map::new();
        for (k, v) in pairs {
            m.insert(k.to_string(), v);
        }
        J::Object(m)
    })
    .boxed()
}

fn value(markers: bool) -> BoxedStrategy<J> {
    leaf(markers)
        .prop_recursive(3, 32, 4, |inner| {
            prop_oneof![
                2 => prop::collection::vec(inner.clone(), 0..4).prop_map(J::Array),
                2 => object(inner.clone(), 4),
                1 => prop::collection::vec(object(inner, 3), 0..3).prop_map(J::Array),
            ]
        })
        .boxed()
}

fn root(profile: Profile, markers: bool) -> BoxedStrategy<J> {
    match profile {
        Profile::Maps => prop_oneof![
            6 => object(value(markers), 5),
            1 => value(markers),
        ]
        .boxed(),
        Profile::Lists => prop_oneof![
            5 => prop::collection::vec(value(markers), 0..5).prop_map(J::Array),
            2 => leaf(markers),
            1 => value(markers),
        ]
        .boxed(),
        Profile::HashArrays => {
            let hashes = prop::collection::vec(object(value(markers), 3), 0..4).prop_map(J::Array);
            prop_oneof![
                3 => hashes.clone().boxed(),
                3 => object(hashes.boxed(), 3),
                1 => value(markers),
            ]
            .boxed()
        }
    }
}

/// `count` sequences of 2 to 4 levels (lowest first), the same for a seed.
pub fn sequences(seed: u64, count: usize, profile: Profile, markers: bool) -> Vec<Vec<J>> {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    let strategy = prop::collection::vec(root(profile, markers), 2..=4);
    (0..count)
        .map(|_| {
            strategy
                .new_tree(&mut runner)
                .expect("generate a case")
                .current()
        })
        .collect()
}
