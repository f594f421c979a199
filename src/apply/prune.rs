//! Pruning: removing what beryl created once it has left the config.
//!
//! The host keeps a record of what beryl created there
//! ([`crate::resource::RECORD`], one `KIND ID` line per item). The apply
//! script adds an item when its step's change ran and the item did not exist
//! before; at the end it removes every recorded item that is no longer
//! desired, unless told not to (`--no-prune`), and writes the record again
//! (atomically). Nothing beryl did not create is in the record, so nothing
//! else is ever removed. Each kind that records has a row
//! ([`crate::resource::Prune`], in its kind's file): how the script tells
//! whether the item is there, and how it removes it.

use crate::resource::{Record, pruned_kinds};
use crate::shell::{QuoteError, word};

/// The sh functions of every kind: `exists_KIND`, `keep_KIND`, `remove_KIND`,
/// and for a kind whose removal needs a handler, `removed_KIND`, which
/// notifies it.
pub(crate) fn functions() -> String {
    let mut out = String::new();
    for k in pruned_kinds() {
        let removed = match &k.removal_notify {
            Some(n) if n.under.is_empty() => format!(
                "removed_{}() {{\n\tnotify {} {}\n}}\n",
                k.kind, n.service, n.action
            ),
            Some(n) => format!(
                "removed_{}() {{\n\tcase $1 in\n\t{}) notify {} {} ;;\n\tesac\n}}\n",
                k.kind,
                n.under
                    .iter()
                    .map(|d| format!("{d}/*"))
                    .collect::<Vec<_>>()
                    .join(" | "),
                n.service,
                n.action
            ),
            None => String::new(),
        };
        out.push_str(&format!(
            "# {kind}: {source}\nexists_{kind}() {{\n\t{exists}\n}}\nkeep_{kind}() {{\n\t{keep}\n}}\nremove_{kind}() {{\n\t{remove}\n}}\n{removed}",
            kind = k.kind,
            source = k.source,
            exists = k.exists,
            keep = k.keep,
            remove = k.remove
        ));
    }
    out
}

/// Whether a removal may notify a handler, so the script runs them even
/// when no step does.
pub(crate) fn notifies() -> bool {
    pruned_kinds().any(|k| k.removal_notify.is_some())
}

/// The sh function `record_refused KIND ID`: why a record line is never
/// acted on, printed, when it names a file that is not a normalized
/// absolute path, one beryl writes itself (its record included), or one of
/// the base system ([`crate::freebsd::base::BASE_PATHS`]). The record is
/// root's (0600, in a directory only root writes); this is the second lock.
pub(crate) fn refusals() -> Result<String, QuoteError> {
    let mut own: Vec<&str> = crate::freebsd::names::MANAGED_FILES
        .iter()
        .map(|(p, _)| *p)
        .collect();
    own.push(crate::resource::RECORD);
    let own: Result<Vec<String>, QuoteError> = own.iter().map(|p| word(p)).collect();
    let mut base = Vec::new();
    for (path, _) in crate::freebsd::base::BASE_PATHS {
        base.push(match path.strip_suffix('/') {
            Some(dir) => format!("{}/*", word(dir)?),
            None => word(path)?,
        });
    }
    Ok(format!(
        r#"# record_refused KIND ID: why a record line is never acted on, if it is
# one: a file that is not a normalized absolute path, one beryl writes
# itself, or one of the base system (src/freebsd/base.rs, BASE_PATHS).
record_refused() {{
	[ "$1" = file ] || return 1
	case $2 in
	/*//* | /*/./* | /*/../* | */. | */.. | */ | [!/]*) printf '%s\n' "a path that is not absolute and normalized" ;;
	{own}) printf '%s\n' "a file beryl writes itself" ;;
	{base}) printf '%s\n' "a file of the base system" ;;
	*) return 1 ;;
	esac
}}
"#,
        own = own?.join(" | "),
        base = base.join(" | "),
    ))
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
        let mut names: Vec<&str> = pruned_kinds().map(|k| k.kind).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
        let f = functions();
        for k in pruned_kinds() {
            assert!(f.contains(&format!("\nremove_{}() {{\n", k.kind)), "{f}");
            assert!(crate::resource::pruned(k.kind).is_some());
        }
        assert!(crate::resource::pruned("nope").is_none());
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
