//! One path of one host, looked up as Hiera looks a key up (`beryl lookup`):
//! the host's pipeline up to resolved references (its chain and classes,
//! queries, key prefixes, constants, `${…}`), with the spec at the path
//! chosen in Hiera's order ([`merge::Lookup`]). SSH keys are not injected
//! and the `freebsd` section is not validated: a lookup reads data, and works
//! on a host that does not validate yet.

use super::Compiler;
use crate::diag::Diags;
use crate::inventory::Host;
use crate::merge::{self, Choice};
use crate::refs;
use crate::value::{Entry, Loc, Map, Node, Span, Value};

/// Where a default waits for its references, in the computed header (which
/// no level may write).
const HEADER: &str = "_beryl_";
const DEFAULT: &str = "lookup_default";

/// What a lookup found.
#[derive(Debug)]
pub(crate) struct Looked {
    /// The value at the path; `None` when no level writes it.
    pub value: Option<Node>,
    /// The default given, its references resolved against the host.
    pub default: Option<Node>,
    pub choice: Choice,
    /// The warnings of the host's merge.
    pub diags: Diags,
}

impl Compiler<'_> {
    /// Looks `lookup.path` up for `host`. A `default`, when given, is resolved
    /// as if the host's config held it (so `${freebsd.hostname}` in it reads
    /// the host's value).
    pub(crate) fn lookup(
        &self,
        host: &Host,
        lookup: &merge::Lookup,
        default_given: Option<&Node>,
    ) -> Result<Looked, Diags> {
        let expanded = self.expand(host)?;
        let all = expanded.asks().then(|| self.all_exports());
        let (_, mut merged) = self.merged(host, &expanded, all, Some(lookup))?;
        // Only what the value (or the default) reads is resolved: the rest
        // of the tree may reference the key, whose value here is the
        // lookup's, not render's.
        let (limits, dialect) = (&self.limits, self.dialect.refs);
        let path = by_position(&merged.node, &lookup.path, &merged.policy);
        let value = refs::resolve_subtree(&mut merged, limits, &path, dialect)?;
        let mut default = None;
        if let (None, Some(d)) = (&value, default_given) {
            put_default(&mut merged.node, d.clone());
            let at = [HEADER.to_string(), DEFAULT.to_string()];
            default = refs::resolve_subtree(&mut merged, limits, &at, dialect)?;
        }
        Ok(Looked {
            value,
            default,
            choice: merged.choice.take().unwrap_or(Choice::First),
            diags: std::mem::take(&mut merged.diags),
        })
    }
}

/// The path with the list items it names written by position, which a
/// reference reads: an item is named by its position, its key field
/// (`freebsd.users.alice`), or, as `beryl explain` names the items of a list
/// of strings, its value (`freebsd.packages.vim`). A path that leads nowhere
/// is left as it is.
fn by_position(root: &Node, path: &[String], policy: &merge::Policy) -> Vec<String> {
    let found = Loc::follow(root, path, |list, items, name| {
        match name.parse::<usize>() {
            Ok(i) if i < items.len() => Some(i),
            _ => {
                let field = policy.key_field(list);
                items
                    .iter()
                    .position(|n| n.get(field).and_then(Node::as_str) == Some(name))
                    .or_else(|| items.iter().position(|n| n.as_str() == Some(name)))
            }
        }
    });
    found.map_or_else(|| path.to_vec(), |loc| loc.plain())
}

fn entry(node: Node) -> Entry {
    Entry {
        key_span: Span::synthetic(),
        node,
    }
}

fn put_default(root: &mut Node, default: Node) {
    let Value::Map(map) = &mut root.value else {
        return;
    };
    let header = map
        .entry(HEADER.to_string())
        .or_insert_with(|| entry(Node::synthetic(Value::Map(Map::new()))));
    if let Value::Map(h) = &mut header.node.value {
        h.insert(DEFAULT.to_string(), entry(default));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Source;

    fn path(p: &str) -> Vec<String> {
        crate::syntax::path::parse_place(p)
            .unwrap()
            .into_iter()
            .map(|s| s.text)
            .collect()
    }

    #[test]
    fn list_items_by_key_value_or_position_are_one_place() {
        let text =
            "freebsd:\n  packages: [sudo, vim]\n  users:\n    - {name: alice, shell: /bin/sh}\n";
        let root = crate::yaml::parse(&Source::new("t.yml", text), &Default::default()).unwrap();
        let policy = merge::Policy::beryl();
        let at = |p: &str| by_position(&root, &path(p), &policy);
        for p in [
            "freebsd.users.alice.shell",
            "freebsd.users[alice].shell",
            "freebsd.users.0.shell",
            "freebsd.users[0].shell",
        ] {
            assert_eq!(at(p), ["freebsd", "users", "0", "shell"], "{p}");
        }
        for p in [
            "freebsd.packages.vim",
            "freebsd.packages[vim]",
            "freebsd.packages.1",
        ] {
            assert_eq!(at(p), ["freebsd", "packages", "1"], "{p}");
        }
        // A path that leads nowhere is left as it is.
        assert_eq!(
            at("freebsd.packages.emacs"),
            ["freebsd", "packages", "emacs"]
        );
    }
}
