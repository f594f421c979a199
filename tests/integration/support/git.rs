//! Scratch git repositories: a fixed identity, and nothing from the
//! machine's or the user's git configuration.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{copy_tree, edit, repo, tool};

/// A git repository in a temporary directory, with a fixed identity and no
/// configuration from the machine.
pub struct GitRepo {
    pub dir: tempfile::TempDir,
}

impl GitRepo {
    /// A new repository, or `None` (after a notice) when git is missing.
    pub fn new() -> Option<GitRepo> {
        if !tool("git", "--version") {
            return None;
        }
        let r = GitRepo {
            dir: tempfile::tempdir().unwrap(),
        };
        r.git(&["init", "-q", "-b", "main"]);
        Some(r)
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs git in the repository; it must succeed. Returns its stdout.
    pub fn git(&self, a: &[&str]) -> String {
        git_in(self.path(), a)
    }

    /// Copies the bundled example inventory and key directory in.
    pub fn add_example(&self) {
        copy_tree(&repo().join("inventory"), &self.path().join("inventory"));
        copy_tree(&repo().join("ssh"), &self.path().join("ssh"));
    }

    /// Commits every change of the work tree.
    pub fn commit(&self, message: &str) {
        self.git(&["add", "-A", "."]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
    }

    pub fn file(&self, rel: &str) -> PathBuf {
        self.path().join(rel)
    }

    /// Replaces the first `from` with `to` in a file of the work tree.
    pub fn edit(&self, rel: &str, from: &str, to: &str) {
        edit(&self.file(rel), from, to);
    }
}

/// Runs git in `dir` with a clean configuration; it must succeed.
pub fn git_in(dir: &Path, a: &[&str]) -> String {
    let out = git_command(dir).args(a).output().unwrap();
    assert!(
        out.status.success(),
        "git {a:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// git in `dir`, ignoring the machine's and the user's configuration.
pub fn git_command(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.org")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.org")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
    c
}

/// `dir` made a git repository with everything in it committed.
pub fn commit_all(dir: &Path) {
    git_in(dir, &["init", "-q"]);
    git_in(dir, &["add", "."]);
    git_in(dir, &["commit", "-q", "-m", "start"]);
}
