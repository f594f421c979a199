//! Pruning: removing what beryl created once it has left the config.
//!
//! The host keeps a record of what beryl created there
//! ([`crate::desired::RECORD`], one `KIND ID` line per item). The apply
//! script adds an item when its step's change ran and the item did not exist
//! before; at the end it removes every recorded item that is no longer
//! desired, unless told not to (`--no-prune`), and writes the record again
//! (atomically). Nothing beryl did not create is in the record, so nothing
//! else is ever removed. Each kind is a row of [`KINDS`]: how the script
//! tells whether the item is there, and how it removes it.

use super::StepKind;
use crate::desired::Record;
use crate::shell::{QuoteError, word};

/// How one kind of recorded item is looked at and removed. The bodies are
/// sh function bodies that take the item's id as `$1`.
pub(crate) struct Kind {
    /// The record's first word (`pkg`, `file`…).
    pub kind: &'static str,
    /// The kind of the removal step in reports.
    pub step: StepKind,
    /// Exit 0 when the item is on the host.
    pub exists: &'static str,
    /// Prints why the item must stay, and exits 0, when removing it would
    /// take something desired with it; else exits non-zero.
    pub keep: &'static str,
    /// Takes the item away (the script checks with `exists` after it).
    pub remove: &'static str,
    /// Where the behaviour the row relies on is written.
    pub source: &'static str,
    /// Set for a kind never pruned: why a recorded item that left the
    /// config stays (`keep` prints it too); the dry run shows it.
    pub kept: Option<&'static str>,
}

/// Why a dataset that left the config stays.
const DATASET_KEPT: &str = "left alone: a dataset is destroyed only by destroy: true";

/// The kinds of item beryl records and prunes.
pub(crate) const KINDS: &[Kind] = &[
    Kind {
        kind: "pkg",
        step: StepKind::Package,
        exists: "pkg info -e \"$1\"",
        // `pkg delete` removes the packages that require the one deleted as
        // well, unless forced: keep a package that another one requires.
        keep: "pkg query '%rn' \"$1\" 2>/dev/null | awk '{ r = r \" \" $0 } END { if (r == \"\") exit 1; print \"required by\" r }'",
        remove: "env ASSUME_ALWAYS_YES=yes pkg delete -y \"$1\"",
        source: "freebsd/pkg src/delete.c @068171d5 (recursive unless -f; -y answers the question); docs/pkg-query.8 @0206549d (%rn: the reverse dependencies)",
        kept: None,
    },
    Kind {
        kind: "file",
        step: StepKind::File,
        exists: "[ -e \"$1\" ] || [ -L \"$1\" ]",
        keep: "false",
        remove: "rm -f \"$1\"",
        source: "POSIX rm(1)",
        kept: None,
    },
    Kind {
        kind: "zfs",
        step: StepKind::Zfs,
        exists: "zfs list -H -o name \"$1\" >/dev/null 2>&1",
        // Never pruned: a dataset holds data; `destroy: true` destroys one
        // (src/apply/zfs.rs), guarded by this record.
        keep: "echo 'left alone: a dataset is destroyed only by destroy: true'",
        remove: "false",
        source: "openzfs/zfs cmd/zfs/zfs_main.c @be7657e3 (zfs list -H -o name: exit 1 and \"dataset does not exist\" when absent)",
        kept: Some(DATASET_KEPT),
    },
    // sysctl, loader and cron: src/apply/system.rs.
    Kind {
        kind: "sysctl",
        step: StepKind::Sysctl,
        exists: concat!(
            "[ -f /etc/sysctl.conf ] && ! awk -v name=\"$1\" -v value= '",
            crate::desired::system::sysctl_awk!(),
            "' /etc/sysctl.conf | cmp -s - /etc/sysctl.conf"
        ),
        keep: "false",
        remove: concat!(
            "awk -v name=\"$1\" -v value= '",
            crate::desired::system::sysctl_awk!(),
            "' /etc/sysctl.conf > /etc/sysctl.conf.beryl-tmp && mv -f /etc/sysctl.conf.beryl-tmp /etc/sysctl.conf"
        ),
        source: "libexec/rc/rc.d/sysctl @023fc80e (the file read at boot); the live value stays until the next boot",
        kept: None,
    },
    Kind {
        kind: "loader",
        step: StepKind::Loader,
        exists: "sysrc -f /boot/loader.conf -a 2>/dev/null | grep -q \"^$1: \"",
        keep: "false",
        remove: "sysrc -f /boot/loader.conf -x \"$1\" >/dev/null",
        source: "usr.sbin/sysrc/sysrc @09711ccb (-f FILE, -a, -x)",
        kept: None,
    },
    Kind {
        kind: "cron",
        step: StepKind::Cron,
        exists: "[ -e \"/usr/local/etc/cron.d/beryl-$1\" ]",
        keep: "false",
        remove: "rm -f \"/usr/local/etc/cron.d/beryl-$1\"",
        source: "usr.sbin/cron/cron/database.c @e4452d45 (a file gone is dropped at the next load); src/freebsd/cron.rs",
        kept: None,
    },
];

/// The row of a kind.
pub(crate) fn kind(name: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.kind == name)
}

/// The sh functions of every kind: `exists_KIND`, `keep_KIND`, `remove_KIND`.
pub(crate) fn functions() -> String {
    let mut out = String::new();
    for k in KINDS {
        out.push_str(&format!(
            "# {kind}: {source}\nexists_{kind}() {{\n\t{exists}\n}}\nkeep_{kind}() {{\n\t{keep}\n}}\nremove_{kind}() {{\n\t{remove}\n}}\n",
            kind = k.kind,
            source = k.source,
            exists = k.exists,
            keep = k.keep,
            remove = k.remove
        ));
    }
    out
}

/// The `desired=` assignment of the script: the record lines of the items
/// the config still holds, and whether to prune.
pub(crate) fn desired(records: &[&Record], prune: bool) -> Result<String, QuoteError> {
    let lines: String = records.iter().map(|r| format!("{}\n", r.line())).collect();
    Ok(format!(
        "desired={}\nprune={}\n",
        word(&lines)?,
        if prune { 1 } else { 0 }
    ))
}

/// The step id of a recorded item: `KIND:ID`.
pub(crate) fn step_id(r: &Record) -> String {
    format!("{}:{}", r.kind, r.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_named_once_and_its_functions_are_emitted() {
        let mut names: Vec<&str> = KINDS.iter().map(|k| k.kind).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), KINDS.len());
        let f = functions();
        for k in KINDS {
            assert!(f.contains(&format!("\nremove_{}() {{\n", k.kind)), "{f}");
            assert!(kind(k.kind).is_some());
        }
        assert!(kind("nope").is_none());
    }

    #[test]
    fn the_desired_list_is_one_quoted_word() {
        let r = [Record::new("pkg", "sudo"), Record::new("file", "/etc/a b")];
        let refs: Vec<&Record> = r.iter().collect();
        assert_eq!(
            desired(&refs, true).unwrap(),
            "desired='pkg sudo\nfile /etc/a b\n'\nprune=1\n"
        );
    }
}
