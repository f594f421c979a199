//! `beryl diff`: which hosts change between two states of a fleet, and how.

mod select;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Context, Failure, Outcome, write_out};
use crate::compile::{self, Compiler};
use crate::diag::Diag;
use crate::inventory::Inventory;
use crate::inventory::revision::{self, Snapshot};
use crate::keys::KeyStore;
use crate::output::fleetdiff::{self, Files, HostConfig, HostState, Names, Side};
use crate::output::render_dir::{self, Manifest};
use crate::output::{self, Format as OutFormat};

crate::diag::codes! {
    /// The codes of the `diff` command.
    pub(crate) enum Code in "diff" {
        /// `--plan` with a render directory: it needs inventories.
        Plan = "plan";
        /// A side that is neither a directory nor `git:REV`.
        Source = "source";
        /// A side that does not compile (its errors follow).
        Side = "side";
    }
}

/// Compare two states of the fleet: added and removed hosts, and each change
/// of each changed host, with the input that caused it.
///
/// OLD and NEW are each an inventory directory, a `render --out` directory
/// (with its manifest), or `git:REV` (the inventory at that revision of the
/// enclosing git repository). NEW defaults to the working inventory. Hosts
/// whose hashes agree are skipped without being compared. Lists merged by key
/// (users by name) are compared by key, other lists as aligned sequences;
/// every path is one `beryl explain` reads. Identical changes are grouped
/// across hosts. Exit 0 when nothing differs, 1 when something does, 2 on
/// error. docs/diff.md describes the forms.
///
/// --select compares only the selected hosts. A host counts when a selector
/// selects it on either side, so a selected host that was added or removed
/// is still reported; a selector that selects nothing on both sides is an
/// error.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    beryl diff git:main\n  \
    beryl diff git:HEAD~1 git:HEAD --stat\n  \
    beryl diff rendered-old/ rendered-new/ --format markdown > comment.md\n  \
    beryl diff git:main --plan\n  \
    beryl diff git:main --select example.org/web/ --select 'edge*'")]
pub(crate) struct Args {
    /// The old state: DIR or git:REV.
    #[arg(value_name = "OLD")]
    pub old: String,

    /// The new state (default: the working inventory).
    #[arg(value_name = "NEW")]
    pub new: Option<String>,

    /// The report format: text, json (schema in docs/diff.md) or markdown (a
    /// pull-request comment under 65,536 characters).
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,

    /// One line per host with counts.
    #[arg(long)]
    pub stat: bool,

    /// Compare the install plans (a unified diff per host) instead of the configs.
    #[arg(long)]
    pub plan: bool,

    /// Only these hosts, on either side (repeatable): names, DOMAIN/, DOMAIN/GROUP/,
    /// quoted globs or class:NAME (docs/inventory.md §2).
    #[arg(long, value_name = "SELECTOR")]
    pub select: Vec<String>,

    #[command(flatten)]
    pub opts: super::options::CompileArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    Text,
    Json,
    Markdown,
}

pub(crate) fn run(ctx: &Context, args: &Args, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let mut old = side(ctx, "old", &args.old, args.plan)?;
    let mut new = match &args.new {
        Some(spec) => side(ctx, "new", spec, args.plan)?,
        None => side(
            ctx,
            "new",
            &ctx.inventory_dir.display().to_string(),
            args.plan,
        )?,
    };
    select::filter(&args.select, &mut old.0, &mut new.0)?;
    let report = fleetdiff::compare(&old.0, &new.0, args.plan)?;
    let text = match (args.format, args.stat) {
        (Format::Json, _) => fleetdiff::to_json(&report),
        (Format::Markdown, _) => fleetdiff::to_markdown(&report, &again(ctx, args)),
        (Format::Text, true) => fleetdiff::to_stat(&report),
        (Format::Text, false) => fleetdiff::to_text(&report),
    };
    write_out(out, &text)?;
    Ok(if report.differs() {
        Outcome::Differences
    } else {
        Outcome::Ok
    })
}

/// The command line that prints this diff whole, for the markdown form's
/// last line when the comment is cut: the sides, the directories unless
/// they are the defaults, the selectors, `--plan`.
fn again(ctx: &Context, args: &Args) -> String {
    let mut words = vec!["beryl".to_string(), "diff".to_string(), args.old.clone()];
    words.extend(args.new.clone());
    for (flag, dir, default) in [
        ("-i", &ctx.inventory_dir, "inventory"),
        ("--ssh-dir", &ctx.ssh_dir, "ssh"),
    ] {
        if dir.as_os_str() != default {
            words.push(flag.into());
            words.push(dir.display().to_string());
        }
    }
    for s in &args.select {
        words.push("--select".into());
        words.push(s.clone());
    }
    if args.plan {
        words.push("--plan".into());
    }
    crate::shell::words(&words).unwrap_or_else(|_| "beryl diff".into())
}

/// A side and what must live as long as it: the temporary tree of a
/// `git:REV` (removed when dropped), or the lock on a render directory
/// (which keeps a render from changing the files while they are read).
type Loaded = (Side, Option<Snapshot>, Option<render_dir::DirLock>);

/// The side `role` ("old" or "new") given as `spec`.
fn side(ctx: &Context, role: &str, spec: &str, plans: bool) -> Result<Loaded, Failure> {
    if let Some(rev) = spec.strip_prefix("git:") {
        let snapshot = revision::checkout(
            &ctx.inventory_dir,
            &ctx.ssh_dir,
            rev,
            ctx.limits.max_file_size,
        )
        .map_err(|e| vec![e.into()])?;
        // A revision without the inventory (before it was added): no host.
        let s = match &snapshot.inventory {
            Some(inv) => inventory_side(ctx, &inv.dir, &inv.display, &snapshot.ssh, plans)
                .map_err(|e| does_not_compile(role, spec, e))?,
            None => Side {
                hosts: Default::default(),
                files: Some(Files::default()),
            },
        };
        return Ok((s, Some(snapshot), None));
    }
    let dir = PathBuf::from(spec);
    if render_dir::is_render_dir(&dir) {
        if plans {
            return Err(vec![Diag::new(
                Code::Plan,
                format!(
                    "{spec} is a render directory: --plan needs inventories (a directory or git:REV)"
                ),
            )]);
        }
        let (s, lock) = rendered_side(&dir).map_err(|d| vec![d])?;
        return Ok((s, None, Some(lock)));
    }
    if !dir.is_dir() {
        return Err(vec![
            Diag::new(Code::Source, format!("{spec}: no such directory"))
                .help("give an inventory directory, a `render --out` directory, or git:REV"),
        ]);
    }
    // Another inventory uses the ssh dir of the command line.
    let ssh = revision::Place {
        dir: ctx.ssh_dir.clone(),
        display: ctx.ssh_dir.display().to_string(),
    };
    let s = inventory_side(ctx, &dir, spec, &ssh, plans)
        .map_err(|e| does_not_compile(role, spec, e))?;
    Ok((s, None, None))
}

/// The errors of a side that does not compile, after a line that names it.
fn does_not_compile(role: &str, spec: &str, errors: Failure) -> Failure {
    let head = Diag::new(
        Code::Side,
        format!("the {role} side ({spec}) does not compile"),
    );
    std::iter::once(head).chain(errors).collect()
}

/// Every host of an inventory, compiled (in parallel) and hashed as
/// `render --out` hashes it, with its plan (`--plan`) and its inputs.
/// Diagnostics name its files under `display`. A host's config (with the
/// spans of its values and its merge policy, src/output/fleetdiff/input.rs)
/// is compiled again when the diff reads it, which it does only for a host
/// whose hashes differ: a side keeps no config, so that 10k hosts fit in
/// memory. The inventory, the key store and the compiler (whose caches make
/// the second compile cheap: each file was parsed once) therefore live as
/// long as the process, which runs one diff.
fn inventory_side(
    ctx: &Context,
    dir: &Path,
    display: &str,
    ssh: &revision::Place,
    plans: bool,
) -> Result<Side, Failure> {
    let inventory: &'static Inventory = Box::leak(Box::new(Inventory::discover(dir, display)?));
    let keys: &'static KeyStore = Box::leak(Box::new(KeyStore::new(
        &ssh.dir,
        &ssh.display,
        ctx.limits.max_file_size,
    )));
    // Files are shown relative to the inventory, key files under the SSH
    // directory given on the command line, whatever tree they were read from.
    let names = Arc::new(Names::new(
        display,
        &ssh.display,
        &ctx.ssh_dir.display().to_string(),
    ));
    let compiler = Arc::new(Compiler::new(inventory, keys, ctx.limits));
    let hosts: Vec<_> = inventory.hosts.iter().collect();
    let templates = crate::plan::render::Templates::new(None, 0).map_err(|d| vec![d])?;
    // diff prints no warning of either side's hosts.
    let progress = super::context::Progress::new(hosts.len());
    let results = compile::compile_many(&compiler, &hosts, |host, r| {
        let side = r.and_then(|c| {
            let text = output::to_string(&c.config, OutFormat::Yaml).map_err(|d| vec![d])?;
            let plan = if plans {
                let p = crate::plan::build(&host.fqdn, &c)?;
                Some(templates.installerconfig(&p).map_err(|d| vec![d])?)
            } else {
                None
            };
            let inputs = HostConfig::inputs(&c, &names);
            Ok((render_dir::hash(&text), plan, inputs))
        });
        progress.tick();
        side
    });
    drop(progress);
    let mut files = Files::default();
    let mut side = Side {
        hosts: Default::default(),
        files: None,
    };
    let mut errors = Vec::new();
    for (host, r) in inventory.hosts.iter().zip(results) {
        match r {
            Ok((hash, plan, inputs)) => {
                let (compiler, names) = (compiler.clone(), names.clone());
                let load = move || {
                    let c = compile::compile(&compiler, host)?;
                    Ok(Arc::new(HostConfig::from_compiled(c, &names)))
                };
                side.hosts.insert(
                    host.fqdn.clone(),
                    HostState {
                        hash,
                        load: Box::new(load),
                        plan,
                        inputs: files.add(inputs),
                    },
                );
            }
            Err(e) => errors.extend(e),
        }
    }
    side.files = Some(files);
    if errors.is_empty() {
        Ok(side)
    } else {
        Err(errors)
    }
}

/// A `render --out` directory (recovered first if a write was interrupted):
/// hashes from its manifest, configs read on demand, under its lock. Its
/// files name no input and keep no merge policy: its changes have no cause,
/// and its lists are identified by the other side's policy, or beryl's
/// built-in rules (docs/diff.md).
fn rendered_side(dir: &Path) -> Result<(Side, render_dir::DirLock), Diag> {
    let (manifest, lock) = Manifest::read(dir)?;
    let manifest = manifest.unwrap_or_default();
    let mut side = Side {
        hosts: Default::default(),
        files: None,
    };
    for (fqdn, hash) in &manifest.hosts {
        let file = manifest.file(dir, fqdn);
        side.hosts.insert(
            fqdn.clone(),
            HostState {
                hash: hash.clone(),
                load: Box::new(move || {
                    Ok(Arc::new(HostConfig {
                        node: read_rendered(&file).map_err(|d| vec![d])?,
                        policy: None,
                        names: None,
                        levels: Vec::new(),
                    }))
                }),
                plan: None,
                inputs: Vec::new(),
            },
        );
    }
    Ok((side, lock))
}

fn read_rendered(file: &Path) -> Result<crate::value::Node, Diag> {
    let name = file.display().to_string();
    let max = crate::limits::MAX_OUTPUT_FILE_SIZE;
    let text = crate::yaml::read_output(file, &name)?;
    let limits = crate::limits::Limits::for_output(max);
    crate::yaml::parse_any(&crate::value::Source::new(name, text), &limits)
}
