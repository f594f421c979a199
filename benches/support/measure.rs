//! Measuring a child process, for the benchmarks: wall time, CPU time and
//! peak RSS of one run (`wait4`'s rusage for that child), and the best of
//! several. Each benchmark includes this file with `#[path]`.
#![allow(dead_code)]

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one child process cost.
#[derive(Clone, Copy)]
pub struct Cost {
    pub wall: Duration,
    /// User plus system CPU time: less sensitive than the wall time to other
    /// work on the machine.
    pub cpu: Duration,
    /// Peak RSS in KiB.
    pub rss: u64,
}

pub fn timeval(t: libc::timeval) -> Duration {
    Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
}

/// Wall time, CPU time and peak RSS of one child process, which must exit
/// with one of `codes`.
pub fn run_child(cmd: &mut Command, log: &Path, codes: &[i32]) -> Result<Cost, String> {
    let stderr = fs::File::create(log).map_err(|e| e.to_string())?;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr);
    let t = Instant::now();
    let child = cmd.spawn().map_err(|e| format!("{cmd:?}: {e}"))?;
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: a zeroed rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // wait4 (not RUSAGE_CHILDREN, which keeps the maximum of every child so
    // far) gives this child's own peak. `child` is never waited on by std.
    // SAFETY: the pointers are to live locals; pid is our unreaped child.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let elapsed = t.elapsed();
    drop(child);
    if r != pid {
        return Err(format!("wait4: {}", std::io::Error::last_os_error()));
    }
    if !(libc::WIFEXITED(status) && codes.contains(&libc::WEXITSTATUS(status))) {
        let text = fs::read_to_string(log).unwrap_or_default();
        let head: String = text.lines().take(30).collect::<Vec<_>>().join("\n");
        return Err(format!("{cmd:?} failed ({status:#x}):\n{head}"));
    }
    Ok(Cost {
        wall: elapsed,
        cpu: timeval(usage.ru_utime) + timeval(usage.ru_stime),
        // Linux reports ru_maxrss in KiB.
        rss: usage.ru_maxrss as u64,
    })
}

/// Best wall and CPU times and highest peak over `runs` runs of `make()`'s
/// command, which must exit 0. `before` runs (untimed) before each.
pub fn best_of(
    runs: usize,
    log: &Path,
    before: impl FnMut(),
    make: impl FnMut() -> Command,
) -> Result<Cost, String> {
    best_of_codes(runs, log, &[0], before, make)
}

/// [`best_of`] for a command that may exit with any of `codes`.
pub fn best_of_codes(
    runs: usize,
    log: &Path,
    codes: &[i32],
    mut before: impl FnMut(),
    mut make: impl FnMut() -> Command,
) -> Result<Cost, String> {
    let mut best = Cost {
        wall: Duration::MAX,
        cpu: Duration::MAX,
        rss: 0,
    };
    for _ in 0..runs {
        before();
        let c = run_child(&mut make(), log, codes)?;
        best.wall = best.wall.min(c.wall);
        best.cpu = best.cpu.min(c.cpu);
        best.rss = best.rss.max(c.rss);
    }
    Ok(best)
}
