//! Running the built beryl, and other programs fed a standard input.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// A command line as [`beryl`] takes it.
pub fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// The environment variables of beryl that a test must not inherit.
const BERYL_ENV: &[&str] = &[
    "BERYL_INVENTORY",
    "BERYL_SSH_DIR",
    "BERYL_MAX_FILE_SIZE",
    "BERYL_MAX_DEPTH",
    "BERYL_MAX_NODES",
    "BERYL_MAX_LIST_ITEMS",
    "BERYL_MAX_REF_DEPTH",
    "BERYL_MAX_CLASS_DEPTH",
    "BERYL_DENY_WARNINGS",
    "BERYL_IDENTITY",
    "GITHUB_WORKSPACE",
];

/// The built beryl with `args`, in `dir`, colour off, none of beryl's
/// environment variables and HOME an empty folder of the test run's own
/// (`beryl reclass` searches `~` for kapicorp's config file, as reclass
/// does); stdio as the caller sets it.
pub fn beryl_command(dir: &Path, args: &[String]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_beryl"));
    cmd.args(["--color", "never"])
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("HOME", scratch_home());
    for var in BERYL_ENV {
        cmd.env_remove(var);
    }
    cmd
}

/// An empty folder for HOME, one per test run.
pub fn scratch_home() -> &'static Path {
    static HOME: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    HOME.get_or_init(|| {
        let home = Path::new(env!("CARGO_TARGET_TMPDIR")).join("home");
        std::fs::create_dir_all(&home).unwrap();
        home
    })
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
    let mut cmd = beryl_command(dir, args);
    cmd.envs(env.iter().map(|(k, v)| (k, v)));
    let out = with_stdin(&mut cmd, stdin.unwrap_or_default().as_bytes());
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

/// Runs `cmd` with `input` on its standard input and its output captured.
/// The program may exit without reading it all: a closed pipe is fine.
pub fn with_stdin(cmd: &mut Command, input: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("run {:?}: {e}", cmd.get_program()));
    let mut pipe = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    // From a thread, so that a program that writes before it has read
    // everything cannot block on a full pipe.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait for the program");
    writer.join().expect("write the standard input");
    out
}
