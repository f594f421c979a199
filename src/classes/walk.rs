//! A host's chain with its classes, in merge order (reclass's walk).
//!
//! Each level's classes come before the level's own data, depth-first: a
//! class's own classes come before it. A class is merged at most once per
//! host, at its first occurrence; naming a class that is being expanded (a
//! class that includes itself, directly or not) is a cycle, reported with
//! its path. A class name holding `${…}` is resolved against everything
//! merged before it, through the caller's `resolve`.

use std::collections::HashSet;
use std::sync::Arc;

use super::{ClassedDoc, Code, Library};
use crate::diag::{Diag, Diags};
use crate::inventory::LevelFile;
use crate::value::{Node, Span};

/// One document of an expanded chain.
#[derive(Clone, Debug)]
pub(crate) struct Doc {
    /// The file, relative to the inventory root.
    pub rel: String,
    /// The data, without its `classes`.
    pub node: Arc<Node>,
    /// The class name, for a class file.
    pub class: Option<String>,
    /// Whether the data mentions `$[` (see [`ClassedDoc::queries`]).
    pub queries: bool,
    /// Whether the data holds a query (see [`ClassedDoc::asks`]).
    pub asks: bool,
    /// A reclass file's `environment:`.
    pub environment: Option<String>,
}

/// The documents to merge, lowest priority first, and the classes applied.
#[derive(Debug, Default)]
pub(crate) struct Expanded {
    pub docs: Vec<Doc>,
    pub classes: Vec<String>,
    /// reclass's `classes`: each merged document's class list as written
    /// (relative names resolved, `${…}` not), in merge order, each once.
    pub declared: Vec<String>,
    /// reclass's `applications`, in merge order (see [`Expanded::entity`]).
    pub applications: Vec<String>,
    /// The warnings of the documents read.
    pub warnings: Diags,
    /// Every class name looked up, found or not (for [`Library::paths`]).
    pub probed: Vec<String>,
}

impl Expanded {
    /// A document merges: its classes and applications join the lists.
    /// reclass's rule for applications (kapicorp `datatypes/applications.py`):
    /// within the document, `~x` removes an x listed before it; then every
    /// `~x` removes x from what is already there, and the document's own
    /// applications are appended when new.
    fn entity(&mut self, unit: &ClassedDoc) {
        for name in unit.classes.iter().filter_map(Node::as_str) {
            if !self.declared.iter().any(|d| d == name) {
                self.declared.push(name.to_string());
            }
        }
        let (mut own, mut negated) = (Vec::<&str>::new(), Vec::<&str>::new());
        for app in &unit.applications {
            match app.strip_prefix('~') {
                Some(x) => {
                    negated.push(x);
                    own.retain(|a| *a != x);
                }
                None if !own.contains(&app.as_str()) => own.push(app),
                None => {}
            }
        }
        self.applications.retain(|a| !negated.contains(&a.as_str()));
        for app in own {
            if !self.applications.iter().any(|a| a == app) {
                self.applications.push(app.to_string());
            }
        }
        self.warnings.extend(unit.warnings.iter().cloned());
    }

    /// Whether a document holds a query: the host needs every host's exports.
    pub(crate) fn asks(&self) -> bool {
        self.docs.iter().any(|d| d.asks)
    }
}

/// Resolves a class name holding references against the documents so far.
pub(crate) type Resolve<'r> = dyn FnMut(&[Doc], &str, &Span) -> Result<String, Diags> + 'r;

/// Expands a chain (its level files and their units, most general first).
pub(crate) fn expand(
    library: &Library<'_>,
    levels: &[(&LevelFile, Arc<ClassedDoc>)],
    resolve: &mut Resolve<'_>,
) -> Result<Expanded, Diags> {
    let mut walk = Walk {
        library,
        out: Expanded::default(),
        seen: HashSet::new(),
        stack: Vec::new(),
        errors: Vec::new(),
        resolve,
        stopped: false,
    };
    for (file, unit) in levels {
        for name in &unit.classes {
            walk.visit(name);
        }
        walk.out.entity(unit);
        walk.out.docs.push(Doc {
            rel: file.rel.clone(),
            node: unit.data.clone(),
            class: None,
            queries: unit.queries,
            asks: unit.asks,
            environment: unit.environment.clone(),
        });
    }
    if walk.errors.is_empty() {
        Ok(walk.out)
    } else {
        Err(walk.errors)
    }
}

struct Walk<'w, 'l, 'r> {
    library: &'w Library<'l>,
    out: Expanded,
    seen: HashSet<String>,
    /// The classes being expanded, outermost first, with where each was named.
    stack: Vec<(String, Span)>,
    errors: Diags,
    resolve: &'w mut Resolve<'r>,
    /// The class depth limit was reached: nothing more is visited.
    stopped: bool,
}

impl Walk<'_, '_, '_> {
    fn visit(&mut self, written: &Node) {
        let Some(text) = written.as_str() else {
            return;
        };
        if self.stopped {
            return;
        }
        let span = &written.span;
        let name = if crate::syntax::template::has_reference(text) {
            match (self.resolve)(&self.out.docs, text, span) {
                Ok(name) => name,
                Err(e) => {
                    let help = "a class name sees what is merged before it: the levels above this one, and the classes named before it";
                    self.errors.extend(e.into_iter().map(|mut d| {
                        d.help.get_or_insert_with(|| help.to_string());
                        d
                    }));
                    return;
                }
            }
        } else {
            text.to_string()
        };
        if let Err(why) = self.library.check_name(&name) {
            let shown = if name == text {
                format!("`{name}`")
            } else {
                format!("`{name}` (from {text:?})")
            };
            self.errors.push(
                Diag::new(
                    Code::Name,
                    format!("{shown} is not a valid class name: {why}"),
                )
                .label(span, "this class")
                .help("a class name is dotted segments, like roles.backup: the file _classes/roles/backup.yml"),
            );
            return;
        }
        if let Some(start) = self.stack.iter().position(|(n, _)| *n == name) {
            self.cycle(start, &name, span);
            return;
        }
        if self.seen.contains(&name) {
            return;
        }
        self.out.probed.push(name.clone());
        let class = match self.library.class(&name) {
            Ok(Some(class)) => class,
            Ok(None) => {
                self.missing(&name, text, span);
                return;
            }
            Err(e) => {
                self.errors.extend(e);
                return;
            }
        };
        let max = self.library.limits.max_class_depth;
        if self.stack.len() >= max {
            // A chain 50,000 classes deep overflowed the stack.
            self.stopped = true;
            let outer: Vec<&str> = self.stack.iter().take(3).map(|(n, _)| n.as_str()).collect();
            self.errors.push(
                crate::limits::Limit::ClassDepth
                    .diag(format!(
                        "classes include one another more than {max} deep (a chain starting {} → …)",
                        outer.join(" → ")
                    ))
                    .label(span, "this class is one too many"),
            );
            return;
        }
        self.stack.push((name.clone(), span.clone()));
        for inner in &class.unit.classes {
            self.visit(inner);
        }
        self.stack.pop();
        self.seen.insert(name.clone());
        self.out.entity(&class.unit);
        self.out.classes.push(name);
        self.out.docs.push(Doc {
            rel: class.file.rel.clone(),
            node: class.unit.data.clone(),
            class: Some(class.name.clone()),
            queries: class.unit.queries,
            asks: class.unit.asks,
            environment: class.unit.environment.clone(),
        });
    }

    fn cycle(&mut self, start: usize, name: &str, span: &Span) {
        let names: Vec<&str> = self.stack[start..]
            .iter()
            .map(|(n, _)| n.as_str())
            .chain(std::iter::once(name))
            .collect();
        let mut d = Diag::new(Code::Cycle, format!("class cycle: {}", names.join(" → ")))
            .label(span, format!("`{name}` is named again here"));
        for (n, at) in &self.stack[start..] {
            d = d.label(at, format!("`{n}` named here"));
        }
        self.errors
            .push(d.help("a class cannot include itself, directly or through other classes"));
    }

    fn missing(&mut self, name: &str, text: &str, span: &Span) {
        match self.library.settings() {
            Ok(s) if s.ignores_missing(name) => {
                if self.library.warns_skipped() {
                    self.out.warnings.push(
                        Diag::warning(Code::Skipped, format!("class `{name}` not found: skipped"))
                            .label(span, "named here"),
                    );
                }
                return;
            }
            Ok(_) => {}
            Err(e) => {
                self.errors.extend(e);
                return;
            }
        }
        let shown = if name == text {
            format!("`{name}`")
        } else {
            format!("`{name}` (from {text:?})")
        };
        self.errors.push(
            Diag::new(Code::NotFound, format!("the class {shown} does not exist"))
                .label(span, "named here")
                .help(self.library.missing_help(name)),
        );
    }
}
