//! The part of a host's documents that its exports read: the `exports` root
//! key, and every root key a reference there reads, and so on. A host that
//! writes exports is merged on that part only when a query needs every
//! host's exports (queries.rs), instead of on its whole config.
//!
//! It is the same value: under beryl's merge, a root key's merged value
//! depends only on what the documents write under that key (no merge rule
//! applies at the root: `Policy::rule_index_for` of the empty path; a
//! knockout or prefix names the key it acts on, so a kept key keeps every
//! root key ending with its name). It is not the same when a reference's path
//! is itself computed (`${a.${b}}`) or does not parse, when a document's root
//! is not a mapping, or under reclass's merge and references: then
//! [`roots_read`] says `None` and the whole config is merged, as before. A
//! property test holds the two equal on generated inventories with classes
//! and queries (tests below).

use std::collections::HashSet;

use crate::refs::Dialect;
use crate::syntax::prefix;
use crate::syntax::root;
use crate::syntax::template::{self, Part};
use crate::value::{Map, Node, Value};

/// The root keys that the subtree at `start` reads, directly or through
/// references, with the merge tables' keys (`merge`, `lookup_options`);
/// `None` when that cannot be known from the documents as written.
pub(super) fn roots_read(docs: &[&Node], start: &str, dialect: Dialect) -> Option<HashSet<String>> {
    let mut roots: HashSet<String> = [root::MERGE, root::LOOKUP_OPTIONS, root::BERYL]
        .into_iter()
        .map(str::to_string)
        .collect();
    let mut done: HashSet<String> = HashSet::new();
    let mut todo = vec![start.to_string()];
    while let Some(key) = todo.pop() {
        if !done.insert(key.clone()) {
            continue;
        }
        for doc in docs {
            let map = match &doc.value {
                Value::Map(m) => m,
                Value::Null => continue,
                _ => return None,
            };
            for (raw, entry) in map {
                if keeps(raw, &key) {
                    references(&entry.node, dialect, &mut |r| {
                        if !done.contains(r) {
                            todo.push(r.to_string());
                        }
                    })?;
                }
            }
        }
        roots.insert(key);
    }
    Some(roots)
}

/// Whether the root key written `raw` may act on the root key `name`: it is
/// `name` under any prefix, or ends with it (a knockout `--name`).
fn keeps(raw: &str, name: &str) -> bool {
    prefix::split(raw).0.ends_with(name)
}

/// Calls `found` with the first key of every reference in `node`'s strings
/// and keys; `None` when a reference's path is computed or does not parse.
fn references(node: &Node, dialect: Dialect, found: &mut impl FnMut(&str)) -> Option<()> {
    let text = |s: &str, found: &mut dyn FnMut(&str)| -> Option<()> {
        if !template::has_reference(s) {
            return Some(());
        }
        let parts = template::parse_in(s, dialect.grammar()).ok()?;
        for part in &parts {
            if let Part::Ref(inner) = part {
                let [Part::Text(path)] = inner.as_slice() else {
                    return None;
                };
                let keys = dialect.keys(path).ok()?;
                found(keys.first()?);
            }
        }
        Some(())
    };
    match &node.value {
        Value::Str(s) => text(s, found),
        Value::Seq(items) => items.iter().try_for_each(|n| references(n, dialect, found)),
        Value::Map(m) => m.iter().try_for_each(|(k, e)| {
            text(k, found)?;
            references(&e.node, dialect, found)
        }),
        _ => Some(()),
    }
}

/// `doc` with only the root keys that may act on one of `roots`.
pub(super) fn only(doc: &Node, roots: &HashSet<String>) -> Node {
    let Value::Map(map) = &doc.value else {
        return doc.clone();
    };
    let kept: Map = map
        .iter()
        .filter(|(raw, _)| roots.iter().any(|r| keeps(raw, r)))
        .map(|(k, e)| (k.clone(), e.clone()))
        .collect();
    Node::new(Value::Map(kept), doc.span.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(text: &str) -> Node {
        crate::yaml::parse(
            &crate::value::Source::new("t.yml", text),
            &Default::default(),
        )
        .unwrap()
    }

    #[test]
    fn the_roots_that_exports_read_through_references() {
        let a = yaml(
            "exports:\n  ip: ${net.ip}\n  d: ${_beryl_.domain}\nnet:\n  ip: ${site.ip}\nsite: {ip: 1}\nbig: {x: 1}\n",
        );
        let b = yaml("~net: {mask: \"${mask}\"}\n--other: 1\nmask: 24\n");
        let roots = roots_read(&[&a, &b], "exports", Dialect::beryl()).unwrap();
        let mut got: Vec<_> = roots.into_iter().collect();
        got.sort();
        assert_eq!(
            got,
            [
                "_beryl_",
                "exports",
                "lookup_options",
                "mask",
                "merge",
                "net",
                "site"
            ]
        );
        let kept = only(&b, &["net".to_string(), "other".to_string()].into());
        let keys: Vec<_> = kept.as_map().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["~net", "--other"]);
    }

    /// The property: for every host of a generated inventory with classes
    /// and queries (seeds 1 to 3, tempdir) and of the fleet fixture, the
    /// exports merged on the roots they read are the exports merged on the
    /// whole config, values, key order and errors alike.
    #[test]
    fn exports_on_the_roots_they_read_equal_exports_on_the_whole_config() {
        let trees = trees();
        let mut compared = 0;
        for (inv, ssh, _keep) in &trees {
            let inventory = crate::inventory::Inventory::discover(inv, "inventory").unwrap();
            let keys = crate::keys::KeyStore::new(ssh, "ssh", 1 << 20);
            let compiler = super::super::Compiler::new(&inventory, &keys, Default::default());
            for host in &inventory.hosts {
                let [part, whole] = compiler.exports_both_ways(host);
                match (part, whole) {
                    (Ok(Some(a)), Ok(Some(b))) => {
                        assert!(a.value.same_ordered(&b.value), "{}", host.fqdn);
                        compared += 1;
                    }
                    (Ok(None), Ok(None)) => {}
                    (a, b) => assert_eq!(
                        format!("{:?}", a.err()),
                        format!("{:?}", b.err()),
                        "{}",
                        host.fqdn
                    ),
                }
            }
        }
        assert!(compared > 20, "only {compared} hosts with exports");
    }

    /// The inventories of the properties: the fleet fixture, and
    /// [`write_inventory`]'s for seeds 1 to 3 (inventory, keys, and the
    /// temporary directory that holds them).
    fn trees() -> Vec<(
        std::path::PathBuf,
        std::path::PathBuf,
        Option<tempfile::TempDir>,
    )> {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fleet");
        let mut trees = vec![(fixture.join("inventory"), fixture.join("ssh"), None)];
        for seed in 1..=3 {
            let dir = tempfile::tempdir().unwrap();
            write_inventory(dir.path(), seed);
            trees.push((
                dir.path().join("inventory"),
                dir.path().join("ssh"),
                Some(dir),
            ));
        }
        trees
    }

    /// A small inventory whose exports read other roots through chains of
    /// references, with knockouts, prefixes and merge tables around them.
    fn write_inventory(dir: &std::path::Path, seed: u64) {
        let inv = dir.join("inventory");
        let write = |rel: &str, text: String| {
            let p = inv.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        std::fs::create_dir_all(dir.join("ssh")).unwrap();
        write(
            "_default.yml",
            "merge:\n  net.aliases: append\nnet: {aliases: [a], mask: 24}\nsite: {dc: \"${net.dc}\"}\nbig: {x: [1, 2]}\n".into(),
        );
        write(
            "_classes/role.yml",
            "exports:\n  ip: ${net.ip}\n  dc: ${site.dc}\n  aliases: ${net.aliases}\n".into(),
        );
        for d in 0..2 {
            let domain = format!("d{d}.example.org");
            write(
                &format!("{domain}/_domain.yml"),
                format!("ssh_keys: [ops]\nnet: {{dc: dc{d}, aliases: [--a, b{seed}]}}\n"),
            );
            for g in 0..3 {
                let group = format!("{domain}/g{g}");
                let extra = match (g + seed) % 3 {
                    0 => "~net: {ip: 0.0.0.0, dc: over}\n",
                    1 => "=site: {dc: fixed}\n",
                    _ => "exports: {group: \"${_beryl_.group}\", mask: \"${net.mask}\"}\n",
                };
                write(
                    &format!("{group}/_group.yml"),
                    format!("classes: [role]\n{extra}"),
                );
                for h in 0..3 {
                    let ip = format!("10.{d}.{g}.{h}");
                    let own = if (h + seed).is_multiple_of(2) {
                        "big: {x: [3]}\n"
                    } else {
                        "site: {rack: r1}\n"
                    };
                    // Host files with exports of their own, read through
                    // chains of roots, and multi-line entries around them.
                    let more = match (h + g + seed) % 4 {
                        0 => "",
                        1 => {
                            "exports:\n  rack: \"${where.rack}\"\nwhere:\n  rack: \"${loc.rack}\" # via loc\nloc: {rack: r9}\n"
                        }
                        2 => "# a comment\nmotd: \"a\n  b: c\"\nlist:\n  - [x,\n    y]\n",
                        _ => {
                            "exports: {chain: \"${c1.v}\"}\nc1: {v: \"${c2.v}\"}\nc2: {v: \"${c3.v}\"}\nc3: {v: \"${c4.v}\"}\nc4: {v: \"${c5.v}\"}\nc5: {v: end}\n"
                        }
                    };
                    write(
                        &format!("{group}/h{d}{g}{h}.yml"),
                        format!("net: {{ip: {ip}, aliases: [c]}}\n{own}{more}"),
                    );
                }
            }
        }
    }

    #[test]
    fn a_computed_path_or_a_root_that_is_no_mapping_means_the_whole_config() {
        let a = yaml("exports:\n  ip: ${net.${which}}\n");
        assert!(roots_read(&[&a], "exports", Dialect::beryl()).is_none());
        let b = Node::synthetic(Value::Seq(Vec::new()));
        let c = yaml("exports: {a: 1}\n");
        assert!(roots_read(&[&c, &b], "exports", Dialect::beryl()).is_none());
        let d = yaml("exports: {a: \"${x\"}\n");
        assert!(roots_read(&[&d], "exports", Dialect::beryl()).is_none());
    }
}
