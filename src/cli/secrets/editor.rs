//! The editor of `beryl secrets edit`: a decrypted view in a private
//! directory, the operator's editor on it, the directory removed whatever
//! happens.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use zeroize::Zeroizing;

use super::{Code, Failure};
use crate::diag::{Common, Diag};

/// A directory only the user can enter, removed with what it holds when
/// dropped.
struct Private(PathBuf);

impl Private {
    /// A new directory under $TMPDIR, mode 0700, whose random name nobody
    /// could have taken first: `mkdir` fails on anything already there, a
    /// planted link included.
    fn new() -> std::io::Result<Self> {
        let mut bytes = [0u8; 12];
        crate::secrets::random(&mut bytes);
        let name: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let dir = std::env::temp_dir().join(format!("beryl-edit-{name}"));
        std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
        Ok(Self(dir))
    }
}

impl Drop for Private {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `view` edited by $VISUAL, else $EDITOR, else vi, in a file named like
/// `file` (so that the editor knows it is YAML): the text it left.
pub(super) fn edit(file: &Path, view: &str) -> Result<Zeroizing<String>, Failure> {
    let io = |what: &str, e: std::io::Error| vec![Diag::new(Common::Io, format!("{what}: {e}"))];
    let dir = Private::new().map_err(|e| io("cannot make a private directory", e))?;
    let name = file
        .file_name()
        .map_or("secrets.yml".into(), |n| n.to_owned());
    let path = dir.0.join(name);
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
        .and_then(|mut f| f.write_all(view.as_bytes()))
        .map_err(|e| io("cannot write the decrypted view", e))?;
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|e| !e.trim().is_empty())
        .unwrap_or_else(|| "vi".to_string());
    // The editor as the operator wrote it (`code --wait`), the file its
    // last argument.
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("beryl-edit")
        .arg(&path)
        .status()
        .map_err(|e| io("cannot run the editor", e))?;
    if !status.success() {
        return Err(vec![Diag::new(
            Code::Edit,
            format!("the editor `{editor}` exited with {status}: nothing changed"),
        )]);
    }
    let bytes =
        Zeroizing::new(std::fs::read(&path).map_err(|e| io("cannot read the edited view", e))?);
    drop(dir);
    String::from_utf8(bytes.to_vec())
        .map(Zeroizing::new)
        .map_err(|_| {
            vec![Diag::new(
                Code::Edit,
                "the edited file is not UTF-8: nothing changed",
            )]
        })
}
