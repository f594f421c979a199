//! A fake FreeBSD host: the stubs of tests/fixtures/apply/fakebsd.py on PATH,
//! their databases in a temporary directory, and the files under BERYL_ROOT.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::harness::{copy_tree, repo};

/// The FreeBSD commands the stubs stand in for.
pub const STUBS: &[&str] = &[
    "pw", "pkg", "sysrc", "service", "visudo", "tzsetup", "chown", "install", "stat", "sha256",
];

/// Whether a missing tool fails the test instead of skipping it.
pub fn required() -> bool {
    std::env::var_os("BERYL_REQUIRE_TOOLS").is_some()
}

/// The first of `candidates` that exists, as a path (a bare name is looked up
/// on PATH). `None` after a notice when none does, unless BERYL_REQUIRE_TOOLS
/// is set: then the test fails.
pub fn tool(candidates: &[&str], test: &str) -> Option<PathBuf> {
    for c in candidates {
        let path = Path::new(c);
        if path.is_absolute() {
            if path.is_file() {
                return Some(path.to_path_buf());
            }
            continue;
        }
        let dirs = std::env::var_os("PATH").unwrap_or_default();
        for dir in std::env::split_paths(&dirs) {
            let p = dir.join(c);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    let names = candidates.join(" or ");
    assert!(
        !required(),
        "{test}: BERYL_REQUIRE_TOOLS is set but {names} is missing"
    );
    eprintln!("notice: {test} skipped: {names} is not installed (.ci/run installs it)");
    None
}

/// The result of running a script on the fake host.
pub struct Ran {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    /// Lines starting with `prefix`.
    pub fn lines(&self, prefix: &str) -> Vec<&str> {
        self.stdout
            .lines()
            .filter(|l| l.starts_with(prefix))
            .collect()
    }

    pub fn last_line(&self) -> &str {
        self.stdout.lines().last().unwrap_or_default()
    }
}

pub struct FakeHost {
    _dir: tempfile::TempDir,
    pub stubs: PathBuf,
    pub db: PathBuf,
    pub root: PathBuf,
}

impl FakeHost {
    /// A fresh host (tests/fixtures/apply/seed), or `None` without python3.
    pub fn new(test: &str) -> Option<FakeHost> {
        let python = tool(&["/usr/bin/python3", "python3"], test)?;
        let dir = tempfile::tempdir().unwrap();
        let stubs = dir.path().join("stubs");
        let db = dir.path().join("db");
        let root = dir.path().join("root");
        fs::create_dir_all(&stubs).unwrap();
        copy_tree(&repo().join("tests/fixtures/apply/seed/db"), &db);
        copy_tree(&repo().join("tests/fixtures/apply/seed/root"), &root);
        // One script under every name; -S: nothing but the standard library.
        let source = fs::read_to_string(repo().join("tests/fixtures/apply/fakebsd.py")).unwrap();
        let body = source.split_once('\n').unwrap().1;
        let script = stubs.join("fakebsd");
        fs::write(&script, format!("#!{} -S\n{body}", python.display())).unwrap();
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
        for name in STUBS {
            std::os::unix::fs::symlink("fakebsd", stubs.join(name)).unwrap();
        }
        // FreeBSD's awk is the one true awk: use it when it is here (and
        // require it with the other tools).
        let awk = ["/usr/bin/original-awk", "/usr/bin/nawk"]
            .iter()
            .map(Path::new)
            .find(|p| p.is_file());
        match awk {
            Some(awk) => std::os::unix::fs::symlink(awk, stubs.join("awk")).unwrap(),
            None => assert!(
                !required(),
                "{test}: BERYL_REQUIRE_TOOLS is set but original-awk is missing"
            ),
        }
        Some(FakeHost {
            _dir: dir,
            stubs,
            db,
            root,
        })
    }

    /// PATH with the stubs first.
    pub fn path(&self) -> String {
        format!("{}:/usr/bin:/bin", self.stubs.display())
    }

    /// The variables a script needs to run on this host.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("PATH".into(), self.path()),
            ("BERYL_ROOT".into(), self.root.display().to_string()),
            ("BERYL_STUB_DB".into(), self.db.display().to_string()),
        ]
    }

    /// Runs `script` with `sh -s` on the host (as ssh would), in a clean
    /// environment plus `extra`.
    pub fn sh(&self, script: &str, extra: &[(&str, &str)]) -> Ran {
        let mut child = Command::new("sh")
            .arg("-s")
            .env_clear()
            .envs(self.env())
            .envs(extra.iter().copied())
            .current_dir(&self.root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run sh");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(script.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        Ran {
            status: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    pub fn read(&self, name: &str) -> Value {
        serde_json::from_str(&fs::read_to_string(self.db.join(name)).unwrap()).unwrap()
    }

    pub fn write(&self, name: &str, value: &Value) {
        fs::write(
            self.db.join(name),
            serde_json::to_string_pretty(value).unwrap(),
        )
        .unwrap();
    }

    /// The commands the stubs were called with, then forgotten.
    pub fn take_calls(&self) -> Vec<String> {
        let path = self.db.join("calls.log");
        let text = fs::read_to_string(&path).unwrap_or_default();
        let _ = fs::remove_file(&path);
        text.lines().map(str::to_string).collect()
    }

    /// Everything the host keeps: the databases, and every path under the
    /// root with its mode and content.
    pub fn fingerprint(&self) -> String {
        let mut out = String::new();
        for name in ["users.json", "groups.json", "packages.json", "owners.json"] {
            let text = fs::read_to_string(self.db.join(name)).unwrap_or_default();
            out.push_str(&format!("== {name}\n{text}\n"));
        }
        fn walk(dir: &Path, out: &mut String) {
            let mut entries: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap()).collect();
            entries.sort_by_key(|e| e.file_name());
            for e in entries {
                use std::os::unix::fs::MetadataExt;
                let meta = e.metadata().unwrap();
                out.push_str(&format!(
                    "{} {:o}\n",
                    e.path().display(),
                    meta.mode() & 0o7777
                ));
                if meta.is_dir() {
                    walk(&e.path(), out);
                } else {
                    out.push_str(&fs::read_to_string(e.path()).unwrap_or_default());
                }
            }
        }
        walk(&self.root, &mut out);
        out
    }
}
