//! The `merge:` table: path pattern → merge spec (docs/merge.md).
//!
//! The strategies, their aliases and the options each takes are the merge
//! engine's (`NAMES` and `OPTIONS` in src/merge/spec.rs): the schemas of a
//! strategy name and of a spec mapping are generated from them, and serde
//! reads a spec through the engine, so neither can drift from it. What is
//! written here is only what an editor shows: a line about each strategy
//! (a `match` on the engine's `Strategy`, so a new strategy does not compile
//! without one) and about each option.

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{Deserializer, Error as _};
use serde_json::{Map, Value, json};

use crate::merge::spec::{NAMES, OPTIONS, Opt, Spec, Strategy};
use crate::value::{Node, Span, Value as V};

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
    Name(StrategyName),
    /// Hiera's lookup_options form.
    Hiera(HieraSpec),
    /// A strategy and its options.
    Options(SpecOptions),
}

/// `{merge: SPEC}`, as in Hiera's lookup_options.
#[derive(Debug, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HieraSpec {
    /// The spec.
    pub merge: Box<MergeSpec>,
}

// By hand: serde's derive would also read the struct from a list, `[deep]`,
// which the engine refuses.
impl<'de> Deserialize<'de> for HieraSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut map = Map::deserialize(d)?;
        match (map.remove("merge"), map.is_empty()) {
            (Some(spec), true) => MergeSpec::deserialize(spec)
                .map(|spec| HieraSpec {
                    merge: Box::new(spec),
                })
                .map_err(D::Error::custom),
            _ => Err(D::Error::custom("not `{merge: SPEC}`")),
        }
    }
}

/// A strategy name, aliases included (docs/merge.md §4): the strategy with
/// its default options.
#[derive(Debug, Clone, Copy)]
pub struct StrategyName(pub Strategy);

impl JsonSchema for StrategyName {
    fn schema_name() -> Cow<'static, str> {
        "StrategyName".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<Value> = NAMES
            .iter()
            .map(|&(name, kind)| {
                json!({ "type": "string", "const": name, "description": about(name, kind).0 })
            })
            .collect();
        json_schema!({ "oneOf": names, "description": "A merge strategy (docs/merge.md §4)." })
    }
}

impl<'de> Deserialize<'de> for StrategyName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Strategy::from_name(&name)
            .map(StrategyName)
            .ok_or_else(|| D::Error::custom(format!("unknown merge strategy `{name}`")))
    }
}

/// `{strategy: NAME, …options}`: a strategy and the options it takes, as the
/// engine read them.
#[derive(Debug, Clone)]
pub struct SpecOptions(pub Spec);

impl JsonSchema for SpecOptions {
    fn schema_name() -> Cow<'static, str> {
        "SpecOptions".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let variants: Vec<Value> = NAMES
            .iter()
            .map(|&(name, kind)| {
                let mut properties = Map::new();
                properties.insert(
                    "strategy".into(),
                    json!({ "type": "string", "const": name }),
                );
                for &(option, opt, _) in OPTIONS.iter().filter(|(_, opt, _)| kind.takes(*opt)) {
                    properties.insert(option.into(), option_schema(kind, opt));
                }
                json!({
                    "type": "object",
                    "additionalProperties": false,
                    "properties": properties,
                    "required": ["strategy"],
                    "description": about(name, kind).1,
                })
            })
            .collect();
        json_schema!({ "oneOf": variants, "description": "A strategy and the options it takes." })
    }
}

impl<'de> Deserialize<'de> for SpecOptions {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = Map::deserialize(d)?;
        let Some(name) = map.get("strategy").and_then(Value::as_str) else {
            return Err(D::Error::custom(
                "a merge spec mapping needs a `strategy` name",
            ));
        };
        let kind = Strategy::from_name(name)
            .ok_or_else(|| D::Error::custom(format!("unknown merge strategy `{name}`")))?;
        let mut spec = Spec::of(kind);
        for (option, value) in map.iter().filter(|(key, _)| *key != "strategy") {
            spec.set(option, &Span::synthetic(), &option_node(value))
                .map_err(|diag| D::Error::custom(diag.message))?;
        }
        Ok(SpecOptions(spec))
    }
}

/// An option's value as the engine reads it: a scalar as it is; a list or a
/// mapping, which no option takes, as an empty one.
fn option_node(value: &Value) -> Node {
    Node::synthetic(match value {
        Value::Null => V::Null,
        Value::Bool(b) => V::Bool(*b),
        Value::Number(n) => n
            .as_i64()
            .map_or(V::Float(n.as_f64().unwrap_or(0.0)), V::Int),
        Value::String(s) => V::Str(s.clone()),
        Value::Array(_) => V::Seq(Vec::new()),
        Value::Object(_) => V::Map(Default::default()),
    })
}

/// What an editor shows for the strategy `name` of `kind`: a line for the
/// bare name, and a shorter one for a spec mapping. An alias says what it
/// stands for.
fn about(name: &str, kind: Strategy) -> (Cow<'static, str>, Cow<'static, str>) {
    if name != kind.name() {
        let alias: Cow<'static, str> = format!("An alias of `{}`.", kind.name()).into();
        return (alias.clone(), alias);
    }
    let (line, short) = match kind {
        Strategy::Default => (
            "Beryl's: mappings merge recursively; anything else is replaced by the higher level.",
            "Beryl's default strategy.",
        ),
        Strategy::First => (
            "Hiera `first`: the highest-priority value wins whole, whatever its type.",
            "Hiera `first`.",
        ),
        Strategy::Unique => (
            "Hiera `unique`: lists flattened with the scalars into one list, without duplicates.",
            "Hiera `unique`.",
        ),
        Strategy::Hash => (
            "Hiera `hash`: a shallow merge, the higher level winning each key whole.",
            "Hiera `hash`.",
        ),
        Strategy::Deep => (
            "Hiera `deep` (the deep_merge gem): recursive, lists unioned lowest first.",
            "Hiera `deep`.",
        ),
        Strategy::Append => (
            "Beryl: lists concatenated, later duplicates dropped, `--x` knockouts.",
            "Beryl's append.",
        ),
        Strategy::Concat => (
            "Lists concatenated, duplicates kept.",
            "Lists concatenated.",
        ),
        Strategy::ByKey => (
            "Lists of mappings merged by a key field (`name` by default).",
            "Lists of mappings merged by a key field.",
        ),
        Strategy::Patch => (
            "RFC 7396 JSON merge patch, one level at a time.",
            "RFC 7396.",
        ),
    };
    (line.into(), short.into())
}

/// The schema of the option `opt` in a spec mapping of `kind`, with what it
/// does there; the defaults it names are the engine's ([`Spec::of`]).
fn option_schema(kind: Strategy, opt: Opt) -> Value {
    let default = Spec::of(kind);
    match opt {
        Opt::KnockoutPrefix => {
            let item = match kind {
                Strategy::ByKey => "An item whose key is `PREFIXx` removes the item `x`",
                _ => "An item `PREFIXx` removes `x`",
            };
            let description = match default.knockout_prefix {
                Some(prefix) => format!("{item} (`{prefix}` by default; null: no knockouts)."),
                None => format!(
                    "{item} (null: no knockouts, the default for {}).",
                    kind.name()
                ),
            };
            json!({
                "anyOf": [
                    { "type": "string", "minLength": 1, "description": "The prefix, such as `--`." },
                    { "type": "null", "description": "No knockouts." },
                ],
                "description": description,
            })
        }
        Opt::MergeHashArrays => json!({
            "type": "boolean",
            "description": "Merge lists whose elements are all mappings element by element.",
        }),
        Opt::SortMergedArrays => json!({
            "type": "boolean",
            "description": match kind {
                Strategy::Unique => "Sort the merged list.",
                _ => "Sort merged lists.",
            },
        }),
        Opt::Key => json!({
            "type": "string",
            "description": format!("The field that identifies an item (default `{}`).", default.key),
            "minLength": 1,
        }),
    }
}
