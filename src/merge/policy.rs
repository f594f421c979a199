//! The rule table: which strategy merges the value at a path.
//!
//! A rule is a row of (path pattern → strategy); the engine asks the table and
//! never branches on a path itself. The built-in rows are Beryl's rules.

use std::fmt;

/// How a higher level's value is folded onto the value inherited so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Mappings merge key by key, recursively; anything else is replaced.
    Deep,
    /// The higher level's value replaces the inherited one, whatever the types.
    Replace,
    /// Lists concatenate (inherited first). With `dedup`, later duplicates are
    /// dropped (deep, typed equality) over the whole result. With `knockout`, a
    /// string item `--x` removes `x` from the inherited list and is dropped.
    Append { dedup: bool, knockout: bool },
    /// List items are mappings identified by the string field `key`; an item
    /// for a known key merges into it (its fields under `<path>.<key value>`),
    /// new keys append. With `knockout`, `key: --x` removes item `x`.
    ByKey { key: String, knockout: bool },
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::Deep => f.write_str("deep"),
            Strategy::Replace => f.write_str("replace"),
            Strategy::Append { dedup: true, .. } => f.write_str("append (unique)"),
            Strategy::Append { .. } => f.write_str("append"),
            Strategy::ByKey { key, .. } => write!(f, "merge by `{key}`"),
        }
    }
}

/// The prefix that marks a knockout item.
pub const KNOCKOUT: &str = "--";

/// One segment of a path pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    Literal(String),
    /// `*`: exactly one segment.
    Any,
}

/// A dotted path pattern such as `freebsd.packages` or `freebsd.users.*.groups`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern(Vec<Seg>);

impl Pattern {
    /// Parses a dotted pattern of plain segments (`*` for any one segment).
    pub fn dotted(text: &str) -> Self {
        Pattern(
            text.split('.')
                .map(|s| {
                    if s == "*" {
                        Seg::Any
                    } else {
                        Seg::Literal(s.to_string())
                    }
                })
                .collect(),
        )
    }

    fn matches(&self, path: &[String]) -> bool {
        self.0.len() == path.len()
            && self.0.iter().zip(path).all(|(seg, p)| match seg {
                Seg::Any => true,
                Seg::Literal(l) => l == p,
            })
    }

    fn literals(&self) -> usize {
        self.0
            .iter()
            .filter(|s| matches!(s, Seg::Literal(_)))
            .count()
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            match seg {
                Seg::Any => f.write_str("*")?,
                Seg::Literal(l) => f.write_str(l)?,
            }
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Rule {
    pub pattern: Pattern,
    pub strategy: Strategy,
}

/// The rule table consulted by the merge engine.
#[derive(Clone, Debug)]
pub struct Policy {
    rules: Vec<Rule>,
}

static DEEP: Strategy = Strategy::Deep;

impl Policy {
    pub fn new(rules: Vec<Rule>) -> Self {
        Self { rules }
    }

    /// Beryl's rules: packages and sudoers append with dedup and knockout,
    /// users merge by name, disks are replaced.
    pub fn beryl() -> Self {
        let append = Strategy::Append {
            dedup: true,
            knockout: true,
        };
        let rule = |p: &str, strategy: Strategy| Rule {
            pattern: Pattern::dotted(p),
            strategy,
        };
        Self::new(vec![
            rule("freebsd.packages", append.clone()),
            rule("freebsd.sudoers", append),
            rule(
                "freebsd.users",
                Strategy::ByKey {
                    key: "name".into(),
                    knockout: true,
                },
            ),
            rule("freebsd.disks", Strategy::Replace),
        ])
    }

    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The strategy for a path: an exact pattern first, then the `*` pattern
    /// with the most literal segments (ties go to the first written), else deep.
    pub fn strategy_for(&self, path: &[String]) -> &Strategy {
        let mut best: Option<&Rule> = None;
        for rule in self.rules.iter().filter(|r| r.pattern.matches(path)) {
            if best.is_none_or(|b| rule.pattern.literals() > b.pattern.literals()) {
                best = Some(rule);
            }
        }
        best.map_or(&DEEP, |r| &r.strategy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(p: &str) -> Vec<String> {
        p.split('.').map(str::to_string).collect()
    }

    #[test]
    fn exact_beats_wildcards_and_more_literals_win() {
        let rule = |p: &str, s: Strategy| Rule {
            pattern: Pattern::dotted(p),
            strategy: s,
        };
        let policy = Policy::new(vec![
            rule("*.*.groups", Strategy::Replace),
            rule(
                "freebsd.*.groups",
                Strategy::Append {
                    dedup: false,
                    knockout: false,
                },
            ),
            rule("freebsd.x.groups", Strategy::Deep),
            rule("*.y.groups", Strategy::Replace),
        ]);
        assert_eq!(
            policy.strategy_for(&path("freebsd.x.groups")),
            &Strategy::Deep
        );
        assert_eq!(
            policy.strategy_for(&path("freebsd.y.groups")),
            &Strategy::Append {
                dedup: false,
                knockout: false
            },
            "a tie on literal count goes to the first written"
        );
        assert_eq!(policy.strategy_for(&path("a.b.groups")), &Strategy::Replace);
        assert_eq!(policy.strategy_for(&path("a.b")), &Strategy::Deep);
    }

    #[test]
    fn beryl_rules_are_exact_paths() {
        let p = Policy::beryl();
        assert_eq!(p.strategy_for(&path("freebsd.disks")), &Strategy::Replace);
        assert_eq!(p.strategy_for(&path("packages")), &Strategy::Deep);
        assert_eq!(p.to_owned().rules().len(), 4);
    }
}
