//! A loaded YAML file read as a SOPS file: its `sops:` metadata taken out,
//! each encrypted value found by the file's rules, checked, and replaced in
//! the tree by its token, `‹secret:FINGERPRINT›`.
//!
//! From here on no stage sees a ciphertext or a plaintext: the token is an
//! opaque string that merges, is referenced and is templated like any other
//! (and so carries the taint into every value built from it), and prints
//! as itself in every output. Only apply, holding an identity, turns tokens
//! back into plaintext, in the script it sends over SSH
//! ([`super::Unsealed`]).

use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::enc::{Enc, looks_encrypted};
use super::rules::Rules;
use super::{Code, TOKEN_OPEN};
use crate::diag::Diag;
use crate::value::{Node, Source, Span, Value};

/// One recipient's wrapped data key in the metadata.
#[derive(Clone, Debug)]
pub(crate) struct Stanza {
    pub recipient: String,
    pub enc: String,
}

/// A file's `sops:` metadata, as far as beryl uses it.
#[derive(Clone, Debug)]
pub(crate) struct Meta {
    /// Where the `sops` key is, for messages.
    pub span: Span,
    pub age: Vec<Stanza>,
    /// Other key sources that hold entries (pgp, kms, …): beryl unwraps
    /// only age's, and keeps the others as they are.
    pub others: Vec<String>,
    pub lastmodified: String,
    pub mac: String,
    pub mac_only_encrypted: bool,
    pub rules: Rules,
}

/// An encrypted value of a file.
#[derive(Clone, Debug)]
pub(crate) struct Secret {
    /// The additional data it is bound to: its keys joined by `:`, ended by `:`.
    pub aad: String,
    /// Its place, as beryl writes one (`freebsd.users.0.password_hash`).
    pub place: String,
    pub enc: Enc,
    /// Where it is written.
    pub span: Span,
    /// What replaces it in the tree.
    pub token: String,
}

/// One leaf of the file, in SOPS's walk order, for the MAC.
#[derive(Clone, Debug)]
pub(crate) enum Leaf {
    /// The index of a secret.
    Secret(usize),
    /// A plain value's bytes as SOPS hashes them (only when the MAC covers
    /// every value).
    Plain(Vec<u8>),
}

/// A SOPS file's secrets and what checks them.
#[derive(Clone, Debug)]
pub(crate) struct Sealed {
    /// The file, as shown.
    pub file: String,
    /// The file relative to the inventory root, when the class library read
    /// it (empty for a file read on its own).
    pub rel: String,
    pub meta: Meta,
    pub secrets: Vec<Secret>,
    pub leaves: Vec<Leaf>,
}

/// Reads `root` (a whole level or class file) as a SOPS file: takes its
/// `sops` metadata out and replaces each encrypted value by its token.
/// `None` for a file with no metadata and no ciphertext. Errors are
/// located: a ciphertext in a file without metadata, a value the rules
/// say is encrypted written in the clear (or the reverse), metadata that
/// does not parse, a token written by hand.
pub(crate) fn unseal(root: &mut Node) -> Result<Option<Sealed>, Diag> {
    Ok(unseal_with(root, None)?.map(|(s, _)| s))
}

/// A value the file's rules encrypt, written in the clear: what `beryl
/// secrets edit` encrypts once the editor is closed.
#[derive(Debug)]
pub(crate) struct Pending {
    /// The value's keys joined by `:`, as its additional data.
    pub aad: String,
    pub span: Span,
    pub value: Value,
}

/// [`unseal`] for a file being edited: a value its rules encrypt may be in
/// the clear, and is returned to be encrypted rather than refused.
pub(crate) fn unseal_edited(root: &mut Node) -> Result<Option<(Sealed, Vec<Pending>)>, Diag> {
    unseal_with(root, Some(Vec::new()))
}

fn unseal_with(
    root: &mut Node,
    pending: Option<Vec<Pending>>,
) -> Result<Option<(Sealed, Vec<Pending>)>, Diag> {
    let source = root.span.source.clone();
    // Most files hold no secret: one pass over the text decides it.
    if let Some(s) = &source
        && !s.text.contains("ENC[")
        && !s.text.contains(TOKEN_OPEN)
        && !s.text.contains("sops")
    {
        return Ok(None);
    }
    let meta_entry = match &mut root.value {
        Value::Map(m) => m.shift_remove("sops"),
        _ => None,
    };
    let Some(entry) = meta_entry else {
        refuse_stray(root)?;
        return Ok(None);
    };
    let meta = read_meta(&entry.node, &entry.key_span)?;
    let file = source.as_ref().map_or_else(String::new, |s| s.name.clone());
    let mut walk = Walk {
        meta: &meta,
        file: &file,
        lines: source.as_ref().map(lines).unwrap_or_default(),
        secrets: Vec::new(),
        leaves: Vec::new(),
        pending,
    };
    walk.node(root, &mut Vec::new(), &mut Vec::new(), &mut Vec::new())?;
    let (secrets, leaves) = (walk.secrets, walk.leaves);
    let pending = walk.pending.unwrap_or_default();
    Ok(Some((
        Sealed {
            file,
            rel: String::new(),
            meta,
            secrets,
            leaves,
        },
        pending,
    )))
}

/// A file without metadata may hold no ciphertext (it would reach a host as
/// the text `ENC[…]`) and no token (only beryl makes those).
fn refuse_stray(node: &Node) -> Result<(), Diag> {
    match &node.value {
        Value::Str(s) if looks_encrypted(s) => Err(Diag::new(
            Code::NoMetadata,
            "an encrypted value in a file without SOPS metadata",
        )
        .label(&node.span, "encrypted, but the file has no `sops:` section with its data key")
        .help("a value copied from another file does not decrypt here: set it again with `beryl secrets set`")),
        Value::Str(s) if super::holds_token(s) => Err(forged(&node.span)),
        Value::Seq(items) => items.iter().try_for_each(refuse_stray),
        Value::Map(m) => m.values().try_for_each(|e| refuse_stray(&e.node)),
        _ => Ok(()),
    }
}

fn forged(span: &Span) -> Diag {
    Diag::new(Code::Forged, "a secret's token written as plain text")
        .label(
            span,
            "only beryl writes `‹secret:…›`, for an encrypted value",
        )
        .help("write the value itself, or encrypt it with `beryl secrets set`")
}

fn read_meta(node: &Node, key_span: &Span) -> Result<Meta, Diag> {
    let bad = |span: &Span, what: &str| {
        Diag::new(Code::Metadata, format!("the `sops` metadata: {what}"))
            .label(span, what.to_string())
    };
    let Value::Map(m) = &node.value else {
        return Err(bad(&node.span, "`sops` is not a mapping"));
    };
    let text = |key: &str| m.get(key).and_then(|e| e.node.as_str()).map(str::to_string);
    if m.get("key_groups")
        .is_some_and(|e| !matches!(e.node.value, Value::Null))
    {
        return Err(bad(
            key_span,
            "key groups (Shamir's secret sharing) are not supported",
        )
        .help("re-encrypt the file with its recipients listed under `age`"));
    }
    let mut age = Vec::new();
    if let Some(e) = m.get("age") {
        for item in e.node.as_seq().unwrap_or_default() {
            let (Some(recipient), Some(enc)) = (
                item.get("recipient").and_then(Node::as_str),
                item.get("enc").and_then(Node::as_str),
            ) else {
                return Err(bad(
                    &item.span,
                    "an `age` entry without `recipient` and `enc`",
                ));
            };
            age.push(Stanza {
                recipient: recipient.to_string(),
                enc: enc.to_string(),
            });
        }
    }
    let others = ["pgp", "kms", "gcp_kms", "azure_kv", "hc_vault", "hckms"]
        .iter()
        .filter(|k| {
            m.get(**k)
                .and_then(|e| e.node.as_seq())
                .is_some_and(|s| !s.is_empty())
        })
        .map(|k| k.to_string())
        .collect();
    let (Some(lastmodified), Some(mac)) = (text("lastmodified"), text("mac")) else {
        return Err(bad(key_span, "no `lastmodified` or no `mac`"));
    };
    let mut rules = Rules::default();
    for key in super::rules::keys() {
        if let Some(e) = m.get(key) {
            let Some(t) = e.node.as_str() else {
                return Err(bad(&e.node.span, "a rule that is not a string"));
            };
            rules.add(key, t).map_err(|why| bad(&e.node.span, &why))?;
        }
    }
    let mac_only_encrypted = matches!(
        m.get("mac_only_encrypted").map(|e| &e.node.value),
        Some(Value::Bool(true))
    );
    Ok(Meta {
        span: key_span.clone(),
        age,
        others,
        lastmodified,
        mac,
        mac_only_encrypted,
        rules,
    })
}

/// The file's lines, for the comments the rules read.
fn lines(source: &Arc<Source>) -> Vec<Arc<str>> {
    source.text.lines().map(Arc::from).collect()
}

struct Walk<'m> {
    meta: &'m Meta,
    file: &'m str,
    lines: Vec<Arc<str>>,
    secrets: Vec<Secret>,
    leaves: Vec<Leaf>,
    /// For a file being edited, the values to encrypt.
    pending: Option<Vec<Pending>>,
}

impl Walk<'_> {
    /// The comment lines just before line `line` (1-based), and the one at
    /// its end after `after` (a byte column), their text after `#`: those
    /// SOPS's YAML reader gives an item (a head comment, a line comment).
    fn comments(&self, line: u32, after: Option<usize>) -> Vec<String> {
        let mut out = Vec::new();
        let idx = line as usize - 1;
        let mut i = idx;
        while i > 0 {
            let t = self.lines[i - 1].trim_start();
            match t.strip_prefix('#') {
                Some(c) => out.push(c.to_string()),
                None => break,
            }
            i -= 1;
        }
        out.reverse();
        if let (Some(col), Some(text)) = (after, self.lines.get(idx))
            && let Some(rest) = text.get(col..)
            && let Some(pos) = rest.find(" #")
        {
            out.push(rest[pos + 2..].to_string());
        }
        out
    }

    /// The byte column where a node ends on its first line, when it is a
    /// scalar on one line.
    fn end_col(node: &Node) -> Option<usize> {
        let s = node.span.source.as_ref()?;
        let start = s.text[..node.span.offset].rfind('\n').map_or(0, |p| p + 1);
        let end = node.span.offset + node.span.len;
        (!s.text[node.span.offset..end].contains('\n')).then(|| end - start)
    }

    fn node(
        &mut self,
        node: &mut Node,
        keys: &mut Vec<String>,
        places: &mut Vec<String>,
        comments: &mut Vec<String>,
    ) -> Result<(), Diag> {
        let reads = self.meta.rules.reads_comments() && !self.lines.is_empty();
        match &mut node.value {
            Value::Map(m) => {
                for (k, e) in m.iter_mut() {
                    let before = comments.len();
                    if reads {
                        let after = match e.node.value {
                            Value::Map(_) | Value::Seq(_) => None,
                            _ => Self::end_col(&e.node),
                        };
                        comments.extend(self.comments(e.key_span.line, after));
                    }
                    keys.push(k.clone());
                    places.push(k.clone());
                    self.node(&mut e.node, keys, places, comments)?;
                    keys.pop();
                    places.pop();
                    comments.truncate(before);
                }
            }
            Value::Seq(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    let before = comments.len();
                    if reads && item.span.source.is_some() {
                        let after = match item.value {
                            Value::Map(_) | Value::Seq(_) => None,
                            _ => Self::end_col(item),
                        };
                        comments.extend(self.comments(item.span.line, after));
                    }
                    places.push(i.to_string());
                    self.node(item, keys, places, comments)?;
                    places.pop();
                    comments.truncate(before);
                }
            }
            Value::Null => {}
            _ => self.leaf(node, keys, places, comments)?,
        }
        Ok(())
    }

    fn leaf(
        &mut self,
        node: &mut Node,
        keys: &[String],
        places: &[String],
        comments: &[String],
    ) -> Result<(), Diag> {
        let key_refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        let comment_refs: Vec<&str> = comments.iter().map(String::as_str).collect();
        let encrypted = self.meta.rules.encrypted(&key_refs, &comment_refs);
        let text = node.as_str();
        if text.is_some_and(super::holds_token) {
            return Err(forged(&node.span));
        }
        let clear = text.is_none_or(|t| !t.is_empty() && Enc::parse(t).is_err());
        if let (true, true, Some(pending)) = (encrypted, clear, &mut self.pending) {
            pending.push(Pending {
                aad: format!("{}:", keys.join(":")),
                span: node.span.clone(),
                value: node.value.clone(),
            });
            return Ok(());
        }
        match (encrypted, text) {
            // SOPS leaves an empty string as it is.
            (true, Some("")) => {}
            (true, Some(t)) => {
                let enc = Enc::parse(t).map_err(|why| {
                    Diag::new(Code::Plaintext, "a value this file's rules encrypt is not encrypted")
                        .label(&node.span, format!("plain text where an encrypted value belongs ({why})"))
                        .help("SOPS would refuse the file too: encrypt it with `beryl secrets set`, or change the rule")
                })?;
                let aad = format!("{}:", keys.join(":"));
                let place = crate::syntax::path::display(places);
                let token = token(self.file, &aad, t);
                node.value = Value::Str(token.clone());
                self.leaves.push(Leaf::Secret(self.secrets.len()));
                self.secrets.push(Secret {
                    aad,
                    place,
                    enc,
                    span: node.span.clone(),
                    token,
                });
            }
            (true, None) => {
                return Err(Diag::new(
                    Code::Plaintext,
                    "a value this file's rules encrypt is not a string",
                )
                .label(
                    &node.span,
                    "SOPS encrypts every value here and writes it as a string",
                ));
            }
            (false, Some(t)) if looks_encrypted(t) => {
                return Err(Diag::new(Code::Unmarked, "an encrypted value where this file's rules say plain text")
                    .label(&node.span, "SOPS would pass this through as the text `ENC[…]`")
                    .help("mark it (a `# sops:enc` line above it, for a file beryl wrote), or set it again"));
            }
            (false, _) => {
                if !self.meta.mac_only_encrypted {
                    self.leaves.push(Leaf::Plain(mac_bytes(&node.value)));
                }
            }
        }
        Ok(())
    }
}

/// A plain value's bytes as SOPS hashes them (sops.go, `ToBytes`).
pub(crate) fn mac_bytes(v: &Value) -> Vec<u8> {
    match v {
        Value::Str(s) => s.as_bytes().to_vec(),
        Value::Int(i) => i.to_string().into_bytes(),
        Value::Float(f) => f.to_string().into_bytes(),
        Value::Bool(true) => b"True".to_vec(),
        Value::Bool(false) => b"False".to_vec(),
        _ => Vec::new(),
    }
}

/// The token of a value: its fingerprint, a digest of the file, the place
/// and the ciphertext. Anyone can compute it from the repository, and it
/// says nothing of the plaintext: the ciphertext holds a random IV, so
/// the digest of a short password cannot be searched for. It changes when
/// the value is set again, and only then: beryl re-encrypts only the
/// values that changed, and SOPS keeps an unchanged value's IV.
fn token(file: &str, aad: &str, enc: &str) -> String {
    let digest = Sha256::new()
        .chain_update(file.as_bytes())
        .chain_update([0])
        .chain_update(aad.as_bytes())
        .chain_update([0])
        .chain_update(enc.as_bytes())
        .finalize();
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    format!("{TOKEN_OPEN}{hex}›")
}
