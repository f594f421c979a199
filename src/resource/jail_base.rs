//! `jail_base`: a thick jail's userland, laid down once on its dataset
//! (issue 36, docs/jails.md "Apply order").
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
//! - **Records:** none; the dataset is the zfs kind's.

use serde::Serialize;

use super::state::State;
use super::verdict::{Action, Verdict, change};
use super::{Input, Kind, Resource, Shell};
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
        let site = super::text(&host.dist_site).unwrap_or_else(|| default_site(&release));
        Some(JailBase {
            name: jail.name.value.clone(),
            dataset: jail.dataset.name.value.clone(),
            path: jail.path.value.clone(),
            site: site.trim_end_matches('/').to_string(),
            release,
        })
    }))
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
        let change = format!(
            "if jls -j {name} >/dev/null 2>&1; then printf '%s\\n' 'the jail runs: its base is laid down only while it is stopped' >&2; return 1; fi
	case $(zfs get -H -o value {MARKER} {ds} 2>/dev/null) in ''|-) ;; *) printf '%s\\n' 'another release was laid down here: beryl does not upgrade a base' >&2; return 1 ;; esac
	if [ ! -d {path} ] || [ -L {path} ]; then printf '%s\\n' {nodir} >&2; return 1; fi
	_d=$(mktemp -d \"${{TMPDIR:-/tmp}}/beryl-base.XXXXXXXX\") || return 1
	fetch -o \"$_d/MANIFEST\" {manifest} && fetch -o \"$_d/base.txz\" {set} &&
		_sum=$(sha256 -q \"$_d/base.txz\") &&
		{{ [ \"$(awk '$1 == \"base.txz\" {{ print $2 }}' \"$_d/MANIFEST\")\" = \"$_sum\" ] ||
			{{ printf '%s\\n' 'base.txz does not match its MANIFEST line' >&2; false; }}; }} &&
		tar -xpf \"$_d/base.txz\" -C {path} &&
		{{ [ ! -f /etc/resolv.conf ] || [ -L {resolv} ] || cp /etc/resolv.conf {resolv}; }}
	_st=$?
	rm -rf \"$_d\"
	[ \"$_st\" -eq 0 ] && zfs set {marker} {ds}",
            name = w(&b.name)?,
            nodir = w(&format!("{} is not a directory (the dataset's mountpoint)", b.path))?,
            manifest = w(&format!("{}/MANIFEST", b.site))?,
            set = w(&format!("{}/base.txz", b.site))?,
            marker = w(&format!("{MARKER}={}", b.release))?,
            resolv = w(&format!("{}/etc/resolv.conf", b.path.trim_end_matches('/')))?,
        );
        Ok(Shell { check, change })
    }

    fn judge(b: &JailBase, s: &State) -> Verdict {
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
