//! Reading files that come from the inventory or the ssh dir: regular files
//! only (a FIFO or a device could block forever), within a size cap; writing
//! output files atomically and privately; and the sha256 digest beryl
//! compares files by.
//!
//! Every file beryl writes may hold a secret (a managed file's content, root's
//! hash in an installerconfig, a host's facts), so it is created mode 0600
//! and a directory beryl creates 0700, whatever the umask; a file is created
//! new (`O_EXCL`, which follows no link: open(2)), after removing whatever a
//! crash or someone else left at its name.

use std::io::Read;
use std::path::Path;
use std::string::FromUtf8Error;

#[derive(Debug)]
pub(crate) enum ReadError {
    /// A directory, FIFO, socket or device.
    NotAFile,
    /// Larger than the cap.
    TooLarge,
    Io(std::io::Error),
}

/// Reads a regular file of at most `max` bytes.
pub(crate) fn read_capped(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    // Checked before opening: opening a FIFO for reading blocks.
    let meta = std::fs::metadata(path).map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotAFile);
    }
    // Sized from the metadata, so that a file is read in one call (and one
    // more that finds its end) rather than in growing chunks.
    let expected = usize::try_from(meta.len().min(max)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(expected.saturating_add(1));
    std::fs::File::open(path)
        .and_then(|f| f.take(max.saturating_add(1)).read_to_end(&mut bytes))
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLarge);
    }
    Ok(bytes)
}

/// Where invalid UTF-8 starts: the 1-based line and the byte offset.
pub(crate) fn utf8_error_position(e: &FromUtf8Error) -> (usize, usize) {
    let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
    (
        valid.iter().filter(|&&b| b == b'\n').count() + 1,
        valid.len(),
    )
}

/// Writes `text` to a temporary name beside `path`, then renames it into
/// place, so a reader never sees a half-written file. On error the temporary
/// file is removed (a full disk leaves no partial file behind), and the path
/// returned is the one that failed.
pub(crate) fn write_atomic(
    path: &Path,
    text: impl AsRef<[u8]>,
) -> Result<(), (std::path::PathBuf, std::io::Error)> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.beryl-tmp"));
    let result = write_private(&tmp, text)
        .map_err(|e| (tmp.clone(), e))
        .and_then(|()| std::fs::rename(&tmp, path).map_err(|e| (path.to_path_buf(), e)));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Writes a new file of mode 0600: whatever is at `path` (a file, or a link,
/// which is removed, not followed) is removed first, and the file is
/// created with `O_EXCL`, so no link planted in between is followed.
pub(crate) fn write_private(path: &Path, bytes: impl AsRef<[u8]>) -> std::io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes.as_ref())
}

/// Creates a directory and its missing parents; those it creates are mode
/// 0700 (an existing one keeps its mode).
pub(crate) fn create_private_dir_all(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt as _;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// The sha256 of a text in lowercase hex, as `sha256 -q` prints it.
pub fn sha256_hex(text: &str) -> String {
    sha256_hex_bytes(text.as_bytes())
}

/// The sha256 of bytes in lowercase hex.
pub(crate) fn sha256_hex_bytes(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    use std::fmt::Write as _;
    let mut hex = String::with_capacity(64);
    for b in Sha256::digest(bytes) {
        let _ = write!(hex, "{b:02x}");
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_and_refuses_non_files() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, "12345").unwrap();
        assert_eq!(read_capped(&f, 5).unwrap(), b"12345");
        assert!(matches!(read_capped(&f, 4), Err(ReadError::TooLarge)));
        assert_eq!(
            read_capped(&f, u64::MAX).unwrap().len(),
            5,
            "no overflow at the top"
        );
        assert!(matches!(
            read_capped(dir.path(), 10),
            Err(ReadError::NotAFile)
        ));
        assert!(matches!(
            read_capped(&dir.path().join("nope"), 10),
            Err(ReadError::Io(_))
        ));
    }

    /// A failed rename (here: onto a directory that holds a file) left the
    /// temporary file behind.
    #[test]
    fn a_failed_atomic_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("keep"), "x").unwrap();
        let (failed, _) = write_atomic(&target, "text").unwrap_err();
        assert_eq!(failed, target);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["out"]);
        write_atomic(&dir.path().join("f"), "ok").unwrap();
        assert_eq!(std::fs::read_to_string(dir.path().join("f")).unwrap(), "ok");
    }

    #[test]
    fn utf8_position_counts_lines() {
        let e = String::from_utf8(b"a\nb\n\xffc".to_vec()).unwrap_err();
        assert_eq!(utf8_error_position(&e), (3, 4));
    }
}
