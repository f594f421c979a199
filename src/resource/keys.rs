//! `keys`: a user's `~/.ssh/authorized_keys`, under the home the account
//! really has (`pw usershow`), with the domain's keys first: directory 0700
//! and file 0600, owned by the user.

use serde::Serialize;

use super::state::{State, Type};
use super::verdict::{Content, Verdict, change, judge_file};
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
    const SCRIPTS: &'static [(&'static str, &'static str)] =
        &[("keys_check", CHECK), ("keys_change", CHANGE)];

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
        // The home and all under it are the user's: read and written as the
        // user (as_user, templates/lib.sh), so that no link planted there
        // makes root read, write or chown anything.
        let check = format!(
            "{} && as_user {} \"$keys_check\" sh \"$home\" {} {} {}",
            home(user)?,
            w(user)?,
            sha256_hex(content),
            w(&format!("0600 {user} {group}"))?,
            w(&format!("0700 {user}"))?,
        );
        let change = format!(
            "{} && as_user {} \"$keys_change\" sh \"$home\" {} {} {}",
            home(user)?,
            w(user)?,
            w(content)?,
            w(group)?,
            w(user)?,
        );
        Ok(Shell { check, change })
    }

    fn judge(want: &Want, s: &State) -> Verdict {
        let Some(have) = s.users.get(&want.user) else {
            return Verdict::create();
        };
        let mut changes = Vec::new();
        if let Some(dir) = &have.ssh_dir {
            if dir.kind == Type::Link {
                changes.push(change("directory type", "link", "directory"));
                return Verdict::refuse(changes);
            }
            let (hd, wd) = (
                format!("{} {}", dir.mode, dir.owner),
                format!("0700 {}", want.user),
            );
            if hd != wd {
                changes.push(change("directory", &hd, &wd));
            }
        }
        let Some(file) = &have.authorized_keys else {
            return Verdict::create();
        };
        // Public keys: shown as lines, though the file is 0600.
        let content = (want.content.as_str(), Content::Shown);
        judge_file(file, content, "0600", &want.user, &want.group, changes)
    }
}

/// The check, run as the user from the home (`$1`): no link, the digest
/// (`$2`), the file's mode and owner (`$3`) and the directory's (`$4`), the
/// modes as four digits ([`super::STAT_MODE`]: a set-id or sticky bit on
/// `.ssh` is a difference).
const CHECK: &str = r#"cd -P -- "$1" && [ ! -L .ssh ] && [ ! -L .ssh/authorized_keys ] &&
[ "$(sha256 -q .ssh/authorized_keys 2>/dev/null)" = "$2" ] &&
[ "$(stat -f "%Mp%03Lp %Su %Sg" .ssh/authorized_keys 2>/dev/null)" = "$3" ] &&
[ "$(stat -f "%Mp%03Lp %Su" .ssh 2>/dev/null)" = "$4" ]"#;

/// The change, run as the user (`$4`) from the home (`$1`): refuse a home
/// that is not the user's (test(1) `-O`) and a link, then write the keys
/// (`$2`) to a new file with the group (`$3`), and rename it over the old
/// one. mktemp(1) with a relative template makes the file in the working
/// directory with mkstemp(3), mode 0600 (usr.bin/mktemp/mktemp.c
/// @039ea811).
const CHANGE: &str = r#"cd -P -- "$1" || exit 1
if [ ! -O . ]; then
	printf "%s\n" "$1 does not belong to $4: its keys are written by $4 only" >&2
	exit 1
fi
for l in .ssh .ssh/authorized_keys; do
	if [ -L "$l" ]; then
		printf "%s\n" "$1/$l is a symbolic link: not followed" >&2
		exit 1
	fi
done
umask 077
mkdir -p .ssh && chmod 0700 .ssh && cd .ssh || exit 1
t=$(mktemp authorized_keys.beryl.XXXXXX) || exit 1
printf "%s" "$2" > "$t" && chgrp "$3" "$t" && chmod 0600 "$t" && mv -f "$t" authorized_keys || {
	rm -f "$t"
	exit 1
}"#;

/// The home pw gave a user, in `$home` (empty when there is no such user).
fn home(user: &str) -> Result<String, QuoteError> {
    Ok(format!(
        "home=$(pw usershow -n {} 2>/dev/null | cut -d: -f9) && [ -n \"$home\" ]",
        w(user)?
    ))
}
