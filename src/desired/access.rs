//! How apply reaches a host: the `ssh:` block (where to connect, as whom,
//! and how that user becomes root), and the proof that the install leaves
//! that way in open.

use serde::Serialize;

use crate::compile::Compiled;
use crate::diag::Diag;
use crate::schema::UserState;
use crate::value::{Node, Value};

/// How the login user runs the apply script as root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Become {
    /// `sudo -n sh -s`: a sudoers rule must let the user run anything as
    /// root without a password.
    Sudo,
    /// `doas -n sh -s`: a doas.conf of `freebsd.files` must `permit nopass`
    /// the user (beryl writes none itself).
    Doas,
    /// The login user is root.
    None,
}

/// `become` words, the program each runs the script under, and the package
/// that provides it.
pub(crate) const BECOME: &[(&str, Become, &[&str], Option<&str>)] = &[
    ("sudo", Become::Sudo, &["sudo", "-n"], Some("sudo")),
    ("doas", Become::Doas, &["doas", "-n"], Some("doas")),
    ("none", Become::None, &[], None),
];

impl Become {
    fn row(
        self,
    ) -> &'static (
        &'static str,
        Become,
        &'static [&'static str],
        Option<&'static str>,
    ) {
        BECOME
            .iter()
            .find(|r| r.1 == self)
            .expect("every Become has a row")
    }

    /// The words that run a command as root (`sudo -n`), empty for none.
    pub(crate) fn prefix(self) -> &'static [&'static str] {
        self.row().2
    }
}

/// Where and how apply logs in (the merged `ssh:` block).
#[derive(Debug, Clone, Serialize)]
pub struct Login {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub identity_file: Option<String>,
    #[serde(rename = "become")]
    pub elevate: Become,
    /// Where `user` was written (the `ssh` mapping when only it is);
    /// `None` when there is no `ssh` block.
    #[serde(skip)]
    pub span: Option<crate::value::Span>,
}

crate::diag::codes! {
    /// The codes of how apply reaches a host.
    pub(crate) enum Code in "access" {
        /// An `ssh:` block, or one of its keys, that is not what it must be.
        SshBlock = "ssh_block";
        /// `become: none` for a login user other than root.
        Become = "become";
        /// The installed host would refuse the apply's login, or its way to become root.
        Unreachable = "unreachable";
        /// A user that reuses an account or group of the FreeBSD base system.
        BaseAccount = "base_account";
    }
}

/// The keys of the `ssh` block.
pub(crate) const SSH_KEYS: [&str; 5] = ["host", "port", "user", "identity_file", "become"];

/// The host's `ssh:` block, every field checked: host (the FQDN by default),
/// port (22), user (root), identity_file, become (`sudo` for a user other
/// than root, `none` for root).
pub(crate) fn login(config: &Node, fqdn: &str) -> Result<Login, Vec<Diag>> {
    let mut t = Login {
        host: fqdn.to_string(),
        port: 22,
        user: "root".into(),
        identity_file: None,
        elevate: Become::None,
        span: None,
    };
    let Some(block) = config.get("ssh") else {
        return Ok(t);
    };
    t.span = Some(block.span.clone());
    let Some(map) = block.as_map() else {
        return Err(vec![
            Diag::new(
                Code::SshBlock,
                format!("`ssh` must be a mapping, found {}", block.value.type_name()),
            )
            .label(
                &block.span,
                "expected {host, port, user, identity_file, become}",
            ),
        ]);
    };
    let mut errors = Vec::new();
    let mut chosen = None;
    for (key, entry) in map {
        let n = &entry.node;
        let bad = |what: &str| {
            Diag::new(Code::SshBlock, format!("ssh.{key} must be {what}"))
                .label(&n.span, format!("expected {what}"))
        };
        match (key.as_str(), &n.value) {
            ("host", Value::Str(h))
                if crate::freebsd::names::hostname(h).is_ok()
                    || h.parse::<std::net::IpAddr>().is_ok() =>
            {
                t.host = h.clone();
            }
            ("host", _) => errors.push(bad("a host name or an IP address")),
            ("port", Value::Int(p)) if (1..=65535).contains(p) => t.port = *p as u16,
            ("port", _) => errors.push(match crate::yaml::spelling::hint(n, false) {
                Some(h) => bad("a port number from 1 to 65535").help(h),
                None => bad("a port number from 1 to 65535"),
            }),
            ("user", Value::Str(u)) if crate::freebsd::names::user_name(u).is_ok() => {
                t.user = u.clone();
                t.span = Some(n.span.clone());
            }
            ("user", _) => errors.push(bad("a user name")),
            ("identity_file", Value::Str(f))
                if !f.is_empty() && !f.contains('\0') && !f.starts_with('-') =>
            {
                t.identity_file = Some(f.clone());
            }
            ("identity_file", _) => {
                errors.push(bad("the path of a private key file (beryl never reads it)"))
            }
            ("become", Value::Str(w)) if BECOME.iter().any(|r| r.0 == w) => {
                chosen = BECOME
                    .iter()
                    .find(|r| r.0 == w)
                    .map(|r| (r.1, n.span.clone()));
            }
            ("become", _) => errors.push(bad("sudo, doas or none")),
            _ => {
                // The key most likely meant, as the schema suggests them.
                let meant = SSH_KEYS
                    .iter()
                    .map(|k| (strsim::jaro_winkler(&key.to_ascii_lowercase(), k), k))
                    .filter(|(score, _)| *score >= 0.8)
                    .max_by(|a, b| a.0.total_cmp(&b.0))
                    .map(|(_, k)| format!("; did you mean `{k}`?"))
                    .unwrap_or_default();
                errors.push(
                    Diag::new(Code::SshBlock, format!("unknown key `ssh.{key}`{meant}"))
                        .label(&entry.key_span, "not an ssh setting")
                        .help(format!(
                            "the keys are {} and {}",
                            SSH_KEYS[..SSH_KEYS.len() - 1].join(", "),
                            SSH_KEYS[SSH_KEYS.len() - 1]
                        )),
                )
            }
        }
    }
    t.elevate = match chosen {
        Some((b, _)) => b,
        None if t.user == "root" => Become::None,
        None => Become::Sudo,
    };
    if let Some((Become::None, span)) = &chosen
        && t.user != "root"
    {
        errors.push(
            Diag::new(
                Code::Become,
                format!(
                    "`become: none` runs the apply as {}, who is not root",
                    t.user
                ),
            )
            .label(span, "no way to become root")
            .help("write `become: sudo` (or doas), or log in as root"),
        );
    }
    if errors.is_empty() {
        Ok(t)
    } else {
        Err(errors)
    }
}

/// Refusals for a host whose install would leave apply no way in.
pub(crate) fn check(login: &Login, c: &Compiled) -> Vec<Diag> {
    let f = &c.freebsd;
    let at = login.span.as_ref().unwrap_or(&f.span);
    let code = Code::Unreachable;
    let keys_of = |name: &str| {
        c.users
            .iter()
            .find(|k| k.name == name)
            .map_or(0, |k| k.keys.len())
    };
    if login.user == "root" {
        // beryl gives root no key (root is a base account, never a user of
        // the inventory), so root can only log in by password, which the
        // install never sets for sshd.
        let why = match f.sshd.permit_root_login.value.as_str() {
            "no" => "the install sets `PermitRootLogin no`".to_string(),
            other => format!(
                "the install gives root no authorized key (PermitRootLogin {other} does not help without one)"
            ),
        };
        return vec![
            Diag::new(
                code,
                format!("apply logs in as root, but {why}: the installed host would refuse it"),
            )
            .label(
                at,
                if login.span.is_some() {
                    "apply logs in as root"
                } else {
                    "no `ssh:` block for this host: apply logs in as root"
                },
            )
            .label(&f.sshd.permit_root_login.span, "sshd settings")
            .help(
                "log in as a user of freebsd.users who holds a key and may become root: \
                 ssh: {user: NAME, become: sudo}",
            ),
        ];
    }
    let mut errors = Vec::new();
    let user = f
        .users
        .iter()
        .find(|u| u.name.value == login.user && u.state == UserState::Present);
    let Some(user) = user else {
        return vec![
            Diag::new(
                code,
                format!(
                    "apply logs in as {}, who is not a user of freebsd.users",
                    login.user
                ),
            )
            .label(at, "this user")
            .help("add the user to freebsd.users, with a key, or log in as another one"),
        ];
    };
    if keys_of(&login.user) == 0 {
        errors.push(
            Diag::new(
                code,
                format!("apply logs in as {}, who holds no SSH key", login.user),
            )
            .label(at, "apply logs in as this user")
            .label(&user.span, "defined here, without a key")
            .help("give the user a key (ssh_keys), or add domain keys, which every user gets"),
        );
    }
    let Some(package) = login.elevate.row().3 else {
        return errors;
    };
    let has_package = f.packages.iter().any(|p| package_is(&p.value, package));
    if !has_package {
        errors.push(
            Diag::new(
                code,
                format!(
                    "apply becomes root with {package}, which freebsd.packages does not install",
                ),
            )
            .label(at, format!("{} logs in and runs {package}", login.user))
            .help(format!("add `{package}` to freebsd.packages")),
        );
    }
    let mut groups: Vec<&str> = user.groups.iter().map(|g| g.value.as_str()).collect();
    groups.push(
        user.primary_group
            .as_ref()
            .map_or(user.name.value.as_str(), |g| g.value.as_str()),
    );
    if login.elevate == Become::Doas {
        errors.extend(doas(login, f, at, &groups));
    }
    if login.elevate == Become::Sudo {
        let lines: Vec<&str> = f.sudoers.iter().map(|l| l.value.as_str()).collect();
        if let Some((line, why)) = super::sudoers::lockout(&lines, &login.user, &groups) {
            errors.push(
                Diag::new(code, format!("the sudoers lines lock apply out: {why}"))
                    .label(&f.sudoers[line].span, "this line")
                    .label(at, "apply logs in as this user")
                    .help(super::sudoers::LOCKOUT_HELP),
            );
        } else if !lines
            .iter()
            .any(|l| super::sudoers::grants_root(l, &login.user, &groups))
        {
            let mut d = Diag::new(
                code,
                format!(
                    "apply runs `sudo -n` as {}, but no sudoers line lets {} run everything as root without a password",
                    login.user, login.user
                ),
            )
            .label(at, "apply logs in as this user")
            .help(format!(
                "add a sudoers line such as `{} ALL=(ALL:ALL) NOPASSWD: ALL`",
                login.user
            ));
            if let Some(first) = f.sudoers.first() {
                d = d.label(&first.span, "the sudoers lines");
            }
            errors.push(d);
        }
    }
    errors
}

/// Refusals for `become: doas`: the port's doas refuses everything without
/// a doas.conf, which its package does not install, and `-n` needs the
/// last rule that matches the user to be a `permit nopass`
/// ([`super::doas`]). beryl writes no doas.conf itself: it must be a file
/// of `freebsd.files`.
fn doas(
    login: &Login,
    f: &crate::schema::FreeBsd,
    at: &crate::value::Span,
    groups: &[&str],
) -> Vec<Diag> {
    use super::doas::{DOAS_CONF, deciding, parse};
    let code = Code::Unreachable;
    let user = &login.user;
    let example = format!("permit nopass {user} as root");
    let Some(file) = f.files.iter().find(|m| m.path.value == DOAS_CONF) else {
        return vec![
            Diag::new(
                code,
                format!(
                    "apply runs `doas -n sh -s` as {user}, but freebsd.files has no {DOAS_CONF}: \
                     doas refuses everything without it (\"doas is not enabled, {DOAS_CONF}\")"
                ),
            )
            .label(at, "apply logs in as this user")
            .help(format!(
                "add the file, which the doas package does not install: \
                 files: {{\"{DOAS_CONF}\": {{content: \"{example}\\n\"}}}}"
            )),
        ];
    };
    let refuse = |why: String| {
        Diag::new(code, format!("{DOAS_CONF} locks apply out: {why}"))
            .label(&file.span, "the file")
            .label(at, "apply logs in as this user")
    };
    // parseconfig(DOAS_CONF, 1): root's file, not writable by group or other.
    if let Some(owner) = file.owner.as_ref().filter(|o| o.value != "root") {
        return vec![
            refuse(format!(
                "doas refuses a file not owned by root (owner: {})",
                owner.value
            ))
            .help("leave the owner root"),
        ];
    }
    if let Some(mode) = &file.mode
        && u32::from_str_radix(&mode.value, 8).is_ok_and(|m| m & 0o022 != 0)
    {
        return vec![
            refuse(format!(
                "doas refuses a file writable by group or other (mode {})",
                mode.value
            ))
            .help("write mode: \"0644\" or \"0600\""),
        ];
    }
    // A template or source not read (a compile without the inventory):
    // nothing more to check.
    let Some(content) = &file.content else {
        return Vec::new();
    };
    let rules = match parse(content) {
        Ok(rules) => rules,
        Err(why) => {
            return vec![
                refuse(format!(
                    "doas cannot parse it (\"doas: {why}\") and then permits nothing"
                ))
                .help(format!(
                    "one rule per line, ending with a newline, such as `{example}`"
                )),
            ];
        }
    };
    let why = match deciding(&rules, user, groups) {
        Some(r) if r.permit && r.nopass => return Vec::new(),
        Some(r) if r.permit => format!(
            "the last rule that matches {user} (line {}) asks for a password, which `doas -n` cannot give (\"Authorization required\")",
            r.line
        ),
        Some(r) => format!(
            "the last rule that matches {user} (line {}) is a deny",
            r.line
        ),
        None => format!("no rule permits {user} to run `sh -s` as root"),
    };
    vec![refuse(why).help(format!(
        "doas uses the last rule that matches: end with one such as `{example}` (or `permit nopass :GROUP as root` for a group of {user})"
    ))]
}

/// Whether a package spec (name or origin, `security/sudo`) is `name`.
pub(crate) fn package_is(spec: &str, name: &str) -> bool {
    spec == name
        || spec
            .rsplit_once('/')
            .is_some_and(|(_, n)| n.split('@').next() == Some(name))
}
