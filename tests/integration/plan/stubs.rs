//! Stub FreeBSD commands (tests/fixtures/plan/stub.py, one Python script
//! linked under each name) and running a plan's parts under `sh` with them
//! first on PATH.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

use crate::harness::repo;

/// The commands that are stubbed. `chmod` and `install` do their work; the
/// others only log.
pub const STUBBED: &[&str] = &[
    "pw", "sysrc", "pkg", "tzsetup", "visudo", "install", "chown", "chmod", "service", "dhclient",
];

/// One logged call.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Call {
    pub cmd: String,
    pub argv: Vec<String>,
    /// For `pkg`: `ASSUME_ALWAYS_YES` when set.
    #[serde(default)]
    pub env: Option<BTreeMap<String, String>>,
}

impl Call {
    pub fn new(cmd: &str, argv: &[&str]) -> Call {
        Call {
            cmd: cmd.into(),
            argv: argv.iter().map(|a| a.to_string()).collect(),
            env: None,
        }
    }

    /// The call with `f` applied to every argument.
    pub fn map(&self, f: impl Fn(&str) -> String) -> Call {
        Call {
            cmd: self.cmd.clone(),
            argv: self.argv.iter().map(|a| f(a)).collect(),
            env: self.env.clone(),
        }
    }
}

/// A directory of stubs, made once per test.
pub struct Stubs {
    dir: tempfile::TempDir,
    python: PathBuf,
}

/// The outcome of running a script under the stubs.
pub struct Exec {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
    pub calls: Vec<Call>,
}

impl Stubs {
    /// The stubs, or None (with a notice) when python3 is missing.
    pub fn new() -> Option<Stubs> {
        if !super::tools(&["python3", "sh"], "the execution tests of beryl plan") {
            return None;
        }
        // The interpreter itself, not a wrapper such as a pyenv shim, and the
        // system's when there is one (quicker to start): one `#!` argument
        // (-S, no site module) keeps each call fast.
        let system = PathBuf::from("/usr/bin/python3");
        let python = if system.is_file() {
            system
        } else {
            let out = Command::new("python3")
                .args(["-c", "import sys; print(sys.executable)"])
                .output()
                .expect("python3");
            assert!(out.status.success(), "python3 does not run");
            PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
        };
        let dir = tempfile::tempdir().unwrap();
        let source = std::fs::read_to_string(repo().join("tests/fixtures/plan/stub.py")).unwrap();
        let script = dir.path().join("stub.py");
        std::fs::write(&script, format!("#!{} -S\n{source}", python.display())).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        for name in STUBBED {
            std::os::unix::fs::symlink(&script, dir.path().join(name)).unwrap();
        }
        Some(Stubs { dir, python })
    }

    fn command(&self, work: &Path, root: &Path, log: &Path) -> Command {
        let mut c = Command::new("sh");
        c.env_clear()
            .env(
                "PATH",
                format!("{}:/usr/local/bin:/usr/bin:/bin", self.dir.path().display()),
            )
            .env("BERYL_ROOT", root)
            .env("BERYL_STUB_LOG", log)
            .env("HOME", work.join("home"))
            .env("LC_ALL", "C.UTF-8")
            .current_dir(work);
        c
    }

    /// Runs the setup script with `sh`, BERYL_ROOT set to `root`, in `work`
    /// (which holds the script and the log).
    pub fn run_setup(&self, setup: &str, work: &Path, root: &Path) -> Exec {
        let script = work.join("setup.sh");
        std::fs::write(&script, setup).unwrap();
        let log = work.join("setup.log");
        let out = self
            .command(work, root, &log)
            .args(["-c", "umask 022 && exec sh \"$1\"", "sh"])
            .arg(&script)
            .output()
            .expect("run sh");
        exec(out, &log)
    }

    /// Sources the preamble as the installer does (with `set -eu`), then
    /// dumps the environment: returns the run and the variables it exported.
    pub fn run_preamble(
        &self,
        preamble: &str,
        work: &Path,
        root: &Path,
    ) -> (Exec, BTreeMap<String, String>) {
        assert!(
            !preamble.contains("/etc/resolv.conf"),
            "a preamble that writes /etc/resolv.conf is not run here"
        );
        let script = work.join("preamble.sh");
        std::fs::write(&script, preamble).unwrap();
        let log = work.join("preamble.log");
        let out = self
            .command(work, root, &log)
            .args([
                "-c",
                "set -eu; . \"$1\"; exec \"$2\" -S -c 'import json, os; print(json.dumps(dict(os.environ)))'",
                "sh",
            ])
            .arg(&script)
            .arg(&self.python)
            .output()
            .expect("run sh");
        let dump = String::from_utf8_lossy(&out.stdout).into_owned();
        let run = exec(out, &log);
        let mut env: BTreeMap<String, String> = if run.status == 0 {
            serde_json::from_str(dump.trim()).unwrap_or_else(|e| panic!("{e}: {dump}"))
        } else {
            BTreeMap::new()
        };
        for k in [
            "PATH",
            "BERYL_ROOT",
            "BERYL_STUB_LOG",
            "HOME",
            "LC_ALL",
            "PWD",
            "OLDPWD",
            "SHLVL",
            "_",
        ] {
            env.remove(k);
        }
        (run, env)
    }
}

fn exec(out: std::process::Output, log: &Path) -> Exec {
    let calls = match std::fs::read_to_string(log) {
        Ok(text) => text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect(),
        Err(_) => Vec::new(),
    };
    Exec {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        calls,
    }
}

/// Every directory and file under `root`, sorted, with its mode; files with
/// their contents. Symbolic links and other kinds are listed as such.
pub fn tree(root: &Path) -> BTreeMap<String, Entry> {
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    Dir(u32),
    File(u32, String),
    Other(String),
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Entry>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        let rel = path.strip_prefix(root).unwrap().display().to_string();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        let mode = meta.permissions().mode() & 0o7777;
        if meta.is_dir() {
            out.insert(rel, Entry::Dir(mode));
            walk(root, &path, out);
        } else if meta.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            out.insert(
                rel,
                Entry::File(mode, String::from_utf8_lossy(&bytes).into_owned()),
            );
        } else {
            out.insert(rel, Entry::Other(format!("{:?}", meta.file_type())));
        }
    }
}

/// The tree as text: `d 0700 home/alice/.ssh`, `f 0600 …` then the content.
pub fn show_tree(tree: &BTreeMap<String, Entry>) -> String {
    let mut s = String::new();
    for (path, e) in tree {
        match e {
            Entry::Dir(m) => writeln!(s, "d {m:04o} {path}/").unwrap(),
            Entry::File(m, text) => {
                writeln!(s, "f {m:04o} {path}").unwrap();
                for line in text.lines() {
                    writeln!(s, "  | {line}").unwrap();
                }
            }
            Entry::Other(kind) => writeln!(s, "? {kind} {path}").unwrap(),
        }
    }
    s
}

/// The calls as text, one compact JSON line each.
pub fn show_calls(calls: &[Call], root: &Path) -> String {
    let mut s = String::new();
    for c in calls {
        let mut v = serde_json::json!({"cmd": c.cmd, "argv": c.argv});
        if let Some(env) = &c.env {
            v["env"] = serde_json::json!(env);
        }
        writeln!(s, "{}", super::unroot(&v.to_string(), root)).unwrap();
    }
    s
}
