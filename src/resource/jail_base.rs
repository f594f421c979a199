//! `jail_base`: a thick jail's userland, laid down once on its dataset,
//! or the golden base its host's thin jails share (issue 36, docs/jails.md
//! "Apply order", "Layouts").
//!
//! - **Marker:** the ZFS user property `beryl:base` on the jail's dataset
//!   names the release beryl laid down there (zfsprops(7): a user property
//!   has a `:` in its name). The host never looks inside the jail's tree to
//!   decide, since the jail's root controls it.
//! - **Apply:** the check reads the marker (`zfs get -H -o value`). The
//!   change refuses while the jail runs, when another release was laid
//!   down, and when the root is not a directory (or is a link); it works in
//!   a temporary directory of the host, lays the base down by its method's
//!   row of [`METHODS`], copies the host's /etc/resolv.conf in, as `bsdinstall
//!   jail` does after its extraction (`cp /etc/resolv.conf $1/etc`): a base
//!   has none, and the jail's first step (pkg's bootstrap) resolves names;
//!   found in the harness ("No address record" in both jails of host01);
//!   then sets the marker.
//! - **dists:** fetches the release's MANIFEST and `base.txz`, checks the
//!   set's sha256 against its MANIFEST line (`NAME<TAB>SHA256…`), as
//!   bsdinstall's checksum script does (usr.sbin/bsdinstall/scripts/checksum
//!   @023fc80e: `sha256 -q`, then awk on the MANIFEST's first two fields;
//!   beryl is stricter: a set the MANIFEST does not list is refused, where
//!   the script lets it pass), extracts it with `tar -xpf SET -C PATH`.
//!   Only `base.txz`: bsdinstall's `jail` target installs no kernel
//!   (usr.sbin/bsdinstall/scripts/jail @01ab86f7, DISTRIBUTIONS).
//! - **pkgbase:** what usr.sbin/bsdinstall/scripts/pkgbase.in (cff8d75e,
//!   index id 351587132) does for `--jail`, unattended: pkg bootstrapped on
//!   the host when `pkg -N` fails; the host's keys copied into the root,
//!   since "pkg always interprets fingerprints paths as relative to the
//!   --rootdir" (freebsd/pkg libpkg/pkg_repo.c
//!   `pkg_repo_load_fingerprints_from_path` @13f9f986 opens the root's copy
//!   first, and the host's only as a fallback since 38cccd7b); the
//!   repository given with `--repo-conf-dir`, a directory of the host
//!   ("-o REPOS_DIR … is interpreted relative to the --rootdir"), and
//!   `-o IGNORE_OSVERSION=yes`; then `update`, and `install -U -y -r
//!   FreeBSD-base` of `FreeBSD-set-minimal-jail` plus `pkg` when the
//!   repository has it (`select_components` with `options.jail`: the
//!   minimal-jail set, no kernel); then `FreeBSD-base: { enabled: yes }` in
//!   the root's /usr/local/etc/pkg/repos/FreeBSD.conf. beryl adds: `-C` a
//!   file of the host, so that no pkg.conf of the root is read (pkg_ini
//!   opens `PREFIX/etc/pkg.conf` under the root without it, libpkg/
//!   pkg_config.c @13f9f986), the repository's URL and keys of the jail's
//!   release ([`crate::freebsd::release::PkgbaseRepo`]) and its ABI, and a
//!   refusal of any symbolic link on the paths it writes in the root.
//!   Global `--rootdir`/`-r` is the root and `install -r` the repository
//!   (src/main.c and src/install.c @13f9f986).
//! - **Golden base** ([`layout_golden`]): one per release for the host's
//!   thin jails (`nullfs`, `clone`), `jail_base:_base/RELEASE` on the
//!   dataset `POOL/jails/_base/RELEASE` (the zfs kind's row, mounted at
//!   [`jail_state::GOLDEN_ROOT`]`/RELEASE`), laid down as a thick base is
//!   (the same [`lay`]), then snapshotted `@beryl` (zfs-snapshot.8
//!   @02bf21b2: a consistent image, read under `.zfs/snapshot`; what `zfs
//!   clone` and the state copies read), then marked. Thin jails of one
//!   release on two pools are not supported (ASSUMPTION: one pool holds a
//!   host's thin jails; the first pool's golden is laid, the other jail's
//!   clone fails).
//! - **Records:** none; the dataset is the zfs kind's.

use serde::Serialize;

use super::state::State;
use super::verdict::{Action, Verdict, change};
use super::{Input, Kind, Resource, Shell, jail_state};
use crate::freebsd::release;
use crate::schema::{Install, JailLayout};
use crate::shell::{QuoteError, word as w};

/// The user property that marks a laid-down base.
pub(crate) const MARKER: &str = "beryl:base";

/// The distribution site of a release when the host names none
/// (`BSDINSTALL_DISTSITE`'s form; amd64 only: an ASSUMPTION of this first
/// cut, see docs/jails.md).
fn default_site(release: &str) -> String {
    format!("https://download.FreeBSD.org/releases/amd64/{release}")
}

/// A jail's base, laid down once.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JailBase {
    pub name: String,
    pub dataset: String,
    pub path: String,
    /// `15.0-RELEASE`.
    pub release: String,
    /// dists: where `MANIFEST` and `base.txz` are fetched from; pkgbase:
    /// the FreeBSD-base repository's URL.
    pub site: String,
    /// How it is laid down: the row of [`METHODS`] its change runs.
    #[serde(skip)]
    pub method: Install,
    /// pkgbase: the ABI and the host's keys; `None` for dists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pkgbase: Option<Pkgbase>,
    /// The golden base of the host's thin jails of this release
    /// ([`super::jail_state`]); `None` for a thick jail's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub golden: Option<Golden>,
}

/// What a golden base is for.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Golden {
    /// The snapshot laid down with it (`beryl`).
    pub snapshot: String,
    /// The thin jails made from it: its dry-run verdict reads their marks
    /// (facts read no golden dataset's properties).
    pub jails: Vec<String>,
}

/// What a pkgbase lay-down needs beyond the repository's URL.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pkgbase {
    /// `FreeBSD:15:amd64`: the jail's release, not the host's.
    pub abi: String,
    /// The host's fingerprints of the repository, `/usr/share/keys/pkgbase-15`.
    pub keys: String,
}

/// How one method lays a base down: a row per `base.method`.
struct Method {
    method: Install,
    /// The jail's base, or `None` when this release cannot be laid down so.
    want: fn(&JailBase, &str) -> Option<JailBase>,
    /// The commands between the temporary directory `$_d` and the
    /// resolv.conf copy: an `&&` chain whose status is the lay-down's.
    lay: fn(&JailBase) -> Result<String, QuoteError>,
}

/// The methods apply lays a thick base down by.
const METHODS: &[Method] = &[
    Method {
        method: Install::Dists,
        want: dists_want,
        lay: dists_lay,
    },
    Method {
        method: Install::Pkgbase,
        want: pkgbase_want,
        lay: pkgbase_lay,
    },
];

/// Each thick jail of the host with a method of [`METHODS`]: the jail's
/// release (default its host's), from the host's `dist_site` or the
/// release's default site (dists), or the release's FreeBSD-base
/// repository (pkgbase; a release without one gets no step, and
/// src/desired/require.rs refuses it).
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    let host = input.freebsd();
    super::items(input.jails.iter().filter_map(|j| {
        let jail = j.compiled.freebsd.jail.as_ref()?;
        if jail.base.layout.value != JailLayout::Thick {
            return None;
        }
        let method = METHODS
            .iter()
            .find(|m| m.method == jail.base.method.value)?;
        let version = super::text(&j.compiled.freebsd.version).or(super::text(&host.version))?;
        let release = format!("{version}-RELEASE");
        let base = JailBase {
            name: jail.name.value.clone(),
            dataset: jail.dataset.name.value.clone(),
            path: jail.path.value.clone(),
            site: site(input, &release),
            release,
            method: method.method,
            pkgbase: None,
            golden: None,
        };
        (method.want)(&base, &version)
    }))
}

fn dists_want(b: &JailBase, _version: &str) -> Option<JailBase> {
    Some(b.clone())
}

/// The release's FreeBSD-base repository, at pkg.FreeBSD.org as the
/// release's FreeBSD.conf names it (amd64 only, as [`default_site`]).
fn pkgbase_want(b: &JailBase, version: &str) -> Option<JailBase> {
    let repo = release::find(version)?.jail_pkgbase.as_ref()?;
    let major = version.split('.').next()?;
    Some(JailBase {
        site: format!("pkg+https://pkg.FreeBSD.org/${{ABI}}/{}", repo.repo),
        method: Install::Pkgbase,
        pkgbase: Some(Pkgbase {
            abi: format!("FreeBSD:{major}:amd64"),
            keys: format!("/usr/share/keys/{}", repo.keys),
        }),
        ..b.clone()
    })
}

/// Fetched with the MANIFEST, checked against its line, extracted.
fn dists_lay(b: &JailBase) -> Result<String, QuoteError> {
    Ok(format!(
        "fetch -o \"$_d/MANIFEST\" {manifest} && fetch -o \"$_d/base.txz\" {set} &&
		_sum=$(sha256 -q \"$_d/base.txz\") &&
		{{ [ \"$(awk '$1 == \"base.txz\" {{ print $2 }}' \"$_d/MANIFEST\")\" = \"$_sum\" ] ||
			{{ printf '%s\\n' 'base.txz does not match its MANIFEST line' >&2; false; }}; }} &&
		tar -xpf \"$_d/base.txz\" -C {path}",
        manifest = w(&format!("{}/MANIFEST", b.site))?,
        set = w(&format!("{}/base.txz", b.site))?,
        path = w(&b.path)?,
    ))
}

/// `{ [ ! -L ROOT/a ] && [ ! -L ROOT/a/b ] …; } || { refusal; false; }`:
/// no symbolic link on the way from the root to `rel` (a path under it).
fn no_links(root: &str, rel: &str) -> Result<String, QuoteError> {
    let mut at = root.trim_end_matches('/').to_string();
    let mut tests = Vec::new();
    for part in rel.split('/').filter(|p| !p.is_empty()) {
        at = format!("{at}/{part}");
        tests.push(format!("[ ! -L {} ]", w(&at)?));
    }
    Ok(format!(
        "{{ {{ {}; }} || {{ printf '%s\\n' {} >&2; false; }}; }}",
        tests.join(" && "),
        w(&format!("a symbolic link on the way to {at}: refused"))?
    ))
}

/// The FreeBSD-base repository as pkgbase.in's FreeBSD-base.conf writes it
/// (usr.sbin/bsdinstall/FreeBSD-base.conf.in 51184e38: url, mirror_type,
/// signature_type, fingerprints, enabled), with the jail's release's URL
/// and keys.
fn repo_conf(b: &JailBase, p: &Pkgbase) -> String {
    format!(
        "FreeBSD-base: {{\n  url: \"{}\",\n  mirror_type: \"srv\",\n  signature_type: \"fingerprints\",\n  fingerprints: \"{}\",\n  enabled: yes\n}}\n",
        b.site, p.keys
    )
}

/// pkgbase.in's install for a jail (see the module's header).
fn pkgbase_lay(b: &JailBase) -> Result<String, QuoteError> {
    let Some(p) = &b.pkgbase else {
        return Ok("false".to_string());
    };
    let root = b.path.trim_end_matches('/');
    let keys_in_root = format!("{root}{}", p.keys);
    let keys_parent = keys_in_root
        .rsplit_once('/')
        .map_or(root.to_string(), |(d, _)| d.to_string());
    let repos = "/usr/local/etc/pkg/repos/FreeBSD.conf";
    let pkg = format!(
        "pkg -C \"$_d/pkg.conf\" --rootdir {} --repo-conf-dir \"$_d/repos\" -o IGNORE_OSVERSION=yes -o {}",
        w(root)?,
        w(&format!("ABI={}", p.abi))?
    );
    let set = "-r FreeBSD-base FreeBSD-set-minimal-jail";
    Ok(format!(
        "{{ pkg -N >/dev/null 2>&1 || pkg bootstrap -y; }} &&
		{{ [ -d {trusted} ] || {{ printf '%s\\n' {nokeys} >&2; false; }}; }} &&
		{keys_safe} &&
		mkdir -p {keys_parent} && rm -rf {keys_in_root} && cp -R {keys} {keys_parent}/ &&
		mkdir \"$_d/repos\" && printf '%s' {conf} > \"$_d/repos/FreeBSD-base.conf\" &&
		printf '%s\\n' {noconf} > \"$_d/pkg.conf\" &&
		{pkg} update &&
		if {pkg} rquery -U -r FreeBSD-base %n | grep -qx pkg; then {pkg} install -U -y {set} pkg; else {pkg} install -U -y {set}; fi &&
		{repos_safe} &&
		mkdir -p {repos_dir} && printf '%s\\n' {enable} > {repos_file}",
        trusted = w(&format!("{}/trusted", p.keys))?,
        nokeys = w(&format!(
            "the host has no {}/trusted: the FreeBSD-base repository is verified with the host's keys",
            p.keys
        ))?,
        keys_safe = no_links(root, &p.keys)?,
        keys_parent = w(&keys_parent)?,
        keys_in_root = w(&keys_in_root)?,
        keys = w(&p.keys)?,
        conf = w(&repo_conf(b, p))?,
        noconf = w("# beryl: no pkg.conf is read from the jail's root")?,
        repos_safe = no_links(root, repos)?,
        repos_dir = w(&format!("{root}/usr/local/etc/pkg/repos"))?,
        enable = w("FreeBSD-base: { enabled: yes }")?,
        repos_file = w(&format!("{root}{repos}"))?,
    ))
}

/// The release's distribution site: the host's `dist_site`, else the
/// default one.
fn site(input: &Input<'_>, release: &str) -> String {
    super::text(&input.freebsd().dist_site)
        .unwrap_or_else(|| default_site(release))
        .trim_end_matches('/')
        .to_string()
}

/// One golden base per release that the host's thin jails share:
/// `jail_base:_base/RELEASE`, on its dataset (`zfs::layout_golden`).
pub(crate) fn layout_golden(input: &Input<'_>) -> Vec<Resource> {
    let mut bases: Vec<JailBase> = Vec::new();
    for j in input.jails {
        let Some(t) = jail_state::thin(input, j) else {
            continue;
        };
        let jail = j
            .compiled
            .freebsd
            .jail
            .as_ref()
            .map(|j| j.name.value.clone());
        if let Some(g) = bases
            .iter_mut()
            .find(|b| b.release == t.release)
            .and_then(|b| b.golden.as_mut())
        {
            g.jails.extend(jail);
            continue;
        }
        bases.push(JailBase {
            name: format!("_base/{}", t.release),
            dataset: t.golden.clone(),
            path: t.golden_mount.clone(),
            site: site(input, &t.release),
            release: t.release.clone(),
            method: Install::Dists,
            pkgbase: None,
            golden: Some(Golden {
                snapshot: jail_state::SNAPSHOT.into(),
                jails: jail.into_iter().collect(),
            }),
        });
    }
    bases.sort_by(|a, b| a.dataset.cmp(&b.dataset));
    super::items(bases)
}

/// The shell that lays the release down in the directory `b.path` (which
/// exists) by its method's row of [`METHODS`], in a temporary directory of
/// the host, and copies the host's /etc/resolv.conf in; leaves the status
/// in `$_st`. The one place a base is laid down: a thick jail's own, and
/// the thin jails' golden base.
pub(crate) fn lay(b: &JailBase) -> Result<String, QuoteError> {
    let lay = match METHODS.iter().find(|m| m.method == b.method) {
        Some(m) => (m.lay)(b)?,
        None => "false".to_string(),
    };
    Ok(format!(
        "_d=$(mktemp -d \"${{TMPDIR:-/tmp}}/beryl-base.XXXXXXXX\") || return 1
	{lay} &&
		{{ [ ! -f /etc/resolv.conf ] || [ -L {resolv} ] || cp /etc/resolv.conf {resolv}; }}
	_st=$?
	rm -rf \"$_d\"",
        resolv = w(&format!("{}/etc/resolv.conf", b.path.trim_end_matches('/')))?,
    ))
}

/// The shell that refuses to lay a base down unless `b.dataset` is
/// mounted on `b.path`: a dataset unmounted, or mounted elsewhere, would
/// leave the base in the file system under the path (`zfs get -H -p -o
/// value mounted,mountpoint`: one line a property, in that order; openzfs
/// cmd/zfs/zfs_main.c @be7657e3, zfs_do_get).
fn mounted_here(b: &JailBase) -> Result<String, QuoteError> {
    Ok(format!(
        "if [ \"$(zfs get -H -p -o value mounted,mountpoint {ds} 2>/dev/null)\" != {want} ]; then printf '%s\\n' {why} >&2; return 1; fi",
        ds = w(&b.dataset)?,
        want = w(&format!("yes\n{}", b.path))?,
        why = w(&format!(
            "{} is not mounted on {}: the base would go to another file system",
            b.dataset, b.path
        ))?,
    ))
}

impl Kind for JailBase {
    type Want = JailBase;
    const NAME: &'static str = "jail_base";
    /// A jail is made by apply, never by the install.
    const TEMPLATE: Option<&'static str> = None;

    fn id(&self) -> String {
        format!("jail_base:{}", self.name)
    }

    fn installed(&self) -> bool {
        false
    }

    fn wants(&self) -> Vec<JailBase> {
        vec![self.clone()]
    }

    fn step_id(want: &JailBase) -> String {
        want.id()
    }

    fn shell(b: &JailBase) -> Result<Shell, QuoteError> {
        let ds = w(&b.dataset)?;
        let path = w(&b.path)?;
        let check = format!(
            "[ \"$(zfs get -H -o value {MARKER} {ds} 2>/dev/null)\" = {} ]",
            w(&b.release)?
        );
        let Some(golden) = &b.golden else {
            let change = format!(
                "if jls -j {name} >/dev/null 2>&1; then printf '%s\\n' 'the jail runs: its base is laid down only while it is stopped' >&2; return 1; fi
	case $(zfs get -H -o value {MARKER} {ds} 2>/dev/null) in ''|-) ;; *) printf '%s\\n' 'another release was laid down here: beryl does not upgrade a base' >&2; return 1 ;; esac
	if [ ! -d {path} ] || [ -L {path} ]; then printf '%s\\n' {nodir} >&2; return 1; fi
	{here}
	{lay}
	[ \"$_st\" -eq 0 ] && zfs set {marker} {ds}",
                name = w(&b.name)?,
                here = mounted_here(b)?,
                nodir = w(&format!("{} is not a directory (the dataset's mountpoint)", b.path))?,
                lay = lay(b)?,
                marker = w(&format!("{MARKER}={}", b.release))?,
            );
            return Ok(Shell { check, change });
        };
        // The golden base: laid down, snapshotted (what clones and state
        // copies read), then marked; a snapshot already there is kept.
        let snap = w(&format!("{}@{}", b.dataset, golden.snapshot))?;
        let change = format!(
            "case $(zfs get -H -o value {MARKER} {ds} 2>/dev/null) in ''|-) ;; *) printf '%s\\n' 'another release was laid down here: beryl does not upgrade a base' >&2; return 1 ;; esac
	if [ ! -d {path} ] || [ -L {path} ]; then printf '%s\\n' {nodir} >&2; return 1; fi
	{here}
	{lay}
	[ \"$_st\" -eq 0 ] || return 1
	zfs list -H -t snapshot -o name {snap} >/dev/null 2>&1 || zfs snapshot {snap} || return 1
	zfs set {marker} {ds}",
            nodir = w(&format!("{} is not a directory (the dataset's mountpoint)", b.path))?,
            here = mounted_here(b)?,
            lay = lay(b)?,
            marker = w(&format!("{MARKER}={}", b.release))?,
        );
        Ok(Shell {
            check: format!("{check} && zfs list -H -t snapshot -o name {snap} >/dev/null 2>&1"),
            change,
        })
    }

    fn judge(b: &JailBase, s: &State) -> Verdict {
        if let Some(g) = &b.golden {
            // Laid down (and snapshotted) before any of its jails is marked.
            let made = s.zfs.get(&b.dataset).is_some_and(Option::is_some)
                && g.jails.iter().any(|j| {
                    s.jails
                        .get(j)
                        .and_then(|j| j.base.as_deref())
                        .is_some_and(|m| m.split(' ').next() == Some(b.release.as_str()))
                });
            return match made {
                true => Verdict::noop(),
                false => Verdict::new(Action::Create, vec![change(MARKER, "", &b.release)], None),
            };
        }
        let have = s
            .jails
            .get(&b.name)
            .and_then(|j| j.base.clone())
            .filter(|b| b != "-")
            .unwrap_or_default();
        if have == b.release {
            return Verdict::noop();
        }
        let action = if have.is_empty() {
            Action::Create
        } else {
            Action::Update
        };
        Verdict::new(action, vec![change(MARKER, &have, &b.release)], None)
    }
}

#[cfg(test)]
mod tests;
