//! Trees on disk: the repository, copies, small edits and listings.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository (the package root).
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Copies a tree; `fs::copy` keeps each file's permissions, the executable
/// bit of the fake FreeBSD's sh models included.
pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Writes a file, making its directories first.
pub fn write(path: &Path, contents: impl AsRef<[u8]>) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, contents).unwrap();
}

/// Replaces the first `from` in a file with `to`; the file must hold it.
pub fn edit(path: &Path, from: &str, to: &str) {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(text.contains(from), "{} has no {from:?}", path.display());
    fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// A named pipe at `path` (in place of a file there).
pub fn mkfifo(path: &Path) {
    let _ = fs::remove_file(path);
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

/// Every file below `dir`, hidden ones included: relative path → bytes.
pub fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    listing(dir, false)
}

/// [`files`], and every directory below `dir` as `<dir>`.
pub fn entries(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    listing(dir, true)
}

fn listing(dir: &Path, with_dirs: bool) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, with_dirs: bool, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(base).unwrap().display().to_string();
            if path.is_dir() {
                if with_dirs {
                    out.insert(rel, b"<dir>".to_vec());
                }
                walk(base, &path, with_dirs, out);
            } else {
                out.insert(rel, fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, with_dirs, &mut out);
    out
}
