//! `freebsd.rc_conf`: variables for sysrc.

use crate::diag::Diag;
use crate::syntax::path;
use crate::value::Value;

use super::Code;
use super::ctx::{At, Ctx, KeyRule};
use super::model::{FreeBsd, Located, RcVar};
use crate::freebsd::names;

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
