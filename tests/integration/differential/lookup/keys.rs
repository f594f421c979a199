//! The keys looked up and the variants of each lookup.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use beryl::value::Source;
use serde_json::Value as J;

use super::mapping::CLASSES_AS;
use super::{DEFAULT, Lookup};

pub fn parse(data: &Path, file: &str) -> J {
    let text = std::fs::read_to_string(data.join(file)).unwrap();
    let node = beryl::yaml::parse_any(&Source::new(file, text), &Default::default())
        .unwrap_or_else(|e| panic!("{file}: {e:?}"));
    serde_json::to_value(&node).expect("serialise")
}

/// A key: its root and the segments below it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    pub root: String,
    pub path: Vec<String>,
}

impl Key {
    /// Puppet's and beryl's spelling: segments joined by `.`, a segment
    /// holding `.` or `*`, or starting with `^`, double-quoted (both
    /// syntaxes read that the same way).
    fn spelled(&self, root: &str) -> String {
        let mut s = root.to_string();
        for seg in &self.path {
            if seg.contains(['.', '*']) || seg.starts_with('^') {
                let _ = write!(s, ".\"{seg}\"");
            } else {
                let _ = write!(s, ".{seg}");
            }
        }
        s
    }
}

/// A segment both syntaxes read as the same mapping key: no quotes or
/// backslashes, no space at either end (Puppet strips it), not empty, not an
/// integer (Puppet indexes a list with it).
fn plain_segment(s: &str) -> bool {
    !s.is_empty()
        && !s.contains(['"', '\'', '\\'])
        && s.trim() == s
        && s.trim_start_matches(['+', '-']).parse::<u64>().is_err()
}

pub fn keys(parsed: &BTreeMap<String, J>) -> Vec<Key> {
    fn walk(root: &str, path: &[String], v: &J, out: &mut Vec<Key>) {
        let J::Object(m) = v else { return };
        if path.len() == 3 {
            return;
        }
        for (k, x) in m.iter().filter(|(k, _)| plain_segment(k)) {
            let mut p = path.to_vec();
            p.push(k.clone());
            out.push(Key {
                root: root.to_string(),
                path: p.clone(),
            });
            walk(root, &p, x, out);
        }
    }
    let mut out = Vec::new();
    for doc in parsed.values() {
        for (root, v) in doc.as_object().into_iter().flatten() {
            if root == "lookup_options" {
                continue;
            }
            out.push(Key {
                root: root.clone(),
                path: Vec::new(),
            });
            walk(root, &[], v, &mut out);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The lookups of one key for one node, whose chain holds `levels`.
/// The root key in beryl's copy (mapping.rs renames `classes`).
pub fn beryl_root(root: &str) -> &str {
    if root == "classes" { CLASSES_AS } else { root }
}

pub fn plan(key: &Key, levels: &[&J]) -> Vec<Lookup> {
    let values: Vec<&J> = levels.iter().filter_map(|l| l.get(&key.root)).collect();
    let base = Lookup {
        variant: "first",
        dotted: !key.path.is_empty(),
        puppet_key: key.spelled(&key.root),
        beryl_key: key.spelled(beryl_root(&key.root)),
        merge: None,
        knockout_prefix: None,
        default: None,
        sort: false,
        values_hash: false,
        render_as: "json".into(),
    };
    let with = |variant, set: &dyn Fn(&mut Lookup)| {
        let mut l = Lookup {
            variant,
            ..base.clone()
        };
        set(&mut l);
        l
    };
    let deep = |l: &mut Lookup| l.merge = Some("deep".into());
    let mut out = vec![
        base.clone(),
        with("--default", &|l| l.default = Some(DEFAULT.into())),
    ];
    if key.path.is_empty() {
        // Puppet reads the values hash by the whole key, beryl by the root
        // key: the same for a root key.
        out.push(with("--default-values-hash", &|l| l.values_hash = true));
    }
    if values.is_empty() {
        return out;
    }
    out.push(with("deep", &deep));
    out.push(with("deep, knockout --", &|l| {
        deep(l);
        l.knockout_prefix = Some("--".into());
    }));
    out.push(with("deep, sort merged arrays", &|l| {
        deep(l);
        l.sort = true;
    }));
    if !values.iter().any(|v| v.is_object()) {
        out.push(with("unique", &|l| l.merge = Some("unique".into())));
    }
    if values.iter().all(|v| v.is_object()) {
        out.push(with("hash", &|l| l.merge = Some("hash".into())));
    }
    if key.path.is_empty() && values.iter().all(|v| !v.is_object() && !v.is_array()) {
        out.push(with("first, --render-as s", &|l| l.render_as = "s".into()));
    }
    out
}
