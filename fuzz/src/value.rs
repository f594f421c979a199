//! Trees built from fuzz input with `arbitrary`: keys and strings mostly from
//! small alphabets (so that levels collide, prefixes, markers and references
//! meet), sometimes arbitrary text.

use std::sync::Arc;

use arbitrary::{Arbitrary, Result, Unstructured};
use beryl::value::{Entry, Map, Node, Source, Span, Value};

/// The deepest tree built: the loader's own default limit.
pub const MAX_DEPTH: usize = 64;

const KEYS: &[&str] = &[
    "a", "b", "k", "name", "id", "~a", "=a", "~k", "=b", "\\~a", "\\=a", "merge", "~merge",
    "freebsd", "packages", "users", "ssh_keys", "_beryl_", "x.y", "*", "",
];

const STRINGS: &[&str] = &[
    "a",
    "b",
    "x",
    "u1",
    "u2",
    "--a",
    "--u1",
    "--",
    "",
    "${a}",
    "${k}",
    "${a.b}",
    "${k.0}",
    "${k.u1}",
    "x${a}y",
    "\\${a}",
    "\\\\${a}",
    "${",
    "}",
    "${${b}}",
    "${_beryl_.fqdn}",
    "${k.${b}}",
    "${\"x.y\"}",
    "${a.*}",
    "${..}",
    "~",
    "=",
];

/// A key: from [`KEYS`], or any text.
pub fn key(u: &mut Unstructured) -> Result<String> {
    if u.ratio(7, 8)? {
        Ok(u.choose(KEYS)?.to_string())
    } else {
        String::arbitrary(u)
    }
}

/// A string: from [`STRINGS`], built from their pieces, or any text.
pub fn string(u: &mut Unstructured) -> Result<String> {
    match u.int_in_range(0..=7)? {
        0..=4 => Ok(u.choose(STRINGS)?.to_string()),
        5 | 6 => {
            let mut s = String::new();
            for _ in 0..u.int_in_range(1..=6)? {
                s.push_str(u.choose(STRINGS)?);
            }
            Ok(s)
        }
        _ => String::arbitrary(u),
    }
}

/// Where the built nodes say they were written: one source per document,
/// each node at a place of its own (constants are checked by place) inside
/// its text (diagnostics show a snippet of it).
pub struct Places {
    source: Arc<Source>,
    next: usize,
}

/// The length of a built document's text: its nodes' offsets wrap around it.
const TEXT: usize = 4096;

impl Places {
    pub fn new(name: &str) -> Self {
        let line = format!("{}\n", "x".repeat(63));
        Self {
            source: Source::new(name, line.repeat(TEXT / 64)),
            next: 0,
        }
    }

    pub fn span(&mut self) -> Span {
        self.next += 1;
        let offset = self.next % TEXT;
        Span {
            source: Some(self.source.clone()),
            offset,
            len: 1,
            line: u32::try_from(offset / 64 + 1).unwrap_or(u32::MAX),
            col: u32::try_from(offset % 64 + 1).unwrap_or(u32::MAX),
        }
    }
}

/// A value: scalars of every type, lists, mappings, up to `depth` deep.
pub fn value(u: &mut Unstructured, at: &mut Places, depth: usize) -> Result<Node> {
    let span = at.span();
    let choice = if depth == 0 {
        u.int_in_range(0..=4)?
    } else {
        u.int_in_range(0..=6)?
    };
    let v = match choice {
        0 => Value::Null,
        1 => Value::Bool(bool::arbitrary(u)?),
        2 => Value::Int(i64::from(i8::arbitrary(u)?)),
        3 => {
            let f = f64::arbitrary(u)?;
            if f.is_finite() {
                Value::Float(f)
            } else {
                Value::Float(0.5)
            }
        }
        4 => Value::Str(string(u)?),
        5 => {
            let mut items = Vec::new();
            while items.len() < 8 && u.arbitrary()? {
                items.push(value(u, at, depth - 1)?);
            }
            Value::Seq(items)
        }
        _ => Value::Map(map(u, at, depth - 1)?),
    };
    Ok(Node::new(v, span))
}

/// A mapping of up to 8 keys (a key already present is skipped: the loader
/// refuses duplicates).
pub fn map(u: &mut Unstructured, at: &mut Places, depth: usize) -> Result<Map> {
    let mut m = Map::new();
    while m.len() < 8 && u.arbitrary()? {
        let k = key(u)?;
        let key_span = at.span();
        let node = value(u, at, depth)?;
        m.entry(k).or_insert(Entry { key_span, node });
    }
    Ok(m)
}
