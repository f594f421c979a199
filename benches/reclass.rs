//! The reclass benchmark: `beryl reclass --inventory` against reclass-rs and
//! kapicorp-reclass, whole process, on generated reclass inventories.
//!
//! ```sh
//! python3 -m venv target/reclass-peers
//! target/reclass-peers/bin/pip install kapicorp-reclass==2.0.0 reclass-rs
//! cargo bench --bench reclass -- --python target/reclass-peers/bin/python
//! cargo bench --bench reclass -- --sizes 1k --runs 5 --nodes-only
//! ```
//!
//! For each size it writes a reclass inventory under `target/reclassbench/`
//! (Kapitan's shape: a common class, OS, environment and 30 component classes
//! with `${a:b}` references, list concatenation and applications; nodes in
//! site folders, each with 4–6 classes), then runs, best of `--runs`, each
//! program writing the whole inventory as one JSON document to /dev/null:
//!
//! - `beryl reclass -b DIR --inventory -o json`;
//! - reclass-rs: `Reclass.from_config(...).inventory().as_dict()`, dumped
//!   with Python's `json` (it ships no command line);
//! - kapicorp-reclass: `reclass -b DIR --inventory -o json` (its venv's
//!   script), skipped above `--kapicorp-max` nodes (it needs minutes).
//!
//! It prints a markdown table (also `target/reclassbench/results.md`). A
//! benchmark is not a test: nothing here asserts a time.

#[path = "support/measure.rs"]
mod measure;
#[path = "../examples/support/reclass_gen.rs"]
mod reclass_gen;
#[path = "../examples/support/rng.rs"]
mod rng;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use measure::{Cost, best_of};

const USAGE: &str = "usage: cargo bench --bench reclass -- [--sizes N,N,...] [--runs N] \
[--python PATH] [--kapicorp-max N] [--beryl PATH]";

struct Options {
    sizes: Vec<usize>,
    runs: usize,
    /// A Python with kapicorp-reclass and reclass-rs.
    python: Option<PathBuf>,
    kapicorp_max: usize,
    beryl: PathBuf,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        sizes: vec![1_000, 10_000],
        runs: 3,
        python: std::env::var_os("BERYL_RECLASS_PYTHON").map(PathBuf::from),
        kapicorp_max: 1_000,
        beryl: PathBuf::from(env!("CARGO_BIN_EXE_beryl")),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value\n{USAGE}"));
        match a.as_str() {
            // `cargo bench` passes --bench to every bench target.
            "--bench" => {}
            "--sizes" => {
                o.sizes = value()?
                    .split(',')
                    .map(|s| size(s).ok_or(format!("bad size `{s}`")))
                    .collect::<Result<_, _>>()?
            }
            "--runs" => o.runs = value()?.parse().map_err(|e| format!("--runs: {e}"))?,
            "--python" => o.python = Some(value()?.into()),
            "--kapicorp-max" => o.kapicorp_max = size(&value()?).ok_or("--kapicorp-max: a size")?,
            "--beryl" => o.beryl = value()?.into(),
            other => return Err(format!("unknown option {other}\n{USAGE}")),
        }
    }
    Ok(o)
}

/// `1000`, `1k` or `10k`.
fn size(s: &str) -> Option<usize> {
    match s.strip_suffix('k') {
        Some(k) => k.parse::<usize>().ok().map(|k| k * 1_000),
        None => s.parse().ok(),
    }
}

fn main() {
    let o = options().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2);
    });
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("../reclassbench");
    let mut table = String::from(
        "| nodes | beryl | reclass-rs | kapicorp | reclass-rs / beryl | kapicorp / beryl | beryl peak RSS |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for &n in &o.sizes {
        let dir = root.join(format!("inv-{n}"));
        if !dir.join("nodes").is_dir() {
            reclass_gen::generate(&dir, n, 7, false);
        }
        let log = root.join("run.log");
        let base = dir.to_str().unwrap().to_string();
        let beryl = measure(o.runs, &log, || {
            let mut c = Command::new(&o.beryl);
            c.args(["reclass", "-b", &base, "--inventory", "-o", "json"]);
            c
        });
        let rrs = o.python.as_ref().map(|py| {
            measure(o.runs, &log, || {
                let mut c = Command::new(py);
                c.args(["-c", RECLASS_RS, &base]);
                c
            })
        });
        let kapicorp = o.python.as_ref().filter(|_| n <= o.kapicorp_max).map(|py| {
            let script = py.with_file_name("reclass");
            measure(o.runs.min(2), &log, || {
                let mut c = Command::new(&script);
                c.args(["-b", &base, "--inventory", "-o", "json"]);
                c
            })
        });
        let ratio = |c: &Option<Result<Cost, String>>| match (c, &beryl) {
            (Some(Ok(c)), Ok(b)) => format!("{:.1}×", c.wall.as_secs_f64() / b.wall.as_secs_f64()),
            _ => "–".into(),
        };
        writeln!(
            table,
            "| {n} | {} | {} | {} | {} | {} | {} |",
            shown(&Some(beryl.clone())),
            shown(&rrs),
            shown(&kapicorp),
            ratio(&rrs),
            ratio(&kapicorp),
            beryl
                .as_ref()
                .map(|c| format!("{} MiB", c.rss / 1024))
                .unwrap_or_else(|_| "–".into()),
        )
        .unwrap();
        for (who, r) in [
            ("beryl", Some(beryl)),
            ("reclass-rs", rrs),
            ("kapicorp", kapicorp),
        ] {
            if let Some(Err(e)) = r {
                eprintln!("{who} at {n} nodes failed: {e}");
            }
        }
    }
    println!("{table}");
    fs::write(root.join("results.md"), &table).unwrap();
}

/// reclass-rs writing the inventory as JSON, as `reclass --inventory -o json`.
const RECLASS_RS: &str = "import json, sys, reclass_rs
c = reclass_rs.Config.from_dict(sys.argv[1], {'nodes_uri': 'nodes', 'classes_uri': 'classes'})
json.dump(reclass_rs.Reclass.from_config(c).inventory().as_dict(), sys.stdout, indent=2, default=str)
";

fn measure(runs: usize, log: &Path, make: impl FnMut() -> Command) -> Result<Cost, String> {
    best_of(runs, log, || {}, make)
}

fn shown(c: &Option<Result<Cost, String>>) -> String {
    match c {
        Some(Ok(c)) => format!(
            "{:.3} s ({:.2} CPU-s)",
            c.wall.as_secs_f64(),
            c.cpu.as_secs_f64()
        ),
        Some(Err(_)) => "failed".into(),
        None => "–".into(),
    }
}
