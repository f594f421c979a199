//! The inventory a `beryl secrets` command works in: which of its files a
//! path names, every file that holds secrets, and the recipients the
//! inventory expects for a file (src/lint/recipients.rs).

use std::path::{Path, PathBuf};

use super::{Code, Context, Failure};
use crate::diag::Diag;
use crate::lint::recipients::Readers;
use crate::secrets::wrap::Recipient;

/// The inventory, or why there is none: a command on files given by path
/// works without one, and says what it could not check.
pub(super) struct Inventory {
    found: Result<crate::inventory::Inventory, Failure>,
    /// The root, resolved, to tell a path's place in it.
    root: Option<PathBuf>,
}

impl Inventory {
    pub(super) fn open(ctx: &Context) -> Self {
        let found = ctx.inventory();
        let root = found.as_ref().ok().and_then(|i| i.root.canonicalize().ok());
        Self { found, root }
    }

    /// The inventory, or the error of discovering it.
    pub(super) fn get(&self) -> Result<&crate::inventory::Inventory, Failure> {
        self.found.as_ref().map_err(Clone::clone)
    }

    /// The path of `file` relative to the root, with `/` separators, when
    /// the file is in the inventory.
    pub(super) fn rel(&self, file: &Path) -> Option<String> {
        let file = file.canonicalize().ok()?;
        let rel = file.strip_prefix(self.root.as_ref()?).ok()?;
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Some(parts.join("/"))
    }

    /// The files given, or, with none, every level and class file of the
    /// inventory whose text holds SOPS metadata, in the layout's order.
    pub(super) fn files_or_all(
        &self,
        ctx: &Context,
        files: &[PathBuf],
    ) -> Result<Vec<PathBuf>, Failure> {
        if !files.is_empty() {
            return Ok(files.to_vec());
        }
        let inv = self.get()?;
        let mut out = Vec::new();
        for f in crate::classes::files::every(inv) {
            let text = crate::yaml::read_text(&f.path, &f.display, ctx.limits.max_file_size)
                .map_err(|d| vec![d])?;
            if text.lines().any(|l| l.starts_with("sops:")) {
                out.push(f.path.clone());
            }
        }
        Ok(out)
    }

    /// The recipients the inventory expects for `file` (shown as `name`),
    /// as age wraps to them. What they lack (a host key not gathered, a key
    /// age cannot wrap to) is a warning: `beryl check` fails on a missing
    /// host key until the file is wrapped to it.
    pub(super) fn expected(
        &self,
        ctx: &Context,
        readers: &Readers<'_>,
        file: &Path,
        name: &str,
    ) -> Result<Vec<Recipient>, Failure> {
        let Some(rel) = self.rel(file) else {
            let root = self.get()?.root.display().to_string();
            return Err(vec![
                Diag::new(
                    Code::Readers,
                    format!("{name} is not a file of the inventory {root}: who may read it cannot be told"),
                )
                .help("name the recipients with --recipient, or give the inventory with -i DIR"),
            ]);
        };
        let expected = readers.expected(&rel, name)?;
        let mut warnings = Vec::new();
        if let Some(host) = &expected.unknown_host {
            warnings.push(
                Diag::warning(
                    Code::Incomplete,
                    format!("{name}: not wrapped to the host key of {host}, which is unknown"),
                )
                .help(format!(
                    "`beryl check` fails until it is: `beryl facts --gather {host} --out facts/`, \
                     `beryl secrets host-keys --state-dir facts/`, then `beryl secrets rekey {name}`"
                )),
            );
        }
        for who in &expected.unusable {
            warnings.push(
                Diag::warning(
                    Code::Incomplete,
                    format!("{name}: not wrapped to {who}: age wraps only to ssh-ed25519 and ssh-rsa keys"),
                )
                .help("that operator needs an ed25519 key in the domain's `ssh_keys` to read it"),
            );
        }
        ctx.warn(&warnings);
        expected
            .wanted
            .iter()
            .map(|w| {
                Recipient::parse(&w.recipient)
                    .map_err(|why| vec![Diag::new(Code::Recipients, format!("{}: {why}", w.who))])
            })
            .collect()
    }
}
