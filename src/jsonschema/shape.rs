//! What every part of the schema shares: whole references, refused keys,
//! `~`/`=` key prefixes, and the tidying of every subschema.

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde_json::Value;

/// A value, or a whole reference standing for one.
// The variants have no doc comments: they would become descriptions of the
// alternatives, and the field's own description says it all.
#[allow(missing_docs)]
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum Ref<T> {
    Value(T),
    Reference(Reference),
}

/// A whole reference `${path}`: the value at that path of the host's merged
/// config, with its type (docs/references.md).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Reference(#[schemars(pattern(r"^\$\{.+\}$"))] pub String);

/// A key that no level file may hold at this place.
pub(super) fn refused(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "not": {} })
}

/// Every key of a merged mapping may carry the `~` (replace) or `=`
/// (constant) prefix: each property gets a pattern property `^[~=]KEY$` with
/// the same schema, so that `~disks:` is checked like `disks:` while editors
/// complete only the plain key. The root `merge` table takes no prefix.
pub(super) fn prefixed_keys(schema: &mut Schema) {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let mut patterns = serde_json::Map::new();
    for (key, sub) in props {
        let sub = if key == "merge" || key == "lookup_options" || key == "classes" {
            json_schema!({ "not": {} }).to_value()
        } else {
            sub.clone()
        };
        patterns.insert(format!("^[~=]{}$", regex::escape(key)), sub);
    }
    schema.insert("patternProperties".into(), Value::Object(patterns));
}

/// Tidies every subschema: no `default` (serde's defaults of these types are
/// placeholders for absent keys, not values beryl assumes), no schemars
/// formats that JSON Schema does not define (`uint32`, `int64`, `double`:
/// the ranges say it), and doc comments unwrapped into one line per
/// paragraph, as editors show them.
pub(super) fn tidy(schema: &mut Schema) {
    schema.remove("default");
    if schema
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| matches!(f, "uint32" | "uint64" | "int64" | "double"))
    {
        schema.remove("format");
    }
    if let Some(Value::String(text)) = schema.get_mut("description") {
        *text = text
            .split("\n\n")
            .map(|p| p.split('\n').map(str::trim).collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
            .join("\n\n");
    }
}
