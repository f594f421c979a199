//! The walking machinery: field tables, typed accessors and error collection.
//!
//! A mapping is checked by walking its entries in document order and handing
//! each to the [`Field`] row of the same key; unknown keys are reported with a
//! suggestion drawn from the same table. Accessors report a type error and
//! return `None`, so every checker simply carries on.

use crate::diag::Diag;
use crate::syntax::path;
use crate::value::{Entry, Map, Node};

use super::Code;
use super::model::Located;
use crate::freebsd::names;

/// One key of a mapping: its name, a one-line doc, and the checker that
/// validates its value and stores it in the model `T`.
pub(crate) struct Field<T> {
    pub key: &'static str,
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "documentation; tests hold the JSON Schema to it")
    )]
    pub doc: &'static str,
    /// Other spellings (older or common names) that should suggest this key.
    pub aliases: &'static [&'static str],
    pub check: fn(&mut Ctx, &At<'_>, &mut T),
}

/// What a checker sees: the dotted path of the value, the value, and the
/// mapping it sits in (for rules that involve a sibling).
pub(crate) struct At<'a> {
    pub path: String,
    pub node: &'a Node,
    pub siblings: &'a Map,
}

/// A string rule: the pure check from `freebsd::names`, its error code, what a valid
/// value is called, and a help for a refused value.
pub(super) struct Rule {
    pub check: fn(&str) -> Result<(), String>,
    pub code: Code,
    pub what: &'static str,
    pub help: fn(&str) -> String,
}

/// A rule for the keys of a mapping (a variable, a path, a pool…): the pure
/// check from `freebsd::names`, its error code, and what its error says:
/// `invalid WHAT in PATH: REASON`, the key labelled LABEL, with HELP.
pub(super) struct KeyRule {
    pub check: fn(&str) -> Result<(), String>,
    pub code: Code,
    pub what: &'static str,
    pub label: &'static str,
    pub help: &'static str,
}

/// The errors found so far, in document order.
#[derive(Default)]
pub(crate) struct Ctx {
    pub diags: Vec<Diag>,
    /// For a jail, what its `jail` defaults are made of (`None` for a host).
    pub jailed: Option<super::Jailed>,
}

impl Ctx {
    /// Records an error.
    pub(super) fn push(&mut self, diag: Diag) {
        self.diags.push(diag);
    }

    /// Checks each entry of `map` with its row of `fields`, in document order.
    pub(super) fn walk<T>(&mut self, path: &str, map: &Map, fields: &[Field<T>], out: &mut T) {
        for (key, entry) in map {
            match fields.iter().find(|f| f.key == key) {
                Some(field) => {
                    let at = At {
                        path: path::child(path, key),
                        node: &entry.node,
                        siblings: map,
                    };
                    (field.check)(self, &at, out);
                }
                None => self.unknown_key(path, key, entry, fields),
            }
        }
    }

    fn unknown_key<T>(&mut self, path: &str, key: &str, entry: &Entry, fields: &[Field<T>]) {
        let hint = suggest(key, fields)
            .map(|s| format!("; did you mean `{s}`?"))
            .unwrap_or_default();
        let known: Vec<&str> = fields.iter().map(|f| f.key).collect();
        self.push(
            Diag::new(
                Code::UnknownKey,
                format!("unknown key {} in {path}{hint}", names::quote(key)),
            )
            .label(&entry.key_span, "unknown key")
            .help(format!("{path} accepts: {}", known.join(", "))),
        );
    }

    /// A type error: "PATH must be EXPECTED, found TYPE". A string that
    /// YAML 1.1 would have read as the boolean or integer expected gets a
    /// help saying so.
    pub(super) fn type_error(&self, path: &str, expected: &str, node: &Node) -> Diag {
        let d = Diag::new(
            Code::Type,
            format!(
                "{path} must be {expected}, found {}",
                node.value.type_name()
            ),
        )
        .label(&node.span, format!("expected {expected}"));
        let hint = match expected {
            "a boolean" => crate::yaml::spelling::hint(node, true),
            "an integer" => crate::yaml::spelling::hint(node, false),
            _ => None,
        };
        match hint {
            Some(h) => d.help(h),
            None => d,
        }
    }

    /// The entries of a mapping, or a type error.
    pub(super) fn mapping<'n>(&mut self, path: &str, node: &'n Node) -> Option<&'n Map> {
        let map = node.as_map();
        if map.is_none() {
            self.push(self.type_error(path, "a mapping", node));
        }
        map
    }

    /// The items of a list; `expected` names the whole (`a list of strings`).
    pub(super) fn list<'n>(
        &mut self,
        path: &str,
        node: &'n Node,
        expected: &str,
    ) -> Option<&'n [Node]> {
        let items = node.as_seq();
        if items.is_none() {
            self.push(self.type_error(path, expected, node));
        }
        items
    }

    /// The text of a string, or a type error. A secret's token is refused
    /// but in the fields of [`SECRET_FIELDS`].
    pub(super) fn string<'n>(&mut self, path: &str, node: &'n Node) -> Option<&'n str> {
        let s = node.as_str();
        if s.is_none() {
            self.push(self.type_error(path, "a string", node));
        }
        match s {
            Some(t) if crate::secrets::holds_token(t) && !secret_field(path) => {
                self.push(
                    Diag::new(
                        Code::Secret,
                        format!("{path} holds a secret, which only some fields may"),
                    )
                    .label(&node.span, "an encrypted value, or a value built from one")
                    .help(format!(
                        "beryl prints this field in plans, dry runs and diffs; a secret may be {}",
                        SECRET_FIELDS.join(", ")
                    )),
                );
                None
            }
            _ => s,
        }
    }

    /// Whether `name`, a key of the mapping at `path`, passes `rule`; the
    /// error at the key when it does not.
    pub(super) fn key(&mut self, rule: &KeyRule, path: &str, name: &str, entry: &Entry) -> bool {
        let Err(reason) = (rule.check)(name) else {
            return true;
        };
        self.push(
            Diag::new(
                rule.code,
                format!("invalid {} in {path}: {reason}", rule.what),
            )
            .label(&entry.key_span, rule.label)
            .help(rule.help),
        );
        false
    }

    /// A string that passes `rule`.
    pub(super) fn checked(
        &mut self,
        path: &str,
        node: &Node,
        rule: &Rule,
    ) -> Option<Located<String>> {
        let s = self.string(path, node)?;
        // A secret is checked once decrypted, where apply runs
        // (src/secrets/): here it is its token.
        if s.starts_with(crate::secrets::TOKEN_OPEN)
            && s.ends_with('›')
            && s.matches(crate::secrets::TOKEN_OPEN).count() == 1
            && secret_field(path)
        {
            return Some(Located::new(s.to_string(), node.span.clone()));
        }
        match (rule.check)(s) {
            Ok(()) => Some(Located::new(s.to_string(), node.span.clone())),
            Err(reason) => {
                self.push(
                    Diag::new(rule.code, format!("invalid {path}: {reason}"))
                        .label(&node.span, format!("not a valid {}", rule.what))
                        .help((rule.help)(s)),
                );
                None
            }
        }
    }

    /// A list of strings that each pass `rule`; items are reported by
    /// position (`path.i`).
    pub(super) fn checked_list(
        &mut self,
        path: &str,
        node: &Node,
        rule: &Rule,
    ) -> Vec<Located<String>> {
        let Some(items) = self.list(path, node, "a list of strings") else {
            return Vec::new();
        };
        items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| self.checked(&path::item(path, i), item, rule))
            .collect()
    }
}

/// The text a scalar was read from, when its span covers it in a loaded file.
pub(crate) fn written(node: &Node) -> Option<&str> {
    let source = node.span.source.as_deref()?;
    source
        .text
        .get(node.span.offset..node.span.offset.checked_add(node.span.len)?)
}

/// The key of `fields` that `key` most likely meant, if any is close enough.
pub(crate) fn suggest<T>(key: &str, fields: &[Field<T>]) -> Option<&'static str> {
    let key = key.to_ascii_lowercase();
    closest(
        &key,
        fields.iter().flat_map(|f| {
            std::iter::once(f.key)
                .chain(f.aliases.iter().copied())
                .map(move |n| (n, f.key))
        }),
    )
}

/// What `word` most likely meant: the answer of the candidate `(name,
/// answer)` whose name is nearest (Jaro-Winkler, at least 0.8).
pub(crate) fn closest<'a, T>(
    word: &str,
    candidates: impl IntoIterator<Item = (&'a str, T)>,
) -> Option<T> {
    candidates
        .into_iter()
        .map(|(name, answer)| (strsim::jaro_winkler(word, name), answer))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, answer)| answer)
}

/// The keys and docs of a field table, which the JSON Schema's tests hold
/// its descriptions to.
#[cfg(test)]
pub(crate) fn docs<T>(fields: &[Field<T>]) -> Vec<(&'static str, &'static str)> {
    fields.iter().map(|f| (f.key, f.doc)).collect()
}

/// The fields that may hold a secret (docs/secrets.md): what apply writes
/// and never shows. `*` is any one key.
pub(crate) const SECRET_FIELDS: &[&str] = &["freebsd.root_password", "freebsd.files.*.content"];

/// Whether the field at `path` may hold a secret.
pub(crate) fn secret_field(path: &str) -> bool {
    let Ok(segments) = crate::syntax::path::parse(path) else {
        return false;
    };
    SECRET_FIELDS.iter().any(|row| {
        let row: Vec<&str> = row.split('.').collect();
        row.len() == segments.len()
            && row
                .iter()
                .zip(&segments)
                .all(|(r, s)| *r == "*" || *r == s.text)
    })
}
