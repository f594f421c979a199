//! What the release, the base system and the packages require of a host,
//! each refusal located at the YAML it concerns.

use crate::compile::Compiled;
use crate::diag::Diag;
use crate::freebsd::{base, rcd, release};
use crate::schema::{Install, Located, UserState};

use super::access::{self, package_is};

crate::diag::codes! {
    /// The codes of what the release, the base system and the packages
    /// require: named after the release and the install plan, and reported
    /// here, where the desired state is built for both install and apply.
    pub(crate) enum Code {
        /// A FreeBSD release beryl does not know.
        ReleaseUnknown = "beryl::release::unknown";
        /// A disk name the release does not have (NVMe disks renamed).
        ReleaseDiskName = "beryl::release::disk_name";
        /// A pkgbase install the release's installer cannot do unattended, or without `freebsd.version`.
        ReleasePkgbase = "beryl::release::pkgbase";
        /// A user's shell neither in the base system nor provided by a listed package.
        PlanShell = "beryl::plan::shell";
        /// Sudoers lines without the `sudo` package.
        PlanSudo = "beryl::plan::sudo";
        /// Cron entries for a release whose cron reads no drop-in directory, or without `freebsd.version`.
        ReleaseCron = "beryl::release::cron";
        /// Dotted loader tunables for a release whose loader reads no drop-in directory, or without `freebsd.version`.
        ReleaseLoader = "beryl::release::loader";
        /// A base rc.d script the release does not ship (blocklistd before 15.0, blacklistd from 15.0).
        ReleaseService = "beryl::release::service";
        /// A jail's base that apply does not lay down: pkgbase for a release without a FreeBSD-base repository, or pkgbase with a thin layout (not yet).
        PlanJailBase = "beryl::plan::jail_base";
        /// A dataset of `freebsd.zfs.datasets` that is the golden base of the host's thin jails.
        PlanJailGolden = "beryl::plan::jail_golden";
    }
}

/// A jail's base as apply lays it down (src/resource/jail_base.rs,
/// jail_state.rs): `base.txz` extracted, or, with pkgbase, the release's
/// FreeBSD-base repository installed by `pkg --rootdir` (the release
/// table's `jail_pkgbase` row), into a thick jail's own dataset; or
/// `base.txz` into the golden base thin jails share. A pkgbase golden base
/// is not made yet: refused here rather than started on an empty root.
pub(crate) fn jail_base(c: &Compiled) -> Vec<Diag> {
    let Some(jail) = &c.freebsd.jail else {
        return Vec::new();
    };
    let base = &jail.base;
    let mut errors = Vec::new();
    let found = c
        .freebsd
        .version
        .as_ref()
        .map(|v| (v, release::find(&v.value)));
    if base.method.value == Install::Pkgbase
        && let Some((v, Some(r))) = found
        && r.jail_pkgbase.is_none()
    {
        errors.push(
            Diag::new(
                Code::PlanJailBase,
                format!(
                    "FreeBSD {} has no FreeBSD-base repository a jail's base can be installed from",
                    v.value
                ),
            )
            .label(&base.method.span, "pkgbase asked for here")
            .label(&v.span, "this release")
            .help(
                "write `method: dists`, or a release from 15.0 on (share/keys has pkgbase keys \
                 only for FreeBSD 15: freebsd-src 0dcfecbf)",
            ),
        );
    }
    if base.method.value == Install::Pkgbase
        && base.layout.value != crate::schema::JailLayout::Thick
    {
        errors.push(
            Diag::new(
                Code::PlanJailBase,
                "apply does not lay down a thin jail's shared base with pkgbase yet",
            )
            .label(&base.method.span, "pkgbase asked for here")
            .label(&base.layout.span, "this layout")
            .help(
                "write `method: dists` for a thin layout (its golden base is base.txz), or \
                 `layout: thick` for pkgbase",
            ),
        );
    }
    errors
}

/// The golden base of a host's thin jails (src/resource/jail_state.rs) is
/// beryl's, made and kept for them: the host's `freebsd.zfs.datasets` may
/// neither destroy it (zfs(8) refuses while its snapshot has clones, and
/// the jails would lose their base) nor set it up a second way.
pub(crate) fn jail_golden(
    fqdn: &str,
    c: &Compiled,
    jails: &[crate::resource::Jailed<'_>],
) -> Vec<Diag> {
    let input = crate::resource::Input {
        fqdn,
        compiled: c,
        jails,
    };
    let mut errors = Vec::new();
    for d in &c.freebsd.zfs.datasets {
        let users: Vec<String> = jails
            .iter()
            .filter(|j| {
                crate::resource::jail_state::thin(&input, j)
                    .is_some_and(|t| t.golden == d.name.value)
            })
            .filter_map(|j| j.compiled.freebsd.jail.as_ref())
            .map(|j| j.name.value.clone())
            .collect();
        if users.is_empty() {
            continue;
        }
        errors.push(
            Diag::new(
                Code::PlanJailGolden,
                format!(
                    "{} is the golden base of the thin jails {}",
                    d.name.value,
                    users.join(", ")
                ),
            )
            .label(&d.name.span, if d.destroy { "destroyed here" } else { "set up here" })
            .help("beryl makes and keeps this dataset for those jails (docs/jails.md \"Layouts\"): remove it from freebsd.zfs.datasets; it can go only once no jail is made from it, by hand (zfs destroy -r)"),
        );
    }
    errors
}

/// The release: known, and able to do what the config asks of it.
pub(crate) fn release(c: &Compiled) -> Vec<Diag> {
    let f = &c.freebsd;
    let mut errors = Vec::new();
    let found = match &f.version {
        Some(v) => match release::find(&v.value) {
            Some(r) => Some(r),
            None => {
                errors.push(
                    Diag::new(
                        Code::ReleaseUnknown,
                        format!("beryl does not know FreeBSD {}", v.value),
                    )
                    .label(&v.span, "this release")
                    .help(format!(
                        "beryl knows {}; its installer and base system differ from release to release",
                        release::known()
                    )),
                );
                None
            }
        },
        None => None,
    };
    if let Some(r) = found {
        for s in &f.services {
            let Some(script) = rcd::base(&s.name.value) else {
                continue;
            };
            if !script.releases.has(r.version) {
                let when = match script.releases {
                    rcd::Releases::From(v) => format!("it ships from FreeBSD {v} on"),
                    rcd::Releases::Before(v) => format!("it was removed in FreeBSD {v}"),
                    rcd::Releases::All => String::new(),
                };
                errors.push(
                    Diag::new(
                        Code::ReleaseService,
                        format!(
                            "FreeBSD {} has no rc.d script {}: {when}",
                            r.version, s.name.value
                        ),
                    )
                    .label(&s.name.span, "not in this release")
                    .help(
                        "service(8) would say it does not exist; name the release's script \
                         (blacklistd before 15.0, blocklistd from 15.0), or change freebsd.version",
                    ),
                );
            }
        }
        for d in &f.disks {
            if let Some(renamed) = r.renamed(&d.value) {
                let unit = &d.value[renamed.old.len()..];
                errors.push(
                    Diag::new(
                        Code::ReleaseDiskName,
                        format!(
                            "FreeBSD {} has no disk {}: its NVMe disks are {}*",
                            r.version, d.value, renamed.new
                        ),
                    )
                    .label(&d.span, format!("write {}{unit}", renamed.new))
                    .help(renamed.why),
                );
            }
        }
    }
    if let Some(i) = &f.install
        && i.value == Install::Pkgbase
    {
        match (found, &f.version) {
            (Some(r), Some(v)) if !r.unattended_pkgbase => errors.push(
                Diag::new(
                    Code::ReleasePkgbase,
                    format!(
                        "FreeBSD {}'s installer cannot install pkgbase unattended",
                        r.version
                    ),
                )
                .label(&i.span, "pkgbase asked for here")
                .label(&v.span, "this release")
                .help(format!("write `install: dists`: {}", r.pkgbase_source)),
            ),
            (_, None) => errors.push(
                Diag::new(
                    Code::ReleasePkgbase,
                    "a pkgbase install needs `freebsd.version`",
                )
                .label(&i.span, "pkgbase asked for here")
                .help("set the release, such as version: \"15.0\""),
            ),
            _ => {}
        }
    }
    errors
}

/// No user reuses an account or group of the base system.
pub(crate) fn accounts(c: &Compiled) -> Vec<Diag> {
    let mut errors = Vec::new();
    for u in &c.freebsd.users {
        let name = u.name.value.as_str();
        let (what, why) = if base::is_account(name) {
            (
                "an account",
                if u.state == UserState::Absent {
                    "removing it would break the base system"
                } else {
                    "`pw useradd` fails on an existing name, and `pw usermod` would rewrite the base account"
                },
            )
        } else if base::is_group(name) && u.state == UserState::Present && u.primary_group.is_none()
        {
            (
                "a group",
                "`pw useradd` makes a group named like the user, and that group exists",
            )
        } else {
            continue;
        };
        errors.push(
            Diag::new(
                access::Code::BaseAccount,
                format!("{name} is {what} of the FreeBSD base system: {why}"),
            )
            .label(&u.name.span, "a base name")
            .help(
                "choose another name; the base accounts and groups are listed in docs/install.md \
                 (root's password is set with freebsd.root_password)",
            ),
        );
    }
    errors
}

/// Every shell is in the base system or provided by a listed package, and
/// sudoers lines come with sudo.
pub(crate) fn shells(c: &Compiled) -> Vec<Diag> {
    let f = &c.freebsd;
    let has_package = |name: &str| f.packages.iter().any(|p| package_is(&p.value, name));
    let mut errors = Vec::new();
    for user in f.users.iter().filter(|u| u.state == UserState::Present) {
        let Some(shell) = &user.shell else { continue };
        let s = shell.value.as_str();
        let provided = base::SHELLS.contains(&s)
            || base::PACKAGE_SHELLS
                .iter()
                .any(|(path, pkg)| *path == s && has_package(pkg));
        if provided {
            continue;
        }
        let hint = base::PACKAGE_SHELLS
            .iter()
            .find(|(path, _)| *path == s)
            .map(|(_, pkg)| format!("add the package `{pkg}` to freebsd.packages"))
            .unwrap_or_else(|| {
                format!(
                    "use a base shell ({}) or one a package provides",
                    base::SHELLS.join(", ")
                )
            });
        errors.push(
            Diag::new(
                Code::PlanShell,
                format!(
                    "{}: the shell {s} is neither in the base system nor provided by a listed package",
                    user.name.value
                ),
            )
            .label(&shell.span, "this shell")
            .help(hint),
        );
    }
    if let Some(first) = f.sudoers.first()
        && !has_package("sudo")
    {
        errors.push(
            Diag::new(Code::PlanSudo, "sudoers lines need the `sudo` package")
                .label(&first.span, "sudoers are set")
                .help("add `sudo` (or security/sudo) to freebsd.packages"),
        );
    }
    errors
}

/// A release's drop-in directory (`None`: its program reads none) and the
/// source that says so.
type Dir = (Option<&'static str>, &'static str);

/// What needs a release whose program reads a drop-in directory: a row
/// of [`drop_in`].
struct DropIn<'a> {
    code: Code,
    /// The first item that needs the directory, and its label.
    item: &'a Located<String>,
    label: &'static str,
    /// The error without `freebsd.version`.
    no_version: &'static str,
    /// The release's directory (`None`: it reads none) and the source that
    /// says so; `None` for a release beryl does not know (reported by
    /// [`release`]).
    row: fn(&str) -> Option<Dir>,
    /// The error and its help for a release that reads no directory, from
    /// the version and the source.
    refused: fn(&str, &str, &'static str) -> (String, String),
}

/// The release must be named, and read the directory, when anything needs
/// it.
fn drop_in(f: &crate::schema::FreeBsd, d: Option<DropIn<'_>>) -> Vec<Diag> {
    let Some(d) = d else {
        return Vec::new();
    };
    let Some(v) = &f.version else {
        return vec![
            Diag::new(d.code, d.no_version)
                .label(&d.item.span, d.label)
                .help(format!(
                    "name the release, such as version: \"15.0\" (beryl knows {})",
                    release::known()
                )),
        ];
    };
    match (d.row)(&v.value) {
        None | Some((Some(_), _)) => Vec::new(),
        Some((None, source)) => {
            let (message, help) = (d.refused)(&v.value, &d.item.value, source);
            vec![
                Diag::new(d.code, message)
                    .label(&d.item.span, d.label)
                    .label(&v.span, "this release")
                    .help(help),
            ]
        }
    }
}

/// Cron entries need a release whose cron(8) reads a drop-in directory
/// ([`crate::freebsd::cron::CRONS`]); without `freebsd.version` the
/// directory is unknown.
pub(crate) fn cron(c: &Compiled) -> Vec<Diag> {
    let f = &c.freebsd;
    drop_in(
        f,
        f.cron.first().map(|first| DropIn {
            code: Code::ReleaseCron,
            item: &first.name,
            label: "a cron entry",
            no_version: "freebsd.cron needs `freebsd.version`: where cron reads drop-in files depends on the release",
            row: |v| crate::freebsd::cron::find(v).map(|r| (r.dir, r.source)),
            refused: |v, _, source| {
                (
                    format!("FreeBSD {v}'s cron reads no drop-in directory, so beryl cannot add cron entries"),
                    source.to_string(),
                )
            },
        }),
    )
}

/// Dotted loader tunables need a release whose loader reads a drop-in
/// directory ([`crate::freebsd::loader_d::LOADER_DS`]); without
/// `freebsd.version` the directory is not known.
pub(crate) fn loader_d(c: &Compiled) -> Vec<Diag> {
    let f = &c.freebsd;
    let first = f
        .loader
        .iter()
        .find(|t| crate::freebsd::names::loader_dotted(&t.name.value));
    drop_in(
        f,
        first.map(|first| DropIn {
            code: Code::ReleaseLoader,
            item: &first.name,
            label: "a dotted tunable",
            no_version: "a dotted loader tunable needs `freebsd.version`: whether the loader reads /boot/loader.conf.d depends on the release",
            row: |v| crate::freebsd::loader_d::find(v).map(|r| (r.dir, r.source)),
            refused: |v, name, source| {
                (
                    format!("FreeBSD {v}'s loader reads no drop-in directory, so beryl cannot write {name}"),
                    format!("sysrc cannot write a dotted name to /boot/loader.conf: set it there by hand, or install a release whose loader reads /boot/loader.conf.d ({source})"),
                )
            },
        }),
    )
}
