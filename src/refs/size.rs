//! The size of a value, as the limits on resolution count it (budget.rs):
//! what copying it costs, and how deep it nests.

use crate::value::{Node, Value};

/// The size of a value: its values, its string bytes (keys included) and
/// its nesting height (0 for a scalar).
pub(super) struct Size {
    pub(super) nodes: usize,
    pub(super) bytes: usize,
    pub(super) height: usize,
}

pub(super) fn measure(node: &Node) -> Size {
    let mut size = Size {
        nodes: 1,
        bytes: 0,
        height: 0,
    };
    let mut add = |child: Size, key: usize| {
        size.nodes = size.nodes.saturating_add(child.nodes);
        size.bytes = size.bytes.saturating_add(child.bytes).saturating_add(key);
        size.height = size.height.max(child.height + 1);
    };
    match &node.value {
        Value::Str(s) => size.bytes = s.len(),
        Value::Seq(items) => {
            for n in items {
                add(measure(n), 0);
            }
            size.height = size.height.max(1);
        }
        Value::Map(m) => {
            for (k, e) in m {
                add(measure(&e.node), k.len());
            }
            size.height = size.height.max(1);
        }
        _ => {}
    }
    size
}
