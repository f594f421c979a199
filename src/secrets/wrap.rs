//! A file's data key, wrapped to each recipient with age, as SOPS stores it
//! (`sops.age[].enc`: an ASCII-armored age file per recipient holding the
//! 32 raw bytes; getsops/sops age/keysource.go, checked by the differential
//! tests against `sops` 3.11 and the `age` command).
//!
//! A recipient is an age public key (`age1…`) or an SSH public key
//! (`ssh-ed25519 …`, `ssh-rsa …`), as age reads them. An identity is what
//! the operator names: an age identity file (`AGE-SECRET-KEY-1…` lines) or
//! an unencrypted OpenSSH private key. beryl reads only the file it is
//! given, holds the key in memory for the run, and never prints any of it:
//! errors name the file, never its content.

// SOPS wraps to classic X25519 (`age1…`) and SSH recipients, which age
// 0.13 marks deprecated in favour of its post-quantum ones: beryl writes
// what SOPS and the `age` 1.1 of Debian read.
#![allow(deprecated)]

use std::io::{Read, Write};
use std::str::FromStr;

use age::armor::{ArmoredReader, ArmoredWriter, Format};

/// A recipient as written in the inventory or the metadata.
pub(crate) struct Recipient {
    /// As written (`age1…`, or the SSH key line without its comment).
    pub text: String,
    key: Box<dyn age::Recipient + Send + Sync>,
}

impl std::fmt::Debug for Recipient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl Recipient {
    /// Reads an age or SSH public key; the error says why not.
    pub(crate) fn parse(text: &str) -> Result<Recipient, String> {
        let text = text.trim();
        if text.starts_with("age1") {
            let key = age::x25519::Recipient::from_str(text)
                .map_err(|e| format!("not an age public key: {e}"))?;
            return Ok(Recipient {
                text: text.to_string(),
                key: Box::new(key),
            });
        }
        // The comment of an SSH key is not part of it.
        let fields: Vec<&str> = text.split_whitespace().collect();
        let bare = fields.iter().take(2).copied().collect::<Vec<_>>().join(" ");
        match age::ssh::Recipient::from_str(&bare) {
            Ok(key) => Ok(Recipient {
                text: bare,
                key: Box::new(key),
            }),
            Err(age::ssh::ParseRecipientKeyError::Unsupported(t)) => Err(format!(
                "an SSH key of type {t}: age (and so SOPS) wraps only to ssh-ed25519 and ssh-rsa keys"
            )),
            Err(_) => Err("neither an age public key (age1…) nor an SSH public key".to_string()),
        }
    }
}

/// A recipient as compared: an age key as it is, an SSH key's type and
/// blob without its comment.
pub(crate) fn bare(recipient: &str) -> String {
    let t = recipient.trim();
    match t.starts_with("age1") {
        true => t.to_string(),
        false => t.split_whitespace().take(2).collect::<Vec<_>>().join(" "),
    }
}

/// An identity the operator named: what unwraps a data key.
pub(crate) struct Identity {
    /// The file it came from, for messages.
    pub file: String,
    keys: Vec<Box<dyn age::Identity + Send + Sync>>,
}

impl Identity {
    /// Reads an age identity file or an unencrypted OpenSSH private key.
    /// The error names the file and why, never its content.
    pub(crate) fn read(path: &std::path::Path) -> Result<Identity, String> {
        let file = path.display().to_string();
        let text = crate::fsutil::read_capped(path, 1 << 20)
            .map_err(|e| format!("{file}: cannot read the identity: {}", read_error(&e)))?;
        let keys: Vec<Box<dyn age::Identity + Send + Sync>> = if text.starts_with(b"-----BEGIN") {
            match age::ssh::Identity::from_buffer(&text[..], Some(file.clone())) {
                Ok(id @ age::ssh::Identity::Unencrypted(_)) => vec![Box::new(id)],
                Ok(age::ssh::Identity::Encrypted(_)) => {
                    return Err(format!(
                        "{file}: the SSH key is passphrase-protected; beryl asks for no passphrase: \
                         name an age identity file, or an unencrypted copy kept where only you can read it"
                    ));
                }
                Ok(age::ssh::Identity::Unsupported(_)) | Err(_) => {
                    return Err(format!(
                        "{file}: not an SSH private key age can use (ssh-ed25519 or ssh-rsa)"
                    ));
                }
            }
        } else {
            let parsed = age::IdentityFile::from_buffer(&text[..]).map_err(|_| {
                format!("{file}: neither an age identity file nor an OpenSSH private key")
            })?;
            parsed
                .into_identities()
                .map_err(|_| format!("{file}: an identity beryl cannot use (a plugin's?)"))?
        };
        if keys.is_empty() {
            return Err(format!("{file}: holds no identity"));
        }
        Ok(Identity { file, keys })
    }
}

fn read_error(e: &crate::fsutil::ReadError) -> String {
    match e {
        crate::fsutil::ReadError::NotAFile => "not a regular file".into(),
        crate::fsutil::ReadError::TooLarge => "larger than 1 MiB".into(),
        crate::fsutil::ReadError::Io(e) => e.to_string(),
    }
}

/// Wraps `key` to one recipient: the armored age file SOPS stores.
pub(crate) fn wrap(key: &[u8; 32], to: &Recipient) -> String {
    let encryptor =
        age::Encryptor::with_recipients(std::iter::once(&*to.key as &dyn age::Recipient))
            .expect("one recipient is enough for age");
    let mut out = Vec::new();
    let armor =
        ArmoredWriter::wrap_output(&mut out, Format::AsciiArmor).expect("armor into memory");
    let mut w = encryptor.wrap_output(armor).expect("age into memory");
    w.write_all(key).expect("age into memory");
    w.finish()
        .and_then(|a| a.finish())
        .expect("age into memory");
    String::from_utf8(out).expect("armor is ASCII")
}

/// Unwraps an armored age file with the identity: the 32-byte data key,
/// or `None` when none of its keys is a recipient of it.
pub(crate) fn unwrap(armored: &str, with: &Identity) -> Result<Option<[u8; 32]>, String> {
    let decryptor = age::Decryptor::new(ArmoredReader::new(armored.as_bytes()))
        .map_err(|e| format!("not an age file: {e}"))?;
    let reader = decryptor.decrypt(with.keys.iter().map(|k| &**k as &dyn age::Identity));
    let mut reader = match reader {
        Ok(r) => r,
        Err(age::DecryptError::NoMatchingKeys) => return Ok(None),
        Err(e) => return Err(format!("age: {e}")),
    };
    let mut key = Vec::new();
    reader
        .read_to_end(&mut key)
        .map_err(|e| format!("age: {e}"))?;
    <[u8; 32]>::try_from(key.as_slice())
        .map(Some)
        .map_err(|_| format!("the data key is {} bytes, not 32", key.len()))
}

#[cfg(test)]
impl Identity {
    /// A new age key pair in memory: the identity and its public key.
    pub(crate) fn generate_for_tests() -> (Identity, String) {
        let key = age::x25519::Identity::generate();
        let public = key.to_public().to_string();
        (
            Identity {
                file: "test".into(),
                keys: vec![Box::new(key)],
            },
            public,
        )
    }
}
