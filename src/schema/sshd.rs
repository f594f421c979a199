//! `freebsd.sshd` (checked by the [`SSHD`] table): three keys of old,
//! `settings` (any keyword of sshd_config, checked by the table of
//! [`crate::freebsd::sshd`]), `match` (the `Match` blocks beryl writes) and
//! `reload`.

use crate::diag::Diag;
use crate::freebsd::names;
use crate::freebsd::sshd::{self as kw, Status};
use crate::syntax::path;
use crate::value::{Map, Node, Value};

use super::Code;
use super::ctx::{At, Ctx, Field, closest};
use super::model::{FreeBsd, Located, Sshd, SshdMatch, SshdSetting};

/// The keys of `freebsd.sshd`.
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
    Field {
        key: "settings",
        doc: "any other sshd_config keyword → value, such as AllowGroups: wheel; a list writes one line per item",
        aliases: &["options", "config", "keywords", "global"],
        check: settings,
    },
    Field {
        key: "match",
        doc: "Match blocks written at the end of sshd_config: a list of {criteria: \"Group sftp\", settings: {…}}",
        aliases: &["matches", "match_blocks", "blocks"],
        check: matches,
    },
    Field {
        key: "reload",
        doc: "true: apply runs `service sshd reload` once the new file passed `sshd -t` and is in place (false: the default)",
        aliases: &["notify", "restart"],
        check: reload,
    },
];

/// The keys of one `match` item.
const MATCH: &[Field<SshdMatch>] = &[
    Field {
        key: "criteria",
        doc: "what follows Match, such as \"Group sftp\" or \"User alice Address 192.0.2.0/24\"",
        aliases: &["when", "match", "condition", "if"],
        check: criteria,
    },
    Field {
        key: "settings",
        doc: "keyword → value, each allowed inside a Match block",
        aliases: &["options", "config", "keywords"],
        check: match_settings,
    },
];

/// The keywords the three keys of old set.
const OLD: &[(&str, &str)] = &[
    ("permit_root_login", "permitrootlogin"),
    ("password_authentication", "passwordauthentication"),
    (
        "kbd_interactive_authentication",
        "kbdinteractiveauthentication",
    ),
];

pub(crate) fn sshd(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    let Some(map) = cx.mapping(&at.path, at.node) else {
        return;
    };
    // An sshd_config keyword written as a key of its own belongs under
    // `settings`: said so, rather than "unknown key".
    let mut rest = map.clone();
    rest.retain(|key, entry| {
        let misplaced = !SSHD.iter().any(|f| f.key == key)
            && kw::find(key).is_some()
            && !SSHD
                .iter()
                .any(|f| f.aliases.iter().any(|a| a.eq_ignore_ascii_case(key)));
        if misplaced {
            cx.push(
                Diag::new(
                    Code::UnknownKey,
                    format!("unknown key {} in {}", names::quote(key), at.path),
                )
                .label(&entry.key_span, "an sshd_config keyword")
                .help(format!(
                    "sshd_config keywords go under {}.settings, such as `settings: {{{key}: …}}`",
                    at.path
                )),
            );
        }
        !misplaced
    });
    cx.walk(&at.path, &rest, SSHD, &mut out.sshd);
    // A keyword of `settings` that a key of old also sets: one source each.
    for s in &out.sshd.settings {
        let lower = s.keyword.value.to_ascii_lowercase();
        if let Some((key, _)) = OLD
            .iter()
            .find(|(key, word)| *word == lower && map.contains_key(*key))
        {
            cx.push(
                Diag::new(
                    Code::SshdDuplicate,
                    format!(
                        "{} is set twice in {}: by `{key}` and in `settings`",
                        s.keyword.value, at.path
                    ),
                )
                .label(&s.keyword.span, "set again here")
                .help(format!("keep one: remove `{key}`, or this key")),
            );
        }
    }
    out.sshd.settings.retain(|s| {
        let lower = s.keyword.value.to_ascii_lowercase();
        !OLD.iter()
            .any(|(key, word)| *word == lower && map.contains_key(*key))
    });
}

fn settings(cx: &mut Ctx, at: &At<'_>, sshd: &mut Sshd) {
    sshd.settings = keywords(cx, &at.path, at.node, false);
}

fn match_settings(cx: &mut Ctx, at: &At<'_>, m: &mut SshdMatch) {
    m.settings = keywords(cx, &at.path, at.node, true);
}

/// A mapping of sshd_config keywords to values, checked against the table
/// of servconf.c; inside a Match block, only keywords allowed there.
fn keywords(cx: &mut Ctx, at: &str, node: &Node, in_match: bool) -> Vec<SshdSetting> {
    let Some(map) = cx.mapping(at, node) else {
        return Vec::new();
    };
    let mut out: Vec<SshdSetting> = Vec::new();
    for (word, entry) in map {
        let path = path::child(at, word);
        let good = keyword(cx, at, word, &entry.key_span, in_match);
        let seen = out
            .iter()
            .find(|s| s.keyword.value.eq_ignore_ascii_case(word));
        if let Some(first) = seen {
            cx.push(
                Diag::new(
                    Code::SshdDuplicate,
                    format!("{word} is set twice in {at}"),
                )
                .label(&entry.key_span, "set again here")
                .help(format!(
                    "sshd reads keywords in any case: `{}` is the same keyword; give its values once, as a list for several lines",
                    first.keyword.value
                )),
            );
            continue;
        }
        let Some(values) = values(cx, &path, &entry.node) else {
            continue;
        };
        if good {
            out.push(SshdSetting {
                keyword: Located::new(word.clone(), entry.key_span.clone()),
                values,
            });
        }
    }
    out
}

/// Whether `word` is a keyword sshd reads (and, in a Match block, allows
/// there); the error at the key when it is not.
fn keyword(cx: &mut Ctx, at: &str, word: &str, span: &crate::value::Span, in_match: bool) -> bool {
    let refuse = |code: Code, message: String, label: &str, help: String| {
        Diag::new(code, message).label(span, label).help(help)
    };
    let diag = match kw::find(word) {
        None => {
            let near = closest(
                &word.to_ascii_lowercase(),
                kw::all()
                    .filter(|k| matches!(k.status, Status::Known | Status::Build(_) | Status::FreeBsd))
                    .map(|k| (k.name, k.name)),
            );
            let help = match near {
                Some(n) => format!("did you mean `{n}`? (sshd reads keywords in any case; the table is sshd_config(5)'s, from OpenSSH's servconf.c)"),
                None => "write a keyword of sshd_config(5), such as AllowGroups or ClientAliveInterval".into(),
            };
            refuse(
                Code::SshdKeyword,
                format!("unknown sshd_config keyword {} in {at}", names::quote(word)),
                "not an sshd_config keyword",
                help,
            )
        }
        Some(k) if k.name == "match" => refuse(
            Code::SshdKeyword,
            format!("`Match` cannot be a setting in {at}"),
            "a Match block",
            "write Match blocks under freebsd.sshd.match: a list of {criteria: \"Group sftp\", settings: {…}}".into(),
        ),
        Some(k) => match k.status {
            Status::Alias(of) => refuse(
                Code::SshdKeyword,
                format!("{} is another name of `{of}` in sshd_config", names::quote(word)),
                "an old name",
                format!("write `{of}` (sshd reads keywords in any case)"),
            ),
            Status::Deprecated => refuse(
                Code::SshdKeyword,
                format!("{} is deprecated: sshd ignores it", names::quote(word)),
                "deprecated",
                "remove it: sshd logs \"Deprecated option\" and does nothing with it".into(),
            ),
            Status::Unsupported => refuse(
                Code::SshdKeyword,
                format!("{} is unsupported: sshd ignores it", names::quote(word)),
                "unsupported",
                "remove it: sshd logs \"Unsupported option\" and does nothing with it".into(),
            ),
            Status::Known | Status::Build(_) | Status::FreeBsd if in_match && !k.in_match => refuse(
                Code::SshdMatchKeyword,
                format!("{} is not allowed inside a Match block ({at})", names::quote(word)),
                "not allowed in Match",
                "sshd refuses it there (\"Directive is not allowed within a Match block\"): set it under freebsd.sshd.settings".into(),
            ),
            Status::Known | Status::Build(_) | Status::FreeBsd => return true,
        },
    };
    cx.push(diag);
    false
}

/// The lines of a keyword: a scalar is one line, a list one line per item;
/// a boolean is `yes` or `no`.
fn values(cx: &mut Ctx, path: &str, node: &Node) -> Option<Vec<String>> {
    let items: Vec<(String, &Node)> = match &node.value {
        Value::Seq(items) if !items.is_empty() => items
            .iter()
            .enumerate()
            .map(|(i, n)| (path::item(path, i), n))
            .collect(),
        _ => vec![(path.to_string(), node)],
    };
    let mut out = Vec::new();
    for (path, node) in items {
        let text = match &node.value {
            Value::Str(s) => s.clone(),
            Value::Int(n) => n.to_string(),
            Value::Bool(b) => if *b { "yes" } else { "no" }.to_string(),
            _ => {
                let help = match &node.value {
                    Value::Float(_) => "quote the value, so that YAML keeps it as written",
                    Value::Null => {
                        "give a value; to leave the keyword to sshd's default, remove it"
                    }
                    _ => "give a string, or a list of strings for one line each",
                };
                cx.push(
                    cx.type_error(
                        &path,
                        "a string, an integer, a boolean or a list of them",
                        node,
                    )
                    .help(help),
                );
                return None;
            }
        };
        if let Err(reason) = kw::value(&text) {
            cx.push(
                Diag::new(Code::SshdValue, format!("invalid {path}: {reason}"))
                    .label(&node.span, "not writable in sshd_config")
                    .help("beryl writes `Keyword value` on one line without quotes: leave out `\"`, `'`, `\\`, `#` and control characters; for several lines give a list"),
            );
            return None;
        }
        out.push(text);
    }
    Some(out)
}

fn matches(cx: &mut Ctx, at: &At<'_>, sshd: &mut Sshd) {
    let Some(items) = cx.list(&at.path, at.node, "a list of Match blocks") else {
        return;
    };
    for (i, item) in items.iter().enumerate() {
        let path = path::item(&at.path, i);
        let Some(map) = cx.mapping(&path, item) else {
            continue;
        };
        let before = cx.diags.len();
        let mut m = SshdMatch {
            criteria: Located::new(String::new(), item.span.clone()),
            settings: Vec::new(),
        };
        cx.walk(&path, map, MATCH, &mut m);
        require(cx, &path, map, item);
        if cx.diags.len() == before {
            sshd.matches.push(m);
        }
    }
}

/// A Match block needs its criteria and at least one setting.
fn require(cx: &mut Ctx, path: &str, map: &Map, item: &Node) {
    for (key, help) in [
        (
            "criteria",
            "add what follows Match, such as `criteria: Group sftp`",
        ),
        (
            "settings",
            "add the settings of the block, such as `settings: {ForceCommand: internal-sftp}`",
        ),
    ] {
        if !map.contains_key(key) {
            cx.push(
                Diag::new(Code::MissingKey, format!("{path} has no `{key}`"))
                    .label(&item.span, format!("no `{key}` here"))
                    .help(help),
            );
        }
    }
}

fn criteria(cx: &mut Ctx, at: &At<'_>, m: &mut SshdMatch) {
    let Some(s) = cx.string(&at.path, at.node) else {
        return;
    };
    match kw::criteria(s) {
        Ok(()) => m.criteria = Located::new(s.to_string(), at.node.span.clone()),
        Err(reason) => cx.push(
            Diag::new(Code::SshdCriteria, format!("invalid {}: {reason}", at.path))
                .label(&at.node.span, "not Match criteria")
                .help("write criteria as sshd_config(5) does, such as \"Group sftp\", \"User alice,bob\" or \"Address 192.0.2.0/24\""),
        ),
    }
}

fn reload(cx: &mut Ctx, at: &At<'_>, sshd: &mut Sshd) {
    if let Some(b) = yes_no(cx, at) {
        sshd.reload = b;
    }
}

/// An sshd word: the error for a value that is not one.
fn sshd_error(at: &At<'_>, reason: String, help: &str) -> Diag {
    Diag::new(Code::Sshd, format!("invalid {}: {reason}", at.path))
        .label(&at.node.span, "not an sshd setting")
        .help(help.to_string())
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
