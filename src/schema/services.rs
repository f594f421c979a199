//! `freebsd.rc_conf` (variables for sysrc) and `freebsd.sshd` (checked by
//! the [`SSHD`] table).

use crate::diag::Diag;
use crate::syntax::path;
use crate::value::Value;

use super::Code;
use super::ctx::{At, Ctx, Field, KeyRule};
use super::model::{FreeBsd, Located, RcVar, Sshd};
use crate::freebsd::names;

/// The keys of `freebsd.sshd`; every one defaults to `no`.
pub(crate) const SSHD: &[Field<Sshd>] = &[
    Field {
        key: "permit_root_login",
        doc: "PermitRootLogin: no (the default), yes, prohibit-password or forced-commands-only",
        aliases: &["permitrootlogin", "root_login", "permit_root"],
        check: permit_root_login,
    },
    Field {
        key: "password_authentication",
        doc: "PasswordAuthentication: false (the default) or true; yes/no also work",
        aliases: &[
            "passwordauthentication",
            "password_auth",
            "passwords",
            "password_login",
        ],
        check: password_authentication,
    },
    Field {
        key: "kbd_interactive_authentication",
        doc: "KbdInteractiveAuthentication (PAM passwords): false (the default) or true; yes/no also work",
        aliases: &[
            "kbdinteractiveauthentication",
            "keyboard_interactive_authentication",
            "keyboard_interactive",
            "challenge_response_authentication",
            "challengeresponseauthentication",
        ],
        check: kbd_interactive_authentication,
    },
];

/// The keys of `rc_conf`.
const RC_NAME: KeyRule = KeyRule {
    check: names::rc_name,
    code: Code::RcName,
    what: "variable name",
    label: "not a variable name",
    help: "rc.conf names are shell variables: letters, digits and `_`, not starting with a digit, such as ntpd_enable",
};

/// rc.conf variables, in the order given.
///
/// A variable that another field sets (see [`names::MANAGED`]) is refused, so
/// that each setting has one source.
pub(crate) fn rc_conf(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    let Some(map) = cx.mapping(&at.path, at.node) else {
        return;
    };
    for (name, entry) in map {
        let path = path::child(&at.path, name);
        let mut good = cx.key(&RC_NAME, &at.path, name, entry);
        if good && let Some(instead) = names::rc_managed(name) {
            good = false;
            cx.push(
                Diag::new(
                    Code::RcManaged,
                    format!(
                        "{} is set by beryl itself; it cannot be set in {}",
                        names::quote(name),
                        at.path
                    ),
                )
                .label(&entry.key_span, "managed by beryl")
                .help(instead),
            );
        }
        let Some(value) = rc_text(cx, &path, &entry.node) else {
            continue;
        };
        if let Err(reason) = names::rc_value(&value) {
            cx.push(
                Diag::new(Code::RcValue, format!("invalid {path}: {reason}"))
                    .label(&entry.node.span, "not safe in rc.conf")
                    .help("rc.conf is read by sh inside double quotes: leave out `\"`, `\\`, backquotes, `$` and control characters, and keep the value on one line"),
            );
            continue;
        }
        if good {
            out.rc_conf.push(RcVar {
                name: Located::new(name.clone(), entry.key_span.clone()),
                value: Located::new(value, entry.node.span.clone()),
            });
        }
    }
}

/// A scalar as rc.conf text: a string as written, an integer in decimal, a
/// boolean as `YES` or `NO` (how rc.conf spells its switches).
pub(super) fn rc_text(cx: &mut Ctx, path: &str, node: &crate::value::Node) -> Option<String> {
    let expected = "a string, an integer or a boolean";
    let help = match &node.value {
        Value::Str(s) => return Some(s.clone()),
        Value::Int(n) => return Some(n.to_string()),
        Value::Bool(b) => return Some(if *b { "YES" } else { "NO" }.into()),
        Value::Float(_) => {
            "quote the value, so that YAML keeps it as written (unquoted, 1.10 would be the number 1.1)"
        }
        Value::Null => {
            "give a value (`\"\"` for an empty one); to drop an inherited variable, replace the whole mapping with `~rc_conf:`"
        }
        Value::Seq(_) | Value::Map(_) => {
            "give one value; for several words, write them in one string, such as \"-4 -s\""
        }
    };
    cx.push(cx.type_error(path, expected, node).help(help));
    None
}

/// An sshd word: the error for a value that is not one.
fn sshd_error(at: &At<'_>, reason: String, help: &str) -> Diag {
    Diag::new(Code::Sshd, format!("invalid {}: {reason}", at.path))
        .label(&at.node.span, "not an sshd setting")
        .help(help.to_string())
}

pub(crate) fn sshd(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    if let Some(map) = cx.mapping(&at.path, at.node) {
        cx.walk(&at.path, map, SSHD, &mut out.sshd);
    }
}

/// A word, or a boolean for `yes`/`no`.
fn permit_root_login(cx: &mut Ctx, at: &At<'_>, sshd: &mut Sshd) {
    let help = "write no, yes, prohibit-password (keys only) or forced-commands-only";
    let word = match &at.node.value {
        Value::Bool(b) => if *b { "yes" } else { "no" }.to_string(),
        Value::Str(s) => match names::permit_root_login(s) {
            Ok(word) => word.to_string(),
            Err(reason) => {
                cx.push(sshd_error(at, reason, help));
                return;
            }
        },
        _ => {
            cx.push(cx.type_error(&at.path, "a string", at.node).help(help));
            return;
        }
    };
    sshd.permit_root_login = Located::new(word, at.node.span.clone());
}

/// A boolean, or the strings `yes`/`no`.
fn yes_no(cx: &mut Ctx, at: &At<'_>) -> Option<Located<bool>> {
    let help = "write true or false (or yes or no)";
    let b = match &at.node.value {
        Value::Bool(b) => *b,
        Value::Str(s) => match names::yes_no(s) {
            Ok(b) => b,
            Err(reason) => {
                cx.push(sshd_error(at, reason, help));
                return None;
            }
        },
        _ => {
            cx.push(cx.type_error(&at.path, "a boolean", at.node).help(help));
            return None;
        }
    };
    Some(Located::new(b, at.node.span.clone()))
}

fn password_authentication(cx: &mut Ctx, at: &At<'_>, sshd: &mut Sshd) {
    if let Some(b) = yes_no(cx, at) {
        sshd.password_authentication = b;
    }
}

fn kbd_interactive_authentication(cx: &mut Ctx, at: &At<'_>, sshd: &mut Sshd) {
    if let Some(b) = yes_no(cx, at) {
        sshd.kbd_interactive_authentication = b;
    }
}
