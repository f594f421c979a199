//! The users and groups of the FreeBSD ports tree: the name and id its
//! files `UIDs` and `GIDs` assign to each user and group a port creates
//! (freebsd/freebsd-ports @000b96ce, derived into `ports-ids.txt`, one row
//! a line: `u NAME UID` or `g NAME GID`).
//!
//! Two uses: a uid or gid of 1 to 999 is the ports tree's (its files say
//! "DO NOT USE: 1000-65533"), so a user of the inventory with one may
//! collide with a package's user; and a file or cron owner that is neither
//! a user of the host nor a base account may still be a package's user,
//! which is one of these names (a port declares the users it creates in
//! `USERS`, and the ports tree keeps every such name in `UIDs`).

use std::sync::OnceLock;

/// Where the table was derived from, for messages and docs.
pub(crate) const SOURCE: &str = "freebsd/freebsd-ports UIDs and GIDs @000b96ce";

/// The highest id the ports tree assigns below the ids it leaves to sites.
pub(crate) const LAST_PORT_ID: u32 = 999;

/// Whether a row is a user (`UIDs`) or a group (`GIDs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    User,
    Group,
}

/// One row: a user or group, its name and id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Row {
    pub kind: Kind,
    pub name: &'static str,
    pub id: u32,
}

const TEXT: &str = include_str!("ports-ids.txt");

/// The rows, in the files' order (a line that is not a row is left out;
/// the tests hold every line to the form).
pub(crate) fn rows() -> &'static [Row] {
    static ROWS: OnceLock<Vec<Row>> = OnceLock::new();
    ROWS.get_or_init(|| TEXT.lines().filter_map(row).collect())
}

fn row(line: &'static str) -> Option<Row> {
    let mut words = line.split(' ');
    let kind = match words.next()? {
        "u" => Kind::User,
        "g" => Kind::Group,
        _ => return None,
    };
    let name = words.next()?;
    let id = words.next()?.parse().ok()?;
    words.next().is_none().then_some(Row { kind, name, id })
}

/// The port's user (or group) that the ports tree gives `id`, when `id` is
/// in the range it reserves for ports (1 to 999).
pub(crate) fn of_id(kind: Kind, id: u32) -> Option<&'static str> {
    if !(1..=LAST_PORT_ID).contains(&id) {
        return None;
    }
    rows()
        .iter()
        .find(|r| r.kind == kind && r.id == id)
        .map(|r| r.name)
}

/// The id the ports tree gives the user (or group) `name`, if a port
/// creates one of that name.
pub(crate) fn id_of(kind: Kind, name: &str) -> Option<u32> {
    rows()
        .iter()
        .find(|r| r.kind == kind && r.name == name)
        .map(|r| r.id)
}

/// The users and groups a package creates, as its port's Makefile says
/// (`USERS`, `GROUPS`): the package name, its users, its groups, and the
/// Makefile it was read from (freebsd/freebsd-ports). A package not here
/// may create users too; beryl cannot tell.
pub(crate) const PACKAGE_USERS: &[(&str, &[&str], &[&str], &str)] = &[(
    "postgresql16-server",
    &["postgres"],
    &["postgres"],
    "databases/postgresql16-server/Makefile @3068854d: USERS=${PG_USER}, GROUPS=${PG_GROUP}, PG_USER?=postgres, PG_GROUP?=postgres",
)];

/// The package a spec of `freebsd.packages` names: itself, or the port of
/// an origin (`databases/postgresql16-server`, `devel/py-foo@py311`).
pub(crate) fn package_name(spec: &str) -> &str {
    match spec.rsplit_once('/') {
        Some((_, port)) => port.split('@').next().unwrap_or(port),
        None => spec,
    }
}

/// What the packages `specs` tell of `name`: whether one of them creates
/// it, and whether every one of them is in [`PACKAGE_USERS`] (so that
/// beryl knows none other does).
pub(crate) fn created_by<'a>(
    kind: Kind,
    name: &str,
    specs: impl IntoIterator<Item = &'a str>,
) -> (bool, bool) {
    let mut created = false;
    let mut all_known = true;
    for spec in specs {
        match PACKAGE_USERS.iter().find(|r| r.0 == package_name(spec)) {
            Some((_, users, groups, _)) => {
                let names = if kind == Kind::User { users } else { groups };
                created |= names.contains(&name);
            }
            None => all_known = false,
        }
    }
    (created, all_known)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line is a comment or a row; the table is the size of the files
    /// (542 users, 532 groups at @000b96ce).
    #[test]
    fn the_table_parses() {
        for line in TEXT.lines().filter(|l| !l.starts_with('#')) {
            assert!(row(line).is_some(), "not a row: {line:?}");
        }
        let count = |k| rows().iter().filter(|r| r.kind == k).count();
        assert_eq!(count(Kind::User), 542);
        assert_eq!(count(Kind::Group), 532);
    }

    /// As the files ask ("keep this file sorted by UID!"): ids ascending,
    /// each once, all in 1-999 but nogroup and nobody.
    #[test]
    fn ids_are_sorted_and_reserved() {
        for kind in [Kind::User, Kind::Group] {
            let ids: Vec<u32> = rows()
                .iter()
                .filter(|r| r.kind == kind)
                .map(|r| r.id)
                .collect();
            assert!(ids.windows(2).all(|w| w[0] < w[1]), "{kind:?}");
            assert!(
                ids.iter()
                    .all(|i| (1..=LAST_PORT_ID).contains(i) || [65533, 65534].contains(i)),
                "{kind:?}"
            );
        }
    }

    #[test]
    fn lookups() {
        assert_eq!(of_id(Kind::User, 990), Some("oozie"));
        assert_eq!(of_id(Kind::Group, 990), Some("oozie"));
        assert_eq!(of_id(Kind::User, 88), Some("mysql"));
        assert_eq!(of_id(Kind::User, 770), Some("postgres"));
        // Free slots, and ids outside the ports' range.
        assert_eq!(of_id(Kind::User, 320), None);
        assert_eq!(of_id(Kind::User, 65534), None);
        assert_eq!(of_id(Kind::User, 1001), None);
        assert_eq!(id_of(Kind::User, "postgres"), Some(770));
        assert_eq!(id_of(Kind::Group, "haclient"), Some(275));
        assert_eq!(id_of(Kind::User, "haclient"), None);
        // Commented out in the files: hald is gone from the ports tree.
        assert_eq!(id_of(Kind::User, "haldaemon"), None);
    }

    #[test]
    fn packages_that_create_users() {
        assert_eq!(
            package_name("databases/postgresql16-server"),
            "postgresql16-server"
        );
        assert_eq!(package_name("devel/py-foo@py311"), "py-foo");
        assert_eq!(package_name("nginx"), "nginx");
        let pg = ["databases/postgresql16-server"];
        assert_eq!(created_by(Kind::User, "postgres", pg), (true, true));
        assert_eq!(created_by(Kind::Group, "postgres", pg), (true, true));
        assert_eq!(created_by(Kind::User, "mysql", pg), (false, true));
        assert_eq!(created_by(Kind::User, "mysql", ["nginx"]), (false, false));
        // Every row's names are the ports tree's.
        for (_, users, groups, _) in PACKAGE_USERS {
            assert!(users.iter().all(|u| id_of(Kind::User, u).is_some()));
            assert!(groups.iter().all(|g| id_of(Kind::Group, g).is_some()));
        }
    }
}
