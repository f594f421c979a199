//! Who owns what: every file owner and group, and every cron user, exists
//! on the host when the install and apply need it. `install -o NAME` and
//! `install -g NAME` fail on a name the host lacks (under the install's
//! `set -e`), and cron skips a job whose user does not exist.
//!
//! A name exists when it is a present user of the host (and, for a group,
//! a group beryl makes for the users: named like a user without
//! `primary_group`, or one the users need), an account or group of the
//! base system ([`base`]), or a user or group a package of the host
//! creates ([`ports::PACKAGE_USERS`], read from the ports' Makefiles).
//! Beyond that table beryl knows which names a port can create, not which
//! port creates them: the ports tree lists every user and group its ports
//! create in its `UIDs` and `GIDs` files ([`ports`]; `Mk/bsd.port.mk`
//! reads a port's `USERS` and `GROUPS` from them). So a name no port has
//! is an error; a port's name is an error when every package of the host
//! is in the table (none creates it), and a warning when a package is
//! not (beryl cannot tell).

use crate::diag::Diag;
use crate::freebsd::ports::{self, Kind};
use crate::freebsd::{base, names};
use crate::syntax::path;

use super::Code;
use super::ctx::Ctx;
use super::model::{FreeBsd, Located, UserState};

/// One name that must exist: what it is and where it was written.
struct Wanted<'a> {
    kind: Kind,
    name: &'a Located<String>,
    path: String,
}

/// Checks every file owner and group and every cron user.
pub(crate) fn owners(cx: &mut Ctx, f: &FreeBsd) {
    let mut wanted: Vec<Wanted<'_>> = Vec::new();
    for file in &f.files {
        let at = path::child("freebsd.files", &file.path.value);
        if let Some(o) = &file.owner {
            wanted.push(Wanted {
                kind: Kind::User,
                name: o,
                path: path::child(&at, "owner"),
            });
        }
        if let Some(g) = &file.group {
            wanted.push(Wanted {
                kind: Kind::Group,
                name: g,
                path: path::child(&at, "group"),
            });
        }
    }
    for job in &f.cron {
        if let Some(u) = &job.user {
            let at = path::child("freebsd.cron", &job.name.value);
            wanted.push(Wanted {
                kind: Kind::User,
                name: u,
                path: path::child(&at, "user"),
            });
        }
    }
    // A host beryl never installed has users and groups of its own, which
    // the inventory need not list: there, beryl cannot know.
    let adopted = f.adopted();
    for w in &wanted {
        let specs = f.packages.iter().map(|p| p.value.as_str());
        let (by_package, all_known) = ports::created_by(w.kind, &w.name.value, specs);
        if !by_package && !exists(f, w.kind, &w.name.value) {
            cx.push(match adopted {
                true => unknown(w),
                false => missing(f, w, all_known),
            });
        }
    }
}

/// Whether the host or its base system has the user (group) `name`.
fn exists(f: &FreeBsd, kind: Kind, name: &str) -> bool {
    let mut present = f.users.iter().filter(|u| u.state == UserState::Present);
    match kind {
        Kind::User => base::is_account(name) || present.any(|u| u.name.value == name),
        Kind::Group => {
            base::is_group(name)
                || present.any(|u| {
                    (u.name.value == name && u.primary_group.is_none())
                        || u.primary_group
                            .iter()
                            .chain(&u.groups)
                            .any(|g| g.value == name)
                })
        }
    }
}

/// The warning for a name an adopted host may have of its own.
fn unknown(w: &Wanted<'_>) -> Diag {
    let what = match w.kind {
        Kind::User => "user",
        Kind::Group => "group",
    };
    let name = names::quote(&w.name.value);
    Diag::warning(
        Code::UnknownOwner,
        format!(
            "{}: the {what} {name} is not in the inventory, and this host was not installed by beryl (freebsd.install: none): beryl cannot tell whether it has one",
            w.path
        ),
    )
    .label(&w.name.span, format!("this host's own {what}?"))
    .help(format!(
        "the step fails on the host if it has no {what} {name}; the dry run against its snapshot shows it"
    ))
}

/// The error (or warning) for a name the host may lack.
/// `all_known`: every package of the host is in [`ports::PACKAGE_USERS`].
fn missing(f: &FreeBsd, w: &Wanted<'_>, all_known: bool) -> Diag {
    let (what, list, id) = match w.kind {
        Kind::User => ("user", "freebsd.users", "uid"),
        Kind::Group => ("group", "a user's primary_group or groups", "gid"),
    };
    let name = names::quote(&w.name.value);
    let Some(port_id) = ports::id_of(w.kind, &w.name.value) else {
        return Diag::new(
            Code::NoSuchOwner,
            format!(
                "{}: the {what} {name} exists nowhere: not on the host, not in the base system, and no port creates it",
                w.path
            ),
        )
        .label(&w.name.span, format!("no such {what}"))
        .help(format!(
            "define it in {list}, or name one that exists; every {what} a port creates is in the ports tree's {} ({})",
            if w.kind == Kind::User { "UIDs" } else { "GIDs" },
            ports::SOURCE
        ));
    };
    if all_known {
        return Diag::new(
            Code::NoSuchOwner,
            format!(
                "{}: the {what} {name} is a port's ({id} {port_id} in the ports tree), and none of this host's packages creates it",
                w.path
            ),
        )
        .label(&w.name.span, format!("no such {what} on this host"))
        .help(format!(
            "add the package that creates {name} to freebsd.packages, or define it in {list}"
        ));
    }
    let listed: Vec<&str> = f.packages.iter().map(|p| p.value.as_str()).collect();
    Diag::warning(
        Code::PackageOwner,
        format!(
            "{}: the {what} {name} is neither the host's nor the base system's; a port creates it ({id} {port_id} in the ports tree), but beryl cannot tell whether one of this host's packages ({}) does",
            w.path,
            listed.join(", ")
        ),
    )
    .label(&w.name.span, format!("a package's {what}?"))
    .help(format!(
        "make sure a listed package creates {name}, else add that package or define it in {list}"
    ))
}
