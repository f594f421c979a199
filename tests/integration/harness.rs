//! Materialises fixture trees and runs the beryl binary on them.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

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
/// ```
///
/// plus optional `status: N`, `stderr-has: TEXT`, `stderr-lacks: TEXT` and
/// `env: NAME=VALUE` lines before the files.
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
}

impl Case {
    pub fn parse(text: &str) -> Case {
        let mut args = None;
        let mut fixture = None;
        let mut ops = Vec::new();
        let mut status = None;
        let mut stderr_has = Vec::new();
        let mut stderr_lacks = Vec::new();
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
            env,
            stdin,
        }
    }

    /// Builds the tree in a fresh temporary directory.
    pub fn materialise(&self) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        if let Some(f) = &self.fixture {
            copy_tree(&repo().join("tests/fixtures").join(f), dir.path());
        }
        for op in &self.ops {
            match op {
                Op::Write(p, body) => {
                    let path = dir.path().join(p);
                    fs::create_dir_all(path.parent().unwrap()).unwrap();
                    fs::write(path, body).unwrap();
                }
                Op::Delete(p) => fs::remove_file(dir.path().join(p)).unwrap(),
                Op::Mkdir(p) => fs::create_dir_all(dir.path().join(p)).unwrap(),
                Op::Copy(a, b) => copy_tree(&dir.path().join(a), &dir.path().join(b)),
                Op::Fifo(p) => {
                    let made = Command::new("mkfifo")
                        .arg(dir.path().join(p))
                        .status()
                        .unwrap();
                    assert!(made.success(), "mkfifo {p}");
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

/// The result of one run.
pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs beryl in `dir` with colour off and a clean environment.
pub fn beryl(dir: &Path, args: &[String]) -> Run {
    beryl_with_env(dir, args, &[], None)
}

/// Runs beryl with extra environment variables (set after the clean-up) and
/// an optional standard input (empty otherwise).
pub fn beryl_with_env(
    dir: &Path,
    args: &[String],
    env: &[(String, String)],
    stdin: Option<&str>,
) -> Run {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_beryl"))
        .args(["--color", "never"])
        .args(args)
        .current_dir(dir)
        .env_remove("BERYL_INVENTORY")
        .env_remove("BERYL_SSH_DIR")
        .env_remove("BERYL_MAX_FILE_SIZE")
        .env_remove("BERYL_MAX_DEPTH")
        .env_remove("BERYL_MAX_NODES")
        .env_remove("BERYL_MAX_LIST_ITEMS")
        .env_remove("BERYL_MAX_REF_DEPTH")
        .env_remove("BERYL_MAX_CLASS_DEPTH")
        .env_remove("BERYL_DENY_WARNINGS")
        .env_remove("GITHUB_WORKSPACE")
        .env("NO_COLOR", "1")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run beryl");
    let mut input = child.stdin.take().expect("stdin");
    // beryl may exit without reading: a closed pipe is fine.
    let _ = input.write_all(stdin.unwrap_or_default().as_bytes());
    drop(input);
    let out = child.wait_with_output().expect("run beryl");
    // Paths of the temporary tree are not stable: show them as [ROOT].
    let mut roots = vec![dir.display().to_string()];
    if let Ok(real) = dir.canonicalize() {
        roots.insert(0, real.display().to_string());
    }
    let clean = |bytes: &[u8]| {
        let mut text = String::from_utf8_lossy(bytes).into_owned();
        for root in &roots {
            text = text.replace(root.as_str(), "[ROOT]");
        }
        text
    };
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: clean(&out.stdout),
        stderr: clean(&out.stderr),
    }
}

impl Run {
    /// The whole observable result, as snapshotted.
    pub fn transcript(&self, args: &[String]) -> String {
        format!(
            "$ beryl {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
            args.join(" "),
            self.status,
            self.stdout,
            self.stderr
        )
    }
}

/// Whether an external program the test needs is there. When it is not, the
/// test skips with a notice, unless BERYL_REQUIRE_TOOLS is set (as in
/// .ci/run): then a missing tool fails the test.
pub fn tool(program: &str, version_arg: &str) -> bool {
    let found = Command::new(program)
        .arg(version_arg)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            std::env::var_os("BERYL_REQUIRE_TOOLS").is_none(),
            "BERYL_REQUIRE_TOOLS is set but `{program}` is missing"
        );
        eprintln!("notice: `{program}` is not installed; skipping the test that runs it");
    }
    found
}
