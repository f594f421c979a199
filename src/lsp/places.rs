//! Definitions that are places of the config: where a value is written on
//! the host a file is seen as (its own host, the preview host, else the
//! first host that reads it). One row per kind of cursor:
//!
//! - a `${path}` reference: where that path's value is written, the place
//!   that wins first, then every other level that writes it;
//! - a name that is a config path (a file's `notify: {nginx: reload}`: the
//!   service `freebsd.services.nginx`), the same way;
//! - an export (a key under a root `exports:`): where it is written in
//!   the chain, the place that wins first;
//! - an inventory query (`$[ … ]`): where each value it gathered was
//!   exported, each place once;
//! - a `merge:` pattern: the rule in force for that pattern, the highest
//!   level or class of the chain that writes it first, then those below.

use lsp_types::{Location, Position, Range, Uri};

use super::Prefs;
use super::world::World;
use crate::output::explain;
use crate::value::Node;

/// Where the cursor is, in a document of the inventory.
pub(super) struct Cursor<'a> {
    pub file: &'a std::path::Path,
    pub text: &'a str,
    pub offset: usize,
    /// The path of the key or value under the cursor (position.rs), as
    /// the file writes it.
    pub path: &'a [String],
    /// That path in the config (`World::config_path`), when it is one.
    pub config: Option<Vec<String>>,
    /// The value under the cursor, when it is on one rather than a key.
    pub node: Option<&'a Node>,
}

/// What a cursor leads to: the config path whose places to give, and how.
enum Lead {
    /// Where the value at the path is written.
    Written(Vec<String>),
    /// Where each value a query at the path gathered was exported.
    Exported(Vec<String>),
    /// The `merge:` rule with this pattern, in each document of the chain.
    Rule(String),
}

/// The rows: what each kind of cursor leads to, the first that matches.
const LEADS: &[fn(&World<'_>, &Cursor<'_>) -> Option<Lead>] = &[
    |world, c| {
        let written = reference_at(c.text, c.offset)?;
        let keys = world.compiler.dialect().refs.keys(written).ok()?;
        Some(Lead::Written(keys))
    },
    |_, c| named_path(c.config.as_deref()?).map(Lead::Written),
    // An export: where it is written in the chain, the winning place first.
    |_, c| match c.config.as_deref()? {
        [root, _, ..] if root == crate::syntax::root::EXPORTS => {
            Some(Lead::Written(c.config.clone()?))
        }
        _ => None,
    },
    |_, c| {
        let query = c.node?.as_str()?.trim_start();
        let config = c.config.clone()?;
        query.starts_with("$[").then_some(Lead::Exported(config))
    },
    |_, c| match c.path {
        [merge, pattern] if merge == crate::syntax::root::MERGE => {
            Some(Lead::Rule(pattern.clone()))
        }
        _ => None,
    },
];

/// The places a cursor leads to; `None` when it leads to none.
pub(super) fn of(world: &World<'_>, prefs: &Prefs, c: &Cursor<'_>) -> Option<Vec<Location>> {
    let lead = LEADS.iter().find_map(|row| row(world, c))?;
    let host = world.seen_as(prefs.preview.as_deref(), &world.level_of(c.file)?, true)?;
    let compiled = world.compiled(host).ok()?;
    let mut places: Vec<String> = Vec::new();
    let mut add = |place: String| {
        if !places.contains(&place) {
            places.push(place);
        }
    };
    match lead {
        Lead::Written(keys) => {
            let e = explain::explain(&host.fqdn, &compiled, &keys).ok()?;
            let entry = e.entries.first()?;
            entry.at.iter().cloned().for_each(&mut add);
            (entry.levels.iter())
                .filter_map(|l| Some(format!("{}:{}", l.file, l.at.as_ref()?)))
                .for_each(add);
        }
        Lead::Exported(keys) => {
            let e = explain::explain(&host.fqdn, &compiled, &keys).ok()?;
            (e.entries.iter())
                .filter(|e| e.query.as_ref().is_some_and(|q| q.host.is_some()))
                .filter_map(|e| e.at.clone())
                .for_each(add);
        }
        Lead::Rule(pattern) => {
            for doc in compiled.levels.iter().rev() {
                let rules = doc.written.get(crate::syntax::root::MERGE);
                if let Some(m) = rules.and_then(Node::as_map) {
                    let found =
                        (m.iter()).find(|(k, _)| crate::syntax::prefix::split(k).0 == pattern);
                    if let Some((_, e)) = found {
                        let span = &e.key_span;
                        add(format!("{}:{}:{}", span.file_name()?, span.line, span.col));
                    }
                }
            }
        }
    }
    let here = std::env::current_dir().ok()?;
    let found: Vec<Location> = places.iter().filter_map(|p| location(&here, p)).collect();
    (!found.is_empty()).then_some(found)
}

/// The path of the `${…}` reference around `offset` in `text` (one line,
/// not nested), as written.
fn reference_at(text: &str, offset: usize) -> Option<&str> {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = &text[line_start..line_end];
    let at = offset - line_start;
    let open = (line.match_indices("${").map(|(i, _)| i))
        .take_while(|&i| i <= at)
        .last()?;
    let close = open + line[open..].find('}')?;
    (at <= close)
        .then(|| &line[open + 2..close])
        .filter(|p| !p.contains("${"))
}

/// The config path a name names.
type NamedPath = fn(&str) -> Vec<String>;

/// Names that are paths of the config: a pattern of the path under the
/// cursor (`*` any one key or item, on a key or its value), and the path
/// it names, from its last key.
const PATHS: &[(&[&str], NamedPath)] = &[
    // A file's `notify: {nginx: reload}`: the service it notifies.
    (&["freebsd", "files", "*", "notify", "*"], |name| {
        ["freebsd", "services", name].map(str::to_string).to_vec()
    }),
];

/// The path a name under the cursor names, by [`PATHS`].
fn named_path(path: &[String]) -> Option<Vec<String>> {
    let (_, to) = PATHS
        .iter()
        .find(|(p, _)| super::position::matches(p, path))?;
    Some(to(path.last()?))
}

/// A `file:line:col` place (1-based, as `explain` prints it) as a location.
fn location(here: &std::path::Path, place: &str) -> Option<Location> {
    let mut parts = place.rsplitn(3, ':');
    let col: u32 = parts.next()?.parse().ok()?;
    let line: u32 = parts.next()?.parse().ok()?;
    let path = here.join(parts.next()?).canonicalize().ok()?;
    let uri: Uri = super::file_uri(&path).parse().ok()?;
    let at = Position::new(line.saturating_sub(1), col.saturating_sub(1));
    Some(Location {
        uri,
        range: Range::new(at, at),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_reference_around_the_cursor() {
        let text = "a: x\nmotd: \"${site.owner} and ${site.contact}\"\n";
        let at = |needle: &str| text.find(needle).unwrap();
        let r = |offset| super::reference_at(text, offset);
        assert_eq!(r(at("site.owner")), Some("site.owner"));
        assert_eq!(r(at("${site.owner")), Some("site.owner"));
        assert_eq!(r(at("} and")), Some("site.owner"));
        assert_eq!(r(at(" and")), None);
        assert_eq!(r(at("contact")), Some("site.contact"));
        assert_eq!(r(at("motd")), None);
        assert_eq!(super::reference_at("x: ${a.${b}}", 5), None);
        assert_eq!(super::reference_at("x: ${a.${b}}", 9), Some("b"));
        assert_eq!(super::reference_at("é: ${a}", 0), None);
        assert_eq!(super::reference_at("é: ${a}", 6), Some("a"));
    }
}
