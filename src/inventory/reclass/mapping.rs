//! `class_mappings`: classes given to a node by its name (or its path under
//! nodes_uri with `class_mappings_match_path`). Each rule is `PATTERN CLASS…`,
//! split like Python's `shlex` in POSIX mode; a pattern `/…/` is a regex
//! searched anywhere in the name, whose groups the classes may name as `\1`
//! or `\g<name>`; any other pattern is a shell glob (`fnmatchcase`: `*`
//! matches `/` too). Survey §6, kapicorp `core.py:56-98`.
//!
//! A regex with look-around runs on fancy-regex's backtracking VM, whose
//! time a pattern like `(a|aa)+(?=q)` makes exponential in the name. Each
//! match is bounded ([`MATCH_STEPS`]) and so are all of a run's matches
//! together ([`Budget`]): kapicorp (`Core._match_regexp`, `re.search`) has
//! no bound at all.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::Code;
use crate::diag::{Diag, Diags};
use crate::limits::Limit;
use crate::value::Node;

/// Backtracking steps a match may take without drawing on the run's budget:
/// a pattern on a node name (a file name) that needs more is pathological.
pub(crate) const CHEAP_STEPS: usize = 10_000;
/// Backtracking steps of one match: fancy-regex's own default.
pub(crate) const MATCH_STEPS: usize = 1_000_000;
/// Backtracking steps that the matches past [`CHEAP_STEPS`] may take
/// together in one run: ten full matches.
pub(crate) const RUN_STEPS: usize = 10 * MATCH_STEPS;

/// The backtracking budget of one run's class mappings, shared by every node
/// (the options of one inventory hold one). A rule that exceeds a bound is
/// stopped: later nodes get its error without matching it again.
#[derive(Debug, Default)]
pub struct Budget {
    /// Steps granted to matches past [`CHEAP_STEPS`], each charged in full.
    spent: AtomicUsize,
    /// Rule index → why it was stopped.
    stopped: Mutex<BTreeMap<usize, String>>,
}

impl Budget {
    /// Grants up to [`MATCH_STEPS`] from what is left (0 when spent).
    fn grant(&self) -> usize {
        let mut granted = 0;
        let _ = self
            .spent
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |spent| {
                granted = RUN_STEPS.saturating_sub(spent).min(MATCH_STEPS);
                Some(spent + granted)
            });
        granted
    }

    fn stopped(&self, rule: usize) -> Option<String> {
        let stopped = self.stopped.lock().unwrap_or_else(|e| e.into_inner());
        stopped.get(&rule).cloned()
    }

    fn stop(&self, rule: usize, why: &str) {
        let mut stopped = self.stopped.lock().unwrap_or_else(|e| e.into_inner());
        stopped.entry(rule).or_insert_with(|| why.to_string());
    }
}

/// The classes the rules give to a node whose match name is `name`, in rule
/// order, each once. A rule that exceeds the backtracking bounds ends the
/// node's rules with its error: the node fails whatever the rules after it
/// give.
pub(crate) fn classes(rules: &[Node], name: &str, budget: &Budget) -> Result<Vec<String>, Diags> {
    let mut out: Vec<String> = Vec::new();
    let mut errors = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        match apply(rule, i, name, budget) {
            Ok(found) => {
                for c in found {
                    if !out.contains(&c) {
                        out.push(c);
                    }
                }
            }
            Err(e) if e.code.starts_with("beryl::limit::") => {
                errors.push(e);
                break;
            }
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// Searches `re` in `name` within the bounds: [`CHEAP_STEPS`] first, then a
/// grant from the run's budget. `Err` is why the rule stops.
fn search<'t>(
    re_for: impl Fn(usize) -> Result<fancy_regex::Regex, String>,
    name: &'t str,
    budget: &Budget,
) -> Result<Result<Option<fancy_regex::Captures<'t, str>>, String>, String> {
    let over = |e: &fancy_regex::Error| {
        matches!(
            e,
            fancy_regex::Error::RuntimeError(
                fancy_regex::RuntimeError::BacktrackLimitExceeded
                    | fancy_regex::RuntimeError::StackOverflow
            )
        )
    };
    let cheap = re_for(CHEAP_STEPS).map_err(|e| e.to_string());
    let cheap = match cheap {
        Ok(re) => re.captures(name),
        Err(e) => return Ok(Err(e)),
    };
    match cheap {
        Ok(found) => return Ok(Ok(found)),
        Err(e) if !over(&e) => return Ok(Err(e.to_string())),
        Err(_) => {}
    }
    let granted = budget.grant();
    if granted == 0 {
        return Err(format!(
            "the class mappings of this run used up their {RUN_STEPS} backtracking steps \
             before this rule was matched against {name:?}"
        ));
    }
    let re = re_for(granted).map_err(|e| e.to_string())?;
    match re.captures(name) {
        Ok(found) => Ok(Ok(found)),
        Err(e) if over(&e) && granted < MATCH_STEPS => Err(format!(
            "the class mappings of this run used up their {RUN_STEPS} backtracking steps \
             matching this rule against {name:?}"
        )),
        Err(e) if over(&e) => Err(format!(
            "the regex needs more than {MATCH_STEPS} backtracking steps to match {name:?}"
        )),
        Err(e) => Ok(Err(e.to_string())),
    }
}

fn apply(rule: &Node, index: usize, name: &str, budget: &Budget) -> Result<Vec<String>, Diag> {
    let bad = |why: String| {
        Diag::new(Code::Mapping, format!("class mapping: {why}")).label(&rule.span, "this rule")
    };
    let Some(text) = rule.as_str() else {
        return Err(bad("a rule is a string `PATTERN CLASS…`".into()));
    };
    let (key, classes) = split(text).map_err(bad)?;
    if let Some(pattern) = key.strip_prefix('/').and_then(|k| k.strip_suffix('/')) {
        let limit = |why: String| {
            Limit::RegexSteps
                .diag(format!("class mapping /{pattern}/: {why}"))
                .label(&rule.span, "this rule")
        };
        if let Some(why) = budget.stopped(index) {
            return Err(limit(why));
        }
        // Python's `re` has look-around (a real inventory uses `(?!…)`),
        // which only fancy-regex of the Rust engines gives.
        let build = |steps: usize| {
            fancy_regex::RegexBuilder::new(pattern)
                .delegate_size_limit(1 << 20)
                .backtrack_limit(steps)
                .build()
                .map_err(|e| format!("invalid regex /{pattern}/: {e}"))
        };
        let caps = match search(build, name, budget) {
            Ok(Ok(Some(caps))) => caps,
            Ok(Ok(None)) => return Ok(Vec::new()),
            Ok(Err(e)) if e.starts_with("invalid regex") => return Err(bad(e)),
            Ok(Err(e)) => return Err(bad(format!("regex /{pattern}/ on {name:?}: {e}"))),
            Err(why) => {
                budget.stop(index, &format!("stopped: {why}"));
                return Err(limit(why));
            }
        };
        classes
            .iter()
            .map(|c| expand(c, &caps).map_err(&bad))
            .collect()
    } else {
        let glob = globset::GlobBuilder::new(&key)
            .literal_separator(false)
            .backslash_escape(false)
            .build()
            .map_err(|e| bad(format!("invalid glob {key:?}: {e}")))?
            .compile_matcher();
        Ok(if glob.is_match(name) {
            classes
        } else {
            Vec::new()
        })
    }
}

/// Splits a rule like `shlex.shlex(posix=True, whitespace_split=True)`, with
/// `/` a quote when the rule starts with one. The pattern of a regex rule is
/// given back between slashes.
pub(crate) fn split(text: &str) -> Result<(String, Vec<String>), String> {
    let regex = text.starts_with('/');
    let mut words: Vec<String> = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if let Some(w) = word.take() {
                    words.push(w);
                }
            }
            '\\' => {
                let w = word.get_or_insert_with(String::new);
                match chars.next() {
                    Some(n) => w.push(n),
                    None => return Err(format!("{text:?} ends with a lone backslash")),
                }
            }
            '\'' | '"' | '/' if c != '/' || regex => {
                let w = word.get_or_insert_with(String::new);
                let mut closed = false;
                while let Some(n) = chars.next() {
                    if n == c {
                        closed = true;
                        break;
                    }
                    // In `"` and `/` quotes a backslash escapes only the
                    // quote or itself; in `'` nothing is escaped.
                    if n == '\\'
                        && c != '\''
                        && let Some(&next) = chars.peek()
                        && (next == c || next == '\\')
                    {
                        w.push(next);
                        chars.next();
                        continue;
                    }
                    w.push(n);
                }
                if !closed {
                    return Err(format!("{text:?}: missing closing quote (or slash)"));
                }
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    if let Some(w) = word.take() {
        words.push(w);
    }
    let mut words = words.into_iter();
    let Some(mut key) = words.next() else {
        return Err("the rule is empty".into());
    };
    if regex {
        key = format!("/{key}/");
    }
    Ok((key, words.collect()))
}

/// Python's `Match.expand`: `\1`…`\99` and `\g<name|number>` give a group
/// (empty when it did not take part), `\\` a backslash, `\n` and `\t` their
/// characters.
fn expand(template: &str, caps: &fancy_regex::Captures<'_, str>) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = template.chars().peekable();
    let group = |g: &str| -> Result<String, String> {
        let m = match g.parse::<usize>() {
            Ok(i) if i < caps.len() => caps.get(i),
            Ok(i) => return Err(format!("invalid group reference {i} in {template:?}")),
            Err(_) => caps.name(g),
        };
        Ok(m.map_or("", |m| m.as_str()).to_string())
    };
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some(d @ '0'..='9') => {
                let mut num = d.to_string();
                if let Some(&e @ '0'..='9') = chars.peek() {
                    num.push(e);
                    chars.next();
                }
                out.push_str(&group(&num)?);
            }
            Some('g') if chars.peek() == Some(&'<') => {
                chars.next();
                let name: String = chars.by_ref().take_while(|&c| c != '>').collect();
                out.push_str(&group(&name)?);
            }
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(list: &[&str]) -> Vec<Node> {
        list.iter().map(|s| Node::str(s.to_string())).collect()
    }

    /// Expected splits from kapicorp-reclass 2.0's `Core._shlex_split`.
    #[test]
    fn splits_like_kapicorp() {
        let s = |t: &str| split(t).unwrap();
        assert_eq!(s("node*    two"), ("node*".into(), vec!["two".into()]));
        assert_eq!(s("alpha/node*    three").0, "alpha/node*");
        let (k, c) = s(r"/(test)\/.*/ regex.rust-\\1 x.y");
        assert_eq!(k, "/(test)/.*/");
        assert_eq!(c, [r"regex.rust-\1", "x.y"]);
        assert_eq!(s(r"/^a(.*)$/ c.\1 ${x}").1, ["c.1", "${x}"]);
        assert!(split("/abc def").is_err());
    }

    /// kr-data-04 (kapicorp's tests/data/04 with test_core.py's options):
    /// node `node1` gets `two` by name; with the match path `alpha/node1`
    /// both rules match.
    #[test]
    fn globs_and_regexes() {
        let r = rules(&["node*    two", "alpha/node*    three"]);
        let b = Budget::default();
        let classes = |r: &[Node], n: &str| classes(r, n, &b);
        assert_eq!(classes(&r, "node1").unwrap(), ["two"]);
        assert_eq!(classes(&r, "alpha/node1").unwrap(), ["three"]);
        assert_eq!(classes(&r, "./node1").unwrap(), Vec::<String>::new());
        let r = rules(&["* common", r"/^(\w+)\.(\w+)$/ role.\\2 site.\\g<1> common"]);
        // Look-ahead, as rrs-class-mapping's `/^test(?!.*-stg-test).*/`.
        let ahead = rules(&[r"/^test(?!.*-stg-test).*/ prod"]);
        assert_eq!(classes(&ahead, "test-a").unwrap(), ["prod"]);
        assert!(classes(&ahead, "test-stg-test").unwrap().is_empty());
        assert_eq!(
            classes(&r, "web.eu").unwrap(),
            ["common", "role.eu", "site.web"]
        );
        let e = classes(&rules(&["/(/ x"]), "a").unwrap_err();
        assert_eq!(e[0].code, "beryl::reclass::mapping");
    }

    /// The issue's attack: rules that exceed fancy-regex's backtracking limit
    /// on every node. The first match past the limit stops the rule; every
    /// node then fails at once, with one located `beryl::limit` error.
    #[test]
    fn a_rule_past_the_backtracking_limit_is_stopped_once() {
        let r: Vec<Node> = (0..20)
            .map(|i| Node::str(format!("/^(a|aa)+(?=q{i})$/ m")))
            .collect();
        let b = Budget::default();
        for n in 0..301 {
            let name = format!("{}{n}", "a".repeat(30));
            let e = classes(&r, &name, &b).unwrap_err();
            assert_eq!(e.len(), 1, "{n}");
            assert_eq!(e[0].code, "beryl::limit::regex_steps");
            let stopped = if n == 0 { "more than" } else { "stopped" };
            assert!(e[0].message.contains(stopped), "{n}: {}", e[0].message);
        }
        assert_eq!(
            b.spent.load(Ordering::Relaxed),
            MATCH_STEPS,
            "one full match"
        );
    }

    /// Matches that each stay under the per-match limit but past the cheap
    /// one draw on the run's budget, which ends them after ten.
    #[test]
    fn the_run_budget_bounds_matches_under_the_limit() {
        let r = rules(&["/^(a|aa)+(?=q)$/ m"]);
        let b = Budget::default();
        let name = "a".repeat(20);
        let mut failed = 0;
        for _ in 0..30 {
            match classes(&r, &name, &b) {
                Ok(c) => assert!(c.is_empty()),
                Err(e) => {
                    assert_eq!(e[0].code, "beryl::limit::regex_steps");
                    failed += 1;
                }
            }
        }
        assert_eq!(failed, 20, "ten grants, then the budget is spent");
        // A cheap regex never draws on it.
        let cheap = rules(&[r"/^test(?!.*-stg-test).*/ prod"]);
        assert_eq!(
            classes(&cheap, "test-a", &Budget::default()).unwrap(),
            ["prod"]
        );
    }
}
