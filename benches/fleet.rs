//! The fleet benchmark: beryl against the parse floor, at 1k, 10k and 50k hosts.
//!
//! ```sh
//! cargo bench --bench fleet                          # or: just bench
//! cargo bench --bench fleet -- --sizes 1000,10000 --runs 5
//! cargo bench --bench fleet -- --out                 # render --all --out DIR
//! ```
//!
//! For each size it generates the synthetic inventory of `examples/geninv.rs`
//! (cached under `target/fleetbench/`), then measures, best of `--runs`:
//!
//! - the **I/O floor** and the older **parse floor** (benches/support/floor.rs),
//!   each in a fresh process on a rayon pool of 2 threads: what beryl cannot
//!   avoid (read, tokenise, write the same output files), and a parse into
//!   beryl's own nodes;
//! - `beryl render --all > /dev/null` (with `--out`, `render --all --out DIR`
//!   into a fresh DIR, then again over that output), run as a child process of the release binary: wall
//!   time and peak RSS (`wait4`'s rusage for that child);
//! - `beryl check`, the same way;
//! - `beryl render host01` on the 10k inventory (the one-host path).
//! - `beryl diff` between two `--out` renders of that inventory that differ in
//!   10 hosts (the CI path).
//!
//! It prints markdown tables (also written to `target/fleetbench/results.md`)
//! and how the numbers compare with the targets of docs/performance.md. A
//! benchmark is not a test: nothing here asserts a time.

#[path = "support/floor.rs"]
mod floor;
#[path = "../examples/support/inventory_gen.rs"]
mod inventory_gen;
#[path = "support/measure.rs"]
mod measure;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use floor::{Floor, yaml_files};
use measure::{Cost, best_of, best_of_codes, run_child};

const USAGE: &str = "usage: cargo bench --bench fleet -- [--sizes N,N,...] [--runs N] [--out] \
[--seed N] [--domains N] [--groups N] [--classes] [--floor-threads N] [--one HOST] [--beryl PATH]";

struct Options {
    sizes: Vec<usize>,
    runs: usize,
    out: bool,
    seed: u64,
    domains: usize,
    groups: usize,
    /// The inventory variant with classes and queries (geninv --classes).
    classes: bool,
    floor_threads: usize,
    one: String,
    beryl: PathBuf,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        sizes: vec![1_000, 10_000, 50_000],
        runs: 3,
        out: false,
        seed: 1,
        domains: 10,
        groups: 50,
        classes: false,
        floor_threads: 2,
        one: "host01".into(),
        beryl: PathBuf::from(env!("CARGO_BIN_EXE_beryl")),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value\n{USAGE}"));
        let num = |v: String| v.parse::<usize>().map_err(|e| format!("{a} {v}: {e}"));
        match a.as_str() {
            // `cargo bench` passes --bench to every bench target.
            "--bench" => {}
            "--sizes" => {
                o.sizes = value()?
                    .split(',')
                    .map(|s| parse_size(s).ok_or(format!("bad size `{s}`")))
                    .collect::<Result<_, _>>()?;
            }
            "--runs" => o.runs = num(value()?)?.max(1),
            "--out" => o.out = true,
            "--seed" => o.seed = num(value()?)? as u64,
            "--domains" => o.domains = num(value()?)?,
            "--groups" => o.groups = num(value()?)?,
            "--classes" => o.classes = true,
            "--floor-threads" => o.floor_threads = num(value()?)?.max(1),
            "--one" => o.one = value()?,
            "--beryl" => o.beryl = PathBuf::from(value()?),
            "-h" | "--help" => return Err(USAGE.into()),
            _ => return Err(format!("unknown argument `{a}`\n{USAGE}")),
        }
    }
    Ok(o)
}

/// `10000`, `10k`, `1.5k`.
fn parse_size(s: &str) -> Option<usize> {
    match s.strip_suffix(['k', 'K']) {
        Some(n) => n.parse::<f64>().ok().map(|f| (f * 1000.0) as usize),
        None => s.parse().ok(),
    }
}

/// `target/` (where the bench binary found beryl: target/release/beryl).
fn target_dir() -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_beryl"));
    bin.parent()
        .and_then(Path::parent)
        .map_or_else(|| PathBuf::from("target"), Path::to_path_buf)
}

/// The cached inventory of `hosts` hosts, generated if missing.
fn inventory(o: &Options, hosts: usize) -> Result<PathBuf, String> {
    let dir = target_dir().join("fleetbench").join(format!(
        "inv-h{hosts}-d{}-g{}-s{}-v{}{}",
        o.domains,
        o.groups,
        o.seed,
        inventory_gen::VERSION,
        if o.classes { "-classes" } else { "" }
    ));
    let done = dir.join(".complete");
    if done.exists() {
        return Ok(dir);
    }
    if dir.exists() {
        fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let t = Instant::now();
    let p = inventory_gen::Params {
        hosts,
        domains: o.domains,
        groups: o.groups,
        seed: o.seed,
        classes: o.classes,
    };
    let s = inventory_gen::generate(&p, &dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    fs::write(&done, "").map_err(|e| e.to_string())?;
    eprintln!(
        "fleet: generated {} hosts ({} YAML files, {:.1} MB) in {:.2} s: {}",
        s.hosts,
        s.yaml_files,
        s.yaml_bytes as f64 / 1e6,
        t.elapsed().as_secs_f64(),
        dir.display()
    );
    Ok(dir)
}

struct Row {
    hosts: usize,
    files: usize,
    bytes: u64,
    /// The I/O floor (floor.rs), and its CPU time (both threads).
    io: Duration,
    io_cpu: Duration,
    /// The parse floor on the pool's threads, and on 1 thread.
    floor: Duration,
    floor1: Duration,
    /// CPU time of the parse floor (both threads).
    floor_cpu: Duration,
    render: Cost,
    /// With `--out`: `render --all --out DIR` over the previous output.
    rerender: Option<Cost>,
    check: Cost,
}

impl Row {
    /// Render wall time over the I/O floor's.
    fn io_ratio(&self) -> f64 {
        self.render.wall.as_secs_f64() / self.io.as_secs_f64()
    }
    /// Render CPU time over the I/O floor's: the ratio the wall times would
    /// show with both cores free and a render as parallel as the floor.
    fn io_cpu_ratio(&self) -> f64 {
        self.render.cpu.as_secs_f64() / self.io_cpu.as_secs_f64()
    }
    fn ratio(&self) -> f64 {
        self.render.wall.as_secs_f64() / self.floor.as_secs_f64()
    }
    fn cpu_ratio(&self) -> f64 {
        self.render.cpu.as_secs_f64() / self.floor_cpu.as_secs_f64()
    }
    fn per_host_us(&self) -> f64 {
        self.render.wall.as_secs_f64() * 1e6 / self.hosts as f64
    }
    fn per_host_cpu_us(&self) -> f64 {
        self.render.cpu.as_secs_f64() * 1e6 / self.hosts as f64
    }
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn beryl_cmd(o: &Options, inv: &Path) -> Command {
    let mut c = Command::new(&o.beryl);
    c.arg("--color")
        .arg("never")
        .arg("-i")
        .arg(inv.join("inventory"))
        .arg("--ssh-dir")
        .arg(inv.join("ssh"))
        .env_remove("BERYL_INVENTORY")
        .env_remove("BERYL_SSH_DIR");
    c
}

fn measure(o: &Options, hosts: usize) -> Result<Row, String> {
    let inv = inventory(o, hosts)?;
    let files = yaml_files(&inv.join("inventory")).len();
    let log = target_dir().join("fleetbench").join("stderr.log");
    let fleetbench = target_dir().join("fleetbench");
    // The I/O floor writes what a render writes: a reference output, untimed.
    let reference = fleetbench.join(format!("ref-h{hosts}"));
    if !reference.join(".complete").exists() {
        let _ = fs::remove_dir_all(&reference);
        let mut c = beryl_cmd(o, &inv);
        c.args(["render", "--all", "--out"]).arg(&reference);
        run_child(&mut c, &log, &[0])?;
        fs::write(reference.join(".complete"), "").map_err(|e| e.to_string())?;
    }
    let scratch = fleetbench.join(format!("io-floor-h{hosts}"));
    eprintln!("fleet: {hosts} hosts: I/O floor and parse floor");
    let (mut io, mut io_cpu) = (Duration::MAX, Duration::MAX);
    let mut floor = Duration::MAX;
    let mut floor1 = Duration::MAX;
    let mut floor_cpu = Duration::MAX;
    let mut bytes = 0;
    for _ in 0..o.runs {
        let r = floor::in_child(Floor::Io, &inv, o.floor_threads, &reference, &scratch)?;
        io = io.min(r.wall);
        io_cpu = io_cpu.min(r.cpu);
        let r = floor::in_child(Floor::Parse, &inv, o.floor_threads, &reference, &scratch)?;
        floor = floor.min(r.wall);
        floor_cpu = floor_cpu.min(r.cpu);
        bytes = r.bytes;
        floor1 = floor1.min(floor::in_child(Floor::Parse, &inv, 1, &reference, &scratch)?.wall);
    }
    let _ = fs::remove_dir_all(&scratch);
    let out_dir = fleetbench.join(format!("out-h{hosts}"));
    let render_label = if o.out {
        "render --all --out DIR"
    } else {
        "render --all > /dev/null"
    };
    eprintln!("fleet: {hosts} hosts: {render_label}");
    let render = best_of(
        o.runs,
        &log,
        || {
            let _ = fs::remove_dir_all(&out_dir);
        },
        || {
            let mut c = beryl_cmd(o, &inv);
            c.args(["render", "--all"]);
            if o.out {
                c.arg("--out").arg(&out_dir);
            }
            c
        },
    )?;
    // CI keeps its output folder: the same render over the last one's files.
    let rerender = if o.out {
        eprintln!("fleet: {hosts} hosts: {render_label} over the previous output");
        Some(best_of(
            o.runs,
            &log,
            || {},
            || {
                let mut c = beryl_cmd(o, &inv);
                c.args(["render", "--all", "--out"]).arg(&out_dir);
                c
            },
        )?)
    } else {
        None
    };
    eprintln!("fleet: {hosts} hosts: check");
    let check = best_of(
        o.runs,
        &log,
        || {},
        || {
            let mut c = beryl_cmd(o, &inv);
            c.arg("check");
            c
        },
    )?;
    Ok(Row {
        hosts,
        files,
        bytes,
        io,
        io_cpu,
        floor,
        floor1,
        floor_cpu,
        render,
        rerender,
        check,
    })
}

/// How many host files the diff measurement changes.
const DIFF_HOSTS: usize = 10;

/// `beryl diff` between two render outputs of the inventory `inv` that differ
/// in [`DIFF_HOSTS`] host files: a copy of the inventory (cached beside it)
/// whose first host files, in sorted order, each get one more key. (With
/// `--classes`, a changed host's exports can change other hosts' answers.) Both outputs are
/// rendered untimed; `beryl diff` exits 1 (differences found).
fn measure_diff(o: &Options, inv: &Path, log: &Path) -> Result<Cost, String> {
    let base = target_dir().join("fleetbench");
    let name = inv
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let changed = base.join(format!("{name}-changed{DIFF_HOSTS}"));
    let marker = changed.join(".changed-v2");
    if !marker.exists() {
        let _ = fs::remove_dir_all(&changed);
        let status = Command::new("cp")
            .arg("-R")
            .arg(inv)
            .arg(&changed)
            .status()
            .map_err(|e| format!("cp: {e}"))?;
        if !status.success() {
            return Err(format!(
                "cp -R {} {} failed",
                inv.display(),
                changed.display()
            ));
        }
        let hosts = yaml_files(&changed.join("inventory"))
            .into_iter()
            // Host files only: no level file, nothing under `_classes/`.
            .filter(|(_, rel)| !rel.split('/').any(|part| part.starts_with('_')))
            .take(DIFF_HOSTS);
        for (path, _) in hosts {
            let mut text = fs::read_to_string(&path).map_err(|e| e.to_string())?;
            text.push_str("\nbench_changed: true\n");
            fs::write(&path, text).map_err(|e| e.to_string())?;
        }
        fs::write(&marker, "").map_err(|e| e.to_string())?;
    }
    let (a, b) = (base.join("diff-old"), base.join("diff-new"));
    for (tree, out) in [(inv, &a), (changed.as_path(), &b)] {
        let _ = fs::remove_dir_all(out);
        let mut c = beryl_cmd(o, tree);
        c.args(["render", "--all", "--out"]).arg(out);
        run_child(&mut c, log, &[0])?;
    }
    best_of_codes(
        o.runs,
        log,
        &[1],
        || {},
        || {
            let mut c = Command::new(&o.beryl);
            c.arg("--color").arg("never").arg("diff").arg(&a).arg(&b);
            c
        },
    )
}

fn machine() -> String {
    let cpu = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let mem = fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|k| k.parse::<u64>().ok())
        })
        .map_or_else(
            || "?".into(),
            |k| format!("{:.1} GiB", k as f64 / 1048576.0),
        );
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let rustc = Command::new("rustc")
        .arg("-V")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    format!(
        "{cores} cores ({cpu}), {mem} RAM, {rustc}, load average {} at the end",
        loadavg()
    )
}

/// The 1-minute load average: other work on the machine skews the times.
fn loadavg() -> String {
    fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| t.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(done) = floor::child(&args) {
        if let Err(e) = done {
            eprintln!("{e}");
            std::process::exit(1);
        }
        return;
    }
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = run(&o) {
        eprintln!("fleet: {e}");
        std::process::exit(1);
    }
}

fn run(o: &Options) -> Result<(), String> {
    let load_before = loadavg();
    let mut rows = Vec::new();
    for &hosts in &o.sizes {
        rows.push(measure(o, hosts)?);
    }
    // One host on the 10k inventory (or the size nearest to it).
    let one_size = o
        .sizes
        .iter()
        .copied()
        .min_by_key(|s| s.abs_diff(10_000))
        .unwrap_or(10_000);
    let inv = inventory(o, one_size)?;
    let log = target_dir().join("fleetbench").join("stderr.log");
    eprintln!("fleet: {one_size} hosts: render {}", o.one);
    let one = best_of(
        o.runs,
        &log,
        || {},
        || {
            let mut c = beryl_cmd(o, &inv);
            c.args(["render", &o.one]);
            c
        },
    )?;
    eprintln!("fleet: {one_size} hosts: beryl diff of two outputs ({DIFF_HOSTS} hosts changed)");
    let diff = measure_diff(o, &inv, &log)?;

    let render_label = if o.out {
        "render --all --out"
    } else {
        "render --all"
    };
    let mut md = String::new();
    let _ = writeln!(
        md,
        "Machine: {}; {load_before} when the run started.",
        machine()
    );
    let _ = writeln!(
        md,
        "Best of {} runs (wall and CPU time each); peak RSS is the highest of the runs. I/O floor: read every YAML file and run granit-parser's event parser over it, then write the files of a reference `render --all --out` (no journal), {} threads. Parse floor: `beryl::yaml::load_file` on every YAML file ({} threads; 1 thread in brackets). Each floor in a fresh process.\n",
        o.runs, o.floor_threads, o.floor_threads
    );
    let rerender = rows.iter().any(|r| r.rerender.is_some());
    let _ = writeln!(
        md,
        "| hosts | YAML files | MB | I/O floor (s) | CPU (s) | {render_label} (s) | CPU (s) | / I/O floor | CPU / CPU |{} parse floor (s) | / parse floor | CPU / CPU | µs/host | peak (MiB) | check (s) | check peak (MiB) |",
        if rerender {
            " over the last output (s) | / I/O floor |"
        } else {
            ""
        }
    );
    let _ = writeln!(
        md,
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|{}---:|---:|---:|---:|---:|---:|---:|",
        if rerender { "---:|---:|" } else { "" }
    );
    for r in &rows {
        let over = match &r.rerender {
            Some(c) => format!(
                " {:.3} | {:.1}× |",
                c.wall.as_secs_f64(),
                c.wall.as_secs_f64() / r.io.as_secs_f64()
            ),
            None if rerender => " | |".to_string(),
            None => String::new(),
        };
        let _ = writeln!(
            md,
            "| {} | {} | {:.1} | {:.3} | {:.3} | {:.3} | {:.3} | {:.1}× | {:.1}× |{over} {:.3} ({:.3}) | {:.1}× | {:.1}× | {:.0} | {:.0} | {:.3} | {:.0} |",
            r.hosts,
            r.files,
            r.bytes as f64 / 1e6,
            r.io.as_secs_f64(),
            r.io_cpu.as_secs_f64(),
            r.render.wall.as_secs_f64(),
            r.render.cpu.as_secs_f64(),
            r.io_ratio(),
            r.io_cpu_ratio(),
            r.floor.as_secs_f64(),
            r.floor1.as_secs_f64(),
            r.ratio(),
            r.cpu_ratio(),
            r.per_host_us(),
            mib(r.render.rss),
            r.check.wall.as_secs_f64(),
            mib(r.check.rss),
        );
    }
    let _ = writeln!(
        md,
        "\n`render {}` on the {one_size}-host inventory: {:.1} ms, peak {:.0} MiB.\n",
        o.one,
        one.wall.as_secs_f64() * 1e3,
        mib(one.rss)
    );

    // The targets of issues 7 and 21 (docs/performance.md).
    let _ = writeln!(md, "| target | measured | met |\n|---|---|---|");
    let yes = |b: bool| if b { "yes" } else { "no" };
    for (hosts, bound) in [(10_000, 1.5), (50_000, 2.0)] {
        let Some(r) = rows.iter().find(|r| r.hosts == hosts) else {
            continue;
        };
        let _ = writeln!(
            md,
            "| {}k {render_label} ≤ {bound}× the I/O floor | {:.1}× ({:.3} s / {:.3} s); CPU {:.1}× | {} |",
            hosts / 1000,
            r.io_ratio(),
            r.render.wall.as_secs_f64(),
            r.io.as_secs_f64(),
            r.io_cpu_ratio(),
            yes(r.io_ratio() <= bound)
        );
        if let Some(c) = &r.rerender {
            let ratio = c.wall.as_secs_f64() / r.io.as_secs_f64();
            let _ = writeln!(
                md,
                "| {}k {render_label} over the last output ≤ {bound}× the I/O floor | {ratio:.1}× ({:.3} s) | {} |",
                hosts / 1000,
                c.wall.as_secs_f64(),
                yes(ratio <= bound)
            );
        }
    }
    if let Some(r) = rows.iter().find(|r| r.hosts == 10_000) {
        let _ = writeln!(
            md,
            "| 10k {render_label} ≤ 1.5× the parse floor | {:.1}× ({:.3} s / {:.3} s); CPU {:.1}× | {} |",
            r.ratio(),
            r.render.wall.as_secs_f64(),
            r.floor.as_secs_f64(),
            r.cpu_ratio(),
            yes(r.ratio() <= 1.5)
        );
        let _ = writeln!(
            md,
            "| 10k {render_label} ≤ 1 s | {:.3} s | {} |",
            r.render.wall.as_secs_f64(),
            yes(r.render.wall.as_secs_f64() <= 1.0)
        );
        let _ = writeln!(
            md,
            "| 10k peak memory ≤ 200 MiB | {:.0} MiB | {} |",
            mib(r.render.rss),
            yes(mib(r.render.rss) <= 200.0)
        );
    }
    if let (Some(a), Some(b)) = (
        rows.iter().find(|r| r.hosts == 1_000),
        rows.iter().find(|r| r.hosts == 50_000),
    ) {
        let growth = b.per_host_us() / a.per_host_us();
        let _ = writeln!(
            md,
            "| per-host cost 1k → 50k grows ≤ 1.3× | {growth:.2}× ({:.0} → {:.0} µs/host; CPU time {:.2}×) | {} |",
            a.per_host_us(),
            b.per_host_us(),
            b.per_host_cpu_us() / a.per_host_cpu_us(),
            yes(growth <= 1.3)
        );
    }
    if one_size == 10_000 {
        let ms = one.wall.as_secs_f64() * 1e3;
        let _ = writeln!(
            md,
            "| `render {}` on 10k ≤ 15 ms | {ms:.1} ms | {} |",
            o.one,
            yes(ms <= 15.0)
        );
    }
    let diff_ms = diff.wall.as_secs_f64() * 1e3;
    let _ = writeln!(
        md,
        "| `beryl diff` of two {one_size}-host outputs ({DIFF_HOSTS} hosts differ) < 0.5 s | {diff_ms:.1} ms, peak {:.0} MiB | {} |",
        mib(diff.rss),
        yes(diff_ms < 500.0)
    );

    print!("{md}");
    let path = target_dir().join("fleetbench").join("results.md");
    fs::write(&path, &md).map_err(|e| e.to_string())?;
    eprintln!("fleet: written to {}", path.display());
    Ok(())
}
