//! rc.conf variables: names, values safe inside its double quotes, and the
//! names beryl sets itself.

use super::{quote, show};

/// The rc.conf variables that other `freebsd` fields set, with the field to
/// use instead; names starting with [`MANAGED_PREFIX`] are managed too.
///
/// beryl writes these itself (from `hostname`, the sshd and ZFS setup, and
/// `network`). Letting `rc_conf` set them as well would give one setting two
/// sources of truth whose winner depends on the order of sysrc calls, so
/// `rc_conf` refuses them and points at the field.
pub(crate) const MANAGED: &[(&str, &str)] = &[
    ("hostname", "set `freebsd.hostname` instead"),
    (
        "sshd_enable",
        "beryl enables sshd itself; configure it under `freebsd.sshd`",
    ),
    (
        "zfs_enable",
        "the ZFS install (`freebsd.disks`, `freebsd.pool`) enables ZFS itself",
    ),
    (
        "defaultrouter",
        "set `freebsd.network.defaultrouter` instead",
    ),
    (
        "ipv6_defaultrouter",
        "set `freebsd.network.ipv6_defaultrouter` instead",
    ),
    (
        "rtsold_enable",
        "beryl enables rtsold itself for an interface with `ipv6: slaac` (freebsd.network)",
    ),
];

/// `ifconfig_IF`, `ifconfig_IF_ipv6`, `ifconfig_IF_alias0`, `ifconfig_DEFAULT`…
pub(crate) const MANAGED_PREFIX: &str = "ifconfig_";

/// A shell variable name, as rc.conf needs: `^[A-Za-z_][A-Za-z0-9_]*$`.
pub(crate) fn rc_name(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("the variable name is empty".into());
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(format!(
            "{} starts with a digit; a variable name starts with a letter or `_`",
            quote(s)
        ));
    }
    match s.chars().find(|c| !c.is_ascii_alphanumeric() && *c != '_') {
        Some(c) => Err(format!(
            "{} contains {}; variable names use letters, digits and `_`",
            quote(s),
            show(c)
        )),
        None => Ok(()),
    }
}

/// For a variable that beryl sets itself, what to write instead.
pub(crate) fn rc_managed(name: &str) -> Option<&'static str> {
    if name.starts_with(MANAGED_PREFIX) {
        return Some("configure the interface under `freebsd.network.interfaces` instead");
    }
    MANAGED
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, instead)| *instead)
}

/// A value safe inside rc.conf's double quotes: sh sources the file, so `"`,
/// `\`, backquote and `$` would be interpreted; a newline or another control
/// character would break the line.
pub(crate) fn rc_value(s: &str) -> Result<(), String> {
    if let Some(c) = s.chars().find(|c| matches!(c, '"' | '\\' | '`' | '$')) {
        return Err(format!(
            "{} contains {}, which sh would interpret inside rc.conf's double quotes",
            quote(s),
            show(c)
        ));
    }
    match s.chars().find(|c| c.is_control()) {
        Some(c) => Err(format!(
            "{} contains {}; an rc.conf value is one line of text",
            quote(s),
            show(c)
        )),
        None => Ok(()),
    }
}
