//! YAML loading with spans and budgets.
//!
//! Entry point: [`load_file`] (or [`parse`] for text already in memory). The
//! dialect is YAML 1.2 core: `yes`/`no`/`on`/`off` stay strings, `0644` stays the
//! string "0644", duplicate keys are an error at the second key, unknown tags are
//! an error, anchors and aliases work within an expansion budget and merge keys
//! `<<` are applied. Every node keeps its file, line, column and byte span.
//!
//! The `*_as` entry points take a [`Schema`]: [`Schema::Core`] is the above,
//! [`Schema::Yaml11`] the YAML 1.1 reclass reads (yaml11/, docs/reclass-yaml.md).

mod raw;
mod schema;
pub(crate) mod spelling;
mod yaml11;

pub use schema::{Loaded, Schema, load_file_as, parse_any_as, parse_as};
pub(crate) use yaml11::resolve::python_float;

use std::path::Path;
use std::sync::Arc;

use crate::diag::{Common, Diag};
use crate::fsutil::{ReadError, read_capped, utf8_error_position};
use crate::value::{Entry, Map, Node, Source, Span, Value};
use raw::Raw;

use crate::limits::Limit;
pub use crate::limits::{DEFAULT_MAX_FILE_SIZE, Limits};

crate::diag::codes! {
    /// The codes of YAML loading.
    pub(crate) enum Code in "yaml" {
        /// A file is not valid UTF-8.
        Utf8 = "utf8";
        /// A document whose root is not a mapping where one is needed (a level, class or settings file).
        RootNotMapping = "root_not_mapping";
        /// Invalid YAML: the parser's error, at its place.
        Syntax = "syntax";
        /// An integer that does not fit in 64 bits.
        IntegerRange = "integer_range";
        /// A mapping key that is not a string.
        KeyType = "key_type";
        /// A key written twice in one mapping (reported at the second).
        DuplicateKey = "duplicate_key";
        /// In the YAML 1.1 dialect (reclass), a key written twice in one mapping: the last value is kept.
        DuplicateKeyLastWins = "duplicate_key_last_wins", warning;
        /// In the YAML 1.1 dialect (reclass), a plain scalar PyYAML has no value for (`=` or `<<` as a value, `0x_`), or a merge key on what is not a mapping.
        Yaml11Value = "yaml11_value";
    }
}

/// Reads a file within the size cap and parses it. `name` is how the file is
/// shown in diagnostics.
pub fn load_file(path: &Path, name: &str, limits: &Limits) -> Result<Node, Diag> {
    let text = read_text(path, name, limits.max_file_size)?;
    parse(&Source::new(name, text), limits)
}

/// Reads a text file within a size cap (`--max-file-size`), refusing
/// invalid UTF-8.
pub(crate) fn read_text(path: &Path, name: &str, max: u64) -> Result<String, Diag> {
    read_capped_text(path, name, max, || Limit::FileSize.help())
}

/// Reads a file beryl wrote itself (a render directory's files, its
/// manifest and journal, an `apply --state` snapshot), within the fixed
/// [`crate::limits::MAX_OUTPUT_FILE_SIZE`].
pub(crate) fn read_output(path: &Path, name: &str) -> Result<String, Diag> {
    read_capped_text(path, name, crate::limits::MAX_OUTPUT_FILE_SIZE, || {
        "beryl reads back files of its own output up to this size; is this beryl's output? \
         (see docs/limits.md)"
            .to_string()
    })
}

fn read_capped_text(
    path: &Path,
    name: &str,
    max: u64,
    help: impl Fn() -> String,
) -> Result<String, Diag> {
    let bytes = read_capped(path, max).map_err(|e| match e {
        ReadError::NotAFile => Diag::new(Common::Io, format!("{name} is not a regular file")),
        ReadError::TooLarge => Diag::new(
            Limit::FileSize,
            format!("{name} is larger than the {max}-byte file size cap"),
        )
        .help(help()),
        ReadError::Io(e) => Diag::new(Common::Io, format!("cannot read {name}: {e}")),
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let (line, byte) = utf8_error_position(&e);
        Diag::new(
            Code::Utf8,
            format!("{name}:{line}: the file is not valid UTF-8 (byte {byte})"),
        )
    })
}

/// The text a node was read from, when its span covers it in a loaded file:
/// a plain scalar as written, a quoted one with its quotes, `""` for an
/// empty value (`key:` with nothing after it).
pub(crate) fn written(node: &Node) -> Option<&str> {
    let source = node.span.source.as_deref()?;
    source
        .text
        .get(node.span.offset..node.span.offset.checked_add(node.span.len)?)
}

/// Parses one YAML document into a mapping node. An empty document (or one
/// holding only comments) is an empty mapping; any other non-mapping root is an
/// error.
pub fn parse(source: &Arc<Source>, limits: &Limits) -> Result<Node, Diag> {
    mapping_root(parse_any(source, limits)?)
}

/// A document's root as a mapping: null (an empty document) is an empty
/// mapping, another scalar or a list an error.
fn mapping_root(node: Node) -> Result<Node, Diag> {
    match node.value {
        Value::Map(_) => Ok(node),
        Value::Null => Ok(Node::new(Value::Map(Map::new()), node.span)),
        ref other => Err(Diag::new(
            Code::RootNotMapping,
            format!(
                "the document's root is {}, not a mapping",
                other.type_name()
            ),
        )
        .label(&node.span, "this must be a mapping of keys to values")),
    }
}

/// Parses one YAML (or JSON) document with any root. An empty document is null.
pub fn parse_any(source: &Arc<Source>, limits: &Limits) -> Result<Node, Diag> {
    let opts = serde_saphyr::options! {
        strict_booleans: true,
        leading_zero_numbers_as_strings: true,
        underscored_numbers_as_strings: true,
        reject_unsupported_tags: true,
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::PassThrough,
        // Every budget derives from the user's limits (crate::limits).
        budget: serde_saphyr::budget! {
            max_depth: limits.max_depth,
            flow_nesting_limit: limits.max_depth,
            max_nodes: limits.max_nodes,
            max_events: limits.max_nodes.saturating_mul(4),
            max_reader_input_bytes: Some(usize::try_from(limits.max_file_size).unwrap_or(usize::MAX)),
            max_total_scalar_bytes: limits.max_string_bytes(),
            max_recorded_anchor_bytes: limits.max_string_bytes(),
            max_recorded_anchor_events: limits.max_nodes,
            max_aliases: limits.max_aliases(),
            max_anchors: limits.max_aliases(),
            max_merge_keys: limits.max_aliases(),
            // The ratio heuristic refused a plain file using one anchor 300
            // times; the value and string budgets (aliases expanded) stop
            // the bombs it was meant for.
            enforce_alias_anchor_ratio: false,
        },
    };
    // YAML's blanks only: a no-break space is content (`"\u{a0}"` is a string).
    if source
        .text
        .trim_matches([' ', '\t', '\n', '\r', '\u{feff}'])
        .is_empty()
    {
        return Ok(Node::new(Value::Null, Span::file(source)));
    }
    let parsed = raw::with_list_cap(limits.max_list_items, || {
        serde_saphyr::from_str_with_options::<serde_saphyr::Spanned<Raw>>(&source.text, opts)
    });
    let raw = parsed.map_err(|e| syntax_error(source, &e, limits))?;
    convert(source, raw, limits)
}

/// A string as YAML 1.2 reads it: the parser's value, except for a block
/// scalar that ends the input on a line with no line break.
///
/// YAML 1.2.2 §8.1.1.2 (Block Chomping Indicator), production [165]
/// `b-chomped-last(t)`: with clip (`|`, `>`) and keep (`|+`, `>+`)
/// chomping the final line break is content only when there is one; at the
/// end of the input (`<end-of-input>`) there is none, so `"a: |\n  x"` is
/// `"x"`, as libyaml and PyYAML read it. granit-parser (under serde-saphyr)
/// adds a line feed there by default, following yaml-test-suite's L24T; its
/// option `block_scalar_eof_without_line_feed` reads it as libyaml does, but
/// serde-saphyr 2.2 does not pass it on. So only for the scalar at hand — a
/// string that ends where the text ends, with no line break there, the one
/// place the two readings differ — the text is read again with that option
/// and the block scalar ending the input takes that reading's value, if the
/// parser's spans say it is this one. Nothing is trimmed by hand.
fn scalar_value(source: &Source, span: &Span, value: String, limits: &Limits) -> String {
    let text = &source.text;
    // The default reading differs by a line feed at the end: a value without
    // one, or one not ending the text, or a text ending in a line break, is read
    // the same either way.
    if !value.ends_with('\n')
        || span.offset + span.len != text.len()
        || text.ends_with(['\n', '\r'])
    {
        return value;
    }
    match eof_block_scalar(text, limits) {
        Some((offset, libyaml)) if offset == span.offset => libyaml,
        _ => value,
    }
}

/// granit-parser's options when beryl reads its events itself: a block
/// scalar ending the input without a line break ends without one (as libyaml
/// and PyYAML read it, [`scalar_value`]), the nesting limits serde-saphyr
/// derives from the budget in [`parse_any`] (so that both readings accept
/// the same texts), and no comment events.
pub(super) fn parser_options(limits: &Limits) -> serde_saphyr::granit_parser::Options {
    let mut options = serde_saphyr::granit_parser::Options::default();
    options.block_scalar_eof_without_line_feed = true;
    options.flow_nesting_limit = limits.max_depth;
    options.block_nesting_limit = options
        .block_nesting_limit
        .max(limits.max_depth.saturating_add(1));
    options.set_emit_comments(false);
    options
}

/// The byte offset and value of the block scalar (literal or folded) that
/// ends `text`, read with granit-parser's `block_scalar_eof_without_line_feed`
/// ([`scalar_value`]); `None` when no block scalar ends the text (or, which a
/// text serde-saphyr has just parsed never does, the parser fails).
fn eof_block_scalar(text: &str, limits: &Limits) -> Option<(usize, String)> {
    use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle};
    for event in Parser::new_from_str_with_options(text, parser_options(limits)) {
        let (event, span) = event.ok()?;
        if let Event::Scalar(value, ScalarStyle::Literal | ScalarStyle::Folded, ..) = event
            && span.end.byte_offset() == Some(text.len())
        {
            return Some((span.start.byte_offset()?, value.into_owned()));
        }
    }
    None
}

fn span_of(source: &Arc<Source>, loc: &serde_saphyr::Location) -> Span {
    let s = loc.span();
    let line = u32::try_from(loc.line()).unwrap_or(u32::MAX);
    let col = u32::try_from(loc.column()).unwrap_or(u32::MAX);
    let text = &source.text;
    let offset = match s.byte_offset() {
        Some(o) => usize::try_from(o).unwrap_or(usize::MAX),
        // Some parser errors carry only a line and a (character) column.
        None => offset_of(text, line, col),
    };
    let offset = floor_char_boundary(text, offset.min(text.len()));
    let len = usize::try_from(s.byte_len().unwrap_or(0)).unwrap_or(0);
    let len = floor_char_boundary(text, (offset + len).min(text.len())) - offset;
    Span {
        source: Some(source.clone()),
        offset,
        len,
        line,
        col,
    }
}

/// The byte offset of a 1-based line and character column.
fn offset_of(text: &str, line: u32, col: u32) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1) as usize)
        .map(str::len)
        .sum();
    let rest = &text[start.min(text.len())..];
    let within = rest
        .char_indices()
        .nth(col.saturating_sub(1) as usize)
        .map_or(rest.len(), |(i, _)| i);
    start + within
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn syntax_error(source: &Arc<Source>, err: &serde_saphyr::Error, limits: &Limits) -> Diag {
    let mut message = first_line(&err.without_snippet().render());
    if message.starts_with("multiple YAML documents") {
        message = "the file holds several YAML documents; a level file holds one".to_string();
    }
    // The parser's advice names one of its own options, which no user can set.
    if message.starts_with("!!binary scalar is not valid UTF-8") {
        message = "this !!binary value does not decode to UTF-8 text".to_string();
    }
    let help = matches!(
        message.as_str(),
        "simple key expected ':'" | "mapping values are not allowed in this context"
    )
    .then_some(
        "a key is followed by `:` on its own line, within 1024 characters; quote a value \
         that holds `: `",
    );
    let breach = message
        .strip_prefix("budget breached: ")
        .map(|b| budget_breach(b, limits))
        .or_else(|| raw::list_cap_breach(&message, limits))
        .or_else(|| {
            // The parser's own guard on nested flow collections
            // (`[[[[…`), set to the depth limit.
            (message == "recursion limit exceeded").then(|| depth_breach(limits))
        });
    let mut diag = match breach {
        Some((limit, what)) => {
            message = what;
            limit.diag(format!("{}: {message}", source.name))
        }
        None => Diag::new(
            Code::Syntax,
            format!("invalid YAML in {}: {message}", source.name),
        ),
    };
    if let Some(h) = help {
        diag = diag.help(h);
    }
    if let Some(loc) = err.location() {
        let span = span_of(source, &loc);
        diag = diag.label(&span, message);
    }
    diag
}

fn depth_breach(limits: &Limits) -> (Limit, String) {
    (
        Limit::Depth,
        format!("the document nests deeper than {} levels", limits.max_depth),
    )
}

/// A resource budget breach, in the user's terms: which limit, and what.
fn budget_breach(breach: &str, limits: &Limits) -> (Limit, String) {
    let kind = breach.split([' ', '{', '(']).next().unwrap_or(breach);
    match kind {
        "Depth" => depth_breach(limits),
        "Nodes" | "Events" => (
            Limit::Nodes,
            format!(
                "the document has more than {} values (aliases expanded)",
                limits.max_nodes
            ),
        ),
        "ScalarBytes" | "RecordedAnchorBytes" => (
            Limit::Strings,
            format!(
                "the document's strings add up to more than {} bytes (aliases expanded)",
                limits.max_string_bytes()
            ),
        ),
        "InputBytes" => (
            Limit::FileSize,
            format!(
                "the file is larger than the {}-byte file size cap",
                limits.max_file_size
            ),
        ),
        "RecordedAnchorEvents" | "AliasAnchorRatio" => (
            Limit::Nodes,
            format!(
                "aliases expand to more than {} values (an alias bomb?)",
                limits.max_nodes
            ),
        ),
        "Aliases" | "Anchors" | "MergeKeys" => {
            let what = match kind {
                "Aliases" => "aliases (`*name`)",
                "Anchors" => "anchors (`&name`)",
                _ => "merge keys (`<<`)",
            };
            (
                Limit::Aliases,
                format!("the document has more than {} {what}", limits.max_aliases()),
            )
        }
        _ => (
            Limit::Nodes,
            format!("the document exceeds a parser budget ({breach})"),
        ),
    }
}

/// The parser's message without its trailing "at line N, column M", which
/// the snippet already shows.
fn first_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or("").trim();
    match line.rfind(" at line ") {
        Some(i) if line[i..].contains(", column ") => line[..i].to_string(),
        _ => line.to_string(),
    }
}

/// Whether the scalar at `span` is written as a plain integer (which the
/// parser turns into a float when it overflows 64 bits).
fn looks_like_integer(text: &str, span: &Span) -> bool {
    let Some(written) = text.get(span.offset..span.offset + span.len) else {
        return false;
    };
    let digits = written.strip_prefix(['-', '+']).unwrap_or(written);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Turns the parser's tree into spanned nodes, checking keys on the way.
fn convert(
    source: &Arc<Source>,
    raw: serde_saphyr::Spanned<Raw>,
    limits: &Limits,
) -> Result<Node, Diag> {
    let span = span_of(source, &raw.referenced);
    let value = match raw.value {
        Raw::Null => Value::Null,
        Raw::Bool(b) => Value::Bool(b),
        Raw::Int(i) => Value::Int(i),
        Raw::Float(_) if looks_like_integer(&source.text, &span) => {
            return Err(
                Diag::new(Code::IntegerRange, "this integer does not fit in 64 bits")
                    .label(&span, "out of range")
                    .help("quote it to keep it as a string"),
            );
        }
        Raw::Float(f) => Value::Float(f),
        Raw::Str(s) => Value::Str(scalar_value(source, &span, s, limits)),
        Raw::BigInt(text) => {
            return Err(Diag::new(
                Code::IntegerRange,
                format!("integer {text} does not fit in 64 bits"),
            )
            .label(&span, "out of range")
            .help("quote it to keep it as a string"));
        }
        Raw::Seq(items) => Value::Seq(
            items
                .into_iter()
                .map(|item| convert(source, item, limits))
                .collect::<Result<_, _>>()?,
        ),
        Raw::Map(pairs) => {
            let mut map = Map::with_capacity(pairs.len());
            for (key, value) in pairs {
                let key_span = span_of(source, &key.referenced);
                let Raw::Str(name) = key.value else {
                    return Err(Diag::new(
                        Code::KeyType,
                        format!(
                            "mapping keys must be strings, found {}",
                            key.value.type_name()
                        ),
                    )
                    .label(&key_span, "this key is not a string")
                    .help("quote the key to make it a string"));
                };
                let name = scalar_value(source, &key_span, name, limits);
                if let Some(first) = map.get(&name) {
                    return Err(
                        Diag::new(Code::DuplicateKey, format!("duplicate key `{name}`"))
                            .label(&key_span, "this key is already set")
                            .label(&first.key_span, "first set here"),
                    );
                }
                let node = convert(source, value, limits)?;
                map.insert(name, Entry { key_span, node });
            }
            Value::Map(map)
        }
    };
    Ok(Node::new(value, span))
}

#[cfg(test)]
mod tests;
