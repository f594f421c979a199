//! References: `${path}` in string values, resolved against the merged config.
//!
//! Entry point: [`resolve`], run after merging and before SSH keys and
//! validation. A string that is exactly one reference takes the referenced
//! value with its type; references inside a longer string are joined as text.
//! Paths use the dotted syntax of `merge:` patterns (crate::syntax::path); a segment
//! under a list picks the item by index or by its key field (`name`).
//! Deferred merges (a reference meeting another value) are finished here, on
//! demand, once their references are resolved.
//!
//! Resolution is bounded (crate::limits): references nest at most
//! `max_ref_depth` deep; for one host they copy at most `max_nodes` values
//! and build or copy at most `max_string_bytes` of strings (so an exponential
//! "reference bomb" stops early); and a reference may not nest the config
//! deeper than `max_depth`. The first breach stops the resolution with one
//! error at the reference that crossed the line.

mod single;

use std::collections::{BTreeMap, BTreeSet, HashSet};

use crate::syntax::template;
use crate::syntax::template::{Part, has_reference};
pub use single::{evaluate, resolve_subtree};

use crate::diag::{Diag, Diags};
use crate::limits::{Limit, Limits};
use crate::merge::{Deferred, Kind, Merged};
use crate::value::{Node, Span, Value};

/// One string whose references were resolved: for `explain` and `--annotate`.
#[derive(Clone, Debug)]
pub struct Resolution {
    /// Where the string ended up, as a path (list items by key field or index).
    pub path: Vec<String>,
    /// The string as written, and where.
    pub text: String,
    pub span: Span,
    /// Each referenced path and where its value was written.
    pub targets: Vec<(String, Span)>,
}

/// A location in the merged tree: keys, and indexes into lists. Ordered so
/// that the locations below one form a contiguous range.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Seg {
    Key(String),
    Index(usize),
}

type Loc = Vec<Seg>;

fn within(outer: &[Seg], inner: &[Seg]) -> bool {
    inner.starts_with(outer)
}

/// What is being resolved, for cycle detection and messages.
struct Frame {
    loc: Loc,
    span: Span,
    text: String,
}

/// Why a value could not be produced. `Reported` errors are already in the
/// list; the caller only stops.
enum Fail {
    Reported,
}

/// Missing references beyond this many get no "closest paths" suggestion:
/// each suggestion compares the path with every path of the config.
const SUGGESTED_MISSING: usize = 20;

/// Resolves every reference of the merged tree in place and finishes the
/// deferred merges. Returns every error found.
pub fn resolve(merged: &mut Merged, limits: &Limits) -> Result<Vec<Resolution>, Diags> {
    let check_constants = !merged.deferred.is_empty();
    let mut r = Resolver::new(merged, limits);
    for i in 0..r.deferred.len() {
        if r.stopped {
            break;
        }
        let _ = r.finish(i);
    }
    for i in 0..r.pending.len() {
        if r.stopped {
            break;
        }
        let loc = r.pending[i].clone();
        let _ = r.resolve_loc(&loc);
    }
    if check_constants && r.errors.is_empty() {
        let errors = r.merged.check_constants();
        r.errors.extend(errors);
    }
    if r.errors.is_empty() {
        let mut out = std::mem::take(&mut r.resolutions);
        for p in &mut out {
            p.done.path = r.names(&p.loc);
        }
        Ok(out.into_iter().map(|p| p.done).collect())
    } else {
        Err(r.errors)
    }
}

/// A resolution while the tree is still changing: its place as a location.
struct Pending {
    loc: Loc,
    done: Resolution,
}

/// The locations of strings holding references, in document order, outside
/// the deferred paths (their values are replaced when they are finished).
fn collect(node: &Node, at: &mut Loc, skip: &HashSet<Loc>, out: &mut Vec<Loc>) {
    if skip.contains(at) {
        return;
    }
    match &node.value {
        Value::Str(s) if has_reference(s) => out.push(at.clone()),
        Value::Map(m) => {
            for (k, e) in m {
                at.push(Seg::Key(k.clone()));
                collect(&e.node, at, skip, out);
                at.pop();
            }
        }
        Value::Seq(items) => {
            for (i, n) in items.iter().enumerate() {
                at.push(Seg::Index(i));
                collect(n, at, skip, out);
                at.pop();
            }
        }
        _ => {}
    }
}

struct Resolver<'m> {
    merged: &'m mut Merged,
    /// Deferred merges, by location; `None` once finished.
    deferred: Vec<(Loc, Option<Deferred>)>,
    /// The indexes of `deferred`, by location, to find those at or below a
    /// path without scanning them all.
    deferred_at: BTreeMap<Loc, Vec<usize>>,
    /// The strings holding references, in document order.
    pending: Vec<Loc>,
    /// Those not resolved yet, sorted, to find the ones below a target
    /// without scanning them all.
    todo: BTreeSet<Loc>,
    done: HashSet<Loc>,
    stack: Vec<Frame>,
    errors: Diags,
    resolutions: Vec<Pending>,
    /// The targets read so far (a stack: each string takes its own off).
    targets: Vec<(String, Span)>,
    limits: Limits,
    /// Values and string bytes copied or built by references so far.
    copied: (usize, usize),
    /// A limit was breached: nothing more is resolved.
    stopped: bool,
    /// Missing references reported so far.
    missing: usize,
}

impl<'m> Resolver<'m> {
    /// A resolver over a merged tree: its deferred merges located, and the
    /// strings holding references listed, to be resolved on demand.
    fn new(merged: &'m mut Merged, limits: &Limits) -> Self {
        let deferred = std::mem::take(&mut merged.deferred);
        let mut r = Resolver {
            merged,
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
        };
        for d in deferred {
            match r.locate(&d.path) {
                Some(loc) => r.deferred.push((loc, Some(d))),
                None => r.errors.push(Diag::new(
                    "beryl::refs::internal",
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
        let skip: HashSet<Loc> = r.deferred.iter().map(|(l, _)| l.clone()).collect();
        let mut pending = Vec::new();
        collect(&r.merged.node, &mut Vec::new(), &skip, &mut pending);
        r.todo = pending.iter().cloned().collect();
        r.pending = pending;
        r
    }

    /// A location as a path of names: list items by their key field when
    /// they have one, else by index.
    fn names(&self, loc: &[Seg]) -> Vec<String> {
        let mut out = Vec::with_capacity(loc.len());
        let mut node = Some(&self.merged.node);
        for seg in loc {
            let next = node.and_then(|n| match (seg, &n.value) {
                (Seg::Key(k), Value::Map(m)) => m.get(k).map(|e| &e.node),
                (Seg::Index(i), Value::Seq(items)) => items.get(*i),
                _ => None,
            });
            out.push(match seg {
                Seg::Key(k) => k.clone(),
                Seg::Index(i) => {
                    let field = self.key_field(&out);
                    next.and_then(|n| n.get(&field))
                        .and_then(Node::as_str)
                        .map_or_else(|| i.to_string(), str::to_string)
                }
            });
            node = next;
        }
        out
    }

    fn get(&self, loc: &[Seg]) -> Option<&Node> {
        let mut node = &self.merged.node;
        for seg in loc {
            node = match (seg, &node.value) {
                (Seg::Key(k), Value::Map(m)) => &m.get(k)?.node,
                (Seg::Index(i), Value::Seq(items)) => items.get(*i)?,
                _ => return None,
            };
        }
        Some(node)
    }

    fn get_mut(&mut self, loc: &[Seg]) -> Option<&mut Node> {
        let mut node = &mut self.merged.node;
        for seg in loc {
            node = match (seg, &mut node.value) {
                (Seg::Key(k), Value::Map(m)) => &mut m.get_mut(k)?.node,
                (Seg::Index(i), Value::Seq(items)) => items.get_mut(*i)?,
                _ => return None,
            };
        }
        Some(node)
    }

    /// The field that identifies the items of the list at a path.
    fn key_field(&self, path: &[String]) -> String {
        match self.merged.policy.rule_for(path) {
            Some(rule) if rule.spec.kind == Kind::ByKey => rule.spec.key.clone(),
            _ => "name".into(),
        }
    }

    /// Turns a path of keys (list items named by index or key field) into a
    /// location of the current tree.
    fn locate(&self, path: &[String]) -> Option<Loc> {
        let mut loc = Vec::with_capacity(path.len());
        let mut node = &self.merged.node;
        for (depth, seg) in path.iter().enumerate() {
            let (step, next) = match &node.value {
                Value::Map(m) => (Seg::Key(seg.clone()), &m.get(seg)?.node),
                Value::Seq(items) => {
                    let index = match seg.parse::<usize>() {
                        Ok(i) if i < items.len() => i,
                        _ => {
                            let field = self.key_field(&path[..depth]);
                            items
                                .iter()
                                .position(|n| n.get(&field).and_then(Node::as_str) == Some(seg))?
                        }
                    };
                    (Seg::Index(index), &items[index])
                }
                _ => return None,
            };
            loc.push(step);
            node = next;
        }
        Some(loc)
    }

    /// Resolves the string at `loc` (once), writing its value in place.
    fn resolve_loc(&mut self, loc: &Loc) -> Result<(), Fail> {
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
        self.resolutions.push(Pending {
            loc: loc.clone(),
            done: Resolution {
                path: Vec::new(),
                text,
                span,
                targets,
            },
        });
        Ok(())
    }

    /// The value of a string: typed for a whole reference, else text.
    fn eval_string(&mut self, text: &str, span: &Span) -> Result<Node, Fail> {
        let parts = template::parse(text).map_err(|e| {
            self.report(
                Diag::new(
                    "beryl::refs::syntax",
                    format!("bad reference in {text:?}: {}", e.message),
                )
                .label(span, "in this string")
                .help("write `${path}`; a literal `${` is written `\\${`"),
            )
        })?;
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
    fn eval_text(&mut self, parts: &[Part], span: &Span) -> Result<String, Fail> {
        let mut out = String::new();
        for part in parts {
            match part {
                Part::Text(t) => out.push_str(t),
                Part::Ref(inner) => {
                    let path = self.eval_text(inner, span)?;
                    let value = self.value_at(&path, span)?;
                    match &value.value {
                        Value::Str(s) => out.push_str(s),
                        Value::Int(i) => out.push_str(&i.to_string()),
                        Value::Float(f) => out.push_str(&f.to_string()),
                        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                        other => {
                            return Err(self.report(
                                Diag::new(
                                    "beryl::refs::embed",
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
    fn value_at(&mut self, path_text: &str, span: &Span) -> Result<Node, Fail> {
        let keys: Vec<String> = match crate::syntax::path::parse(path_text) {
            Ok(segs) => segs.into_iter().map(|s| s.text).collect(),
            Err(e) => {
                return Err(self.report(
                    Diag::new(
                        "beryl::refs::path",
                        format!("bad path `{path_text}` in a reference: {e}"),
                    )
                    .label(span, "in this reference")
                    .help("quote a segment that holds `.`, `*` or `\"`: ${a.\"b.c\"}"),
                ));
            }
        };
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
            .take_while(|(l, _)| within(&loc, l))
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
            .take_while(|p| within(&loc, p))
            .cloned()
            .collect();
        for p in below {
            self.resolve_loc(&p)?;
        }
        let Some(size) = self.get(&loc).map(measure) else {
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

    /// Pushing one more frame: within the reference depth limit?
    fn enter(&mut self, span: &Span) -> Result<(), Fail> {
        if self.stack.len() < self.limits.max_ref_depth {
            return Ok(());
        }
        let chain: Vec<String> = self.stack.iter().take(3).map(|f| show(&f.loc)).collect();
        let d = Limit::RefDepth
            .diag(format!(
                "references nest more than {} deep (a chain starting {} → …)",
                self.limits.max_ref_depth,
                chain.join(" → ")
            ))
            .label(span, "this reference is one too many");
        Err(self.breach(d))
    }

    /// Counts values and string bytes that references copy or build.
    fn spend(&mut self, nodes: usize, bytes: usize, span: &Span) -> Result<(), Fail> {
        self.copied.0 = self.copied.0.saturating_add(nodes);
        self.copied.1 = self.copied.1.saturating_add(bytes);
        let (max_nodes, max_bytes) = (self.limits.max_nodes, self.limits.max_string_bytes());
        let what = if self.copied.0 > max_nodes {
            format!("more than {max_nodes} values")
        } else if self.copied.1 > max_bytes {
            format!("more than {max_bytes} bytes of strings")
        } else {
            return Ok(());
        };
        let d = Limit::RefExpansion
            .diag(format!(
                "references copy or build {what} for this host (a reference bomb?)"
            ))
            .label(span, "the budget ran out at this reference");
        Err(self.breach(d))
    }

    /// A value placed at `loc` may not nest the config deeper than the limit.
    fn check_depth(&mut self, loc: &Loc, value: &Node, span: &Span) -> Result<(), Fail> {
        let depth = loc.len() + measure(value).height;
        if depth <= self.limits.max_depth {
            return Ok(());
        }
        let d = Limit::Depth
            .diag(format!(
                "this reference nests the config {depth} levels deep, deeper than {} levels",
                self.limits.max_depth
            ))
            .label(span, "the value placed here is too deep");
        Err(self.breach(d))
    }

    /// Reports a limit breach and stops the resolution.
    fn breach(&mut self, d: Diag) -> Fail {
        self.stopped = true;
        self.report(d)
    }

    /// A cycle: the target is being computed (it holds, or lies inside, a
    /// string or deferred merge on the stack).
    fn check_cycle(&mut self, target: &Loc, path_text: &str, span: &Span) -> Result<(), Fail> {
        let Some(start) = self
            .stack
            .iter()
            .position(|f| within(target, &f.loc) || within(&f.loc, target))
        else {
            return Ok(());
        };
        let names: Vec<String> = self.stack[start..]
            .iter()
            .map(|f| show(&f.loc))
            .chain(std::iter::once(path_text.to_string()))
            .collect();
        let mut d = Diag::new(
            "beryl::refs::cycle",
            format!("reference cycle: {}", names.join(" → ")),
        );
        for f in &self.stack[start..] {
            d = d.label(&f.span, format!("{} = {:?}", show(&f.loc), f.text));
        }
        let _ = span;
        Err(self.report(
            d.help("a value cannot depend on itself; break the cycle with a literal value"),
        ))
    }

    /// Finishes a deferred merge: resolves its values, then merges them.
    fn finish(&mut self, i: usize) -> Result<(), Fail> {
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
                self.resolutions.push(Pending {
                    loc: loc.clone(),
                    done: Resolution {
                        path: Vec::new(),
                        text,
                        span,
                        targets,
                    },
                });
            }
        }
        self.stack.pop();
        result?;
        let merged = self.merged.finish(&d, &values).map_err(|e| {
            self.errors.extend(e);
            Fail::Reported
        })?;
        match (merged, loc.split_last()) {
            (Some(node), _) => {
                self.check_depth(&loc, &node, &span)?;
                if let Some(slot) = self.get_mut(&loc) {
                    *slot = node;
                }
            }
            (None, Some((Seg::Key(k), parent))) => {
                let k = k.clone();
                if let Some(Node {
                    value: Value::Map(m),
                    ..
                }) = self.get_mut(parent)
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

    fn missing(&mut self, path_text: &str, keys: &[String], span: &Span) -> Fail {
        self.missing += 1;
        let mut known = Vec::new();
        if self.missing <= SUGGESTED_MISSING {
            paths(&self.merged.node, &mut Vec::new(), &mut known);
        }
        let wanted = keys.join(".");
        let mut close: Vec<(f64, &String)> = known
            .iter()
            .map(|p| (strsim::jaro_winkler(&wanted, p), p))
            .filter(|(score, _)| *score > 0.7)
            .collect();
        close.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut d = Diag::new(
            "beryl::refs::missing",
            format!("`${{{path_text}}}`: nothing is set at `{path_text}`"),
        )
        .label(span, "referenced here");
        if !close.is_empty() {
            let names: Vec<&str> = close.iter().take(3).map(|(_, p)| p.as_str()).collect();
            d = d.help(format!("the closest existing paths: {}", names.join(", ")));
        }
        self.report(d)
    }

    fn report(&mut self, d: Diag) -> Fail {
        self.errors.push(d);
        Fail::Reported
    }
}

/// The size of a value: its values, its string bytes (keys included) and
/// its nesting height (0 for a scalar).
struct Size {
    nodes: usize,
    bytes: usize,
    height: usize,
}

fn measure(node: &Node) -> Size {
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

/// Every dotted path of the tree (mapping keys only), for suggestions.
fn paths(node: &Node, at: &mut Vec<String>, out: &mut Vec<String>) {
    if let Value::Map(m) = &node.value {
        for (k, e) in m {
            at.push(k.clone());
            out.push(crate::syntax::path::display(at));
            paths(&e.node, at, out);
            at.pop();
        }
    }
}

fn show(loc: &[Seg]) -> String {
    let keys: Vec<String> = loc
        .iter()
        .map(|s| match s {
            Seg::Key(k) => k.clone(),
            Seg::Index(i) => i.to_string(),
        })
        .collect();
    crate::syntax::path::display(&keys)
}

#[cfg(test)]
mod tests;
