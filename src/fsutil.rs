//! Reading files that come from the inventory or the ssh dir: regular files
//! only (a FIFO or a device could block forever), within a size cap.

use std::io::Read;
use std::path::Path;
use std::string::FromUtf8Error;

#[derive(Debug)]
pub enum ReadError {
    /// A directory, FIFO, socket or device.
    NotAFile,
    /// Larger than the cap.
    TooLarge,
    Io(std::io::Error),
}

/// Reads a regular file of at most `max` bytes.
pub fn read_capped(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    if !std::fs::metadata(path).map_err(ReadError::Io)?.is_file() {
        return Err(ReadError::NotAFile);
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(max.saturating_add(1)).read_to_end(&mut bytes))
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLarge);
    }
    Ok(bytes)
}

/// Where invalid UTF-8 starts: the 1-based line and the byte offset.
pub fn utf8_error_position(e: &FromUtf8Error) -> (usize, usize) {
    let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
    (
        valid.iter().filter(|&&b| b == b'\n').count() + 1,
        valid.len(),
    )
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

    #[test]
    fn utf8_position_counts_lines() {
        let e = String::from_utf8(b"a\nb\n\xffc".to_vec()).unwrap_err();
        assert_eq!(utf8_error_position(&e), (3, 4));
    }
}
