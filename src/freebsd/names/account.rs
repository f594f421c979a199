//! Users and groups, by FreeBSD `pw` rules.

use super::kinds::UserState;
use super::{quote, show};

/// The longest user or group name, in bytes (`MAXLOGNAME - 1`).
pub(crate) const MAX_NAME: usize = 32;
/// The largest uid `pw` accepts (`u32::MAX` means "no uid").
pub(crate) const MAX_UID: i64 = 4_294_967_294;
/// Characters `pw` refuses anywhere in a user or group name (`$` is handled apart).
const NAME_BAD: &str = " ,\t:+&#%^()!@~*?<>=|\\/\"";

/// A user name by FreeBSD `pw` rules (`pw_checkname`), except `.` and `..`:
/// pw takes them, but the name is also a path component, and the home
/// directory /home/NAME (and its .ssh) would be /home or the root itself.
pub(crate) fn user_name(s: &str) -> Result<(), String> {
    if s == "." || s == ".." {
        return Err(format!(
            "{} names a directory, not an account: the home directory would be /home/{s}",
            quote(s)
        ));
    }
    name(s)
}

/// A group name: the same rules as a user name (`.` and `..` are refused
/// too, though no path is made of them).
pub(crate) fn group_name(s: &str) -> Result<(), String> {
    if s == "." || s == ".." {
        return Err(format!(
            "{} names a directory; it is refused as a group name as it is as a user name",
            quote(s)
        ));
    }
    name(s)
}

/// The character and length rules of `pw_checkname`.
fn name(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("the name is empty".into());
    }
    if s.len() > MAX_NAME {
        return Err(format!(
            "{} is {} bytes long; FreeBSD allows at most {MAX_NAME}",
            quote(s),
            s.len()
        ));
    }
    if s.starts_with('-') {
        return Err(format!("{} starts with `-`", quote(s)));
    }
    for (i, c) in s.char_indices() {
        if c == '$' && i + 1 < s.len() {
            return Err(format!(
                "{} has `$` before the end; it is only allowed as the last character",
                quote(s)
            ));
        }
        if NAME_BAD.contains(c) || c.is_control() || !c.is_ascii() {
            return Err(format!(
                "{} contains {}, which FreeBSD refuses in user and group names",
                quote(s),
                show(c)
            ));
        }
    }
    Ok(())
}

/// A uid: 0 to 4294967294.
pub(crate) fn uid(n: i64) -> Result<u32, String> {
    match u32::try_from(n) {
        Ok(u) if i64::from(u) <= MAX_UID => Ok(u),
        _ => Err(format!(
            "{n} is out of range; a uid is between 0 and {MAX_UID}"
        )),
    }
}

/// A GECOS comment: no `:`, newline or other control character.
pub(crate) fn comment(s: &str) -> Result<(), String> {
    match s.chars().find(|c| *c == ':' || c.is_control()) {
        Some(c) => Err(format!(
            "{} contains {}, which would break the passwd entry",
            quote(s),
            show(c)
        )),
        None => Ok(()),
    }
}

/// A login shell: an absolute path without whitespace, control characters or `:`.
pub(crate) fn shell(s: &str) -> Result<(), String> {
    if !s.starts_with('/') {
        return Err(format!("{} is not an absolute path", quote(s)));
    }
    if let Some(c) = s
        .chars()
        .find(|c| c.is_whitespace() || c.is_control() || *c == ':')
    {
        return Err(format!("{} contains {}", quote(s), show(c)));
    }
    if s.ends_with('/') {
        return Err(format!(
            "{} ends with `/`; name the shell program",
            quote(s)
        ));
    }
    Ok(())
}

/// `present` or `absent`.
pub(crate) fn user_state(s: &str) -> Result<UserState, String> {
    match s {
        "present" => Ok(UserState::Present),
        "absent" => Ok(UserState::Absent),
        _ => Err(format!("{} is neither `present` nor `absent`", quote(s))),
    }
}
