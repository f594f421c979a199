//! The one quoting function for generated shell.
//!
//! Every value that reaches a generated script (the installerconfig of
//! `beryl plan`, the apply and facts scripts of `beryl apply`) goes through
//! [`quote`]: a word of safe characters stays bare, anything else is
//! single-quoted, with `'` written as `'\''` (shlex). A NUL byte can't be
//! passed to a command at all, so it is an error, never a silent `''`;
//! validation rejects it earlier with a location.
//!
//! [`Sh`] is the same rule for text built from several quoted words: a
//! command line whose every value went through [`quote`].

use std::borrow::Cow;

/// Quotes `s` as one shell word: bare when every character is safe, else
/// in single quotes when it holds none, else as shlex mixes quotes.
///
/// Every value of every generated script passes here (validation builds the
/// apply script of each host), so the two common cases are decided in one
/// pass over the bytes, without shlex: a word of shlex's bare characters,
/// and a value without `'` (one pair of single quotes). Only a value with a
/// `'` goes through shlex's mixed quoting.
pub fn quote(s: &str) -> Result<Cow<'_, str>, QuoteError> {
    let bytes = s.as_bytes();
    if bytes.contains(&b'\'') {
        // A secret's token must stay between single quotes, where apply
        // puts its plaintext back (src/apply/reveal.rs): no double quotes
        // around it, whatever shlex would choose.
        if s.contains(SEALED) {
            if bytes.contains(&0) {
                return Err(QuoteError);
            }
            return Ok(Cow::Owned(format!("'{}'", s.replace('\'', "'\\''"))));
        }
        return shlex::try_quote(s).map_err(|_| QuoteError);
    }
    if bytes.contains(&0) {
        return Err(QuoteError);
    }
    if !bytes.is_empty() && bytes.iter().all(|&b| bare(b)) {
        return Ok(Cow::Borrowed(s));
    }
    let mut q = String::with_capacity(s.len() + 2);
    q.push('\'');
    q.push_str(s);
    q.push('\'');
    Ok(Cow::Owned(q))
}

/// How a secret's token begins (`crate::secrets::TOKEN_OPEN`, which a test
/// holds equal: this module comes first in the layers).
pub(crate) const SEALED: &str = "‹secret:";

/// The characters shlex leaves unquoted (shlex 2's `unquoted_ok`): a word of
/// only these is its own quoting.
fn bare(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.' | b'/' | b':' | b'@' | b']' | b'_')
}

/// Quotes `s` as one shell word, owned.
pub(crate) fn word(s: &str) -> Result<String, QuoteError> {
    quote(s).map(Cow::into_owned)
}

/// Quotes each word and joins them with spaces: one command line.
pub(crate) fn words<S: AsRef<str>>(items: &[S]) -> Result<String, QuoteError> {
    let quoted: Result<Vec<String>, QuoteError> = items.iter().map(|s| word(s.as_ref())).collect();
    Ok(quoted?.join(" "))
}

/// The value held a NUL byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuoteError;

impl std::fmt::Display for QuoteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a NUL byte cannot be passed to a shell command")
    }
}

impl std::error::Error for QuoteError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_words_stay_bare_and_the_rest_is_single_quoted() {
        assert_eq!(quote("ada0").unwrap(), "ada0");
        assert_eq!(quote("/home/alice/.ssh").unwrap(), "/home/alice/.ssh");
        assert_eq!(quote("").unwrap(), "''");
        assert_eq!(quote("a b").unwrap(), "'a b'");
        assert_eq!(quote("it's").unwrap(), r#""it's""#);
        assert_eq!(quote("it's $x").unwrap(), r#""it's "'$x'"#);
        assert_eq!(quote("$(touch MARK)").unwrap(), "'$(touch MARK)'");
        assert!(quote("a\0b").is_err());
        assert_eq!(
            quote("sub(/^[ \\t]+/, \"\", w)").unwrap(),
            "'sub(/^[ \\t]+/, \"\", w)'"
        );
        assert_eq!(
            words(&["pw", "useradd", "a b"]).unwrap(),
            "pw useradd 'a b'"
        );
        assert!(words(&["ok", "a\0b"]).is_err());
    }

    /// The fast paths quote as the rule above does through shlex: every
    /// printable ASCII character and a few others, alone and in words.
    #[test]
    fn fast_paths_quote_as_shlex_does() {
        let through_shlex = |s: &str| -> Result<String, QuoteError> {
            let q = shlex::try_quote(s).map_err(|_| QuoteError)?;
            if q == s || s.contains('\'') {
                return Ok(q.into_owned());
            }
            Ok(format!("'{s}'"))
        };
        let mut values: Vec<String> = vec![String::new(), "\0".into(), "a\0'".into()];
        for c in (0u8..0x80).map(char::from).chain(['é', '\u{a0}', '✓']) {
            for v in [
                format!("{c}"),
                format!("a{c}b"),
                format!("{c}'"),
                format!("x{c}{c}"),
            ] {
                values.push(v);
            }
        }
        for v in &values {
            assert_eq!(quote(v).map(Cow::into_owned), through_shlex(v), "{v:?}");
        }
    }

    /// The quoted word, read back by a real shell, is the value again.
    #[test]
    fn round_trips_through_sh() {
        let values = [
            "plain", "a b", "it's", "$(x)", "`x`", "\"q\"", "a\nb", "*", "-x", "é ✓", "\\", "!",
        ];
        for v in values {
            let script = format!("printf '%s' {}", quote(v).unwrap());
            let out = std::process::Command::new("sh")
                .args(["-c", &script])
                .output()
                .unwrap();
            assert_eq!(String::from_utf8(out.stdout).unwrap(), v, "{script}");
        }
    }
}
