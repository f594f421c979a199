//! Key prefixes (reclass): `~key` replaces what was merged so far, `=key` is a
//! constant, `\~` and `\=` escape a literal first character. This is the
//! grammar only; src/merge/prefixes.rs gives the prefixes their meaning.

use crate::value::{Entry, Map};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Prefix {
    Plain,
    Override,
    Constant,
}

/// Splits a written key into its name and prefix.
pub(crate) fn split(raw: &str) -> (&str, Prefix) {
    if let Some(rest) = raw.strip_prefix('~') {
        (rest, Prefix::Override)
    } else if let Some(rest) = raw.strip_prefix('=') {
        (rest, Prefix::Constant)
    } else if raw.starts_with("\\~") || raw.starts_with("\\=") {
        (&raw[1..], Prefix::Plain)
    } else {
        (raw, Prefix::Plain)
    }
}

/// The entry of a mapping for `name`, however it is written (`name`, `~name`,
/// `=name`).
pub(crate) fn get<'a>(map: &'a Map, name: &str) -> Option<&'a Entry> {
    map.iter()
        .find(|(raw, _)| split(raw).0 == name)
        .map(|(_, e)| e)
}
