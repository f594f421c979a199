//! Key prefixes (reclass): `~key` replaces what was merged so far, `=key` is a
//! constant, `\~` and `\=` escape a literal first character. Honoured wherever
//! mappings are merged, and stripped from every value taken whole.

use indexmap::IndexMap;

use super::{Engine, TABLE_KEY};
use crate::diag::Diag;
use crate::value::{Entry, Map, Node, Span, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Prefix {
    Plain,
    Override,
    Constant,
}

/// Splits a written key into its name and prefix.
pub(super) fn split(raw: &str) -> (&str, Prefix) {
    if let Some(rest) = raw.strip_prefix('~') {
        (rest, Prefix::Override)
    } else if let Some(rest) = raw.strip_prefix('=') {
        (rest, Prefix::Constant)
    } else if raw.starts_with("\\~") || raw.starts_with("\\=") {
        (&raw[1..], Prefix::Plain)
    } else {
        (raw, Prefix::Plain)
    }
}

/// One key's values across the merged mappings, lowest first.
pub(super) struct Child<'a> {
    /// Where the key was last written (the highest level's spelling).
    pub key_span: Span,
    pub cs: Vec<Option<&'a Node>>,
}

/// Where a constant was set.
struct Constant<'a> {
    value: &'a Node,
    key_span: Span,
}

impl Engine<'_> {
    /// Collects the children of the mappings merged at the current path, in
    /// first-appearance order. `events` are the merged levels, lowest first;
    /// `None` is a `deep` self-merge, which every child sees as `None`.
    pub(super) fn children<'a>(
        &mut self,
        events: &[Option<&'a Map>],
    ) -> IndexMap<String, Child<'a>> {
        let mut out: IndexMap<String, Child<'a>> = IndexMap::new();
        let mut constants: IndexMap<String, Constant<'a>> = IndexMap::new();
        let at_root = self.path.is_empty();
        for (i, event) in events.iter().enumerate() {
            let Some(map) = event else {
                for child in out.values_mut() {
                    child.cs.push(None);
                }
                continue;
            };
            let mut seen: IndexMap<&str, &Span> = IndexMap::new();
            for (raw, entry) in *map {
                let (name, prefix) = split(raw);
                if at_root && name == TABLE_KEY {
                    continue;
                }
                if let Some(first) = seen.insert(name, &entry.key_span) {
                    self.errors.push(
                        Diag::new(
                            "beryl::merge::prefix_clash",
                            format!("`{raw}` and another key both set `{name}` in one mapping"),
                        )
                        .label(&entry.key_span, "this key")
                        .label(first, "and this one")
                        .help("a mapping may set a key once, with or without a `~` or `=` prefix"),
                    );
                    continue;
                }
                if let Some(constant) = constants.get(name) {
                    if !constant.value.value.same(&entry.node.value) {
                        self.errors.push(
                            Diag::new(
                                "beryl::merge::constant",
                                format!("`{name}` is a constant and cannot be changed"),
                            )
                            .label(&entry.key_span, "changed here")
                            .label(&constant.key_span, "made constant here with `=`")
                            .help("remove this setting, or drop the `=` where the constant is set"),
                        );
                    }
                    continue;
                }
                let child = out.entry(name.to_string()).or_insert_with(|| Child {
                    key_span: entry.key_span.clone(),
                    cs: vec![None; i],
                });
                child.key_span = entry.key_span.clone();
                child.cs.resize(i, None);
                match prefix {
                    Prefix::Override => child.cs.clear(),
                    Prefix::Constant => {
                        constants.insert(
                            name.to_string(),
                            Constant {
                                value: &entry.node,
                                key_span: entry.key_span.clone(),
                            },
                        );
                    }
                    Prefix::Plain => {}
                }
                child.cs.push(Some(&entry.node));
            }
            // Children this mapping lacks see `None` at its position.
            for child in out.values_mut() {
                child.cs.resize(i + 1, None);
            }
        }
        out
    }

    /// A value taken whole: key prefixes are stripped from every mapping in it.
    pub(super) fn whole(&mut self, node: &Node) -> Node {
        match &node.value {
            Value::Map(map) => {
                let mut out = Map::with_capacity(map.len());
                for (raw, entry) in map {
                    let (name, _) = split(raw);
                    if out.contains_key(name) {
                        self.errors.push(
                            Diag::new(
                                "beryl::merge::prefix_clash",
                                format!("`{raw}` and another key both set `{name}` in one mapping"),
                            )
                            .label(&entry.key_span, "this key")
                            .help(
                                "a mapping may set a key once, with or without a `~` or `=` prefix",
                            ),
                        );
                        continue;
                    }
                    let node = self.whole(&entry.node);
                    out.insert(
                        name.to_string(),
                        Entry {
                            key_span: entry.key_span.clone(),
                            node,
                        },
                    );
                }
                Node::new(Value::Map(out), node.span.clone())
            }
            Value::Seq(items) => Node::new(
                Value::Seq(items.iter().map(|n| self.whole(n)).collect()),
                node.span.clone(),
            ),
            _ => node.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_and_escapes() {
        assert_eq!(split("~a"), ("a", Prefix::Override));
        assert_eq!(split("=a"), ("a", Prefix::Constant));
        assert_eq!(split("\\~a"), ("~a", Prefix::Plain));
        assert_eq!(split("\\=a"), ("=a", Prefix::Plain));
        assert_eq!(split("\\a"), ("\\a", Prefix::Plain));
        assert_eq!(split("a~"), ("a~", Prefix::Plain));
    }
}
