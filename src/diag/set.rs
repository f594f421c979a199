//! The diagnostics of a run over several hosts, ready to report: each one
//! once, with every host it was found on; those that follow from another
//! marked as its consequences; sorted by place.
//!
//! Entry point: [`Set::new`]. Every output format of `beryl check` (text,
//! JSON, GitHub annotations) reads the same set, so they agree on what is
//! reported and in which order.

use std::collections::HashMap;

use super::{Diag, Severity};

/// One reported diagnostic.
#[derive(Clone, Debug)]
pub(crate) struct Item {
    /// The diagnostic, its `hosts` merged from every host that found it.
    pub diag: Diag,
    /// The index of the item it follows from, when that one is reported too.
    pub consequence_of: Option<usize>,
}

/// The grouped, sorted diagnostics.
#[derive(Clone, Debug, Default)]
pub(crate) struct Set {
    pub items: Vec<Item>,
}

impl Set {
    /// Groups `diags`: identical ones (same [`Diag::dedup_key`]) become one,
    /// whose hosts are the union of theirs, in the order found. Then sorts
    /// by file, line, column, code and message (diagnostics without a place
    /// first), and marks each diagnostic whose cause is in the set.
    pub(crate) fn new(diags: impl IntoIterator<Item = Diag>) -> Self {
        let mut at: HashMap<String, usize> = HashMap::new();
        let mut grouped: Vec<Diag> = Vec::new();
        for d in diags {
            match at.get(&d.dedup_key()) {
                Some(&i) => {
                    for h in d.hosts() {
                        grouped[i].found_on(h);
                    }
                }
                None => {
                    at.insert(d.dedup_key(), grouped.len());
                    grouped.push(d);
                }
            }
        }
        grouped.sort_by_cached_key(order);
        let index: HashMap<String, usize> = grouped
            .iter()
            .enumerate()
            .map(|(i, d)| (d.dedup_key(), i))
            .collect();
        let items = grouped
            .into_iter()
            .enumerate()
            .map(|(i, diag)| {
                let consequence_of = diag
                    .cause()
                    .and_then(|k| index.get(k).copied())
                    .filter(|&c| c != i);
                Item {
                    diag,
                    consequence_of,
                }
            })
            .collect();
        Set { items }
    }

    /// Makes every warning an error (`--deny-warnings`).
    pub(crate) fn deny_warnings(&mut self) {
        for item in &mut self.items {
            item.diag.severity = Severity::Error;
        }
    }

    /// Errors that follow from no other reported one.
    pub(crate) fn errors(&self) -> usize {
        self.count(|i| i.diag.is_error() && i.consequence_of.is_none())
    }

    /// Errors that follow from another reported one.
    pub(crate) fn consequences(&self) -> usize {
        self.count(|i| i.consequence_of.is_some())
    }

    pub(crate) fn warnings(&self) -> usize {
        self.count(|i| !i.diag.is_error())
    }

    /// Whether some diagnostic is an error.
    pub(crate) fn failed(&self) -> bool {
        self.items.iter().any(|i| i.diag.is_error())
    }

    fn count(&self, f: impl Fn(&Item) -> bool) -> usize {
        self.items.iter().filter(|i| f(i)).count()
    }

    /// The items that follow from item `i`.
    pub(crate) fn consequences_of(&self, i: usize) -> impl Iterator<Item = &Item> {
        self.items
            .iter()
            .filter(move |c| c.consequence_of == Some(i))
    }
}

/// The sort key: file, line, column, code, then message.
fn order(d: &Diag) -> (Option<String>, u32, u32, &'static str, String) {
    let (file, line, col) = match d.span() {
        Some(s) => (s.file_name().map(str::to_string), s.line, s.col),
        None => (None, 0, 0),
    };
    (file, line, col, d.code, d.message.clone())
}

/// `n` and a noun, with the noun's plural when `n` is not 1.
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Hosts for a sentence: all of them up to `shown`, then how many more.
pub(crate) fn hosts_list(hosts: &[String], shown: usize) -> String {
    let mut text = hosts
        .iter()
        .take(shown)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if hosts.len() > shown {
        text.push_str(&format!(" and {} more", hosts.len() - shown));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{TestCode, TestWarning};
    use crate::value::{Source, Span};

    fn at(source: &std::sync::Arc<Source>, line: u32, col: u32) -> Span {
        Span {
            source: Some(source.clone()),
            offset: (line * 10 + col) as usize,
            len: 1,
            line,
            col,
        }
    }

    fn on(mut d: Diag, host: &str) -> Diag {
        d.found_on(host);
        d
    }

    #[test]
    fn grouped_by_place_with_their_hosts_sorted_and_consequences_marked() {
        let a = Source::new("a.yml", "x".repeat(100));
        let b = Source::new("b.yml", "x".repeat(100));
        let shared = Diag::new(TestCode("beryl::x"), "bad").label(&at(&b, 2, 1), "here");
        let query = Diag::new(TestCode("beryl::q"), "the query fails")
            .label(&at(&a, 5, 3), "here")
            .because(&shared);
        let set = Set::new([
            on(query.clone(), "h2"),
            on(shared.clone(), "h1"),
            on(
                Diag::warning(TestWarning("beryl::w"), "hm").label(&at(&a, 5, 3), "w"),
                "h1",
            ),
            on(shared.clone(), "h2"),
            on(shared, "h1"),
            on(Diag::new(TestCode("beryl::y"), "no place"), "h3"),
            on(
                Diag::new(TestCode("beryl::z"), "item a.3").label(&at(&a, 1, 1), "z"),
                "h1",
            ),
            on(
                Diag::new(TestCode("beryl::z"), "item a.2").label(&at(&a, 1, 1), "z"),
                "h2",
            ),
        ]);
        let seen: Vec<(&str, Vec<&str>, Option<usize>)> = set
            .items
            .iter()
            .map(|i| {
                (
                    i.diag.code,
                    i.diag.hosts().iter().map(String::as_str).collect(),
                    i.consequence_of,
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("beryl::y", vec!["h3"], None),
                ("beryl::z", vec!["h1", "h2"], None),
                ("beryl::q", vec!["h2"], Some(4)),
                ("beryl::w", vec!["h1"], None),
                ("beryl::x", vec!["h1", "h2"], None),
            ]
        );
        assert_eq!(
            (set.errors(), set.consequences(), set.warnings()),
            (3, 1, 1)
        );
        assert_eq!(set.consequences_of(4).count(), 1);
    }

    #[test]
    fn lists_and_plurals() {
        let hosts: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        assert_eq!(hosts_list(&hosts, 5), "a, b, c");
        assert_eq!(hosts_list(&hosts, 2), "a, b and 1 more");
        assert_eq!(plural(1, "host", "hosts"), "1 host");
        assert_eq!(plural(0, "host", "hosts"), "0 hosts");
    }
}
