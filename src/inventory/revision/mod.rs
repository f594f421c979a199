//! The inventory at a git revision (`beryl diff git:REV`).
//!
//! Entry point: [`checkout`]. It reads the inventory directory and the SSH
//! key directory at a commit straight from git's object store (`git ls-tree`
//! lists the files, one `git cat-file --batch` streams them) into a private
//! scratch directory that mirrors the repository's layout, removed when the
//! [`Snapshot`] is dropped. No external `tar` runs, and nothing git prints
//! reaches the terminal: every failure is a [`RevisionError`].
//!
//! Every path comes from the repository, so each is confined: a path with an
//! empty, `.` or `..` component is refused, files are created exclusively
//! (never through an existing entry), and links, made last, must resolve
//! inside the scratch tree. A file larger than the read limit is written
//! one byte over it, so the reader refuses it as it would in the work tree.

mod error;
mod git;
mod scratch;

#[cfg(test)]
pub(crate) use error::Code;
pub(crate) use error::RevisionError;

use std::path::{Path, PathBuf};

use scratch::{Scratch, Writer};

/// A directory to read: where it is on disk, and how diagnostics name it.
#[derive(Debug, Clone)]
pub(crate) struct Place {
    pub dir: PathBuf,
    /// Relative to the repository (`inventory`, `fleet/ssh`), for a directory
    /// read from the revision; as given, for one outside the repository.
    pub display: String,
}

/// The inventory and key directory at a revision, in a scratch tree.
#[derive(Debug)]
pub(crate) struct Snapshot {
    /// `None` when the revision has no inventory at that path (the commit
    /// before the inventory was added): an empty fleet.
    pub inventory: Option<Place>,
    /// The key directory at the revision, or the one given when it lies
    /// outside the repository.
    pub ssh: Place,
    _scratch: Scratch,
}

/// Reads the inventory directory `inventory` and the key directory `ssh`
/// (both as given on the command line, within the work tree of a git
/// repository) at the commit `rev`, capping each file at `max_file_size`
/// bytes (plus one, so that an oversized file is still refused by its reader).
pub(crate) fn checkout(
    inventory: &Path,
    ssh: &Path,
    rev: &str,
    max_file_size: u64,
) -> Result<Snapshot, RevisionError> {
    let listing = list(inventory, ssh, rev)?;
    let snapshot = listing.snapshot()?;
    listing.fill(&snapshot, max_file_size, |_| true)?;
    Ok(snapshot)
}

/// The listing of the inventory and key directories at a revision: every
/// file with its mode and blob id (`git ls-tree -r`), nothing read yet.
#[derive(Debug)]
pub(crate) struct Listing {
    top: PathBuf,
    rev: String,
    /// The inventory and key directories relative to the repository (the
    /// key directory `None` when it lies outside it).
    rel_inv: String,
    rel_ssh: Option<String>,
    /// The key directory as given, for one outside the repository.
    ssh_given: PathBuf,
    entries: Vec<git::Entry>,
}

/// A file of a [`Listing`]: its path relative to its directory, and what
/// git knows of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listed<'a> {
    /// Relative to the inventory (`example.org/web/_group.yml`) or to the
    /// key directory.
    pub rel: &'a str,
    /// The blob id: equal exactly when the content is (a change of mode
    /// alone changes nothing beryl reads; a link is not `plain`).
    pub id: String,
    /// A plain file (not a link, not a submodule) at a plain path (no
    /// empty, `.` or `..` component).
    pub plain: bool,
}

/// Lists the inventory directory `inventory` and the key directory `ssh`
/// (as given on the command line) at the commit `rev`.
pub(crate) fn list(inventory: &Path, ssh: &Path, rev: &str) -> Result<Listing, RevisionError> {
    if rev.is_empty() || rev.starts_with('-') {
        return Err(RevisionError::NotARevision { rev: rev.into() });
    }
    let inv = real(inventory).ok_or_else(|| RevisionError::NotARepository {
        dir: inventory.display().to_string(),
    })?;
    let top = git::run(existing(&inv), &["rev-parse", "--show-toplevel"])
        .map_err(|e| match e {
            RevisionError::Git { .. } => RevisionError::NotARepository {
                dir: inventory.display().to_string(),
            },
            e => e,
        })
        .map(|out| PathBuf::from(out.trim_end_matches('\n')))?;
    let top = std::fs::canonicalize(&top).unwrap_or(top);
    let rel_inv = relative(&inv, &top).ok_or_else(|| RevisionError::OutsideRepository {
        dir: inventory.display().to_string(),
        top: top.display().to_string(),
    })?;
    let rel_ssh = real(ssh).and_then(|s| relative(&s, &top));
    let commit = git::resolve(&top, rev)?;
    let mut wanted = vec![rel_inv.clone()];
    wanted.extend(rel_ssh.clone());
    let entries = git::list(&top, &commit, &wanted)?;
    Ok(Listing {
        top,
        rev: rev.to_string(),
        rel_inv,
        rel_ssh,
        ssh_given: ssh.to_path_buf(),
        entries,
    })
}

impl Listing {
    /// Whether the revision has the inventory directory at all.
    pub(crate) fn has_inventory(&self) -> bool {
        self.entries.iter().any(|e| under(&e.path, &self.rel_inv))
    }

    /// The files of the inventory directory, relative to it.
    pub(crate) fn inventory(&self) -> impl Iterator<Item = Listed<'_>> {
        self.within(Some(&self.rel_inv))
    }

    /// The files of the key directory, relative to it (none when it lies
    /// outside the repository: it is the same on both sides).
    pub(crate) fn ssh(&self) -> impl Iterator<Item = Listed<'_>> {
        self.within(self.rel_ssh.as_deref())
    }

    fn within<'a>(&'a self, dir: Option<&'a str>) -> impl Iterator<Item = Listed<'a>> {
        self.entries.iter().filter_map(move |e| {
            let dir = dir?;
            if !under(&e.path, dir) {
                return None;
            }
            let rel = if dir.is_empty() {
                &e.path[..]
            } else {
                &e.path[dir.len() + 1..]
            };
            Some(Listed {
                rel,
                id: e.id.clone(),
                // A path the scratch tree would refuse is left to the full
                // checkout, which says why.
                plain: e.kind == git::Kind::File
                    && e.path.split('/').all(|c| !matches!(c, "" | "." | "..")),
            })
        })
    }

    /// Whether the key directory lies inside the repository (else it is
    /// the one given, the same on every side).
    pub(crate) fn ssh_in_repo(&self) -> bool {
        self.rel_ssh.is_some()
    }

    /// Where the inventory will be in a scratch tree at `scratch`,
    /// and how diagnostics name it.
    fn places(&self, scratch: &Path) -> (Place, Place) {
        let place = |rel: &str| Place {
            dir: scratch.join(rel),
            display: if rel.is_empty() {
                ".".into()
            } else {
                rel.to_string()
            },
        };
        let ssh = match &self.rel_ssh {
            Some(r) => place(r),
            None => Place {
                dir: self.ssh_given.clone(),
                display: self.ssh_given.to_string_lossy().into_owned(),
            },
        };
        (place(&self.rel_inv), ssh)
    }

    /// An empty scratch tree for this listing, to [`Self::fill`]: where its
    /// inventory and key directory will be is known before any file is.
    pub(crate) fn snapshot(&self) -> Result<Snapshot, RevisionError> {
        let scratch = Scratch::new()?;
        let (inventory, ssh) = self.places(&scratch.root);
        Ok(Snapshot {
            inventory: self.has_inventory().then_some(inventory),
            ssh,
            _scratch: scratch,
        })
    }

    /// Writes into the scratch tree of `snapshot` the listed files for which
    /// `keep` holds (given the path relative to the repository), read
    /// through one `git cat-file --batch`.
    pub(crate) fn fill(
        &self,
        snapshot: &Snapshot,
        max_file_size: u64,
        keep: impl Fn(&str) -> bool,
    ) -> Result<(), RevisionError> {
        let mut writer = Writer {
            root: &snapshot._scratch.root,
            rev: &self.rev,
            links: Vec::new(),
        };
        let blobs: Vec<&git::Entry> = self
            .entries
            .iter()
            .filter(|e| e.kind != git::Kind::Other && keep(&e.path))
            .collect();
        git::read_blobs(&self.top, &blobs, max_file_size, |entry, bytes| {
            writer.write(entry, bytes)
        })?;
        writer.finish()
    }

    /// The content of the inventory files for which `keep` holds (given the
    /// path relative to the inventory), by that path, read in memory through
    /// one `git cat-file --batch`.
    pub(crate) fn read_inventory(
        &self,
        max_file_size: u64,
        keep: impl Fn(&str) -> bool,
    ) -> Result<std::collections::HashMap<String, Vec<u8>>, RevisionError> {
        let strip = |path: &str| -> Option<String> {
            if self.rel_inv.is_empty() {
                Some(path.to_string())
            } else {
                path.strip_prefix(&self.rel_inv)?
                    .strip_prefix('/')
                    .map(str::to_string)
            }
        };
        let blobs: Vec<&git::Entry> = self
            .entries
            .iter()
            .filter(|e| e.kind == git::Kind::File && strip(&e.path).is_some_and(|r| keep(&r)))
            .collect();
        let mut out = std::collections::HashMap::new();
        git::read_blobs(&self.top, &blobs, max_file_size, |entry, bytes| {
            if let Some(rel) = strip(&entry.path) {
                out.insert(rel, bytes.to_vec());
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// The path relative to the repository of a path relative to the
    /// inventory directory, or to the key directory.
    pub(crate) fn repo_path(&self, ssh: bool, rel: &str) -> Option<String> {
        let dir = if ssh {
            self.rel_ssh.as_deref()?
        } else {
            &self.rel_inv
        };
        Some(if dir.is_empty() {
            rel.to_string()
        } else {
            format!("{dir}/{rel}")
        })
    }
}

/// git's blob id of each of the files `paths`, as `git hash-object` gives
/// it for the bytes on disk: comparable with a [`Listing`]'s ids.
pub(crate) fn blob_ids(paths: &[PathBuf]) -> Result<Vec<String>, RevisionError> {
    git::blob_ids(paths)
}

/// `path` made absolute with its links resolved, also when its last
/// component does not exist (yet).
fn real(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok().or_else(|| {
        let name = path.file_name()?;
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        Some(std::fs::canonicalize(parent).ok()?.join(name))
    })
}

/// The nearest directory of `path` and its ancestors that exists.
fn existing(path: &Path) -> &Path {
    path.ancestors()
        .find(|p| p.is_dir())
        .unwrap_or(Path::new("/"))
}

/// `path` relative to `top`, with `/` separators (empty for `top` itself).
fn relative(path: &Path, top: &Path) -> Option<String> {
    let rel = path.strip_prefix(top).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}

/// Whether the repository path `path` lies in the directory `dir`.
pub(super) fn under(path: &str, dir: &str) -> bool {
    dir.is_empty()
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::scratch::stays_inside;
    use super::under;

    #[test]
    fn a_link_target_must_stay_in_the_repository() {
        assert!(stays_inside("inv/a.yml", b"b.yml"));
        assert!(stays_inside("inv/g/a.yml", b"../b.yml"));
        assert!(stays_inside("inv/a.yml", b"../ssh/x.pub"));
        assert!(!stays_inside("inv/a.yml", b"../../etc/passwd"));
        assert!(!stays_inside("a.yml", b"../x"));
        assert!(!stays_inside("inv/a.yml", b"/etc/passwd"));
        assert!(stays_inside("inv/a.yml", b"./x/../y"));
    }

    #[test]
    fn under_matches_whole_components() {
        assert!(under("inventory/_default.yml", "inventory"));
        assert!(!under("inventory2/_default.yml", "inventory"));
        assert!(!under("inventory", "inventory"));
        assert!(under("anything", ""));
    }
}
