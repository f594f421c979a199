//! ZFS steps: a data pool is checked, never created (that would take its
//! disks); a dataset is created with its properties or has them set; a
//! dataset with `destroy: true` is destroyed only when beryl created it.
//!
//! What zfs(8) prints, from openzfs/zfs be7657e3 (cmd/zfs/zfs_main.c and
//! lib/libzfs/libzfs_util.c `zprop_print_one_property`): `zfs get -H -p -o
//! value,source PROP DS` prints the value (numbers in bytes) and the source
//! separated by a tab; a property counts as set only with the source
//! `local` (an inherited or default value equal to the desired one is set
//! all the same, so that it stays when the parent changes).

use crate::desired::{Dataset, Pool};
use crate::shell::{QuoteError, word as w};

use super::StepKind;
use super::diff::{Action, Change, change, verdict};
use super::state::State;

type Judged = (Action, Vec<Change>, Option<String>);

/// The record of what beryl created on the host, one `KIND ID` per line.
const MANAGED: &str = crate::desired::RECORD;

type Parts = (String, StepKind, String, String);

/// A data pool: imported, or a failure that says how to make it.
pub(super) fn pool(p: &Pool) -> Result<Parts, QuoteError> {
    let name = w(&p.name)?;
    let by_hand = format!("zpool create {} {}", p.name, p.vdevs.join(" "));
    let reason = format!(
        "data pool {} is not imported: beryl creates data pools only at install, from their disks; \
         import it (zpool import {}) or create it by hand ({by_hand})",
        p.name, p.name
    );
    Ok((
        format!("zpool:{}", p.name),
        StepKind::Zpool,
        format!("zpool list -H -o name {name} >/dev/null 2>&1"),
        format!("{{ echo {} >&2; false; }}", w(&reason)?),
    ))
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

/// A dataset: present with its properties set locally, or destroyed.
pub(super) fn dataset(d: &Dataset) -> Result<Parts, QuoteError> {
    let ds = w(&d.name)?;
    let exists = format!("zfs list -H -o name {ds} >/dev/null 2>&1");
    let id = format!("zfs:{}", d.name);
    if d.destroy {
        let record = w(&format!("zfs {}", d.name))?;
        let refuse = format!(
            "{} was not created by beryl (no line `zfs {}` in {MANAGED}): destroy: true destroys only what beryl created; destroy it by hand",
            d.name, d.name
        );
        return Ok((
            id,
            StepKind::Zfs,
            format!("! {exists}"),
            format!(
                "if grep -qxF {record} {MANAGED} 2>/dev/null; then zfs destroy {ds}; else echo {} >&2; false; fi",
                w(&refuse)?
            ),
        ));
    }
    let mut check = vec![exists.clone()];
    let mut set = Vec::new();
    let mut create = vec!["zfs create -p".to_string()];
    for p in &d.props {
        let test = prop_is_set(&ds, &p.name, &p.printed)?;
        check.push(test.clone());
        let assign = w(&format!("{}={}", p.name, p.value))?;
        set.push(format!("{{ {test} || zfs set {assign} {ds}; }}"));
        create.push(format!("-o {assign}"));
    }
    create.push(ds.clone());
    let set = if set.is_empty() {
        ":".to_string()
    } else {
        set.join(" && ")
    };
    Ok((
        id,
        StepKind::Zfs,
        check.join(" && "),
        format!("if {exists}; then {set}; else {}; fi", create.join(" ")),
    ))
}

/// What the dry run says of a data pool: nothing to do when it is
/// imported, else the failure apply will report.
pub(super) fn judge_pool(p: &Pool, s: &State) -> Judged {
    match &s.zpools {
        Some(pools) if pools.contains(&p.name) => (Action::Noop, Vec::new(), None),
        _ => (
            Action::Create,
            vec![change(
                "pool",
                "not imported",
                "created only at install: apply fails",
            )],
            None,
        ),
    }
}

/// What the dry run says of a dataset: each property that is not set
/// locally to its value, shown as `VALUE (SOURCE)`.
pub(super) fn judge_dataset(d: &Dataset, s: &State) -> Judged {
    let have = s.zfs.get(&d.name).and_then(|h| h.as_ref());
    if d.destroy {
        return match have {
            None => (Action::Noop, Vec::new(), None),
            Some(_) => (Action::Delete, Vec::new(), None),
        };
    }
    let Some(have) = have else {
        let changes = d
            .props
            .iter()
            .map(|p| change(&p.name, "", &p.value))
            .collect();
        return (Action::Create, changes, None);
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
    verdict(changes, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::desired::Prop;

    fn pgdata() -> Dataset {
        Dataset {
            name: "tank/pgdata".into(),
            props: vec![Prop {
                name: "recordsize".into(),
                value: "16K".into(),
                printed: "16384".into(),
            }],
            destroy: false,
        }
    }

    #[test]
    fn a_dataset_is_checked_by_local_values() {
        let (id, _, check, change) = dataset(&pgdata()).unwrap();
        assert_eq!(id, "zfs:tank/pgdata");
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
    fn destroy_is_guarded_by_the_record_and_never_recursive() {
        let mut d = pgdata();
        d.props.clear();
        d.destroy = true;
        let (_, _, check, change) = dataset(&d).unwrap();
        assert_eq!(check, "! zfs list -H -o name tank/pgdata >/dev/null 2>&1");
        assert!(
            change.starts_with("if grep -qxF 'zfs tank/pgdata' /var/db/beryl/managed"),
            "{change}"
        );
        assert!(change.contains("then zfs destroy tank/pgdata;"), "{change}");
        assert!(!change.contains("-r"), "{change}");
    }
}
