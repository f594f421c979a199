//! Merge specs: a strategy name and its options, as written in a `merge:` table
//! or given on the command line.
//!
//! Entry point: [`Spec::parse`]. A spec is a bare name (`deep`), a Hiera-style
//! `{merge: <spec>}`, or `{strategy: NAME, <options>}`.

use std::fmt;

use super::Code;
use crate::diag::Diag;
use crate::value::{Node, Span, Value};

/// The merge strategies. See docs/merge.md for each one's semantics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    Default,
    First,
    Unique,
    Hash,
    Deep,
    Append,
    Concat,
    ByKey,
    Patch,
}

/// Every name a spec may use, aliases included, and what it means.
pub(crate) const NAMES: &[(&str, Strategy)] = &[
    ("default", Strategy::Default),
    ("first", Strategy::First),
    ("replace", Strategy::First),
    ("unique", Strategy::Unique),
    ("hash", Strategy::Hash),
    ("deep", Strategy::Deep),
    ("append", Strategy::Append),
    ("concat", Strategy::Concat),
    ("by_key", Strategy::ByKey),
    ("patch", Strategy::Patch),
];

/// The options, and which strategies take each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Opt {
    KnockoutPrefix,
    MergeHashArrays,
    SortMergedArrays,
    Key,
}

/// Every option of a spec mapping, and the strategies that take it.
pub(crate) const OPTIONS: &[(&str, Opt, &[Strategy])] = &[
    (
        "knockout_prefix",
        Opt::KnockoutPrefix,
        &[Strategy::Deep, Strategy::Append, Strategy::ByKey],
    ),
    ("merge_hash_arrays", Opt::MergeHashArrays, &[Strategy::Deep]),
    (
        "sort_merged_arrays",
        Opt::SortMergedArrays,
        &[Strategy::Deep, Strategy::Unique],
    ),
    ("key", Opt::Key, &[Strategy::ByKey]),
];

/// The prefix `append` and `by_key` use unless told otherwise (Beryl's).
pub(crate) const DEFAULT_KNOCKOUT: &str = "--";

/// The field that identifies `by_key` items unless told otherwise.
pub(crate) const DEFAULT_KEY: &str = "name";

/// A strategy with its options, and where it was written.
#[derive(Clone, Debug)]
pub struct Spec {
    pub kind: Strategy,
    /// `None` turns knockouts off. `append` and `by_key` default to `--`,
    /// `deep` to none, as in Hiera.
    pub knockout_prefix: Option<String>,
    pub merge_hash_arrays: bool,
    pub sort_merged_arrays: bool,
    /// The identifying field of `by_key` items.
    pub key: String,
    /// Where the spec was written; synthetic for built-in and command-line specs.
    pub span: Span,
}

impl PartialEq for Spec {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
            && self.knockout_prefix == other.knockout_prefix
            && self.merge_hash_arrays == other.merge_hash_arrays
            && self.sort_merged_arrays == other.sort_merged_arrays
            && self.key == other.key
    }
}

/// Every strategy name, aliases included, for command-line completion.
pub(crate) fn names() -> Vec<&'static str> {
    NAMES.iter().map(|(n, _)| *n).collect()
}

impl Strategy {
    pub(crate) fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("default", |(n, _)| n)
    }

    pub fn from_name(name: &str) -> Option<Strategy> {
        NAMES.iter().find(|(n, _)| *n == name).map(|(_, k)| *k)
    }

    /// Whether paths below a value merged this way are merged again (and so
    /// consult the table), or taken whole from one level.
    pub(crate) fn recurses(self) -> bool {
        !matches!(self, Strategy::First | Strategy::Unique | Strategy::Hash)
    }

    pub(crate) fn takes(self, opt: Opt) -> bool {
        OPTIONS
            .iter()
            .any(|(_, o, kinds)| *o == opt && kinds.contains(&self))
    }
}

impl Spec {
    /// A strategy with its default options.
    pub fn of(kind: Strategy) -> Spec {
        let knockout = matches!(kind, Strategy::Append | Strategy::ByKey);
        Spec {
            kind,
            knockout_prefix: knockout.then(|| DEFAULT_KNOCKOUT.to_string()),
            merge_hash_arrays: false,
            sort_merged_arrays: false,
            key: DEFAULT_KEY.into(),
            span: Span::synthetic(),
        }
    }

    /// Reads a spec as written in a `merge:` table.
    pub fn parse(node: &Node) -> Result<Spec, Diag> {
        match &node.value {
            Value::Str(name) => Ok(Spec {
                span: node.span.clone(),
                ..Spec::of(kind_named(name, &node.span)?)
            }),
            Value::Map(map) if map.len() == 1 && map.contains_key("merge") => {
                Spec::parse(&map["merge"].node)
            }
            Value::Map(map) => {
                let Some(strategy) = map.get("strategy") else {
                    return Err(
                        Diag::new(Code::Spec, "a merge spec mapping needs a `strategy`")
                            .label(&node.span, "no `strategy` here")
                            .help(
                                "write `{strategy: deep, knockout_prefix: \"--\"}`, or just `deep`",
                            ),
                    );
                };
                let Some(name) = strategy.node.as_str() else {
                    return Err(expected(&strategy.node, "a strategy name"));
                };
                let mut spec = Spec {
                    span: node.span.clone(),
                    ..Spec::of(kind_named(name, &strategy.node.span)?)
                };
                for (key, entry) in map.iter().filter(|(k, _)| *k != "strategy") {
                    spec.set(key, &entry.key_span, &entry.node)?;
                }
                Ok(spec)
            }
            other => Err(Diag::new(
                Code::Spec,
                format!(
                    "a merge spec is a strategy name or a mapping, found {}",
                    other.type_name()
                ),
            )
            .label(&node.span, "expected a merge spec")
            .help(help_names())),
        }
    }

    /// Sets one option, refusing unknown ones and those the strategy does not take.
    pub fn set(&mut self, name: &str, key_span: &Span, value: &Node) -> Result<(), Diag> {
        let Some(&(_, opt, _)) = OPTIONS.iter().find(|(n, _, _)| *n == name) else {
            let known: Vec<&str> = OPTIONS.iter().map(|(n, _, _)| *n).collect();
            return Err(Diag::new(
                Code::UnknownOption,
                format!("unknown merge option `{name}`"),
            )
            .label(key_span, "not a merge option")
            .help(format!("the options are: {}", known.join(", "))));
        };
        if !self.kind.takes(opt) {
            let takers: Vec<&str> = OPTIONS
                .iter()
                .find(|(_, o, _)| *o == opt)
                .map(|(_, _, kinds)| kinds.iter().map(|k| k.name()).collect())
                .unwrap_or_default();
            return Err(Diag::new(
                Code::OptionNotTaken,
                format!(
                    "the `{}` strategy takes no `{name}` option",
                    self.kind.name()
                ),
            )
            .label(key_span, "not an option of this strategy")
            .help(format!("`{name}` is taken by: {}", takers.join(", "))));
        }
        match opt {
            Opt::KnockoutPrefix => {
                self.knockout_prefix = match &value.value {
                    Value::Null => None,
                    Value::Str(p) if !p.is_empty() => Some(p.clone()),
                    Value::Str(_) => {
                        return Err(Diag::new(
                            Code::KnockoutPrefix,
                            "`knockout_prefix` cannot be empty",
                        )
                        .label(&value.span, "empty prefix")
                        .help("use null to turn knockouts off"));
                    }
                    _ => return Err(expected(value, "a string (or null for no knockouts)")),
                }
            }
            Opt::MergeHashArrays => self.merge_hash_arrays = boolean(value)?,
            Opt::SortMergedArrays => self.sort_merged_arrays = boolean(value)?,
            Opt::Key => match value.as_str() {
                Some(k) if !k.is_empty() => self.key = k.to_string(),
                _ => return Err(expected(value, "a non-empty field name")),
            },
        }
        Ok(())
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.name())?;
        let default = Spec::of(self.kind);
        let mut opts = Vec::new();
        if self.knockout_prefix != default.knockout_prefix {
            match &self.knockout_prefix {
                Some(p) => opts.push(format!("knockout_prefix: {p:?}")),
                None => opts.push("knockout_prefix: null".into()),
            }
        }
        if self.merge_hash_arrays {
            opts.push("merge_hash_arrays".into());
        }
        if self.sort_merged_arrays {
            opts.push("sort_merged_arrays".into());
        }
        if self.kind == Strategy::ByKey {
            opts.push(format!("key: {}", self.key));
        }
        if !opts.is_empty() {
            write!(f, " ({})", opts.join(", "))?;
        }
        Ok(())
    }
}

fn help_names() -> String {
    let names: Vec<&str> = NAMES.iter().map(|(n, _)| *n).collect();
    format!("the strategies are: {}", names.join(", "))
}

fn kind_named(name: &str, span: &Span) -> Result<Strategy, Diag> {
    Strategy::from_name(name).ok_or_else(|| {
        Diag::new(
            Code::UnknownStrategy,
            format!("unknown merge strategy `{name}`"),
        )
        .label(span, "not a strategy")
        .help(help_names())
    })
}

fn boolean(value: &Node) -> Result<bool, Diag> {
    match value.value {
        Value::Bool(b) => Ok(b),
        _ => Err(match crate::yaml::spelling::hint(value, true) {
            Some(h) => expected(value, "true or false").help(h),
            None => expected(value, "true or false"),
        }),
    }
}

fn expected(value: &Node, what: &str) -> Diag {
    Diag::new(
        Code::Spec,
        format!("expected {what}, found {}", value.value.type_name()),
    )
    .label(&value.span, format!("expected {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Source;

    fn spec(text: &str) -> Result<Spec, Diag> {
        let node =
            crate::yaml::parse_any(&Source::new("t.yml", text), &Default::default()).unwrap();
        Spec::parse(&node)
    }

    #[test]
    fn three_forms() {
        assert_eq!(spec("deep").unwrap().kind, Strategy::Deep);
        assert_eq!(spec("replace").unwrap().kind, Strategy::First);
        let s = spec("{merge: {strategy: deep, knockout_prefix: '##', merge_hash_arrays: true}}")
            .unwrap();
        assert_eq!(s.knockout_prefix.as_deref(), Some("##"));
        assert!(s.merge_hash_arrays);
        assert_eq!(spec("{strategy: by_key, key: id}").unwrap().key, "id");
        assert_eq!(
            spec("append").unwrap().knockout_prefix.as_deref(),
            Some("--")
        );
        assert_eq!(
            spec("{strategy: append, knockout_prefix: ~}")
                .unwrap()
                .knockout_prefix,
            None
        );
    }

    #[test]
    fn errors() {
        let code = |t: &str| spec(t).unwrap_err().code;
        assert_eq!(code("deeep"), "beryl::merge::unknown_strategy");
        assert_eq!(
            code("{strategy: deep, bogus: 1}"),
            "beryl::merge::unknown_option"
        );
        assert_eq!(
            code("{strategy: hash, knockout_prefix: --}"),
            "beryl::merge::option_not_taken"
        );
        assert_eq!(
            code("{strategy: deep, knockout_prefix: ''}"),
            "beryl::merge::knockout_prefix"
        );
        assert_eq!(
            code("{strategy: deep, merge_hash_arrays: yes}"),
            "beryl::merge::spec"
        );
        assert_eq!(code("{knockout_prefix: --}"), "beryl::merge::spec");
        assert_eq!(code("[deep]"), "beryl::merge::spec");
    }

    #[test]
    fn display_shows_non_default_options() {
        assert_eq!(spec("deep").unwrap().to_string(), "deep");
        assert_eq!(
            spec("{strategy: deep, knockout_prefix: --, sort_merged_arrays: true}")
                .unwrap()
                .to_string(),
            "deep (knockout_prefix: \"--\", sort_merged_arrays)"
        );
    }
}
