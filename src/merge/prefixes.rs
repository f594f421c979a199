//! Key prefixes (reclass): `~key` replaces what was merged so far, `=key` is a
//! constant, `\~` and `\=` escape a literal first character. Honoured wherever
//! mappings are merged, and stripped from every value taken whole.

use indexmap::IndexMap;

use super::{Code, Constants, Engine};
use crate::diag::{Diag, Diags};
use crate::syntax::prefix::{Prefix, split};
use crate::value::{Entry, Map, Node, Span, Value};

/// A constant (`=key`) as written: its path through mappings, and where.
#[derive(Debug)]
pub(super) struct Written {
    path: Vec<String>,
    value: Node,
    key_span: Span,
}

/// Every constant written in a document, along mapping paths.
pub(super) fn constants(
    doc: &Node,
    table_keys: &[&str],
    path: &mut Vec<String>,
    out: &mut Vec<Written>,
) {
    let Value::Map(map) = &doc.value else {
        return;
    };
    for (raw, entry) in map {
        let (name, prefix) = split(raw);
        if path.is_empty() && table_keys.contains(&name) {
            continue;
        }
        path.push(name.to_string());
        if prefix == Prefix::Constant {
            out.push(Written {
                path: path.clone(),
                value: entry.node.clone(),
                key_span: entry.key_span.clone(),
            });
        }
        constants(&entry.node, table_keys, path, out);
        path.pop();
    }
}

/// Checks that every constant survived the merge, whatever the strategy: a
/// value taken whole (`first`, `hash`, `~`, a change of kind) may not drop or
/// change a lower level's constant. Constants that hold a
/// reference are checked once it is resolved.
pub(super) fn check_constants(root: &Node, written: &[Written], reported: &[Span]) -> Diags {
    let mut errors = Vec::new();
    for c in written {
        if reported.iter().any(|r| r.same_place(&c.key_span)) || holds_reference(&c.value) {
            continue;
        }
        let mut node = Some(root);
        for key in &c.path {
            node = node.and_then(|n| n.get(key));
        }
        let shown = crate::syntax::path::display(&c.path);
        // A repeat of a lower constant with the same value is skipped by the
        // merge: the value merged from the first stands for every repeat.
        let merged_from = |n: &Node| {
            written.iter().any(|d| {
                d.path == c.path
                    && n.span.same_place(&d.value.span)
                    && d.value.value.same(&c.value.value)
            })
        };
        let d = match node {
            // The value merged from the constant alone, or an equal one.
            Some(n) if merged_from(n) || n.value.same(&c.value.value) => continue,
            Some(n) => Diag::new(
                Code::Constant,
                format!("`{shown}` is a constant and cannot be changed"),
            )
            .label(&n.span, "the value that replaced it"),
            None => Diag::new(
                Code::Constant,
                format!("`{shown}` is a constant and cannot be removed"),
            ),
        };
        errors.push(d.label(&c.key_span, "made constant here with `=`").help(
            "remove the setting that replaces it, or drop the `=` where the constant is set",
        ));
    }
    errors
}

pub(super) fn holds_reference(n: &Node) -> bool {
    match &n.value {
        Value::Str(s) => crate::syntax::template::has_reference(s),
        Value::Seq(items) => items.iter().any(holds_reference),
        Value::Map(m) => m.values().any(|e| holds_reference(&e.node)),
        _ => false,
    }
}

/// One key's values across the merged mappings, lowest first.
pub(super) struct Child<'a> {
    /// Where the key was last written (the highest level's spelling).
    pub key_span: Span,
    pub cs: Vec<Option<&'a Node>>,
    /// A `~` or `=` discarded the values below: `cs[0]` is not the lowest
    /// document's.
    pub reset: bool,
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
            // Two keys of one mapping can name the same child only through a
            // prefix (the mapping's own keys are distinct): without one, no
            // clash is possible and nothing needs remembering.
            let prefixed = map.keys().any(|k| k.starts_with(['~', '=', '\\']));
            let mut seen: IndexMap<&str, &Span> = IndexMap::new();
            for (raw, entry) in *map {
                let (name, prefix) = split(raw);
                if at_root && self.policy.is_table_key(name) {
                    continue;
                }
                if prefixed && let Some(first) = seen.insert(name, &entry.key_span) {
                    self.diags.push(
                        Diag::new(
                            Code::PrefixClash,
                            format!("`{raw}` and another key both set `{name}` in one mapping"),
                        )
                        .label(&entry.key_span, "this key")
                        .label(first, "and this one")
                        .help("a mapping may set a key once, with or without a `~` or `=` prefix"),
                    );
                    continue;
                }
                if let Some(constant) = constants.get(name) {
                    let changed = match self.policy.dialect().constants {
                        Constants::Beryl => !constant.value.value.same(&entry.node.value),
                        // reclass refuses any later setting, or ignores it.
                        Constants::Reclass { strict } => strict,
                    };
                    if changed {
                        self.constants_reported.push(constant.key_span.clone());
                        self.diags.push(
                            Diag::new(
                                Code::Constant,
                                format!("`{name}` is a constant and cannot be changed"),
                            )
                            .label(&entry.key_span, "changed here")
                            .label(&constant.key_span, "made constant here with `=`")
                            .help("remove this setting, or drop the `=` where the constant is set"),
                        );
                    }
                    continue;
                }
                // The key is copied once per child, not once per level.
                let at = match out.get_index_of(name) {
                    Some(at) => at,
                    None => {
                        let child = Child {
                            key_span: entry.key_span.clone(),
                            cs: vec![None; i],
                            reset: false,
                        };
                        out.insert_full(name.to_string(), child).0
                    }
                };
                let child = &mut out[at];
                child.key_span = entry.key_span.clone();
                child.cs.resize(i, None);
                // `~` replaces what was merged so far; `=` fixes the value as
                // written, so it replaces it too (in reclass's dialect the
                // lower values merge into a constant).
                let replaces = match prefix {
                    Prefix::Plain => false,
                    Prefix::Override => true,
                    Prefix::Constant => self.policy.dialect().constants == Constants::Beryl,
                };
                if replaces {
                    child.cs.clear();
                    child.reset = true;
                }
                match prefix {
                    Prefix::Override => {}
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
                    if let Some(first) = out.get(name) {
                        self.diags.push(
                            Diag::new(
                                Code::PrefixClash,
                                format!("`{raw}` and another key both set `{name}` in one mapping"),
                            )
                            .label(&entry.key_span, "this key")
                            .label(&first.key_span, "and this one")
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
