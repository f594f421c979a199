//! The rule table: which merge spec applies at a path.
//!
//! A rule is a row of (path pattern → spec); the engine asks the table and never
//! branches on a path itself. Tables come from each level's `merge:` mapping and
//! are layered the way Hiera layers `lookup_options` (a `hash` merge: a higher
//! level's spec for the same pattern replaces the lower one whole, in place).
//! The built-in Beryl rules form the lowest layer.

use regex::Regex;

use super::Code;
use super::spec::{DEFAULT_KEY, Spec, Strategy};
use crate::diag::{Diag, Diags};
use crate::syntax::path;
use crate::value::{Node, Span, Value};

/// One segment of a path pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    Literal(String),
    /// `*`: exactly one segment.
    Any,
}

#[derive(Clone, Debug)]
pub enum Pattern {
    /// A dotted path, possibly with `*` segments.
    Path(Vec<Seg>),
    /// `^…`: a regex matched against the whole dotted path.
    Regex(Regex),
}

impl Pattern {
    /// Parses a pattern as written in a `merge:` table.
    pub(crate) fn parse(text: &str) -> Result<Pattern, String> {
        if text.starts_with('^') {
            return regex::RegexBuilder::new(text)
                .size_limit(1 << 20)
                .build()
                .map(Pattern::Regex)
                .map_err(|e| format!("invalid regex: {e}"));
        }
        let segments = path::parse(text).map_err(|e| e.to_string())?;
        Ok(Pattern::Path(
            segments
                .into_iter()
                .map(|s| {
                    if s.text == "*" && !s.quoted {
                        Seg::Any
                    } else {
                        Seg::Literal(s.text)
                    }
                })
                .collect(),
        ))
    }

    /// The canonical text: two patterns are the same rule when these agree.
    pub(crate) fn canonical(&self) -> String {
        match self {
            Pattern::Regex(r) => r.as_str().to_string(),
            Pattern::Path(segs) => segs
                .iter()
                .map(|s| match s {
                    Seg::Any => "*".to_string(),
                    Seg::Literal(l) if l == "*" => "\"*\"".to_string(),
                    Seg::Literal(l) => path::segment(l),
                })
                .collect::<Vec<_>>()
                .join("."),
        }
    }

    fn literals(segs: &[Seg]) -> usize {
        segs.iter().filter(|s| matches!(s, Seg::Literal(_))).count()
    }
}

fn path_matches(segs: &[Seg], path: &[String]) -> bool {
    segs.len() == path.len()
        && segs.iter().zip(path).all(|(seg, p)| match seg {
            Seg::Any => true,
            Seg::Literal(l) => l == p,
        })
}

#[derive(Clone, Debug)]
pub struct Rule {
    pub pattern: Pattern,
    pub spec: Spec,
    /// Where the pattern was written (synthetic for built-in rules).
    pub key_span: Span,
}

/// The rule table consulted by the merge engine, in table order.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    rules: Vec<Rule>,
    has_regex: bool,
    /// The rules that are not a table: beryl's, or reclass's.
    dialect: super::Dialect,
}

impl Policy {
    pub(crate) fn new(rules: Vec<Rule>) -> Self {
        let mut policy = Policy::default();
        policy.layer(rules);
        policy
    }

    /// Beryl's rules: packages and sudoers append (deduplicated, `--`
    /// knockouts), users merge by name, disks are replaced.
    pub fn beryl() -> Self {
        let rule = |p: &str, kind: Strategy| Rule {
            pattern: Pattern::parse(p).expect("built-in pattern"),
            spec: Spec::of(kind),
            key_span: Span::synthetic(),
        };
        Self::new(vec![
            rule("freebsd.packages", Strategy::Append),
            rule("freebsd.sudoers", Strategy::Append),
            rule("freebsd.users", Strategy::ByKey),
            rule("freebsd.disks", Strategy::First),
        ])
    }

    /// The same rules in another merge dialect.
    pub fn with_dialect(mut self, dialect: super::Dialect) -> Self {
        self.dialect = dialect;
        self
    }

    /// The root keys that hold a level's merge table: `merge` and Hiera's
    /// `lookup_options`, or none in a dialect without tables.
    pub(crate) fn table_keys(&self) -> &'static [&'static str] {
        if self.dialect.merge_key_is_data {
            &[]
        } else {
            super::TABLE_KEYS
        }
    }

    /// Whether a root key holds a level's merge table (never data).
    pub(crate) fn is_table_key(&self, key: &str) -> bool {
        self.table_keys().contains(&key)
    }

    /// The merge dialect in force.
    pub(crate) fn dialect(&self) -> &super::Dialect {
        &self.dialect
    }

    pub(crate) fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Layers a higher table on top: a rule for a pattern already present
    /// replaces it in place; new patterns are appended in their written order.
    pub(crate) fn layer(&mut self, rules: Vec<Rule>) {
        for rule in rules {
            let canonical = rule.pattern.canonical();
            self.has_regex |= matches!(rule.pattern, Pattern::Regex(_));
            match self
                .rules
                .iter_mut()
                .find(|r| r.pattern.canonical() == canonical)
            {
                Some(existing) => *existing = rule,
                None => self.rules.push(rule),
            }
        }
    }

    /// Whether some rule could apply at `prefix` or below it. A regex is
    /// assumed to, since it may match any path.
    pub(crate) fn may_apply_within(&self, prefix: &[String]) -> bool {
        self.rules.iter().any(|rule| match &rule.pattern {
            Pattern::Regex(_) => true,
            Pattern::Path(segs) => {
                segs.len() >= prefix.len()
                    && segs.iter().zip(prefix).all(|(seg, p)| match seg {
                        Seg::Any => true,
                        Seg::Literal(l) => l == p,
                    })
            }
        })
    }

    /// The rule for a path, if any: an exact path first, then the `*` pattern
    /// with the most literal segments (ties go to the first in table order),
    /// then the first `^regex` that matches the dotted path.
    pub(crate) fn rule_for(&self, path: &[String]) -> Option<&Rule> {
        self.rule_index_for(path).map(|i| &self.rules[i])
    }

    /// The field that names the items of the list at `list`: the key of the
    /// `by_key` rule for that path, else `name` (`by_key`'s default). A
    /// reference reads a list item by it (`${freebsd.users.alice.shell}`),
    /// and a resolved string's place is written with it.
    ///
    /// This is the rule written for the path; under a strategy that takes
    /// the whole value (`first` above it), it is not in force, and `explain`,
    /// which names only the items of lists merged by key, checks that
    /// (`spec_at`).
    pub(crate) fn key_field(&self, list: &[String]) -> &str {
        match self.rule_for(list) {
            Some(rule) if rule.spec.kind == Strategy::ByKey => &rule.spec.key,
            _ => DEFAULT_KEY,
        }
    }

    /// The index in [`Policy::rules`] of the rule for a path (see
    /// [`Policy::rule_for`]).
    pub(crate) fn rule_index_for(&self, path: &[String]) -> Option<usize> {
        let mut best: Option<(usize, usize)> = None;
        for (i, rule) in self.rules.iter().enumerate() {
            let Pattern::Path(segs) = &rule.pattern else {
                continue;
            };
            if !path_matches(segs, path) {
                continue;
            }
            let literals = Pattern::literals(segs);
            if literals == path.len() {
                return Some(i);
            }
            if best.is_none_or(|(_, n)| literals > n) {
                best = Some((i, literals));
            }
        }
        if let Some((i, _)) = best {
            return Some(i);
        }
        if !self.has_regex || path.is_empty() {
            return None;
        }
        let dotted = path::display(path);
        self.rules
            .iter()
            .position(|r| matches!(&r.pattern, Pattern::Regex(re) if re.is_match(&dotted)))
    }
}

/// Reads one level's table (`name` is its root key: `merge` or
/// `lookup_options`). Every bad pattern or spec is reported.
pub(crate) fn parse_table(name: &str, node: &Node) -> Result<Vec<Rule>, Diags> {
    let Value::Map(map) = &node.value else {
        return Err(vec![
            Diag::new(
                Code::Table,
                format!(
                    "`{name}` must be a mapping of path pattern to merge spec, found {}",
                    node.value.type_name()
                ),
            )
            .label(&node.span, "expected a mapping")
            .help("for example:\nmerge:\n  freebsd.packages: unique\n  \"^app\\\\.\": deep"),
        ]);
    };
    let mut rules = Vec::with_capacity(map.len());
    let mut errors = Vec::new();
    for (key, entry) in map {
        let pattern = Pattern::parse(key).map_err(|e| {
            Diag::new(
                Code::Pattern,
                format!("bad path pattern `{key}`: {e}"),
            )
            .label(&entry.key_span, "this pattern")
            .help("a pattern is a dotted path (`freebsd.users.*.groups`, quoting segments that contain `.`, `*` or `\"`), or a regex starting with `^`")
        });
        match (pattern, Spec::parse(&entry.node)) {
            (Ok(pattern), Ok(spec)) => rules.push(Rule {
                pattern,
                spec,
                key_span: entry.key_span.clone(),
            }),
            (p, s) => {
                errors.extend(p.err());
                errors.extend(s.err());
            }
        }
    }
    if errors.is_empty() {
        Ok(rules)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(p: &str) -> Vec<String> {
        path::parse(p)
            .unwrap()
            .into_iter()
            .map(|s| s.text)
            .collect()
    }

    fn policy(rows: &[(&str, Strategy)]) -> Policy {
        Policy::new(
            rows.iter()
                .map(|(p, k)| Rule {
                    pattern: Pattern::parse(p).unwrap(),
                    spec: Spec::of(*k),
                    key_span: Span::synthetic(),
                })
                .collect(),
        )
    }

    fn kind(p: &Policy, at: &str) -> Option<Strategy> {
        p.rule_for(&path(at)).map(|r| r.spec.kind)
    }

    #[test]
    fn exact_then_most_literal_star_then_first_regex() {
        let p = policy(&[
            ("^a\\.", Strategy::Hash),
            ("*.*.groups", Strategy::First),
            ("freebsd.*.groups", Strategy::Append),
            ("freebsd.x.groups", Strategy::Deep),
            ("*.y.groups", Strategy::Unique),
            ("^a\\.b", Strategy::Patch),
        ]);
        assert_eq!(kind(&p, "freebsd.x.groups"), Some(Strategy::Deep));
        assert_eq!(
            kind(&p, "freebsd.y.groups"),
            Some(Strategy::Append),
            "a tie on literal count goes to the first written"
        );
        assert_eq!(
            kind(&p, "a.b.groups"),
            Some(Strategy::First),
            "a `*` pattern beats a regex"
        );
        assert_eq!(
            kind(&p, "a.b"),
            Some(Strategy::Hash),
            "the first matching regex wins"
        );
        assert_eq!(kind(&p, "b"), None);
    }

    #[test]
    fn quoted_segments_are_literal() {
        let p = policy(&[
            ("sysctl.\"net.inet.ip.forwarding\"", Strategy::First),
            ("x.\"*\"", Strategy::Hash),
        ]);
        assert_eq!(
            p.rule_for(&["sysctl".into(), "net.inet.ip.forwarding".into()])
                .map(|r| r.spec.kind),
            Some(Strategy::First)
        );
        assert_eq!(
            p.rule_for(&["sysctl".into(), "net".into()])
                .map(|r| r.spec.kind),
            None
        );
        assert_eq!(
            p.rule_for(&["x".into(), "*".into()]).map(|r| r.spec.kind),
            Some(Strategy::Hash)
        );
        assert_eq!(
            p.rule_for(&["x".into(), "y".into()]).map(|r| r.spec.kind),
            None
        );
    }

    #[test]
    fn a_higher_layer_replaces_the_same_pattern_in_place() {
        let mut p = Policy::beryl();
        p.layer(vec![Rule {
            pattern: Pattern::parse("freebsd.\"packages\"").unwrap(),
            spec: Spec::of(Strategy::Unique),
            key_span: Span::synthetic(),
        }]);
        assert_eq!(p.rules().len(), 4);
        assert_eq!(p.rules()[0].spec.kind, Strategy::Unique);
        assert_eq!(kind(&p, "freebsd.disks"), Some(Strategy::First));
    }

    #[test]
    fn a_list_is_named_by_its_by_key_rule_else_by_name() {
        let mut p = policy(&[("a.*.l", Strategy::ByKey), ("b", Strategy::Append)]);
        let mut by_id = Spec::of(Strategy::ByKey);
        by_id.key = "id".into();
        p.layer(vec![Rule {
            pattern: Pattern::parse("a.x.l").unwrap(),
            spec: by_id,
            key_span: Span::synthetic(),
        }]);
        assert_eq!(p.key_field(&path("a.x.l")), "id");
        assert_eq!(p.key_field(&path("a.y.l")), "name");
        assert_eq!(p.key_field(&path("b")), "name");
        assert_eq!(p.key_field(&path("c")), "name");
        assert_eq!(Policy::beryl().key_field(&path("freebsd.users")), "name");
    }

    #[test]
    fn bad_patterns_are_refused() {
        assert!(Pattern::parse("a..b").is_err());
        assert!(
            Pattern::parse("^(")
                .unwrap_err()
                .starts_with("invalid regex")
        );
    }
}
