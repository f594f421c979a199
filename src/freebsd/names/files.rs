//! Managed files (`freebsd.files`) and services (`freebsd.services`): paths
//! on the host, paths in the inventory, modes, commands and service names.

use super::{quote, show};

/// The files beryl writes itself, with the field that manages each: a
/// `freebsd.files` entry for one of them would give the file two sources.
pub(crate) const MANAGED_FILES: &[(&str, &str)] = &[
    (
        "/usr/local/etc/sudoers.d/beryl",
        "beryl writes its sudoers drop-in from `freebsd.sudoers`; list the rules there",
    ),
    (
        "/etc/resolv.conf",
        "beryl writes the resolver file from `freebsd.network.nameservers`",
    ),
    (
        "/etc/resolvconf.conf",
        "beryl writes resolvconf.conf from `freebsd.network.nameservers`",
    ),
    (
        "/etc/ssh/sshd_config",
        "beryl edits sshd_config from `freebsd.sshd`",
    ),
    (
        "/etc/rc.conf",
        "set rc.conf variables in `freebsd.rc_conf` (or enable a service in `freebsd.services`)",
    ),
    (
        "/etc/sysctl.conf",
        "set sysctl variables in `freebsd.sysctl`",
    ),
    (
        "/boot/loader.conf",
        "set loader variables in `freebsd.loader`",
    ),
];

/// Files beryl writes whole from other fields and records, so that apply
/// removes them once the field is empty (a record line naming one is acted
/// on, unlike one naming a file of [`MANAGED_FILES`]): the loader drop-in of
/// each release (src/freebsd/loader_d.rs).
pub(crate) const RECORDED_FILES: &[(&str, &str)] = &[(
    "/boot/loader.conf.d/beryl.conf",
    "set dotted loader tunables in `freebsd.loader` (beryl writes this file from them)",
)];

/// For a file that beryl writes itself, what to write instead.
pub(crate) fn managed_file(path: &str) -> Option<&'static str> {
    MANAGED_FILES
        .iter()
        .chain(RECORDED_FILES)
        .find(|(p, _)| *p == path)
        .map(|(_, instead)| *instead)
}

/// Longest path beryl writes (FreeBSD's `PATH_MAX` is 1024, with the NUL).
pub(crate) const MAX_PATH: usize = 1023;

/// An absolute, normalized path on the host: starts with `/`, no empty,
/// `.` or `..` component, no trailing `/`, no control character.
pub(crate) fn file_path(s: &str) -> Result<(), String> {
    if !s.starts_with('/') {
        return Err(format!("{} is not an absolute path", quote(s)));
    }
    if s == "/" || s.ends_with('/') {
        return Err(format!("{} names a directory, not a file", quote(s)));
    }
    if s.len() > MAX_PATH {
        return Err(format!("the path is longer than {MAX_PATH} bytes"));
    }
    if let Some(c) = s.chars().find(|c| c.is_control()) {
        return Err(format!("{} contains {}", quote(s), show(c)));
    }
    if let Some(part) = s[1..]
        .split('/')
        .find(|p| p.is_empty() || *p == "." || *p == "..")
    {
        return Err(format!(
            "{} is not normalized: it has a {} component",
            quote(s),
            if part.is_empty() { "empty" } else { part }
        ));
    }
    Ok(())
}

/// A path inside one of the inventory's directories (`templates/`,
/// `files/`): relative, no empty, `.` or `..` component, no control
/// character.
pub(crate) fn inventory_path(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("the path is empty".into());
    }
    if s.starts_with('/') {
        return Err(format!(
            "{} is absolute; give it relative to the directory",
            quote(s)
        ));
    }
    if let Some(c) = s.chars().find(|c| c.is_control() || *c == '\\') {
        return Err(format!("{} contains {}", quote(s), show(c)));
    }
    if let Some(part) = s
        .split('/')
        .find(|p| p.is_empty() || *p == "." || *p == "..")
    {
        return Err(format!(
            "{} has a {} component; it must stay inside the directory",
            quote(s),
            if part.is_empty() { "empty" } else { part }
        ));
    }
    Ok(())
}

/// A file mode as chmod(1) takes it in octal: three or four octal digits
/// (`644`, `0640`, `1777`). Returned as four digits, the set-id and sticky
/// digit first (`0644`, `0640`, `1777`, `0044`): what `stat -f
/// '%Mp%03Lp'` prints (usr.bin/stat/stat.c @3524148a, `format1`: `%Lp` is
/// `st_mode & 0777`, `%Mp` the digit above it), so that a mode read back
/// from the host compares equal.
pub(crate) fn file_mode(s: &str) -> Result<String, String> {
    if !(3..=4).contains(&s.len()) || !s.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        return Err(format!(
            "{} is not an octal mode of three or four digits",
            quote(s)
        ));
    }
    Ok(format!("{s:0>4}"))
}

/// A validate command: words separated by blanks, exactly one of them
/// `%s` (where the staged file goes), the first an absolute path or a
/// command name; no shell syntax, since the words are never given to a
/// shell as one string.
pub(crate) fn validate_command(s: &str) -> Result<Vec<String>, String> {
    let words: Vec<String> = s.split_whitespace().map(str::to_string).collect();
    if words.is_empty() {
        return Err("the command is empty".into());
    }
    if let Some(c) = s
        .chars()
        .find(|c| c.is_control() && !matches!(c, ' ' | '\t'))
    {
        return Err(format!("{} contains {}", quote(s), show(c)));
    }
    let holes = words.iter().filter(|w| w.contains("%s")).count();
    if holes != 1 || !words.iter().any(|w| w == "%s") {
        return Err(format!(
            "{} must have `%s` exactly once, as a word of its own, where the staged file goes",
            quote(s)
        ));
    }
    if words[0] == "%s" {
        return Err(format!("{} starts with the file, not a command", quote(s)));
    }
    Ok(words)
}

/// An rc.d script name as service(8) finds it, which is also the prefix
/// of a package script's `NAME_enable` (the ports convention): letters,
/// digits and `_`, not starting with a digit (`nginx`, `php_fpm`,
/// `local_unbound`).
pub(crate) fn service_name(s: &str) -> Result<(), String> {
    if s.len() > 64 {
        return Err(format!("{} is longer than 64 characters", quote(s)));
    }
    super::rc_name(s).map_err(|e| e.replace("variable name", "service name"))
}

/// What `notify` can ask of a service: the rc.d commands that act on a
/// running daemon (`libexec/rc/rc.subr` e4452d45, run_rc_command: `reload`
/// sends SIGHUP, `restart` is stop then start).
pub(crate) const NOTIFY_ACTIONS: &[&str] = &["reload", "restart"];

/// A `notify` action.
pub(crate) fn notify_action(s: &str) -> Result<(), String> {
    if NOTIFY_ACTIONS.contains(&s) {
        Ok(())
    } else {
        Err(format!(
            "{} is not one of {}",
            quote(s),
            NOTIFY_ACTIONS.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_paths_are_absolute_and_normalized() {
        assert!(file_path("/etc/pf.conf").is_ok());
        assert!(file_path("/usr/local/etc/nginx/nginx.conf").is_ok());
        for bad in [
            "etc/pf.conf",
            "/",
            "/etc/",
            "/etc//pf.conf",
            "/etc/../pf.conf",
            "/./a",
            "/a\nb",
        ] {
            assert!(file_path(bad).is_err(), "{bad}");
        }
        assert!(managed_file("/etc/rc.conf").is_some());
        assert!(managed_file("/etc/pf.conf").is_none());
    }

    #[test]
    fn inventory_paths_stay_inside() {
        assert!(inventory_path("pf.conf.j2").is_ok());
        assert!(inventory_path("nginx/nginx.conf").is_ok());
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "a//b",
            "./a",
            "a\\b",
        ] {
            assert!(inventory_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn modes_are_octal() {
        assert_eq!(file_mode("644").unwrap(), "0644");
        assert_eq!(file_mode("0640").unwrap(), "0640");
        assert_eq!(file_mode("1777").unwrap(), "1777");
        assert_eq!(file_mode("4755").unwrap(), "4755");
        assert_eq!(file_mode("0044").unwrap(), "0044");
        assert_eq!(file_mode("044").unwrap(), "0044");
        for bad in ["64", "888", "u+rw", "00644", ""] {
            assert!(file_mode(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn validate_commands_have_one_hole() {
        assert_eq!(
            validate_command("pfctl -nf %s").unwrap(),
            ["pfctl", "-nf", "%s"]
        );
        assert_eq!(
            validate_command("nginx -t -c %s").unwrap(),
            ["nginx", "-t", "-c", "%s"]
        );
        for bad in ["", "pfctl -n", "%s", "cat %s %s", "pfctl -nf%s"] {
            assert!(validate_command(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn service_names() {
        assert!(service_name("nginx").is_ok());
        assert!(service_name("php_fpm").is_ok());
        for bad in ["", "-x", "a b", "a/b", "x;y"] {
            assert!(service_name(bad).is_err(), "{bad}");
        }
        assert!(notify_action("reload").is_ok());
        assert!(notify_action("stop").is_err());
    }
}
