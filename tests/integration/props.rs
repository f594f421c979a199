//! Properties of whole inventories that need the built binary (issue 8), on
//! the synthetic inventories of `examples/geninv.rs` (one per seed) and the
//! example inventory. Each generated inventory also gets a `notes` mapping of
//! strings and keys that YAML and JSON writers get wrong.
//!
//! - rendering is deterministic: `render --all` (YAML and JSON, stdout and
//!   `--out`) gives the same bytes on every run and with 1 or 4 threads;
//! - render → parse round-trips every effective config: each host rendered
//!   as YAML and as JSON, read back with beryl's own loader, is the tree the
//!   library compiled, key order included.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use beryl::compile::{Compiler, compile};
use beryl::value::{Node, Source};

use crate::support::inventory_gen::{Params, generate};
use crate::support::{Run, args, beryl_with_env, example, files};

/// The generated inventories: seeds 1 to 4, 24 hosts each; the even seeds
/// with classes and inventory queries.
const SEEDS: std::ops::RangeInclusive<u64> = 1..=4;

fn params(seed: u64) -> Params {
    Params {
        hosts: 24,
        domains: 3,
        groups: 6,
        seed,
        classes: seed.is_multiple_of(2),
    }
}

/// Strings that a writer must quote or escape to keep them as they are.
const TRICKY: &[&str] = &[
    "yes",
    "No",
    "off",
    "~",
    "null",
    "0644",
    "0x1F",
    "1_000",
    "1e3",
    ".inf",
    "-.5",
    "12:30",
    "- a",
    "a: b",
    "#c",
    "a #b",
    " lead",
    "trail ",
    "a\tb",
    "a\nb\n",
    "\r",
    "'",
    "\"",
    "\\",
    "\u{feff}x",
    "\u{85}",
    "\u{2028}",
    "\u{a0}",
    "\u{7f}",
    "\u{9f}",
    "é",
    "🦀",
    "[a]",
    "{a}",
    "*a",
    "&a",
    "!tag",
    "%x",
    "@x",
    "`x",
    "|",
    ">",
    "---",
    "...",
    "-",
    "?",
    ":",
    "<<",
    "",
    "\\${x}",
];

/// A YAML double-quoted scalar holding exactly `s` (every non-ASCII or
/// control character escaped).
fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            _ => out.push_str(&format!("\\U{:08X}", u32::from(c))),
        }
    }
    out.push('"');
    out
}

/// A generated inventory in a temp dir, with `notes` in `_default.yml`.
fn generated(seed: u64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    generate(&params(seed), dir.path()).unwrap();
    let mut notes = String::from("\nnotes:\n");
    for (i, s) in TRICKY.iter().enumerate() {
        notes.push_str(&format!(
            "  v{i}: {}\n  {}: {i}\n",
            quoted(s),
            quoted(&format!("k{s}"))
        ));
    }
    notes.push_str(&format!(
        "  all: [{}]\n",
        TRICKY
            .iter()
            .map(|s| quoted(s))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let default = dir.path().join("inventory/_default.yml");
    let mut text = fs::read_to_string(&default).unwrap();
    text.push_str(&notes);
    fs::write(&default, text).unwrap();
    dir
}

fn run(dir: &Path, a: &[&str], threads: &str) -> Run {
    let args = args(a);
    let env = [("RAYON_NUM_THREADS".to_string(), threads.to_string())];
    let r = beryl_with_env(dir, &args, &env, None);
    assert_eq!(r.status, 0, "beryl {}: {}", args.join(" "), r.stderr);
    r
}

/// 4 seeds × 2 formats × 3 runs to stdout, and 2 runs to `--out`.
#[test]
fn rendering_is_the_same_bytes_on_every_run_and_thread_count() {
    for seed in SEEDS {
        let d = generated(seed);
        for format in ["yaml", "json"] {
            let args = ["render", "--all", "--format", format];
            let first = run(d.path(), &args, "1").stdout;
            assert!(first.contains("host01."), "seed {seed}: {first}");
            for threads in ["4", "4"] {
                assert!(
                    run(d.path(), &args, threads).stdout == first,
                    "seed {seed} {format} with {threads} threads differs"
                );
            }
        }
        run(d.path(), &["render", "--all", "--out", "out1"], "1");
        run(d.path(), &["render", "--all", "--out", "out4"], "4");
        let (one, four) = (files(&d.path().join("out1")), files(&d.path().join("out4")));
        assert_eq!(one.len(), 25, "seed {seed}: 24 hosts and the manifest");
        assert!(
            one == four,
            "seed {seed}: --out differs between 1 and 4 threads"
        );
    }
}

/// The effective configs as the library compiles them: FQDN → config.
fn compiled(dir: &Path) -> BTreeMap<String, Node> {
    let root = dir.join("inventory");
    let inventory = beryl::inventory::Inventory::discover(&root, "inventory").unwrap();
    let keys = beryl::keys::KeyStore::new(&dir.join("ssh"), "ssh", 1 << 20);
    let compiler = Compiler::new(&inventory, &keys, Default::default());
    inventory
        .hosts
        .iter()
        .map(|h| (h.fqdn.clone(), compile(&compiler, h).unwrap().config))
        .collect()
}

fn round_trips(dir: &Path, what: &str) {
    let want = compiled(dir);
    assert!(!want.is_empty());
    for format in ["yaml", "json"] {
        let text = run(dir, &["render", "--all", "--format", format], "2").stdout;
        let back = beryl::yaml::parse_any(&Source::new("render", text), &Default::default())
            .unwrap_or_else(|d| {
                panic!(
                    "{what}: the {format} render does not read back: {}",
                    d.message
                )
            });
        let hosts = back.as_map().expect("a mapping of FQDN to config");
        assert_eq!(hosts.len(), want.len(), "{what} {format}");
        for (fqdn, config) in &want {
            let got = &hosts[fqdn].node;
            assert!(
                got.value.same_ordered(&config.value),
                "{what}: {fqdn} reads back otherwise from {format}"
            );
        }
    }
}

/// 4 generated inventories (24 hosts each) and the example's 8 hosts.
#[test]
fn every_effective_config_reads_back_as_compiled() {
    for seed in SEEDS {
        round_trips(generated(seed).path(), &format!("seed {seed}"));
    }
    round_trips(example().path(), "the example inventory");
}

/// `check` on `dir` with `threads` threads: its exit status, stdout, stderr.
fn check(dir: &Path, args: &[&str], threads: &str) -> Run {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let env = [("RAYON_NUM_THREADS".to_string(), threads.to_string())];
    beryl_with_env(dir, &args, &env, None)
}

/// Every `host*.yml` of an inventory, sorted.
fn host_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            out.extend(host_files(&path));
        } else if name.starts_with("host") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Errors on several hosts: a broken reference in one host file in three,
/// and in a group file (one error found on each of its hosts) a broken
/// reference and a time zone that validation refuses.
fn break_some(dir: &Path) {
    let inventory = dir.join("inventory");
    let append = |file: &Path, text: &str| {
        let mut old = fs::read_to_string(file).unwrap();
        old.push_str(text);
        fs::write(file, old).unwrap();
    };
    for file in host_files(&inventory).iter().step_by(3) {
        append(file, "broken: \"${no.such.key}\"\n");
    }
    let group = host_files(&inventory)
        .iter()
        .map(|f| f.with_file_name("_group.yml"))
        .find(|g| g.exists())
        .unwrap();
    append(
        &group,
        "shared_broken: \"${nor.this}\"\nfreebsd:\n  timezone: Nowhere/Atall\n",
    );
}

/// `check` reports the same bytes with 1 and 4 threads, as text (stderr)
/// and as JSON (stdout), although it compiles hosts in parallel: on the
/// generated inventories, then on them with errors in several hosts.
#[test]
fn checking_is_the_same_bytes_on_every_thread_count() {
    for seed in SEEDS {
        let d = generated(seed);
        for (broken, status) in [(false, 0), (true, 2)] {
            if broken {
                break_some(d.path());
            }
            for args in [&["check"][..], &["check", "--format", "json"]] {
                let one = check(d.path(), args, "1");
                assert_eq!(one.status, status, "seed {seed}: {}", one.stderr);
                if broken && args.len() == 1 {
                    assert!(
                        one.stderr.contains("beryl::refs::missing"),
                        "{}",
                        one.stderr
                    );
                }
                for threads in ["4", "4"] {
                    let other = check(d.path(), args, threads);
                    assert!(
                        (other.status, &other.stdout, &other.stderr)
                            == (one.status, &one.stdout, &one.stderr),
                        "seed {seed} (broken: {broken}): beryl {} with {threads} threads differs",
                        args.join(" ")
                    );
                }
            }
        }
    }
}
