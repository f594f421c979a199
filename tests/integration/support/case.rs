//! The `.case` files of tests/cases/: a fixture tree, files over it and a
//! command line (cases.rs runs them; the adversarial corpus uses the format
//! too).

use std::fs;

use super::{copy_tree, fixtures, mkfifo, write};

/// A parsed `.case` file.
///
/// ```text
/// args: render host01            the command line (shell-like words)
/// fixture: base                  a tree under tests/fixtures/ to start from (optional)
/// --- inventory/x.yml            a file to write (replaces the fixture's)
/// text...
/// --- !delete inventory/y.yml    a file to remove
/// --- !symlink a -> b            a symbolic link a pointing at b
/// --- !mkdir inventory/z         an empty directory
/// --- !fifo inventory/f.yml      a named pipe
/// --- !copy inventory -> old     a copy of a tree of the case so far
/// --- !stdin                     text fed to beryl's standard input
/// --- !snapshot s.json for HOST  a state snapshot: the text, `@SCRIPT@` in it
/// {…"script":"@SCRIPT@"…}        replaced by the digest of `beryl facts HOST`
///                                on the tree so far (a snapshot bound to it)
/// ```
///
/// plus optional `status: N`, `stderr-has: TEXT`, `stderr-lacks: TEXT`,
/// `stdout-has: TEXT`, `stdout-lacks: TEXT` and `env: NAME=VALUE` lines
/// before the files.
pub struct Case {
    pub args: Vec<String>,
    pub fixture: Option<String>,
    pub ops: Vec<Op>,
    /// `status: N`: the exit code the case must end with.
    pub status: Option<i32>,
    /// `stderr-has: text` (repeatable): text the diagnostics must contain,
    /// typically the `file:line:col` of the offending value.
    pub stderr_has: Vec<String>,
    /// `stderr-lacks: text` (repeatable): text the diagnostics must not
    /// contain, such as a key file's content.
    pub stderr_lacks: Vec<String>,
    /// `stdout-has: text` (repeatable): text the output must contain, such
    /// as a dry run's note.
    pub stdout_has: Vec<String>,
    /// `stdout-lacks: text` (repeatable): text the output must not contain.
    pub stdout_lacks: Vec<String>,
    /// `env: NAME=VALUE` (repeatable): environment variables for the run.
    pub env: Vec<(String, String)>,
    /// `--- !stdin`: the standard input of the run (empty otherwise).
    pub stdin: Option<String>,
}

pub enum Op {
    Write(String, String),
    Delete(String),
    Symlink(String, String),
    Mkdir(String),
    Fifo(String),
    Copy(String, String),
    /// A snapshot at the path, bound to the facts script of the host.
    Snapshot(String, String, String),
}

impl Case {
    pub fn parse(text: &str) -> Case {
        let mut args = None;
        let mut fixture = None;
        let mut ops = Vec::new();
        let mut status = None;
        let mut stderr_has = Vec::new();
        let mut stderr_lacks = Vec::new();
        let mut stdout_has = Vec::new();
        let mut stdout_lacks = Vec::new();
        let mut env = Vec::new();
        let mut stdin = None;
        let mut lines = text.lines().peekable();
        while let Some(line) = lines.next() {
            if let Some(a) = line.strip_prefix("args:") {
                args = Some(shlex::split(a.trim()).expect("args: bad quoting"));
            } else if let Some(s) = line.strip_prefix("status:") {
                status = Some(s.trim().parse().expect("status: N"));
            } else if let Some(e) = line.strip_prefix("env:") {
                let (k, v) = e.trim().split_once('=').expect("env: NAME=VALUE");
                env.push((k.to_string(), v.to_string()));
            } else if let Some(s) = line.strip_prefix("stderr-has:") {
                stderr_has.push(s.trim().to_string());
            } else if let Some(s) = line.strip_prefix("stderr-lacks:") {
                stderr_lacks.push(s.trim().to_string());
            } else if let Some(s) = line.strip_prefix("stdout-has:") {
                stdout_has.push(s.trim().to_string());
            } else if let Some(s) = line.strip_prefix("stdout-lacks:") {
                stdout_lacks.push(s.trim().to_string());
            } else if let Some(f) = line.strip_prefix("fixture:") {
                fixture = Some(f.trim().to_string());
            } else if let Some(header) = line.strip_prefix("--- ") {
                let mut body = String::new();
                while let Some(next) = lines.peek() {
                    if next.starts_with("--- ") {
                        break;
                    }
                    body.push_str(next);
                    body.push('\n');
                    lines.next();
                }
                let header = header.trim();
                if header == "!stdin" {
                    stdin = Some(body);
                    continue;
                }
                ops.push(if let Some(p) = header.strip_prefix("!delete ") {
                    Op::Delete(p.to_string())
                } else if let Some(p) = header.strip_prefix("!fifo ") {
                    Op::Fifo(p.to_string())
                } else if let Some(p) = header.strip_prefix("!mkdir ") {
                    Op::Mkdir(p.to_string())
                } else if let Some(spec) = header.strip_prefix("!copy ") {
                    let (a, b) = spec.split_once(" -> ").expect("!copy a -> b");
                    Op::Copy(a.to_string(), b.to_string())
                } else if let Some(spec) = header.strip_prefix("!snapshot ") {
                    let (p, host) = spec.split_once(" for ").expect("!snapshot PATH for HOST");
                    Op::Snapshot(p.to_string(), host.to_string(), body)
                } else if let Some(spec) = header.strip_prefix("!symlink ") {
                    let (a, b) = spec.split_once(" -> ").expect("!symlink a -> b");
                    Op::Symlink(a.to_string(), b.to_string())
                } else {
                    Op::Write(header.to_string(), body)
                });
            } else if !line.trim().is_empty() && !line.starts_with('#') {
                panic!("unexpected line in case file: {line}");
            }
        }
        Case {
            args: args.expect("a case needs an `args:` line"),
            fixture,
            ops,
            status,
            stderr_has,
            stderr_lacks,
            stdout_has,
            stdout_lacks,
            env,
            stdin,
        }
    }

    /// Builds the tree in a fresh temporary directory.
    pub fn materialise(&self) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        if let Some(f) = &self.fixture {
            copy_tree(&fixtures().join(f), dir.path());
        }
        for op in &self.ops {
            match op {
                Op::Write(p, body) => write(&dir.path().join(p), body),
                Op::Delete(p) => fs::remove_file(dir.path().join(p)).unwrap(),
                Op::Mkdir(p) => fs::create_dir_all(dir.path().join(p)).unwrap(),
                Op::Copy(a, b) => copy_tree(&dir.path().join(a), &dir.path().join(b)),
                Op::Fifo(p) => mkfifo(&dir.path().join(p)),
                Op::Snapshot(p, host, body) => {
                    let digest = super::facts_digest(dir.path(), host);
                    write(&dir.path().join(p), body.replace("@SCRIPT@", &digest));
                }
                Op::Symlink(a, b) => {
                    let path = dir.path().join(a);
                    fs::create_dir_all(path.parent().unwrap()).unwrap();
                    let _ = fs::remove_file(&path);
                    let target = b.replace("$ROOT", &dir.path().display().to_string());
                    std::os::unix::fs::symlink(target, path).unwrap();
                }
            }
        }
        dir
    }
}
