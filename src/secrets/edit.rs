//! A file changed by `beryl secrets`: one value set, or the data key
//! re-wrapped, by editing the file's text in place. Every other line stays
//! byte for byte as it was: setting a value changes its one `ENC[…]` line
//! (and adds a `# sops:enc` line above it the first time), then the MAC and
//! the date of the metadata; a file's first secret appends the metadata.
//! The result is read back and opened before it is returned: a change that
//! would leave a file SOPS cannot read is an error, and nothing is written.

use zeroize::Zeroizing;

use super::Code;
use super::enc::{Enc, Kind, canonical, check_type};
use super::mac::{data_key, mac_hex, open};
use super::sealed::{Sealed, unseal};
use super::wrap::{Identity, Recipient, bare, wrap};
use crate::diag::Diag;
use crate::value::{Node, Source, Span, Value};

/// The rule beryl writes in a file's metadata, and the line that marks a
/// value it selects.
pub(crate) const MARK_RULE: &str = "sops:enc";
const MARK_LINE: &str = "# sops:enc";
/// The SOPS version whose format beryl writes (and is tested against).
pub(crate) const SOPS_VERSION: &str = "3.11.0";

/// What a `set` needs beyond the file: the place, the value and its type,
/// who a new file is encrypted to, the identities that open an existing
/// one, the date, and how a list's item is named.
pub(crate) struct Set<'a> {
    pub place: &'a [String],
    pub plain: &'a [u8],
    pub kind: Kind,
    pub recipients: &'a [Recipient],
    pub ids: &'a [Identity],
    pub now: &'a str,
    pub key_field: &'a dyn Fn(&[String]) -> Option<&'static str>,
}

pub(super) fn edit_error(span: Option<&Span>, message: impl Into<String>) -> Diag {
    let d = Diag::new(Code::Edit, message);
    match span {
        Some(s) => d.label(s, "here"),
        None => d,
    }
}

pub(super) fn parse(name: &str, text: &str) -> Result<Node, Diag> {
    crate::yaml::parse(&Source::new(name, text.to_string()), &Default::default())
}

/// Sets the value at `req.place` of the file `name` (text `text`) to
/// `req.plain`, encrypted: the new text.
pub(crate) fn set(name: &str, text: &str, req: &Set<'_>) -> Result<String, Diag> {
    check_type(req.plain, req.kind).map_err(|_| {
        edit_error(
            None,
            format!("the value is not of type `{}`", req.kind.name()),
        )
    })?;
    let original = parse(name, text)?;
    let mut sealed_tree = original.clone();
    let sealed = unseal(&mut sealed_tree)?;
    // The data key: the file's own (which needs an identity), or a new one.
    let (key, old_values) = match &sealed {
        Some(s) => {
            let opened = open(s, req.ids)?;
            (opened.key.clone(), Some(opened))
        }
        None => {
            let mut k = Zeroizing::new([0u8; 32]);
            super::random(&mut k[..]);
            (k, None)
        }
    };
    let keys = keys_of(req.place, &original);
    let key_refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    if let Some(s) = &sealed
        && !s.meta.rules.reads_comments()
        && !s.meta.rules.encrypted(&key_refs, &[])
    {
        return Err(edit_error(
            Some(&s.meta.span),
            format!(
                "this file's rules do not encrypt {}: change them, or use another file",
                req.place.join(".")
            ),
        ));
    }
    let aad = format!("{}:", keys.join(":"));
    // Written as SOPS writes the type (`True`, not `true`).
    let plain = Zeroizing::new(canonical(req.plain, req.kind));
    let enc = Enc::seal(&plain, req.kind, &key, &aad).text();
    let mark = sealed
        .as_ref()
        .is_none_or(|s| s.meta.rules.reads_comments());
    let mut text = place_value(text, &original, req, &enc, mark)?;
    if sealed.is_none() {
        text = append_metadata(&text, req.recipients, &key)?;
    }
    // The MAC over the values as they now are: the old ones by their
    // ciphertext, the new one by its own.
    let reread = unseal(&mut parse(name, &text)?)?.expect("metadata was just written");
    let mut values = Vec::with_capacity(reread.secrets.len());
    for s in &reread.secrets {
        let plain = match s.enc.text() == enc {
            true => plain.to_vec(),
            false => old_plain(&sealed, old_values.as_ref(), s).ok_or_else(|| {
                edit_error(Some(&s.span), "a value that was not in the file before")
            })?,
        };
        values.push(Zeroizing::new(plain));
    }
    let text = write_mac(&text, &reread, &values, &key, req.now, name)?;
    // Read back: the file opens and the value is there.
    let check = unseal(&mut parse(name, &text)?)?.expect("metadata");
    verify(&check, &key)?;
    Ok(text)
}

/// The value of an unchanged secret, found in the file as it was.
fn old_plain(
    sealed: &Option<Sealed>,
    opened: Option<&super::Opened>,
    s: &super::sealed::Secret,
) -> Option<Vec<u8>> {
    let (sealed, opened) = (sealed.as_ref()?, opened?);
    let i = sealed
        .secrets
        .iter()
        .position(|o| o.enc == s.enc && o.aad == s.aad)?;
    Some(opened.values[i].to_vec())
}

/// The mapping keys along `place` (list items add none), as SOPS binds a
/// value to them.
fn keys_of(place: &[String], root: &Node) -> Vec<String> {
    let mut keys = Vec::new();
    let mut node = Some(root);
    for seg in place {
        match node.map(|n| &n.value) {
            Some(Value::Seq(_)) => {
                node = None;
            }
            _ => {
                keys.push(seg.clone());
                node = node.and_then(|n| n.get(seg));
            }
        }
    }
    keys
}

/// The text of the line holding byte `offset`, and where it starts.
pub(super) fn line_at(text: &str, offset: usize) -> (usize, &str) {
    let start = text[..offset].rfind('\n').map_or(0, |p| p + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |p| offset + p);
    (start, &text[start..end])
}

/// Whether the comment lines just above the line starting at `start` hold
/// the mark.
fn marked_above(text: &str, start: usize) -> bool {
    text[..start]
        .lines()
        .rev()
        .take_while(|l| l.trim_start().starts_with('#'))
        .any(|l| l.contains(MARK_RULE))
}

/// The text with the value at the place replaced (or added), marked.
fn place_value(
    text: &str,
    root: &Node,
    req: &Set<'_>,
    enc: &str,
    mark: bool,
) -> Result<String, Diag> {
    // Walk down as far as the place exists.
    let mut node = root;
    let mut key_span: Option<&Span> = None;
    let mut by_key = false;
    let mut depth = 0;
    for seg in req.place {
        let next = match &node.value {
            Value::Map(m) => m.get(seg).map(|e| (&e.node, Some(&e.key_span))),
            Value::Seq(items) => {
                let i = seg
                    .parse::<usize>()
                    .ok()
                    .filter(|i| *i < items.len())
                    .or_else(|| {
                        let field = (req.key_field)(&req.place[..depth])?;
                        items
                            .iter()
                            .position(|n| n.get(field).and_then(Node::as_str) == Some(seg.as_str()))
                    });
                i.map(|i| (&items[i], None))
            }
            _ => {
                return Err(edit_error(
                    Some(&node.span),
                    format!(
                        "{} is not a mapping or a list",
                        req.place[..depth].join(".")
                    ),
                ));
            }
        };
        let Some((n, k)) = next else { break };
        node = n;
        by_key = k.is_some();
        key_span = k.or(Some(&n.span));
        depth += 1;
    }
    if depth == req.place.len() {
        // The place exists: it must be a scalar, written on one line.
        if matches!(node.value, Value::Map(_) | Value::Seq(_)) {
            return Err(edit_error(
                Some(&node.span),
                "only a single value can be a secret, not a mapping or a list",
            ));
        }
        let whole = scalar_span(text, node);
        let (offset, len) = (whole.offset, whole.len);
        if node.span.source.is_none() || text[offset..offset + len].contains('\n') {
            return Err(edit_error(
                Some(&node.span),
                "the value spans several lines: write it on one line first",
            ));
        }
        let at = key_span.map_or(offset, |s| s.offset);
        let (start, line) = line_at(text, at);
        let mut out = String::with_capacity(text.len() + enc.len() + 16);
        let above = mark && !marked_above(text, start);
        out.push_str(&text[..start]);
        if above {
            let indent = line.len() - line.trim_start().len();
            // A list item's first key shares its line with the `-`: a mark
            // above would mark the whole item.
            if by_key && line.trim_start().starts_with('-') {
                return Err(edit_error(
                    Some(&node.span),
                    "the first key of a list item: a `# sops:enc` line above it would mark the whole item; put another key first",
                ));
            }
            out.push_str(&format!("{}{MARK_LINE}\n", " ".repeat(indent)));
        }
        out.push_str(&text[start..offset]);
        out.push_str(enc);
        out.push_str(&text[offset + len..]);
        return Ok(out);
    }
    // The place is new: under a block mapping that exists.
    let Value::Map(m) = &node.value else {
        return Err(edit_error(
            Some(&node.span),
            format!(
                "{} is not there: add the list item first",
                req.place.join(".")
            ),
        ));
    };
    let (indent, insert_at) = match m.last() {
        Some((_, last)) => {
            let (start, line) = line_at(text, last.key_span.offset);
            let col = last.key_span.offset - start;
            if line[..col]
                .trim_start_matches(' ')
                .trim_start_matches('-')
                .trim()
                != ""
                && depth > 0
            {
                return Err(edit_error(
                    Some(&node.span),
                    "a flow mapping (`{…}`): write it as a block first",
                ));
            }
            (col, end_of(text, &last.node, last.key_span.offset))
        }
        None if depth == 0 => (0, text.len()),
        None => {
            return Err(edit_error(
                Some(&node.span),
                "an empty mapping: add one key by hand first",
            ));
        }
    };
    // Before the metadata, when the root is the parent.
    let insert_at = match (depth, root.get("sops").is_some()) {
        (0, true) => {
            line_at(
                text,
                root.as_map()
                    .and_then(|m| m.get("sops"))
                    .map(|e| e.key_span.offset)
                    .unwrap_or(0),
            )
            .0
        }
        _ => insert_at,
    };
    let mut add = String::new();
    let rest = &req.place[depth..];
    for (i, seg) in rest.iter().enumerate() {
        let pad = " ".repeat(indent + 2 * i);
        let key = yaml_key(seg);
        if i + 1 == rest.len() {
            if mark {
                add.push_str(&format!("{pad}{MARK_LINE}\n"));
            }
            add.push_str(&format!("{pad}{key}: {enc}\n"));
        } else {
            add.push_str(&format!("{pad}{key}:\n"));
        }
    }
    let mut out = String::with_capacity(text.len() + add.len() + 1);
    out.push_str(&text[..insert_at]);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&add);
    out.push_str(&text[insert_at..]);
    Ok(out)
}

/// The byte just after the last line of an entry (its value's last line).
fn end_of(text: &str, node: &Node, key_offset: usize) -> usize {
    let end = (node.span.offset + node.span.len).max(key_offset);
    let mut last = end;
    fn deepest(n: &Node, last: &mut usize) {
        *last = (*last).max(n.span.offset + n.span.len);
        match &n.value {
            Value::Map(m) => m.values().for_each(|e| deepest(&e.node, last)),
            Value::Seq(s) => s.iter().for_each(|i| deepest(i, last)),
            _ => {}
        }
    }
    deepest(node, &mut last);
    // A block scalar's span ends after its last line break (and the next
    // line's indentation).
    if let Some(nl) = text[..last].rfind('\n')
        && nl >= key_offset
        && text[nl + 1..last].bytes().all(|b| b == b' ')
    {
        return nl + 1;
    }
    text[last..].find('\n').map_or(text.len(), |p| last + p + 1)
}

/// A key as YAML: bare when it is a plain identifier, else double-quoted.
fn yaml_key(k: &str) -> String {
    match !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        && !k.starts_with('-')
    {
        true => k.to_string(),
        false => serde_json::to_string(k).expect("a string"),
    }
}

/// The `sops:` metadata of a file's first secret, appended.
fn append_metadata(text: &str, recipients: &[Recipient], key: &[u8; 32]) -> Result<String, Diag> {
    if recipients.is_empty() {
        return Err(edit_error(
            None,
            "no recipients: the domain has no `ssh_keys`, and no --recipient was given",
        ));
    }
    let mut out = text.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("sops:\n  age:\n");
    for r in recipients {
        out.push_str(&format!("    - recipient: {}\n      enc: |\n", r.text));
        for line in wrap(key, r).lines() {
            out.push_str(&format!("        {line}\n"));
        }
    }
    out.push_str(&format!(
        "  lastmodified: \"1970-01-01T00:00:00Z\"\n  mac: \"\"\n  encrypted_comment_regex: {MARK_RULE}\n  mac_only_encrypted: true\n  version: {SOPS_VERSION}\n"
    ));
    Ok(out)
}

/// The text with the metadata's `lastmodified` and `mac` set for `values`.
pub(super) fn write_mac(
    text: &str,
    file: &Sealed,
    values: &[Zeroizing<Vec<u8>>],
    key: &[u8; 32],
    now: &str,
    name: &str,
) -> Result<String, Diag> {
    let mac = Enc::seal(mac_hex(file, values).as_bytes(), Kind::Str, key, now).text();
    let root = parse(name, text)?;
    let meta = root
        .get("sops")
        .ok_or_else(|| edit_error(None, "no metadata"))?;
    let mut edits: Vec<(Span, String)> = Vec::new();
    for (k, v) in [("lastmodified", format!("\"{now}\"")), ("mac", mac)] {
        let node = meta
            .get(k)
            .ok_or_else(|| edit_error(Some(&meta.span), format!("no `{k}` in the metadata")))?;
        edits.push((scalar_span(text, node), v));
    }
    edits.sort_by_key(|(s, _)| std::cmp::Reverse(s.offset));
    let mut out = text.to_string();
    for (span, v) in edits {
        out.replace_range(span.offset..span.offset + span.len, &v);
    }
    Ok(out)
}

/// The bytes a scalar is written with, quotes included.
fn scalar_span(text: &str, node: &Node) -> Span {
    quoted(text, &node.span)
}

/// The bytes of the scalar at `span`, quotes included.
pub(super) fn quoted(text: &str, span: &Span) -> Span {
    let mut s = span.clone();
    let bytes = text.as_bytes();
    if s.offset > 0
        && matches!(bytes.get(s.offset - 1), Some(b'"' | b'\''))
        && !matches!(bytes.get(s.offset), Some(b'"' | b'\''))
    {
        s.offset -= 1;
        s.len += 2;
    }
    s
}

/// Opens `file` with `key` directly: every value decrypts and the MAC holds.
pub(super) fn verify(file: &Sealed, key: &[u8; 32]) -> Result<(), Diag> {
    let mut values = Vec::new();
    for s in &file.secrets {
        let v = s
            .enc
            .open(key, &s.aad)
            .map_err(|e| edit_error(Some(&s.span), e.to_string()))?;
        values.push(Zeroizing::new(v));
    }
    let mac =
        Enc::parse(&file.meta.mac).map_err(|e| edit_error(Some(&file.meta.span), e.to_string()))?;
    let written = mac
        .open(key, &file.meta.lastmodified)
        .map_err(|e| edit_error(Some(&file.meta.span), e.to_string()))?;
    match written == mac_hex(file, &values).into_bytes() {
        true => Ok(()),
        false => Err(edit_error(
            Some(&file.meta.span),
            "the MAC written does not verify",
        )),
    }
}

/// Re-wraps the data key of `text` to exactly `recipients`: the new text,
/// the values and the MAC unchanged.
pub(crate) fn rekey(
    name: &str,
    text: &str,
    recipients: &[Recipient],
    ids: &[Identity],
) -> Result<Option<String>, Diag> {
    let mut tree = parse(name, text)?;
    let Some(sealed) = unseal(&mut tree)? else {
        return Ok(None);
    };
    if recipients.is_empty() {
        return Err(edit_error(
            Some(&sealed.meta.span),
            "no recipients: the file would open for no one",
        ));
    }
    // The same keys in another order, or with comments: nothing to do.
    let have: std::collections::BTreeSet<String> =
        sealed.meta.age.iter().map(|s| bare(&s.recipient)).collect();
    let want: std::collections::BTreeSet<String> =
        recipients.iter().map(|r| bare(&r.text)).collect();
    if have == want && have.len() == sealed.meta.age.len() {
        return Ok(None);
    }
    let key = data_key(&sealed, ids)?;
    let root = parse(name, text)?;
    let meta = root.get("sops").expect("metadata");
    let age = meta
        .get("age")
        .ok_or_else(|| edit_error(Some(&meta.span), "no `age` list in the metadata"))?;
    let Value::Seq(items) = &age.value else {
        return Err(edit_error(Some(&age.span), "`age` is not a list"));
    };
    let (first, last) = match (items.first(), items.last()) {
        (Some(f), Some(l)) => (f, l),
        _ => return Err(edit_error(Some(&age.span), "`age` is empty")),
    };
    let (start, line) = line_at(text, first.span.offset);
    let indent = line.len() - line.trim_start().len();
    let end = end_of(text, last, last.span.offset);
    let pad = " ".repeat(indent);
    let mut block = String::new();
    for r in recipients {
        block.push_str(&format!("{pad}- recipient: {}\n{pad}  enc: |\n", r.text));
        for l in wrap(&key, r).lines() {
            block.push_str(&format!("{pad}    {l}\n"));
        }
    }
    let mut out = String::with_capacity(text.len() + block.len());
    out.push_str(&text[..start]);
    out.push_str(&block);
    out.push_str(&text[end..]);
    let check = unseal(&mut parse(name, &out)?)?.expect("metadata");
    verify(&check, &key)?;
    Ok(Some(out))
}
