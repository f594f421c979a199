//! The floors the fleet benchmark compares beryl with, each measured in a
//! fresh process (the bench binary run with a `--*-floor-child` argument),
//! so that neither its memory nor its allocator state leaks into the other
//! measurements. (On Linux a child's peak RSS includes its parent's at the
//! time of the spawn, so the parent must stay small.)
//!
//! - The **parse floor** (the old one): read and parse every YAML file of the
//!   inventory with `beryl::yaml::load_file`, the parser and options beryl
//!   uses, into beryl's spanned nodes.
//! - The **I/O floor** (issue 21): read every YAML file and run the fastest
//!   conforming parser at hand over it, granit-parser's event parser (the
//!   saphyr parser serde-saphyr is built on) without building anything, then
//!   write the files of a reference `render --all --out` tree, the same
//!   names and bytes, into a fresh folder, without a journal or renames.
//!   What beryl could not avoid doing: read, tokenise, write.
//!
//! Both run on a rayon pool of the given thread count. The file listing, and
//! for the I/O floor the reading of the reference tree into memory, are
//! outside the timing.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::measure::timeval;

/// Which floor a child process measures.
#[derive(Clone, Copy)]
pub enum Floor {
    Parse,
    Io,
}

impl Floor {
    fn flag(self) -> &'static str {
        match self {
            Floor::Parse => "--floor-child",
            Floor::Io => "--io-floor-child",
        }
    }
}

/// One floor run: its wall time, CPU time (all threads) and the YAML bytes read.
pub struct Run {
    pub wall: Duration,
    pub cpu: Duration,
    pub bytes: u64,
}

/// Every regular file under `root` whose name passes `keep`, sorted, with
/// its name relative to `root`.
pub fn files(root: &Path, keep: &dyn Fn(&Path) -> bool) -> Vec<(PathBuf, String)> {
    fn walk(
        root: &Path,
        dir: &Path,
        keep: &dyn Fn(&Path) -> bool,
        out: &mut Vec<(PathBuf, String)>,
    ) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, keep, out);
            } else if keep(&path) {
                let name = path
                    .strip_prefix(root)
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                out.push((path, name));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, keep, &mut out);
    out.sort();
    out
}

/// Every `.yml`/`.yaml` file under `root`.
pub fn yaml_files(root: &Path) -> Vec<(PathBuf, String)> {
    files(root, &|p| {
        matches!(p.extension().and_then(|e| e.to_str()), Some("yml" | "yaml"))
    })
}

fn pool(threads: usize) -> Result<rayon::ThreadPool, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        // beryl's own work thread has 64 MiB; the parser recurses per level.
        .stack_size(64 * 1024 * 1024)
        .build()
        .map_err(|e| e.to_string())
}

/// The parse floor: every file parsed into beryl's nodes, each tree dropped
/// once parsed. Returns the time and the bytes read.
fn parse_once(files: &[(PathBuf, String)], threads: usize) -> Result<(Duration, u64), String> {
    let limits = beryl::yaml::Limits::default();
    pool(threads)?.install(|| {
        let t = Instant::now();
        let bytes = files
            .par_iter()
            .map(|(path, name)| {
                let node = beryl::yaml::load_file(path, name, &limits)
                    .map_err(|d| format!("{name}: {d:?}"))?;
                Ok(node.span.source.as_ref().map_or(0, |s| s.text.len() as u64))
            })
            .sum::<Result<u64, String>>()?;
        Ok((t.elapsed(), bytes))
    })
}

/// The I/O floor: every file read and its events parsed, then `out`'s files
/// written under `dest` (a fresh folder). Returns the time and the bytes read.
fn io_once(
    files: &[(PathBuf, String)],
    out: &[(String, Vec<u8>)],
    dest: &Path,
    threads: usize,
) -> Result<(Duration, u64), String> {
    use serde_saphyr::granit_parser::Parser;
    pool(threads)?.install(|| {
        let t = Instant::now();
        let bytes = files
            .par_iter()
            .map(|(path, name)| {
                let text = fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
                for event in Parser::new_from_str(&text) {
                    event.map_err(|e| format!("{name}: {e:?}"))?;
                }
                Ok(text.len() as u64)
            })
            .sum::<Result<u64, String>>()?;
        let mut dirs: Vec<PathBuf> = out
            .iter()
            .filter_map(|(rel, _)| dest.join(rel).parent().map(Path::to_path_buf))
            .collect();
        dirs.dedup();
        for d in &dirs {
            fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
        }
        out.par_iter().try_for_each(|(rel, data)| {
            fs::write(dest.join(rel), data).map_err(|e| format!("{rel}: {e}"))
        })?;
        Ok((t.elapsed(), bytes))
    })
}

/// This process's user plus system CPU time, all threads.
fn cpu_self() -> Duration {
    // SAFETY: a zeroed rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pointer is to a live local.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    timeval(usage.ru_utime) + timeval(usage.ru_stime)
}

/// One floor of the inventory `inv` (its `inventory/` folder), in a fresh
/// process. The I/O floor writes the files of `reference` (a `render --all
/// --out` tree, its journal left out) into `dest`, which it empties first.
pub fn in_child(
    floor: Floor,
    inv: &Path,
    threads: usize,
    reference: &Path,
    dest: &Path,
) -> Result<Run, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new(exe)
        .arg(floor.flag())
        .arg(inv)
        .arg(threads.to_string())
        .arg(reference)
        .arg(dest)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "floor: {}{}",
            text,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let bad = || format!("floor: bad output `{text}`");
    let nums: Vec<f64> = text
        .split_whitespace()
        .map(|s| s.parse::<f64>().map_err(|_| bad()))
        .collect::<Result<_, _>>()?;
    let [wall, cpu, bytes] = nums[..] else {
        return Err(bad());
    };
    Ok(Run {
        wall: Duration::from_secs_f64(wall),
        cpu: Duration::from_secs_f64(cpu),
        bytes: bytes as u64,
    })
}

/// The child's side: when `args` ask for a floor, measure it, print
/// `seconds cpu-seconds bytes` and return `Some`; `None` otherwise.
pub fn child(args: &[String]) -> Option<Result<(), String>> {
    let floor = match args.get(1).map(String::as_str) {
        Some("--floor-child") => Floor::Parse,
        Some("--io-floor-child") => Floor::Io,
        _ => return None,
    };
    let [_, _, inv, threads, reference, dest] = args else {
        return Some(Err(format!(
            "usage: {} INV THREADS REFERENCE DEST",
            floor.flag()
        )));
    };
    Some((|| {
        let threads = threads.parse::<usize>().map_err(|e| e.to_string())?;
        let files = yaml_files(&Path::new(inv).join("inventory"));
        // CPU time from just before the timed work (the reference tree is
        // read before it).
        let timed = |work: &dyn Fn() -> Result<(Duration, u64), String>| {
            let before = cpu_self();
            let (t, bytes) = work()?;
            Ok::<_, String>((t, bytes, cpu_self().saturating_sub(before)))
        };
        let (t, bytes, cpu) = match floor {
            Floor::Parse => timed(&|| parse_once(&files, threads))?,
            Floor::Io => {
                let out = reference_files(Path::new(reference))?;
                let dest = Path::new(dest);
                let _ = fs::remove_dir_all(dest);
                timed(&|| io_once(&files, &out, dest, threads))?
            }
        };
        println!("{:.9} {:.9} {bytes}", t.as_secs_f64(), cpu.as_secs_f64());
        Ok(())
    })())
}

/// The files of a `render --all --out` tree, by name, with their bytes; the
/// journal (a dot file, beryl's own crash safety) is left out.
fn reference_files(root: &Path) -> Result<Vec<(String, Vec<u8>)>, String> {
    let names = files(root, &|p| {
        !p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'))
    });
    if names.is_empty() {
        return Err(format!("{}: no reference output", root.display()));
    }
    names
        .into_iter()
        .map(|(path, rel)| {
            fs::read(&path)
                .map(|b| (rel, b))
                .map_err(|e| format!("{}: {e}", path.display()))
        })
        .collect()
}
