//! A spec imposed at one path ([`Override`]), and how a lookup of one path
//! chooses its spec ([`Lookup::choose`]), in Hiera's order:
//!
//! 1. an explicit strategy (`beryl lookup --merge`), which beats every table
//!    at the path and below it;
//! 2. the table's rule for the path (exact, then `*`, then `^regex`: the
//!    same selection as every merge), or the one it inherits from the rule
//!    of an ancestor (Hiera's `lookup_options` of the root key);
//! 3. otherwise `first`: the highest level that writes the path wins whole.
//!
//! In every case the value is the engine's fold at the path, from the
//! levels that write it (a level without the path is no data, as in Hiera).

use super::spec::{Spec, Strategy};
use super::{Policy, Rule, SpecOrigin, spec_at};

/// A spec imposed at a path, beating the tables there.
#[derive(Clone, Debug)]
pub struct Override {
    pub at: Vec<String>,
    pub spec: Spec,
    /// The tables are ignored below `at` too, and a rule above it that would
    /// take the value whole yields to `default`, so that the merge reaches
    /// `at` (`beryl lookup --merge`).
    pub whole: bool,
    /// At `at`, only the levels that write the path take part (a lookup).
    pub written_only: bool,
}

/// Where a path stands from an override's path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Relation {
    At,
    /// A path below it.
    Below,
    /// One of its ancestors.
    Above,
    Elsewhere,
}

impl Override {
    /// `beryl merge --strategy`: the spec at the root; the tables still
    /// apply below it.
    pub(crate) fn root(spec: Spec) -> Self {
        Override {
            at: Vec::new(),
            spec,
            whole: false,
            written_only: false,
        }
    }

    pub(crate) fn relation(&self, path: &[String]) -> Relation {
        if path == self.at {
            Relation::At
        } else if path.starts_with(&self.at) {
            Relation::Below
        } else if self.at.starts_with(path) {
            Relation::Above
        } else {
            Relation::Elsewhere
        }
    }
}

/// A lookup of one path, with the strategy given on the command line if any.
#[derive(Clone, Debug)]
pub struct Lookup {
    pub path: Vec<String>,
    pub explicit: Option<Spec>,
}

/// How a lookup's spec was chosen (the steps of the module's list).
#[derive(Clone, Debug)]
pub enum Choice {
    /// Step 1: the strategy given.
    Explicit(Spec),
    /// Step 2: a rule of the table, for the path itself or (with the ancestor
    /// it was written for) inherited from above. `whole` tells that a rule
    /// above takes the value whole, so the path's value is what that rule
    /// merged.
    Rule {
        rule: Rule,
        spec: Spec,
        from: Option<Vec<String>>,
        whole: bool,
    },
    /// Step 3: no rule, so `first`.
    First,
}

impl Lookup {
    /// The override the merge runs with, and why, given the layered table.
    pub(crate) fn choose(&self, policy: &Policy) -> (Option<Override>, Choice) {
        let at = |spec: Spec, whole: bool| Override {
            at: self.path.clone(),
            spec,
            whole,
            written_only: true,
        };
        if let Some(spec) = &self.explicit {
            return (Some(at(spec.clone(), true)), Choice::Explicit(spec.clone()));
        }
        let (spec, origin) = spec_at(policy, &self.path);
        // The nearest ancestor with a rule of its own (the inheritance may
        // pass through ancestors without one).
        let above = (1..self.path.len()).rev().find_map(|depth| {
            policy
                .rule_for(&self.path[..depth])
                .map(|rule| (self.path[..depth].to_vec(), rule.clone()))
        });
        match (origin, above) {
            (SpecOrigin::Rule(rule), _) => (
                Some(at(spec.clone(), false)),
                Choice::Rule {
                    rule,
                    spec,
                    from: None,
                    whole: false,
                },
            ),
            (SpecOrigin::Inherited(_) | SpecOrigin::Whole(_), Some((from, rule))) => {
                let whole = !spec.kind.recurses();
                // A rule above that takes the value whole decides it there:
                // nothing is imposed at the path.
                let forced = (!whole).then(|| at(spec.clone(), false));
                let choice = Choice::Rule {
                    rule,
                    spec,
                    from: Some(from),
                    whole,
                };
                (forced, choice)
            }
            _ => (Some(at(Spec::of(Strategy::First), true)), Choice::First),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::Pattern;
    use crate::value::Span;

    fn policy(rows: &[(&str, Strategy)]) -> Policy {
        let mut p = Policy::beryl();
        p.layer(
            rows.iter()
                .map(|(pat, k)| Rule {
                    pattern: Pattern::parse(pat).unwrap(),
                    spec: Spec::of(*k),
                    key_span: Span::synthetic(),
                })
                .collect(),
        );
        p
    }

    fn choose(p: &Policy, path: &str, explicit: Option<Strategy>) -> (Option<Strategy>, String) {
        let lookup = Lookup {
            path: path.split('.').map(str::to_string).collect(),
            explicit: explicit.map(Spec::of),
        };
        let (forced, choice) = lookup.choose(p);
        let why = match choice {
            Choice::Explicit(s) => format!("explicit {}", s.kind.name()),
            Choice::Rule {
                rule, from, whole, ..
            } => format!(
                "rule {} from {:?} whole {whole}",
                rule.pattern.canonical(),
                from
            ),
            Choice::First => "first".into(),
        };
        (forced.map(|f| f.spec.kind), why)
    }

    #[test]
    fn the_choice_follows_hieras_order() {
        let p = policy(&[
            ("a", Strategy::Deep),
            ("h", Strategy::Hash),
            ("^r", Strategy::Unique),
            ("s.*.l", Strategy::Append),
        ]);
        // 1. explicit beats every rule.
        assert_eq!(
            choose(&p, "a", Some(Strategy::Unique)),
            (Some(Strategy::Unique), "explicit unique".into())
        );
        // 2. an exact rule, a `*` rule, a regex; a root key's rule for a dotted path.
        assert_eq!(
            choose(&p, "a", None),
            (Some(Strategy::Deep), "rule a from None whole false".into())
        );
        assert_eq!(choose(&p, "s.x.l", None).0, Some(Strategy::Append));
        assert_eq!(choose(&p, "r1", None).0, Some(Strategy::Unique));
        assert_eq!(
            choose(&p, "a.b", None),
            (
                Some(Strategy::Deep),
                "rule a from Some([\"a\"]) whole false".into()
            )
        );
        // A rule above that takes the value whole: nothing imposed.
        assert_eq!(
            choose(&p, "a.b.c", None),
            (
                Some(Strategy::Deep),
                "rule a from Some([\"a\"]) whole false".into()
            ),
            "inherited through an ancestor without a rule"
        );
        assert_eq!(
            choose(&p, "h.k", None),
            (None, "rule h from Some([\"h\"]) whole true".into())
        );
        // Built-in rules are rows too.
        assert_eq!(
            choose(&p, "freebsd.packages", None).0,
            Some(Strategy::Append)
        );
        // 3. no rule: first.
        assert_eq!(
            choose(&p, "freebsd.timezone", None),
            (Some(Strategy::First), "first".into())
        );
        assert_eq!(
            choose(&p, "x.y", None),
            (Some(Strategy::First), "first".into())
        );
    }

    #[test]
    fn relations() {
        let o = Override {
            at: vec!["a".into(), "b".into()],
            spec: Spec::of(Strategy::First),
            whole: true,
            written_only: true,
        };
        let rel = |p: &[&str]| o.relation(&p.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(rel(&["a", "b"]), Relation::At);
        assert_eq!(rel(&["a", "b", "c"]), Relation::Below);
        assert_eq!(rel(&["a"]), Relation::Above);
        assert_eq!(rel(&[]), Relation::Above);
        assert_eq!(rel(&["a", "c"]), Relation::Elsewhere);
    }
}
