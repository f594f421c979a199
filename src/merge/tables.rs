//! A level's merge table, as written: beryl's `merge:` and Hiera's
//! `lookup_options:`, read into the rows of one table.
//!
//! Both are the same thing in two spellings (docs/merge.md §1): a mapping of
//! pattern to spec. `lookup_options` keys are Hiera's root keys or `^regex`
//! patterns, read as beryl patterns (so a dotted key is a path), and its
//! values Hiera's specs (`{merge: deep}`, `{merge: {strategy: deep, …}}`).
//! A level's rows are its `merge:` rows, then its `lookup_options` rows; one
//! pattern given a spec by both in one level is an error naming both.

use super::policy::{self, Rule};
use super::{Code, Policy};
use crate::diag::{Diag, Diags};
use crate::syntax::root::{LOOKUP_OPTIONS, MERGE};
use crate::value::{Node, Value};

/// Hiera's lookup option that beryl does not have.
const CONVERT_TO: &str = "convert_to";

/// The rows of one document's tables (`policy` tells which root keys hold
/// one: none in reclass's dialect), and the warnings about them. Every bad
/// row, and every pattern set by both tables, is reported.
pub(crate) fn level_rules(doc: &Node, policy: &Policy) -> Result<(Vec<Rule>, Diags), Diags> {
    let keys = policy.table_keys();
    let mut errors = Vec::new();
    for (raw, entry) in doc.as_map().into_iter().flatten() {
        let name = crate::syntax::prefix::split(raw).0;
        if raw != name && keys.contains(&name) {
            errors.push(
                Diag::new(
                    Code::TablePrefix,
                    format!("`{raw}`: the merge table takes no `~` or `=` prefix"),
                )
                .label(&entry.key_span, format!("write `{name}:`"))
                .help("a level's table is always layered onto the lower ones; to change a rule, give its pattern a new spec"),
            );
        }
    }
    let mut tables: Vec<(&str, Vec<Rule>)> = Vec::new();
    let mut warnings = Vec::new();
    for key in keys {
        let Some(mut table) = doc.get(key) else {
            continue;
        };
        let hiera;
        if *key == LOOKUP_OPTIONS {
            errors.extend(convert_to(table));
            let (specs, ignored) = merge_only(table);
            hiera = specs;
            table = &hiera;
            warnings.extend(ignored);
        }
        match policy::parse_table(key, table) {
            Ok(rules) => tables.push((key, rules)),
            Err(e) => errors.extend(e),
        }
    }
    if let [(_, merge), (_, options)] = &tables[..] {
        errors.extend(conflicts(merge, options));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let rules = tables.into_iter().flat_map(|(_, rules)| rules).collect();
    Ok((rules, warnings))
}

/// `lookup_options` as Hiera reads it: of an entry's options, only `merge`
/// (a sibling such as `knockout_prefix` next to `merge: deep` is ignored by
/// Puppet, so it is here, with a warning). Entries without `merge` are left
/// for the spec parser to judge.
fn merge_only(table: &Node) -> (Node, Diags) {
    let Value::Map(map) = &table.value else {
        return (table.clone(), Vec::new());
    };
    let mut out = map.clone();
    let mut warnings = Vec::new();
    for entry in out.values_mut() {
        let Some(options) = entry.node.as_map() else {
            continue;
        };
        let Some(merge) = options.get(MERGE) else {
            continue;
        };
        for (name, ignored) in options
            .iter()
            .filter(|(k, _)| *k != MERGE && *k != CONVERT_TO)
        {
            warnings.push(
                Diag::warning(
                    Code::LookupOptionIgnored,
                    format!("`{name}` beside `merge` is ignored, as Hiera ignores it"),
                )
                .label(&ignored.key_span, "ignored")
                .help(format!(
                    "Hiera reads only `merge`; to set it, write it inside: `merge: {{strategy: deep, {name}: …}}`"
                )),
            );
        }
        entry.node = merge.node.clone();
    }
    (Node::new(Value::Map(out), table.span.clone()), warnings)
}

/// The patterns that both `merge:` and `lookup_options:` of one level set.
fn conflicts(merge: &[Rule], options: &[Rule]) -> Diags {
    let mut out = Vec::new();
    for option in options {
        let canonical = option.pattern.canonical();
        if let Some(rule) = merge.iter().find(|r| r.pattern.canonical() == canonical) {
            out.push(
                Diag::new(
                    Code::TableConflict,
                    format!(
                        "`{canonical}` is given a merge spec by both `{MERGE}:` and `{LOOKUP_OPTIONS}:` of one level"
                    ),
                )
                .label(&rule.key_span, format!("in `{MERGE}:`"))
                .label(&option.key_span, format!("and in `{LOOKUP_OPTIONS}:`"))
                .help("both are the level's merge table: give the pattern one spec, in either"),
            );
        }
    }
    out
}

/// Hiera's `convert_to`, which beryl refuses rather than ignores.
fn convert_to(table: &Node) -> Diags {
    let Value::Map(map) = &table.value else {
        return Vec::new();
    };
    map.values()
        .filter_map(|e| e.node.as_map()?.get(CONVERT_TO))
        .map(|e| {
            Diag::new(
                Code::UnknownOption,
                format!("`{LOOKUP_OPTIONS}`: beryl has no `{CONVERT_TO}`"),
            )
            .label(&e.key_span, "not supported")
            .help("a lookup option here is a merge spec only: `{merge: deep}`")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::Strategy;
    use crate::value::Source;

    fn rules(text: &str) -> Result<Vec<(String, Strategy)>, Vec<String>> {
        let node =
            crate::yaml::parse_any(&Source::new("l.yml", text), &Default::default()).unwrap();
        level_rules(&node, &Policy::beryl())
            .map(|(rs, _)| {
                rs.iter()
                    .map(|r| (r.pattern.canonical(), r.spec.kind))
                    .collect()
            })
            .map_err(|ds| ds.iter().map(|d| d.code.to_string()).collect())
    }

    #[test]
    fn both_tables_are_rows_merge_first() {
        let got = rules(
            "lookup_options:\n  a: {merge: deep}\n  '^b': {merge: {strategy: hash}}\nmerge:\n  c: unique\n",
        )
        .unwrap();
        assert_eq!(
            got,
            [
                ("c".to_string(), Strategy::Unique),
                ("a".to_string(), Strategy::Deep),
                ("^b".to_string(), Strategy::Hash),
            ]
        );
    }

    #[test]
    fn one_pattern_in_both_tables_is_an_error() {
        assert_eq!(
            rules("merge:\n  a: deep\nlookup_options:\n  '\"a\"': {merge: first}\n").unwrap_err(),
            ["beryl::merge::table_conflict"]
        );
        // Different patterns do not conflict.
        assert!(rules("merge:\n  a: deep\nlookup_options:\n  b: {merge: first}\n").is_ok());
    }

    #[test]
    fn bad_rows_and_prefixes_are_reported() {
        assert_eq!(
            rules("lookup_options:\n  a: {merge: deep, convert_to: Array}\n").unwrap_err(),
            ["beryl::merge::unknown_option"]
        );
        assert_eq!(
            rules("~lookup_options: {a: {merge: deep}}\n").unwrap_err(),
            ["beryl::merge::table_prefix"]
        );
        assert_eq!(
            rules("lookup_options: [a]\n").unwrap_err(),
            ["beryl::merge::table"]
        );
    }

    /// Puppet 7.23 reads only `merge` of a lookup option: `knockout_prefix`
    /// beside `merge: deep` (as the mergwyn control repository writes it)
    /// does nothing there (docs/lookup.md).
    #[test]
    fn hiera_reads_only_merge_of_a_lookup_option() {
        let node = crate::yaml::parse_any(
            &Source::new(
                "l.yml",
                "lookup_options:\n  a: {merge: deep, knockout_prefix: '--'}\n",
            ),
            &Default::default(),
        )
        .unwrap();
        let (read, warnings) = level_rules(&node, &Policy::beryl()).unwrap();
        assert_eq!(read[0].spec.kind, Strategy::Deep);
        assert_eq!(read[0].spec.knockout_prefix, None);
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].code, "beryl::merge::lookup_option_ignored");
        // beryl's own table stays strict.
        assert_eq!(
            rules("merge:\n  a: {merge: deep, knockout_prefix: '--'}\n").unwrap_err(),
            ["beryl::merge::spec"]
        );
    }

    #[test]
    fn reclass_has_no_tables() {
        let policy = Policy::beryl().with_dialect(crate::merge::Dialect {
            merge_key_is_data: true,
            ..Default::default()
        });
        let node = crate::yaml::parse_any(
            &Source::new("l.yml", "lookup_options: {a: 1}\nmerge: 2\n"),
            &Default::default(),
        )
        .unwrap();
        assert!(level_rules(&node, &policy).unwrap().0.is_empty());
    }
}
