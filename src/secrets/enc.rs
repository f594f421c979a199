//! One encrypted value, as SOPS writes it:
//! `ENC[AES256_GCM,data:B64,iv:B64,tag:B64,type:T]`.
//!
//! The format, from SOPS's documentation (getsops.io, "Encryption
//! protocol") and checked against `sops` 3.11 itself by the differential
//! tests (tests/integration/differential/sops.rs): AES-256-GCM under the
//! file's 32-byte data key, a 32-byte random IV, the 16-byte tag apart from
//! the data, and as additional data the value's path, its keys joined and
//! ended by `:` (`db:password:`; list items add no key). The plaintext is
//! the value's text: a string as it is, an integer in decimal, a boolean
//! `True` or `False` (SOPS began in Python), a float in Go's shortest
//! decimal form. An empty string is written as the empty string, never
//! encrypted (SOPS does the same).

use aes_gcm::aead::consts::U32;
use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::aes::Aes256;
use aes_gcm::{AesGcm, Nonce};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;

/// AES-256-GCM with SOPS's 32-byte nonce.
type Cipher = AesGcm<Aes256, U32>;

/// The length of SOPS's IV.
const IV_LEN: usize = 32;
/// The length of the GCM tag.
const TAG_LEN: usize = 16;

/// The type SOPS records with a value (`type:`): what the decrypted text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Kind {
    Str,
    Int,
    Float,
    Bool,
    /// Raw bytes (a SOPS binary file's one value).
    Bytes,
    /// A timestamp (Go's time.Time as text).
    Time,
    /// An encrypted comment (a SOPS file without comment rules encrypts its
    /// comments too).
    Comment,
}

impl Kind {
    /// The rows: each type and its name in `type:`.
    const NAMES: [(Kind, &'static str); 7] = [
        (Kind::Str, "str"),
        (Kind::Int, "int"),
        (Kind::Float, "float"),
        (Kind::Bool, "bool"),
        (Kind::Bytes, "bytes"),
        (Kind::Time, "time"),
        (Kind::Comment, "comment"),
    ];

    pub(crate) fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(k, _)| *k == self)
            .map_or("str", |(_, n)| n)
    }

    fn parse(text: &str) -> Option<Kind> {
        Self::NAMES
            .iter()
            .find(|(_, n)| *n == text)
            .map(|(k, _)| *k)
    }
}

/// A parsed `ENC[…]` value: its parts, never its plaintext.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Enc {
    data: Vec<u8>,
    iv: Vec<u8>,
    tag: Vec<u8>,
    pub kind: Kind,
}

/// Why an `ENC[…]` value did not parse or open. Never holds the plaintext.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum EncError {
    /// Not `ENC[AES256_GCM,data:…,iv:…,tag:…,type:…]`.
    Format(&'static str),
    /// The tag did not verify: another key, another path, or altered.
    Open,
    /// The decrypted text is not of the recorded type.
    Type(Kind),
}

impl std::fmt::Display for EncError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EncError::Format(why) => write!(f, "not a SOPS value: {why}"),
            EncError::Open => f.write_str(
                "the value does not decrypt under this file's data key at this path \
                 (moved from another place or file, or altered)",
            ),
            EncError::Type(k) => write!(
                f,
                "the decrypted value is not of its recorded type `{}`",
                k.name()
            ),
        }
    }
}

/// Whether `text` is written as an encrypted value (it may still fail to
/// parse: [`Enc::parse`] says why).
pub(crate) fn looks_encrypted(text: &str) -> bool {
    text.starts_with("ENC[AES256_GCM,") && text.ends_with(']')
}

impl Enc {
    /// Parses `ENC[AES256_GCM,data:…,iv:…,tag:…,type:…]`, strictly: the
    /// four fields in SOPS's order, standard padded base64, a 32-byte IV, a
    /// 16-byte tag and a known type.
    pub(crate) fn parse(text: &str) -> Result<Enc, EncError> {
        let body = text
            .strip_prefix("ENC[AES256_GCM,")
            .and_then(|t| t.strip_suffix(']'))
            .ok_or(EncError::Format("it is not ENC[AES256_GCM,…]"))?;
        let mut fields = body.split(',');
        let mut field = |name: &'static str| {
            fields
                .next()
                .and_then(|f| f.strip_prefix(name))
                .ok_or(EncError::Format(name))
        };
        let data = decode(field("data:")?)?;
        let iv = decode(field("iv:")?)?;
        let tag = decode(field("tag:")?)?;
        let kind = Kind::parse(field("type:")?).ok_or(EncError::Format("unknown type:"))?;
        if fields.next().is_some() {
            return Err(EncError::Format("a field after type:"));
        }
        if iv.len() != IV_LEN || tag.len() != TAG_LEN {
            return Err(EncError::Format("an IV of 32 bytes and a tag of 16"));
        }
        Ok(Enc {
            data,
            iv,
            tag,
            kind,
        })
    }

    /// Encrypts `plain` (the value's text) as `kind` under `key`, bound to
    /// `path` (the additional data).
    pub(crate) fn seal(plain: &[u8], kind: Kind, key: &[u8; 32], path: &str) -> Enc {
        let mut iv = [0u8; IV_LEN];
        super::random(&mut iv);
        let cipher = Cipher::new(key.into());
        let nonce = Nonce::<U32>::from(iv);
        let mut out = cipher
            .encrypt(
                &nonce,
                Payload {
                    msg: plain,
                    aad: path.as_bytes(),
                },
            )
            .expect("AES-GCM encryption of an in-memory value cannot fail");
        let tag = out.split_off(out.len() - TAG_LEN);
        Enc {
            data: out,
            iv: iv.to_vec(),
            tag,
            kind,
        }
    }

    /// Decrypts under `key` at `path`: the value's text.
    pub(crate) fn open(&self, key: &[u8; 32], path: &str) -> Result<Vec<u8>, EncError> {
        let cipher = Cipher::new(key.into());
        let nonce =
            Nonce::<U32>::try_from(self.iv.as_slice()).map_err(|_| EncError::Format("iv"))?;
        let mut sealed = self.data.clone();
        sealed.extend_from_slice(&self.tag);
        let plain = cipher
            .decrypt(
                &nonce,
                Payload {
                    msg: &sealed,
                    aad: path.as_bytes(),
                },
            )
            .map_err(|_| EncError::Open)?;
        check_type(&plain, self.kind)?;
        Ok(plain)
    }

    /// The written form.
    pub(crate) fn text(&self) -> String {
        format!(
            "ENC[AES256_GCM,data:{},iv:{},tag:{},type:{}]",
            B64.encode(&self.data),
            B64.encode(&self.iv),
            B64.encode(&self.tag),
            self.kind.name()
        )
    }
}

fn decode(text: &str) -> Result<Vec<u8>, EncError> {
    B64.decode(text)
        .map_err(|_| EncError::Format("standard base64"))
}

/// The text SOPS gives a plain value of each type: what is encrypted, and
/// what its MAC hashes.
pub(crate) fn check_type(plain: &[u8], kind: Kind) -> Result<(), EncError> {
    let text = std::str::from_utf8(plain).map_err(|_| EncError::Type(kind));
    let ok = match kind {
        Kind::Str | Kind::Comment | Kind::Time => text.is_ok(),
        Kind::Bytes => true,
        Kind::Int => text.is_ok_and(|t| t.parse::<i64>().is_ok()),
        Kind::Float => text.is_ok_and(|t| t.parse::<f64>().is_ok()),
        // Go's strconv.ParseBool, which SOPS decrypts a bool with.
        Kind::Bool => text.is_ok_and(|t| {
            matches!(
                t,
                "1" | "t"
                    | "T"
                    | "TRUE"
                    | "true"
                    | "True"
                    | "0"
                    | "f"
                    | "F"
                    | "FALSE"
                    | "false"
                    | "False"
            )
        }),
    };
    match ok {
        true => Ok(()),
        false => Err(EncError::Type(kind)),
    }
}

/// The text SOPS hashes, and writes, for a decrypted value of `kind`: Go's
/// `strconv` forms (sops.go `ToBytes`), so a bool is `True` or `False`
/// whatever spelling it was parsed from and an integer has no sign or
/// leading zero to spare. `plain` passed [`check_type`].
pub(crate) fn canonical(plain: &[u8], kind: Kind) -> Vec<u8> {
    let text = std::str::from_utf8(plain).unwrap_or_default();
    match kind {
        Kind::Int => text
            .parse::<i64>()
            .map(|i| i.to_string().into_bytes())
            .unwrap_or_else(|_| plain.to_vec()),
        Kind::Float => text
            .parse::<f64>()
            .map(|f| f.to_string().into_bytes())
            .unwrap_or_else(|_| plain.to_vec()),
        Kind::Bool => match matches!(text, "1" | "t" | "T" | "TRUE" | "true" | "True") {
            true => b"True".to_vec(),
            false => b"False".to_vec(),
        },
        _ => plain.to_vec(),
    }
}
