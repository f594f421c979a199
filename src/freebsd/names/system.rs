//! Host-wide settings: host name, time zone, release, install method,
//! packages, sudoers lines and sshd settings.

use std::str::FromStr;

use super::kinds::Install;
use super::{all_digits, quote, show};

/// The longest host name (RFC 1123).
pub(crate) const MAX_HOSTNAME: usize = 253;
/// The longest label of a host name.
pub(crate) const MAX_LABEL: usize = 63;

/// An RFC 1123 host name: dot-separated labels of letters, digits and `-`.
pub(crate) fn hostname(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("the host name is empty".into());
    }
    if s.len() > MAX_HOSTNAME {
        return Err(format!(
            "the host name is {} characters long; at most {MAX_HOSTNAME} are allowed",
            s.len()
        ));
    }
    if s.ends_with('.') {
        return Err(format!(
            "{} ends with a dot; write it without the trailing `.`",
            quote(s)
        ));
    }
    for label in s.split('.') {
        if label.is_empty() {
            return Err(format!(
                "{} has an empty label (a leading dot or two dots in a row)",
                quote(s)
            ));
        }
        if let Some(c) = label
            .chars()
            .find(|c| !c.is_ascii_alphanumeric() && *c != '-')
        {
            return Err(format!(
                "{} contains {}; labels may only use letters, digits and `-`",
                quote(s),
                show(c)
            ));
        }
        if label.len() > MAX_LABEL {
            return Err(format!(
                "label {} is {} characters long; at most {MAX_LABEL} are allowed",
                quote(label),
                label.len()
            ));
        }
        if label.starts_with('-') || label.ends_with('-') {
            return Err(format!("label {} starts or ends with `-`", quote(label)));
        }
    }
    Ok(())
}

/// A zone or link name of the tz database (as shipped in chrono-tz).
pub(crate) fn timezone(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("the time zone is empty".into());
    }
    if s.starts_with('/') {
        return Err(format!(
            "{} starts with `/`; give the zone name (such as Europe/Berlin), not a path",
            quote(s)
        ));
    }
    if s.contains("..") {
        return Err(format!("{} contains `..`", quote(s)));
    }
    if let Some(c) = s
        .chars()
        .find(|c| !c.is_ascii_alphanumeric() && !"/_+-".contains(*c))
    {
        return Err(format!(
            "{} contains {}; zone names use only letters, digits and `/ _ + -`",
            quote(s),
            show(c)
        ));
    }
    if chrono_tz::Tz::from_str(s).is_ok() {
        return Ok(());
    }
    let hint = zone_like(s)
        .map(|z| format!("; did you mean `{z}`?"))
        .unwrap_or_default();
    Err(format!(
        "{} is not a zone of the tz database{hint}",
        quote(s)
    ))
}

/// The known zone closest to `s`: same name in another case, same city, or a near spelling.
fn zone_like(s: &str) -> Option<&'static str> {
    let names = || chrono_tz::TZ_VARIANTS.iter().map(|z| z.name());
    let city = |n: &str| n.rsplit('/').next().unwrap_or(n).to_string();
    names()
        .find(|n| n.eq_ignore_ascii_case(s))
        .or_else(|| names().find(|n| n.contains('/') && city(n).eq_ignore_ascii_case(s)))
        .or_else(|| {
            names()
                .map(|n| {
                    (
                        strsim::jaro_winkler(&n.to_ascii_lowercase(), &s.to_ascii_lowercase()),
                        n,
                    )
                })
                .filter(|(score, _)| *score >= 0.9)
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(_, n)| n)
        })
}

/// A package name (`sudo`) or origin (`security/sudo`, `devel/py-foo@py311`).
pub(crate) fn package(s: &str) -> Result<(), String> {
    let port_char = |c: char| c.is_ascii_alphanumeric() || "._+-".contains(c);
    if s.is_empty() {
        return Err("the package name is empty".into());
    }
    let Some((category, port)) = s.split_once('/') else {
        if s.contains('@') {
            return Err(format!(
                "{} has a flavor; flavors need an origin such as devel/py-foo@py311",
                quote(s)
            ));
        }
        if !s.starts_with(|c: char| c.is_ascii_alphanumeric()) {
            return Err(format!("{} must start with a letter or digit", quote(s)));
        }
        return match s.chars().find(|c| !port_char(*c)) {
            Some(c) => Err(format!(
                "{} contains {}; package names use letters, digits and `. _ + -`",
                quote(s),
                show(c)
            )),
            None => Ok(()),
        };
    };
    let (port, flavor) = match port.split_once('@') {
        Some((p, f)) => (p, Some(f)),
        None => (port, None),
    };
    let origin = quote(s);
    if category.is_empty()
        || !category
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(format!(
            "the category of origin {origin} must be lowercase letters, digits and `-`"
        ));
    }
    if port.is_empty() || !port.chars().all(port_char) {
        return Err(format!(
            "the port of origin {origin} must be letters, digits and `. _ + -`"
        ));
    }
    if let Some(f) = flavor
        && (f.is_empty() || !f.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
    {
        return Err(format!(
            "the flavor of origin {origin} must be letters, digits and `_`"
        ));
    }
    Ok(())
}

/// One sudoers line: not blank, no newline, carriage return or NUL.
pub(crate) fn sudoers_line(s: &str) -> Result<(), String> {
    if s.trim().is_empty() {
        return Err("the line is empty".into());
    }
    match s.chars().find(|c| matches!(c, '\n' | '\r' | '\0')) {
        Some(c) => Err(format!(
            "{} contains {}; give each line as its own item",
            quote(s),
            show(c)
        )),
        None => Ok(()),
    }
}

/// How the base system is installed: `dists` or `pkgbase`; `none` for a
/// host beryl never installs.
pub(crate) fn install(s: &str) -> Result<Install, String> {
    match s {
        "dists" => return Ok(Install::Dists),
        "pkgbase" => return Ok(Install::Pkgbase),
        "none" => return Ok(Install::None),
        _ => {}
    }
    let hint = match s.to_ascii_lowercase().as_str() {
        "dists" | "dist" | "distributions" | "distribution" | "tarballs" | "txz" | "sets" => {
            "; did you mean `dists`?"
        }
        "pkgbase" | "pkg" | "pkgs" | "packages" | "package" | "pkg-base" | "pkg_base" => {
            "; did you mean `pkgbase`?"
        }
        "none" | "no" | "never" | "adopted" | "adopt" | "existing" | "manual" | "off" => {
            "; did you mean `none` (a running host beryl never installs)?"
        }
        _ => "",
    };
    Err(format!(
        "{} is not `dists`, `pkgbase` or `none`{hint}",
        quote(s)
    ))
}

/// Where the installer fetches missing distribution sets
/// (`BSDINSTALL_DISTSITE`): an `http`, `https`, `ftp` or `file` URL of the
/// release's directory, such as
/// `https://download.freebsd.org/releases/amd64/15.0-RELEASE`.
pub(crate) fn dist_site(s: &str) -> Result<(), String> {
    // Credentials in the URL would be in every rendered config, plan,
    // installerconfig and apply script, and in fetch's error messages;
    // fetch(1) reads them from root's ~/.netrc instead (lib/libfetch/common.c
    // @0012b66b, fetch_netrc_auth). Any `@` is refused, before anything
    // else quotes the value: a release directory's URL has none.
    if s.contains('@') {
        return Err(
            "the URL holds `@`: credentials (`user:password@`) would be shown by every rendered config, plan and script; put them in root's ~/.netrc on the host, which fetch(1) reads".into(),
        );
    }
    let Some((scheme, rest)) = s.split_once("://") else {
        return Err(format!("{} is not a URL", quote(s)));
    };
    if !["http", "https", "ftp", "file"].contains(&scheme) {
        return Err(format!(
            "{} is not an http, https, ftp or file URL",
            quote(s)
        ));
    }
    if rest.is_empty() || rest.starts_with('/') && scheme != "file" {
        return Err(format!("{} has no host", quote(s)));
    }
    // The characters of a release directory's URL: RFC 3986's unreserved
    // ones, the separators of a path and a port, and percent-escapes. No
    // query, fragment, blank or quote: bsdinstall appends `/SET` to it.
    if let Some(c) = s
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "._~:/%+-".contains(*c)))
    {
        return Err(format!(
            "{} holds {c:?}: a release directory's URL has letters, digits and `._~:/%+-` only",
            quote(s)
        ));
    }
    Ok(())
}

/// The crypt(3) schemes FreeBSD's libcrypt reads (`$1$` MD5, `$2b$`
/// bcrypt, `$5$` SHA-256, `$6$` SHA-512), by their prefix.
pub(crate) const CRYPT_PREFIXES: &[&str] = &["$1$", "$2a$", "$2b$", "$2y$", "$5$", "$6$"];

/// A precrypted password hash for root (`pw usermod -H 0`): a crypt(3)
/// string of one of [`CRYPT_PREFIXES`], in the characters crypt uses.
pub(crate) fn password_hash(s: &str) -> Result<(), String> {
    if !CRYPT_PREFIXES.iter().any(|p| s.starts_with(p)) {
        return Err(format!(
            "{} is not a crypt(3) hash ($6$…, $5$…, $2b$… or $1$…)",
            if s.len() > 8 {
                "the value".to_string()
            } else {
                quote(s)
            }
        ));
    }
    if !s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"./$=,".contains(&b))
    {
        return Err("the hash holds a character crypt(3) never writes".into());
    }
    Ok(())
}

/// A FreeBSD release as `MAJOR.MINOR` (`15.0`, `14.3`): a major of one or two
/// digits without a leading zero, and a one-digit minor. Returns both numbers.
pub(crate) fn version(s: &str) -> Result<(u8, u8), String> {
    if s.is_empty() {
        return Err("the version is empty".into());
    }
    if let Some((release, suffix)) = s.split_once('-')
        && version(release).is_ok()
    {
        return Err(format!(
            "{} has the suffix `-{suffix}`; give only MAJOR.MINOR, such as `{release}`",
            quote(s)
        ));
    }
    let Some((major, minor)) = s.split_once('.') else {
        return Err(if all_digits(s) {
            format!("{} has no minor version; write `{s}.0`", quote(s))
        } else {
            format!("{} is not MAJOR.MINOR, such as 15.0", quote(s))
        });
    };
    if minor.contains('.') {
        return Err(format!(
            "{} has more parts than MAJOR.MINOR, such as 15.0",
            quote(s)
        ));
    }
    if !all_digits(major) || !all_digits(minor) {
        return Err(format!("{} is not MAJOR.MINOR, such as 15.0", quote(s)));
    }
    if major.len() > 2 || major.starts_with('0') {
        return Err(format!(
            "{} has the major version `{major}`; it is one or two digits without a leading zero",
            quote(s)
        ));
    }
    if minor.len() > 1 {
        return Err(format!(
            "{} has the minor version `{minor}`; FreeBSD minors are one digit, such as 14.3",
            quote(s)
        ));
    }
    // Both parts are short runs of digits, so the parses cannot fail.
    Ok((major.parse().unwrap_or(0), minor.parse().unwrap_or(0)))
}

/// The values of sshd's `PermitRootLogin` that beryl writes.
pub(crate) const PERMIT_ROOT_LOGIN: [&str; 4] =
    ["no", "yes", "prohibit-password", "forced-commands-only"];

/// OpenSSH's deprecated spellings of a `PermitRootLogin` value, and the
/// value each means (`servconf.c`: `without-password` is read as
/// `prohibit-password`). beryl writes the current word.
pub(crate) const PERMIT_ROOT_LOGIN_ALIASES: &[(&str, &str)] =
    &[("without-password", "prohibit-password")];

/// A `PermitRootLogin` value: `no`, `yes`, `prohibit-password` or
/// `forced-commands-only`, or an alias OpenSSH accepts for one; the value
/// sshd means by it.
pub(crate) fn permit_root_login(s: &str) -> Result<&'static str, String> {
    if let Some(v) = PERMIT_ROOT_LOGIN.iter().find(|v| **v == s) {
        return Ok(v);
    }
    if let Some((_, v)) = PERMIT_ROOT_LOGIN_ALIASES.iter().find(|(a, _)| *a == s) {
        return Ok(v);
    }
    let lower = s.to_ascii_lowercase();
    let hint = match lower.as_str() {
        "true" => Some("yes"),
        "false" => Some("no"),
        other => PERMIT_ROOT_LOGIN
            .iter()
            .copied()
            .find(|v| *v == other)
            .or_else(|| {
                PERMIT_ROOT_LOGIN_ALIASES
                    .iter()
                    .find(|(a, _)| *a == other)
                    .map(|(_, v)| *v)
            }),
    };
    let hint = hint
        .map(|h| format!("; did you mean `{h}`?"))
        .unwrap_or_default();
    Err(format!(
        "{} is not a PermitRootLogin value (no, yes, prohibit-password or forced-commands-only){hint}",
        quote(s)
    ))
}

/// `yes` or `no`, as sshd spells a boolean.
pub(crate) fn yes_no(s: &str) -> Result<bool, String> {
    match s {
        "yes" => return Ok(true),
        "no" => return Ok(false),
        _ => {}
    }
    let hint = match s.to_ascii_lowercase().as_str() {
        "yes" | "true" | "on" | "y" => "; did you mean `yes`?",
        "no" | "false" | "off" | "n" => "; did you mean `no`?",
        _ => "",
    };
    Err(format!("{} is neither `yes` nor `no`{hint}", quote(s)))
}
