//! The options prefix of an `authorized_keys` line, split and checked the way
//! OpenSSH's `auth-options.c` reads it: options end at the first blank outside
//! quotes, `\"` is a literal quote, and each comma-separated option is a known
//! flag or a known `name="value"`. sshd skips a key whose options it cannot
//! parse, so a typo here would silently lock the user out.

/// Options without a value (matched case-insensitively, as sshd does).
const FLAGS: [&str; 15] = [
    "agent-forwarding",
    "cert-authority",
    "no-agent-forwarding",
    "no-port-forwarding",
    "no-pty",
    "no-touch-required",
    "no-user-rc",
    "no-x11-forwarding",
    "port-forwarding",
    "pty",
    "restrict",
    "touch-required",
    "user-rc",
    "verify-required",
    "x11-forwarding",
];

/// Options that take a quoted value.
const VALUED: [&str; 8] = [
    "command",
    "environment",
    "expiry-time",
    "from",
    "permitlisten",
    "permitopen",
    "principals",
    "tunnel",
];

/// Splits `opts rest` at the first blank outside quotes. `None` when nothing
/// follows the options.
pub(super) fn split(text: &str) -> Option<(&str, &str)> {
    let bytes = text.as_bytes();
    let (mut i, mut quoted) = (0, false);
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if bytes.get(i + 1) == Some(&b'"') => i += 1,
            b'"' => quoted = !quoted,
            b' ' | b'\t' if !quoted => {
                let rest = text[i..].trim_start_matches([' ', '\t']);
                return (!rest.is_empty()).then_some((&text[..i], rest));
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Checks every option of a prefix. The reason names options by position,
/// never by their text.
pub(super) fn validate(opts: &str) -> Result<(), String> {
    if opts.chars().any(char::is_control) {
        return Err("they hold a control character".into());
    }
    for (n, item) in split_commas(opts).into_iter().enumerate() {
        let n = n + 1;
        if item.is_empty() {
            return Err(format!("option {n} is empty"));
        }
        let (name, value) = match item.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (item, None),
        };
        let name = name.to_ascii_lowercase();
        match value {
            None if FLAGS.contains(&name.as_str()) => {}
            None if VALUED.contains(&name.as_str()) => {
                return Err(format!("option {n} needs a quoted value (name=\"…\")"));
            }
            Some(_) if FLAGS.contains(&name.as_str()) => {
                return Err(format!("option {n} takes no value"));
            }
            Some(v) if VALUED.contains(&name.as_str()) => {
                if !is_quoted(v) {
                    return Err(format!(
                        "the value of option {n} must be one \"quoted\" string"
                    ));
                }
            }
            _ => return Err(format!("option {n} is not an authorized_keys option")),
        }
    }
    Ok(())
}

/// Splits at commas outside quotes.
fn split_commas(opts: &str) -> Vec<&str> {
    let bytes = opts.as_bytes();
    let (mut items, mut start, mut quoted, mut i) = (Vec::new(), 0, false, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if bytes.get(i + 1) == Some(&b'"') => i += 1,
            b'"' => quoted = !quoted,
            b',' if !quoted => {
                items.push(&opts[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    items.push(&opts[start..]);
    items
}

/// `"…"` with no unescaped quote inside.
fn is_quoted(v: &str) -> bool {
    let Some(inner) = v.strip_prefix('"').and_then(|v| v.strip_suffix('"')) else {
        return false;
    };
    let bytes = inner.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if bytes.get(i + 1) == Some(&b'"') => i += 1,
            b'"' => return false,
            _ => {}
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::{split, validate};

    #[test]
    fn split_stops_at_the_first_blank_outside_quotes() {
        assert_eq!(
            split("no-pty ssh-ed25519 AAAA"),
            Some(("no-pty", "ssh-ed25519 AAAA"))
        );
        assert_eq!(
            split("command=\"echo a b\",no-pty\tssh-rsa X"),
            Some(("command=\"echo a b\",no-pty", "ssh-rsa X"))
        );
        assert_eq!(
            split(r#"command="say \"hi there\"" k"#),
            Some((r#"command="say \"hi there\"""#, "k"))
        );
        assert_eq!(split("no-pty"), None);
        assert_eq!(split("no-pty   "), None);
        assert_eq!(split("command=\"never closed k"), None);
    }

    #[test]
    fn validate_accepts_openssh_options() {
        for ok in [
            "no-pty",
            "restrict,pty",
            "NO-PTY",
            "from=\"10.0.0.0/8,192.168.1.1\"",
            r#"command="echo \"a b\"",no-agent-forwarding"#,
            "expiry-time=\"20301231\",permitopen=\"host:22\",environment=\"A=b\"",
        ] {
            assert_eq!(validate(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn validate_refuses_unknown_or_malformed_options() {
        for (bad, why) in [
            ("no-ptty", "option 1 is not"),
            ("no-pty,,pty", "option 2 is empty"),
            ("command", "needs a quoted value"),
            ("command=echo", "one \"quoted\" string"),
            ("command=\"a\"b\"\"", "one \"quoted\" string"),
            ("no-pty=\"x\"", "takes no value"),
            ("command=\"a\tb\"", "control character"),
        ] {
            let e = validate(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
        // The reason never quotes the options.
        assert!(!validate("secret-word").unwrap_err().contains("secret"));
    }
}
