//! `freebsd.sysctl` (kernel state), `freebsd.loader` (loader.conf
//! variables) and `freebsd.cron` (scheduled jobs, checked by the [`CRON`]
//! table). Each is a mapping keyed by identity (the MIB name, the variable,
//! the entry name), so diff paths read `freebsd.sysctl."kern.maxfiles"`.

use crate::diag::Diag;
use crate::syntax::path;
use crate::value::{Node, Value};

use super::Code;
use super::ctx::{At, Ctx, Field, KeyRule, Rule};
use super::model::{CronJob, FreeBsd, Located, Tunable};
use crate::freebsd::names;

/// The keys of a cron entry.
pub(crate) const CRON: &[Field<CronJob>] = &[
    Field {
        key: "schedule",
        doc: "five time fields (minute hour day-of-month month day-of-week), such as \"15 3 * * *\", or a word such as @daily",
        aliases: &["when", "time", "at", "cron", "timing", "interval"],
        check: schedule,
    },
    Field {
        key: "user",
        doc: "the user the command runs as (root when absent)",
        aliases: &["as", "run_as", "runas", "owner", "login"],
        check: user,
    },
    Field {
        key: "command",
        doc: "the command line, run by /bin/sh; write `\\%` for a literal `%`",
        aliases: &["cmd", "run", "job", "exec", "script"],
        check: command,
    },
];

/// The keys of `freebsd.sysctl`.
const SYSCTL_NAME: KeyRule = KeyRule {
    check: names::sysctl_name,
    code: Code::SysctlName,
    what: "sysctl name",
    label: "not a MIB name",
    help: "give the name as `sysctl -N` lists it, such as kern.ipc.somaxconn",
};

/// The keys of `freebsd.loader`.
const LOADER_NAME: KeyRule = KeyRule {
    check: names::loader_name,
    code: Code::LoaderName,
    what: "loader variable",
    label: "not a loader variable beryl can write",
    help: "name a loader.conf variable as a shell name (accf_http_load, if_bridge_load: written with sysrc) or a tunable as a MIB name (kern.maxusers, vfs.zfs.arc_max: written in /boot/loader.conf.d/beryl.conf)",
};

/// The keys of `freebsd.cron`.
const CRON_NAME: KeyRule = KeyRule {
    check: names::cron_name,
    code: Code::CronName,
    what: "cron entry name",
    label: "not an entry name",
    help: "name the entry with letters, digits, `_` and `-`, such as nightly-vacuum",
};

/// `freebsd.sysctl`: MIB name → value.
pub(crate) fn sysctl(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    let Some(map) = cx.mapping(&at.path, at.node) else {
        return;
    };
    for (name, entry) in map {
        let path = path::child(&at.path, name);
        let good = match cx.key(&SYSCTL_NAME, &at.path, name, entry) {
            true if names::sysctl_managed(name).is_some() => {
                cx.push(
                    Diag::new(
                        Code::SysctlManaged,
                        format!(
                            "{} is written by the installer; it cannot be set in {}",
                            names::quote(name),
                            at.path
                        ),
                    )
                    .label(&entry.key_span, "written by the installer")
                    .help(names::sysctl_managed(name).unwrap_or_default()),
                );
                false
            }
            good => good,
        };
        let Some(value) = sysctl_text(cx, &path, &entry.node) else {
            continue;
        };
        if let Err(reason) = names::sysctl_value(&value) {
            cx.push(
                Diag::new(Code::SysctlValue, format!("invalid {path}: {reason}"))
                    .label(&entry.node.span, "not a sysctl value")
                    .help("write the value as `sysctl -n` prints it, such as 1024 or 1"),
            );
            continue;
        }
        if good {
            out.sysctl.push(Tunable {
                name: Located::new(name.clone(), entry.key_span.clone()),
                value: Located::new(value, entry.node.span.clone()),
            });
        }
    }
}

/// A sysctl value: a string as written or an integer in decimal; a boolean
/// is refused (sysctl switches are numbers).
fn sysctl_text(cx: &mut Ctx, path: &str, node: &Node) -> Option<String> {
    let help = match &node.value {
        Value::Str(s) => return Some(s.clone()),
        Value::Int(n) => return Some(n.to_string()),
        Value::Bool(b) => {
            if *b {
                "sysctl switches are numbers: write 1"
            } else {
                "sysctl switches are numbers: write 0"
            }
        }
        Value::Float(_) => {
            "quote the value, so that YAML keeps it as written (unquoted, 1.10 would be the number 1.1)"
        }
        Value::Null => "give a value; to stop managing a name, remove its key",
        Value::Seq(_) | Value::Map(_) => "give one value, as `sysctl -n` prints it",
    };
    cx.push(
        cx.type_error(path, "a string or an integer", node)
            .help(help),
    );
    None
}

/// `freebsd.loader`: loader.conf variable → value, written with sysrc.
pub(crate) fn loader(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    let Some(map) = cx.mapping(&at.path, at.node) else {
        return;
    };
    for (name, entry) in map {
        let path = path::child(&at.path, name);
        let good = if let Some(why) = names::loader_managed(name) {
            cx.push(
                Diag::new(
                    Code::LoaderManaged,
                    format!(
                        "{} is written by the installer; it cannot be set in {}",
                        names::quote(name),
                        at.path
                    ),
                )
                .label(&entry.key_span, "written by the installer")
                .help(why),
            );
            false
        } else {
            cx.key(&LOADER_NAME, &at.path, name, entry)
        };
        let Some(value) = super::services::rc_text(cx, &path, &entry.node) else {
            continue;
        };
        if let Err(reason) = names::rc_value(&value) {
            let reason = reason.replace("rc.conf", "loader.conf");
            cx.push(
                Diag::new(Code::LoaderValue, format!("invalid {path}: {reason}"))
                    .label(&entry.node.span, "not safe in loader.conf")
                    .help("the value is written in double quotes, where sysrc's sh and the loader read `\\` as an escape and `$` as a variable: leave out `\"`, `\\`, backquotes, `$` and control characters; a value that needs them goes in a file of your own under /boot/loader.conf.d, through freebsd.files, written as you need it"),
            );
            continue;
        }
        if good {
            out.loader.push(Tunable {
                name: Located::new(name.clone(), entry.key_span.clone()),
                value: Located::new(value, entry.node.span.clone()),
            });
        }
    }
}

/// `freebsd.cron`: entry name → {schedule, user, command}.
pub(crate) fn cron(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    let Some(map) = cx.mapping(&at.path, at.node) else {
        return;
    };
    for (name, entry) in map {
        let path = path::child(&at.path, name);
        let good = cx.key(&CRON_NAME, &at.path, name, entry);
        let Some(fields) = cx.mapping(&path, &entry.node) else {
            continue;
        };
        let before = cx.diags.len();
        let mut job = CronJob::blank(
            Located::new(name.clone(), entry.key_span.clone()),
            entry.node.span.clone(),
        );
        cx.walk(&path, fields, CRON, &mut job);
        for (field, help) in [
            ("schedule", "add `schedule: \"15 3 * * *\"` (or @daily)"),
            (
                "command",
                "add the command line to run, such as `command: /usr/local/bin/backup`",
            ),
        ] {
            if !fields.contains_key(field) {
                cx.push(
                    Diag::new(Code::MissingKey, format!("{path} has no `{field}`"))
                        .label(&entry.key_span, format!("no `{field}` here"))
                        .help(help),
                );
            }
        }
        if good && cx.diags.len() == before {
            out.cron.push(job);
        }
    }
}

const CRON_USER: Rule = Rule {
    check: names::user_name,
    code: Code::CronUser,
    what: "user name",
    help: |_| "name the account the command runs as, such as root or postgres".into(),
};

const CRON_COMMAND: Rule = Rule {
    check: names::cron_command,
    code: Code::CronCommand,
    what: "cron command",
    help: |s| {
        if s.contains('%') {
            "write `\\%` for each literal `%` (as in `date +\\%F`)".into()
        } else {
            "give one command line, run by /bin/sh".into()
        }
    },
};

fn schedule(cx: &mut Ctx, at: &At<'_>, job: &mut CronJob) {
    let Some(s) = cx.string(&at.path, at.node) else {
        return;
    };
    match names::cron_schedule(s) {
        Ok(normal) => job.schedule = Some(Located::new(normal, at.node.span.clone())),
        Err(reason) => cx.push(
            Diag::new(Code::CronSchedule, format!("invalid {}: {reason}", at.path))
                .label(&at.node.span, "not a cron schedule")
                .help("write five fields such as \"15 3 * * *\" (03:15 every day), or one of @hourly, @daily, @weekly, @monthly, @yearly, @reboot"),
        ),
    }
}

fn user(cx: &mut Ctx, at: &At<'_>, job: &mut CronJob) {
    job.user = cx.checked(&at.path, at.node, &CRON_USER);
}

fn command(cx: &mut Ctx, at: &At<'_>, job: &mut CronJob) {
    job.command = cx.checked(&at.path, at.node, &CRON_COMMAND);
}
