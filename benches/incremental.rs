//! The incremental benchmark: the targets of issue 21, item 5, on one fleet.
//!
//! ```sh
//! cargo bench --bench incremental                     # 10k hosts, best of 3
//! cargo bench --bench incremental -- --hosts 1000 --runs 5
//! ```
//!
//! It generates the inventory of `examples/geninv.rs` (cached under
//! `target/fleetbench/`, shared with the fleet bench), and the same inventory
//! with classes and queries, then measures, best of `--runs`:
//!
//! - **`beryl diff git:A git:B`** in a git repository of the inventory whose
//!   history is: the fleet, then one host file changed, then one group file
//!   changed, then `_default.yml` changed. Beside each diff, the time git
//!   itself takes to list both trees and the changed files (`git ls-tree -r`
//!   of each revision, `git diff --name-only`), which the target excludes;
//! - **`render --all --out DIR`** in that repository's work tree, over the
//!   output of the revision before: nothing changed, one host changed, one
//!   group changed;
//! - **`render HOST`** of a host that runs a query, on the inventory with
//!   queries, and of `host01`;
//! - the **peak memory** of `render --all` to stdout, with and without queries.
//!
//! It prints a markdown table (also written to
//! `target/fleetbench/incremental.md`). A benchmark is not a test: nothing
//! here asserts a time.

#[path = "../examples/support/inventory_gen.rs"]
mod inventory_gen;
#[path = "support/measure.rs"]
mod measure;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use measure::{Cost, best_of, best_of_codes};

const USAGE: &str =
    "usage: cargo bench --bench incremental -- [--hosts N] [--runs N] [--beryl PATH]";

struct Options {
    hosts: usize,
    runs: usize,
    beryl: PathBuf,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        hosts: 10_000,
        runs: 3,
        beryl: PathBuf::from(env!("CARGO_BIN_EXE_beryl")),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| format!("{a} needs a value\n{USAGE}"))
        };
        let num = |s: String| {
            s.replace('k', "000")
                .parse::<usize>()
                .map_err(|e| e.to_string())
        };
        match a.as_str() {
            "--bench" => {}
            "--hosts" => o.hosts = num(value()?)?,
            "--runs" => o.runs = num(value()?)?.max(1),
            "--beryl" => o.beryl = PathBuf::from(value()?),
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown option {other}\n{USAGE}")),
        }
    }
    Ok(o)
}

fn fleetbench() -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_beryl"));
    bin.parent()
        .and_then(Path::parent)
        .map_or_else(|| PathBuf::from("target"), Path::to_path_buf)
        .join("fleetbench")
}

/// The generated inventory (the fleet bench's cache), with queries or not.
fn inventory(hosts: usize, classes: bool) -> Result<PathBuf, String> {
    let dir = fleetbench().join(format!(
        "inv-h{hosts}-d10-g50-s1-v{}{}",
        inventory_gen::VERSION,
        if classes { "-classes" } else { "" }
    ));
    if dir.join(".complete").exists() {
        return Ok(dir);
    }
    let _ = fs::remove_dir_all(&dir);
    let p = inventory_gen::Params {
        hosts,
        domains: 10,
        groups: 50,
        seed: 1,
        classes,
    };
    inventory_gen::generate(&p, &dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    fs::write(dir.join(".complete"), "").map_err(|e| e.to_string())?;
    Ok(dir)
}

fn git(repo: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .current_dir(repo)
        .args([
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@example.org",
        ])
        .args(args)
        .output()
        .map_err(|e| format!("git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The revisions of the repository, each one edit after the one before.
const EDITS: &[(&str, &str)] = &[
    ("host", "one host file"),
    ("group", "one group file"),
    ("default", "_default.yml"),
];

/// A git repository holding `inv`'s inventory and ssh folders, tagged
/// `base`, then one commit per row of [`EDITS`], each appending a key.
/// Returns the repository and the files edited.
fn repository(inv: &Path, hosts: usize) -> Result<(PathBuf, Vec<String>), String> {
    let repo = fleetbench().join(format!("git-h{hosts}"));
    let done = repo.join(".git").join("bench-complete");
    let first_host = first_rel(inv, |n| !n.starts_with('_'))?;
    let first_group = first_rel(inv, |n| n == "_group.yml")?;
    let edited = vec![
        first_host,
        first_group,
        "inventory/_default.yml".to_string(),
    ];
    if done.exists() {
        git(&repo, &["checkout", "-q", "default"])?;
        return Ok((repo, edited));
    }
    let _ = fs::remove_dir_all(&repo);
    fs::create_dir_all(&repo).map_err(|e| e.to_string())?;
    for part in ["inventory", "ssh"] {
        let status = Command::new("cp")
            .arg("-R")
            .arg(inv.join(part))
            .arg(repo.join(part))
            .status()
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err(format!("cp -R {part} failed"));
        }
    }
    git(&repo, &["init", "-q"])?;
    git(&repo, &["add", "-A"])?;
    git(&repo, &["commit", "-qm", "the fleet"])?;
    git(&repo, &["tag", "base"])?;
    for ((tag, what), file) in EDITS.iter().zip(&edited) {
        let path = repo.join(file);
        let mut text = fs::read_to_string(&path).map_err(|e| e.to_string())?;
        text.push_str(&format!("\nbench_{tag}_edit: true\n"));
        fs::write(&path, text).map_err(|e| e.to_string())?;
        git(&repo, &["commit", "-qam", &format!("edit {what}")])?;
        git(&repo, &["tag", tag])?;
    }
    fs::write(&done, "").map_err(|e| e.to_string())?;
    Ok((repo, edited))
}

/// The first file under `dir`, in sorted order (depth first), whose name
/// passes `keep`, in no `_`-folder.
fn first_file(dir: &Path, keep: impl Fn(&str) -> bool + Copy) -> Option<PathBuf> {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    entries.into_iter().find_map(|path| {
        let name = path.file_name()?.to_string_lossy().into_owned();
        if path.is_dir() && !name.starts_with('_') {
            first_file(&path, keep)
        } else if name.ends_with(".yml") && keep(&name) && path.is_file() {
            Some(path)
        } else {
            None
        }
    })
}

/// [`first_file`] under `inv/inventory`, relative to `inv`, `/`-separated.
fn first_rel(inv: &Path, keep: impl Fn(&str) -> bool + Copy) -> Result<String, String> {
    let path = first_file(&inv.join("inventory"), keep)
        .ok_or_else(|| format!("no such file under {}", inv.display()))?;
    let rel = path.strip_prefix(inv).map_err(|e| e.to_string())?;
    Ok(rel
        .to_string_lossy()
        .replace(std::path::MAIN_SEPARATOR, "/"))
}

fn beryl(o: &Options, dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(&o.beryl);
    c.current_dir(dir)
        .args(["--color", "never", "-i", "inventory", "--ssh-dir", "ssh"])
        .args(args)
        .env_remove("BERYL_INVENTORY")
        .env_remove("BERYL_SSH_DIR");
    c
}

fn ms(c: &Cost) -> f64 {
    c.wall.as_secs_f64() * 1e3
}

fn mib(c: &Cost) -> f64 {
    c.rss as f64 / 1024.0
}

fn loadavg() -> String {
    fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| t.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

fn main() {
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = run(&o) {
        eprintln!("incremental: {e}");
        std::process::exit(1);
    }
}

fn run(o: &Options) -> Result<(), String> {
    let load = loadavg();
    let log = fleetbench().join("incremental-stderr.log");
    let inv = inventory(o.hosts, false)?;
    let queries = inventory(o.hosts, true)?;
    let (repo, edited) = repository(&inv, o.hosts)?;
    let group_hosts = {
        let dir = repo.join(&edited[1]);
        let dir = dir.parent().unwrap_or(&repo);
        fs::read_dir(dir)
            .map_err(|e| e.to_string())?
            .filter_map(Result::ok)
            .filter(|e| {
                let n = e.file_name().to_string_lossy().into_owned();
                n.ends_with(".yml") && !n.starts_with('_')
            })
            .count()
    };
    let mut md = String::new();
    let _ = writeln!(
        md,
        "{} hosts, best of {} runs, load average {load} at the start.\n",
        o.hosts, o.runs
    );
    let _ = writeln!(
        md,
        "| measurement | wall (ms) | CPU (ms) | peak (MiB) | note |\n|---|---:|---:|---:|---|"
    );
    let mut row = |what: &str, c: &Cost, note: String| {
        let _ = writeln!(
            md,
            "| {what} | {:.1} | {:.1} | {:.0} | {note} |",
            ms(c),
            c.cpu.as_secs_f64() * 1e3,
            mib(c)
        );
    };

    // diff between consecutive revisions, and what git alone takes.
    let mut old = "base";
    for ((new, what), file) in EDITS.iter().zip(&edited) {
        eprintln!("incremental: diff git:{old} git:{new} ({what})");
        let listing = best_of(
            o.runs,
            &log,
            || {},
            || {
                let mut c = Command::new("sh");
                c.current_dir(&repo).arg("-c").arg(format!(
                    "git ls-tree -r {old} >/dev/null && git ls-tree -r {new} >/dev/null \
                 && git diff --name-only {old} {new} >/dev/null"
                ));
                c
            },
        )?;
        let diff = best_of_codes(
            o.runs,
            &log,
            &[1],
            || {},
            || {
                beryl(
                    o,
                    &repo,
                    &["diff", &format!("git:{old}"), &format!("git:{new}")],
                )
            },
        )?;
        let beyond = ms(&diff) - ms(&listing);
        let target = match *new {
            "host" => format!("; target ≤ 150 ms beyond git: **{}**", met(beyond <= 150.0)),
            "group" => format!("; the group has {group_hosts} hosts"),
            _ => String::new(),
        };
        row(
            &format!("`diff git:{old} git:{new}` ({what}: `{file}`)"),
            &diff,
            format!("{beyond:.1} ms beyond git's {:.1} ms{target}", ms(&listing)),
        );
        old = new;
    }

    // render --all --out over the output of the revision before.
    let out = fleetbench().join(format!("incremental-out-h{}", o.hosts));
    let render_at = |rev: &str| -> Result<(), String> {
        git(&repo, &["checkout", "-q", rev])?;
        let mut c = beryl(o, &repo, &["render", "--all", "--out"]);
        c.arg(&out);
        measure::run_child(&mut c, &log, &[0]).map(|_| ())
    };
    let _ = fs::remove_dir_all(&out);
    eprintln!("incremental: render --all --out, fresh");
    let fresh = best_of(
        o.runs,
        &log,
        || {
            let _ = fs::remove_dir_all(&out);
            let _ = git(&repo, &["checkout", "-q", "base"]);
        },
        || {
            let mut c = beryl(o, &repo, &["render", "--all", "--out"]);
            c.arg(&out);
            c
        },
    )?;
    row("`render --all --out DIR`, DIR fresh", &fresh, String::new());
    for (before, after, what) in [
        ("base", "base", "nothing changed"),
        ("base", "host", "one host file changed"),
        ("host", "group", "one group file changed"),
    ] {
        eprintln!("incremental: render --all --out over the last output, {what}");
        let mut failed = None;
        let c = best_of(
            o.runs,
            &log,
            || {
                if let Err(e) = render_at(before)
                    .and_then(|()| git(&repo, &["checkout", "-q", after]).map(|_| ()))
                {
                    failed = Some(e);
                }
            },
            || {
                let mut c = beryl(o, &repo, &["render", "--all", "--out"]);
                c.arg(&out);
                c
            },
        )?;
        if let Some(e) = failed {
            return Err(e);
        }
        let said = fs::read_to_string(&log).unwrap_or_default();
        let said = said
            .lines()
            .find(|l| l.contains("recompiled"))
            .unwrap_or("");
        row(
            &format!("`render --all --out DIR` over the output of `{before}`, {what}"),
            &c,
            said.trim().to_string(),
        );
    }
    git(&repo, &["checkout", "-q", "default"])?;

    // One host, with and without a query.
    let asker = query_host(&queries.join("inventory"))
        .ok_or("no host with a query in the inventory with queries")?;
    for (tree, host, what) in [
        (&inv, "host01".to_string(), "no query"),
        (&queries, asker, "a query over the fleet's exports"),
    ] {
        eprintln!("incremental: render {host}");
        let c = best_of(
            o.runs.max(5),
            &log,
            || {},
            || beryl(o, tree, &["render", &host]),
        )?;
        let target = if what == "no query" { 15.0 } else { 300.0 };
        row(
            &format!("`render {host}` ({what})"),
            &c,
            format!("target ≤ {target} ms: **{}**", met(ms(&c) <= target)),
        );
    }

    // Memory of the whole fleet to stdout.
    for (tree, what) in [(&inv, "no queries"), (&queries, "with queries")] {
        eprintln!("incremental: render --all ({what})");
        let c = best_of(o.runs, &log, || {}, || beryl(o, tree, &["render", "--all"]))?;
        row(
            &format!("`render --all` to stdout ({what})"),
            &c,
            format!("target ≤ 200 MiB: **{}**", met(mib(&c) <= 200.0)),
        );
    }
    let _ = writeln!(md, "\nLoad average {} at the end.", loadavg());
    print!("{md}");
    let path = fleetbench().join("incremental.md");
    fs::write(&path, &md).map_err(|e| e.to_string())?;
    eprintln!("incremental: written to {}", path.display());
    Ok(())
}

fn met(yes: bool) -> &'static str {
    if yes { "met" } else { "missed" }
}

/// The short name of the first host (in sorted order) of a `cache` group:
/// the groups whose file asks a query in the inventory with queries
/// (docs/performance.md §8).
fn query_host(inventory: &Path) -> Option<String> {
    let mut domains: Vec<_> = fs::read_dir(inventory)
        .ok()?
        .filter_map(Result::ok)
        .collect();
    domains.sort_by_key(|e| e.file_name());
    for d in domains {
        let cache = d.path().join("cache");
        let Ok(entries) = fs::read_dir(&cache) else {
            continue;
        };
        let mut hosts: Vec<String> = entries
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".yml") && !n.starts_with('_'))
            .collect();
        hosts.sort();
        if let Some(h) = hosts.first() {
            return Some(h.trim_end_matches(".yml").to_string());
        }
    }
    None
}
