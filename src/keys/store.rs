//! Key files: name checks, lookup in the SSH key directory, capped reads and
//! the refusal of private keys. Results are span-free so that they can be
//! cached and then located at whichever YAML entry asked for them.

use std::fs;
use std::path::Path;

use super::Code;
use super::parse::{self, Parsed};
use crate::diag::{self, Diag};
use crate::fsutil::{ReadError, read_capped, utf8_error_position};
use crate::value::Span;

/// A key file that parsed: its display path and its keys with line numbers.
#[derive(Debug)]
pub(crate) struct Loaded {
    pub path: String,
    pub keys: Vec<(usize, Parsed)>,
}

/// An error waiting for the span of the entry that caused it.
#[derive(Clone, Debug)]
pub(crate) struct Problem(Diag);

impl Problem {
    fn new(code: impl diag::Code, message: impl Into<String>, help: Option<String>) -> Self {
        let d = Diag::new(code, message);
        Self(match help {
            Some(h) => d.help(h),
            None => d,
        })
    }

    pub(super) fn at(&self, span: &Span) -> Diag {
        self.0.clone().label(span, "this ssh_keys entry")
    }

    /// The error itself, for a key file no YAML entry named.
    pub(super) fn unlocated(self) -> Diag {
        self.0
    }
}

const NAME_MAX: usize = 255;

/// Finds, reads and parses the key file of `name` in `dir`.
pub(crate) fn load(dir: &Path, display: &str, max: u64, name: &str) -> Result<Loaded, Problem> {
    check_name(name)?;
    let shown = |file: &str| join_display(display, file);
    if !dir.is_dir() {
        let state = if dir.exists() {
            "is not a directory"
        } else {
            "does not exist"
        };
        return Err(Problem::new(
            Code::NotFound,
            format!("SSH key `{name}` not found: the SSH key directory {display} {state}"),
            Some("point beryl at the key directory with --ssh-dir DIR or BERYL_SSH_DIR".into()),
        ));
    }
    let candidates = files_of(name);
    let pub_file = candidates[0].clone();
    // The first candidate that exists in any form wins, a broken link
    // included: never fall through to the private key next to a `.pub`.
    let Some(file) = candidates
        .iter()
        .find(|c| dir.join(c).symlink_metadata().is_ok())
    else {
        let looked: Vec<String> = candidates.iter().map(|c| shown(c)).collect();
        return Err(Problem::new(
            Code::NotFound,
            format!(
                "SSH key `{name}` not found: looked for {}",
                looked.join(" and ")
            ),
            Some(format!(
                "put the public key in {}, or write the key inline (`ssh-ed25519 AAAA… user@host`)",
                shown(&pub_file)
            )),
        ));
    };
    let path = shown(file);
    let full = dir.join(file);
    let meta = fs::metadata(&full)
        .map_err(|e| Problem::new(Code::NotFound, format!("cannot open {path}: {e}"), None))?;
    if !meta.is_file() {
        return Err(Problem::new(
            Code::NotFile,
            format!("{path} is not a regular file"),
            None,
        ));
    }
    let io = |e: std::io::Error| Problem::new(Code::Io, format!("cannot read {path}: {e}"), None);
    let real_dir = dir.canonicalize().map_err(io)?;
    let real = full.canonicalize().map_err(io)?;
    if !real.starts_with(&real_dir) {
        return Err(Problem::new(
            Code::OutsideDir,
            format!("{path} leads outside the SSH key directory {display}"),
            Some(format!(
                "copy the public key into {display} instead of linking to it"
            )),
        ));
    }
    let bytes = read_capped(&real, max).map_err(|e| match e {
        ReadError::Io(e) => io(e),
        ReadError::NotAFile => {
            Problem::new(Code::NotFile, format!("{path} is not a regular file"), None)
        }
        ReadError::TooLarge => Problem::new(
            crate::limits::Limit::FileSize,
            format!("{path} is larger than the {max}-byte file size cap"),
            Some(format!(
                "a public key file is a few hundred bytes; is this the right file? ({})",
                crate::limits::Limit::FileSize.help()
            )),
        ),
    })?;
    if holds_private_key(&bytes) {
        return Err(Problem::new(
            Code::Private,
            format!("{path} holds a private key; refusing to read it"),
            Some(
                "give the .pub file, the public half (`ssh-keygen -y -f PRIVATE_KEY` prints it)"
                    .into(),
            ),
        ));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let (line, _) = utf8_error_position(&e);
        Problem::new(
            Code::NotUtf8,
            format!("{path}:{line}: not valid UTF-8"),
            None,
        )
    })?;
    let mut keys = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match parse::parse_line(line) {
            Ok(p) => keys.push((i + 1, p)),
            Err(e) => {
                let help = e.help().map(str::to_string);
                return Err(Problem::new(
                    e.code(),
                    format!("{path}:{}: {}", i + 1, e.reason()),
                    help,
                ));
            }
        }
    }
    if keys.is_empty() {
        return Err(Problem::new(
            Code::Empty,
            format!("{path} holds no SSH key"),
            Some("a key file has one public key per line; blank and `#` lines are skipped".into()),
        ));
    }
    Ok(Loaded { path, keys })
}

/// The file names a key name is looked up at, in order: `NAME.pub`, then
/// `NAME` (one name when it ends in `.pub`). Never empty.
pub(crate) fn files_of(name: &str) -> Vec<String> {
    if name.ends_with(".pub") {
        vec![name.to_string()]
    } else {
        vec![format!("{name}.pub"), name.to_string()]
    }
}

/// A key name is a plain file name of the SSH key directory.
fn check_name(name: &str) -> Result<(), Problem> {
    let why = if name.is_empty() {
        "the entry is empty"
    } else if name.contains(['/', '\\']) || Path::new(name).is_absolute() {
        "a key name is a file name in the SSH key directory, not a path"
    } else if name.starts_with('.') {
        "a key name cannot start with `.`"
    } else if name.chars().any(char::is_control) {
        "a key name cannot hold control characters"
    } else if name.len() > NAME_MAX {
        "a key name is at most 255 bytes"
    } else {
        return Ok(());
    };
    Err(Problem::new(
        Code::InvalidName,
        format!("invalid key name: {why}"),
        Some(super::ENTRY_HELP.into()),
    ))
}

/// `display/file`, without doubling a `/`.
pub(super) fn join_display(display: &str, file: &str) -> String {
    match display {
        "" => file.to_string(),
        d if d.ends_with('/') => format!("{d}{file}"),
        d => format!("{d}/{file}"),
    }
}

/// PEM private keys (`-----BEGIN … PRIVATE KEY-----`: OpenSSH, RSA, EC, DSA,
/// PKCS#8 plain or encrypted), the SSH2 `---- BEGIN … PRIVATE KEY ----` form
/// and PuTTY key files.
fn holds_private_key(bytes: &[u8]) -> bool {
    let has = |line: &[u8], pat: &[u8]| line.windows(pat.len()).any(|w| w == pat);
    bytes.split(|&b| b == b'\n').any(|line| {
        let line = line.trim_ascii();
        ((line.starts_with(b"-----BEGIN") || line.starts_with(b"---- BEGIN"))
            && has(line, b"PRIVATE KEY"))
            || line.starts_with(b"PuTTY-User-Key-File-")
    })
}
