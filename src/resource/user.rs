//! `user`: a user account of `freebsd.users`, present with the fields the
//! config sets, or (`state: absent`) one that must not exist.
//!
//! - **Install:** `templates/steps/user.sh.j2` runs `pw useradd`, with
//!   `-g NAME` for a user named like a group beryl makes (see [`layout`]); a
//!   fresh system has no user to remove.
//! - **Apply:** `pw usershow` must show every field the config sets, and
//!   the supplementary groups as an exact set (`pw usermod -G` replaces
//!   it); else `pw usermod`, or `pw useradd -m` for a new user (password
//!   locked: `-h -`; `-g NAME` when the host has a group of its name). An
//!   absent user is removed with `pw userdel`.

use serde::Serialize;

use super::state::State;
use super::verdict::{Change, Verdict, change};
use super::{Input, Kind, Resource, Shell, text};
use crate::schema::UserState;
use crate::shell::{QuoteError, word as w};

/// A user account, or a user that must not exist.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum User {
    Present(Account),
    Absent { name: String },
}

/// A user account.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Account {
    pub name: String,
    pub uid: Option<u32>,
    pub shell: Option<String>,
    pub comment: Option<String>,
    pub primary_group: Option<String>,
    /// Supplementary groups, in the order given (pw sets them as a set).
    pub groups: Vec<String>,
}

/// The users, in the order written.
///
/// A user without `primary_group` whose name is a group beryl makes (one
/// that other users join) gets that group explicitly: without `-g`, `pw
/// useradd` reuses a group of the user's name only while it has no members
/// (usr.sbin/pw/pw_user.c `pw_gidpolicy`, index id 690327693), and
/// otherwise adds a second group of that name (pw_group.c `groupadd`, whose
/// `addgrent` goes through lib/libutil/gr_util.c `gr_copy` @d28066d8, which
/// matches lines by gid only).
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    let users = &input.freebsd().users;
    let present: Vec<_> = users
        .iter()
        .filter(|u| u.state == UserState::Present)
        .collect();
    let planned = super::group::needed(&present);
    super::items(users.iter().map(|u| {
        let name = u.name.value.clone();
        if u.state == UserState::Absent {
            return User::Absent { name };
        }
        let primary_group =
            text(&u.primary_group).or_else(|| planned.contains(&name).then(|| name.clone()));
        User::Present(Account {
            name,
            uid: u.uid.as_ref().map(|l| l.value),
            shell: text(&u.shell),
            comment: text(&u.comment),
            primary_group,
            groups: u.groups.iter().map(|g| g.value.clone()).collect(),
        })
    }))
}

impl User {
    /// The user's name.
    pub(crate) fn name(&self) -> &str {
        match self {
            User::Present(a) => &a.name,
            User::Absent { name } => name,
        }
    }
}

impl Kind for User {
    type Want = User;
    const NAME: &'static str = "user";
    const TEMPLATE: Option<&'static str> = Some(include_str!("../../templates/steps/user.sh.j2"));

    fn id(&self) -> String {
        format!("user:{}", self.name())
    }

    fn installed(&self) -> bool {
        matches!(self, User::Present(_))
    }

    fn wants(&self) -> Vec<User> {
        vec![self.clone()]
    }

    fn desired_type(want: &User) -> &'static str {
        match want {
            User::Present(_) => "user",
            User::Absent { .. } => "absent",
        }
    }

    fn step_id(want: &User) -> String {
        want.id()
    }

    fn shell(want: &User) -> Result<Shell, QuoteError> {
        Ok(match want {
            User::Present(a) => Shell {
                check: check(a)?,
                change: change_user(a)?,
            },
            User::Absent { name } => Shell {
                check: format!("! pw usershow -n {} >/dev/null 2>&1", w(name)?),
                change: format!("pw userdel -n {}", w(name)?),
            },
        })
    }

    fn judge(want: &User, s: &State) -> Verdict {
        let u = match want {
            User::Absent { name } if s.users.contains_key(name) => {
                return Verdict::new(super::verdict::Action::Delete, Vec::new(), None);
            }
            User::Absent { .. } => return Verdict::noop(),
            User::Present(u) => u,
        };
        let Some(have) = s.users.get(&u.name) else {
            return Verdict::create();
        };
        let mut changes = Vec::new();
        if let Some(uid) = u.uid
            && have.uid != uid.to_string()
        {
            changes.push(change("uid", &have.uid, &uid.to_string()));
        }
        if let Some(g) = &u.primary_group
            && let Some(gid) = s.groups.get(g).map(|g| &g.gid)
            && &have.gid != gid
        {
            changes.push(change("primary_group", &have.gid, gid));
        }
        if let Some(c) = &u.comment
            && &have.comment != c
        {
            changes.push(change("comment", &have.comment, c));
        }
        if let Some(sh) = &u.shell
            && &have.shell != sh
        {
            changes.push(change("shell", &have.shell, sh));
        }
        let groups = groups_of(s, &u.name);
        let want = sorted(&u.groups);
        if groups != want {
            changes.push(Change {
                field: "groups".into(),
                before: groups.into(),
                after: want.into(),
            });
        }
        Verdict::update(changes, None)
    }
}

/// The supplementary groups of a user in a snapshot, sorted.
pub(crate) fn groups_of(s: &State, user: &str) -> Vec<String> {
    let mut out: Vec<String> = s
        .groups
        .iter()
        .filter(|(_, g)| g.members.split(',').any(|m| m == user))
        .map(|(name, _)| name.clone())
        .collect();
    out.sort();
    out
}

/// A user as `pw usershow` must show it.
fn check(u: &Account) -> Result<String, QuoteError> {
    let name = w(&u.name)?;
    let mut tests = vec![format!("pw usershow -n {name} >/dev/null 2>&1")];
    let field = |n: usize, want: &str| -> Result<String, QuoteError> {
        Ok(format!(
            "[ \"$(pw usershow -n {name} | cut -d: -f{n})\" = {} ]",
            w(want)?
        ))
    };
    if let Some(uid) = u.uid {
        tests.push(field(3, &uid.to_string())?);
    }
    if let Some(g) = &u.primary_group {
        tests.push(format!(
            "[ \"$(pw usershow -n {name} | cut -d: -f4)\" = \"$(pw groupshow -n {} | cut -d: -f3)\" ]",
            w(g)?
        ));
    }
    if let Some(c) = &u.comment {
        tests.push(field(8, c)?);
    }
    if let Some(s) = &u.shell {
        tests.push(field(10, s)?);
    }
    // The supplementary groups, as an exact set (`pw usermod -G` replaces it).
    tests.push(format!(
        "[ \"$(pw groupshow -a | awk -F: -v u={name} '{{n = split($4, m, \",\"); for (i = 1; i <= n; i++) if (m[i] == u) print $1}}' | sort | tr '\\n' ' ')\" = {} ]",
        w(&sorted(&u.groups).iter().map(|g| format!("{g} ")).collect::<String>())?
    ));
    Ok(tests.join(" && "))
}

fn sorted(groups: &[String]) -> Vec<String> {
    let mut g = groups.to_vec();
    g.sort();
    g.dedup();
    g
}

fn change_user(u: &Account) -> Result<String, QuoteError> {
    let mut args = Vec::new();
    if let Some(uid) = u.uid {
        args.push(format!("-u {uid}"));
    }
    if let Some(c) = &u.comment {
        args.push(format!("-c {}", w(c)?));
    }
    if let Some(s) = &u.shell {
        args.push(format!("-s {}", w(s)?));
    }
    if let Some(g) = &u.primary_group {
        args.push(format!("-g {}", w(g)?));
    }
    args.push(format!("-G {}", w(&sorted(&u.groups).join(","))?));
    let args = args.join(" ");
    let name = w(&u.name)?;
    // A group of the user's name that beryl does not make but the host has
    // (made by hand, or by a package): `-g` too, as `layout` does for the
    // planned ones (pw_gidpolicy).
    let own = match &u.primary_group {
        Some(_) => String::new(),
        None => format!(
            "elif pw groupshow -n {name} >/dev/null 2>&1; then pw useradd -n {name} -m -g {name} {args} -h -; "
        ),
    };
    Ok(format!(
        "if pw usershow -n {name} >/dev/null 2>&1; then pw usermod -n {name} {args}; {own}else pw useradd -n {name} -m {args} -h -; fi"
    ))
}
