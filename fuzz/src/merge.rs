//! `merge`: arbitrary document sequences under arbitrary specs.
//!
//! One to four levels (mappings, or now and then any root, as `beryl merge`
//! takes), each maybe with a `merge:` table of arbitrary patterns (regexes
//! included) and specs (valid or not); the built-in Beryl rules or none; a
//! strategy at the root or none. [`beryl::merge::merge_documents`], then
//! [`beryl::refs::resolve`] (which finishes the deferred merges). Errors must
//! render; a result must write back and read back the same.

use arbitrary::{Result, Unstructured};
use beryl::merge::{Policy, Spec, Strategy, merge_documents};
use beryl::value::{Entry, Map, Node, Span, Value};

use super::common::{report, round_trip};
use super::value::{self, Places};

const PATTERNS: &[&str] = &[
    "k",
    "a",
    "a.b",
    "*",
    "k.*",
    "*.a",
    "k.u1",
    "k.u1.a",
    "^a",
    "^k\\.",
    "^.*$",
    "^(",
    "a..b",
    "\"x.y\"",
    "a.\"*\"",
    "freebsd.packages",
    "freebsd.users",
    "freebsd.users.*.ssh_keys",
    "",
];

const STRATEGIES: &[&str] = &[
    "default", "first", "replace", "unique", "hash", "deep", "append", "concat", "by_key", "patch",
    "bogus",
];

const OPTIONS: &[&str] = &[
    "knockout_prefix",
    "merge_hash_arrays",
    "sort_merged_arrays",
    "key",
    "bogus",
];

pub fn run(data: &[u8]) {
    let _ = one(&mut Unstructured::new(data));
}

fn one(u: &mut Unstructured) -> Result<()> {
    let mut docs = Vec::new();
    for i in 0..u.int_in_range(1..=4)? {
        let mut at = Places::new(&format!("level{i}.yml"));
        let span = at.span();
        let depth = u.int_in_range(0..=6)?;
        let doc = if u.ratio(1, 8)? {
            value::value(u, &mut at, depth)?
        } else {
            let mut m = value::map(u, &mut at, depth)?;
            if u.ratio(1, 3)? {
                let key_span = at.span();
                let node = table(u, &mut at)?;
                m.insert("merge".into(), Entry { key_span, node });
            }
            Node::new(Value::Map(m), span)
        };
        docs.push(doc);
    }
    let base = if u.arbitrary()? {
        Policy::beryl()
    } else {
        Policy::default()
    };
    let root = if u.ratio(1, 2)? {
        Some(root_spec(u)?)
    } else {
        None
    };
    let refs: Vec<&Node> = docs.iter().collect();
    match merge_documents(&refs, &base, root.as_ref()) {
        Ok(mut merged) => match beryl::refs::resolve(&mut merged, &Default::default()) {
            Ok(_) => round_trip(&merged.node),
            Err(d) => report(&d),
        },
        Err(d) => report(&d),
    }
    Ok(())
}

/// A `merge:` table as a level writes it.
fn table(u: &mut Unstructured, at: &mut Places) -> Result<Node> {
    let span = at.span();
    if u.ratio(1, 10)? {
        return value::value(u, at, 1);
    }
    let mut m = Map::new();
    for _ in 0..u.int_in_range(0..=4)? {
        let pattern = if u.ratio(7, 8)? {
            u.choose(PATTERNS)?.to_string()
        } else {
            value::string(u)?
        };
        let key_span = at.span();
        let node = spec_node(u, at)?;
        m.entry(pattern).or_insert(Entry { key_span, node });
    }
    Ok(Node::new(Value::Map(m), span))
}

/// A spec as written: a name, `{merge: …}`, or `{strategy: …, options}`.
fn spec_node(u: &mut Unstructured, at: &mut Places) -> Result<Node> {
    let span = at.span();
    let name = |u: &mut Unstructured| -> Result<Value> {
        Ok(Value::Str(u.choose(STRATEGIES)?.to_string()))
    };
    let v = match u.int_in_range(0..=4)? {
        0 | 1 => name(u)?,
        2 => {
            let mut m = Map::new();
            let key_span = at.span();
            let node = spec_node(u, at)?;
            m.insert("merge".into(), Entry { key_span, node });
            Value::Map(m)
        }
        3 => return value::value(u, at, 1),
        _ => {
            let mut m = Map::new();
            if u.ratio(7, 8)? {
                let node = Node::new(name(u)?, at.span());
                m.insert(
                    "strategy".into(),
                    Entry {
                        key_span: at.span(),
                        node,
                    },
                );
            }
            for _ in 0..u.int_in_range(0..=3)? {
                let option = u.choose(OPTIONS)?.to_string();
                let node = option_value(u, at)?;
                m.entry(option).or_insert(Entry {
                    key_span: at.span(),
                    node,
                });
            }
            Value::Map(m)
        }
    };
    Ok(Node::new(v, span))
}

fn option_value(u: &mut Unstructured, at: &mut Places) -> Result<Node> {
    let v = match u.int_in_range(0..=4)? {
        0 => Value::Bool(u.arbitrary()?),
        1 => Value::Null,
        2 => Value::Str(u.choose(&["--", "##", "", "name", "id", "~"])?.to_string()),
        3 => Value::Str(value::string(u)?),
        _ => return value::value(u, at, 1),
    };
    Ok(Node::new(v, at.span()))
}

/// A strategy given on the command line, options set as `beryl merge` sets
/// them (refused options are dropped, as the command would refuse them).
fn root_spec(u: &mut Unstructured) -> Result<Spec> {
    let kind = Strategy::from_name(u.choose(STRATEGIES)?).unwrap_or(Strategy::Default);
    let mut spec = Spec::of(kind);
    for _ in 0..u.int_in_range(0..=3)? {
        let option = u.choose(OPTIONS)?;
        let mut at = Places::new("cli");
        let value = option_value(u, &mut at)?;
        let _ = spec.set(option, &Span::synthetic(), &value);
    }
    Ok(spec)
}
