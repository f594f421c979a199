//! sudoers as sudo reads it, for the one question apply asks: can the login
//! user run `sudo -n sh -s` as root, without a password and without a tty?
//!
//! What sudo does is read from its manual, sudo-project/sudo
//! docs/sudoers.mdoc.in @2e18923c:
//! - "When multiple entries match for a user, they are applied in order.
//!   Where there are multiple matches, the last match is used": a rule for
//!   the user after the grant, which does not grant the same, takes it away.
//! - "In general Defaults settings are applied in order, later entries will
//!   override earlier ones": a flag is as its last mention leaves it, for
//!   the user (`Defaults`, `Defaults:USER`, `Defaults:%GROUP`, and, since
//!   beryl cannot tell whether they apply, `Defaults@HOST`, `Defaults>RUNAS`
//!   and `Defaults!CMND`).
//! - `requiretty`: "sudo will only run when the user is logged in to a real
//!   tty" (apply runs without one); `rootpw`, `runaspw` and `targetpw` make
//!   sudo ask for another user's password, which `-n` cannot give.
//! - "Long lines can be continued with a backslash as the last character on
//!   the line": beryl writes each item of `freebsd.sudoers` as a line, so an
//!   item ending in `\` would join the next item, which a reviewer reads as
//!   two.
//!
//! A reading that cannot tell refuses: a later rule for the user whose
//! commands hold an alias (an upper-case name) counts as one that takes the
//! grant away.

/// What a refusal suggests.
pub(crate) const LOCKOUT_HELP: &str = "sudo uses the last line that matches the user and the command (sudoers(5)): keep the NOPASSWD: ALL grant last for the login user, and set no requiretty, rootpw, runaspw or targetpw for it";

/// The Defaults flags that stop `sudo -n sh -s` from a session without a tty.
const FLAGS: &[&str] = &["requiretty", "rootpw", "runaspw", "targetpw"];

/// The first line that locks the login user out, and why: a line ending in
/// a backslash, a Defaults flag left set for the user, or a rule for the
/// user after its last grant that may match `sh` without granting it.
pub(crate) fn lockout(lines: &[&str], user: &str, groups: &[&str]) -> Option<(usize, String)> {
    if let Some(at) = lines.iter().position(|l| l.trim_end().ends_with('\\')) {
        return Some((
            at,
            "it ends in a backslash, and sudo joins it with the next line".into(),
        ));
    }
    for flag in FLAGS {
        let mut set = None;
        for (at, line) in lines.iter().enumerate() {
            let Some(params) = defaults_for(line, user, groups) else {
                continue;
            };
            for p in params.split(',').map(str::trim) {
                if p == *flag {
                    set = Some(at);
                } else if p.strip_prefix('!').map(str::trim) == Some(flag) {
                    set = None;
                }
            }
        }
        if let Some(at) = set {
            return Some((
                at,
                format!("it sets {flag} for {user}, and apply runs `sudo -n` without a tty"),
            ));
        }
    }
    let last = lines.iter().rposition(|l| grants_root(l, user, groups))?;
    let later = lines[last + 1..]
        .iter()
        .position(|l| overrides(l, user, groups))?;
    Some((
        last + 1 + later,
        format!(
            "it matches {user} after the line that grants NOPASSWD: ALL, and sudo uses the last match"
        ),
    ))
}

/// The parameters of a Defaults line that may apply to the user.
fn defaults_for<'a>(line: &'a str, user: &str, groups: &[&str]) -> Option<&'a str> {
    let rest = line.trim().strip_prefix("Defaults")?;
    match rest.chars().next()? {
        c if c.is_whitespace() => Some(rest),
        ':' => {
            let (list, params) = rest[1..].split_once(char::is_whitespace)?;
            covers(list, user, groups).then_some(params)
        }
        '@' | '>' | '!' => rest.split_once(char::is_whitespace).map(|(_, p)| p),
        _ => None,
    }
}

/// Whether a comma-separated user list names the user: itself, or `%GROUP`
/// of one of its groups.
fn names(list: &str, user: &str, groups: &[&str]) -> bool {
    list.split(',')
        .map(str::trim)
        .any(|w| w == user || w.strip_prefix('%').is_some_and(|g| groups.contains(&g)))
}

/// Whether a user list reaches the user: it names it, or everyone (`ALL`).
/// A grant is read by [`names`] alone; what may take it away, by this.
fn covers(list: &str, user: &str, groups: &[&str]) -> bool {
    names(list, user, groups) || list.split(',').any(|w| w.trim() == "ALL")
}

/// Whether a rule matches the user and may match `sh` without granting
/// NOPASSWD: ALL: its commands hold `ALL`, `!ALL`, a shell, or an alias.
fn overrides(line: &str, user: &str, groups: &[&str]) -> bool {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') || line.starts_with("Defaults") {
        return false;
    }
    let Some((who, rest)) = line.split_once(char::is_whitespace) else {
        return false;
    };
    if who.ends_with("_Alias") || !covers(who, user, groups) || grants_root(line, user, groups) {
        return false;
    }
    let Some((_, spec)) = rest.split_once('=') else {
        return false;
    };
    let commands = spec.rsplit(':').next().unwrap_or(spec);
    let commands = commands.rsplit(')').next().unwrap_or(commands);
    commands.split(',').map(str::trim).any(|c| {
        let c = c.trim_start_matches('!').trim();
        c == "ALL"
            || c.rsplit('/').next().is_some_and(|n| n == "sh")
            || (!c.is_empty()
                && c.bytes()
                    .all(|b| b.is_ascii_uppercase() || b == b'_' || b.is_ascii_digit()))
    })
}

/// Whether a sudoers rule lets `user` (a member of `groups`) run any command
/// as root without a password: `WHO HOSTS=(RUNAS) NOPASSWD: ALL`, where WHO
/// names the user or `%group`, HOSTS is ALL, RUNAS is absent (root), ALL or
/// names root. A conservative reading of sudoers(5): a rule it does not
/// understand grants nothing.
pub(crate) fn grants_root(line: &str, user: &str, groups: &[&str]) -> bool {
    let line = line.trim();
    if line.starts_with("Defaults") || line.starts_with('#') {
        return false;
    }
    let Some((who, rest)) = line.split_once(char::is_whitespace) else {
        return false;
    };
    if !names(who, user, groups) {
        return false;
    }
    let Some((hosts, spec)) = rest.trim_start().split_once('=') else {
        return false;
    };
    if hosts.trim() != "ALL" {
        return false;
    }
    let mut spec = spec.trim_start();
    if let Some(after) = spec.strip_prefix('(') {
        let Some((runas, tail)) = after.split_once(')') else {
            return false;
        };
        let users = runas.split(':').next().unwrap_or("");
        if !users
            .split(',')
            .map(str::trim)
            .any(|u| u == "ALL" || u == "root")
        {
            return false;
        }
        spec = tail.trim_start();
    }
    let mut nopasswd = false;
    while let Some((tag, tail)) = spec.split_once(':') {
        let tag = tag.trim();
        if tag.is_empty() || !tag.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') {
            break;
        }
        match tag {
            "NOPASSWD" => nopasswd = true,
            "PASSWD" => nopasswd = false,
            _ => {}
        }
        spec = tail.trim_start();
    }
    nopasswd && spec.trim() == "ALL"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sudoers_rules_that_let_apply_in() {
        let g = ["wheel", "staff"];
        assert!(grants_root(
            "%wheel ALL=(ALL:ALL) NOPASSWD: ALL",
            "alice",
            &g
        ));
        assert!(grants_root("alice ALL=(ALL) NOPASSWD: ALL", "alice", &g));
        assert!(grants_root("alice ALL=NOPASSWD: ALL", "alice", &g));
        assert!(grants_root(
            "bob,alice ALL=(root) NOPASSWD:ALL",
            "alice",
            &g
        ));
        assert!(grants_root(
            "alice ALL=(ALL) SETENV: NOPASSWD: ALL",
            "alice",
            &g
        ));
        // A password is asked for, another user, another host, another
        // runas, a limited command, a Defaults line.
        assert!(!grants_root("%wheel ALL=(ALL:ALL) ALL", "alice", &g));
        assert!(!grants_root("bob ALL=(ALL) NOPASSWD: ALL", "alice", &g));
        assert!(!grants_root("%dba ALL=(ALL) NOPASSWD: ALL", "alice", &g));
        assert!(!grants_root("alice web01=(ALL) NOPASSWD: ALL", "alice", &g));
        assert!(!grants_root(
            "%dba ALL=(postgres) NOPASSWD: ALL",
            "alice",
            &["dba"]
        ));
        assert!(!grants_root(
            "alice ALL=(ALL) NOPASSWD: /bin/ls",
            "alice",
            &g
        ));
        assert!(!grants_root(
            "alice ALL=(ALL) NOPASSWD: PASSWD: ALL",
            "alice",
            &g
        ));
        assert!(!grants_root(
            "Defaults env_keep += \"SSH_AUTH_SOCK\"",
            "alice",
            &g
        ));
    }

    fn locked(lines: &[&str]) -> Option<usize> {
        lockout(lines, "beryl", &["wheel"]).map(|(at, _)| at)
    }

    /// The lock-outs of issue 32, each after a grant that alone lets apply
    /// in, and their controls.
    #[test]
    fn lines_that_take_the_grant_away_are_found() {
        let grant = "beryl ALL=(ALL) NOPASSWD: ALL";
        assert_eq!(locked(&[grant]), None);
        assert_eq!(locked(&[grant, "beryl ALL=(ALL) PASSWD: ALL"]), Some(1));
        assert_eq!(locked(&[grant, "beryl ALL=(ALL) !ALL"]), Some(1));
        assert_eq!(locked(&[grant, "%wheel ALL=(ALL:ALL) ALL"]), Some(1));
        assert_eq!(locked(&[grant, "ALL ALL=(ALL) ALL"]), Some(1));
        assert_eq!(locked(&[grant, "beryl ALL=(ALL) /bin/sh"]), Some(1));
        assert_eq!(locked(&[grant, "beryl ALL=(ALL) SHELLS"]), Some(1));
        assert_eq!(locked(&["Defaults:beryl requiretty", grant]), Some(0));
        assert_eq!(locked(&[grant, "Defaults requiretty"]), Some(1));
        assert_eq!(locked(&[grant, "Defaults:%wheel targetpw"]), Some(1));
        assert_eq!(locked(&[grant, "Defaults rootpw, env_reset"]), Some(1));
        assert_eq!(locked(&["beryl ALL=(ALL) NOPASSWD: \\", "ALL"]), Some(0));
        // Controls: a later grant, a flag turned off again, another user's
        // rule, a rule for one other command, a flag for another user.
        assert_eq!(locked(&["beryl ALL=(ALL) ALL", grant]), None);
        assert_eq!(
            locked(&["Defaults requiretty", "Defaults:beryl !requiretty", grant]),
            None
        );
        assert_eq!(locked(&[grant, "alice ALL=(ALL) ALL"]), None);
        assert_eq!(locked(&[grant, "beryl ALL=(ALL) /usr/sbin/service"]), None);
        assert_eq!(locked(&[grant, "Defaults:alice requiretty"]), None);
        assert_eq!(
            locked(&[grant, "Defaults env_keep += \"SSH_AUTH_SOCK\""]),
            None
        );
        assert_eq!(locked(&[grant, "Cmnd_Alias SHELLS = /bin/sh"]), None);
    }
}
