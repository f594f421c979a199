//! `jail_base`: a thick jail's userland, laid down once on its dataset,
//! or the golden base its host's thin jails share (issue 36, docs/jails.md
//! "Apply order", "Layouts").
//!
//! - **Marker:** the ZFS user property `beryl:base` on the jail's dataset
//!   names the release beryl laid down there (zfsprops(7): a user property
//!   has a `:` in its name). The host never looks inside the jail's tree to
//!   decide, since the jail's root controls it.
//! - **Apply:** the check reads the marker (`zfs get -H -o value`). The
//!   change refuses while the jail runs, fetches the release's MANIFEST and
//!   `base.txz` into a temporary directory of the host, checks the set's
//!   sha256 against its MANIFEST line (`NAME<TAB>SHA256…`), as bsdinstall's
//!   checksum script does (usr.sbin/bsdinstall/scripts/checksum @023fc80e:
//!   `sha256 -q`, then awk on the MANIFEST's first two fields; beryl is
//!   stricter: a set the MANIFEST does not list is refused, where the
//!   script lets it pass), extracts it with `tar -xpf SET -C PATH` and sets
//!   the marker. The host's /etc/resolv.conf is copied in, as `bsdinstall
//!   jail` does after its extraction (`cp /etc/resolv.conf $1/etc`): a base
//!   has none, and the jail's first step (pkg's bootstrap) resolves names;
//!   found in the harness ("No address record" in both jails of host01).
//!   Only `base.txz`: bsdinstall's `jail` target installs no
//!   kernel (usr.sbin/bsdinstall/scripts/jail @01ab86f7, DISTRIBUTIONS).
//!   pkgbase is not done yet: a jail with `method: pkgbase` gets no step.
//!   [`lay_dists`] is the one shell that lays a release down in a
//!   directory, for both.
//! - **Golden base** ([`layout_golden`]): one per release for the host's
//!   thin jails (`nullfs`, `clone`), `jail_base:_base/RELEASE` on the
//!   dataset `POOL/jails/_base/RELEASE` (the zfs kind's row, mounted at
//!   [`jail_state::GOLDEN_ROOT`]`/RELEASE`), laid down as a thick base is,
//!   then snapshotted `@beryl` (zfs-snapshot.8 @02bf21b2: a consistent image, read under `.zfs/snapshot`; what
//!   `zfs clone` and the state copies read), then marked. Thin jails of one
//!   release on two pools are not supported (ASSUMPTION: one pool holds a
//!   host's thin jails; the first pool's golden is laid, the other jail's
//!   clone fails).
//! - **Records:** none; the dataset is the zfs kind's.

use serde::Serialize;

use super::state::State;
use super::verdict::{Action, Verdict, change};
use super::{Input, Kind, Resource, Shell, jail_state};
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
    /// Where `MANIFEST` and `base.txz` are fetched from.
    pub site: String,
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

/// Each thick jail of the host laid down from the distribution sets: the
/// jail's release (default its host's), from the host's `dist_site` or the
/// release's default site.
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    let host = input.freebsd();
    super::items(input.jails.iter().filter_map(|j| {
        let jail = j.compiled.freebsd.jail.as_ref()?;
        if jail.base.method.value != Install::Dists || jail.base.layout.value != JailLayout::Thick {
            return None;
        }
        let version = super::text(&j.compiled.freebsd.version).or(super::text(&host.version))?;
        let release = format!("{version}-RELEASE");
        Some(JailBase {
            name: jail.name.value.clone(),
            dataset: jail.dataset.name.value.clone(),
            path: jail.path.value.clone(),
            site: site(input, &release),
            release,
            golden: None,
        })
    }))
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
            golden: Some(Golden {
                snapshot: jail_state::SNAPSHOT.into(),
                jails: jail.into_iter().collect(),
            }),
        });
    }
    bases.sort_by(|a, b| a.dataset.cmp(&b.dataset));
    super::items(bases)
}

/// The shell that lays the release's `base.txz` down in the directory
/// `path` (which exists): fetched with its MANIFEST into a temporary
/// directory of the host, its sha256 checked against the MANIFEST's line,
/// extracted, and the host's /etc/resolv.conf copied in. Leaves the status
/// in `$_st`. The one place a base is laid down from the distribution
/// sets: a thick jail's own, and the thin jails' golden base.
pub(crate) fn lay_dists(path: &str, site: &str) -> Result<String, QuoteError> {
    Ok(format!(
        "_d=$(mktemp -d \"${{TMPDIR:-/tmp}}/beryl-base.XXXXXXXX\") || return 1
	fetch -o \"$_d/MANIFEST\" {manifest} && fetch -o \"$_d/base.txz\" {set} &&
		_sum=$(sha256 -q \"$_d/base.txz\") &&
		{{ [ \"$(awk '$1 == \"base.txz\" {{ print $2 }}' \"$_d/MANIFEST\")\" = \"$_sum\" ] ||
			{{ printf '%s\\n' 'base.txz does not match its MANIFEST line' >&2; false; }}; }} &&
		tar -xpf \"$_d/base.txz\" -C {path} &&
		{{ [ ! -f /etc/resolv.conf ] || [ -L {resolv} ] || cp /etc/resolv.conf {resolv}; }}
	_st=$?
	rm -rf \"$_d\"",
        path = w(path)?,
        manifest = w(&format!("{site}/MANIFEST"))?,
        set = w(&format!("{site}/base.txz"))?,
        resolv = w(&format!("{}/etc/resolv.conf", path.trim_end_matches('/')))?,
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
	{lay}
	[ \"$_st\" -eq 0 ] && zfs set {marker} {ds}",
                name = w(&b.name)?,
                nodir = w(&format!("{} is not a directory (the dataset's mountpoint)", b.path))?,
                lay = lay_dists(&b.path, &b.site)?,
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
	{lay}
	[ \"$_st\" -eq 0 ] || return 1
	zfs list -H -t snapshot -o name {snap} >/dev/null 2>&1 || zfs snapshot {snap} || return 1
	zfs set {marker} {ds}",
            nodir = w(&format!("{} is not a directory (the dataset's mountpoint)", b.path))?,
            lay = lay_dists(&b.path, &b.site)?,
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
mod tests {
    use super::*;

    fn base(golden: bool) -> JailBase {
        JailBase {
            name: if golden { "_base/15.0-RELEASE" } else { "www" }.into(),
            dataset: if golden {
                "zroot/jails/_base/15.0-RELEASE"
            } else {
                "zroot/jails/www"
            }
            .into(),
            path: if golden {
                "/usr/local/jails/_base/15.0-RELEASE"
            } else {
                "/usr/local/jails/www"
            }
            .into(),
            release: "15.0-RELEASE".into(),
            site: "https://download.FreeBSD.org/releases/amd64/15.0-RELEASE".into(),
            golden: golden.then(|| Golden {
                snapshot: "beryl".into(),
                jails: vec!["cl".into()],
            }),
        }
    }

    #[test]
    fn a_thick_base_and_the_golden_one_are_laid_by_the_same_shell() {
        let thick = JailBase::shell(&base(false)).unwrap().change;
        let golden = JailBase::shell(&base(true)).unwrap();
        for (change, path) in [
            (&thick, "/usr/local/jails/www"),
            (&golden.change, "/usr/local/jails/_base/15.0-RELEASE"),
        ] {
            assert!(
                change.contains(&lay_dists(path, &base(false).site).unwrap()),
                "{change}"
            );
        }
        assert!(thick.starts_with("if jls -j www"), "{thick}");
        assert!(!thick.contains("zfs snapshot"), "{thick}");
        // The golden one: snapshotted before it is marked, the snapshot
        // part of its check.
        let snap = golden
            .change
            .find("|| zfs snapshot zroot/jails/_base/15.0-RELEASE@beryl || return 1")
            .expect(&golden.change);
        let mark = golden
            .change
            .find("zfs set 'beryl:base=15.0-RELEASE' zroot/jails/_base/15.0-RELEASE")
            .expect(&golden.change);
        assert!(snap < mark, "{}", golden.change);
        assert!(
            golden
                .check
                .ends_with("&& zfs list -H -t snapshot -o name zroot/jails/_base/15.0-RELEASE@beryl >/dev/null 2>&1"),
            "{}",
            golden.check
        );
    }

    #[test]
    fn the_golden_base_is_laid_until_a_jail_of_its_release_is_marked() {
        let b = base(true);
        let mut s = State::default();
        assert_eq!(JailBase::judge(&b, &s).action, Action::Create);
        s.zfs.insert(b.dataset.clone(), Some(Default::default()));
        assert_eq!(JailBase::judge(&b, &s).action, Action::Create);
        s.jails.insert(
            "cl".into(),
            super::super::state::Jail {
                base: Some("15.0-RELEASE clone /etc".into()),
                ..Default::default()
            },
        );
        assert_eq!(JailBase::judge(&b, &s).action, Action::Noop);
    }
}
