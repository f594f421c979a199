//! The `$[ … ]` query language (reclass's, with beryl's dotted paths).
//!
//! ```text
//! $[ exports.ip ]                                   FQDN → value, for every host exporting ip
//! $[ exports.ip if exports.role == backup ]         the same, for the hosts that pass the test
//! $[ if exports.role == backup and exports.dc != b ] the sorted FQDNs of the hosts that pass
//! $[ +IgnoreErrors exports.ip ]                     skip hosts whose exports failed
//! ```
//!
//! In reclass's grammar ([`parse_in`] with a delimiter), export paths are
//! `exports:a:b` and `+AllEnvs` asks every environment's hosts.
//!
//! Words are separated by spaces. A test compares an export path with a
//! literal: an integer, a float, `true`/`false` (any case) or any other word,
//! which is a string. `and` and `or` apply left to right, with no precedence,
//! as in reclass. A test on a path that a host does not export is false,
//! with `!=` too.

use crate::value::{Node, Value};

/// A parsed query.
#[derive(Clone, Debug)]
pub(crate) struct Query {
    /// The value to collect (absent for the list form).
    pub value: Option<Vec<String>>,
    /// The tests, joined left to right (empty: every host).
    pub tests: Vec<(Join, Test)>,
    /// `+IgnoreErrors`: hosts whose exports failed are skipped.
    pub ignore_errors: bool,
    /// `+AllEnvs` (reclass's grammar only): hosts of every environment,
    /// not only the asking host's.
    pub all_envs: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Join {
    First,
    And,
    Or,
}

#[derive(Clone, Debug)]
pub(crate) struct Test {
    pub path: Vec<String>,
    pub equal: bool,
    pub literal: Value,
}

/// What a string holding `$[` is.
#[derive(Debug, PartialEq)]
pub(crate) enum Scan {
    /// Exactly one query: its text between `$[` and `]`.
    Query(String),
    /// Escaped (`\$[`): the literal text.
    Literal(String),
    /// A query inside a longer string, or one never closed.
    Bad(&'static str),
}

/// Classifies a string that mentions `$[`.
pub(crate) fn scan(s: &str) -> Scan {
    let unescaped = s.replace("\\$[", "");
    if !unescaped.contains("$[") {
        return Scan::Literal(s.replace("\\$[", "$["));
    }
    match s.strip_prefix("$[").and_then(|r| r.strip_suffix(']')) {
        Some(inner) if !inner.contains(']') && !inner.contains("$[") => {
            Scan::Query(inner.to_string())
        }
        _ if !s.contains(']') => Scan::Bad("`$[` is never closed by `]`"),
        _ => Scan::Bad(
            "an inventory query must be the whole string (write `\\$[` for a literal `$[`)",
        ),
    }
}

/// Whether any string of the node holds `$[` (a query, or an escaped `\$[`).
pub(crate) fn mentions_query(node: &Node) -> bool {
    any_string(node, &|s| s.contains("$["))
}

/// Whether any string of the node is a query, which needs the fleet.
pub(crate) fn asks(node: &Node) -> bool {
    any_string(node, &|s| {
        s.contains("$[") && matches!(scan(s), Scan::Query(_))
    })
}

fn any_string(node: &Node, test: &dyn Fn(&str) -> bool) -> bool {
    match &node.value {
        Value::Str(s) => test(s),
        Value::Seq(items) => items.iter().any(|n| any_string(n, test)),
        Value::Map(m) => m.values().any(|e| any_string(&e.node, test)),
        _ => false,
    }
}

/// Parses the text between `$[` and `]` with beryl's dotted paths.
#[cfg(test)]
pub(crate) fn parse(text: &str) -> Result<Query, String> {
    parse_in(text, None)
}

/// Parses the text between `$[` and `]`, with beryl's dotted export paths
/// (`None`) or reclass's paths joined by `delimiter` (`exports:a:b`), in
/// which `+AllEnvs` is an option too.
pub(crate) fn parse_in(text: &str, delimiter: Option<char>) -> Result<Query, String> {
    let mut words: Vec<&str> = text.split_whitespace().collect();
    let mut ignore_errors = false;
    let mut all_envs = false;
    let is_path = |w: &str| is_path(w, delimiter);
    let export_path = |w: &str| export_path(w, delimiter);
    while let Some(w) = words.first().copied().filter(|w| w.starts_with('+')) {
        if w.eq_ignore_ascii_case("+IgnoreErrors") {
            ignore_errors = true;
        } else if w.eq_ignore_ascii_case("+AllEnvs") && delimiter.is_some() {
            all_envs = true;
        } else if w.eq_ignore_ascii_case("+AllEnvs") {
            return Err("`+AllEnvs` has no meaning in beryl, which has no environments".into());
        } else {
            return Err(format!(
                "unknown option `{w}` (the option is +IgnoreErrors)"
            ));
        }
        words.remove(0);
    }
    let keyword = |w: &str, k: &str| w.eq_ignore_ascii_case(k);
    let (value, rest) = match words.as_slice() {
        [] => return Err("the query is empty: write `$[ exports.PATH ]`".into()),
        [first, rest @ ..] if keyword(first, "if") => (None, rest),
        [path] => (Some(export_path(path)?), &[][..]),
        [path, w, rest @ ..] if keyword(w, "if") => (Some(export_path(path)?), rest),
        [_, w, ..] => return Err(format!("expected `if` after the path, found `{w}`")),
    };
    let mut tests = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        let join = if tests.is_empty() {
            Join::First
        } else if keyword(rest[i], "and") {
            i += 1;
            Join::And
        } else if keyword(rest[i], "or") {
            i += 1;
            Join::Or
        } else {
            return Err(format!("expected `and` or `or`, found `{}`", rest[i]));
        };
        let [left, op, right] = rest
            .get(i..i + 3)
            .and_then(|s| <[&str; 3]>::try_from(s).ok())
            .ok_or_else(|| {
                "a test is `exports.PATH == VALUE` or `exports.PATH != VALUE`".to_string()
            })?;
        let equal = match op {
            "==" => true,
            "!=" => false,
            other => return Err(format!("expected `==` or `!=`, found `{other}`")),
        };
        let (path, literal) = match (is_path(left), is_path(right)) {
            (true, false) => (export_path(left)?, literal(right)?),
            (false, true) => (export_path(right)?, literal(left)?),
            (true, true) => {
                return Err("a test compares an export with a value, not two exports".into());
            }
            (false, false) => {
                return Err(format!("the test `{left} {op} {right}` names no export"));
            }
        };
        tests.push((
            join,
            Test {
                path,
                equal,
                literal,
            },
        ));
        i += 3;
    }
    if value.is_none() && tests.is_empty() {
        return Err("`if` needs a test: `if exports.PATH == VALUE`".into());
    }
    Ok(Query {
        value,
        tests,
        ignore_errors,
        all_envs,
    })
}

fn is_path(word: &str, delimiter: Option<char>) -> bool {
    let d = delimiter.unwrap_or('.');
    word == "exports"
        || word
            .strip_prefix("exports")
            .is_some_and(|r| r.starts_with(d))
}

/// `exports.a.b` (or `exports:a:b` with a delimiter) → `[a, b]`.
fn export_path(word: &str, delimiter: Option<char>) -> Result<Vec<String>, String> {
    if word.starts_with("self.") || word.starts_with("self:") {
        return Err("`self.` paths are not supported: compare exports with literal values".into());
    }
    if let Some(d) = delimiter {
        let keys = crate::syntax::path::split(word, d);
        return match keys.split_first() {
            Some((first, rest)) if first == "exports" && !rest.is_empty() => Ok(rest.to_vec()),
            _ => Err(format!(
                "`{word}` is not an export path: it starts with `exports{d}`"
            )),
        };
    }
    if word.contains(':') && !word.contains('"') {
        return Err(format!(
            "`{word}`: paths are dotted in beryl (`exports.a.b`, not `exports:a:b`)"
        ));
    }
    let segs = crate::syntax::path::parse(word).map_err(|e| format!("bad path `{word}`: {e}"))?;
    match segs.split_first() {
        Some((first, rest)) if first.text == "exports" && !first.quoted && !rest.is_empty() => {
            Ok(rest.iter().map(|s| s.text.clone()).collect())
        }
        _ => Err(format!(
            "`{word}` is not an export path: it starts with `exports.`"
        )),
    }
}

fn literal(word: &str) -> Result<Value, String> {
    if word.starts_with("self.") || word.starts_with("self:") {
        return Err("`self.` paths are not supported: compare exports with literal values".into());
    }
    let digits = word.strip_prefix('-').unwrap_or(word);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return word
            .parse()
            .map(Value::Int)
            .map_err(|_| format!("`{word}` is too large an integer"));
    }
    let (int, frac) = digits.split_once('.').unwrap_or(("x", "x"));
    let numeric = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if numeric(int)
        && numeric(frac)
        && !(int.is_empty() && frac.is_empty())
        && let Ok(f) = word.parse::<f64>()
    {
        return Ok(Value::Float(f));
    }
    if word.eq_ignore_ascii_case("true") {
        return Ok(Value::Bool(true));
    }
    if word.eq_ignore_ascii_case("false") {
        return Ok(Value::Bool(false));
    }
    Ok(Value::Str(word.to_string()))
}

impl Query {
    /// Whether a host's exports pass the tests.
    pub(crate) fn passes(&self, exports: &Node) -> bool {
        let mut result = true;
        for (join, test) in &self.tests {
            let here = test.passes(exports);
            result = match join {
                Join::First => here,
                Join::And => result && here,
                Join::Or => result || here,
            };
        }
        result
    }
}

impl Test {
    fn passes(&self, exports: &Node) -> bool {
        match lookup(exports, &self.path) {
            Some(v) => equal(&v.value, &self.literal) == self.equal,
            None => false,
        }
    }
}

/// The node at a path of mapping keys.
pub(crate) fn lookup<'n>(root: &'n Node, path: &[String]) -> Option<&'n Node> {
    path.iter().try_fold(root, |n, k| n.get(k))
}

/// Equality as Python's between a YAML value and a literal: numbers compare
/// by value across integers and floats; other kinds by type and value.
fn equal(v: &Value, literal: &Value) -> bool {
    match (v, literal) {
        (Value::Int(a), Value::Float(b)) | (Value::Float(b), Value::Int(a)) => (*a as f64) == *b,
        (Value::Float(a), Value::Float(b)) => a == b,
        (a, b) => a.same(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans() {
        assert_eq!(scan("$[ exports.ip ]"), Scan::Query(" exports.ip ".into()));
        assert_eq!(scan(r"a \$[ b ]"), Scan::Literal("a $[ b ]".into()));
        assert!(matches!(scan("ip: $[ exports.ip ]"), Scan::Bad(_)));
        assert!(matches!(scan("$[ exports.ip"), Scan::Bad(_)));
    }

    #[test]
    fn forms() {
        let q = parse(" exports.ip ").unwrap();
        assert_eq!(q.value, Some(vec!["ip".to_string()]));
        assert!(q.tests.is_empty());
        let q = parse("exports.net.ip if exports.role == backup AND exports.n != 2").unwrap();
        assert_eq!(q.value.unwrap(), ["net", "ip"]);
        assert_eq!(q.tests.len(), 2);
        assert_eq!(q.tests[1].0, Join::And);
        assert!(q.tests[1].1.literal.same(&Value::Int(2)));
        let q = parse("+IgnoreErrors if backup == exports.role or exports.x == True").unwrap();
        assert!(q.ignore_errors && q.value.is_none());
        assert!(q.tests[0].1.literal.same(&Value::Str("backup".into())));
        assert!(q.tests[1].1.literal.same(&Value::Bool(true)));
        assert!(
            parse("if exports.f == 1.5").unwrap().tests[0]
                .1
                .literal
                .same(&Value::Float(1.5))
        );
    }

    #[test]
    fn errors() {
        for bad in [
            "",
            "if",
            "ip",
            "exports",
            "exports.ip when x",
            "exports:ip",
            "if exports.a = b",
            "if exports.a == b c",
            "if exports.a == exports.b",
            "if a == b",
            "if exports.a == self.b",
            "+AllEnvs exports.a",
            "+Nope exports.a",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn reclass_paths_and_all_envs() {
        let q = parse_in(
            "+AllEnvs +IgnoreErrors exports:net:ip if exports:role == backup",
            Some(':'),
        )
        .unwrap();
        assert!(q.all_envs && q.ignore_errors);
        assert_eq!(q.value.unwrap(), ["net", "ip"]);
        assert_eq!(q.tests[0].1.path, ["role"]);
        // Dots are key characters there.
        let q = parse_in("exports:a.b", Some(':')).unwrap();
        assert_eq!(q.value.unwrap(), ["a.b"]);
        assert!(!parse_in("exports:a", Some(':')).unwrap().all_envs);
        assert!(parse_in("exports.a", Some(':')).is_err());
        assert!(parse("+AllEnvs exports.a").is_err());
    }

    #[test]
    fn left_to_right() {
        let src = crate::value::Source::new("e.yml", "a: 1\nb: x\n");
        let exports = crate::yaml::parse(&src, &Default::default()).unwrap();
        // (false or true) and true: true; with precedence it would be the same,
        // so also: (true or false) and false = false (precedence would say true).
        let q = parse("if exports.a == 1 or exports.b == y and exports.b == z").unwrap();
        assert!(!q.passes(&exports));
        let q = parse("if exports.a == 1.0 and exports.b != y").unwrap();
        assert!(q.passes(&exports));
        let q = parse("if exports.missing != 1").unwrap();
        assert!(!q.passes(&exports));
    }
}
