//! The YAML 1.1 dialect reclass reads ([`super::Schema::Yaml11`]): PyYAML's
//! `SafeLoader`, over granit-parser's events.
//!
//! Plain scalars resolve by the table of [`resolve`]; quoted and block
//! scalars are strings. `<<` merges a mapping or a list of mappings (the
//! mapping's own keys win, then the earlier mapping of a list); a key
//! written twice keeps its first place and its last value, with a warning.
//! A timestamp keeps its text, and an integer beyond 64 bits is refused
//! (docs/reclass-yaml.md says why). The budgets of [`Limits`] hold as in
//! the core dialect.

mod mapping;
pub(crate) mod resolve;

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use serde_saphyr::granit_parser::{self as granit, Event, Parser, ScalarStyle, Tag};

use super::{Code, Limits, budget_breach};
use crate::diag::Diag;
use crate::value::{Node, Source, Span, Value};
use resolve::{Kind, Refused};

/// Parses one document with any root (null when empty), and the warnings
/// found on the way.
pub(super) fn parse_any(source: &Arc<Source>, limits: &Limits) -> Result<(Node, Vec<Diag>), Diag> {
    let options = super::parser_options(limits);
    let mut composer = Composer {
        source,
        limits,
        events: Parser::new_from_str_with_options(&source.text, options),
        anchors: HashMap::new(),
        warnings: Vec::new(),
        depth: 0,
        nodes: 0,
        bytes: 0,
        aliases: 0,
    };
    let node = composer.stream()?;
    Ok((node, composer.warnings))
}

/// What an anchor names, and what one more use of it costs.
struct Anchored {
    node: Node,
    nodes: usize,
    bytes: usize,
}

/// A node as composed: a value, or a plain `<<` or `=`, which are keys only
/// (a merge key, and the string `=`).
enum Composed {
    Node(Node),
    MergeKey(Span),
    ValueKey(Span),
}

struct Composer<'a> {
    source: &'a Arc<Source>,
    limits: &'a Limits,
    events: Parser<'a, granit::StrInput<'a>>,
    anchors: HashMap<usize, Anchored>,
    warnings: Vec<Diag>,
    depth: usize,
    nodes: usize,
    bytes: usize,
    aliases: usize,
}

impl<'a> Composer<'a> {
    fn next(&mut self) -> Result<(Event<'a>, granit::Span), Diag> {
        match self.events.next() {
            Some(Ok(event)) => Ok(event),
            Some(Err(e)) => Err(self.syntax(&e)),
            None => Err(Diag::new(
                Code::Syntax,
                format!("invalid YAML in {}: unexpected end", self.source.name),
            )),
        }
    }

    fn syntax(&self, e: &granit::ScanError) -> Diag {
        let mark = e.marker();
        let span = self.span_at(mark, mark);
        let info = e.info();
        let message = match info.strip_prefix("recursion limit exceeded") {
            Some(_) => return self.breach("Depth", &span),
            None => info,
        };
        Diag::new(
            Code::Syntax,
            format!("invalid YAML in {}: {message}", self.source.name),
        )
        .label(&span, message)
    }

    fn span(&self, span: &granit::Span) -> Span {
        self.span_at(&span.start, &span.end)
    }

    fn span_at(&self, start: &granit::Marker, end: &granit::Marker) -> Span {
        let text = &self.source.text;
        let line = u32::try_from(start.line()).unwrap_or(u32::MAX);
        let col = u32::try_from(start.col() + 1).unwrap_or(u32::MAX);
        let offset = start
            .byte_offset()
            .unwrap_or_else(|| super::offset_of(text, line, col))
            .min(text.len());
        let offset = super::floor_char_boundary(text, offset);
        let stop = end
            .byte_offset()
            .unwrap_or(offset)
            .clamp(offset, text.len());
        let len = super::floor_char_boundary(text, stop) - offset;
        Span {
            source: Some(self.source.clone()),
            offset,
            len,
            line,
            col,
        }
    }

    /// A budget breach (`kind` as in [`budget_breach`]) at `span`.
    fn breach(&self, kind: &str, span: &Span) -> Diag {
        let (limit, what) = budget_breach(kind, self.limits);
        limit
            .diag(format!("{}: {what}", self.source.name))
            .label(span, what)
    }

    /// Counts a value (and its bytes of text) against the budgets.
    fn count(&mut self, nodes: usize, bytes: usize, span: &Span) -> Result<(), Diag> {
        self.nodes = self.nodes.saturating_add(nodes);
        self.bytes = self.bytes.saturating_add(bytes);
        if self.nodes > self.limits.max_nodes {
            return Err(self.breach("Nodes", span));
        }
        if self.bytes > self.limits.max_string_bytes() {
            return Err(self.breach("ScalarBytes", span));
        }
        Ok(())
    }

    fn count_alias(&mut self, kind: &str, span: &Span) -> Result<(), Diag> {
        self.aliases += 1;
        if self.aliases > self.limits.max_aliases() {
            return Err(self.breach(kind, span));
        }
        Ok(())
    }

    /// The stream: nothing (null), or one document.
    fn stream(&mut self) -> Result<Node, Diag> {
        let mut root = None;
        loop {
            let (event, span) = self.next()?;
            match event {
                Event::StreamStart | Event::DocumentEnd => {}
                Event::StreamEnd => break,
                Event::DocumentStart(..) if root.is_some() => {
                    let span = self.span(&span);
                    return Err(Diag::new(
                        Code::Syntax,
                        format!(
                            "invalid YAML in {}: the file holds several YAML documents; a level file holds one",
                            self.source.name
                        ),
                    )
                    .label(&span, "a second document"));
                }
                Event::DocumentStart(..) => {
                    let (event, span) = self.next()?;
                    root = Some(self.value(event, span)?);
                }
                _ => {}
            }
        }
        Ok(root.unwrap_or_else(|| Node::new(Value::Null, Span::file(self.source))))
    }

    /// A node where a value is expected (not a merge key).
    fn value(&mut self, event: Event<'a>, span: granit::Span) -> Result<Node, Diag> {
        match self.node(event, span)? {
            Composed::Node(node) => Ok(node),
            Composed::MergeKey(span) => Err(symbol(&span, "<<")),
            Composed::ValueKey(span) => Err(symbol(&span, "=")),
        }
    }

    fn node(&mut self, event: Event<'a>, span: granit::Span) -> Result<Composed, Diag> {
        let at = self.span(&span);
        let before = (self.nodes, self.bytes);
        let (node, anchor) = match event {
            Event::Alias(id) => {
                self.count_alias("Aliases", &at)?;
                let Some(anchored) = self.anchors.get(&id) else {
                    return Err(Diag::new(
                        Code::Syntax,
                        format!("invalid YAML in {}: unknown alias", self.source.name),
                    )
                    .label(&at, "no anchor of this name before it"));
                };
                let (nodes, bytes) = (anchored.nodes, anchored.bytes);
                let node = Node::new(anchored.node.value.clone(), at.clone());
                self.count(nodes, bytes, &at)?;
                return Ok(Composed::Node(node));
            }
            Event::Scalar(text, style, anchor, tag) => {
                self.count(1, text.len(), &at)?;
                match self.scalar(text, style, tag, &at)? {
                    Composed::Node(node) => (node, anchor),
                    symbol => return Ok(symbol),
                }
            }
            Event::SequenceStart(_, anchor, tag) => {
                self.collection_tag(tag, "seq", &at)?;
                (self.sequence(at)?, anchor)
            }
            Event::MappingStart(_, anchor, tag) => {
                self.collection_tag(tag, "map", &at)?;
                (self.mapping(at)?, anchor)
            }
            _ => {
                return Err(Diag::new(
                    Code::Syntax,
                    format!("invalid YAML in {}: unexpected event", self.source.name),
                )
                .label(&at, "here"));
            }
        };
        if anchor != 0 {
            self.anchors.insert(
                anchor,
                Anchored {
                    node: node.clone(),
                    nodes: self.nodes - before.0,
                    bytes: self.bytes - before.1,
                },
            );
        }
        Ok(Composed::Node(node))
    }

    fn scalar(
        &mut self,
        text: Cow<'a, str>,
        style: ScalarStyle,
        tag: Option<Cow<'a, Tag>>,
        at: &Span,
    ) -> Result<Composed, Diag> {
        // PyYAML resolves a scalar tagged with the non-specific `!` as if
        // it were plain, quoted or not (`! '12'` is 12).
        let implicit = tag.as_deref().is_none_or(non_specific);
        let kind = match &tag {
            Some(tag) if !implicit => tagged(tag, at)?,
            _ if implicit && (tag.is_some() || style == ScalarStyle::Plain) => {
                resolve::resolve(&text)
            }
            _ => Kind::Str,
        };
        let value = match kind {
            Kind::Merge if implicit => return Ok(Composed::MergeKey(at.clone())),
            Kind::ValueKey if implicit => return Ok(Composed::ValueKey(at.clone())),
            kind => resolve::construct(kind, &text).map_err(|why| refused(why, &text, at))?,
        };
        Ok(Composed::Node(Node::new(value, at.clone())))
    }

    fn collection_tag(&self, tag: Option<Cow<'a, Tag>>, want: &str, at: &Span) -> Result<(), Diag> {
        match tag {
            None => Ok(()),
            Some(t) if non_specific(&t) => Ok(()),
            Some(t) if t.handle() == CORE && t.suffix() == want => Ok(()),
            Some(t) => Err(unsupported(&t, at)),
        }
    }

    fn enter(&mut self, at: &Span) -> Result<(), Diag> {
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            return Err(self.breach("Depth", at));
        }
        Ok(())
    }

    fn sequence(&mut self, at: Span) -> Result<Node, Diag> {
        self.enter(&at)?;
        let mut items = Vec::new();
        loop {
            let (event, span) = self.next()?;
            if let Event::SequenceEnd = event {
                break;
            }
            let item = self.value(event, span)?;
            if items.len() == self.limits.max_list_items {
                let what = format!(
                    "a list holds more than {} items",
                    self.limits.max_list_items
                );
                return Err(crate::limits::Limit::ListItems
                    .diag(format!("{}: {what}", self.source.name))
                    .label(&item.span, what));
            }
            items.push(item);
        }
        self.depth -= 1;
        Ok(Node::new(Value::Seq(items), at))
    }
}

const CORE: &str = "tag:yaml.org,2002:";

/// The non-specific tag `!`.
fn non_specific(tag: &Tag) -> bool {
    matches!((tag.handle(), tag.suffix()), ("!", "") | ("", "!"))
}

/// The kind an explicit tag gives a scalar: `!!str`, `!!int`, `!!float`,
/// `!!bool` or `!!null`.
fn tagged(tag: &Tag, at: &Span) -> Result<Kind, Diag> {
    const KINDS: &[(&str, Kind)] = &[
        ("str", Kind::Str),
        ("int", Kind::Int),
        ("float", Kind::Float),
        ("bool", Kind::Bool),
        ("null", Kind::Null),
    ];
    KINDS
        .iter()
        .find(|(s, _)| tag.handle() == CORE && tag.suffix() == *s)
        .map(|(_, k)| *k)
        .ok_or_else(|| unsupported(tag, at))
}

fn unsupported(tag: &Tag, at: &Span) -> Diag {
    Diag::new(
        Code::Syntax,
        format!(
            "unsupported tag `{}{}`",
            tag.handle().replace(CORE, "!!"),
            tag.suffix()
        ),
    )
    .label(
        at,
        "beryl reads the tags !!str, !!int, !!float, !!bool, !!null, !!seq and !!map",
    )
}

fn refused(why: Refused, text: &str, at: &Span) -> Diag {
    match why {
        Refused::TooBig => Diag::new(
            Code::IntegerRange,
            format!("integer {text} does not fit in 64 bits"),
        )
        .label(at, "out of range")
        .help("quote it to keep it as a string"),
        Refused::Invalid => Diag::new(Code::Yaml11Value, format!("`{text}` has no value here"))
            .label(at, "PyYAML refuses this too")
            .help("quote it to keep it as a string"),
    }
}

/// A plain `<<` or `=` where a value is expected: PyYAML has no value for
/// them (a constructor error).
fn symbol(at: &Span, text: &str) -> Diag {
    Diag::new(
        Code::Yaml11Value,
        format!("a plain `{text}` is a key of YAML 1.1, not a value"),
    )
    .label(at, "PyYAML refuses this too")
    .help(format!("quote it (`'{text}'`) to make it a string"))
}

#[cfg(test)]
mod tests;
