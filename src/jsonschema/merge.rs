//! The `merge:` table: path pattern → merge spec (docs/merge.md).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;

/// A `merge:` table: path pattern → merge spec. A pattern is a dotted path
/// (`freebsd.users.*.groups`, with `"…"` around segments holding `.`, `*` or
/// `"`), or a regex starting with `^`.
pub(super) type MergeTable = BTreeMap<String, MergeSpec>;

/// A merge spec: a strategy name, `{merge: SPEC}` (Hiera's lookup_options
/// form) or `{strategy: NAME, …options}`. docs/merge.md §3.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum MergeSpec {
    /// A strategy with its default options.
    Name(Strategy),
    /// Hiera's lookup_options form.
    Hiera(HieraSpec),
    /// A strategy and its options.
    Options(SpecOptions),
}

/// `{merge: SPEC}`, as in Hiera's lookup_options.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HieraSpec {
    /// The spec.
    pub merge: Box<MergeSpec>,
}

/// A merge strategy (docs/merge.md §4).
// The names of src/merge/spec.rs, aliases included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// Beryl's: mappings merge recursively; anything else is replaced by the higher level.
    Default,
    /// Hiera `first`: the highest-priority value wins whole, whatever its type.
    First,
    /// An alias of `first`.
    Replace,
    /// Hiera `unique`: lists flattened with the scalars into one list, without duplicates.
    Unique,
    /// Hiera `hash`: a shallow merge, the higher level winning each key whole.
    Hash,
    /// Hiera `deep` (the deep_merge gem): recursive, lists unioned lowest first.
    Deep,
    /// Beryl: lists concatenated, later duplicates dropped, `--x` knockouts.
    Append,
    /// Lists concatenated, duplicates kept.
    Concat,
    /// Lists of mappings merged by a key field (`name` by default).
    ByKey,
    /// RFC 7396 JSON merge patch, one level at a time.
    Patch,
}

/// A strategy and the options it takes.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "strategy", rename_all = "snake_case", deny_unknown_fields)]
pub enum SpecOptions {
    /// Beryl's default strategy.
    Default {},
    /// Hiera `first`.
    First {},
    /// An alias of `first`.
    Replace {},
    /// Hiera `unique`.
    Unique {
        /// Sort the merged list.
        #[serde(default)]
        #[schemars(with = "bool")]
        sort_merged_arrays: Option<bool>,
    },
    /// Hiera `hash`.
    Hash {},
    /// Hiera `deep`.
    Deep {
        /// An item `PREFIXx` removes `x` (null: no knockouts, the default for deep).
        #[serde(default)]
        #[schemars(with = "Knockout")]
        knockout_prefix: Option<Knockout>,
        /// Merge lists whose elements are all mappings element by element.
        #[serde(default)]
        #[schemars(with = "bool")]
        merge_hash_arrays: Option<bool>,
        /// Sort merged lists.
        #[serde(default)]
        #[schemars(with = "bool")]
        sort_merged_arrays: Option<bool>,
    },
    /// Beryl's append.
    Append {
        /// An item `PREFIXx` removes `x` (`--` by default; null: no knockouts).
        #[serde(default)]
        #[schemars(with = "Knockout")]
        knockout_prefix: Option<Knockout>,
    },
    /// Lists concatenated.
    Concat {},
    /// Lists of mappings merged by a key field.
    ByKey {
        /// An item whose key is `PREFIXx` removes the item `x` (`--` by
        /// default; null: no knockouts).
        #[serde(default)]
        #[schemars(with = "Knockout")]
        knockout_prefix: Option<Knockout>,
        /// The field that identifies an item (default `name`).
        #[serde(default)]
        #[schemars(with = "String", length(min = 1))]
        key: Option<String>,
    },
    /// RFC 7396.
    Patch {},
}

/// A knockout prefix, or null for no knockouts.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum Knockout {
    /// The prefix, such as `--`.
    Prefix(#[schemars(length(min = 1))] String),
    /// No knockouts.
    Off(()),
}
