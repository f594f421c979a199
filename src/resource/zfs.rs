//! `zfs`: a dataset of `freebsd.zfs.datasets`, with the properties beryl
//! sets, or one to destroy (`destroy: true`). Datasets come after the pools
//! that hold them, sorted by name (a parent before its children).
//!
//! - **Apply:** created with its properties (`zfs create -p -o`), or has
//!   each property that is not set locally set. What zfs(8) prints, from
//!   openzfs/zfs be7657e3 (cmd/zfs/zfs_main.c and lib/libzfs/libzfs_util.c
//!   `zprop_print_one_property`): `zfs get -H -p -o value,source PROP DS`
//!   prints the value (numbers in bytes) and the source separated by a
//!   tab; a property counts as set only with the source `local` (an
//!   inherited or default value equal to the desired one is set all the
//!   same, so that it stays when the parent changes).
//! - **Destroy:** only a dataset beryl created (its line in the record),
//!   never recursively.
//! - **Records:** `zfs NAME`; never pruned: a dataset holds data.

use serde::Serialize;

use super::state::State;
use super::verdict::{Action, Verdict, change};
use super::{Input, Kind, Prune, RECORD, Record, Resource, Shell};
use crate::shell::{QuoteError, word as w};

/// A dataset: created with its properties, or destroyed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Zfs {
    pub name: String,
    pub props: Vec<Prop>,
    /// `destroy: true`: destroyed when beryl created it.
    pub destroy: bool,
    /// In the boot pool and not one of zfsboot's own: the install creates
    /// it through the preamble's `ZFSBOOT_DATASETS`
    /// ([`crate::freebsd::zfs::zfsboot_datasets`]), not in the setup
    /// script, whose `zfs create` would mount it under the installer's
    /// altroot.
    pub boot: bool,
    /// A thin jail's root made by `zfs clone -o … SNAPSHOT DATASET`
    /// (zfs-clone.8 @1d3ba0bf) instead of `zfs create` (issue 36).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

/// The properties that apply to blocks as they are written (zfsprops(7)):
/// existing data keeps the old value.
const NEW_DATA: &[&str] = &["recordsize", "compression", "copies", "checksum", "dedup"];

/// A property: as `zfs set` takes it and as `zfs get -H -p` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prop {
    pub name: String,
    pub value: String,
    pub printed: String,
}

/// The datasets sorted by name (a parent sorts before its children).
pub(crate) fn layout(input: &Input<'_>) -> Vec<Resource> {
    let f = input.freebsd();
    let boot_pool = super::text(&f.pool).unwrap_or(crate::freebsd::zfs::DEFAULT_BOOT_POOL.into());
    let mut datasets: Vec<Zfs> = f
        .zfs
        .datasets
        .iter()
        .map(|d| Zfs {
            boot: !d.destroy
                && d.name
                    .value
                    .strip_prefix(boot_pool.as_str())
                    .and_then(|rest| rest.strip_prefix('/'))
                    .is_some_and(|rel| crate::freebsd::zfs::zfsboot(rel).is_none()),
            name: d.name.value.clone(),
            props: d
                .props
                .iter()
                .map(|p| Prop {
                    name: p.name.value.clone(),
                    value: p.value.value.clone(),
                    printed: p.printed.clone(),
                })
                .collect(),
            destroy: d.destroy,
            origin: None,
        })
        .collect();
    datasets.sort_by(|a, b| a.name.split('/').cmp(b.name.split('/')));
    super::items(datasets)
}

/// Each jail's dataset (issue 36), with its properties and its
/// `mountpoint` (the jail's `path`) unless written, sorted by name.
/// Recorded as any dataset beryl creates, so that pruning the jail
/// destroys it only then ([`super::jail::PRUNE`]).
pub(crate) fn layout_jails(input: &Input<'_>) -> Vec<Resource> {
    let mut datasets: Vec<Zfs> = input
        .jails
        .iter()
        .filter_map(|j| Some((j, j.compiled.freebsd.jail.as_ref()?)))
        .map(|(j, jail)| {
            let d = &jail.dataset;
            let mut props: Vec<Prop> = d
                .props
                .iter()
                .map(|p| Prop {
                    name: p.name.value.clone(),
                    value: p.value.value.clone(),
                    printed: p.printed.clone(),
                })
                .collect();
            if !props.iter().any(|p| p.name == "mountpoint") {
                props.push(Prop {
                    name: "mountpoint".into(),
                    value: jail.path.value.clone(),
                    printed: jail.path.value.clone(),
                });
            }
            let origin = super::jail_state::thin(input, j)
                .filter(|t| t.layout == crate::schema::JailLayout::Clone)
                .map(|t| format!("{}@{}", t.golden, super::jail_state::SNAPSHOT));
            Zfs {
                name: d.name.value.clone(),
                props,
                destroy: false,
                boot: false,
                origin,
            }
        })
        .collect();
    datasets.sort_by(|a, b| a.name.split('/').cmp(b.name.split('/')));
    super::items(datasets)
}

/// The golden base of each release the host's thin jails share
/// ([`super::jail_base::layout_golden`]), mounted at its directory;
/// recorded as any dataset beryl creates, and never pruned: a dataset is
/// destroyed only by `destroy: true`, which zfs(8) refuses while its
/// snapshot has clones.
pub(crate) fn layout_golden(input: &Input<'_>) -> Vec<Resource> {
    let mut datasets: Vec<Zfs> = Vec::new();
    for j in input.jails {
        let Some(t) = super::jail_state::thin(input, j) else {
            continue;
        };
        if datasets.iter().any(|d| d.name == t.golden) {
            continue;
        }
        datasets.push(Zfs {
            name: t.golden.clone(),
            props: vec![Prop {
                name: "mountpoint".into(),
                value: t.golden_mount.clone(),
                printed: t.golden_mount.clone(),
            }],
            destroy: false,
            boot: false,
            origin: None,
        });
    }
    datasets.sort_by(|a, b| a.name.cmp(&b.name));
    super::items(datasets)
}

/// Why a dataset that left the config stays.
const KEPT: &str = "left alone: a dataset is destroyed only by destroy: true";

/// How a recorded dataset is found; never pruned (`destroy: true` destroys
/// one, guarded by the record).
pub(crate) const PRUNE: Prune = Prune {
    kind: "zfs",
    step_kind: "zfs",
    exists: "zfs list -H -o name \"$1\" >/dev/null 2>&1",
    keep: "printf '%s\\n' 'left alone: a dataset is destroyed only by destroy: true'",
    remove: "false",
    source: "openzfs/zfs cmd/zfs/zfs_main.c @be7657e3 (zfs list -H -o name: exit 1 and \"dataset does not exist\" when absent)",
    kept: Some(KEPT),
    removal_note: None,
    removal_notify: None,
    present: |s, id| s.zfs.get(id).is_some_and(Option::is_some),
};

impl Kind for Zfs {
    type Want = Zfs;
    const NAME: &'static str = "zfs";
    const TEMPLATE: Option<&'static str> = Some(include_str!("../../templates/steps/zfs.sh.j2"));
    const PRUNE: Option<&'static Prune> = Some(&PRUNE);

    fn id(&self) -> String {
        format!("zfs:{}", self.name)
    }

    /// A property that only data written after it changes sees.
    fn note(want: &Zfs) -> Option<&'static str> {
        want.props
            .iter()
            .any(|p| NEW_DATA.contains(&p.name.as_str()))
            .then_some(
                "recordsize, compression, copies, checksum and dedup apply to data written from now on: what the dataset holds keeps its old ones until it is rewritten",
            )
    }

    fn records(&self) -> Vec<Record> {
        match self.destroy {
            false => vec![Record::new("zfs", self.name.clone())],
            true => Vec::new(),
        }
    }

    /// A dataset is recorded by its own install step, only when the install
    /// created it: zfsboot's datasets and a pool's root exist already. One
    /// the preamble hands to zfsboot has no step: the setup script records
    /// it.
    fn install_records(&self) -> Vec<Record> {
        match self.boot {
            true => self.records(),
            false => Vec::new(),
        }
    }

    /// A fresh system has no dataset to destroy, and zfsboot created the
    /// boot pool's.
    fn installed(&self) -> bool {
        !self.destroy && !self.boot
    }

    fn wants(&self) -> Vec<Zfs> {
        vec![self.clone()]
    }

    fn desired_type(_: &Zfs) -> &'static str {
        "dataset"
    }

    fn step_id(want: &Zfs) -> String {
        want.id()
    }

    /// Present with its properties set locally, or destroyed.
    fn shell(d: &Zfs) -> Result<Shell, QuoteError> {
        let ds = w(&d.name)?;
        let exists = format!("zfs list -H -o name {ds} >/dev/null 2>&1");
        if d.destroy {
            let record = w(&format!("zfs {}", d.name))?;
            let refuse = format!(
                "{} was not created by beryl (no line `zfs {}` in {RECORD}): destroy: true destroys only what beryl created; destroy it by hand",
                d.name, d.name
            );
            return Ok(Shell {
                check: format!("! {exists}"),
                change: format!(
                    "if grep -qxF {record} {RECORD} 2>/dev/null; then zfs destroy {ds}; else printf '%s\\n' {} >&2; false; fi",
                    w(&refuse)?
                ),
            });
        }
        let mut check = vec![exists.clone()];
        let mut set = Vec::new();
        let mut create = vec![match &d.origin {
            None => "zfs create -p".to_string(),
            Some(_) => "zfs clone -p".to_string(),
        }];
        for p in &d.props {
            let test = prop_is_set(&ds, &p.name, &p.printed)?;
            check.push(test.clone());
            let assign = w(&format!("{}={}", p.name, p.value))?;
            set.push(format!("{{ {test} || zfs set {assign} {ds}; }}"));
            create.push(format!("-o {assign}"));
        }
        if let Some(origin) = &d.origin {
            create.push(w(origin)?);
        }
        create.push(ds.clone());
        let set = if set.is_empty() {
            ":".to_string()
        } else {
            set.join(" && ")
        };
        Ok(Shell {
            check: check.join(" && "),
            change: format!("if {exists}; then {set}; else {}; fi", create.join(" ")),
        })
    }

    /// Each property that is not set locally to its value, shown as `VALUE
    /// (SOURCE)`.
    fn judge(d: &Zfs, s: &State) -> Verdict {
        let have = s.zfs.get(&d.name).and_then(|h| h.as_ref());
        if d.destroy {
            return match have {
                None => Verdict::noop(),
                Some(_) => Verdict::new(Action::Delete, Vec::new(), None),
            };
        }
        let Some(have) = have else {
            let changes = d
                .props
                .iter()
                .map(|p| change(&p.name, "", &p.value))
                .collect();
            return Verdict::new(Action::Create, changes, None);
        };
        let mut changes = Vec::new();
        for p in &d.props {
            let (value, source) = have
                .props
                .get(&p.name)
                .map_or(("", ""), |v| (v.value.as_str(), v.source.as_str()));
            if value == p.printed && source == "local" {
                continue;
            }
            let before = if source.is_empty() {
                value.to_string()
            } else {
                format!("{value} ({source})")
            };
            changes.push(change(&p.name, &before, &p.printed));
        }
        Verdict::update(changes, None)
    }

    /// A dataset to destroy is looked at, never recorded.
    fn query(d: &Zfs) -> Option<Record> {
        Some(Record::new("zfs", d.name.clone()))
    }
}

/// `[ "$(zfs get …)" = 'VALUE<TAB>local' ]` for one property.
fn prop_is_set(ds: &str, name: &str, printed: &str) -> Result<String, QuoteError> {
    Ok(format!(
        "[ \"$(zfs get -H -p -o value,source {} {} 2>/dev/null)\" = {} ]",
        w(name)?,
        ds,
        w(&format!("{printed}\tlocal"))?
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pgdata() -> Zfs {
        Zfs {
            name: "tank/pgdata".into(),
            props: vec![Prop {
                name: "recordsize".into(),
                value: "16K".into(),
                printed: "16384".into(),
            }],
            destroy: false,
            boot: false,
            origin: None,
        }
    }

    #[test]
    fn a_dataset_is_checked_by_local_values() {
        let d = pgdata();
        assert_eq!(Zfs::step_id(&d), "zfs:tank/pgdata");
        let Shell { check, change } = Zfs::shell(&d).unwrap();
        assert_eq!(
            check,
            "zfs list -H -o name tank/pgdata >/dev/null 2>&1 && [ \"$(zfs get -H -p -o value,source recordsize tank/pgdata 2>/dev/null)\" = '16384\tlocal' ]"
        );
        assert!(
            change.contains("|| zfs set 'recordsize=16K' tank/pgdata;"),
            "{change}"
        );
        assert!(
            change.ends_with("else zfs create -p -o 'recordsize=16K' tank/pgdata; fi"),
            "{change}"
        );
    }

    #[test]
    fn a_clone_is_made_from_its_origin_and_checked_as_any_dataset() {
        let mut d = pgdata();
        d.origin = Some("tank/_base/r@beryl".into());
        let Shell { check, change } = Zfs::shell(&d).unwrap();
        assert_eq!(check, Zfs::shell(&pgdata()).unwrap().check);
        assert!(
            change.ends_with(
                "else zfs clone -p -o 'recordsize=16K' tank/_base/r@beryl tank/pgdata; fi"
            ),
            "{change}"
        );
    }

    #[test]
    fn destroy_is_guarded_by_the_record_and_never_recursive() {
        let mut d = pgdata();
        d.props.clear();
        d.destroy = true;
        let Shell { check, change } = Zfs::shell(&d).unwrap();
        assert_eq!(check, "! zfs list -H -o name tank/pgdata >/dev/null 2>&1");
        assert!(
            change.starts_with("if grep -qxF 'zfs tank/pgdata' /var/db/beryl/managed"),
            "{change}"
        );
        assert!(change.contains("then zfs destroy tank/pgdata;"), "{change}");
        assert!(!change.contains("-r"), "{change}");
    }
}
