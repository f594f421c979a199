//! `keys`: the SSH public key parser on arbitrary lines.
//!
//! A line is either the input as text, or built from it: an options prefix,
//! a type word, a blob (a real key's, a real key's with bytes changed, or
//! SSH wire fields of the input's choosing, base64-encoded), a comment.
//! [`beryl::keys::Key::inline`] must accept it or refuse it with a message
//! that never quotes the blob; an accepted key's normalised line must parse
//! back to the same key. The line is then resolved as an `ssh_keys` entry
//! through a [`beryl::keys::KeyStore`] on the repository's `ssh/` folder, so
//! key names are looked up too.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use arbitrary::{Arbitrary, Result, Unstructured};
use beryl::keys::{Key, KeyStore};
use beryl::value::{Node, Value};

use super::common::report;
use super::value::Places;

/// Valid public keys of each accepted type (tests only; from src/keys/tests/fixtures.rs).
const KEYS: &[&str] = &[
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAcaVAtvb55dH7da9RT2X7puVmgCS0MgwSPXXBiFq+ex",
    "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBNg7q975JLn+z6Y/w0DgyD/e8CQNtutG0F3jJilS1tpYFrr6vhoIWg66K9WKg6vQ0jvb2pQAeLNAZdbWk7qNCK4=",
    "sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tAAAAIAcaVAtvb55dH7da9RT2X7puVmgCS0MgwSPXXBiFq+exAAAABHNzaDo=",
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQC6yPUnrgTInEp/ImXbQvoAiQQItBPrd5wG2Cd+Xax8OIjVGumdQtiu77o/pge0rlGLpb1nXRA9rc1/1hwEBS9d9Arka3a275DYjGiNz1RtXdFjepe/H7ZhRUh4TkeEW+2R5kJuFxLB6r91I8gmg3BlAAdooGbTXalV08GJ6gxU5Q==",
];

const TYPES: &[&str] = &[
    "ssh-ed25519",
    "ssh-rsa",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
    "ssh-dss",
    "ssh-ed25519-cert-v01@openssh.com",
    "nistp256",
    "",
];

const OPTIONS: &[&str] = &[
    "",
    "no-pty ",
    "restrict,pty ",
    "from=\"10.0.0.0/8\" ",
    "command=\"echo a b\" ",
    "environment=\"A=\\\"b c\\\"\" ",
    "NO-PTY ",
    "bogus ",
    "from=\"x ",
    "\"\" ",
];

const NAMES: &[&str] = &[
    "alice",
    "ops",
    "oncall",
    "alice.pub",
    "../ssh/alice",
    "README.md",
    ".",
];

pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    if let Ok(line) = line(&mut u) {
        check(&line);
    }
}

fn line(u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0..=5)? {
        0 => String::from_utf8_lossy(u.bytes(u.len())?).into_owned(),
        1 => u.choose(NAMES)?.to_string(),
        _ => {
            let options = u.choose(OPTIONS)?;
            let (kind, blob) = match u.int_in_range(0..=2)? {
                0 => split(u.choose(KEYS)?),
                1 => {
                    let (kind, blob) = split(u.choose(KEYS)?);
                    (kind, changed(u, blob)?)
                }
                _ => {
                    let kind = u.choose(TYPES)?.to_string();
                    let blob = wire(u, &kind)?;
                    (kind, blob)
                }
            };
            let kind = if u.ratio(1, 8)? {
                u.choose(TYPES)?.to_string()
            } else {
                kind
            };
            let comment = match u.int_in_range(0..=3)? {
                0 => String::new(),
                1 => " user@host".to_string(),
                _ => format!(" {}", String::arbitrary(u)?),
            };
            format!("{options}{kind} {blob}{comment}")
        }
    })
}

fn split(line: &str) -> (String, String) {
    let (kind, blob) = line.split_once(' ').unwrap_or((line, ""));
    (kind.to_string(), blob.to_string())
}

/// A real blob with a few bytes changed, cut or added, re-encoded.
fn changed(u: &mut Unstructured, blob: String) -> Result<String> {
    let mut bytes = decode(&blob);
    for _ in 0..u.int_in_range(1..=3)? {
        match u.int_in_range(0..=2)? {
            0 if !bytes.is_empty() => {
                let i = u.choose_index(bytes.len())?;
                bytes[i] = u.arbitrary()?;
            }
            1 => bytes.truncate(u.choose_index(bytes.len() + 1)?),
            _ => bytes.push(u.arbitrary()?),
        }
    }
    Ok(encode(&bytes))
}

/// SSH wire fields: the type name (usually), then strings of the input's
/// choosing; base64, now and then with a stray character.
fn wire(u: &mut Unstructured, kind: &str) -> Result<String> {
    let mut bytes = Vec::new();
    let name = if u.ratio(7, 8)? {
        kind.as_bytes().to_vec()
    } else {
        Vec::arbitrary(u)?
    };
    push_string(&mut bytes, &name);
    for _ in 0..u.int_in_range(0..=4)? {
        let field: Vec<u8> = match u.int_in_range(0..=2)? {
            0 => u
                .choose(&[
                    &b"nistp256"[..],
                    b"nistp384",
                    b"nistp521",
                    b"ssh:",
                    b"\x01\x00\x01",
                ])?
                .to_vec(),
            1 => vec![u.arbitrary::<u8>()?; u.choose(&[32, 33, 65, 97, 133, 257, 513])?.to_owned()],
            _ => Vec::arbitrary(u)?,
        };
        push_string(&mut bytes, &field);
    }
    let mut text = encode(&bytes);
    if u.ratio(1, 10)? {
        let i = u.choose_index(text.len() + 1)?;
        text.insert(i, *u.choose(&['=', '-', '_', ' ', '\t', '!'])?);
    }
    Ok(text)
}

fn push_string(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&u32::try_from(bytes.len()).unwrap_or(u32::MAX).to_be_bytes());
    out.extend_from_slice(bytes);
}

fn check(line: &str) {
    let mut at = Places::new("hosts/web1.yml");
    let span = at.span();
    match Key::inline(line, &span) {
        Ok(key) => {
            let again = Key::inline(&key.line(), &span)
                .unwrap_or_else(|d| panic!("a key's own line is refused: {}", d.message));
            assert_eq!(again.identity(), key.identity());
            assert_eq!(again.line(), key.line());
            assert_eq!(again.fingerprint(), key.fingerprint());
            assert_eq!(again.keygen_line(), key.keygen_line());
            assert!(
                !key.line().contains(['\n', '\r']),
                "a key line holds a line break"
            );
        }
        Err(d) => {
            quiet(&d, line);
            report(&[d]);
        }
    }
    let entry = Node::new(Value::Str(line.to_string()), span);
    match store().resolve(&entry) {
        Ok(keys) => {
            for key in keys {
                assert!(
                    Key::inline(&key.line(), &entry.span).is_ok(),
                    "a resolved key does not re-parse"
                );
            }
        }
        Err(d) => {
            // A key name (no blank) is the YAML's own text, and is shown.
            if line.trim().contains([' ', '\t']) {
                quiet(&d, line);
            }
            report(&[d]);
        }
    }
}

/// A refusal never echoes the key data (a known type name may be named).
fn quiet(d: &beryl::diag::Diag, line: &str) {
    let long = |f: &&str| f.len() >= 24 && !TYPES.contains(f);
    for field in line.split([' ', '\t']).filter(long) {
        assert!(
            !d.message.contains(field),
            "the message quotes the line: {}",
            d.message
        );
        if let Some(help) = &d.help {
            assert!(!help.contains(field), "the help quotes the line: {help}");
        }
    }
}

/// The key store on the repository's `ssh/` folder (the example's keys).
pub(crate) fn store() -> &'static KeyStore {
    static STORE: OnceLock<KeyStore> = OnceLock::new();
    STORE.get_or_init(|| {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let repo: PathBuf = if here.join("ssh").is_dir() {
            here.to_path_buf()
        } else {
            here.parent().unwrap_or(here).to_path_buf()
        };
        KeyStore::new(&repo.join("ssh"), "ssh", 1 << 20)
    })
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64, padded.
fn encode(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Standard base64, padded (only ever fed [`KEYS`]' blobs).
fn decode(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let (mut n, mut bits) = (0u32, 0);
    for c in text.bytes().take_while(|&c| c != b'=') {
        let Some(v) = ALPHABET.iter().position(|&a| a == c) else {
            continue;
        };
        n = n << 6 | u32::try_from(v).unwrap_or(0);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(u8::try_from(n >> bits & 0xff).unwrap_or(0));
        }
    }
    out
}
