//! Secrets in the inventory: values encrypted one by one, in SOPS's format,
//! to the domain's operator keys and the host's own key (docs/secrets.md).
//!
//! Entry points, in the order a run meets them:
//! - [`unseal`] (at load, every stage after it sees only tokens): a file's
//!   `sops:` metadata out, each encrypted value checked and replaced by its
//!   token `‹secret:FINGERPRINT›`;
//! - [`open`] (where apply runs, with an identity the operator names): a
//!   file's data key unwrapped, its MAC checked, its values decrypted;
//! - [`edit`] (the `beryl secrets` commands): one value set in a file's
//!   text, its MAC and date updated, nothing else of the file touched.
//!
//! The layers: [`enc`] (one `ENC[…]` value), [`rules`] (which values a file
//! encrypts), [`wrap`] (the data key, wrapped by age), [`sealed`] (a file
//! read), [`mac`] (the file's MAC and the opened values), [`edit`] (a file
//! changed). No plaintext is ever in a [`crate::diag::Diag`], a `Debug`
//! output or a token.

pub(crate) mod edit;
pub(crate) mod enc;
pub(crate) mod mac;
pub(crate) mod reseal;
pub(crate) mod rules;
pub(crate) mod sealed;
pub(crate) mod wrap;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_reseal;

pub(crate) use mac::{Opened, open};
pub(crate) use sealed::{Sealed, unseal};

/// How every token begins: no plain value of the inventory may hold it
/// (refused at load), so a token in a compiled config always stands for an
/// encrypted value of the host's own files.
pub(crate) const TOKEN_OPEN: &str = "‹secret:";

/// Whether `text` holds a token. Most texts hold no byte 0xE2 (the first
/// of `‹`), which one pass over the bytes tells before any substring
/// search: every string the schema reads passes here.
pub(crate) fn holds_token(text: &str) -> bool {
    text.as_bytes().contains(&0xE2) && text.contains(TOKEN_OPEN)
}

crate::diag::codes! {
    /// The codes of secrets.
    pub(crate) enum Code in "secrets" {
        /// An encrypted value (`ENC[…]`) in a file without SOPS metadata.
        NoMetadata = "no_metadata";
        /// A secret's token (`‹secret:…›`) written as plain text.
        Forged = "forged";
        /// The `sops` metadata of a file does not parse, or uses what beryl does not support.
        Metadata = "metadata";
        /// A value the file's rules encrypt is written in the clear.
        Plaintext = "plaintext";
        /// An encrypted value the file's rules do not select.
        Unmarked = "unmarked";
        /// No identity given unwraps the file's data key.
        NoIdentity = "no_identity";
        /// A value does not decrypt at its place (moved, altered) or the file's MAC does not match.
        Tampered = "tampered";
        /// A recipient the inventory expects (a key of a domain whose hosts read the file, the host's own key) is missing from the file's.
        Recipients = "recipients";
        /// A file with secrets for a host whose SSH host key is unknown (`<ssh dir>/hosts/FQDN.pub`).
        HostKey = "host_key";
        /// A file's secrets are also wrapped to a recipient the inventory does not name.
        ExtraRecipient = "extra_recipient", warning;
        /// A file was wrapped without a recipient the inventory expects (a host key not gathered yet, a key age cannot wrap to).
        Incomplete = "incomplete", warning;
        /// Who may read a file cannot be told from the inventory (no host reads it, a reclass inventory, a class list that does not expand).
        Readers = "readers";
        /// A `beryl secrets` command cannot change the file as asked.
        Edit = "edit";
    }
}

#[test]
fn the_shell_knows_the_token() {
    assert_eq!(crate::shell::SEALED, TOKEN_OPEN);
}

/// Fills `buf` from the system's random source.
pub(crate) fn random(buf: &mut [u8]) {
    getrandom::fill(buf).expect("the system's random source");
}
