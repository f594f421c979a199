//! doas.conf as doas reads it, for the one question apply asks: does
//! `doas -n sh -s`, run by the login user, run `sh -s` as root without a
//! password?
//!
//! FreeBSD's doas is the port security/doas (freebsd/freebsd-ports
//! security/doas/Makefile @a0f9b06d: slicer69/doas, installed setuid in
//! `${PREFIX}/bin`), built with `DOAS_CONF="${PREFIX}/etc/doas.conf"`
//! (slicer69/doas Makefile @045f56f0): `/usr/local/etc/doas.conf`, which
//! the package does not install (its pkg-message: "must be created"). What
//! doas does is read in slicer69/doas doas.c @014d8655 and parse.y
//! @91622fcb:
//! - `parseconfig(DOAS_CONF, 1)`: no file is `err(1, "doas is not enabled,
//!   %s")`; a file writable by group or other, or not owned by root, is
//!   refused; any parse error exits 1 after the whole file is read;
//! - `permit()`: the LAST rule that matches decides; a rule matches when its
//!   identity is the user, or `:GROUP` one of the user's groups; its `as`
//!   user, if any, is the target's uid (root); its `cmd`, if any, is the
//!   command word exactly (`sh`), and its `args`, if any, exactly the
//!   arguments (`-s`);
//! - a permit without `nopass` under `-n`: `errx(1, "Authorization
//!   required")`;
//! - the grammar (parse.y): one rule per line, `permit [options] identity
//!   [as target] [cmd command [args ...]]` or `deny identity …`, options
//!   `nopass`, `nolog`, `persist`, `keepenv`, `setenv { … }` (`nopass` and
//!   `persist` together, or two `setenv`, are errors); the lexer splits
//!   words on blanks, `{`, `}` and `#`, reads `"…"` and `\` escapes, joins a
//!   line ending in `\` with the next, and skips `#` comments; a rule must
//!   end with a newline.

/// Where the port's doas reads its rules.
pub(crate) const DOAS_CONF: &str = "/usr/local/etc/doas.conf";

/// One rule of doas.conf.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rule {
    /// The line the rule starts on, from 1.
    pub line: usize,
    pub permit: bool,
    pub nopass: bool,
    pub ident: String,
    pub target: Option<String>,
    pub cmd: Option<String>,
    pub args: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Newline,
    Open,
    Close,
    Word(String),
    Key(&'static str),
}

const KEYWORDS: &[&str] = &[
    "deny", "permit", "as", "cmd", "args", "nopass", "nolog", "persist", "keepenv", "setenv",
];

/// The tokens of `text`, each with its line (from 1), as parse.y's `yylex`
/// reads them; the first lexical error with its line.
fn lex(text: &str) -> Result<Vec<(Tok, usize)>, (usize, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' => {
                i += 1;
                continue;
            }
            '\n' => {
                out.push((Tok::Newline, line));
                line += 1;
                i += 1;
                continue;
            }
            '{' => {
                out.push((Tok::Open, line));
                i += 1;
                continue;
            }
            '}' => {
                out.push((Tok::Close, line));
                i += 1;
                continue;
            }
            '#' => {
                // A comment ends the line; no continuation.
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        let start = line;
        let (mut word, mut quotes, mut escape, mut nonkw, mut quoted) =
            (String::new(), false, false, false, false);
        while i < chars.len() {
            let c = chars[i];
            match c {
                '\0' => return Err((line, "unallowed character NUL".into())),
                '\\' => {
                    escape = !escape;
                    if escape {
                        i += 1;
                        continue;
                    }
                }
                '\n' => {
                    if quotes {
                        return Err((line, "unterminated quotes".into()));
                    }
                    if escape {
                        nonkw = true;
                        escape = false;
                        line += 1;
                        i += 1;
                        continue;
                    }
                    break;
                }
                '{' | '}' | '#' | ' ' | '\t' if !escape && !quotes => break,
                '"' if !escape => {
                    quotes = !quotes;
                    if quotes {
                        nonkw = true;
                        quoted = true;
                    }
                    i += 1;
                    continue;
                }
                _ => {}
            }
            word.push(c);
            escape = false;
            i += 1;
        }
        if i >= chars.len() {
            if escape {
                return Err((line, "unterminated escape".into()));
            }
            if quotes {
                return Err((line, "unterminated quotes".into()));
            }
        }
        if word.is_empty() && !quoted {
            continue;
        }
        let tok = match KEYWORDS.iter().find(|k| !nonkw && **k == word) {
            Some(k) => Tok::Key(k),
            None => Tok::Word(word),
        };
        out.push((tok, start));
    }
    Ok(out)
}

/// The rules of `text`, or the first error as doas prints it (`syntax
/// error at line N`).
pub(crate) fn parse(text: &str) -> Result<Vec<Rule>, String> {
    let toks = lex(text).map_err(|(line, m)| format!("{m} at line {line}"))?;
    let mut rules = Vec::new();
    let mut rest = &toks[..];
    while !rest.is_empty() {
        let end = rest.iter().position(|(t, _)| *t == Tok::Newline);
        let Some(end) = end else {
            // A rule must end with a newline (grammar: rule '\n').
            return Err(format!("syntax error at line {}", rest[0].1));
        };
        let (stmt, next) = rest.split_at(end);
        rest = &next[1..];
        if stmt.is_empty() {
            continue;
        }
        rules.push(rule(stmt)?);
    }
    Ok(rules)
}

/// One rule: `action ident target cmd`.
fn rule(stmt: &[(Tok, usize)]) -> Result<Rule, String> {
    let line = stmt[0].1;
    let syntax = || format!("syntax error at line {line}");
    let mut it = stmt.iter().map(|(t, _)| t).peekable();
    let permit = match it.next() {
        Some(Tok::Key("permit")) => true,
        Some(Tok::Key("deny")) => false,
        _ => return Err(syntax()),
    };
    let (mut nopass, mut persist, mut setenv) = (false, false, false);
    if permit {
        loop {
            match it.peek() {
                Some(Tok::Key("nopass")) => nopass = true,
                Some(Tok::Key("persist")) => persist = true,
                Some(Tok::Key("nolog" | "keepenv")) => {}
                Some(Tok::Key("setenv")) => {
                    it.next();
                    if it.next() != Some(&Tok::Open) {
                        return Err(syntax());
                    }
                    loop {
                        match it.next() {
                            Some(Tok::Word(_)) => {}
                            Some(Tok::Close) => break,
                            _ => return Err(syntax()),
                        }
                    }
                    if setenv {
                        return Err(format!("can't have two setenv sections at line {line}"));
                    }
                    setenv = true;
                    continue;
                }
                _ => break,
            }
            it.next();
            if nopass && persist {
                return Err(format!("can't combine nopass and persist at line {line}"));
            }
        }
    }
    let Some(Tok::Word(ident)) = it.next() else {
        return Err(syntax());
    };
    let mut r = Rule {
        line,
        permit,
        nopass,
        ident: ident.clone(),
        target: None,
        cmd: None,
        args: None,
    };
    if it.peek() == Some(&&Tok::Key("as")) {
        it.next();
        let Some(Tok::Word(t)) = it.next() else {
            return Err(syntax());
        };
        r.target = Some(t.clone());
    }
    if it.peek() == Some(&&Tok::Key("cmd")) {
        it.next();
        let Some(Tok::Word(c)) = it.next() else {
            return Err(syntax());
        };
        r.cmd = Some(c.clone());
        if it.peek() == Some(&&Tok::Key("args")) {
            it.next();
            let mut args = Vec::new();
            for t in it.by_ref() {
                match t {
                    Tok::Word(a) => args.push(a.clone()),
                    _ => return Err(syntax()),
                }
            }
            r.args = Some(args);
        }
    }
    if it.next().is_some() {
        return Err(syntax());
    }
    Ok(r)
}

/// The accounts whose uid is root's in the base system (etc/master.passwd
/// e4452d45): an `as` target doas compares by uid.
const ROOT_UID: &[&str] = &["root", "toor"];

/// The rule that decides `doas -n sh -s` for `user` in `groups` (the last
/// that matches), if any.
pub(crate) fn deciding<'a>(rules: &'a [Rule], user: &str, groups: &[&str]) -> Option<&'a Rule> {
    rules.iter().rev().find(|r| {
        let ident = match r.ident.strip_prefix(':') {
            Some(g) => groups.contains(&g),
            None => r.ident == user,
        };
        ident
            && r.target.as_deref().is_none_or(|t| ROOT_UID.contains(&t))
            && r.cmd.as_deref().is_none_or(|c| c == "sh")
            && r.args.as_deref().is_none_or(|a| a == ["-s"])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decide(
        text: &str,
        user: &str,
        groups: &[&str],
    ) -> Result<Option<(bool, bool, usize)>, String> {
        let rules = parse(text)?;
        Ok(deciding(&rules, user, groups).map(|r| (r.permit, r.nopass, r.line)))
    }

    #[test]
    fn the_last_matching_rule_decides() {
        let conf = "# doas.conf\npermit nopass :wheel\ndeny beryl\n";
        assert_eq!(
            decide(conf, "beryl", &["wheel"]),
            Ok(Some((false, false, 3)))
        );
        assert_eq!(decide(conf, "alice", &["wheel"]), Ok(Some((true, true, 2))));
        assert_eq!(decide(conf, "bob", &["staff"]), Ok(None));
        let conf = "permit beryl as root\npermit nopass keepenv beryl as root cmd sh args -s\n";
        assert_eq!(decide(conf, "beryl", &[]), Ok(Some((true, true, 2))));
        // A password rule last: `-n` cannot give one.
        let conf = "permit nopass beryl\npermit persist beryl\n";
        assert_eq!(decide(conf, "beryl", &[]), Ok(Some((true, false, 2))));
    }

    #[test]
    fn target_command_and_arguments_must_match() {
        for conf in [
            "permit nopass beryl as www\n",
            "permit nopass beryl cmd /bin/sh\n",
            "permit nopass beryl cmd sh args\n",
            "permit nopass beryl cmd sh args -c\n",
        ] {
            assert_eq!(decide(conf, "beryl", &[]), Ok(None), "{conf}");
        }
        for conf in [
            "permit nopass beryl as toor\n",
            "permit nopass beryl cmd sh\n",
            "permit nopass \"beryl\" as \"root\" cmd sh args -s\n",
            "permit nopass setenv { PATH=/bin -HOME } beryl\n",
            "permit nopass beryl \\\n  as root\n",
        ] {
            assert!(
                matches!(decide(conf, "beryl", &[]), Ok(Some((true, true, 1)))),
                "{conf}"
            );
        }
    }

    #[test]
    fn what_doas_refuses_to_parse() {
        for (conf, why) in [
            ("permit nopass beryl", "syntax error at line 1"),
            (
                "permit nopass persist beryl\n",
                "can't combine nopass and persist at line 1",
            ),
            (
                "permit setenv { A } setenv { B } beryl\n",
                "can't have two setenv sections at line 1",
            ),
            ("allow beryl\n", "syntax error at line 1"),
            ("\npermit \"beryl\n", "unterminated quotes at line 2"),
            ("permit nopass beryl as\n", "syntax error at line 1"),
            (
                "permit nopass beryl cmd sh extra\n",
                "syntax error at line 1",
            ),
        ] {
            assert_eq!(parse(conf), Err(why.to_string()), "{conf:?}");
        }
        // A quoted keyword is a name.
        assert_eq!(parse("permit nopass \"deny\"\n").unwrap()[0].ident, "deny");
    }
}
