//! A resolved public key, where it came from, and how `ssh-keygen -l` shows it.

use std::collections::HashSet;

use ssh_key::public::KeyData;
use ssh_key::{EcdsaCurve, HashAlg};

use super::parse::{self, Parsed};
use crate::diag::Diag;
use crate::value::Span;

/// One public key of an `ssh_keys` entry.
///
/// Every `Key` has passed the checks of [`super::KeyStore::resolve`]: an
/// accepted type, a blob that decodes to that type and re-encodes to the same
/// bytes, RSA of at least 2048 bits, and a printable comment.
#[derive(Clone, Debug)]
pub struct Key {
    /// The key type, e.g. `ssh-ed25519`.
    pub algorithm: String,
    /// The `authorized_keys` options prefix as written (it holds no
    /// unquoted blank), e.g. `no-pty,from="10.0.0.0/8"`.
    pub options: Option<String>,
    /// The key blob, base64 exactly as written (and canonical).
    pub base64: String,
    /// The comment, trimmed; may be empty.
    pub comment: String,
    /// Where the key was written.
    pub origin: Origin,
    data: KeyData,
}

/// Where a key was written.
#[derive(Clone, Debug)]
pub enum Origin {
    /// Inline in YAML, at the `ssh_keys` entry.
    Inline { at: Span },
    /// In a key file named by an `ssh_keys` entry.
    File {
        /// The key name as written in YAML (e.g. `alice`).
        name: String,
        /// The file as shown in messages (e.g. `ssh/alice.pub`).
        path: String,
        /// The 1-based line of the file.
        line: usize,
        /// The `ssh_keys` entry that named the file.
        at: Span,
    },
}

impl Origin {
    /// The YAML `ssh_keys` entry that produced the key.
    pub(crate) fn at(&self) -> &Span {
        match self {
            Origin::Inline { at } | Origin::File { at, .. } => at,
        }
    }
}

impl Key {
    pub(super) fn from_parsed(p: Parsed, origin: Origin) -> Self {
        Self {
            algorithm: p.algorithm,
            options: p.options,
            base64: p.base64,
            comment: p.comment,
            origin,
            data: p.data,
        }
    }

    /// Parses one inline key with the same checks as [`super::KeyStore::resolve`]
    /// (for callers and tests that hold a line rather than a YAML node).
    pub fn inline(text: &str, at: &Span) -> Result<Key, Diag> {
        parse::parse_line(text)
            .map(|p| Key::from_parsed(p, Origin::Inline { at: at.clone() }))
            .map_err(|e| super::inline_error(&e, at))
    }

    /// What makes two keys the same key: the type and the blob. Comments and
    /// options are ignored.
    pub fn identity(&self) -> (&str, &str) {
        (&self.algorithm, &self.base64)
    }

    /// The normalised `authorized_keys` line: `[options ]type base64[ comment]`,
    /// fields separated by single spaces (the comment's own text is kept).
    pub fn line(&self) -> String {
        let mut s = String::new();
        if let Some(opts) = &self.options {
            s.push_str(opts);
            s.push(' ');
        }
        s.push_str(&self.algorithm);
        s.push(' ');
        s.push_str(&self.base64);
        if !self.comment.is_empty() {
            s.push(' ');
            s.push_str(&self.comment);
        }
        s
    }

    /// The key size as `ssh-keygen -l` prints it: 256 for Ed25519 and the
    /// security-key types, the curve size for ECDSA, the modulus bits for RSA.
    pub(crate) fn bits(&self) -> u32 {
        match &self.data {
            KeyData::Ed25519(_) | KeyData::SkEd25519(_) | KeyData::SkEcdsaSha2NistP256(_) => 256,
            KeyData::Ecdsa(k) => match k.curve() {
                EcdsaCurve::NistP256 => 256,
                EcdsaCurve::NistP384 => 384,
                EcdsaCurve::NistP521 => 521,
            },
            KeyData::Rsa(k) => k.n.as_positive_bytes().map_or(0, parse::bit_length),
            _ => 0,
        }
    }

    /// The SHA-256 fingerprint as `ssh-keygen -l` prints it: `SHA256:` and the
    /// unpadded base64 of the digest of the blob.
    pub fn fingerprint(&self) -> String {
        self.data.fingerprint(HashAlg::Sha256).to_string()
    }

    /// The type as the last field of `ssh-keygen -l`.
    pub(crate) fn type_label(&self) -> &'static str {
        match &self.data {
            KeyData::Ed25519(_) => "ED25519",
            KeyData::Rsa(_) => "RSA",
            KeyData::Ecdsa(_) => "ECDSA",
            KeyData::SkEd25519(_) => "ED25519-SK",
            KeyData::SkEcdsaSha2NistP256(_) => "ECDSA-SK",
            _ => "UNKNOWN",
        }
    }

    /// The line `ssh-keygen -lf` prints for this key, byte for byte:
    /// `256 SHA256:… comment (ED25519)`, with `no comment` when there is none.
    pub fn keygen_line(&self) -> String {
        let comment = if self.comment.is_empty() {
            "no comment"
        } else {
            &self.comment
        };
        format!(
            "{} {} {comment} ({})",
            self.bits(),
            self.fingerprint(),
            self.type_label()
        )
    }
}

/// The final key list of a user: the domain keys in their order, then the
/// user's keys that are not already present. Two keys are the same when their
/// [`Key::identity`] is (type and blob; comments and options are ignored), so a
/// user's copy of a domain key is dropped, and so are repeats within the
/// user's own list. The domain list is taken as it is.
pub fn inject(domain: &[Key], user: &[Key]) -> Vec<Key> {
    let mut seen: HashSet<(&str, &str)> = HashSet::new();
    domain
        .iter()
        .chain(user)
        .filter(|key| seen.insert(key.identity()))
        .cloned()
        .collect()
}
