//! A file edited decrypted (`beryl secrets edit`): [`view`] is the file as
//! an editor shows it, each encrypted value replaced by its plaintext and
//! the `sops:` block left out; [`reseal`] turns the edited view back into
//! the file. Every value the file's rules encrypt is encrypted again,
//! except that a value whose place, type and plaintext did not change keeps
//! its ciphertext byte for byte: one edited value changes its one `ENC[…]`
//! line, then the MAC and the date. When no secret changed and the MAC
//! covers only the secrets, the metadata is kept as it was too.

use zeroize::Zeroizing;

use super::edit::{edit_error, line_at, parse, quoted, verify, write_mac};
use super::enc::{Enc, Kind, canonical};
use super::mac::open;
use super::sealed::{Sealed, unseal, unseal_edited};
use super::wrap::Identity;
use super::{Opened, sealed::Pending};
use crate::diag::Diag;
use crate::value::{Node, Value};

/// The file `name` (text `text`) opened: its secrets and their plaintexts.
fn opened(name: &str, text: &str, ids: &[Identity]) -> Result<(Node, Sealed, Opened), Diag> {
    let root = parse(name, text)?;
    let mut tree = root.clone();
    let sealed = unseal(&mut tree)?.ok_or_else(|| {
        edit_error(
            None,
            format!("{name} holds no secret: `beryl secrets set` adds the first"),
        )
    })?;
    let opened = open(&sealed, ids)?;
    Ok((root, sealed, opened))
}

/// Where the `sops:` block starts: it must be the file's last root key,
/// as SOPS and beryl write it.
fn metadata_start(text: &str, root: &Node) -> Result<usize, Diag> {
    match root.as_map().and_then(|m| m.last()) {
        Some((k, e)) if k == "sops" => Ok(line_at(text, e.key_span.offset).0),
        _ => Err(edit_error(
            None,
            "the `sops:` metadata is not the file's last key: move it to the end first",
        )),
    }
}

/// A plaintext as YAML: a string double-quoted (JSON's escapes are
/// YAML's), a number as written, a boolean as `true` or `false`.
fn shown(plain: &[u8], kind: Kind) -> Result<String, Diag> {
    let text = std::str::from_utf8(plain).map_err(|_| {
        edit_error(
            None,
            "a value that is not UTF-8 text cannot be edited: set it with `beryl secrets set --raw`",
        )
    })?;
    Ok(match kind {
        Kind::Int | Kind::Float => text.to_string(),
        Kind::Bool => text.to_ascii_lowercase(),
        _ => serde_json::to_string(text).expect("a string"),
    })
}

/// The file as an editor shows it: decrypted, without its metadata.
pub(crate) fn view(name: &str, text: &str, ids: &[Identity]) -> Result<Zeroizing<String>, Diag> {
    let (root, sealed, opened) = opened(name, text, ids)?;
    let end = metadata_start(text, &root)?;
    let mut out = Zeroizing::new(text[..end].to_string());
    let mut edits = Vec::with_capacity(sealed.secrets.len());
    for (s, v) in sealed.secrets.iter().zip(&opened.values) {
        edits.push((quoted(text, &s.span), Zeroizing::new(shown(v, s.enc.kind)?)));
    }
    edits.sort_by_key(|(s, _)| std::cmp::Reverse(s.offset));
    for (span, v) in edits {
        out.replace_range(span.offset..span.offset + span.len, &v);
    }
    Ok(out)
}

/// A value written in the clear as a secret's type and plaintext.
fn typed(p: &Pending) -> Result<(Kind, Zeroizing<Vec<u8>>), Diag> {
    let (kind, plain) = match &p.value {
        Value::Str(s) => (Kind::Str, s.as_bytes().to_vec()),
        Value::Int(i) => (Kind::Int, i.to_string().into_bytes()),
        Value::Float(f) => (Kind::Float, f.to_string().into_bytes()),
        Value::Bool(b) => (Kind::Bool, b.to_string().into_bytes()),
        _ => {
            return Err(edit_error(
                Some(&p.span),
                "only a single value can be a secret, not this",
            ));
        }
    };
    Ok((kind, Zeroizing::new(canonical(&plain, kind))))
}

/// The file `text` after its view was edited into `edited`: `None` when
/// nothing changed. `now` is the date a changed MAC is written with.
pub(crate) fn reseal(
    name: &str,
    text: &str,
    edited: &str,
    ids: &[Identity],
    now: &str,
) -> Result<Option<String>, Diag> {
    let (root, sealed, opened) = opened(name, text, ids)?;
    let end = metadata_start(text, &root)?;
    let mut candidate = edited.to_string();
    if !candidate.is_empty() && !candidate.ends_with('\n') {
        candidate.push('\n');
    }
    candidate.push_str(&text[end..]);
    let mut tree = parse(name, &candidate)?;
    let (_, pending) = unseal_edited(&mut tree)?.expect("the metadata is there");
    // Each value to encrypt: its old ciphertext when nothing of it changed.
    let mut fresh: Vec<(String, Zeroizing<Vec<u8>>)> = Vec::new();
    let mut edits = Vec::new();
    for p in &pending {
        let span = quoted(&candidate, &p.span);
        if candidate[span.offset..span.offset + span.len].contains('\n') {
            return Err(edit_error(
                Some(&p.span),
                "a secret written on several lines: write it on one line (a double-quoted string, `\\n` for a line break)",
            ));
        }
        let (kind, plain) = typed(p)?;
        let kept = (sealed.secrets.iter().zip(&opened.values))
            .find(|(s, v)| s.aad == p.aad && s.enc.kind == kind && v[..] == plain[..])
            .map(|(s, _)| s.enc.text());
        let enc = kept.unwrap_or_else(|| Enc::seal(&plain, kind, &opened.key, &p.aad).text());
        edits.push((span, enc.clone()));
        fresh.push((enc, plain));
    }
    edits.sort_by_key(|(s, _)| std::cmp::Reverse(s.offset));
    let mut out = candidate;
    for (span, enc) in edits {
        out.replace_range(span.offset..span.offset + span.len, &enc);
    }
    if out == text {
        return Ok(None);
    }
    let reread = unseal(&mut parse(name, &out)?)?.expect("the metadata is there");
    let same: Vec<String> = sealed.secrets.iter().map(|s| s.enc.text()).collect();
    let now_: Vec<String> = reread.secrets.iter().map(|s| s.enc.text()).collect();
    // The MAC covers the secrets alone, and they are as they were: it holds.
    if same == now_ && sealed.meta.mac_only_encrypted {
        return Ok(Some(out));
    }
    let mut values = Vec::with_capacity(reread.secrets.len());
    for s in &reread.secrets {
        let enc = s.enc.text();
        let v = (fresh
            .iter()
            .find(|(e, _)| *e == enc)
            .map(|(_, v)| v.clone()))
        .or_else(|| {
            (sealed.secrets.iter().zip(&opened.values))
                .find(|(o, _)| o.enc.text() == enc && o.aad == s.aad)
                .map(|(_, v)| v.clone())
        })
        .ok_or_else(|| {
            edit_error(
                Some(&s.span),
                "an encrypted value that was not in the file at this place",
            )
        })?;
        values.push(v);
    }
    let out = write_mac(&out, &reread, &values, &opened.key, now, name)?;
    let check = unseal(&mut parse(name, &out)?)?.expect("metadata");
    verify(&check, &opened.key)?;
    Ok(Some(out))
}
