//! One `authorized_keys` line: `[options ]type base64[ comment]`.
//!
//! The line is split as sshd splits it (options end at the first unquoted
//! blank), the blob is decoded strictly, its embedded type must equal the type
//! field, ssh-key decodes the key body, and the body must re-encode to the very
//! same bytes, so the fingerprint is the one `ssh-keygen -l` prints. Reasons
//! never quote the line: a key file may hold things that should not be echoed.
//!
//! Not checked: that an ECDSA point lies on its curve (that needs the curve
//! arithmetic crates); sshd would skip such a key.

use ssh_key::public::KeyData;
use ssh_key::{Error as SshError, PublicKey};

use super::Code;
use super::base64;
use super::options;

/// The key types beryl accepts.
pub(super) const ACCEPTED: [&str; 7] = [
    "ssh-ed25519",
    "ssh-rsa",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
];

const DSS: &str = "ssh-dss";
const CERT_SUFFIX: &str = "-cert-v01@openssh.com";
/// sshd refuses larger RSA moduli (OPENSSL_RSA_MAX_MODULUS_BITS).
const RSA_MAX_BITS: u32 = 16384;
pub(super) const RSA_MIN_BITS: u32 = 2048;

/// A line that parsed: the fields as written (normalised) and the decoded key.
#[derive(Clone, Debug)]
pub(super) struct Parsed {
    pub algorithm: String,
    pub options: Option<String>,
    pub base64: String,
    pub comment: String,
    pub data: KeyData,
}

/// Why a line is not an acceptable key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum LineError {
    Dss,
    Certificate,
    Unsupported,
    RsaTooShort(u32),
    Comment,
    Options(String),
    Invalid(String),
}

impl LineError {
    pub(super) fn code(&self) -> Code {
        match self {
            LineError::Dss => Code::Dss,
            LineError::Certificate => Code::Certificate,
            LineError::Unsupported => Code::UnsupportedType,
            LineError::RsaTooShort(_) => Code::RsaTooShort,
            LineError::Comment => Code::Comment,
            LineError::Options(_) => Code::Options,
            LineError::Invalid(_) => Code::Invalid,
        }
    }

    /// The reason, one sentence without any of the line's text.
    pub(super) fn reason(&self) -> String {
        match self {
            LineError::Dss => "ssh-dss (DSA) keys are refused: OpenSSH 10 removed DSA \
                               support, and FreeBSD 15 ships OpenSSH 10"
                .into(),
            LineError::Certificate => "SSH certificates (`*-cert-v01@openssh.com`) are not \
                                       accepted as ssh_keys"
                .into(),
            LineError::Unsupported => format!(
                "unsupported SSH key type; accepted: {}",
                ACCEPTED.join(", ")
            ),
            LineError::RsaTooShort(bits) => {
                format!("the RSA key has {bits} bits; at least {RSA_MIN_BITS} are required")
            }
            LineError::Comment => "the key comment holds a control character (newline, \
                                   tab, NUL, …)"
                .into(),
            LineError::Options(why) => format!("invalid key options: {why}"),
            LineError::Invalid(why) => format!("invalid SSH public key: {why}"),
        }
    }

    pub(super) fn help(&self) -> Option<&'static str> {
        match self {
            LineError::Dss | LineError::RsaTooShort(_) => {
                Some("generate an Ed25519 key with `ssh-keygen -t ed25519`")
            }
            LineError::Certificate => {
                Some("give the plain public key (the .pub file, not -cert.pub)")
            }
            LineError::Comment => Some("keep the comment on one line of printable text"),
            LineError::Options(_) => Some(
                "options are a comma-separated list such as `no-pty,from=\"10.0.0.0/8\"`, \
                 as in sshd(8) AUTHORIZED_KEYS FILE FORMAT",
            ),
            _ => None,
        }
    }
}

/// Parses a (trimmed) line. Tries it first as `type base64 …`, then with an
/// options prefix, as sshd does.
pub(super) fn parse_line(text: &str) -> Result<Parsed, LineError> {
    let text = text.trim();
    if text.contains(['\n', '\r']) {
        return Err(LineError::Invalid("a key must fit on one line".into()));
    }
    if starts_with_key(text) {
        return parse_key(text, None);
    }
    if let Some((opts, rest)) = options::split(text)
        && starts_with_key(rest)
    {
        options::validate(opts).map_err(LineError::Options)?;
        return parse_key(rest, Some(opts.to_string()));
    }
    Err(LineError::Invalid(
        "expected `[options] type base64 [comment]` with a known key type".into(),
    ))
}

/// Whether `s` begins with a key type: a known type word, or any word that
/// the following blob names as its own type.
fn starts_with_key(s: &str) -> bool {
    let (first, rest) = split_word(s);
    if is_type_word(first) {
        return true;
    }
    let (blob, _) = split_word(rest);
    base64::decode(blob).is_ok_and(|b| !first.is_empty() && blob_type(&b) == Some(first))
}

fn is_type_word(word: &str) -> bool {
    ACCEPTED.contains(&word) || word == DSS || word.ends_with(CERT_SUFFIX)
}

/// Splits at the first run of blanks (space or tab).
pub(super) fn split_word(s: &str) -> (&str, &str) {
    match s.find([' ', '\t']) {
        Some(i) => (&s[..i], s[i..].trim_start_matches([' ', '\t'])),
        None => (s, ""),
    }
}

/// The type name a blob starts with (`string` = uint32 length + bytes).
fn blob_type(blob: &[u8]) -> Option<&str> {
    let len = u32::from_be_bytes(blob.get(..4)?.try_into().ok()?);
    let end = 4usize.checked_add(usize::try_from(len).ok()?)?;
    std::str::from_utf8(blob.get(4..end)?).ok()
}

fn parse_key(s: &str, options: Option<String>) -> Result<Parsed, LineError> {
    let (algorithm, rest) = split_word(s);
    let (b64, comment) = split_word(rest);
    let comment = comment.trim();
    if algorithm == DSS {
        return Err(LineError::Dss);
    }
    if algorithm.ends_with(CERT_SUFFIX) {
        return Err(LineError::Certificate);
    }
    if !ACCEPTED.contains(&algorithm) {
        return Err(LineError::Unsupported);
    }
    let invalid = |why: &str| LineError::Invalid(why.to_string());
    if b64.is_empty() {
        return Err(invalid("the base64 key data after the type is missing"));
    }
    let blob = base64::decode(b64)
        .map_err(|e| LineError::Invalid(format!("the key data is not valid base64: {e}")))?;
    match blob_type(&blob) {
        None => return Err(invalid("the key data is truncated (no type name)")),
        Some(inner) if inner != algorithm => {
            // Only a well-known name is echoed: the blob is the file's content.
            let what = if ACCEPTED.contains(&inner) || inner == DSS {
                format!("a {inner} key")
            } else {
                "not a key of that type".to_string()
            };
            return Err(LineError::Invalid(format!(
                "the type field says {algorithm} but the key data is {what}"
            )));
        }
        Some(_) => {}
    }
    let data = KeyData::from(PublicKey::from_bytes(&blob).map_err(body_error)?);
    match PublicKey::from(data.clone()).to_bytes() {
        Ok(again) if again == blob => {}
        _ => return Err(invalid("the key data is not in canonical form")),
    }
    if let Some(rsa) = data.rsa() {
        let bits = rsa
            .n
            .as_positive_bytes()
            .map(bit_length)
            .ok_or_else(|| invalid("the RSA modulus is negative"))?;
        if bits < RSA_MIN_BITS {
            return Err(LineError::RsaTooShort(bits));
        }
        if bits > RSA_MAX_BITS {
            return Err(invalid(
                "the RSA key is larger than 16384 bits, which sshd refuses",
            ));
        }
    }
    if comment.chars().any(char::is_control) {
        return Err(LineError::Comment);
    }
    Ok(Parsed {
        algorithm: algorithm.to_string(),
        options,
        base64: b64.to_string(),
        comment: comment.to_string(),
        data,
    })
}

/// Bits of a big-endian unsigned integer, as OpenSSL's `BN_num_bits`.
pub(super) fn bit_length(bytes: &[u8]) -> u32 {
    let Some(i) = bytes.iter().position(|&b| b != 0) else {
        return 0;
    };
    let rest = u32::try_from(bytes.len() - i - 1).unwrap_or(u32::MAX / 16);
    rest.saturating_mul(8)
        .saturating_add(8 - bytes[i].leading_zeros())
}

/// ssh-key's decoding errors, in words. Its own messages may quote the blob
/// (an unknown curve name, say), so they are never shown. The encoding
/// crate's error type is not re-exported; its kinds are told apart by text.
fn body_error(e: SshError) -> LineError {
    let truncated = "the key data is truncated or a field has the wrong length";
    let trailing = "the key data has unexpected trailing bytes";
    let why = match e {
        SshError::Encoding(inner) => match inner.to_string() {
            s if s.starts_with("length invalid") => truncated,
            s if s.contains("trailing data") => trailing,
            s if s.starts_with("invalid label") => "the key data names an unknown curve",
            _ => "the key data is malformed",
        },
        SshError::TrailingData { .. } => trailing,
        SshError::FormatEncoding => "the key data holds a malformed integer",
        SshError::AlgorithmUnknown => "the key parameters do not match its type",
        SshError::Ecdsa(_) | SshError::Crypto => "the key data holds an invalid curve point",
        _ => "the key data is malformed",
    };
    LineError::Invalid(why.to_string())
}
