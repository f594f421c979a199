//! The resolver: every string holding references is resolved on demand, in
//! place, the first time it is read or in document order; a stack of what is
//! being resolved catches cycles.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

use super::Resolution;
use super::dialect::{Dialect, Render, python_str};
use crate::diag::{Diag, Diags};
use crate::limits::Limits;
use crate::merge::{Deferred, Merged};
use crate::syntax::template;
use crate::syntax::template::{Part, has_reference};
use crate::value::{Loc, Node, Span, Value};

/// What is being resolved, for cycle detection and messages.
pub(super) struct Frame {
    pub(super) loc: Loc,
    pub(super) span: Span,
    pub(super) text: String,
}

/// Why a value could not be produced. `Reported` errors are already in the
/// list; the caller only stops.
pub(super) enum Fail {
    Reported,
}

pub(super) struct Resolver<'m> {
    pub(super) merged: &'m mut Merged,
    /// The outer tree (`${parent.…}`), and once read, its node (or that it
    /// failed, reported).
    pub(super) outer: Option<(super::Outer<'m>, Option<Option<Arc<Node>>>)>,
    /// Deferred merges, by location; `None` once finished.
    pub(super) deferred: Vec<(Loc, Option<Deferred>)>,
    /// The indexes of `deferred`, by location, to find those at or below a
    /// path without scanning them all.
    deferred_at: BTreeMap<Loc, Vec<usize>>,
    /// The strings holding references, in document order.
    pub(super) pending: Vec<Loc>,
    /// Those not resolved yet, sorted, to find the ones below a target
    /// without scanning them all.
    todo: BTreeSet<Loc>,
    done: HashSet<Loc>,
    pub(super) stack: Vec<Frame>,
    pub(super) errors: Diags,
    /// The strings resolved so far; their paths of names are written at the
    /// end, when the tree is final.
    pub(super) resolutions: Vec<Resolution>,
    /// The targets read so far (a stack: each string takes its own off).
    pub(super) targets: Vec<(String, Span)>,
    pub(super) limits: Limits,
    /// Values and string bytes copied or built by references so far.
    pub(super) copied: (usize, usize),
    /// A limit was breached: nothing more is resolved.
    pub(super) stopped: bool,
    /// Missing references reported so far.
    pub(super) missing: usize,
    /// How references are written and rendered.
    pub(super) dialect: Dialect,
}

impl<'m> Resolver<'m> {
    /// A resolver over a merged tree: its deferred merges located, and the
    /// strings holding references listed, to be resolved on demand.
    pub(super) fn new(merged: &'m mut Merged, limits: &Limits, dialect: Dialect) -> Self {
        let deferred = std::mem::take(&mut merged.deferred);
        let mut r = Resolver {
            merged,
            outer: None,
            deferred: Vec::new(),
            deferred_at: BTreeMap::new(),
            pending: Vec::new(),
            todo: BTreeSet::new(),
            done: HashSet::new(),
            stack: Vec::new(),
            errors: Vec::new(),
            resolutions: Vec::new(),
            targets: Vec::new(),
            limits: *limits,
            copied: (0, 0),
            stopped: false,
            missing: 0,
            dialect,
        };
        for d in deferred {
            match r.locate(&d.path) {
                Some(loc) => r.deferred.push((loc, Some(d))),
                None => r.errors.push(Diag::new(
                    crate::refs::Code::Internal,
                    format!(
                        "a deferred merge at {} lost its place",
                        crate::syntax::path::display(&d.path)
                    ),
                )),
            }
        }
        for (i, (loc, _)) in r.deferred.iter().enumerate() {
            r.deferred_at.entry(loc.clone()).or_default().push(i);
        }
        // The strings holding references, in document order, outside the
        // deferred paths (their values are replaced when they are finished).
        let skip: HashSet<&Loc> = r.deferred.iter().map(|(l, _)| l).collect();
        let mut pending = Vec::new();
        r.merged.node.walk(&mut Loc::root(), &mut |at, node| {
            if skip.contains(at) {
                return false;
            }
            if let Value::Str(s) = &node.value
                && has_reference(s)
            {
                pending.push(at.clone());
            }
            true
        });
        r.todo = pending.iter().cloned().collect();
        r.pending = pending;
        r
    }

    /// A location as a path of names: list items by their key field when
    /// they have one, else by index.
    pub(super) fn names(&self, loc: &Loc) -> Vec<String> {
        let policy = &self.merged.policy;
        loc.names(&self.merged.node, |list| Some(policy.key_field(list)))
    }

    /// A location in messages, as `explain` names it (list items by their
    /// key field when they have one).
    pub(super) fn show(&self, loc: &Loc) -> String {
        crate::syntax::path::display(&self.names(loc))
    }

    /// Turns a path of keys (list items named by index or key field) into a
    /// location of the current tree.
    pub(super) fn locate(&self, path: &[String]) -> Option<Loc> {
        let policy = &self.merged.policy;
        Loc::locate(&self.merged.node, path, |list| Some(policy.key_field(list)))
    }

    fn get(&self, loc: &Loc) -> Option<&Node> {
        loc.at(&self.merged.node)
    }

    pub(super) fn get_mut(&mut self, loc: &Loc) -> Option<&mut Node> {
        loc.at_mut(&mut self.merged.node)
    }

    /// Resolves the string at `loc` (once), writing its value in place.
    pub(super) fn resolve_loc(&mut self, loc: &Loc) -> Result<(), Fail> {
        if self.stopped {
            return Err(Fail::Reported);
        }
        if self.done.contains(loc) {
            return Ok(());
        }
        self.done.insert(loc.clone());
        self.todo.remove(loc);
        let Some(node) = self.get(loc) else {
            return Ok(());
        };
        let (text, span) = match &node.value {
            Value::Str(s) => (s.clone(), node.span.clone()),
            _ => return Ok(()),
        };
        self.enter(&span)?;
        self.stack.push(Frame {
            loc: loc.clone(),
            span: span.clone(),
            text: text.clone(),
        });
        let mark = self.targets.len();
        let value = self.eval_string(&text, &span);
        self.stack.pop();
        let targets = self.targets.split_off(mark);
        let value = value?;
        self.check_depth(loc, &value, &span)?;
        if let Some(slot) = self.get_mut(loc) {
            *slot = value;
        }
        self.record(loc, text, span, targets);
        Ok(())
    }

    /// Records a resolved string at its place; its path of names is filled
    /// in once the whole tree is resolved.
    pub(super) fn record(
        &mut self,
        loc: &Loc,
        text: String,
        span: Span,
        targets: Vec<(String, Span)>,
    ) {
        self.resolutions.push(Resolution {
            loc: loc.clone(),
            path: Vec::new(),
            text,
            span,
            targets,
        });
    }

    /// The value of a string: typed for a whole reference, else text.
    pub(super) fn eval_string(&mut self, text: &str, span: &Span) -> Result<Node, Fail> {
        let parts = template::parse_in(text, self.dialect.grammar())
            .map_err(|e| self.report(syntax_error(text, &e, span)))?;
        if let [Part::Ref(path)] = parts.as_slice() {
            let path = self.eval_text(path, span)?;
            let target = self.value_at(&path, span)?;
            return Ok(target);
        }
        Ok(Node::new(
            Value::Str(self.eval_text(&parts, span)?),
            span.clone(),
        ))
    }

    /// Joins parts as text; every reference must be a scalar.
    pub(super) fn eval_text(&mut self, parts: &[Part], span: &Span) -> Result<String, Fail> {
        let mut out = String::new();
        for part in parts {
            match part {
                Part::Text(t) => out.push_str(t),
                Part::Ref(inner) => {
                    let path = self.eval_text(inner, span)?;
                    let value = self.value_at(&path, span)?;
                    if self.dialect.render == Render::Python {
                        out.push_str(&python_str(&value));
                        continue;
                    }
                    match &value.value {
                        Value::Str(s) => out.push_str(s),
                        Value::Int(i) => out.push_str(&i.to_string()),
                        Value::Float(f) => out.push_str(&f.to_string()),
                        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                        other => {
                            return Err(self.report(
                                Diag::new(
                                    crate::refs::Code::Embed,
                                    format!(
                                        "`${{{path}}}` is {}, which cannot be part of a longer string",
                                        other.type_name()
                                    ),
                                )
                                .label(span, "embedded here")
                                .label(&value.span, "the value")
                                .help("make the reference the whole string to keep its type"),
                            ));
                        }
                    }
                }
            }
        }
        self.spend(0, out.len(), span)?;
        Ok(out)
    }

    /// The fully resolved value at a dotted path.
    pub(super) fn value_at(&mut self, path_text: &str, span: &Span) -> Result<Node, Fail> {
        let keys: Vec<String> = match self.dialect.keys(path_text) {
            Ok(keys) => keys,
            Err(e) => {
                return Err(self.report(
                    Diag::new(
                        crate::refs::Code::Path,
                        format!("bad path `{path_text}` in a reference: {e}"),
                    )
                    .label(span, "in this reference")
                    .help("quote a segment that holds `.`, `*` or `\"`: ${a.\"b.c\"}"),
                ));
            }
        };
        if let Some((outer, _)) = &self.outer
            && keys.first().is_some_and(|k| k == outer.name)
        {
            return self.outer_value(&keys[1..], path_text, span);
        }
        // Finish the deferred merges on the way, so the path sees their result.
        let mut loc = None;
        for depth in 0..=keys.len() {
            let Some(prefix) = self.locate(&keys[..depth]) else {
                break;
            };
            let open = self
                .deferred_at
                .get(&prefix)
                .and_then(|is| is.iter().copied().find(|&i| self.deferred[i].1.is_some()));
            if let Some(i) = open {
                self.check_cycle(&prefix, path_text, span)?;
                self.finish(i)?;
            }
            if depth == keys.len() {
                loc = self.locate(&keys);
            }
        }
        let Some(loc) = loc else {
            return Err(self.missing(path_text, &keys, span));
        };
        self.check_cycle(&loc, path_text, span)?;
        // Everything below the target must be final before it is copied
        // (the deferred merges in the order they were made).
        let mut below: Vec<usize> = self
            .deferred_at
            .range(loc.clone()..)
            .take_while(|(l, _)| l.within(&loc))
            .flat_map(|(_, is)| is.iter().copied())
            .collect();
        below.sort_unstable();
        for i in below {
            if self.deferred[i].1.is_some() {
                self.finish(i)?;
            }
        }
        let below: Vec<Loc> = self
            .todo
            .range(loc.clone()..)
            .take_while(|p| p.within(&loc))
            .cloned()
            .collect();
        for p in below {
            self.resolve_loc(&p)?;
        }
        let Some(size) = self.get(&loc).map(super::size::measure) else {
            return Err(self.missing(path_text, &keys, span));
        };
        // Counted before the copy is made, so a bomb stops before it grows.
        self.spend(size.nodes, size.bytes, span)?;
        let Some(n) = self.get(&loc).cloned() else {
            return Err(self.missing(path_text, &keys, span));
        };
        self.targets.push((path_text.to_string(), n.span.clone()));
        Ok(n)
    }

    /// The value at `keys` of the outer tree, which is final: copied as it
    /// is (its strings are not read for references).
    fn outer_value(&mut self, keys: &[String], path_text: &str, span: &Span) -> Result<Node, Fail> {
        let Some((outer, read)) = &mut self.outer else {
            return Err(Fail::Reported);
        };
        let name = outer.name;
        if read.is_none() {
            *read = Some(match (outer.node)() {
                Ok(node) => Some(node),
                Err(errors) => {
                    let mut d = Diag::new(
                        crate::refs::Code::Parent,
                        format!("`{path_text}` reads the {name}'s config, which cannot be read"),
                    )
                    .label(span, "in this reference");
                    if let Some(first) = errors.first() {
                        d = d.help(format!("the {name}: {}", first.message));
                    }
                    self.errors.push(d);
                    None
                }
            });
        }
        let Some(Some(node)) = read.clone() else {
            return Err(Fail::Reported);
        };
        let policy = &self.merged.policy;
        let found = Loc::locate(&node, keys, |list| Some(policy.key_field(list)))
            .and_then(|loc| loc.at(&node).cloned());
        let Some(n) = found else {
            return Err(self.report(
                Diag::new(
                    crate::refs::Code::Missing,
                    format!("`{path_text}`: the {name}'s config sets nothing there"),
                )
                .label(span, "in this reference")
                .help(format!("`beryl render` of the {name} shows its config")),
            ));
        };
        let size = super::size::measure(&n);
        self.spend(size.nodes, size.bytes, span)?;
        self.targets.push((path_text.to_string(), n.span.clone()));
        Ok(n)
    }

    /// A cycle: the target is being computed (it holds, or lies inside, a
    /// string or deferred merge on the stack).
    fn check_cycle(&mut self, target: &Loc, path_text: &str, span: &Span) -> Result<(), Fail> {
        let Some(start) = self
            .stack
            .iter()
            .position(|f| f.loc.within(target) || target.within(&f.loc))
        else {
            return Ok(());
        };
        let names: Vec<String> = self.stack[start..]
            .iter()
            .map(|f| self.show(&f.loc))
            .chain(std::iter::once(path_text.to_string()))
            .collect();
        let mut d = Diag::new(
            crate::refs::Code::Cycle,
            format!("reference cycle: {}", names.join(" → ")),
        );
        for f in &self.stack[start..] {
            d = d.label(&f.span, format!("{} = {:?}", self.show(&f.loc), f.text));
        }
        let _ = span;
        Err(self.report(
            d.help("a value cannot depend on itself; break the cycle with a literal value"),
        ))
    }

    pub(super) fn report(&mut self, d: Diag) -> Fail {
        self.errors.push(d);
        Fail::Reported
    }
}

/// A string whose `${…}` does not parse.
pub(super) fn syntax_error(text: &str, e: &template::TemplateError, span: &Span) -> Diag {
    Diag::new(
        crate::refs::Code::Syntax,
        format!("bad reference in {text:?}: {}", e.message),
    )
    .label(span, "in this string")
    .help("write `${path}`; a literal `${` is written `\\${`")
}
