//! `group`: a group the users need (primary or supplementary) that the
//! FreeBSD base system lacks, made with `pw groupadd`.

use serde::Serialize;

use super::state::State;
use super::verdict::Verdict;
use super::{Input, Kind, Resource, Shell};
use crate::freebsd::base;
use crate::schema::UserState;
use crate::shell::{QuoteError, word as w};

/// A group beryl makes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Group {
    pub name: String,
}

/// The groups the present users need, in first-mention order.
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    let present: Vec<_> = input
        .freebsd()
        .users
        .iter()
        .filter(|u| u.state == UserState::Present)
        .collect();
    super::items(needed(&present).into_iter().map(|name| Group { name }))
}

/// The groups the users need (primary and supplementary) that the base
/// system lacks, in first-mention order.
pub(crate) fn needed(users: &[&crate::schema::User]) -> Vec<String> {
    let mut groups: Vec<String> = Vec::new();
    for u in users {
        for g in u.primary_group.iter().chain(&u.groups) {
            if !base::is_group(&g.value) && !groups.contains(&g.value) {
                groups.push(g.value.clone());
            }
        }
    }
    groups
}

impl Kind for Group {
    type Want = Group;
    const NAME: &'static str = "group";
    const TEMPLATE: Option<&'static str> = Some(include_str!("../../templates/steps/group.sh.j2"));

    fn id(&self) -> String {
        format!("group:{}", self.name)
    }

    fn wants(&self) -> Vec<Group> {
        vec![self.clone()]
    }

    fn step_id(want: &Group) -> String {
        want.id()
    }

    fn shell(want: &Group) -> Result<Shell, QuoteError> {
        Ok(Shell {
            check: format!("pw groupshow -n {} >/dev/null 2>&1", w(&want.name)?),
            change: format!("pw groupadd -n {}", w(&want.name)?),
        })
    }

    fn judge(want: &Group, s: &State) -> Verdict {
        Verdict::create_unless(s.groups.contains_key(&want.name))
    }
}
