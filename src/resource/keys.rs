//! `keys`: a user's `~/.ssh/authorized_keys`, under the home the account
//! really has (`pw usershow`), with the domain's keys first: directory 0700
//! and file 0600, owned by the user.

use serde::Serialize;

use super::state::State;
use super::verdict::{Verdict, change, compare_file};
use super::{Input, Kind, Resource, Shell, text};
use crate::fsutil::sha256_hex;
use crate::schema::UserState;
use crate::shell::{QuoteError, word as w};

/// A user's keys, one line each.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Keys {
    pub user: String,
    pub group: String,
    pub keys: Vec<String>,
}

/// What the step wants: the whole file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Want {
    pub user: String,
    pub group: String,
    pub content: String,
}

/// The keys of each present user that has any.
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    let c = input.compiled;
    let present = c
        .freebsd
        .users
        .iter()
        .filter(|u| u.state == UserState::Present);
    super::items(present.filter_map(|u| {
        let name = &u.name.value;
        let keys: Vec<String> = c
            .users
            .iter()
            .find(|k| &k.name == name)
            .map(|k| k.keys.iter().map(|key| key.line()).collect())
            .unwrap_or_default();
        (!keys.is_empty()).then(|| Keys {
            user: name.clone(),
            group: text(&u.primary_group).unwrap_or(name.clone()),
            keys,
        })
    }))
}

impl Kind for Keys {
    type Want = Want;
    const NAME: &'static str = "keys";
    const TEMPLATE: Option<&'static str> = Some(include_str!("../../templates/steps/keys.sh.j2"));

    fn id(&self) -> String {
        format!("keys:{}", self.user)
    }

    fn wants(&self) -> Vec<Want> {
        vec![Want {
            user: self.user.clone(),
            group: self.group.clone(),
            content: self.keys.iter().map(|k| format!("{k}\n")).collect(),
        }]
    }

    fn step_id(want: &Want) -> String {
        format!("keys:{}", want.user)
    }

    fn shell(want: &Want) -> Result<Shell, QuoteError> {
        let Want {
            user,
            group,
            content,
        } = want;
        let owner = w(&format!("{user}:{group}"))?;
        let check = [
            home(user)?,
            format!(
                "[ \"$(sha256 -q \"$home/.ssh/authorized_keys\" 2>/dev/null)\" = {} ]",
                sha256_hex(content)
            ),
            format!(
                "[ \"$(stat -f '%Lp %Su %Sg' \"$home/.ssh/authorized_keys\" 2>/dev/null)\" = {} ]",
                w(&format!("600 {user} {group}"))?
            ),
            format!(
                "[ \"$(stat -f '%Lp %Su' \"$home/.ssh\" 2>/dev/null)\" = {} ]",
                w(&format!("700 {user}"))?
            ),
        ];
        let change = [
            home(user)?,
            "mkdir -p \"$home/.ssh\"".to_string(),
            format!("chown {owner} \"$home/.ssh\""),
            "chmod 0700 \"$home/.ssh\"".to_string(),
            format!(
                "printf '%s' {} > \"$home/.ssh/authorized_keys.beryl-tmp\"",
                w(content)?
            ),
            format!("chown {owner} \"$home/.ssh/authorized_keys.beryl-tmp\""),
            "chmod 0600 \"$home/.ssh/authorized_keys.beryl-tmp\"".to_string(),
            "mv -f \"$home/.ssh/authorized_keys.beryl-tmp\" \"$home/.ssh/authorized_keys\""
                .to_string(),
        ];
        Ok(Shell {
            check: check.join(" && "),
            change: change.join(" && "),
        })
    }

    fn judge(want: &Want, s: &State) -> Verdict {
        let Some(have) = s.users.get(&want.user) else {
            return Verdict::create();
        };
        let mut changes = Vec::new();
        if let Some(dir) = &have.ssh_dir {
            let (hd, wd) = (
                format!("{} {}", dir.mode, dir.owner),
                format!("700 {}", want.user),
            );
            if hd != wd {
                changes.push(change("directory", &hd, &wd));
            }
        }
        let Some(file) = &have.authorized_keys else {
            return Verdict::create();
        };
        let diff = compare_file(
            file,
            &want.content,
            "600",
            &want.user,
            &want.group,
            &mut changes,
        );
        Verdict::update(changes, diff)
    }
}

/// The home pw gave a user, in `$home` (empty when there is no such user).
fn home(user: &str) -> Result<String, QuoteError> {
    Ok(format!(
        "home=$(pw usershow -n {} 2>/dev/null | cut -d: -f9) && [ -n \"$home\" ]",
        w(user)?
    ))
}
