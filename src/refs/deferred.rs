//! Finishing a deferred merge: the values written at a path where a
//! reference met another value are resolved, then merged with the strategy
//! in force there (`merge::Merged::finish`), and the result put in place.

use super::resolver::{Fail, Frame, Resolver};
use crate::diag::{Diag, Diags};
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
        let last = values.iter().rposition(Option::is_some);
        // The last value resolved is a mapping or a list (reclass skips a
        // missing reference only over anything else), and the errors skipped.
        let mut below_container = false;
        let mut skipped: Option<Diags> = None;
        for (i, v) in values.iter_mut().enumerate() {
            let Some(v) = v else { continue };
            // A reference written as the whole value is recorded at the path.
            let written = v
                .as_str()
                .filter(|t| has_reference(t))
                .map(|t| (t.to_string(), v.span.clone()));
            let mark = self.targets.len();
            let errors_before = self.errors.len();
            match self.resolve_detached(v) {
                Ok(()) => below_container = matches!(v.value, Value::Map(_) | Value::Seq(_)),
                Err(_)
                    if Some(i) != last && !below_container && self.only_missing(errors_before) =>
                {
                    let errors = self.errors.split_off(errors_before);
                    self.merged.diags.push(overwritten(v, &errors));
                    *v = Node::new(Value::Null, v.span.clone());
                    below_container = false;
                    skipped = Some(errors);
                }
                Err(e) => result = Err(e),
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
        // A mapping or list at the end keeps the skipped error (reclass
        // raises the last one it saved).
        if let (
            Some(errors),
            Some(Node {
                value: Value::Map(_) | Value::Seq(_),
                ..
            }),
        ) = (skipped, &merged)
        {
            self.errors.extend(errors);
            return Err(Fail::Reported);
        }
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

    /// Whether the dialect skips the errors reported since `mark` in a
    /// value that a higher one overwrites: they are all missing references
    /// (and no limit stopped the resolution).
    fn only_missing(&self, mark: usize) -> bool {
        self.dialect.missing_overwritten
            && !self.stopped
            && self.errors.len() > mark
            && self.errors[mark..]
                .iter()
                .all(|e| e.code == crate::refs::Code::Missing.as_str())
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

/// The warning for a value whose missing reference is skipped because a
/// higher value overwrites it (reclass's
/// `ignore_overwritten_missing_references`).
fn overwritten(value: &Node, errors: &[Diag]) -> Diag {
    let what = errors
        .first()
        .map_or_else(String::new, |e| format!(" ({})", e.message));
    Diag::warning(
        crate::refs::Code::MissingOverwritten,
        format!("a missing reference in a value that a higher level overwrites is skipped{what}"),
    )
    .label(&value.span, "this value is skipped")
    .help("reclass's ignore_overwritten_missing_references; the reference is an error if the final value is a mapping or a list")
}
