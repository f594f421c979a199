//! A file opened: its data key unwrapped with the operator's identity, each
//! value decrypted at its place, and the file's MAC checked.
//!
//! The MAC, as SOPS computes it (sops.go, `Tree.Decrypt` and `ToBytes`;
//! cmd/sops/common/common.go for its encryption): SHA-512 over the text of
//! the values in the file's order (only the encrypted ones under
//! `mac_only_encrypted`, after 32 fixed bytes that keep the two kinds of
//! MAC apart), written in upper-case hex and encrypted as a `str` under
//! the data key with the `lastmodified` date as additional data.

use sha2::{Digest, Sha512};
use zeroize::Zeroizing;

use super::Code;
use super::enc::{Enc, Kind, canonical};
use super::sealed::{Leaf, Sealed};
use super::wrap::{Identity, unwrap};
use crate::diag::Diag;

/// SOPS's `MACOnlyEncryptedInitialization` (sops.go).
const MAC_ONLY_ENCRYPTED_INIT: [u8; 32] = [
    0x8a, 0x3f, 0xd2, 0xad, 0x54, 0xce, 0x66, 0x52, 0x7b, 0x10, 0x34, 0xf3, 0xd1, 0x47, 0xbe, 0x0b,
    0x0b, 0x97, 0x5b, 0x3b, 0xf4, 0x4f, 0x72, 0xc6, 0xfd, 0xad, 0xec, 0x81, 0x76, 0xf2, 0x7d, 0x69,
];

/// A file's data key and its values' plaintexts, in the order of
/// [`Sealed::secrets`]. Wiped when dropped.
pub(crate) struct Opened {
    pub key: Zeroizing<[u8; 32]>,
    pub values: Vec<Zeroizing<Vec<u8>>>,
}

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Opened({} values)", self.values.len())
    }
}

/// Unwraps the data key of `file` with the first of `ids` that is one of
/// its recipients.
pub(crate) fn data_key(file: &Sealed, ids: &[Identity]) -> Result<Zeroizing<[u8; 32]>, Diag> {
    for stanza in &file.meta.age {
        for id in ids {
            match unwrap(&stanza.enc, id) {
                Ok(Some(key)) => return Ok(Zeroizing::new(key)),
                Ok(None) => {}
                Err(why) => {
                    return Err(Diag::new(
                        Code::Metadata,
                        format!("{}: the data key of {}: {why}", file.file, stanza.recipient),
                    )
                    .label(&file.meta.span, "in this metadata"));
                }
            }
        }
    }
    let others = match file.meta.others.is_empty() {
        true => String::new(),
        false => format!(
            " (its {} keys are not read by beryl)",
            file.meta.others.join(", ")
        ),
    };
    let given = match ids.is_empty() {
        true => "no identity was given".to_string(),
        false => format!(
            "none of {} is one of its recipients",
            ids.iter()
                .map(|i| i.file.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Err(Diag::new(Code::NoIdentity, format!("{}: cannot unwrap the file's data key: {given}{others}", file.file))
        .label(&file.meta.span, format!("encrypted to {} recipient(s)", file.meta.age.len()))
        .help("name an identity that is a recipient: `--identity FILE` (an age identity file or an SSH private key), or BERYL_IDENTITY"))
}

/// Opens `file` with `ids`: every value decrypted at its place and the MAC
/// checked. Any failure is located and holds no plaintext.
pub(crate) fn open(file: &Sealed, ids: &[Identity]) -> Result<Opened, Diag> {
    let key = data_key(file, ids)?;
    let mut values = Vec::with_capacity(file.secrets.len());
    for s in &file.secrets {
        let plain = s.enc.open(&key, &s.aad).map_err(|why| {
            Diag::new(
                Code::Tampered,
                format!("{}: {} does not decrypt", file.file, s.place),
            )
            .label(&s.span, why.to_string())
        })?;
        values.push(Zeroizing::new(plain));
    }
    let opened = Opened { key, values };
    check_mac(file, &opened)?;
    Ok(opened)
}

/// The MAC of `file` with its values `opened`, as upper-case hex.
pub(crate) fn mac_hex(file: &Sealed, values: &[Zeroizing<Vec<u8>>]) -> String {
    let mut hash = Sha512::new();
    if file.meta.mac_only_encrypted {
        hash.update(MAC_ONLY_ENCRYPTED_INIT);
    }
    for leaf in &file.leaves {
        match leaf {
            Leaf::Secret(i) => hash.update(canonical(&values[*i], file.secrets[*i].enc.kind)),
            Leaf::Plain(bytes) => hash.update(bytes),
        }
    }
    hash.finalize().iter().map(|b| format!("{b:02X}")).collect()
}

fn check_mac(file: &Sealed, opened: &Opened) -> Result<(), Diag> {
    let tampered = |why: &str| {
        Diag::new(Code::Tampered, format!("{}: the file's MAC {why}", file.file))
            .label(&file.meta.span, "the MAC of this file")
            .help("a value was changed, added, removed or moved without the data key: restore the file from git, or set the values again")
    };
    let enc = Enc::parse(&file.meta.mac).map_err(|_| tampered("is not an encrypted value"))?;
    if enc.kind != Kind::Str {
        return Err(tampered("is not an encrypted string"));
    }
    let written = enc
        .open(&opened.key, &file.meta.lastmodified)
        .map_err(|_| tampered("does not decrypt"))?;
    match written.eq_ignore_ascii_case(mac_hex(file, &opened.values).as_bytes()) {
        true => Ok(()),
        false => Err(tampered("does not match the values")),
    }
}
