//! SSH keys: resolving `ssh_keys` entries and injecting the domain's keys.
//!
//! Entry points: [`KeyStore::resolve`] turns one YAML entry into keys, and
//! [`inject`] builds a user's final list. An entry is either
//!
//! * an **inline key**, `[options ]type base64[ comment]`, recognised by
//!   parsing it (not by an `ssh-` prefix): a string with a blank that does not
//!   parse is an invalid key, never a file name; or
//! * a **key name**, a plain file name looked up in the SSH key directory as
//!   `<name>.pub` first, then `<name>` (so `id_ed25519` never opens the private
//!   key when `id_ed25519.pub` exists). A key file holds one or more keys, one
//!   per line; blank and `#` lines are skipped.
//!
//! Every error points at the YAML entry. Errors about a key file name the file
//! and line but never quote its content, and files holding a private key are
//! refused outright.
//!
//! An entry starting with [`PLACEHOLDER`] (what `beryl init` writes) is
//! neither: it is refused as a placeholder to replace.
//!
//! Error codes: [`Code`]; a key file over the size cap is
//! `beryl::limit::file_size`.

mod base64;
mod key;
mod options;
mod parse;
mod store;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub use key::{Key, Origin, inject};
pub(crate) use store::files_of as key_files;

use crate::diag::Diag;
use crate::value::{Node, Span};
use parse::LineError;
use store::{Loaded, Problem};

crate::diag::codes! {
    /// The codes of SSH keys.
    pub(crate) enum Code in "keys" {
        /// An `ssh_keys` entry that is not a string.
        NotString = "not_string";
        /// An `ssh_keys` entry that is still `beryl init`'s placeholder.
        Placeholder = "placeholder";
        /// A key name that is not a plain file name of the SSH key directory.
        InvalidName = "invalid_name";
        /// No key file of that name (or no SSH key directory).
        NotFound = "not_found";
        /// A key file that is not a regular file.
        NotFile = "not_file";
        /// A key file whose link leads outside the SSH key directory.
        OutsideDir = "outside_dir";
        /// A key file that cannot be read.
        Io = "io";
        /// A key file that is not valid UTF-8.
        NotUtf8 = "not_utf8";
        /// A key file that holds a private key.
        Private = "private";
        /// A key file with no key.
        Empty = "empty";
        /// A key line that is not an SSH public key.
        Invalid = "invalid";
        /// A key line whose options (`no-pty,from=…`) are invalid.
        Options = "options";
        /// A key comment with a control character.
        Comment = "comment";
        /// An ssh-dss (DSA) key, which OpenSSH 10 removed.
        Dss = "dss";
        /// An SSH certificate instead of a public key.
        Certificate = "certificate";
        /// An RSA key shorter than 2048 bits.
        RsaTooShort = "rsa_too_short";
        /// A key type beryl does not accept.
        UnsupportedType = "unsupported_type";
        /// A host key file (`<ssh dir>/hosts/FQDN.pub`) that does not hold exactly one key.
        HostKey = "host_key";
    }
}

/// The SSH key directory. Shared by all hosts of a compile (it is `Sync`);
/// each key file is read and parsed once.
pub struct KeyStore {
    dir: PathBuf,
    display: String,
    max_file_size: u64,
    cache: Mutex<HashMap<String, Result<Arc<Loaded>, Problem>>>,
}

impl KeyStore {
    /// `dir` as given by the user (default `ssh`); `display` is how it is
    /// shown in messages; `max_file_size` caps every key file read.
    pub fn new(dir: &Path, display: &str, max_file_size: u64) -> Self {
        Self {
            dir: dir.to_path_buf(),
            display: display.to_string(),
            max_file_size,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// Resolves one `ssh_keys` entry (a YAML string node) into one or more
    /// keys, in file order. Errors are located at `entry.span`.
    pub fn resolve(&self, entry: &Node) -> Result<Vec<Key>, Diag> {
        let at = &entry.span;
        let Some(text) = entry.as_str() else {
            return Err(Diag::new(
                Code::NotString,
                format!(
                    "ssh_keys entries must be strings, not {}",
                    entry.value.type_name()
                ),
            )
            .label(at, "not a string")
            .help(ENTRY_HELP));
        };
        let text = text.trim();
        if text.starts_with(PLACEHOLDER) {
            return Err(Diag::new(
                Code::Placeholder,
                "this ssh_keys entry is a placeholder, not a key",
            )
            .label(at, "replace this placeholder")
            .help(PLACEHOLDER_HELP));
        }
        match parse::parse_line(text) {
            Ok(p) => return Ok(vec![Key::from_parsed(p, Origin::Inline { at: at.clone() })]),
            Err(e) if text.contains(char::is_whitespace) => return Err(inline_error(&e, at)),
            Err(_) => {}
        }
        let loaded = self.load(text).map_err(|p| p.at(at))?;
        Ok(loaded
            .keys
            .iter()
            .map(|(line, p)| {
                let origin = Origin::File {
                    name: text.to_string(),
                    path: loaded.path.clone(),
                    line: *line,
                    at: at.clone(),
                };
                Key::from_parsed(p.clone(), origin)
            })
            .collect())
    }

    /// Every key of the key file shown as `path`, by line, as `(line, key)`,
    /// when this store has read it: what the file holds, whichever hosts
    /// kept which of its keys.
    pub(crate) fn file_keys(
        &self,
        path: &str,
    ) -> Option<std::collections::BTreeSet<(usize, String)>> {
        let cache = self.lock();
        let loaded = cache.values().flatten().find(|l| l.path == path)?;
        Some(
            loaded
                .keys
                .iter()
                .map(|(line, p)| {
                    let origin = Origin::Inline {
                        at: Span::synthetic(),
                    };
                    (*line, Key::from_parsed(p.clone(), origin).line())
                })
                .collect(),
        )
    }

    /// The SSH host key of the host `fqdn`, from `<dir>/hosts/FQDN.pub`
    /// (what `beryl secrets host-keys` writes from the host's facts): `None`
    /// when that file does not exist. It must hold one key, which age can
    /// wrap to (ssh-ed25519 or ssh-rsa). Read with every check of a key
    /// file (no link out of the folder, no private key).
    pub(crate) fn host_key(&self, fqdn: &str) -> Result<Option<Key>, Diag> {
        let dir = self.dir.join(HOSTS_DIR);
        let file = format!("{fqdn}.pub");
        if dir.join(&file).symlink_metadata().is_err() {
            return Ok(None);
        }
        let display = store::join_display(&self.display, HOSTS_DIR);
        let loaded =
            store::load(&dir, &display, self.max_file_size, &file).map_err(Problem::unlocated)?;
        match loaded.keys.as_slice() {
            [(line, p)] => Ok(Some(Key::from_parsed(
                p.clone(),
                Origin::File {
                    name: fqdn.to_string(),
                    path: loaded.path.clone(),
                    line: *line,
                    at: Span::synthetic(),
                },
            ))),
            _ => Err(Diag::new(
                Code::HostKey,
                format!("{} holds {} keys: a host key file holds the host's one key", loaded.path, loaded.keys.len()),
            )
            .help("gather it again: `beryl facts --gather HOST --out DIR`, then `beryl secrets host-keys --state-dir DIR`")),
        }
    }

    /// The key file of `name`, read once per store.
    fn load(&self, name: &str) -> Result<Arc<Loaded>, Problem> {
        if let Some(hit) = self.lock().get(name) {
            return hit.clone();
        }
        // Read without the lock; two threads may both read a file the first
        // time, which is harmless.
        let result = store::load(&self.dir, &self.display, self.max_file_size, name).map(Arc::new);
        self.lock().insert(name.to_string(), result.clone());
        result
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Result<Arc<Loaded>, Problem>>> {
        self.cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The folder of the key directory that holds hosts' SSH host keys, one
/// `FQDN.pub` each.
pub(crate) const HOSTS_DIR: &str = "hosts";

/// How a placeholder entry starts: `beryl init` writes one where a key must go.
pub(crate) const PLACEHOLDER: &str = "REPLACE-ME";

const PLACEHOLDER_HELP: &str = "paste a public key in its place (one line of a .pub file, such as \
                                ~/.ssh/id_ed25519.pub), or put the key in <ssh dir>/NAME.pub and \
                                write NAME; `ssh-keygen -t ed25519` makes a key pair";

const ENTRY_HELP: &str = "an ssh_keys entry is a key name (the file <ssh dir>/<name>.pub) or \
                          an inline public key such as `ssh-ed25519 AAAA… user@host`";

/// The diagnostic for an inline key that does not parse.
fn inline_error(e: &LineError, at: &Span) -> Diag {
    let d = Diag::new(e.code(), format!("inline SSH key: {}", e.reason()))
        .label(at, "this ssh_keys entry");
    match e.help() {
        Some(h) => d.help(h),
        None => d.help(ENTRY_HELP),
    }
}

#[cfg(test)]
mod tests;
