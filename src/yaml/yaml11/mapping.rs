//! A mapping in the YAML 1.1 dialect: merge keys, duplicate keys, and keys
//! that are not strings, as PyYAML builds a Python dict.

use serde_saphyr::granit_parser::Event;

use super::{Code, Composed, Composer, resolve};
use crate::diag::Diag;
use crate::value::{Entry, Map, Node, Span, Value};

impl Composer<'_> {
    pub(super) fn mapping(&mut self, at: Span) -> Result<Node, Diag> {
        self.enter(&at)?;
        // The mappings merged in, lowest precedence first, then the
        // mapping's own keys.
        let mut merged: Vec<Map> = Vec::new();
        let mut own = Map::new();
        let mut merge_keys: Option<Span> = None;
        loop {
            let (event, span) = self.next()?;
            if let Event::MappingEnd = event {
                break;
            }
            let key = self.node(event, span)?;
            let (event, span) = self.next()?;
            let value = self.value(event, span)?;
            match key {
                Composed::MergeKey(key_span) => {
                    self.count_alias("MergeKeys", &key_span)?;
                    if let Some(first) = merge_keys.replace(key_span.clone()) {
                        self.warnings.push(duplicate("<<", &key_span, &first));
                    }
                    merged.extend(merge_sources(value, &key_span)?);
                }
                Composed::ValueKey(span) => {
                    self.insert(&mut own, "=".to_string(), span, value);
                }
                Composed::Node(key) => {
                    let name = key_text(&key)?;
                    self.insert(&mut own, name, key.span, value);
                }
            }
        }
        self.depth -= 1;
        // A key keeps the place it first has and the value it last has, as a
        // Python dict built from the merged pairs, then the own pairs.
        let mut map = Map::with_capacity(own.len());
        for (name, entry) in merged.into_iter().flatten().chain(own) {
            map.insert(name, entry);
        }
        Ok(Node::new(Value::Map(map), at))
    }

    /// Sets a mapping's own key; a key set before keeps its place and
    /// takes this value, with a warning.
    fn insert(&mut self, own: &mut Map, name: String, key_span: Span, node: Node) {
        if let Some(first) = own.get(&name) {
            self.warnings
                .push(duplicate(&name, &key_span, &first.key_span));
        }
        own.insert(name, Entry { key_span, node });
    }
}

fn duplicate(name: &str, second: &Span, first: &Span) -> Diag {
    Diag::warning(
        Code::DuplicateKeyLastWins,
        format!("duplicate key `{name}`: the last value wins, as in reclass"),
    )
    .label(second, "this value is kept")
    .label(first, "set before here")
}

/// The mappings a `<<` merges, lowest precedence first: one mapping, or a
/// list of mappings where the first wins.
fn merge_sources(value: Node, key: &Span) -> Result<Vec<Map>, Diag> {
    let wrong = |node: &Node| {
        Diag::new(
            Code::Yaml11Value,
            format!("`<<` merges mappings, not {}", node.value.type_name()),
        )
        .label(&node.span, "not a mapping")
        .label(key, "the merge key")
    };
    match value.value {
        Value::Map(map) => Ok(vec![map]),
        Value::Seq(items) => {
            let mut maps = Vec::with_capacity(items.len());
            for item in items.into_iter().rev() {
                match item.value {
                    Value::Map(map) => maps.push(map),
                    _ => return Err(wrong(&item)),
                }
            }
            Ok(maps)
        }
        _ => Err(wrong(&value)),
    }
}

/// A key's text: a string as it is; another scalar as kapicorp's JSON
/// output writes it (`1`, `true`, `null`, `1.5`).
fn key_text(key: &Node) -> Result<String, Diag> {
    Ok(match &key.value {
        Value::Str(s) => s.clone(),
        Value::Int(i) => i.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".to_string(),
        Value::Float(f) => resolve::python_float(*f),
        other => {
            return Err(Diag::new(
                Code::KeyType,
                format!("mapping keys must be scalars, found {}", other.type_name()),
            )
            .label(&key.span, "this key is not a scalar"));
        }
    })
}
