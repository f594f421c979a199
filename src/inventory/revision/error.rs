//! Why the inventory at a revision cannot be read, and the diagnostic of each.

use crate::diag::Diag;

/// Why the inventory at a revision cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum RevisionError {
    #[error("cannot run git: {0}")]
    NoGit(std::io::Error),
    #[error("{dir} is not in a git repository")]
    NotARepository { dir: String },
    #[error("the inventory {dir} is outside the git repository {top}")]
    OutsideRepository { dir: String, top: String },
    #[error("`{rev}` is not a revision")]
    NotARevision { rev: String },
    #[error("no such revision: {rev}")]
    UnknownRevision {
        rev: String,
        /// The clone is shallow: the commit may lie beyond its depth.
        shallow: bool,
        /// Remote-tracking branches of that name (`origin/main`).
        remote: Vec<String>,
    },
    #[error("git {command} failed: {stderr}")]
    Git { command: String, stderr: String },
    #[error("{rev}:{path}: the path has an empty, `.` or `..` component")]
    UnsafePath { rev: String, path: String },
    #[error("{rev}:{path} is a link that leaves the repository ({target})")]
    LinkEscapes {
        rev: String,
        path: String,
        target: String,
    },
    #[error("cannot write the scratch tree at {path}: {source}")]
    Scratch {
        path: String,
        source: std::io::Error,
    },
}

crate::diag::codes! {
    /// The codes of reading the inventory at a git revision.
    pub enum Code in "revision" {
        /// git cannot be run.
        NoGit = "no_git";
        /// The inventory is not in a git repository.
        NotARepository = "not_a_repository";
        /// The inventory lies outside the git repository.
        Outside = "outside";
        /// `REV` is not a revision.
        NotARevision = "not_a_revision";
        /// No such revision, in a shallow clone: it may lie beyond its depth.
        Shallow = "shallow";
        /// No such revision.
        Unknown = "unknown";
        /// A git command failed.
        Git = "git";
        /// A path of the revision has an empty, `.` or `..` component.
        UnsafePath = "unsafe_path";
        /// A link of the revision leaves the repository.
        Link = "link";
        /// The scratch tree cannot be written.
        Io = "io";
    }
}

impl RevisionError {
    pub fn code(&self) -> Code {
        match self {
            RevisionError::NoGit(_) => Code::NoGit,
            RevisionError::NotARepository { .. } => Code::NotARepository,
            RevisionError::OutsideRepository { .. } => Code::Outside,
            RevisionError::NotARevision { .. } => Code::NotARevision,
            RevisionError::UnknownRevision { shallow: true, .. } => Code::Shallow,
            RevisionError::UnknownRevision { .. } => Code::Unknown,
            RevisionError::Git { .. } => Code::Git,
            RevisionError::UnsafePath { .. } => Code::UnsafePath,
            RevisionError::LinkEscapes { .. } => Code::Link,
            RevisionError::Scratch { .. } => Code::Io,
        }
    }

    pub fn help(&self) -> Option<String> {
        Some(match self {
            RevisionError::NoGit(_) => "git:REV runs git, which must be on the PATH".into(),
            RevisionError::NotARepository { .. } | RevisionError::OutsideRepository { .. } => {
                "git:REV reads the inventory from the git repository that holds it: \
                 run beryl inside the repository, or compare directories instead"
                    .into()
            }
            RevisionError::NotARevision { .. } => {
                "REV names a commit: a branch, a tag, a commit id, HEAD~1".into()
            }
            RevisionError::UnknownRevision {
                rev, shallow: true, ..
            } => {
                // A branch, a tag or a commit id can be fetched by name; a
                // relative revision (HEAD~1) only by deepening.
                let by_name = if rev.contains(['~', '^', '@', ':']) {
                    String::new()
                } else {
                    format!(", or fetch that revision alone (`git fetch origin {rev}`)")
                };
                format!(
                    "this clone is shallow: it holds only the latest commits, and {rev} may be \
                     older. Fetch more history (actions/checkout: `fetch-depth: 0`; GitLab CI: \
                     `GIT_DEPTH: 0`; by hand: `git fetch --deepen=50` or `git fetch \
                     --unshallow`){by_name}"
                )
            }
            RevisionError::UnknownRevision { remote, .. } if !remote.is_empty() => format!(
                "no local branch has that name, but the remote-tracking branch {} does \
                 (a CI checkout has no local branches): give git:{}",
                remote.join(", "),
                remote[0]
            ),
            RevisionError::UnknownRevision { .. } => {
                "REV names a commit of this repository: a branch, a tag, a commit id, \
                 HEAD~1 (`git log --oneline` lists them)"
                    .into()
            }
            RevisionError::LinkEscapes { .. } => {
                "a link in the inventory or the key directory must point inside the repository"
                    .into()
            }
            RevisionError::Git { .. }
            | RevisionError::UnsafePath { .. }
            | RevisionError::Scratch { .. } => return None,
        })
    }
}

impl From<RevisionError> for Diag {
    fn from(e: RevisionError) -> Diag {
        let d = Diag::new(e.code(), e.to_string());
        match e.help() {
            Some(h) => d.help(h),
            None => d,
        }
    }
}
