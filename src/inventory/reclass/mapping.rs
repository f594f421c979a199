//! `class_mappings`: classes given to a node by its name (or its path under
//! nodes_uri with `class_mappings_match_path`). Each rule is `PATTERN CLASS…`,
//! split like Python's `shlex` in POSIX mode; a pattern `/…/` is a regex
//! searched anywhere in the name, whose groups the classes may name as `\1`
//! or `\g<name>`; any other pattern is a shell glob (`fnmatchcase`: `*`
//! matches `/` too). Survey §6, kapicorp `core.py:56-98`.

use super::Code;
use crate::diag::{Diag, Diags};
use crate::value::Node;

/// The classes the rules give to a node whose match name is `name`, in rule
/// order, each once.
pub(crate) fn classes(rules: &[Node], name: &str) -> Result<Vec<String>, Diags> {
    let mut out: Vec<String> = Vec::new();
    let mut errors = Vec::new();
    for rule in rules {
        match apply(rule, name) {
            Ok(found) => {
                for c in found {
                    if !out.contains(&c) {
                        out.push(c);
                    }
                }
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

fn apply(rule: &Node, name: &str) -> Result<Vec<String>, Diag> {
    let bad = |why: String| {
        Diag::new(Code::Mapping, format!("class mapping: {why}")).label(&rule.span, "this rule")
    };
    let Some(text) = rule.as_str() else {
        return Err(bad("a rule is a string `PATTERN CLASS…`".into()));
    };
    let (key, classes) = split(text).map_err(bad)?;
    if let Some(pattern) = key.strip_prefix('/').and_then(|k| k.strip_suffix('/')) {
        // Python's `re` has look-around (a real inventory uses `(?!…)`),
        // which only fancy-regex of the Rust engines gives.
        let re = fancy_regex::RegexBuilder::new(pattern)
            .delegate_size_limit(1 << 20)
            .build()
            .map_err(|e| bad(format!("invalid regex /{pattern}/: {e}")))?;
        let caps = match re.captures(name) {
            Ok(Some(caps)) => caps,
            Ok(None) => return Ok(Vec::new()),
            Err(e) => return Err(bad(format!("regex /{pattern}/ on {name:?}: {e}"))),
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
}
