//! The edit behind a change: of the documents of a host's chain (level and
//! class files, on either side), the most specific one whose contribution at
//! the changed path differs between the sides. A knockout counts as what a
//! document writes at the path it knocks out, so `name: --bob` in a group is
//! the cause of `freebsd.users.bob: removed`, not bob's old definition.

use super::{HostConfig, Place};
use crate::merge::{Policy, Strategy, spec_at};
use crate::value::{Node, Value};

/// The place of that contribution: on the new side, or on the old side when
/// the document no longer writes the path. `None` when no document's
/// contribution changed (the value comes from a key file, another host's
/// exports, a reference): `compare` then takes the value's own place when
/// its file changed.
pub(super) fn edit(
    old: &HostConfig,
    new: &HostConfig,
    policy: &Policy,
    path: &[String],
) -> Option<Place> {
    let (Some(old_names), Some(new_names)) = (&old.names, &new.names) else {
        return None;
    };
    let doc = |c: &'_ HostConfig, name: &str| {
        c.levels
            .iter()
            .find(|(n, _)| &**n == name)
            .map(|(_, d)| d.clone())
    };
    let only_old = old
        .levels
        .iter()
        .filter(|(n, _)| !new.levels.iter().any(|(m, _)| m == n));
    for (name, _) in new.levels.iter().rev().chain(only_old.rev()) {
        let (o, n) = (doc(old, name), doc(new, name));
        let co = o.as_deref().and_then(|d| written(d, path, policy));
        let cn = n.as_deref().and_then(|d| written(d, path, policy));
        let same = match (co, cn) {
            (None, None) => true,
            (Some(a), Some(b)) => a.value.same(&b.value),
            _ => false,
        };
        if !same {
            return match (cn, co) {
                (Some(n), _) => new_names.place(&n.span, "new"),
                (None, Some(o)) => old_names.place(&o.span, "old"),
                (None, None) => None,
            };
        }
    }
    None
}

/// What a document writes at a path: through mappings (keys matched however
/// they are prefixed, `~` or `=`), and through lists merged by key, where an
/// item knocking the key out (`name: --bob`) is what is written there.
fn written<'n>(doc: &'n Node, path: &[String], policy: &Policy) -> Option<&'n Node> {
    let mut node = doc;
    for (depth, seg) in path.iter().enumerate() {
        node = match &node.value {
            Value::Map(m) => &crate::syntax::prefix::get(m, seg)?.node,
            Value::Seq(items) => {
                let (spec, _) = spec_at(policy, &path[..depth]);
                if spec.kind != Strategy::ByKey {
                    return None;
                }
                let knocked = spec.knockout_prefix.as_ref().map(|p| format!("{p}{seg}"));
                let id = |i: &Node| i.get(&spec.key).and_then(Node::as_str).map(str::to_string);
                match items
                    .iter()
                    .find(|i| id(i).as_deref() == Some(seg.as_str()))
                {
                    Some(item) => item,
                    None => return items.iter().find(|i| knocked.is_some() && id(i) == knocked),
                }
            }
            _ => return None,
        };
    }
    Some(node)
}
