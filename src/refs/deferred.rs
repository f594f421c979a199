//! Finishing a deferred merge: the values written at a path where a
//! reference met another value are resolved, then merged with the strategy
//! in force there (`merge::Merged::finish`), and the result put in place.

use super::resolver::{Fail, Frame, Resolver};
use crate::syntax::template::has_reference;
use crate::value::{Node, Step, Value};

impl Resolver<'_> {
    /// Finishes a deferred merge: resolves its values, then merges them.
    pub(super) fn finish(&mut self, i: usize) -> Result<(), Fail> {
        if self.stopped {
            return Err(Fail::Reported);
        }
        let Some(d) = self.deferred[i].1.take() else {
            return Ok(());
        };
        let loc = self.deferred[i].0.clone();
        let span = d
            .values
            .iter()
            .flatten()
            .last()
            .map(|n| n.span.clone())
            .unwrap_or_default();
        self.enter(&span)?;
        self.stack.push(Frame {
            loc: loc.clone(),
            span: span.clone(),
            text: "(values merged once their references are resolved)".into(),
        });
        let mut values = d.values.clone();
        let mut result = Ok(());
        for v in values.iter_mut().flatten() {
            // A reference written as the whole value is recorded at the path.
            let written = v
                .as_str()
                .filter(|t| has_reference(t))
                .map(|t| (t.to_string(), v.span.clone()));
            let mark = self.targets.len();
            if let Err(e) = self.resolve_detached(v) {
                result = Err(e);
            }
            let targets = self.targets.split_off(mark);
            if let Some((text, span)) = written {
                self.record(&loc, text, span, targets);
            }
        }
        self.stack.pop();
        result?;
        let merged = self.merged.finish(&d, &values).map_err(|e| {
            self.errors.extend(e);
            Fail::Reported
        })?;
        match (merged, loc.last()) {
            (Some(node), _) => {
                self.check_depth(&loc, &node, &span)?;
                if let Some(slot) = self.get_mut(&loc) {
                    *slot = node;
                }
            }
            (None, Some(Step::Key(k))) => {
                let k = k.clone();
                if let Some(Node {
                    value: Value::Map(m),
                    ..
                }) = loc.parent().and_then(|up| self.get_mut(&up))
                {
                    m.shift_remove(&k);
                }
            }
            (None, _) => {}
        }
        Ok(())
    }

    /// Resolves every string of a value that is not in the tree (a deferred
    /// merge's input).
    fn resolve_detached(&mut self, node: &mut Node) -> Result<(), Fail> {
        match &mut node.value {
            Value::Str(s) if has_reference(s) => {
                let text = s.clone();
                let span = node.span.clone();
                *node = self.eval_string(&text, &span)?;
            }
            Value::Map(m) => {
                for e in m.values_mut() {
                    self.resolve_detached(&mut e.node)?;
                }
            }
            Value::Seq(items) => {
                for n in items {
                    self.resolve_detached(n)?;
                }
            }
            _ => {}
        }
        Ok(())
    }
}
