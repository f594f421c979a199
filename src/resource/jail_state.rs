//! `jail_state`: a thin jail's writable state, on datasets of its own
//! (issue 36, docs/jails.md "Layouts"). A thin jail shares its host's
//! golden base of its release ([`golden_dataset`], laid down and
//! snapshotted `@beryl` by a `jail_base` row of its own); what the jail
//! writes lives in one dataset per `state` directory, so that the root can
//! be replaced by the next release's (a ZFS clone cannot be rebased:
//! mkjail#61).
//!
//! - **clone:** the jail's root dataset is `zfs clone SNAPSHOT DATASET`
//!   (the zfs kind's row, [`super::zfs::Zfs::origin`]); each state dataset
//!   is its child, mounted on PATH/DIR, hiding the clone's copy of DIR.
//! - **nullfs:** the jail's root dataset stays empty; `/etc/fstab.NAME`
//!   mounts the golden base read-only on PATH, then each state dataset
//!   (mounted on the host at [`stage`], outside the jail's tree) read-write
//!   on PATH/DIR ([`super::jail_conf::fstab_text`]).
//! - **Apply:** each state dataset `DATASET/S` (S: DIR without its first
//!   `/`, the others as `_`) is created at [`stage`], a host-only
//!   directory, filled from the golden snapshot's DIR when it has one
//!   (`MOUNT/.zfs/snapshot/beryl/DIR`: zfs-snapshot.8 @02bf21b2, a snapshot
//!   is mounted on demand under its file system's `.zfs/snapshot`; `zfs send` sends whole
//!   datasets, never a directory, hence `tar -c | tar -x`), then marked
//!   `beryl:state=RELEASE` (it is created marked `filling`: one found so
//!   is a copy cut short, destroyed and made again, never trusted; one
//!   found without any mark is not beryl's, and is refused, never
//!   destroyed). A clone's state
//!   dataset is then given its mountpoint PATH/DIR, refused when a
//!   component below PATH is a link (zfs(8) mounts through the path). Only
//!   while the jail is stopped, and only before its first start: the jail's
//!   dataset gets `beryl:base=RELEASE LAYOUT DIR…` last, and a jail with
//!   another mark (an added state directory, another layout or release) is
//!   refused, since a new dataset on DIR would hide what the jail wrote
//!   there. OpenZFS sources: man/man8/zfs-clone.8 @1d3ba0bf (a clone's
//!   initial contents are its snapshot's; `-o` as for create), and
//!   cmd/zfs/zfs_main.c @00a38210 `zfs_do_destroy`/`destroy_check_dependent`
//!   (a snapshot is a dependent: its file system is not destroyed without
//!   `-r`; clones of it refuse `-r`, asking for `-R`).
//! - **Records:** none: the state datasets are children of the jail's
//!   dataset; the jail's prune destroys those marked [`FILLED`] by name,
//!   then the jail's dataset, never with `-r` (src/resource/jail.rs PRUNE).

use serde::Serialize;

use super::state::State;
use super::verdict::{Action, Verdict, change};
use super::{Input, Jailed, Kind, Resource, Shell};
use crate::schema::{Install, Jail, JailLayout};
use crate::shell::{QuoteError, word as w};

/// Where golden bases are mounted: `/usr/local/jails/_base/RELEASE`, beside
/// the jails' own directories (a jail name has no `_`: names::jail_name).
pub(crate) const GOLDEN_ROOT: &str = "/usr/local/jails/_base";
/// Where a nullfs jail's state datasets are mounted on its host (and where
/// a clone's are filled before they move into the jail's tree).
pub(crate) const STATE_ROOT: &str = "/usr/local/jails/_state";
/// The golden base's snapshot that clones and copies read.
pub(crate) const SNAPSHOT: &str = "beryl";
/// The user property that marks a state dataset as filled.
pub(crate) const FILLED: &str = "beryl:state";

/// What the dry run says of a thin jail marked otherwise.
const REMADE: &str = "apply refuses this: beryl does not change a thin jail's release, layout or state directories once made (a new dataset on a directory would hide what the jail wrote there)";

/// A thin jail's base: the release it shares and where that lives.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Thin {
    pub release: String,
    pub layout: JailLayout,
    /// `POOL/jails/_base/RELEASE`, POOL the jail's dataset's.
    pub golden: String,
    /// [`GOLDEN_ROOT`]`/RELEASE`.
    pub golden_mount: String,
}

/// A thin jail laid down from the distribution sets (pkgbase is refused at
/// plan time: src/desired/require.rs), with its release (the jail's
/// `freebsd.version`, else its host's).
pub(crate) fn thin(input: &Input<'_>, j: &Jailed<'_>) -> Option<Thin> {
    let jail = j.compiled.freebsd.jail.as_ref()?;
    let layout = jail.base.layout.value;
    if jail.base.method.value != Install::Dists || layout == JailLayout::Thick {
        return None;
    }
    let version =
        super::text(&j.compiled.freebsd.version).or(super::text(&input.freebsd().version))?;
    let release = format!("{version}-RELEASE");
    let pool = jail
        .dataset
        .name
        .value
        .split('/')
        .next()
        .unwrap_or_default();
    Some(Thin {
        golden: format!("{pool}/jails/_base/{release}"),
        golden_mount: format!("{GOLDEN_ROOT}/{release}"),
        release,
        layout,
    })
}

/// `/usr/local` → `usr_local`: a state directory's dataset, below the
/// jail's.
pub(crate) fn state_name(dir: &str) -> String {
    crate::freebsd::names::state_dataset(dir)
}

/// Where a state dataset is mounted on the host, outside the jail's tree.
pub(crate) fn stage(jail: &str, dir: &str) -> String {
    format!("{STATE_ROOT}/{jail}/{}", state_name(dir))
}

/// The jail's mark: `RELEASE LAYOUT DIR…`.
fn mark(release: &str, layout: JailLayout, state: &[String]) -> String {
    let word = match layout {
        JailLayout::Thick => "thick",
        JailLayout::Nullfs => "nullfs",
        JailLayout::Clone => "clone",
    };
    let mut out = format!("{release} {word}");
    for d in state {
        out.push(' ');
        out.push_str(d);
    }
    out
}

/// A thin jail's state datasets, made once.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JailState {
    pub name: String,
    /// The jail's root dataset, which carries the mark.
    pub dataset: String,
    pub path: String,
    /// `clone` or `nullfs`.
    pub layout: String,
    pub release: String,
    /// The golden base's mountpoint.
    pub golden_mount: String,
    /// `beryl:base` once made.
    pub mark: String,
    pub state: Vec<StateDir>,
}

/// One state directory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StateDir {
    /// `/var`, in the jail.
    pub dir: String,
    /// `DATASET/var`.
    pub dataset: String,
    /// Filled at ([`stage`]).
    pub stage: String,
    /// Its mountpoint at the end: PATH/DIR (clone) or the stage (nullfs).
    pub mountpoint: String,
}

/// Each thin jail of the host.
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    super::items(input.jails.iter().filter_map(|j| {
        let t = thin(input, j)?;
        let jail = j.compiled.freebsd.jail.as_ref()?;
        Some(of(jail, &t))
    }))
}

/// The step of `jail` on the base `t`.
pub(crate) fn of(jail: &Jail, t: &Thin) -> JailState {
    let name = jail.name.value.clone();
    let dataset = jail.dataset.name.value.clone();
    let path = jail.path.value.trim_end_matches('/').to_string();
    let dirs: Vec<String> = jail.base.state.iter().map(|d| d.value.clone()).collect();
    JailState {
        state: dirs
            .iter()
            .map(|d| StateDir {
                dir: d.clone(),
                dataset: format!("{dataset}/{}", state_name(d)),
                stage: stage(&name, d),
                mountpoint: match t.layout {
                    JailLayout::Clone => format!("{path}{d}"),
                    _ => stage(&name, d),
                },
            })
            .collect(),
        mark: mark(&t.release, t.layout, &dirs),
        layout: if t.layout == JailLayout::Clone {
            "clone".into()
        } else {
            "nullfs".into()
        },
        release: t.release.clone(),
        golden_mount: t.golden_mount.clone(),
        name,
        dataset,
        path,
    }
}

/// `_p=PATH; for each component of REL: refused when a link` (the jail
/// kind's guard: a jail's root may plant links in its tree).
fn no_link(path: &str, rel: &str) -> Result<String, QuoteError> {
    let parts: Vec<&str> = rel.split('/').filter(|c| !c.is_empty()).collect();
    let words: Result<Vec<String>, QuoteError> = parts.iter().map(|c| w(c)).collect();
    Ok(format!(
        "_p={}; for _c in {}; do _p=\"$_p/$_c\"; if [ -L \"$_p\" ]; then printf '%s\\n' \"$_p is a symbolic link: a state dataset is never mounted through a link\" >&2; return 1; fi; done",
        w(path)?,
        words?.join(" ")
    ))
}

impl Kind for JailState {
    type Want = JailState;
    const NAME: &'static str = "jail_state";
    /// A jail is made by apply, never by the install.
    const TEMPLATE: Option<&'static str> = None;

    fn id(&self) -> String {
        format!("jail_state:{}", self.name)
    }

    fn installed(&self) -> bool {
        false
    }

    fn wants(&self) -> Vec<JailState> {
        vec![self.clone()]
    }

    fn step_id(want: &JailState) -> String {
        want.id()
    }

    fn shell(s: &JailState) -> Result<Shell, QuoteError> {
        let ds = w(&s.dataset)?;
        let mut check = vec![format!(
            "[ \"$(zfs get -H -o value beryl:base {ds} 2>/dev/null)\" = {} ]",
            w(&s.mark)?
        )];
        let mut change = vec![
            format!(
                "_m=$(zfs get -H -o value beryl:base {ds} 2>/dev/null); case $_m in ''|-) ;; *) printf '%s\\n' \"this jail was made as: $_m; beryl does not change a thin jail's release, layout or state directories: a new dataset on a directory would hide what the jail wrote there\" >&2; return 1 ;; esac"
            ),
            format!(
                "if jls -j {} >/dev/null 2>&1; then printf '%s\\n' 'the jail runs: its state datasets are made only while it is stopped' >&2; return 1; fi",
                w(&s.name)?
            ),
        ];
        let snap = format!(
            "{}/.zfs/snapshot/{SNAPSHOT}",
            s.golden_mount.trim_end_matches('/')
        );
        for d in &s.state {
            let sds = w(&d.dataset)?;
            let from = w(&format!("{snap}{}", d.dir))?;
            let stage = w(&d.stage)?;
            let mp = w(&d.mountpoint)?;
            check.push(format!(
                "[ \"$(zfs get -H -p -o value mountpoint {sds} 2>/dev/null)\" = {mp} ]"
            ));
            if s.layout == "nullfs" {
                // The mount point in the shared base (host-only: the jails
                // see it read-only); the base's own directory when it has one.
                let at = w(&format!("{}{}", s.golden_mount, d.dir))?;
                change.push(format!("[ -d {at} ] || mkdir -p {at} || return 1"));
            }
            change.push(format!(
                "_f=$(zfs get -H -o value {FILLED} {sds} 2>/dev/null)
	if [ \"$_f\" != {rel} ]; then
		if zfs list -H -o name {sds} >/dev/null 2>&1; then
			case $_f in ''|-) printf '%s\\n' {theirs} >&2; return 1 ;; esac
			zfs destroy {sds} || return 1
		fi
		zfs create -o {stage_mp} -o {filling} {sds} || return 1
		if [ -d {from} ]; then tar -cf - -C {from} . | tar -xpf - -C {stage} || return 1; fi
		zfs set {filled} {sds} || return 1
	fi",
                rel = w(&s.release)?,
                theirs = w(&format!(
                    "{} exists without beryl's mark {FILLED}: beryl did not make it, and does not destroy it; move it away, or set {FILLED}={} on it to keep it as this jail's {}",
                    d.dataset, s.release, d.dir
                ))?,
                filling = w(&format!("{FILLED}=filling"))?,
                stage_mp = w(&format!("mountpoint={}", d.stage))?,
                filled = w(&format!("{FILLED}={}", s.release))?,
            ));
            if d.mountpoint != d.stage {
                change.push(format!(
                    "if [ \"$(zfs get -H -p -o value mountpoint {sds} 2>/dev/null)\" != {mp} ]; then
		{guard}
		zfs set {set} {sds} || return 1
	fi",
                    guard = no_link(&s.path, &d.dir)?,
                    set = w(&format!("mountpoint={}", d.mountpoint))?,
                ));
            }
        }
        change.push(format!(
            "zfs set {} {ds}",
            w(&format!("beryl:base={}", s.mark))?
        ));
        Ok(Shell {
            check: check.join(" && "),
            change: change.join("\n\t"),
        })
    }

    /// By the jail's mark, as facts read it (`jails.NAME.base`).
    fn judge(s: &JailState, st: &State) -> Verdict {
        let have = st
            .jails
            .get(&s.name)
            .and_then(|j| j.base.clone())
            .filter(|b| b != "-")
            .unwrap_or_default();
        if have == s.mark {
            return Verdict::noop();
        }
        let changes = vec![change("beryl:base", &have, &s.mark)];
        if have.is_empty() {
            return Verdict::new(Action::Create, changes, None);
        }
        Verdict::new(Action::Update, changes, None).with_note(REMADE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn www(layout: &str) -> JailState {
        let clone = layout == "clone";
        JailState {
            name: "www".into(),
            dataset: "zroot/jails/www".into(),
            path: "/usr/local/jails/www".into(),
            layout: layout.into(),
            release: "15.0-RELEASE".into(),
            golden_mount: "/usr/local/jails/_base/15.0-RELEASE".into(),
            mark: format!("15.0-RELEASE {layout} /usr/local"),
            state: vec![StateDir {
                dir: "/usr/local".into(),
                dataset: "zroot/jails/www/usr_local".into(),
                stage: "/usr/local/jails/_state/www/usr_local".into(),
                mountpoint: if clone {
                    "/usr/local/jails/www/usr/local".into()
                } else {
                    "/usr/local/jails/_state/www/usr_local".into()
                },
            }],
        }
    }

    #[test]
    fn names_follow_the_directory() {
        assert_eq!(state_name("/usr/local"), "usr_local");
        assert_eq!(state_name("/var"), "var");
        assert_eq!(stage("www", "/etc"), "/usr/local/jails/_state/www/etc");
        assert_eq!(
            mark(
                "15.0-RELEASE",
                JailLayout::Clone,
                &["/etc".into(), "/var".into()]
            ),
            "15.0-RELEASE clone /etc /var"
        );
    }

    #[test]
    fn a_clone_fills_its_state_off_the_tree_then_mounts_it_without_links() {
        let Shell { check, change } = JailState::shell(&www("clone")).unwrap();
        assert!(
            check.starts_with("[ \"$(zfs get -H -o value beryl:base zroot/jails/www 2>/dev/null)\" = '15.0-RELEASE clone /usr/local' ]"),
            "{check}"
        );
        let fill = change
            .find("then tar -cf - -C /usr/local/jails/_base/15.0-RELEASE/.zfs/snapshot/beryl/usr/local . | tar -xpf - -C /usr/local/jails/_state/www/usr_local")
            .expect(&change);
        let guard = change
            .find("_p=/usr/local/jails/www; for _c in usr local; do")
            .expect(&change);
        let mount = change
            .find("zfs set 'mountpoint=/usr/local/jails/www/usr/local' zroot/jails/www/usr_local")
            .expect(&change);
        let marked = change
            .find("zfs set 'beryl:base=15.0-RELEASE clone /usr/local' zroot/jails/www")
            .expect(&change);
        assert!(fill < guard && guard < mount && mount < marked, "{change}");
        assert!(change.starts_with("_m=$(zfs get"), "{change}");
        assert!(change.contains("\n\tif jls -j www"), "{change}");
        assert!(!change.contains("mkdir"), "{change}");
    }

    /// Runs a nullfs jail's change under sh with a zfs stub whose state
    /// dataset exists with `mark` (empty: none); returns the zfs calls
    /// that change something and whether the change succeeded.
    fn run_with_state(mark: &str) -> (bool, String, String) {
        let tmp = tempfile::tempdir().unwrap();
        let zfs = format!(
            "#!/bin/sh\ncase $1 in\nget) case $6 in */usr_local) echo '{mark}' ;; *) echo - ;; esac ;;\n\
             list) exit 0 ;;\n*) printf 'zfs %s\\n' \"$*\" >> \"$LOG\" ;;\nesac\n"
        );
        let mut j = www("nullfs");
        j.golden_mount = tmp.path().join("golden").to_str().unwrap().into();
        let change = JailState::shell(&j).unwrap().change;
        crate::resource::sh_test::run(
            tmp.path(),
            &[
                ("zfs", zfs.as_str()),
                ("jls", "#!/bin/sh\nexit 1\n"),
                ("tar", "#!/bin/sh\n"),
            ],
            "change",
            &change,
            "",
            &[],
        )
    }

    /// A state dataset beryl created and did not finish filling (marked
    /// `filling`) is made again; one without beryl's mark is someone
    /// else's: refused, never destroyed.
    #[test]
    fn only_a_state_dataset_beryl_was_filling_is_made_again() {
        let (ok, log, err) = run_with_state("filling");
        assert!(ok, "{err}");
        assert!(
            log.starts_with("zfs destroy zroot/jails/www/usr_local\nzfs create -o mountpoint=/usr/local/jails/_state/www/usr_local -o beryl:state=filling zroot/jails/www/usr_local\n"),
            "{log}"
        );
        for mark in ["", "-"] {
            let (ok, log, err) = run_with_state(mark);
            assert!(!ok, "{mark:?}: {log}");
            assert!(!log.contains("destroy"), "{mark:?}: {log}");
            assert!(err.contains("beryl did not make it"), "{err}");
        }
    }

    #[test]
    fn a_nullfs_state_stays_outside_the_jail() {
        let Shell { change, .. } = JailState::shell(&www("nullfs")).unwrap();
        assert!(!change.contains("_p=/usr/local/jails/www"), "{change}");
        assert!(
            !change.contains("mountpoint=/usr/local/jails/www"),
            "{change}"
        );
        assert!(
            change.contains("mkdir -p /usr/local/jails/_base/15.0-RELEASE/usr/local"),
            "{change}"
        );
    }

    #[test]
    fn another_mark_is_an_update_that_apply_refuses() {
        let mut st = State::default();
        let s = www("clone");
        assert_eq!(JailState::judge(&s, &st).action, Action::Create);
        st.jails.insert(
            "www".into(),
            super::super::state::Jail {
                base: Some("15.0-RELEASE clone".into()),
                ..Default::default()
            },
        );
        let v = JailState::judge(&s, &st);
        assert_eq!(v.action, Action::Update);
        assert!(v.note.is_some_and(|n| n.starts_with("apply refuses this")));
        st.jails.get_mut("www").unwrap().base = Some(s.mark.clone());
        assert_eq!(JailState::judge(&s, &st).action, Action::Noop);
    }
}
