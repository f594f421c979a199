//! `beryl render --annotate`: the YAML render with a trailing comment on every
//! scalar and list item, naming the file and line of the value that won.
//!
//! Nothing here writes YAML. The plain render ([`super::to_string`]) is parsed
//! again with beryl's own loader, which gives the place of every value in the
//! rendered text; walking the config and that tree side by side (they have the
//! same shape) pairs each value with its rendered line, and `  # note` is
//! appended to the line. So the annotated text is the plain text with comments
//! at the end of some lines, and stripping them gives the plain render back.
//!
//! The notes:
//!
//! - `file:line`: where the value was written (the level that won);
//! - `computed`: a value beryl made (the `_beryl_` header);
//! - `injected: file:line`: a domain key injected at the head of a user's
//!   `ssh_keys`, with the `_domain.yml` entry that named it;
//! - `TEXT at file:line ← file:line, …`: a string with references, as written
//!   and where, then where each value it read was written.
//!
//! Which line: a scalar's, an empty `{}` or `[]`'s, a block scalar's `|`
//! header line; a list item's first line when no scalar starts on it (an item
//! whose first key holds a mapping). One comment per line: the first scalar
//! that starts on the line wins, then the list item.

use std::collections::HashMap;

use super::Format;
use crate::compile::{Compiled, UserKeys};
use crate::diag::Diag;
use crate::refs::Resolution;
use crate::value::{Loc, Node, Source, Span, Step, Value};
use crate::yaml::Limits;

/// The notes that differ from a value's own span (injected keys, references),
/// by location in the rendered tree. Every other value is noted by its span.
#[derive(Debug, Default)]
pub(crate) struct Notes {
    at: HashMap<Loc, String>,
}

impl Notes {
    /// The notes of one host's compile: its injected domain keys and the
    /// strings whose references were resolved.
    pub(crate) fn for_host(compiled: &Compiled) -> Self {
        Self::from_parts(&compiled.config, &compiled.references, &compiled.users)
    }

    /// [`Notes::for_host`] from the parts of a compile.
    pub(crate) fn from_parts(config: &Node, references: &[Resolution], users: &[UserKeys]) -> Self {
        let mut notes = Notes::default();
        for r in references {
            notes.reference(config, r);
        }
        notes.injected(config, users);
        notes
    }

    /// The same notes for the tree placed under `key` of a mapping (the
    /// FQDN → config mapping of a render of several hosts).
    pub(crate) fn under(self, key: &str) -> Self {
        let at = self
            .at
            .into_iter()
            .map(|(loc, note)| {
                let mut full = Vec::with_capacity(loc.len() + 1);
                full.push(Step::Key(key.to_string()));
                full.extend(loc.iter().cloned());
                (Loc::from(full), note)
            })
            .collect();
        Self { at }
    }

    fn set(&mut self, loc: Loc, note: String) {
        self.at.entry(loc).or_insert(note);
    }

    /// The domain keys at the head of each user's `ssh_keys`.
    fn injected(&mut self, config: &Node, keys: &[UserKeys]) {
        let Some(users) = config
            .get("freebsd")
            .and_then(|f| f.get("users"))
            .and_then(Node::as_seq)
        else {
            return;
        };
        for (i, user) in users.iter().enumerate() {
            let name = user.get("name").and_then(Node::as_str).unwrap_or_default();
            // `users` follows the config's user order; match by name as well.
            let Some(own) = keys
                .get(i)
                .filter(|u| u.name == name)
                .or_else(|| keys.iter().find(|u| u.name == name))
            else {
                continue;
            };
            let Some(list) = user.get("ssh_keys").and_then(Node::as_seq) else {
                continue;
            };
            for (j, key) in list.iter().take(own.from_domain).enumerate() {
                let loc = Loc::from(vec![
                    Step::Key("freebsd".into()),
                    Step::Key("users".into()),
                    Step::Index(i),
                    Step::Key("ssh_keys".into()),
                    Step::Index(j),
                ]);
                // Injected last, so it wins over anything else at the place.
                self.at
                    .insert(loc, format!("injected: {}", span_note(&key.span)));
            }
        }
    }

    /// A resolved string: the value at its place, and everything below it
    /// when the reference brought a whole mapping or list.
    fn reference(&mut self, config: &Node, r: &Resolution) {
        if r.targets.is_empty() {
            // Only escapes (`\${x}`): a plain string.
            return;
        }
        let Some(node) = r.loc.at(config) else {
            // Not rendered there (the exports move under `_beryl_`).
            return;
        };
        // The place must still hold this resolution's value: the string as
        // written (embedded references) or the referenced value (a whole
        // reference). The keys lists are rebuilt after resolution (the
        // domain's keys first), so what is at an item's place may be another
        // key.
        let whole_target = r.targets.last().map(|(_, s)| s);
        let ours =
            node.span.identical(&r.span) || whole_target.is_some_and(|t| node.span.identical(t));
        if !ours {
            return;
        }
        let head = format!("{} at {}", clean(&r.text), span_note(&r.span));
        let mut targets: Vec<String> = Vec::new();
        for (_, span) in &r.targets {
            let t = span_note(span);
            if !targets.contains(&t) {
                targets.push(t);
            }
        }
        let top = r.loc.len();
        node.walk(&mut r.loc.clone(), &mut |loc, n| {
            let read = if loc.len() == top {
                targets.join(", ")
            } else {
                span_note(&n.span)
            };
            self.set(loc.clone(), format!("{head} ← {read}"));
            true
        });
    }
}

/// `file:line` of a span, or `computed` for a value beryl made.
pub(crate) fn span_note(span: &Span) -> String {
    match span.file_name() {
        Some(file) => clean(&format!("{file}:{}", span.line)),
        None => "computed".to_string(),
    }
}

/// Text fit for a one-line comment: control characters and Unicode line
/// breaks are escaped.
fn clean(text: &str) -> String {
    crate::value::repr::visible(text, &[])
}

/// Renders a node as YAML with a provenance comment on every scalar and list
/// item. `notes` overrides the span-based note where it has one.
pub(crate) fn to_string(node: &Node, notes: &Notes) -> Result<String, Diag> {
    let plain = super::to_string(node, Format::Yaml)?;
    let parsed = reparse(&plain, "the render")?;
    let mut marks = Marks::new(&plain);
    walk(node, &parsed, &mut Loc::root(), notes, &mut marks)?;
    let text = marks.apply();
    // A safety net: the comments must not change what the text says.
    let again = reparse(&text, "the annotated render")?;
    if !again.value.same(&parsed.value) {
        return Err(internal("the comments changed the rendered data"));
    }
    Ok(text)
}

fn reparse(text: &str, what: &str) -> Result<Node, Diag> {
    // The config was loaded within the limits; the FQDN mapping and
    // `_beryl_` add a level or two, and merged lists may be longer than any
    // one file's.
    let limits = Limits::for_output(u64::try_from(text.len()).unwrap_or(u64::MAX));
    crate::yaml::parse_any(&Source::new(what, text), &limits)
        .map_err(|d| internal(&format!("{what} does not read back: {}", d.message)))
}

fn internal(message: &str) -> Diag {
    Diag::new(
        crate::output::Code::Annotate,
        format!("cannot annotate the render: {message}"),
    )
    .help("this is a bug in beryl; the plain `beryl render` still works")
}

/// How strongly a value claims a line: a scalar beats the list item it
/// starts, so `- name: alice` is noted for `alice`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Claim {
    Scalar,
    Item,
}

/// The rendered text by lines, and the note chosen for each line.
struct Marks<'t> {
    text: &'t str,
    /// The byte offset where each line starts.
    starts: Vec<usize>,
    notes: Vec<Option<(Claim, String)>>,
}

impl<'t> Marks<'t> {
    fn new(text: &'t str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1)
                .filter(|&i| i < text.len()),
        );
        let notes = vec![None; starts.len()];
        Self {
            text,
            starts,
            notes,
        }
    }

    /// The 0-based line holding a byte offset.
    fn line_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }

    /// The line where a rendered value starts, for its comment.
    fn line_for(&self, rendered: &Node) -> usize {
        let span = &rendered.span;
        let text = self.text;
        let at = span.offset.min(text.len());
        // A block scalar's span starts at its content (or past it, when the
        // content is only blank lines): its `|` header is the last text before
        // it. With no content at all, the span is the header. A quoted scalar
        // follows its key or dash instead.
        if matches!(&rendered.value, Value::Str(s) if s.contains('\n')) {
            let before = text[..at].trim_end();
            let token = before.rsplit([' ', '\n']).next().unwrap_or(before);
            if token.starts_with(['|', '>']) {
                return self.line_of(before.len().saturating_sub(1));
            }
            if text[at..].starts_with(['|', '>']) {
                return self.line_of(at);
            }
        }
        // A flow scalar on several lines takes the comment after its end.
        let end = (at + span.len).saturating_sub(1).max(at);
        self.line_of(end)
    }

    fn claim(&mut self, line: usize, claim: Claim, note: String) {
        let slot = &mut self.notes[line];
        if slot.as_ref().is_none_or(|(c, _)| claim < *c) {
            *slot = Some((claim, note));
        }
    }

    fn apply(self) -> String {
        let mut out = String::with_capacity(self.text.len() * 2);
        for (line, note) in self.notes.iter().enumerate() {
            let start = self.starts[line];
            let end = self
                .starts
                .get(line + 1)
                .copied()
                .unwrap_or(self.text.len());
            let raw = &self.text[start..end];
            match note {
                Some((_, note)) => {
                    let body = raw.strip_suffix('\n');
                    out.push_str(body.unwrap_or(raw));
                    out.push_str("  # ");
                    out.push_str(note);
                    if body.is_some() {
                        out.push('\n');
                    }
                }
                None => out.push_str(raw),
            }
        }
        out
    }
}

/// A value without children in the rendered text: a scalar, `{}` or `[]`.
fn is_leaf(v: &Value) -> bool {
    match v {
        Value::Map(m) => m.is_empty(),
        Value::Seq(s) => s.is_empty(),
        _ => true,
    }
}

fn note_for(node: &Node, loc: &Loc, notes: &Notes) -> String {
    notes
        .at
        .get(loc)
        .cloned()
        .unwrap_or_else(|| span_note(&node.span))
}

/// Walks the config and its re-parsed render side by side.
fn walk(
    config: &Node,
    rendered: &Node,
    loc: &mut Loc,
    notes: &Notes,
    marks: &mut Marks,
) -> Result<(), Diag> {
    let mismatch = |loc: &Loc| {
        internal(&format!(
            "the render does not read back the same at `{}`",
            crate::syntax::path::display(&loc.plain())
        ))
    };
    match (&config.value, &rendered.value) {
        (Value::Map(a), Value::Map(b)) if !a.is_empty() => {
            if a.len() != b.len() {
                return Err(mismatch(loc));
            }
            for ((ka, ea), (kb, eb)) in a.iter().zip(b) {
                if ka != kb {
                    return Err(mismatch(loc));
                }
                loc.push(Step::Key(ka.clone()));
                walk(&ea.node, &eb.node, loc, notes, marks)?;
                loc.pop();
            }
        }
        (Value::Seq(a), Value::Seq(b)) if !a.is_empty() => {
            if a.len() != b.len() {
                return Err(mismatch(loc));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                loc.push(Step::Index(i));
                if !is_leaf(&x.value) {
                    let line = marks.line_of(y.span.offset);
                    marks.claim(line, Claim::Item, note_for(x, loc, notes));
                }
                walk(x, y, loc, notes, marks)?;
                loc.pop();
            }
        }
        // Scalars of any type (the walk checks the shape, not the values).
        (a, b) if is_leaf(a) && is_leaf(b) && is_container(a) == is_container(b) => {
            let line = marks.line_for(rendered);
            marks.claim(line, Claim::Scalar, note_for(config, loc, notes));
        }
        _ => return Err(mismatch(loc)),
    }
    Ok(())
}

fn is_container(v: &Value) -> bool {
    matches!(v, Value::Map(_) | Value::Seq(_))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::{Policy, merge_documents};
    use crate::value::{Entry, Map};

    fn parse(name: &str, text: &str) -> Node {
        crate::yaml::parse(&Source::new(name, text), &Limits::default()).unwrap()
    }

    fn plain(node: &Node) -> String {
        super::super::to_string(node, Format::Yaml).unwrap()
    }

    /// Each annotated line is the plain line, or the plain line and a comment.
    fn assert_strips_to_plain(annotated: &str, plain: &str) {
        let a: Vec<&str> = annotated.split('\n').collect();
        let p: Vec<&str> = plain.split('\n').collect();
        assert_eq!(a.len(), p.len(), "{annotated}");
        for (x, y) in a.iter().zip(&p) {
            assert!(
                *x == *y
                    || x.strip_prefix(y)
                        .is_some_and(|rest| rest.starts_with("  # ")),
                "{x:?} is not {y:?} with a comment"
            );
        }
    }

    #[test]
    fn every_scalar_and_item_names_its_file_and_line() {
        let node = parse(
            "l.yml",
            "a: 1\nb:\n  c: [x, \"y z\"]\n  d: {}\n  e: []\nf: null\ng: 1.5\nh: true\n",
        );
        let text = to_string(&node, &Notes::default()).unwrap();
        assert_eq!(
            text,
            "a: 1  # l.yml:1\nb:\n  c:\n  - x  # l.yml:3\n  - y z  # l.yml:3\n  d: {}  # l.yml:4\n  \
             e: []  # l.yml:5\nf: null  # l.yml:6\ng: 1.5  # l.yml:7\nh: true  # l.yml:8\n"
        );
        assert_strips_to_plain(&text, &plain(&node));
    }

    #[test]
    fn block_scalars_take_the_comment_on_their_header() {
        // The parser's span of a block scalar starts at its content, past it
        // when the content is only blank lines, or at the `|` when there is
        // none; content may start with `"` or `|`.
        let node = parse(
            "l.yml",
            "a: |\n  one\n  two\nb:\n  - \"\\n\"\n  - \"\\nfoo\"\n  - \" lead\\nx\\n\\n\"\n\
             c: [{k: \"\\n\"}, \"|x\\ny\", \"\\\"\\n\"]\nd: end\n",
        );
        let text = to_string(&node, &Notes::default()).unwrap();
        assert_eq!(
            text,
            "a: |  # l.yml:2\n  one\n  two\nb:\n- |+  # l.yml:5\n\n- |-  # l.yml:6\n\n  foo\n\
             - |2+  # l.yml:7\n   lead\n  x\n\nc:\n- k: |+  # l.yml:8\n\n- |-  # l.yml:8\n  |x\n  y\n\
             - |  # l.yml:8\n  \"\nd: end  # l.yml:9\n"
        );
        assert_strips_to_plain(&text, &plain(&node));
        // Blank content at the very end: the span is the `|` itself.
        let node = parse("l.yml", "l: [{k: \"\\n\"}]\n");
        let text = to_string(&node, &Notes::default()).unwrap();
        assert_eq!(text, "l:\n- k: |+  # l.yml:1\n\n");
    }

    #[test]
    fn an_item_line_takes_its_scalar_or_else_the_item() {
        let node = parse(
            "l.yml",
            "users:\n  - name: alice\n    uid: 1\n  - k:\n      z: 1\n  - - p\n    - q\n",
        );
        let text = to_string(&node, &Notes::default()).unwrap();
        assert_eq!(
            text,
            "users:\n- name: alice  # l.yml:2\n  uid: 1  # l.yml:3\n- k:  # l.yml:4\n    \
             z: 1  # l.yml:5\n- - p  # l.yml:6\n  - q  # l.yml:7\n"
        );
    }

    #[test]
    fn computed_values_say_so() {
        let mut m = Map::new();
        m.insert(
            "fqdn".into(),
            Entry {
                key_span: Span::synthetic(),
                node: Node::str("h.example.org"),
            },
        );
        let node = Node::synthetic(Value::Map(m));
        let text = to_string(&node, &Notes::default()).unwrap();
        assert_eq!(text, "fqdn: h.example.org  # computed\n");
    }

    /// Merges levels with Beryl's rules and resolves the references.
    fn compile(texts: &[&str]) -> (Node, Vec<Resolution>) {
        let nodes: Vec<Node> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| parse(&format!("l{i}.yml"), t))
            .collect();
        let docs: Vec<&Node> = nodes.iter().collect();
        let mut merged = merge_documents(&docs, &Policy::beryl(), None).unwrap();
        let refs = crate::refs::resolve(&mut merged, &Limits::default()).unwrap();
        (merged.node, refs)
    }

    #[test]
    fn references_name_the_string_and_what_it_read() {
        let (node, refs) = compile(&[
            "site: {owner: ops, tags: [a, b]}\nport: 80\n",
            "freebsd:\n  users:\n    - name: bob\n      comment: \"${site.owner} on ${port}\"\n\
             o: ${site.owner}\nt: ${site.tags}\ne: \"\\\\${x}\"\n",
        ]);
        let notes = Notes::from_parts(&node, &refs, &[]);
        let text = to_string(&node, &notes).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.contains(&"  - name: bob  # l1.yml:3"), "{text}");
        assert!(
            lines.contains(
                &"    comment: ops on 80  # ${site.owner} on ${port} at l1.yml:4 ← l0.yml:1, l0.yml:2"
            ),
            "{text}"
        );
        assert!(
            lines.contains(&"o: ops  # ${site.owner} at l1.yml:5 ← l0.yml:1"),
            "{text}"
        );
        // A whole list: each item says where it was written.
        assert!(
            lines.contains(&"- a  # ${site.tags} at l1.yml:6 ← l0.yml:1"),
            "{text}"
        );
        // Only an escape: a plain string.
        assert!(lines.contains(&"e: ${x}  # l1.yml:7"), "{text}");
    }

    #[test]
    fn injected_keys_say_so() {
        let (node, refs) = compile(&[
            "freebsd:\n  users:\n    - name: a\n      ssh_keys: [dom, own]\n    - name: b\n      ssh_keys: [dom]\n",
        ]);
        let users = [
            UserKeys {
                name: "b".into(),
                keys: Vec::new(),
                from_domain: 1,
            },
            UserKeys {
                name: "a".into(),
                keys: Vec::new(),
                from_domain: 1,
            },
        ];
        let text = to_string(&node, &Notes::from_parts(&node, &refs, &users)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines
                .iter()
                .filter(|l| l.ends_with("# injected: l0.yml:4"))
                .count(),
            1,
            "{text}"
        );
        assert!(lines.contains(&"    - own  # l0.yml:4"), "{text}");
        assert!(lines.contains(&"    - dom  # injected: l0.yml:6"), "{text}");
    }

    #[test]
    fn notes_stay_on_one_line() {
        assert_eq!(clean("a\nb\u{2028}c\td"), "a\\nb\\u{2028}c\\td");
    }

    #[test]
    fn notes_move_under_a_key() {
        let (node, refs) = compile(&["a: 1\nb: ${a}\n"]);
        let notes = Notes::from_parts(&node, &refs, &[]).under("h.example.org");
        let mut m = Map::new();
        m.insert(
            "h.example.org".into(),
            Entry {
                key_span: Span::synthetic(),
                node,
            },
        );
        let text = to_string(&Node::synthetic(Value::Map(m)), &notes).unwrap();
        assert_eq!(
            text,
            "h.example.org:\n  a: 1  # l0.yml:1\n  b: 1  # ${a} at l0.yml:2 ← l0.yml:1\n"
        );
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        fn leaf() -> impl Strategy<Value = Value> {
            prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::Bool),
                any::<i64>().prop_map(Value::Int),
                any::<f64>()
                    .prop_filter("finite", |f| f.is_finite())
                    .prop_map(Value::Float),
                any::<String>().prop_map(Value::Str),
                "[ a#:|>\\-\"'\n\t]{0,12}".prop_map(Value::Str),
            ]
        }

        fn tree() -> impl Strategy<Value = Node> {
            leaf()
                .prop_map(Node::synthetic)
                .prop_recursive(4, 48, 6, |inner| {
                    prop_oneof![
                        prop::collection::vec(inner.clone(), 0..6)
                            .prop_map(|items| Node::synthetic(Value::Seq(items))),
                        prop::collection::vec((any::<String>(), inner), 0..6).prop_map(|pairs| {
                            let m: Map = pairs
                                .into_iter()
                                .map(|(k, node)| {
                                    let key_span = Span::synthetic();
                                    (k, Entry { key_span, node })
                                })
                                .collect();
                            Node::synthetic(Value::Map(m))
                        }),
                    ]
                })
        }

        proptest! {
            #[test]
            fn any_tree_annotates_and_strips_to_the_plain_render(node in tree()) {
                let text = to_string(&node, &Notes::default()).unwrap();
                assert_strips_to_plain(&text, &plain(&node));
            }
        }
    }
}
