//! Running one adversarial case under a time and a memory bound, and
//! checking what the issue asks of every case.

use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::{self, beryl_command, is_root};

/// CPU time (user + system) allowed per run of the debug build that
/// `cargo test` runs. CPU time rather than wall time, because the machine
/// that runs the tests is shared and busy: the whole integration suite runs
/// at once, next to other builds, and a case's wall time varies threefold
/// with the load. It was 5 s; the costliest case, gen/yaml/mapping-300k-keys,
/// measures 3.6-5.2 s of CPU in a debug build depending on the machine's
/// load (the same before and after issue 17), so 5 s failed CI by chance.
/// 10 s still catches what the bound is for: a bomb costs minutes.
pub const CPU_LIMIT: Duration = Duration::from_secs(10);
/// Wall time after which a run is killed: what catches a run that blocks
/// without using the CPU (a read from a FIFO, say). Six times the CPU
/// bound: under `.ci/run` the install tests' chroots share the two cores,
/// and a case of 4.2 s of CPU once took 15 s of wall time (the bound was
/// 15 s then). A run that passes never waits for it.
pub const WALL_LIMIT: Duration = Duration::from_secs(60);
/// Address space allowed per run (`RLIMIT_AS`): the memory bound.
pub const MEMORY_LIMIT: u64 = 1 << 30;

/// A case ready to run: its tree, its command line and what it must do.
pub struct Prepared {
    pub name: String,
    pub dir: tempfile::TempDir,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    /// The exit code (2 but for the few cases documented as accepted).
    pub status: i32,
    /// Texts the diagnostics must hold: the responsible file and, where one
    /// exists, its line.
    pub stderr_has: Vec<String>,
    /// Texts they must not hold (a key file's content).
    pub stderr_lacks: Vec<String>,
    /// Run as an unprivileged user (uid/gid 65534) when the tests run as
    /// root, so that file permissions apply.
    pub unprivileged: bool,
}

impl Prepared {
    pub fn new(name: &str, dir: tempfile::TempDir, args: &[&str]) -> Self {
        Self {
            name: name.to_string(),
            dir,
            args: support::args(args),
            env: Vec::new(),
            status: 2,
            stderr_has: Vec::new(),
            stderr_lacks: Vec::new(),
            unprivileged: false,
        }
    }

    pub fn has(mut self, text: &str) -> Self {
        self.stderr_has.push(text.to_string());
        self
    }

    pub fn lacks(mut self, text: &str) -> Self {
        self.stderr_lacks.push(text.to_string());
        self
    }

    pub fn status(mut self, status: i32) -> Self {
        self.status = status;
        self
    }
}

/// What a run did.
pub struct Outcome {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    pub cpu: Duration,
    pub max_rss_kib: i64,
    pub timed_out: bool,
}

/// Every entry below `dir`, links not followed: path → (kind, size, mtime).
/// Contents are not read (one case holds a 100 MB file); a rewrite changes
/// the mtime.
type Snapshot = BTreeMap<String, (u32, u64, i64, i64)>;

pub fn snapshot(dir: &Path) -> Snapshot {
    fn walk(base: &Path, dir: &Path, out: &mut Snapshot) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let Ok(m) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            let rel = p.strip_prefix(base).unwrap().display().to_string();
            out.insert(
                rel,
                (m.mode() & 0o170000, m.len(), m.mtime(), m.mtime_nsec()),
            );
            if m.is_dir() {
                walk(base, &p, out);
            }
        }
    }
    let mut out = Snapshot::new();
    walk(dir, dir, &mut out);
    out
}

/// Runs beryl in the case's directory, killed after [`WALL_LIMIT`], within
/// [`MEMORY_LIMIT`] of address space, without core dumps.
pub fn run(p: &Prepared) -> Outcome {
    let unprivileged = p.unprivileged && is_root();
    let mut cmd = beryl_command(p.dir.path(), &p.args);
    // A fixed pool: the address space bound counts each thread's stack.
    cmd.env("RAYON_NUM_THREADS", "2")
        .envs(p.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let limit = |resource, value| {
                let r = libc::rlimit {
                    rlim_cur: value,
                    rlim_max: value,
                };
                if libc::setrlimit(resource, &r) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            };
            limit(libc::RLIMIT_AS, MEMORY_LIMIT)?;
            limit(libc::RLIMIT_CORE, 0)?;
            if unprivileged
                && (libc::setgroups(0, std::ptr::null()) != 0
                    || libc::setgid(65534) != 0
                    || libc::setuid(65534) != 0)
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let start = Instant::now();
    // Reaped by wait4 below, which also gives the peak RSS.
    #[allow(clippy::zombie_processes)]
    let mut child = cmd.spawn().expect("run beryl");
    let pid = child.id() as libc::pid_t;
    let reader = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let out = reader(Box::new(child.stdout.take().unwrap()));
    let err = reader(Box::new(child.stderr.take().unwrap()));
    let (mut status, mut usage) = (0, unsafe { std::mem::zeroed::<libc::rusage>() });
    let mut timed_out = false;
    loop {
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break;
        }
        assert!(r == 0, "wait4: {}", std::io::Error::last_os_error());
        if start.elapsed() > WALL_LIMIT && !timed_out {
            timed_out = true;
            let _ = child.kill();
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let elapsed = start.elapsed();
    let exited = libc::WIFEXITED(status);
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    Outcome {
        code: exited.then(|| libc::WEXITSTATUS(status)),
        signal: libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status)),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
        elapsed,
        cpu: time(usage.ru_utime) + time(usage.ru_stime),
        max_rss_kib: usage.ru_maxrss,
        timed_out,
    }
}

/// Runs a case and returns what it got wrong (nothing when it passes).
pub fn check(p: &Prepared) -> (Outcome, Vec<String>) {
    let before = snapshot(p.dir.path());
    let o = run(p);
    let mut wrong = Vec::new();
    if o.timed_out {
        wrong.push(format!("did not finish within {WALL_LIMIT:?} (killed)"));
    }
    if o.cpu > CPU_LIMIT {
        wrong.push(format!("used {:?} of CPU, over {CPU_LIMIT:?}", o.cpu));
    }
    if let Some(sig) = o.signal {
        wrong.push(format!(
            "killed by signal {sig} (a crash, or the memory bound)"
        ));
    }
    if o.code == Some(101) || o.stderr.contains("panicked") || o.stderr.contains("overflowed") {
        wrong.push("panicked".into());
    }
    if o.code != Some(p.status) && o.signal.is_none() {
        wrong.push(format!("exit {:?}, expected {}", o.code, p.status));
    }
    if o.max_rss_kib > (MEMORY_LIMIT / 1024) as i64 {
        wrong.push(format!("peak RSS {} KiB", o.max_rss_kib));
    }
    if p.status == 2 {
        if p.stderr_has.is_empty() {
            wrong.push("the case names no file (stderr-has:) for the diagnostic".into());
        }
        // `check` reports on stdout, errors included (its summary line in
        // text); nothing else may print a result.
        let report = p.args.first().is_some_and(|a| a == "check");
        if !o.stdout.is_empty() && !report {
            wrong.push(format!("printed a result: {}", clip(&o.stdout)));
        }
        if snapshot(p.dir.path()) != before {
            wrong.push("wrote or changed files (an output must not be written)".into());
        }
    }
    for text in &p.stderr_has {
        if !o.stderr.contains(text.as_str()) {
            wrong.push(format!("the diagnostics lack `{text}`"));
        }
    }
    for text in &p.stderr_lacks {
        if o.stderr.contains(text.as_str()) {
            wrong.push(format!("the diagnostics show `{}`", clip(text)));
        }
    }
    (o, wrong)
}

/// The start of a long text, for messages.
pub fn clip(s: &str) -> String {
    let cut: String = s.chars().take(2000).collect();
    if cut.len() < s.len() {
        format!("{cut}… ({} bytes)", s.len())
    } else {
        cut
    }
}
