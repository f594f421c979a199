//! Pure validators of FreeBSD names, sizes and identifiers, reusable by later stages.
//!
//! Each takes the text as written and returns `Err(reason)`: a phrase that
//! completes `invalid freebsd.FIELD: `, quoting the offending part.
//! `system` has the host-wide settings, `storage` the ZFS boot pool,
//! `account` users and groups, `network` interfaces and addresses, `rc`
//! rc.conf variables, `files` managed files and services, and `tunables`
//! sysctl, loader.conf and cron entries.

mod account;
mod files;
mod jail;
mod kinds;
mod network;
mod rc;
mod storage;
mod system;
mod tunables;

pub(crate) use account::{MAX_UID, comment, group_name, shell, uid, user_name, user_state};
pub(crate) use files::{
    MANAGED_FILES, NOTIFY_ACTIONS, file_mode, file_path, inventory_path, managed_file,
    notify_action, service_name, validate_command,
};
pub(crate) use jail::{bridge_name, derived_mac, jail_dir, jail_name, mac, state_dataset};
pub(crate) use kinds::{Install, Ipv4, Ipv6, Raid, UserState};
pub(crate) use network::{interface_name, ip_address, ipv4, ipv4_address, ipv6, ipv6_address};
pub(crate) use network::{ipv4_cidr, ipv6_cidr};
pub(crate) use rc::{rc_managed, rc_name, rc_value};
pub(crate) use storage::{disk, pool, raid, swap};
#[cfg(test)]
pub(crate) use system::PERMIT_ROOT_LOGIN;
pub(crate) use system::{
    dist_site, hostname, install, package, password_hash, permit_root_login, sudoers_line,
    timezone, version, yes_no,
};
pub(crate) use tunables::{
    cron_command, cron_name, cron_schedule, loader_dotted, loader_managed, loader_name,
    sysctl_managed, sysctl_name, sysctl_value,
};

/// Quotes a value for a message: backticks, escapes, at most 60 characters.
pub(crate) fn quote(s: &str) -> String {
    let mut out: String = s.chars().take(60).flat_map(char::escape_debug).collect();
    if s.chars().nth(60).is_some() {
        out.push('…');
    }
    format!("`{out}`")
}

/// Names one character for a message.
pub(crate) fn show(c: char) -> String {
    match c {
        ' ' => "a space".into(),
        '\t' => "a tab".into(),
        '\n' => "a newline".into(),
        c if c.is_control() => format!("the control character U+{:04X}", c as u32),
        c if !c.is_ascii() => format!("the non-ASCII character `{c}`"),
        c => format!("`{c}`"),
    }
}

pub(crate) fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests;
