//! The language server's benchmark: the speed targets of issue 38 on a
//! generated fleet.
//!
//! ```sh
//! cargo bench --bench lsp                      # 10k hosts, 9 groups of ~1,050
//! cargo bench --bench lsp -- --hosts 1000 --n 20
//! ```
//!
//! It generates the inventory of `examples/geninv.rs` with as many groups
//! as domains (one group per domain, so each group file reaches about a
//! ninth of the fleet), starts `beryl lsp` in it as an editor would, and
//! measures, from the request written to the answer read:
//!
//! - **hover in a host file**, on `n` different hosts (each compiled for
//!   its first hover), then on one host again (compiled);
//! - **hover in a group file** that reaches the most hosts: the first
//!   (every host of the group compiled), then again;
//! - **definition** of a key name in `ssh_keys` (`_default.yml`);
//! - **diagnostics after an edit** to that group file: the time from a
//!   `didChange` (a value changed, unsaved) to the `publishDiagnostics` of
//!   the group, alternating two texts;
//! - the server's **peak memory** (VmHWM) at the end.
//!
//! It prints a markdown table (also written to `target/fleetbench/lsp.md`)
//! with the load average. A benchmark is not a test: nothing here asserts
//! a time.

#[path = "../examples/support/inventory_gen.rs"]
mod inventory_gen;

use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const USAGE: &str = "usage: cargo bench --bench lsp -- [--hosts N] [--n N] [--beryl PATH]";

struct Options {
    hosts: usize,
    n: usize,
    beryl: PathBuf,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        hosts: 10_000,
        n: 50,
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
            "--n" => o.n = num(value()?)?.max(2),
            "--beryl" => o.beryl = PathBuf::from(value()?),
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown option {other}\n{USAGE}")),
        }
    }
    Ok(o)
}

const DOMAINS: usize = 9;

/// The generated inventory, cached beside the fleet bench's.
fn inventory(hosts: usize) -> Result<PathBuf, String> {
    let bin = Path::new(env!("CARGO_BIN_EXE_beryl"));
    let dir = (bin.parent().and_then(Path::parent))
        .map_or_else(|| PathBuf::from("target"), Path::to_path_buf)
        .join("fleetbench")
        .join(format!(
            "inv-h{hosts}-d{DOMAINS}-g{DOMAINS}-s1-v{}",
            inventory_gen::VERSION
        ));
    if dir.join(".complete").exists() {
        return Ok(dir);
    }
    let _ = fs::remove_dir_all(&dir);
    let p = inventory_gen::Params {
        hosts,
        domains: DOMAINS,
        groups: DOMAINS,
        seed: 1,
        classes: false,
    };
    inventory_gen::generate(&p, &dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    fs::write(dir.join(".complete"), "").map_err(|e| e.to_string())?;
    Ok(dir)
}

/// A client speaking to one server.
struct Client {
    child: Child,
    out: BufReader<ChildStdout>,
    id: i64,
}

impl Client {
    fn start(beryl: &Path, dir: &Path) -> Result<Client, String> {
        let mut child = Command::new(beryl)
            .arg("lsp")
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: {e}", beryl.display()))?;
        let out = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut c = Client { child, out, id: 0 };
        c.request("initialize", json!({"capabilities": {}}))?;
        c.notify("initialized", json!({}))?;
        Ok(c)
    }

    fn send(&mut self, msg: Value) -> Result<(), String> {
        let body = msg.to_string();
        let stdin = self.child.stdin.as_mut().ok_or("no stdin")?;
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).map_err(|e| e.to_string())?;
        stdin.flush().map_err(|e| e.to_string())
    }

    fn recv(&mut self) -> Result<Value, String> {
        let mut len = 0;
        loop {
            let mut line = String::new();
            if self.out.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
                return Err("the server closed".into());
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length: ") {
                len = n.parse().map_err(|_| "bad length")?;
            }
        }
        let mut body = vec![0; len];
        self.out.read_exact(&mut body).map_err(|e| e.to_string())?;
        serde_json::from_slice(&body).map_err(|e| e.to_string())
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<(), String> {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// The answer to a request, and how long it took.
    fn request(&mut self, method: &str, params: Value) -> Result<(Value, Duration), String> {
        self.id += 1;
        let id = self.id;
        let t = Instant::now();
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        loop {
            let m = self.recv()?;
            if m["id"] == id {
                if m.get("error").is_some() {
                    return Err(format!("{method}: {m}"));
                }
                return Ok((m, t.elapsed()));
            }
        }
    }

    /// How long the same request takes, `n` times.
    fn times(&mut self, n: usize, method: &str, params: Value) -> Result<Vec<Duration>, String> {
        (0..n)
            .map(|_| self.request(method, params.clone()).map(|r| r.1))
            .collect()
    }

    /// Waits for the diagnostics of `uri`.
    fn diagnostics(&mut self, uri: &str) -> Result<Vec<Value>, String> {
        loop {
            let m = self.recv()?;
            if m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri {
                return Ok(m["params"]["diagnostics"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default());
            }
        }
    }

    /// The server's peak resident memory, in KiB.
    fn peak_kib(&self) -> Option<u64> {
        let status = fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    fn end(mut self) -> Result<(), String> {
        self.request("shutdown", Value::Null)?;
        self.notify("exit", Value::Null)?;
        self.child.wait().map_err(|e| e.to_string())?;
        Ok(())
    }
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn at(path: &Path, line: usize, character: usize) -> Value {
    json!({"textDocument": {"uri": uri(path)}, "position": {"line": line, "character": character}})
}

/// The line (from 0) of the first line of `path` that starts with `prefix`.
fn line_of(path: &Path, prefix: &str) -> Result<usize, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    (text.lines().position(|l| l.starts_with(prefix)))
        .ok_or_else(|| format!("{}: no line starting {prefix:?}", path.display()))
}

/// p50 and p95 of some durations, in ms.
fn quantiles(mut t: Vec<Duration>) -> (f64, f64) {
    t.sort();
    let q = |p: f64| t[((t.len() as f64 * p).ceil() as usize).clamp(1, t.len()) - 1];
    (q(0.50).as_secs_f64() * 1e3, q(0.95).as_secs_f64() * 1e3)
}

fn main() {
    if let Err(e) = run() {
        eprintln!("lsp bench: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let o = options()?;
    let dir = inventory(o.hosts)?
        .canonicalize()
        .map_err(|e| e.to_string())?;
    let inv = dir.join("inventory");
    let mut table = String::new();
    let load = fs::read_to_string("/proc/loadavg").unwrap_or_default();
    writeln!(
        table,
        "`beryl lsp` on {} hosts ({}), load average {}\n",
        o.hosts,
        dir.display(),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    )
    .ok();
    writeln!(
        table,
        "| request | n | p50 ms | p95 ms | note |\n|---|---:|---:|---:|---|"
    )
    .ok();
    let mut row = |what: &str, t: Vec<Duration>, note: &str| {
        let n = t.len();
        let (p50, p95) = quantiles(t);
        writeln!(table, "| {what} | {n} | {p50:.1} | {p95:.1} | {note} |").ok();
    };
    let mut c = Client::start(&o.beryl, &dir)?;

    // Host files: the first hover of each host compiles it.
    let mut hosts: Vec<PathBuf> = Vec::new();
    let mut groups: Vec<(usize, PathBuf)> = Vec::new();
    for domain in fs::read_dir(&inv).map_err(|e| e.to_string())?.flatten() {
        for entry in fs::read_dir(domain.path()).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.join("_group.yml").is_file() {
                let n = fs::read_dir(&p).map_or(0, |d| d.count() - 1);
                for h in fs::read_dir(&p).into_iter().flatten().flatten() {
                    let name = h.file_name().to_string_lossy().to_string();
                    if name.ends_with(".yml") && !name.starts_with('_') {
                        hosts.push(h.path());
                    }
                }
                groups.push((n, p.join("_group.yml")));
            }
        }
    }
    hosts.sort();
    groups.sort();
    let (reach, group) = groups.pop().ok_or("no group in the inventory")?;
    let mut cold = Vec::new();
    for h in hosts.iter().step_by((hosts.len() / o.n).max(1)).take(o.n) {
        let line = line_of(h, "freebsd:")? + 1;
        cold.push(c.request("textDocument/hover", at(h, line, 4))?.1);
    }
    row(
        "hover, host file, first on its host",
        cold,
        "compiles the host",
    );
    let h = &hosts[0];
    let line = line_of(h, "freebsd:")? + 1;
    let warm = c.times(o.n, "textDocument/hover", at(h, line, 4))?;
    row("hover, host file, again", warm, "");

    // The group file that reaches the most hosts.
    let gline = line_of(&group, "  raid:")?;
    let (first, t) = c.request("textDocument/hover", at(&group, gline, 4))?;
    let said = first["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .lines()
        .nth(2)
        .unwrap_or_default()
        .to_string();
    row(
        "hover, group file, first",
        vec![t],
        &format!("{reach} files in the group; `{said}`"),
    );
    let warm = c.times(o.n, "textDocument/hover", at(&group, gline, 4))?;
    row("hover, group file, again", warm, "");

    // Definition of a key name.
    let default = inv.join("_default.yml");
    let kline = line_of(&default, "      ssh_keys: [")?;
    let def = c.times(o.n, "textDocument/definition", at(&default, kline, 17))?;
    row("definition, ssh_keys name", def, "");

    // Diagnostics after an edit of the group, unsaved.
    let text = fs::read_to_string(&group).map_err(|e| e.to_string())?;
    let guri = uri(&group);
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": guri, "languageId": "yaml", "version": 0, "text": text}}),
    )?;
    let t = Instant::now();
    let open = c.diagnostics(&guri)?;
    row(
        "diagnostics on opening the group",
        vec![t.elapsed()],
        &format!("{} diagnostics", open.len()),
    );
    let edited = text.replacen("  swap: ", "  swap: 1", 1);
    let mut edits = Vec::new();
    let mut counts = Vec::new();
    for v in 1..=o.n.min(20) {
        let body = if v % 2 == 1 { &edited } else { &text };
        let t = Instant::now();
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": guri, "version": v}, "contentChanges": [{"text": body}]}),
        )?;
        counts.push(c.diagnostics(&guri)?.len());
        edits.push(t.elapsed());
    }
    counts.dedup();
    row(
        "diagnostics after an unsaved edit of the group",
        edits,
        &format!("{reach} files reached; diagnostics per edit: {counts:?}"),
    );
    let peak = c.peak_kib().unwrap_or(0);
    c.end()?;
    writeln!(
        table,
        "\nServer peak memory (VmHWM): {:.0} MiB",
        peak as f64 / 1024.0
    )
    .ok();
    print!("{table}");
    let out = dir.parent().ok_or("no parent")?.join("lsp.md");
    fs::write(&out, &table).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(())
}
