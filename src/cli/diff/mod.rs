//! `beryl diff`: which hosts change between two states of a fleet, and how.

mod compiled;
mod incremental;
mod reach;
mod select;
mod side;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Context, Failure, Outcome, write_out};
use crate::diag::Diag;
use crate::inventory::Inventory;
use crate::inventory::revision::{self, Snapshot};
use crate::outdir::{self, Manifest};
use crate::output::fleetdiff::{self, Files, HostConfig, HostState, Side};

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
/// enclosing git repository). NEW defaults to the working inventory. Only
/// the hosts whose inputs differ between the sides are compiled (stderr
/// says how many; --full compiles all), and hosts whose hashes agree are
/// skipped without being compared. Lists merged by key
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

    /// Compile every host of both sides, even those whose inputs are the
    /// same on both (by default only the hosts an edit can reach are
    /// compiled: docs/diff.md §9).
    #[arg(long)]
    pub full: bool,

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
    let working = ctx.inventory_dir.display().to_string();
    let new_spec = args.new.as_deref().unwrap_or(&working);
    let specs = [("old", args.old.as_str()), ("new", new_spec)];
    let quick = if args.full || !args.select.is_empty() {
        None
    } else {
        incremental::sides(ctx, specs, args.plan)?
    };
    let (mut old, mut new, count) = match quick {
        Some(([old, new], count)) => (old, new, Some(count)),
        None => {
            let old = side(ctx, "old", &args.old, args.plan)?;
            let new = side(ctx, "new", new_spec, args.plan)?;
            let count = full_count(&old, &new);
            (old, new, count)
        }
    };
    // Said once the selection holds, so that an error comes alone.
    select::filter(&args.select, &mut old.0, &mut new.0)?;
    if let Some(c) = count {
        let line = format!(
            "recompiled {} of {} host{}\n",
            thousands(c.compiled),
            thousands(c.hosts),
            if c.hosts == 1 { "" } else { "s" }
        );
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }
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

/// After a full diff, every host of a side that is an inventory was
/// compiled; `None` when neither is.
fn full_count(old: &Loaded, new: &Loaded) -> Option<incremental::Count> {
    let compiled: std::collections::BTreeSet<&String> = [old, new]
        .into_iter()
        .filter(|s| s.2.is_none())
        .flat_map(|s| s.0.hosts.keys())
        .collect();
    let all: std::collections::BTreeSet<&String> = [old, new]
        .into_iter()
        .flat_map(|s| s.0.hosts.keys())
        .collect();
    (old.2.is_none() || new.2.is_none()).then_some(incremental::Count {
        compiled: compiled.len(),
        hosts: all.len(),
    })
}

/// `10000` as `10,000`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
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
type Loaded = (Side, Option<Snapshot>, Option<outdir::DirLock>);

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
    if outdir::is_render_dir(&dir) {
        if plans {
            return Err(vec![Diag::new(
                Code::Plan,
                format!(
                    "{spec} is a render directory: --plan needs inventories (a directory or git:REV)"
                ),
            )]);
        }
        let (s, lock) = rendered_side(&dir)?;
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
/// Diagnostics name its files under `display`.
fn inventory_side(
    ctx: &Context,
    dir: &Path,
    display: &str,
    ssh: &revision::Place,
    plans: bool,
) -> Result<Side, Failure> {
    let inventory: &'static Inventory = Box::leak(Box::new(Inventory::discover_with(
        dir,
        display,
        &ctx.limits,
    )?));
    let compiled = compiled::compile_side(ctx, inventory, display, ssh, plans, None)?;
    Ok(compiled.map(|c| c.side).unwrap_or_else(|| Side {
        hosts: Default::default(),
        files: None,
    }))
}

/// A `render --out` directory, read as it is (refused when a write was
/// interrupted after its commit: `Manifest::read`):
/// hashes from its manifest, configs read on demand, under its lock. Its
/// files name no input and keep no merge policy: its changes have no cause,
/// and its lists are identified by the other side's policy, or beryl's
/// built-in rules (docs/diff.md).
fn rendered_side(dir: &Path) -> Result<(Side, outdir::DirLock), Diag> {
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
                        node: read_rendered(&file)?,
                        policy: None,
                        names: None,
                        levels: Vec::new(),
                    }))
                }),
                plan: None,
                inputs: Vec::new(),
                // A render directory names hosts, not their domains.
                domain: None,
            },
        );
    }
    Ok((side, lock))
}

fn read_rendered(file: &Path) -> Result<crate::value::Node, Diag> {
    let name = file.display().to_string();
    let max = crate::limits::MAX_OUTPUT_FILE_SIZE;
    let text = outdir::read_own(file)?;
    let limits = crate::limits::Limits::for_output(max);
    crate::yaml::parse_any(&crate::value::Source::new(name, text), &limits)
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(1000), "1,000");
        assert_eq!(super::thousands(10000), "10,000");
        assert_eq!(super::thousands(1234567), "1,234,567");
    }
}
