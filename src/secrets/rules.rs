//! Which values of a SOPS file are encrypted: the file's own rules, in its
//! `sops:` metadata, as SOPS applies them (sops.go, `shouldBeEncrypted`,
//! read at getsops/sops 15e36f97a): by default every value, unless a key
//! on its path ends in `unencrypted_suffix`; with `encrypted_suffix`,
//! `encrypted_regex` or `encrypted_comment_regex`, only the values they
//! select; `unencrypted_regex` and `unencrypted_comment_regex` take values
//! out. A regex is matched against each key of the path (list items add
//! none), or against each comment line written just before the value or
//! before one of the keys and items above it (that comment's text after
//! `#`). The rules are applied in that order, each later one overriding.
//!
//! beryl writes `encrypted_comment_regex: sops:enc` and a `# sops:enc`
//! line above each secret: a value is marked where it is, and every other
//! value of the file stays plain text.

use regex::Regex;

/// One rule of the metadata: its key and how it acts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Act {
    /// A key of the path ends with the text: not encrypted.
    UnencryptedSuffix,
    /// Only values with a key of the path ending with the text.
    EncryptedSuffix,
    /// A key of the path matches: not encrypted.
    UnencryptedRegex,
    /// Only values with a key of the path matching.
    EncryptedRegex,
    /// A comment before the value or an enclosing item matches: not encrypted.
    UnencryptedComment,
    /// Only values with such a comment.
    EncryptedComment,
}

/// The rows: each metadata key, what it does, in SOPS's order.
const RULES: [(&str, Act); 6] = [
    ("unencrypted_suffix", Act::UnencryptedSuffix),
    ("encrypted_suffix", Act::EncryptedSuffix),
    ("unencrypted_regex", Act::UnencryptedRegex),
    ("encrypted_regex", Act::EncryptedRegex),
    ("unencrypted_comment_regex", Act::UnencryptedComment),
    ("encrypted_comment_regex", Act::EncryptedComment),
];

/// The metadata keys of the rules.
pub(crate) fn keys() -> impl Iterator<Item = &'static str> {
    RULES.iter().map(|(k, _)| *k)
}

/// A file's rules, as its metadata gives them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rules {
    rules: Vec<(Act, String, Option<Regex>)>,
}

impl Rules {
    /// Adds the rule of metadata key `key` with value `text`; an error says
    /// why the regex does not compile.
    pub(crate) fn add(&mut self, key: &str, text: &str) -> Result<(), String> {
        let Some((_, act)) = RULES.iter().find(|(k, _)| *k == key) else {
            return Ok(());
        };
        if text.is_empty() {
            return Ok(());
        }
        let regex = match act {
            Act::UnencryptedSuffix | Act::EncryptedSuffix => None,
            _ => Some(Regex::new(text).map_err(|e| format!("`{key}` is not a regex: {e}"))?),
        };
        self.rules.push((*act, text.to_string(), regex));
        self.rules
            .sort_by_key(|(a, _, _)| RULES.iter().position(|(_, r)| r == a));
        Ok(())
    }

    /// Whether the rules use comments: the walk collects them only then.
    pub(crate) fn reads_comments(&self) -> bool {
        self.rules
            .iter()
            .any(|(a, _, _)| matches!(a, Act::UnencryptedComment | Act::EncryptedComment))
    }

    /// Whether the value at `keys` (the mapping keys above it) with the
    /// comment lines `comments` (before it and before each item above it)
    /// is encrypted.
    pub(crate) fn encrypted(&self, keys: &[&str], comments: &[&str]) -> bool {
        let mut encrypted = true;
        for (act, text, regex) in &self.rules {
            let any_key = |f: &dyn Fn(&str) -> bool| keys.iter().any(|k| f(k));
            let matches = |s: &str| regex.as_ref().is_some_and(|r| r.is_match(s));
            match act {
                Act::UnencryptedSuffix if any_key(&|k| k.ends_with(text.as_str())) => {
                    encrypted = false
                }
                Act::EncryptedSuffix => encrypted = any_key(&|k| k.ends_with(text.as_str())),
                Act::UnencryptedRegex if any_key(&matches) => encrypted = false,
                Act::EncryptedRegex => encrypted = any_key(&matches),
                Act::UnencryptedComment if comments.iter().any(|c| matches(c)) => encrypted = false,
                Act::EncryptedComment => encrypted = comments.iter().any(|c| matches(c)),
                _ => {}
            }
        }
        encrypted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(pairs: &[(&str, &str)]) -> Rules {
        let mut r = Rules::default();
        for (k, v) in pairs {
            r.add(k, v).unwrap();
        }
        r
    }

    #[test]
    fn without_rules_every_value_is_encrypted() {
        assert!(Rules::default().encrypted(&["a", "b"], &[]));
    }

    #[test]
    fn the_default_unencrypted_suffix_takes_a_subtree_out() {
        let r = rules(&[("unencrypted_suffix", "_unencrypted")]);
        assert!(!r.encrypted(&["db_unencrypted", "user"], &[]));
        assert!(r.encrypted(&["db", "user"], &[]));
    }

    #[test]
    fn encrypted_regex_selects_by_any_key_of_the_path() {
        let r = rules(&[("encrypted_regex", "^(password|data)$")]);
        assert!(r.encrypted(&["db", "password"], &[]));
        assert!(r.encrypted(&["data", "x"], &[]));
        assert!(!r.encrypted(&["db", "user"], &[]));
    }

    #[test]
    fn a_later_rule_overrides_an_earlier_one_in_sopss_order() {
        // encrypted_regex comes after unencrypted_suffix in SOPS's order,
        // whatever order the metadata lists them in.
        let r = rules(&[("encrypted_regex", "^pw$"), ("unencrypted_suffix", "_u")]);
        assert!(r.encrypted(&["a_u", "pw"], &[]));
        assert!(!r.encrypted(&["a_u", "x"], &[]));
    }

    #[test]
    fn the_comment_regex_marks_values_one_by_one() {
        let r = rules(&[("encrypted_comment_regex", "sops:enc")]);
        assert!(r.encrypted(&["password"], &[" sops:enc"]));
        assert!(!r.encrypted(&["user"], &[" just a note"]));
        assert!(!r.encrypted(&["user"], &[]));
        assert!(r.reads_comments());
    }

    #[test]
    fn an_invalid_regex_is_an_error_naming_its_key() {
        let e = Rules::default().add("encrypted_regex", "(").unwrap_err();
        assert!(e.contains("encrypted_regex"), "{e}");
    }
}
