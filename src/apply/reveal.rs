//! Secrets put back into a unit's steps, for the script sent over SSH and
//! nothing else (docs/secrets.md "Where a secret is decrypted").
//!
//! Every stage before apply holds a secret as its token `‹secret:…›`, and
//! the steps hold it inside a word [`crate::shell::quote`] wrote: between
//! single quotes. Each token is replaced there by its plaintext, written
//! for that place (a `'` as `'\''`), after checking that the place is
//! indeed inside single quotes: a token anywhere else (a comment, double
//! quotes, a bare word) is an error, never a plaintext the shell would
//! read as code. A token no opened file stands for is an error too: a
//! host gets only the secrets of its own chain.

use std::collections::HashMap;

use super::Step;
use crate::secrets::{TOKEN_OPEN, holds_token};

/// Tokens and the plaintexts they stand for, for one unit. Its `Debug`
/// shows the tokens only.
#[derive(Default)]
pub(crate) struct Reveal {
    values: HashMap<String, String>,
}

impl std::fmt::Debug for Reveal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.values.keys()).finish()
    }
}

impl Reveal {
    pub(crate) fn insert(&mut self, token: String, plain: String) {
        self.values.insert(token, plain);
    }

    /// Each plaintext and its token, longest first: what a host's output
    /// is cleaned of ([`Reveal::redact`]).
    pub(crate) fn pairs(&self) -> Vec<(String, String)> {
        let mut p: Vec<(String, String)> = self
            .values
            .iter()
            .filter(|(_, plain)| plain.chars().count() >= MIN_REDACTED)
            .map(|(t, v)| (v.clone(), t.clone()))
            .collect();
        p.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
        p
    }
}

/// The shortest plaintext a host's output is cleaned of: shorter ones
/// would replace ordinary text (docs/secrets.md).
const MIN_REDACTED: usize = 4;

/// A host's output line with each plaintext of `pairs` replaced by its
/// token.
pub(crate) fn redact(line: &str, pairs: &[(String, String)]) -> String {
    let mut out = line.to_string();
    for (plain, token) in pairs {
        if out.contains(plain.as_str()) {
            out = out.replace(plain.as_str(), token);
        }
    }
    out
}

/// Whether any step holds a token: the unit needs its secrets opened.
pub(crate) fn needed(steps: &[Step]) -> bool {
    steps
        .iter()
        .any(|s| holds_token(&s.check) || holds_token(&s.change))
}

/// The steps with every token replaced by its plaintext, or why not.
pub(crate) fn steps(steps: &[Step], reveal: &Reveal) -> Result<Vec<Step>, String> {
    steps
        .iter()
        .map(|s| {
            if s.id.contains(TOKEN_OPEN) {
                return Err(format!("the step {} is named by a secret", s.id));
            }
            revealed_value(s, reveal)?;
            let mut s = s.clone();
            s.check = text(&s.check, reveal).map_err(|e| format!("{}: {e}", s.id))?;
            s.change = text(&s.change, reveal).map_err(|e| format!("{}: {e}", s.id))?;
            Ok(s)
        })
        .collect()
}

/// A secret's plaintext checked as the field it reaches must be, before
/// anything runs as root with it (the schema checked only its token).
/// The error never quotes the plaintext.
fn revealed_value(step: &Step, reveal: &Reveal) -> Result<(), String> {
    if let crate::resource::Want::RootPassword(rp) = &step.desired
        && let Some(plain) = rp.hash.as_ref().and_then(|h| reveal.values.get(h))
        && crate::freebsd::names::password_hash(plain).is_err()
    {
        return Err(
            "root's password hash, once decrypted, is not a crypt(3) hash ($6$…, $5$…, $2b$… or $1$…)"
                .into(),
        );
    }
    Ok(())
}

/// Where a place of a shell text is, as sh reads it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Quoting {
    Bare,
    Single,
    Double,
    Comment,
}

/// `script` with each token replaced by its plaintext, written for the
/// single-quoted word it is in.
pub(crate) fn text(script: &str, reveal: &Reveal) -> Result<String, String> {
    if !holds_token(script) {
        return Ok(script.to_string());
    }
    let mut out = String::with_capacity(script.len());
    let mut state = Quoting::Bare;
    let mut at_word_start = true;
    let mut chars = script.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if script[i..].starts_with(TOKEN_OPEN) {
            let end = script[i..]
                .find('›')
                .map(|e| i + e + '›'.len_utf8())
                .ok_or("a token without its end")?;
            let token = &script[i..end];
            if state != Quoting::Single {
                return Err(format!(
                    "a secret outside a single-quoted word ({state:?}): not written"
                ));
            }
            let plain = reveal
                .values
                .get(token)
                .ok_or("a secret of another host's files, or of none: not written")?;
            if plain.contains('\0') {
                return Err("a secret holds a NUL byte, which no shell word can".into());
            }
            out.push_str(&plain.replace('\'', "'\\''"));
            while chars.peek().is_some_and(|(j, _)| *j < end) {
                chars.next();
            }
            at_word_start = false;
            continue;
        }
        out.push(c);
        state = match (state, c) {
            (Quoting::Bare, '\'') => Quoting::Single,
            (Quoting::Bare, '"') => Quoting::Double,
            (Quoting::Bare, '\\') | (Quoting::Double, '\\') => {
                if let Some((_, n)) = chars.next() {
                    out.push(n);
                }
                state
            }
            (Quoting::Bare, '#') if at_word_start => Quoting::Comment,
            (Quoting::Single, '\'') | (Quoting::Double, '"') => Quoting::Bare,
            (Quoting::Comment, '\n') => Quoting::Bare,
            (s, _) => s,
        };
        at_word_start = state == Quoting::Bare
            && (c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')'));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reveal(pairs: &[(&str, &str)]) -> Reveal {
        let mut r = Reveal::default();
        for (t, v) in pairs {
            r.insert(t.to_string(), v.to_string());
        }
        r
    }

    const T: &str = "‹secret:0123456789ab›";

    #[test]
    fn a_token_in_a_quoted_word_becomes_its_plaintext_written_for_it() {
        let r = reveal(&[(T, "it's $(reboot) `x` \"q\"")]);
        let word = crate::shell::word(&format!("password={T}\n")).unwrap();
        let script = format!("printf '%s' {word} > /etc/x");
        let out = text(&script, &r).unwrap();
        // sh reads the word back as the plaintext, nothing run.
        let run = std::process::Command::new("sh")
            .arg("-c")
            .arg(out.replace("> /etc/x", ""))
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8(run.stdout).unwrap(),
            "password=it's $(reboot) `x` \"q\"\n"
        );
    }

    #[test]
    fn a_token_outside_single_quotes_is_refused() {
        let r = reveal(&[(T, "x")]);
        for script in [
            format!("echo {T}"),
            format!("echo \"{T}\""),
            format!("# {T}\n"),
        ] {
            assert!(text(&script, &r).is_err(), "{script}");
        }
    }

    #[test]
    fn a_token_of_no_opened_file_is_refused() {
        let err = text(&format!("echo '{T}'"), &Reveal::default()).unwrap_err();
        assert!(err.contains("another host"), "{err}");
    }

    #[test]
    fn a_decrypted_root_hash_that_is_no_hash_is_refused_unquoted() {
        use crate::resource::Want;
        use crate::resource::root_password::RootPassword;
        let want = Want::RootPassword(RootPassword {
            hash: Some(T.into()),
        });
        let step = Step::new(want, None).unwrap();
        let err = steps(std::slice::from_ref(&step), &reveal(&[(T, "hunter2")])).unwrap_err();
        assert!(
            err.contains("not a crypt(3) hash") && !err.contains("hunter2"),
            "{err}"
        );
        assert!(steps(&[step], &reveal(&[(T, "$6$salt$abc")])).is_ok());
    }

    #[test]
    fn output_is_cleaned_of_plaintexts_longest_first() {
        let r = reveal(&[
            (T, "hunter2"),
            ("‹secret:bbbbbbbbbbbb›", "hunter2-long"),
            ("‹secret:cccccccccccc›", "abc"),
        ]);
        let pairs = r.pairs();
        assert_eq!(
            redact("x hunter2-long y hunter2 abc", &pairs),
            "x ‹secret:bbbbbbbbbbbb› y ‹secret:0123456789ab› abc"
        );
    }
}
