//! [`Confined`]: the file operations of a journal's apply step and of
//! recovery, made relative to descriptors of DIR and of its stage
//! (openat(2), renameat(2), unlinkat(2), through rustix), so that a path is
//! never resolved again between a check and the operation it allows.
//!
//! The stage is opened once, without following a link, and must be the
//! directory that `lstat` saw, on DIR's file system; each staged name is
//! checked not to be a link and renamed from the stage's descriptor into
//! DIR's; each removal is an unlinkat in DIR's descriptor. A link planted in
//! DIR, or swapped for the stage while beryl runs, is refused or never
//! followed (issue 35).

use std::io::Read as _;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use super::{Code, JOURNAL, STAGE, io};
use crate::diag::Diag;

/// DIR and its stage, opened.
pub(super) struct Confined {
    dir: PathBuf,
    dirfd: OwnedFd,
    /// `None` when DIR has no stage.
    stage: Option<OwnedFd>,
}

/// What a name in DIR or its stage is, its link not followed.
fn kind(at: &OwnedFd, name: &str) -> Result<Option<(FileType, rustix::fs::Stat)>, Errno> {
    match rustix::fs::statat(at, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => Ok(Some((FileType::from_raw_mode(st.st_mode as _), st))),
        Err(Errno::NOENT) => Ok(None),
        Err(e) => Err(e),
    }
}

impl Confined {
    /// Opens DIR and its stage, which must be a directory of DIR itself: not
    /// a link, not another file type, on DIR's file system (a mount there
    /// would make recovery move or delete another tree's files).
    pub(super) fn open(dir: &Path) -> Result<Confined, Diag> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let dirfd = rustix::fs::open(dir, flags, Mode::empty()).map_err(|e| io(dir, &e.into()))?;
        let path = dir.join(STAGE);
        let seen = kind(&dirfd, STAGE).map_err(|e| io(&path, &e.into()))?;
        let stage = match seen {
            None => None,
            Some((FileType::Directory, st)) => {
                let fd = rustix::fs::openat(&dirfd, STAGE, flags | OFlags::NOFOLLOW, Mode::empty())
                    .map_err(|_| not_ours(dir))?;
                let (opened, parent) = (stat(&fd, &path)?, stat(&dirfd, dir)?);
                if (opened.st_dev, opened.st_ino) != (st.st_dev, st.st_ino)
                    || opened.st_dev != parent.st_dev
                    || mount_root(&fd)
                {
                    return Err(not_ours(dir));
                }
                Some(fd)
            }
            Some(_) => return Err(not_ours(dir)),
        };
        Ok(Confined {
            dir: dir.to_path_buf(),
            dirfd,
            stage,
        })
    }

    pub(super) fn has_stage(&self) -> bool {
        self.stage.is_some()
    }

    /// Whether the stage holds `name`, which must then be a regular file
    /// (a link, or anything else, is refused: beryl stages regular files).
    pub(super) fn staged(&self, name: &str) -> Result<bool, Diag> {
        let Some(stage) = &self.stage else {
            return Ok(false);
        };
        let path = self.dir.join(STAGE).join(name);
        match kind(stage, name).map_err(|e| io(&path, &e.into()))? {
            None => Ok(false),
            Some((FileType::RegularFile, _)) => Ok(true),
            Some(_) => Err(planted(
                &self.dir,
                &path,
                "is a symbolic link or not a regular file: beryl stages regular files only",
            )),
        }
    }

    /// The text of DIR's journal (`stage: false`) or of a staged file, a
    /// regular file within the output cap, opened without following a link.
    pub(super) fn read(&self, stage: bool, name: &str) -> Result<String, Diag> {
        let (at, path) = match (&self.stage, stage) {
            (Some(fd), true) => (fd, self.dir.join(STAGE).join(name)),
            _ => (&self.dirfd, self.dir.join(name)),
        };
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let refused = || {
            let why = "is a symbolic link or not a regular file: beryl wrote none such here";
            planted(&self.dir, &path, why)
        };
        let fd = rustix::fs::openat(at, name, flags, Mode::empty()).map_err(|e| match e {
            Errno::NOENT => io(&path, &e.into()),
            _ => refused(),
        })?;
        let st = stat(&fd, &path)?;
        if FileType::from_raw_mode(st.st_mode as _) != FileType::RegularFile {
            return Err(refused());
        }
        let max = crate::limits::MAX_OUTPUT_FILE_SIZE;
        let mut bytes = Vec::new();
        std::fs::File::from(fd)
            .take(max + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| io(&path, &e))?;
        if bytes.len() as u64 > max {
            return Err(Diag::new(
                crate::limits::Limit::FileSize,
                format!(
                    "{} is larger than the {max}-byte file size cap",
                    path.display()
                ),
            )
            .help(
                "beryl reads back files of its own output up to this size; is this beryl's output?",
            ));
        }
        String::from_utf8(bytes).map_err(|_| {
            Diag::new(
                crate::diag::Common::Io,
                format!("{} is not UTF-8: not beryl's", path.display()),
            )
        })
    }

    /// Renames the staged `name` over DIR's.
    pub(super) fn move_in(&self, name: &str) -> std::io::Result<()> {
        let Some(stage) = &self.stage else {
            return Ok(());
        };
        rustix::fs::renameat(stage, name, &self.dirfd, name).map_err(Into::into)
    }

    /// Removes DIR's `name` (a link is removed, never followed).
    pub(super) fn remove(&self, name: &str) -> std::io::Result<()> {
        rustix::fs::unlinkat(&self.dirfd, name, AtFlags::empty()).map_err(Into::into)
    }

    /// Removes the stage and what it holds (std's `remove_dir_all` follows
    /// no link inside), then the journal.
    pub(super) fn finish(&self, step: impl Fn() -> std::io::Result<()>) -> Result<(), Diag> {
        let stage = self.dir.join(STAGE);
        if self.has_stage() {
            step()
                .and_then(|()| std::fs::remove_dir_all(&stage))
                .map_err(|e| io(&stage, &e))?;
        }
        let path = self.dir.join(JOURNAL);
        step()
            .and_then(|()| self.remove(JOURNAL))
            .map_err(|e| io(&path, &e))
    }
}

/// Whether the stage is the root of a mount: a bind mount of DIR's own
/// file system keeps its device number, and Linux's statx tells it
/// (`STATX_ATTR_MOUNT_ROOT`, Linux 5.8); elsewhere the device check stands
/// alone.
#[cfg(target_os = "linux")]
fn mount_root(fd: &OwnedFd) -> bool {
    use rustix::fs::{StatxAttributes, StatxFlags};
    let root = StatxAttributes::MOUNT_ROOT;
    rustix::fs::statx(fd, "", AtFlags::EMPTY_PATH, StatxFlags::BASIC_STATS)
        .is_ok_and(|x| x.stx_attributes_mask.contains(root) && x.stx_attributes.contains(root))
}

#[cfg(not(target_os = "linux"))]
fn mount_root(_: &OwnedFd) -> bool {
    false
}

fn stat(fd: &OwnedFd, path: &Path) -> Result<rustix::fs::Stat, Diag> {
    rustix::fs::fstat(fd).map_err(|e| io(path, &e.into()))
}

/// The stage that is not a directory of DIR.
fn not_ours(dir: &Path) -> Diag {
    planted(
        dir,
        &dir.join(STAGE),
        "is not a directory of the render directory (a symbolic link, not a directory, \
         or a mount: another file system, or a bind mount)",
    )
}

/// A stage, or a file in it, that beryl did not make: recovery refuses it
/// before moving or deleting anything.
pub(super) fn planted(dir: &Path, path: &Path, why: &str) -> Diag {
    Diag::new(Code::Journal, format!("{}: {why}", path.display())).help(format!(
        "recovery moves and deletes only what beryl wrote; if this directory is yours, \
         remove {JOURNAL} and {STAGE} from {}, then render it again",
        dir.display()
    ))
}
