//! `freebsd.files` (whole files keyed by their absolute path, checked by the
//! [`FILE`] table) and `freebsd.services` (rc.d services keyed by name,
//! checked by the [`SERVICE`] table).
//!
//! Both are mappings, so levels merge them key by key: a group can add a
//! file or change one field of an inherited one, and diff paths read
//! `freebsd.files."/etc/pf.conf"`.

use crate::diag::Diag;
use crate::syntax::path;
use crate::value::{Map, Span, Value};

use super::Code;
use super::ctx::{At, Ctx, Field, KeyRule, Rule};
use super::model::{FileSource, FreeBsd, Located, ManagedFile, Notify, Service};
use crate::freebsd::{names, rcd};

/// The keys of one file's mapping.
pub(crate) const FILE: &[Field<ManagedFile>] = &[
    Field {
        key: "content",
        doc: "the file's text, as written (one of content, template, source)",
        aliases: &["contents", "text", "body", "data"],
        check: content,
    },
    Field {
        key: "template",
        doc: "a minijinja template under the inventory's templates/ directory, rendered with the host's effective config (one of content, template, source)",
        aliases: &["tmpl", "jinja", "j2", "from_template"],
        check: template,
    },
    Field {
        key: "source",
        doc: "a file under the inventory's files/ directory, copied as is (one of content, template, source)",
        aliases: &["src", "file", "copy", "from"],
        check: source,
    },
    Field {
        key: "mode",
        doc: "octal permissions, such as \"0644\" (the default 644)",
        aliases: &["perm", "perms", "permissions", "chmod"],
        check: mode,
    },
    Field {
        key: "owner",
        doc: "the owning user (the default root)",
        aliases: &["user", "uid", "chown"],
        check: owner,
    },
    Field {
        key: "group",
        doc: "the owning group (the default wheel)",
        aliases: &["gid", "chgrp"],
        check: group,
    },
    Field {
        key: "validate",
        doc: "a command that checks the staged file before it replaces the old one, `%s` standing for it, such as \"pfctl -nf %s\"",
        aliases: &["check", "verify", "validate_cmd", "test"],
        check: validate,
    },
    Field {
        key: "notify",
        doc: "services to reload or restart once per run after a change, such as {nginx: reload}",
        aliases: &[
            "notifies",
            "handlers",
            "handler",
            "reload",
            "restart",
            "on_change",
        ],
        check: notify,
    },
];

/// The keys of one service's mapping.
pub(crate) const SERVICE: &[Field<Service>] = &[Field {
    key: "enable",
    doc: "true (the default): enabled through its rcvar and started; false: disabled and stopped",
    aliases: &["enabled", "state", "ensure", "running", "start"],
    check: enable,
}];

/// The keys of `freebsd.files`.
const FILE_PATH: KeyRule = KeyRule {
    check: names::file_path,
    code: Code::FilePath,
    what: "file path",
    label: "not an absolute, normalized path",
    help: "key each file by its absolute path on the host, such as \"/etc/pf.conf\"",
};

/// Checks each file; the key is its path.
pub(crate) fn files(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    let Some(map) = cx.mapping(&at.path, at.node) else {
        return;
    };
    for (path, entry) in map {
        let here = path::child(&at.path, path);
        let mut good = cx.key(&FILE_PATH, &at.path, path, entry);
        if good && let Some(instead) = names::managed_file(path) {
            good = false;
            cx.push(
                Diag::new(
                    Code::FileManaged,
                    format!(
                        "{} is written by beryl itself; it cannot be in {}",
                        names::quote(path),
                        at.path
                    ),
                )
                .label(&entry.key_span, "managed by beryl")
                .help(instead),
            );
        }
        let Some(fields) = cx.mapping(&here, &entry.node) else {
            continue;
        };
        let mut file = ManagedFile::blank(
            Located::new(path.clone(), entry.key_span.clone()),
            entry.node.span.clone(),
        );
        cx.walk(&here, fields, FILE, &mut file);
        good &= one_source(cx, &here, fields, &file);
        if good {
            out.files.push(file);
        }
    }
}

/// Exactly one of `content`, `template` and `source`.
fn one_source(cx: &mut Ctx, path: &str, fields: &Map, file: &ManagedFile) -> bool {
    let given: Vec<&str> = ["content", "template", "source"]
        .into_iter()
        .filter(|k| fields.get(*k).is_some())
        .collect();
    // A misspelt key (`contnet`) is reported as unknown, with its
    // suggestion; "no content" would only repeat it.
    let misspelt = fields
        .keys()
        .any(|k| !FILE.iter().any(|f| f.key == k.as_str()));
    match given.as_slice() {
        [_] => file.source.is_some(),
        [] if misspelt => false,
        [] => {
            cx.push(
                Diag::new(Code::FileSource, format!("{path} has no content"))
                    .label(&file.span, "no content, template or source")
                    .help("give one of `content: TEXT`, `template: NAME.j2` (under the inventory's templates/) or `source: NAME` (under its files/)"),
            );
            false
        }
        [_, second, ..] => {
            let span = fields
                .get(*second)
                .map(|e| e.key_span.clone())
                .unwrap_or_default();
            cx.push(
                Diag::new(
                    Code::FileSource,
                    format!("{path} has both `{}` and `{second}`", given[0]),
                )
                .label(&span, "a second source")
                .help("give only one of content, template and source; a level that switches an inherited file to another one replaces the whole entry by writing its key with `~`, such as `~\"/etc/pf.conf\":`"),
            );
            false
        }
    }
}

fn content(cx: &mut Ctx, at: &At<'_>, file: &mut ManagedFile) {
    if let Some(s) = cx.string(&at.path, at.node) {
        if s.contains('\0') {
            cx.push(
                Diag::new(
                    Code::FileSource,
                    format!("invalid {}: it contains a NUL byte", at.path),
                )
                .label(&at.node.span, "a NUL byte")
                .help(
                    "a file beryl writes is text; put binary files under files/ and use `source`",
                ),
            );
            return;
        }
        file.source = Some(FileSource::Content(Located::new(
            s.to_string(),
            at.node.span.clone(),
        )));
    }
}

const INVENTORY_PATH: Rule = Rule {
    check: names::inventory_path,
    code: Code::FileSource,
    what: "path inside the inventory",
    help: |_| {
        "give a path relative to the directory, such as pf.conf.j2 or nginx/nginx.conf, without `..`".into()
    },
};

fn template(cx: &mut Ctx, at: &At<'_>, file: &mut ManagedFile) {
    if let Some(l) = cx.checked(&at.path, at.node, &INVENTORY_PATH) {
        file.source = Some(FileSource::Template(l));
    }
}

fn source(cx: &mut Ctx, at: &At<'_>, file: &mut ManagedFile) {
    if let Some(l) = cx.checked(&at.path, at.node, &INVENTORY_PATH) {
        file.source = Some(FileSource::Source(l));
    }
}

fn mode(cx: &mut Ctx, at: &At<'_>, file: &mut ManagedFile) {
    let help = "write the mode in octal, such as \"0644\" or \"0600\"";
    let text = match &at.node.value {
        Value::Str(s) => s.clone(),
        Value::Int(n) => n.to_string(),
        _ => {
            cx.push(cx.type_error(&at.path, "a string", at.node).help(help));
            return;
        }
    };
    match names::file_mode(&text) {
        Ok(m) => file.mode = Some(Located::new(m, at.node.span.clone())),
        Err(reason) => cx.push(
            Diag::new(Code::FileMode, format!("invalid {}: {reason}", at.path))
                .label(&at.node.span, "not an octal mode")
                .help(help),
        ),
    }
}

const OWNER: Rule = Rule {
    check: names::user_name,
    code: Code::UserName,
    what: "user name",
    help: |_| "give a user name, such as root or www".into(),
};

const GROUP: Rule = Rule {
    check: names::group_name,
    code: Code::Group,
    what: "group name",
    help: |_| "give a group name, such as wheel or www".into(),
};

fn owner(cx: &mut Ctx, at: &At<'_>, file: &mut ManagedFile) {
    file.owner = cx.checked(&at.path, at.node, &OWNER);
}

fn group(cx: &mut Ctx, at: &At<'_>, file: &mut ManagedFile) {
    file.group = cx.checked(&at.path, at.node, &GROUP);
}

fn validate(cx: &mut Ctx, at: &At<'_>, file: &mut ManagedFile) {
    let Some(s) = cx.string(&at.path, at.node) else {
        return;
    };
    match names::validate_command(s) {
        Ok(words) => file.validate = Some(Located::new(words, at.node.span.clone())),
        Err(reason) => cx.push(
            Diag::new(Code::FileValidate, format!("invalid {}: {reason}", at.path))
                .label(&at.node.span, "not a validate command")
                .help("write the command's words with `%s` for the staged file, such as \"pfctl -nf %s\" or \"nginx -t -c %s\"; it runs without a shell, so pipes and quotes do not work"),
        ),
    }
}

/// Whether `name`, a key of the mapping at `path`, is an rc.d script name;
/// a located error otherwise.
fn service_name(cx: &mut Ctx, path: &str, name: &str, key: &Span, such_as: &str) -> bool {
    // A script beryl knows may have a hyphen in its file name (ftp-proxy,
    // mysql-server); every word is quoted when it reaches a shell.
    if rcd::known_file(name) {
        return true;
    }
    let Err(reason) = names::service_name(name) else {
        return true;
    };
    cx.push(
        Diag::new(
            Code::ServiceName,
            format!("invalid service in {path}: {reason}"),
        )
        .label(key, "not an rc.d script name")
        .help(format!("name the rc.d script, such as {such_as}")),
    );
    false
}

/// `notify: {SERVICE: reload|restart}`.
fn notify(cx: &mut Ctx, at: &At<'_>, file: &mut ManagedFile) {
    let help = "write a mapping of service to action, such as {nginx: reload} or {pf: reload, sshd: restart}";
    let Some(map) = at.node.as_map() else {
        cx.push(cx.type_error(&at.path, "a mapping", at.node).help(help));
        return;
    };
    for (name, entry) in map {
        let path = path::child(&at.path, name);
        let good = service_name(cx, &at.path, name, &entry.key_span, "nginx or pf");
        let Some(action) = cx.string(&path, &entry.node) else {
            continue;
        };
        if let Err(reason) = names::notify_action(action) {
            cx.push(
                Diag::new(Code::Notify, format!("invalid {path}: {reason}"))
                    .label(&entry.node.span, "not a notify action")
                    .help(format!("write one of {}", names::NOTIFY_ACTIONS.join(", "))),
            );
            continue;
        }
        if good && let Err(why) = rcd::notifiable(name) {
            cx.push(
                Diag::new(
                    Code::Notify,
                    format!("{} cannot be notified: {why}", names::quote(name)),
                )
                .label(&entry.key_span, "a one-shot script")
                .help("notify the daemon that reads the file; a one-shot script's work belongs to boot"),
            );
            continue;
        }
        if good
            && action == "reload"
            && let Err(why) = rcd::reload(name)
        {
            cx.push(
                Diag::new(
                    Code::Notify,
                    format!("{} cannot be reloaded: {why}", names::quote(name)),
                )
                .label(&entry.node.span, "no reload in this script")
                .help(format!(
                    "write `{name}: restart` (rc.subr: stop then start), or notify a service whose script lists reload"
                )),
            );
            continue;
        }
        if good {
            file.notify.push(Notify {
                service: Located::new(name.clone(), entry.key_span.clone()),
                action: Located::new(action.to_string(), entry.node.span.clone()),
            });
        }
    }
}

/// Checks each service; the key is its rc.d script name.
pub(crate) fn services(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    let Some(map) = cx.mapping(&at.path, at.node) else {
        return;
    };
    for (name, entry) in map {
        let here = path::child(&at.path, name);
        let mut good = service_name(cx, &at.path, name, &entry.key_span, "nginx or ntpd");
        if good {
            match rcd::service(name) {
                Err(why) => {
                    good = false;
                    cx.push(
                        Diag::new(
                            Code::ServiceName,
                            format!("{} cannot be enabled: {why}", names::quote(name)),
                        )
                        .label(&entry.key_span, "not a service to enable")
                        .help(
                            "list daemons that have an `X_enable` variable, such as nginx or ntpd; \
                             a one-shot script's variable (clear_tmp_enable, accounting_enable) \
                             goes in freebsd.rc_conf, where it takes effect at the next boot",
                        ),
                    );
                }
                Ok(s) => {
                    if let Some(instead) = names::rc_managed(&s.rcvar) {
                        good = false;
                        cx.push(
                            Diag::new(
                                Code::RcManaged,
                                format!(
                                    "{} (rcvar {}) is managed by beryl itself; it cannot be in {}",
                                    names::quote(name),
                                    s.rcvar,
                                    at.path
                                ),
                            )
                            .label(&entry.key_span, "managed by beryl")
                            .help(instead),
                        );
                    }
                }
            }
        }
        let mut service = Service {
            name: Located::new(name.clone(), entry.key_span.clone()),
            enable: Located::new(true, entry.node.span.clone()),
            span: entry.node.span.clone(),
        };
        match &entry.node.value {
            Value::Map(fields) => cx.walk(&here, fields, SERVICE, &mut service),
            _ => {
                cx.push(
                    cx.type_error(&here, "a mapping", &entry.node)
                        .help("write the service's settings as a mapping, such as `nginx: {enable: true}` (`nginx: {}` enables it too)"),
                );
                continue;
            }
        }
        if good
            && service.enable.value
            && let Some(why) = rcd::firewall(name)
        {
            cx.push(
                Diag::warning(
                    Code::FirewallStart,
                    format!(
                        "apply starts {} on a running host where it is stopped: {why}",
                        names::quote(name)
                    ),
                )
                .label(&entry.key_span, "started by apply")
                .help(
                    "make sure its rules pass the packets of an SSH connection already open, \
                     or set its variable in freebsd.rc_conf instead: it then starts at the next \
                     boot, before sshd",
                ),
            );
        }
        if good {
            out.services.push(service);
        }
    }
}

fn enable(cx: &mut Ctx, at: &At<'_>, service: &mut Service) {
    match &at.node.value {
        Value::Bool(b) => service.enable = Located::new(*b, at.node.span.clone()),
        _ => cx.push(
            cx.type_error(&at.path, "a boolean", at.node)
                .help("write true (enabled and started) or false (disabled and stopped)"),
        ),
    }
}

/// A service whose rcvar `freebsd.rc_conf` sets too: one setting, two
/// sources. Reported at the rc_conf key.
pub(crate) fn conflicts(cx: &mut Ctx, out: &FreeBsd) {
    for s in &out.services {
        let Ok(script) = rcd::service(&s.name.value) else {
            continue;
        };
        if let Some(v) = out.rc_conf.iter().find(|v| v.name.value == script.rcvar) {
            cx.push(
                Diag::new(
                    Code::RcManaged,
                    format!(
                        "{} is set by `freebsd.services.{}`; it cannot be in freebsd.rc_conf too",
                        names::quote(&script.rcvar),
                        s.name.value
                    ),
                )
                .label(&v.name.span, "set here")
                .label(&s.name.span, "and by this service")
                .help(
                    "keep one: `enable` under freebsd.services, or the variable in freebsd.rc_conf",
                ),
            );
        }
    }
}
