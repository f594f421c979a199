//! The parser-side tree: what serde-saphyr hands over, before keys are checked
//! and spans are tied to their source.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

pub(super) enum Raw {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer outside the 64-bit range, kept as text for the error.
    BigInt(String),
    Float(f64),
    Str(String),
    Seq(Vec<Spanned<Raw>>),
    Map(Vec<(Spanned<Raw>, Spanned<Raw>)>),
}

thread_local! {
    /// The list cap of the parse running on this thread (serde's visitors
    /// take no arguments, so it is passed this way; see [`with_list_cap`]).
    static LIST_CAP: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// Runs a parse with lists capped at `max` items, so that a list too long is
/// refused as soon as its item `max + 1` is read, not once it is all in memory.
pub(super) fn with_list_cap<T>(max: usize, parse: impl FnOnce() -> T) -> T {
    let before = LIST_CAP.with(|c| c.replace(max));
    let out = parse();
    LIST_CAP.with(|c| c.set(before));
    out
}

/// What the visitor says when a list is too long; found again in the
/// parser's message by [`list_cap_breach`].
const LIST_CAP_MARK: &str = "beryl list cap";

/// The limit breach in a parser message produced by the list cap.
pub(super) fn list_cap_breach(
    message: &str,
    limits: &crate::limits::Limits,
) -> Option<(crate::limits::Limit, String)> {
    message.contains(LIST_CAP_MARK).then(|| {
        (
            crate::limits::Limit::ListItems,
            format!("a list holds more than {} items", limits.max_list_items),
        )
    })
}

impl Raw {
    pub(super) fn type_name(&self) -> &'static str {
        match self {
            Raw::Null => "null",
            Raw::Bool(_) => "a boolean",
            Raw::Int(_) | Raw::BigInt(_) => "an integer",
            Raw::Float(_) => "a float",
            Raw::Str(_) => "a string",
            Raw::Seq(_) => "a list",
            Raw::Map(_) => "a mapping",
        }
    }
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(RawVisitor)
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = Raw;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Raw, E> {
        Ok(Raw::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Raw, E> {
        Ok(Raw::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Raw, D::Error> {
        Raw::deserialize(d)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Raw, E> {
        Ok(Raw::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Raw, E> {
        Ok(Raw::Int(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Raw, E> {
        Ok(i64::try_from(v).map_or_else(|_| Raw::BigInt(v.to_string()), Raw::Int))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Raw, E> {
        Ok(i64::try_from(v).map_or_else(|_| Raw::BigInt(v.to_string()), Raw::Int))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Raw, E> {
        Ok(i64::try_from(v).map_or_else(|_| Raw::BigInt(v.to_string()), Raw::Int))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Raw, E> {
        Ok(Raw::Float(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Raw, E> {
        Ok(Raw::Str(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Raw, E> {
        Ok(Raw::Str(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Raw, A::Error> {
        let cap = LIST_CAP.with(Cell::get);
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(item) = seq.next_element::<Spanned<Raw>>()? {
            if items.len() == cap {
                return Err(de::Error::invalid_length(
                    cap + 1,
                    &format!("at most {cap} items ({LIST_CAP_MARK})").as_str(),
                ));
            }
            items.push(item);
        }
        Ok(Raw::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
        let mut pairs = Vec::with_capacity(map.size_hint().unwrap_or(0).min(1024));
        while let Some(key) = map.next_key::<Spanned<Raw>>()? {
            let value = map.next_value::<Spanned<Raw>>()?;
            pairs.push((key, value));
        }
        Ok(Raw::Map(pairs))
    }
}
