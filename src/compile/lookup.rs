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
use crate::value::{Entry, Map, Node, Span, Value};

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
        let value = refs::resolve_subtree(&mut merged, limits, &lookup.path, dialect)?;
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
