//! The one quoting function for generated shell.
//!
//! Every value that reaches a generated script goes through [`quote`]: a word
//! of safe characters stays bare, anything else is single-quoted, with `'`
//! written as `'\''` (shlex). A NUL byte can't be passed to a command at all,
//! so it is refused; validation rejects it earlier with a location.

use std::borrow::Cow;

/// Quotes `s` as one shell word.
pub fn quote(s: &str) -> Result<Cow<'_, str>, QuoteError> {
    shlex::try_quote(s).map_err(|_| QuoteError)
}

/// The value held a NUL byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuoteError;

impl std::fmt::Display for QuoteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a NUL byte cannot be passed to a shell command")
    }
}

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
