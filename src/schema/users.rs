//! `freebsd.users`: a list of user mappings, each checked by the [`USER`] table.

use crate::diag::Diag;
use crate::syntax::path;
use crate::value::{Node, Value};

use super::Code;
use super::ctx::{At, Ctx, Field, Rule};
use super::model::{FreeBsd, Located, User};
use crate::freebsd::names;

/// The keys of one user mapping.
pub(crate) const USER: &[Field<User>] = &[
    Field {
        key: "name",
        doc: "login name (required), such as alice",
        aliases: &["login", "username", "user"],
        check: name,
    },
    Field {
        key: "uid",
        doc: "numeric user id (0 to 4294967294); pw allocates one when absent",
        aliases: &["user_id", "id"],
        check: uid,
    },
    Field {
        key: "comment",
        doc: "GECOS comment, usually the full name",
        aliases: &["gecos", "full_name", "fullname", "description"],
        check: comment,
    },
    Field {
        key: "shell",
        doc: "absolute path of the login shell, such as /usr/local/bin/bash",
        aliases: &["login_shell"],
        check: shell,
    },
    Field {
        key: "primary_group",
        doc: "primary group; a group named like the user when absent",
        aliases: &["group", "gid", "primary"],
        check: primary_group,
    },
    Field {
        key: "groups",
        doc: "supplementary groups, such as [wheel, operator]",
        aliases: &["secondary_groups", "supplementary_groups", "extra_groups"],
        check: groups,
    },
    Field {
        key: "ssh_keys",
        doc: "SSH public keys: inline keys or names of key files",
        aliases: &["keys", "ssh_key", "authorized_keys"],
        check: ssh_keys,
    },
    Field {
        key: "state",
        doc: "present (the default) or absent",
        aliases: &["ensure", "status"],
        check: state,
    },
];

const NAME: Rule = Rule {
    check: names::user_name,
    code: Code::UserName,
    what: "user name",
    help: |_| {
        "use lowercase letters, digits, `_` and `-`, starting with a letter, such as alice".into()
    },
};

const GROUP: Rule = Rule {
    check: names::group_name,
    code: Code::Group,
    what: "group name",
    help: |_| {
        "use lowercase letters, digits, `_` and `-`, starting with a letter, such as wheel".into()
    },
};

const COMMENT: Rule = Rule {
    check: names::comment,
    code: Code::Comment,
    what: "comment",
    help: |_| "write the comment on one line, without `:`".into(),
};

const SHELL: Rule = Rule {
    check: names::shell,
    code: Code::Shell,
    what: "shell",
    help: shell_help,
};

/// For a bare name, the path it most likely means (pw does not search PATH).
fn shell_help(s: &str) -> String {
    let name = s.trim();
    let path = match name {
        "sh" | "csh" | "tcsh" => format!("/bin/{name}"),
        "nologin" => "/usr/sbin/nologin".into(),
        _ if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') => {
            format!("/usr/local/bin/{name}")
        }
        _ => {
            return "give the shell's absolute path, such as /bin/sh or /usr/local/bin/bash".into();
        }
    };
    format!("give the absolute path, such as {path}: pw does not search PATH")
}

/// Checks each user; duplicate names are reported at the second.
pub(crate) fn users(cx: &mut Ctx, at: &At<'_>, out: &mut FreeBsd) {
    let Some(items) = cx.list(&at.path, at.node, "a list of users") else {
        return;
    };
    for (i, item) in items.iter().enumerate() {
        let Some(user) = one(cx, &at.path, i, item) else {
            continue;
        };
        let valid = names::user_name(&user.name.value).is_ok();
        if let Some(first) = out
            .users
            .iter()
            .find(|u| valid && u.name.value == user.name.value)
        {
            cx.push(
                Diag::new(
                    Code::DuplicateUser,
                    format!("user `{}` is defined twice in {}", user.name.value, at.path),
                )
                .label(&user.name.span, "defined again here")
                .label(&first.name.span, "first defined here")
                .help("define each user once and merge their fields"),
            );
            continue;
        }
        out.users.push(user);
    }
    uids(cx, out);
}

/// Each uid once, and none of a base account's (src/freebsd/base.rs,
/// ACCOUNTS): `pw useradd -u UID` refuses a uid already allocated,
/// under the install's `set -e`, before root is locked.
fn uids(cx: &mut Ctx, out: &FreeBsd) {
    let present = || {
        out.users
            .iter()
            .filter(|u| u.state == super::model::UserState::Present)
    };
    for (i, user) in present().enumerate() {
        let Some(uid) = &user.uid else {
            continue;
        };
        if let Some(account) = crate::freebsd::base::account_of_uid(uid.value)
            && account != user.name.value
        {
            cx.push(
                Diag::new(
                    Code::DuplicateUid,
                    format!(
                        "user `{}` has uid {}, the uid of the base account `{account}`",
                        user.name.value, uid.value
                    ),
                )
                .label(&uid.span, format!("already `{account}`'s"))
                .help("pick a uid of 1000 or more that no account of the host has, or omit `uid` to let pw pick one"),
            );
            continue;
        }
        if let Some(w) = ports_id(user, uid) {
            cx.push(w);
        }
        if let Some(first) = present()
            .take(i)
            .find(|u| u.uid.as_ref().is_some_and(|v| v.value == uid.value))
        {
            let first_uid = first.uid.as_ref().map_or(&first.name.span, |v| &v.span);
            cx.push(
                Diag::new(
                    Code::DuplicateUid,
                    format!(
                        "users `{}` and `{}` both have uid {}",
                        first.name.value, user.name.value, uid.value
                    ),
                )
                .label(&uid.span, "given again here")
                .label(first_uid, "first given here")
                .help("give each user its own uid, or omit `uid` to let pw pick one"),
            );
        }
    }
}

/// A warning when the ports tree gives `uid` to a port's user, or (for a
/// user without `primary_group`, whose own group pw makes with gid = uid
/// when that gid is free: usr.sbin/pw/pw_user.c `pw_gidpolicy`) the gid to
/// a port's group: installing that package later makes its user or group
/// with another id, or fails (src/freebsd/ports.rs). A user named like the
/// port's, with its id, is that user.
fn ports_id(user: &User, uid: &Located<u32>) -> Option<Diag> {
    use crate::freebsd::ports::{self, Kind};
    let me = user.name.value.as_str();
    let port_user = ports::of_id(Kind::User, uid.value).filter(|n| *n != me);
    let port_group = match user.primary_group {
        None => ports::of_id(Kind::Group, uid.value).filter(|n| *n != me),
        Some(_) => None,
    };
    let whose = match (port_user, port_group) {
        (None, None) => return None,
        (Some(u), None) => format!("the ports tree's uid for the user `{u}`"),
        (None, Some(g)) => format!(
            "and its group would get gid {}, the ports tree's gid for the group `{g}`",
            uid.value
        ),
        (Some(u), Some(g)) => format!(
            "the ports tree's uid for the user `{u}` (and gid for the group `{g}`, which its group would get)"
        ),
    };
    Some(
        Diag::warning(
            Code::PortsId,
            format!("user `{me}` has uid {}, {whose}", uid.value),
        )
        .label(&uid.span, "a uid the ports tree reserves")
        .help(format!(
            "pick a uid of 1000 or more: the ports tree gives 1 to 999 to the users and groups its packages create ({})",
            ports::SOURCE
        )),
    )
}

fn one(cx: &mut Ctx, list: &str, i: usize, node: &Node) -> Option<User> {
    let index_path = path::item(list, i);
    let map = cx.mapping(&index_path, node)?;
    let path = match map.get("name").and_then(|e| e.node.as_str()) {
        Some(n) if names::user_name(n).is_ok() => path::child(list, n),
        _ => index_path,
    };
    let mut user = User::blank(node.span.clone());
    cx.walk(&path, map, USER, &mut user);
    if !map.contains_key("name") {
        cx.push(
            Diag::new(Code::MissingKey, format!("{path} has no `name`"))
                .label(&node.span, "this user needs a `name`")
                .help("give each user a login name, such as `- name: alice`"),
        );
        return None;
    }
    Some(user)
}

fn name(cx: &mut Ctx, at: &At<'_>, user: &mut User) {
    if let Some(n) = cx.checked(&at.path, at.node, &NAME) {
        user.name = n;
    }
}

fn uid(cx: &mut Ctx, at: &At<'_>, user: &mut User) {
    let Value::Int(n) = at.node.value else {
        cx.push(cx.type_error(&at.path, "an integer", at.node));
        return;
    };
    match names::uid(n) {
        Ok(u) => user.uid = Some(Located::new(u, at.node.span.clone())),
        Err(reason) => cx.push(
            Diag::new(Code::Uid, format!("invalid {}: {reason}", at.path))
                .label(&at.node.span, "not a valid uid")
                .help("omit `uid` to let pw pick one (from 1000 up)"),
        ),
    }
}

fn comment(cx: &mut Ctx, at: &At<'_>, user: &mut User) {
    user.comment = cx.checked(&at.path, at.node, &COMMENT);
}

fn shell(cx: &mut Ctx, at: &At<'_>, user: &mut User) {
    user.shell = cx.checked(&at.path, at.node, &SHELL);
}

fn primary_group(cx: &mut Ctx, at: &At<'_>, user: &mut User) {
    user.primary_group = cx.checked(&at.path, at.node, &GROUP);
}

fn groups(cx: &mut Ctx, at: &At<'_>, user: &mut User) {
    user.groups = cx.checked_list(&at.path, at.node, &GROUP);
}

fn ssh_keys(cx: &mut Ctx, at: &At<'_>, user: &mut User) {
    if let Some(items) = cx.list(&at.path, at.node, "a list of SSH keys") {
        user.ssh_keys = items.to_vec();
    }
}

fn state(cx: &mut Ctx, at: &At<'_>, user: &mut User) {
    let Some(s) = cx.string(&at.path, at.node) else {
        return;
    };
    match names::user_state(s) {
        Ok(st) => user.state = st,
        Err(reason) => cx.push(
            Diag::new(Code::State, format!("invalid {}: {reason}", at.path))
                .label(&at.node.span, "not a user state")
                .help("write `present` or `absent`"),
        ),
    }
}
